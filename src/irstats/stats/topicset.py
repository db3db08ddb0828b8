"""Topic-set-size design and power (Sakai, "Topic set size design", IRJ 2016; METHODS.md §5.7).

How many topics does a test collection need so that a difference of at least δ between two
systems (or a range of δ among m systems) is detected with probability 1 − β at level α?
And, the other way round, what can an existing collection of n topics detect?

Designs (``design=``):

``paired_t``
    two systems on the same topics. V is the variance of the per-topic differences. Power
    of the two-sided paired t-test with n topics, exactly from the noncentral t:
    P(|T| > t_{1−α/2, n−1}), T ~ t(df = n − 1, λ = √n·δ/√V).
``two_sample_t``
    two systems on different topic sets of n topics each (Student's t, equal variances).
    V is the per-system variance of the scores: df = 2n − 2, λ = δ/√(2V/n).
``anova``
    one-way ANOVA over m systems: noncentral F(m − 1, m(n − 1), λ = n·Δ/V) with Sakai's
    minimum detectable range Δ = δ²/2 and V the within-system variance.
``ci``
    the smallest n whose 95% (1 − α) confidence interval for a paired difference has an
    expected width of at most δ: 2·t_{1−α/2, n−1}·c₄(n − 1)·√(V/n) ≤ δ, where c₄(φ)·√V is the
    expected sample standard deviation with φ degrees of freedom
    (c₄(φ) = √(2/φ)·Γ((φ + 1)/2)/Γ(φ/2)).
``two_sample_ci``
    the same for the difference of two systems on different topic sets of n topics each
    (Sakai's samplesize2SAMPLECI, 2018 ch. 6): the pooled interval
    x̄ − ȳ ± t_{1−α/2, 2n−2}·s_p·√(2/n), whose expected width is
    2·t_{1−α/2, 2n−2}·c₄(2n − 2)·√(2V/n) ≤ δ, V the per-system variance. As Sakai's Excel tool
    with its Γ-function form (jerome-white/sakai-book's ``samplesize2SAMPLECI.py`` writes the
    same condition as t·Γ((φ+1)/2)/(√(nφ)·Γ(φ/2)) ≤ δ/(4√V), and offers c₄ ≈ 1 − 1/(4φ)).

V is given, or estimated from a score matrix (:func:`variance_for`): from the residual
variance V_E of a two-way ANOVA without replication (systems × topics), V = 2·V_E for the
paired designs (the variance of a difference of two systems) and V = V_E for the others.
Power is exact (``scipy.stats.nct`` and ``ncf``), not a normal approximation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.checks import real, score_matrix, share, whole
from irstats.errors import ArgumentError, ArgumentTypeError, InputError
from irstats.scores import ScoreMatrix

#: No collection is designed with more topics than this; a request beyond it is an error.
MAX_TOPICS = 1_000_000


def _stats() -> Any:
    import scipy.stats  # imported when a design is computed: scipy.stats costs ~0.5 s to load

    return scipy.stats


@dataclass(frozen=True)
class Design:
    """A topic-set design, declared once and read by every function here, by
    :class:`TopicSetDesign`'s sentence and by ``irstats topicset --design`` — as the paired
    tests are declared (:class:`~irstats.stats.pairwise.PairedTest`).

    A design is about either the power of a test or the width of an interval: ``power(n,
    min_diff, variance, alpha, n_systems)`` gives the exact power with n topics (n ≥ 2);
    ``interval(n, variance)`` gives the degrees of freedom and the squared standard error
    (over V's units) of the interval of a difference, whose expected width is compared with
    δ. ``variance_factor``: V in units of the residual variance V_E of a score matrix (2 for
    a difference of two systems on the same topics). ``counts_systems``: its power depends
    on the number of systems m (taken from the matrix). ``each``: what its count of topics is
    per, in the sentence of an interval design (" per system")."""

    name: str
    power: Callable[[int, float, float, float, int], float] | None = None
    interval: Callable[[int, float], tuple[int, float]] | None = None
    variance_factor: float = 1.0
    counts_systems: bool = False
    each: str = ""

    def __post_init__(self) -> None:
        if (self.power is None) == (self.interval is None):
            raise ValueError(f"design {self.name}: declare either power (a test) or interval (a width)")


def _t_power(df: int, noncentrality: float, alpha: float) -> float:
    st = _stats()
    critical = st.t.isf(alpha / 2, df)
    return float(st.nct.sf(critical, df, noncentrality) + st.nct.cdf(-critical, df, noncentrality))


def _paired_t_power(n: int, min_diff: float, variance: float, alpha: float, n_systems: int) -> float:
    return _t_power(n - 1, math.sqrt(n) * min_diff / math.sqrt(variance), alpha)


def _two_sample_t_power(n: int, min_diff: float, variance: float, alpha: float, n_systems: int) -> float:
    return _t_power(2 * n - 2, min_diff / math.sqrt(2 * variance / n), alpha)


def _anova_power(n: int, min_diff: float, variance: float, alpha: float, n_systems: int) -> float:
    st = _stats()
    df1, df2 = n_systems - 1, n_systems * (n - 1)
    nc = n * (min_diff ** 2 / 2) / variance  # Sakai's minimum detectable range Δ = δ²/2
    critical = st.f.isf(alpha, df1, df2)
    return float(st.ncf.sf(critical, df1, df2, nc))


def _paired_interval(n: int, variance: float) -> tuple[int, float]:
    return n - 1, variance / n


def _two_sample_interval(n: int, variance: float) -> tuple[int, float]:
    return 2 * n - 2, 2 * variance / n


#: Every topic-set design, by name: the one place a new one is declared.
TOPIC_SET_DESIGNS: dict[str, Design] = {d.name: d for d in (
    Design("paired_t", power=_paired_t_power, variance_factor=2.0),
    Design("two_sample_t", power=_two_sample_t_power),
    Design("anova", power=_anova_power, counts_systems=True),
    Design("ci", interval=_paired_interval, variance_factor=2.0),
    Design("two_sample_ci", interval=_two_sample_interval, each=" per system"),
)}

DESIGNS = tuple(TOPIC_SET_DESIGNS)
#: The designs about the width of an interval rather than the power of a test.
CI_DESIGNS = tuple(name for name, design in TOPIC_SET_DESIGNS.items() if design.interval is not None)


def topic_set_design(design: object) -> Design:
    """The declaration of the design named ``design``; an error naming the argument otherwise."""
    if not (isinstance(design, str) and design in TOPIC_SET_DESIGNS):
        raise (ArgumentError if isinstance(design, str) else ArgumentTypeError)(
            f"unknown design {design!r}; expected one of {', '.join(DESIGNS)}", argument="design")
    return TOPIC_SET_DESIGNS[design]


def power(n: int, min_diff: float, variance: float, design: str = "paired_t", alpha: float = 0.05,
          n_systems: int = 2) -> float:
    """The exact power of ``design`` with n topics (per system, for two_sample_t) to detect
    ``min_diff`` (δ) at level ``alpha`` when the variance is ``variance`` (V)."""
    spec = _check(design, alpha, None, None, variance, n_systems)
    real(min_diff, "min_diff", low=0.0)  # δ = 0 is allowed here: its power is α
    n = whole(n, "n", minimum=1)
    if n < 2:
        return float("nan")
    if spec.power is None:
        raise InputError(f"the {design} design has no power: it is about the width of an interval")
    return spec.power(n, min_diff, variance, alpha, n_systems)


def expected_ci_width(n: int, variance: float, alpha: float = 0.05, design: str = "ci") -> float:
    """The expected width of the 1 − α interval of a difference with n topics: paired
    (``ci``) 2·t_{1−α/2, n−1}·c₄(n − 1)·√(V/n); two samples of n topics each
    (``two_sample_ci``) 2·t_{1−α/2, 2n−2}·c₄(2n − 2)·√(2V/n)."""
    n = whole(n, "n", minimum=2)
    real(variance, "variance", low=0.0, open_low=True)
    share(alpha, "alpha")
    spec = TOPIC_SET_DESIGNS.get(design) if isinstance(design, str) else None
    if spec is None or spec.interval is None:
        raise (ArgumentError if isinstance(design, str) else ArgumentTypeError)(
            f"expected_ci_width's design must be one of {', '.join(CI_DESIGNS)}; got {design!r}", argument="design")
    st = _stats()
    df, spread = spec.interval(n, variance)
    c4 = math.sqrt(2 / df) * math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2))
    width: float = 2 * st.t.isf(alpha / 2, df) * c4 * math.sqrt(spread)
    return width


def smallest_size(good: Callable[[int], bool], what: str, context: str = "", start: int = 2) -> int:
    """The smallest whole n ≥ ``start`` for which ``good(n)`` holds, when ``good`` is monotone
    (false, then true): doubled until it holds, then bisected. More than :data:`MAX_TOPICS`
    is an error: "more than 1,000,000 ``what`` would be needed ``context``"."""
    high = start
    while not good(high):
        high *= 2
        if high > MAX_TOPICS:
            raise InputError(f"more than {MAX_TOPICS:,} {what} would be needed {context}".rstrip())
    low = max(start, high // 2)
    if good(low):
        return low
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if good(middle) else (middle, high)
    return high


def topics_needed(min_diff: float, variance: float, design: str = "paired_t", alpha: float = 0.05,
                  beta: float = 0.2, n_systems: int = 2) -> int:
    """The smallest n ≥ 2 with power ≥ 1 − β (or, for ``ci`` and ``two_sample_ci``, expected
    width ≤ δ; n per system for the two-sample designs and ``anova``).

    >>> topics_needed(0.05, 0.0479, "paired_t", alpha=0.05, beta=0.2)
    153
    """
    share(beta, "beta")
    real(min_diff, "min_diff", low=0.0, open_low=True)
    spec = _check(design, alpha, beta, min_diff, variance, n_systems)

    def good(n: int) -> bool:
        if spec.interval is not None:
            return expected_ci_width(n, variance, alpha, design) <= min_diff
        return power(n, min_diff, variance, design, alpha, n_systems) >= 1 - beta

    # Power (and the interval's width) is monotone in n: double until it is enough, then bisect.
    return smallest_size(good, "topics", f"for {design} with min_diff={min_diff:g}, variance={variance:g}")


def min_detectable_difference(n: int, variance: float, design: str = "paired_t", alpha: float = 0.05,
                              beta: float = 0.2, n_systems: int = 2) -> float:
    """The smallest δ that n topics detect with power 1 − β (for ``ci`` and
    ``two_sample_ci``: the expected width of the interval)."""
    share(beta, "beta")
    spec = _check(design, alpha, beta, 1.0, variance, n_systems)
    n = whole(n, "n", minimum=2)
    if spec.interval is not None:
        return expected_ci_width(n, variance, alpha, design)
    from scipy.optimize import brentq

    target = 1 - beta
    high = math.sqrt(variance)
    while power(n, high, variance, design, alpha, n_systems) < target:
        high *= 2
    return float(brentq(lambda d: power(n, d, variance, design, alpha, n_systems) - target, 0.0, high,
                        xtol=1e-12, rtol=1e-12))


def residual_variance(matrix: ScoreMatrix) -> float:
    """V_E = Σ(x_ij − x̄_i· − x̄_·j + x̄)²/((m − 1)(n − 1)) over topics every system has."""
    score_matrix(matrix)
    x = matrix.values[:, ~np.isnan(matrix.values).any(axis=0)]
    m, n = x.shape
    if m < 2 or n < 2:
        raise InputError(f"{matrix.measure}: the residual variance needs at least 2 systems and 2 topics "
                         f"scored for every system; got {m} × {n}")
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    return float((residual ** 2).sum() / ((m - 1) * (n - 1)))


def variance_for(matrix: ScoreMatrix, design: str) -> float:
    """V for ``design`` from a score matrix: 2·V_E for paired_t and ci, V_E otherwise
    (two_sample_t, two_sample_ci, anova): its declared ``variance_factor`` times V_E."""
    spec = topic_set_design(design)
    v_e = residual_variance(matrix)
    return spec.variance_factor * v_e  # exact: a factor of 1 or 2 changes no bit but the exponent


def _check(design: object, alpha: float, beta: float | None, min_diff: float | None, variance: float,
           n_systems: int) -> Design:
    spec = topic_set_design(design)
    share(alpha, "alpha")
    if beta is not None:
        share(beta, "beta")
    if min_diff is not None:
        real(min_diff, "min_diff", low=0.0, open_low=True)
    real(variance, "variance", low=0.0, open_low=True)
    if spec.counts_systems:
        whole(n_systems, "n_systems", minimum=2)
    return spec


@dataclass(frozen=True)
class TopicSetDesign(Result):
    """One design's answer: the topics needed, and what the collection at hand can detect."""

    measure: str
    design: str
    alpha: float
    beta: float
    min_diff: float
    variance: float
    n_topics: int
    n_systems: int = 2
    current_topics: int | None = None  # the collection's own n, when the variance came from it
    current_min_diff: float | None = None  # what those n topics detect with power 1 − β
    current_power: float | None = None  # their power to detect min_diff

    def to_frame(self) -> pl.DataFrame:
        """One row: measure design alpha beta min_diff variance n_topics."""
        return pl.DataFrame([{
            "measure": self.measure, "design": self.design, "alpha": self.alpha, "beta": self.beta,
            "min_diff": self.min_diff, "variance": self.variance, "n_topics": self.n_topics,
        }])

    def summary(self) -> pl.DataFrame:
        """:meth:`to_frame` with the systems of the ANOVA design and what the collection at
        hand detects: its topics, minimum detectable difference and power for min_diff."""
        return self.to_frame().with_columns(
            pl.lit(self.n_systems, pl.Int64).alias("n_systems"),
            pl.lit(self.current_topics, pl.Int64).alias("current_topics"),
            pl.lit(self.current_min_diff, pl.Float64).alias("current_min_diff"),
            pl.lit(self.current_power, pl.Float64).alias("current_power"))

    @property
    def title(self) -> str:
        """The design in one sentence (what the table above the numbers says)."""
        return self.sentence()

    def sentence(self) -> str:
        name = f"{self.measure} " if self.measure else ""
        head = f"{name}({self.design}, α = {self.alpha:g}, β = {self.beta:g}, V = {self.variance:.6g}): "
        spec = TOPIC_SET_DESIGNS[self.design]
        if spec.interval is not None:
            text = head + (f"{self.n_topics} topics{spec.each} for an expected interval width of at most "
                           f"{self.min_diff:g}")
            if self.current_topics is not None:
                text += f"; the {self.current_topics} topics at hand give {self.current_min_diff:.4f}"
            return text
        text = head + f"{self.n_topics} topics to detect a difference of {self.min_diff:g}"
        if self.current_topics is not None:
            text += (f"; the {self.current_topics} topics at hand detect {self.current_min_diff:.4f}"
                     f" (power {self.current_power:.3f} for {self.min_diff:g})")
        return text


def design_topic_set(matrix: ScoreMatrix | None = None, *, min_diff: float, design: str = "paired_t",
                     alpha: float = 0.05, beta: float = 0.2, variance: float | None = None,
                     n_systems: int | None = None, measure: str | None = None) -> TopicSetDesign:
    """Topics needed for ``design``, with V given or estimated from ``matrix``; when a matrix
    is given, also what its own topics can detect (minimum difference and power)."""
    spec = topic_set_design(design)
    if matrix is not None:
        score_matrix(matrix)
    if variance is None:
        if matrix is None:
            raise ArgumentError("give a variance or a score matrix to estimate it from", argument="variance")
        variance = variance_for(matrix, design)
    if n_systems is None:
        n_systems = len(matrix.systems) if (matrix is not None and spec.counts_systems) else 2
    n = topics_needed(min_diff, variance, design, alpha, beta, n_systems)
    current = current_diff = current_power = None
    if matrix is not None:
        current = int((~np.isnan(matrix.values).any(axis=0)).sum())
        if current >= 2:
            current_diff = min_detectable_difference(current, variance, design, alpha, beta, n_systems)
            current_power = None if spec.power is None else power(current, min_diff, variance, design, alpha,
                                                                  n_systems)
    name = measure or (matrix.measure if matrix is not None else "")
    return TopicSetDesign(name, design, alpha, beta, min_diff, variance, n, n_systems, current, current_diff,
                          current_power)


__all__ = ["CI_DESIGNS", "DESIGNS", "Design", "TOPIC_SET_DESIGNS", "TopicSetDesign", "design_topic_set",
           "expected_ci_width", "min_detectable_difference", "power", "residual_variance", "smallest_size",
           "topic_set_design", "topics_needed", "variance_for"]
