"""Power analysis from an observed test statistic: the power a reported test had, and the
sample size a future experiment needs (Sakai 2018, *Laboratory Experiments in Information
Retrieval*, ch. 7; Sakai, "Statistical significance, power, and sample sizes", SIGIR 2016).

METHODS.md §5.7 defines the exact power of the t-tests and of the F-test of an ANOVA; it is
silent on estimating the effect from a reported statistic, which follows Sakai's chapter 7
(his R scripts ``future.sample.pairedt``, ``.unpairedt``, ``.1wayanova``, ``.2waynorep`` and
``.2wayanova2``, after Toyoda 2009 and Cohen 1988) as jerome-white/sakai-book reproduces them
with statsmodels' power classes:

``paired_t`` (t with n topics)
    d̂ = |t|/√n; power P(|T′| > t_{1−α/2, n−1}), T′ ~ noncentral t(n − 1, λ = √n·d̂ = |t|):
    statsmodels' ``TTestPower().power(d̂, n, α)``. Needed: the smallest n′ ≥ 2 whose power
    for d̂ is ≥ 1 − β (``TTestPower().solve_power``, rounded up).
``two_sample_t`` (Student's t with n₁ and n₂ topics)
    d̂ = |t|·√(1/n₁ + 1/n₂); power with df = n₁ + n₂ − 2 and λ = d̂/√(1/n₁ + 1/n₂) = |t|
    (``TTestIndPower().power(d̂, n₁, α, ratio=n₂/n₁)``). Needed: n′ per system, equal groups.
``one_way_anova``, ``two_way_anova``, ``two_way_anova_replicated`` (an F of an effect with
φ and φ_E degrees of freedom)
    Cohen's f̂² = η̂²_p/(1 − η̂²_p) = φ·F/φ_E, with the partial η̂²_p = φF/(φF + φ_E);
    power P(F′ > F_{1−α; φ, φ_E}), F′ ~ noncentral F(φ, φ_E, λ = f̂²·(φ + φ_E + 1)) —
    Cohen's (1988, §8.3) noncentrality for factorial designs, which is the λ of R's
    ``pwr.anova.test`` (k·n·f²) for a one-way design and of ``pwr.f2.test`` (f²(u + v + 1))
    for the others: statsmodels' ``FTestAnovaPower().power(f̂, nobs=φ + φ_E + 1,
    k_groups=φ + 1, α)``. Needed: the smallest size whose power for the same f̂ is ≥ 1 − β,
    with φ_E recomputed for it — topics per system for the one-way design (φ_E = m(n′ − 1)),
    topics for two-way without replication (φ_E = (m − 1)(n′ − 1)), replicates per cell with
    replication (φ_E = mn(r′ − 1); Cohen's n′ = φ_E/(φ + 1) + 1, inverted as
    sakai-book's ``2wayanova`` does).

All tests are two-sided, as METHODS.md §5.6 has them. The observed effect is taken as the
true one ("observed power"): a test with p = α has power near 0.5 whatever its size. Sakai's
use is the one this module serves: to say how underpowered a reported experiment was and
how many topics the next one needs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from irstats.checks import kind_of, one_of, real, score_matrix, share, whole
from irstats.errors import ArgumentError, ArgumentTypeError, InputError
from irstats.result import Result
from irstats.scores import ScoreMatrix

if TYPE_CHECKING:  # pragma: no cover
    from irstats.render import Table

#: The effects of a two-way ANOVA with replication whose F can be analysed.
EFFECTS = ("systems", "topics", "interaction")


def _stats() -> Any:
    import scipy.stats  # when a power is computed: scipy.stats costs ~0.5 s to load

    return scipy.stats


def t_power(df: float, noncentrality: float, alpha: float) -> float:
    """The power of a two-sided t-test: P(|T′| > t_{1−α/2, df}), T′ ~ noncentral t(df, λ)."""
    st = _stats()
    critical = st.t.isf(alpha / 2, df)
    return float(st.nct.sf(critical, df, noncentrality) + st.nct.cdf(-critical, df, noncentrality))


def f_power(df1: float, df2: float, noncentrality: float, alpha: float) -> float:
    """The power of an F-test: P(F′ > F_{1−α; df1, df2}), F′ ~ noncentral F(df1, df2, λ)."""
    st = _stats()
    critical = st.f.isf(alpha, df1, df2)
    if noncentrality == 0:
        return float(st.f.sf(critical, df1, df2))
    return float(st.ncf.sf(critical, df1, df2, noncentrality))


@dataclass(frozen=True)
class PowerDesign:
    """A test whose power is analysed, declared once and read by :func:`power_analysis`,
    :func:`power_from_scores`, :class:`PowerAnalysis`'s printing and ``irstats power --test``
    — as the paired tests are declared (:class:`~irstats.stats.pairwise.PairedTest`).

    ``label``: its name in sentences. ``unit``: what its sample size counts. ``statistic``:
    the symbol of what it reports, ``"t"`` (a t-test: d̂ from |t|, power from the noncentral t)
    or ``"F"`` (the F of an effect: Cohen's f̂, power from the noncentral F). ``dfs(observed,
    size, size2)``: (df1, df2) at a size in its unit (df2 NaN for a t-test); ``noncentrality``
    likewise; ``effect_size(statistic, n, n2, df1, df2)``: the effect the test saw;
    ``sizes(analysis)``: the sizes at hand in words. ``two_groups``: a second group's topics
    (``n2``) are given. ``replicated``: its F is of an ``effect`` of a two-way ANOVA with
    replication (``n`` counts replicates, ``n_topics`` is given). ``on_scores``: for a t-test,
    the test run on two systems' rows (result, n, n2); ``anova``: for the others, the design
    of :func:`irstats.stats.anova.anova` whose F of the systems is analysed.
    """

    name: str
    label: str
    unit: str
    statistic: str
    dfs: Callable[[_Effect, int, int | None], tuple[float, float]]
    noncentrality: Callable[[_Effect, int, int | None], float]
    effect_size: Callable[[float, int, int | None, float, float], float]
    sizes: Callable[[PowerAnalysis], str]
    effect_formula: str = ""  # a t-test: how d is read from t, in the legend
    two_groups: bool = False
    replicated: bool = False
    on_scores: Callable[[np.ndarray, np.ndarray], tuple[Any, int, int | None]] | None = None
    anova: str | None = None

    @property
    def is_t_test(self) -> bool:
        """Whether it reports a t (else the F of an effect)."""
        return self.statistic == "t"

    def power(self, observed: _Effect, size: int, size2: int | None, alpha: float) -> float:
        """The power of the test of the ``observed`` effect at ``size`` (and ``size2``)."""
        df1, df2 = self.dfs(observed, size, size2)
        if self.is_t_test:
            return t_power(df1, self.noncentrality(observed, size, size2), alpha)
        return f_power(df1, df2, self.noncentrality(observed, size, size2), alpha)


@dataclass(frozen=True)
class _Effect:
    """An observed effect with the sizes of its test, ``size`` being what the sample size
    counts (topics, topics per system or replicates per cell)."""

    design: PowerDesign
    effect_size: float  # d̂ or f̂
    n: int
    n2: int | None
    n_systems: int | None
    n_topics: int | None
    effect: str

    @property
    def systems(self) -> int:
        assert self.n_systems is not None  # the F-tests, the only ones with an effect's df, count systems
        return self.n_systems

    def power(self, size: int, size2: int | None, alpha: float) -> float:
        return self.design.power(self, size, size2, alpha)


def _paired_t_dfs(observed: _Effect, size: int, size2: int | None) -> tuple[float, float]:
    return size - 1, math.nan


def _two_sample_t_dfs(observed: _Effect, size: int, size2: int | None) -> tuple[float, float]:
    return size + (size if size2 is None else size2) - 2, math.nan


def _one_way_dfs(observed: _Effect, size: int, size2: int | None) -> tuple[float, float]:
    m = observed.systems
    return m - 1, m * (size - 1)


def _two_way_dfs(observed: _Effect, size: int, size2: int | None) -> tuple[float, float]:
    m = observed.systems
    return m - 1, (m - 1) * (size - 1)


def _replicated_dfs(observed: _Effect, size: int, size2: int | None) -> tuple[float, float]:
    m, n = observed.systems, observed.n_topics
    assert n is not None  # the replicated design counts topics
    df_effect = {"systems": m - 1, "topics": n - 1, "interaction": (m - 1) * (n - 1)}[observed.effect]
    return df_effect, m * n * (size - 1)


def _paired_t_noncentrality(observed: _Effect, size: int, size2: int | None) -> float:
    return math.sqrt(size) * observed.effect_size


def _two_sample_t_noncentrality(observed: _Effect, size: int, size2: int | None) -> float:
    other = size if size2 is None else size2
    return observed.effect_size / math.sqrt(1 / size + 1 / other)


def _f_noncentrality(observed: _Effect, size: int, size2: int | None) -> float:
    df1, df2 = observed.design.dfs(observed, size, None)
    return float(observed.effect_size ** 2 * (df1 + df2 + 1))


def _paired_d(statistic: float, n: int, n2: int | None, df1: float, df2: float) -> float:
    return statistic / math.sqrt(n)


def _two_sample_d(statistic: float, n: int, n2: int | None, df1: float, df2: float) -> float:
    assert n2 is not None  # set for two_sample_t
    return statistic * math.sqrt(1 / n + 1 / n2)


def _cohens_f(statistic: float, n: int, n2: int | None, df1: float, df2: float) -> float:
    return math.sqrt(df1 * statistic / df2)


def _run_paired_t(a: np.ndarray, b: np.ndarray) -> tuple[Any, int, int | None]:
    from irstats.stats import paired_t

    result = paired_t(a, b)
    return result, result.n, None


def _run_two_sample_t(a: np.ndarray, b: np.ndarray) -> tuple[Any, int, int | None]:
    from irstats.stats import two_sample_t

    result = two_sample_t(a, b, equal_var=True)
    return result, result.details["n_x"], result.details["n_y"]


#: Every power design, by name: the one place a new one is declared.
POWER_DESIGNS: dict[str, PowerDesign] = {d.name: d for d in (
    PowerDesign("paired_t", "paired t-test", "topics", "t", _paired_t_dfs, _paired_t_noncentrality, _paired_d,
                lambda r: f"{r.n} topics", effect_formula="/√n", on_scores=_run_paired_t),
    PowerDesign("two_sample_t", "two-sample t-test", "topics per system", "t", _two_sample_t_dfs,
                _two_sample_t_noncentrality, _two_sample_d, lambda r: f"{r.n} and {r.n2} topics",
                effect_formula="·√(1/n₁ + 1/n₂)", two_groups=True, on_scores=_run_two_sample_t),
    PowerDesign("one_way_anova", "one-way ANOVA", "topics per system", "F", _one_way_dfs, _f_noncentrality,
                _cohens_f, lambda r: f"{r.n_systems} systems × {r.n} topics", anova="one-way"),
    PowerDesign("two_way_anova", "two-way ANOVA without replication", "topics", "F", _two_way_dfs, _f_noncentrality,
                _cohens_f, lambda r: f"{r.n_systems} systems × {r.n} topics", anova="two-way"),
    PowerDesign("two_way_anova_replicated", "two-way ANOVA with replication", "replicates per cell", "F",
                _replicated_dfs, _f_noncentrality, _cohens_f,
                lambda r: f"{r.n_systems} systems × {r.n_topics} topics × {r.n} replicates", replicated=True),
)}

#: Tests whose power is analysed, by name.
TESTS = tuple(POWER_DESIGNS)

#: What the sample size of each test counts.
UNITS = {name: design.unit for name, design in POWER_DESIGNS.items()}


@dataclass(frozen=True)
class PowerAnalysis(Result):
    """The power of one reported test and the sample size a future one needs.

    ``n`` is the size at hand in the test's unit (:data:`UNITS`: topics; topics per system;
    replicates per cell), ``n2`` the second group's topics of a two-sample t-test;
    ``sample_size`` the size needed for power 1 − β (None when no size reaches it: no
    observed effect, or more than a million)."""

    measure: str
    test: str
    statistic: float
    df1: float
    df2: float
    effect_size: float
    noncentrality: float
    alpha: float
    beta: float
    power: float
    sample_size: int | None
    n: int
    n2: int | None = None
    n_systems: int | None = None
    n_topics: int | None = None
    replicates: int | None = None
    effect: str = "systems"
    compared: tuple[str, ...] = ()  # the systems compared (scores given), else ()

    @property
    def design(self) -> PowerDesign:
        """The declaration of the test analysed."""
        return POWER_DESIGNS[self.test]

    @property
    def unit(self) -> str:
        """What :attr:`n` and :attr:`sample_size` count."""
        return self.design.unit

    def to_frame(self) -> pl.DataFrame:
        """One row: measure test compared effect statistic df1 df2 effect_size noncentrality
        alpha power beta n n2 sample_size unit."""
        return pl.DataFrame([{
            "measure": self.measure, "test": self.test, "compared": " vs ".join(self.compared),
            "effect": "" if self.design.is_t_test else self.effect,
            "statistic": self.statistic, "df1": float(self.df1), "df2": float(self.df2),
            "effect_size": self.effect_size, "noncentrality": self.noncentrality, "alpha": self.alpha,
            "power": self.power, "beta": self.beta, "n": self.n, "n2": self.n2, "sample_size": self.sample_size,
            "unit": self.unit,
        }], schema={"measure": pl.String, "test": pl.String, "compared": pl.String, "effect": pl.String,
                    "statistic": pl.Float64, "df1": pl.Float64, "df2": pl.Float64, "effect_size": pl.Float64,
                    "noncentrality": pl.Float64, "alpha": pl.Float64, "power": pl.Float64, "beta": pl.Float64,
                    "n": pl.Int64, "n2": pl.Int64, "sample_size": pl.Int64, "unit": pl.String})

    def summary(self) -> pl.DataFrame:
        return self.to_frame().select("measure", "test", "statistic", "effect_size", "power", "n", "sample_size")

    @property
    def title(self) -> str:
        """The analysis in one sentence."""
        name = f"{self.measure}: " if self.measure else ""
        what = self.design.label + (f" of {' vs '.join(self.compared)}" if self.compared else "")
        if self.design.replicated:
            what += f" ({self.effect})"
        symbol = self.design.statistic
        need = (f"{self.sample_size} {self.unit}" if self.sample_size is not None
                else "no sample size" if self.effect_size == 0 else f"more than {1_000_000:,} {self.unit}")
        return (f"{name}{what}, {symbol} = {self.statistic:.4g} with {self.design.sizes(self)}: achieved power "
                f"{self.power:.3f} at α = {self.alpha:g}; {need} for power {1 - self.beta:g}")

    def legend(self) -> list[str]:
        if self.design.is_t_test:
            lines = [f"effect_size: d = |t|{self.design.effect_formula}, the effect the test saw; power of the "
                     f"two-sided test with the noncentral t (df = {self.df1:g}, λ = |t|)"]
        else:
            lines = [f"effect_size: Cohen's f = √(φF/φ_E) (φ = {self.df1:g}, φ_E = {self.df2:g}), the effect the "
                     f"test saw; power with the noncentral F, λ = f²(φ + φ_E + 1) = {self.noncentrality:.4g} "
                     f"(Cohen 1988)"]
        lines.append(f"n: {self.unit} at hand; sample_size: {self.unit} for power {1 - self.beta:g} at α = "
                     f"{self.alpha:g} if the observed effect is the true one (Sakai 2018, ch. 7)")
        return lines

    def display_table(self, digits: int = 4) -> Table:
        from irstats.render import Cell, Table, number_cell

        frame = self.summary()
        row = frame.row(0, named=True)
        cells = [Cell(row["measure"]), Cell(row["test"]), number_cell(row["statistic"], digits),
                 number_cell(row["effect_size"], digits), number_cell(row["power"], digits), Cell(str(row["n"])),
                 Cell("" if row["sample_size"] is None else str(row["sample_size"]))]
        return Table.of(["measure", "test", "statistic", "effect_size", "power", "n", "sample_size"], [cells],
                        [False, False, True, True, True, True, True], title=self.title, legend=self.legend(),
                        label="tab:power")


def power_design(test: object) -> PowerDesign:
    """The declaration of the test named ``test``; an error naming the argument otherwise."""
    if not (isinstance(test, str) and test in POWER_DESIGNS):
        raise (ArgumentError if isinstance(test, str) else ArgumentTypeError)(
            f"unknown test {test!r}; expected one of {', '.join(TESTS)}", argument="test")
    return POWER_DESIGNS[test]


def power_analysis(statistic: float, test: str = "paired_t", *, n: int, n2: int | None = None,
                   n_systems: int | None = None, n_topics: int | None = None, effect: str = "systems",
                   alpha: float = 0.05, beta: float = 0.2, measure: str = "",
                   compared: Sequence[str] = ()) -> PowerAnalysis:
    """Achieved power and the sample size needed, from a reported t or F (see the module).

    - ``paired_t``: ``statistic`` = t, ``n`` = topics (pairs);
    - ``two_sample_t``: t of Student's test, ``n`` and ``n2`` = each system's topics
      (``n2`` defaults to ``n``);
    - ``one_way_anova``: F of the systems, ``n_systems`` = m, ``n`` = topics per system;
    - ``two_way_anova`` (without replication): F of the systems, ``n_systems``, ``n`` = topics;
    - ``two_way_anova_replicated``: F of ``effect`` (systems, topics or interaction),
      ``n_systems``, ``n_topics`` and ``n`` = replicates per cell.

    >>> r = power_analysis(2.116, "paired_t", n=20)           # Sakai's Table 5.1, A vs B
    >>> round(r.effect_size, 3), round(r.power, 3), r.sample_size
    (0.473, 0.519, 38)
    """
    spec = power_design(test)
    statistic = real(statistic, "statistic")
    share(alpha, "alpha")
    share(beta, "beta")
    one_of(effect, "effect", EFFECTS)
    if not isinstance(compared, (tuple, list)) or not all(isinstance(c, str) for c in compared):
        raise ArgumentTypeError(f"compared must be a list of system names; got {kind_of(compared)}",
                                argument="compared")
    if not isinstance(measure, str):
        raise ArgumentTypeError(f"measure must be a name; got {kind_of(measure)}", argument="measure")
    n = whole(n, "n", minimum=2)
    if spec.two_groups:
        n2 = n if n2 is None else whole(n2, "n2", minimum=2)
    elif n2 is not None:
        raise ArgumentError(f"n2 is for two_sample_t, not {test}", argument="n2")
    if spec.is_t_test:
        n_systems = None
        n_topics = None
        statistic = abs(statistic)
        effect = "systems"
    else:
        if n_systems is None:
            raise ArgumentError(f"{test} needs n_systems (m, the systems compared)", argument="n_systems")
        n_systems = whole(n_systems, "n_systems", minimum=2)
        real(statistic, "statistic", low=0.0)
        if spec.replicated:
            if n_topics is None:
                raise ArgumentError("two_way_anova_replicated needs n_topics", argument="n_topics")
            n_topics = whole(n_topics, "n_topics", minimum=2)
        else:
            if n_topics is not None:
                raise ArgumentError(f"n_topics is for two_way_anova_replicated; {test} counts topics in n",
                                    argument="n_topics")
            if effect != "systems":
                raise ArgumentError(f"{test} tests the systems; effect={effect!r} is for "
                                    f"two_way_anova_replicated", argument="effect")
    # the degrees of freedom depend on the sizes only: read them before the effect is known
    df1, df2 = spec.dfs(_Effect(spec, 1.0, n, n2, n_systems, n_topics, effect), n, n2)
    effect_size = spec.effect_size(statistic, n, n2, df1, df2)
    observed = _Effect(spec, effect_size, n, n2, n_systems, n_topics, effect)
    achieved = observed.power(n, n2, alpha)
    needed = None
    if effect_size > 0:
        try:
            from irstats.stats.topicset import smallest_size

            needed = smallest_size(lambda size: observed.power(size, None, alpha) >= 1 - beta, spec.unit)
        except InputError:  # more than a million: no size worth naming
            needed = None
    return PowerAnalysis(measure, spec.name, statistic, df1, df2, effect_size, spec.noncentrality(observed, n, n2), alpha,
                         beta, achieved, needed, n, n2, n_systems, n_topics, n if spec.replicated else None, effect,
                         tuple(compared))


def achieved_power(statistic: float, test: str = "paired_t", **kwargs: Any) -> float:
    """The power the reported test had (:func:`power_analysis`'s ``power``)."""
    return power_analysis(statistic, test, **kwargs).power


def future_sample_size(statistic: float, test: str = "paired_t", **kwargs: Any) -> int | None:
    """The sample size for power 1 − β (:func:`power_analysis`'s ``sample_size``)."""
    return power_analysis(statistic, test, **kwargs).sample_size


def power_from_scores(scores: ScoreMatrix | Sequence[ScoreMatrix], test: str = "paired_t",
                      systems: Sequence[str] | None = None, *, effect: str = "systems", alpha: float = 0.05,
                      beta: float = 0.2) -> PowerAnalysis:
    """:func:`power_analysis` of the test run on per-topic scores.

    ``paired_t`` and ``two_sample_t`` (Student's, pooled) compare two ``systems`` of a
    :class:`~irstats.scores.ScoreMatrix` (by default its only two); the ANOVA tests take the
    F of the systems of :func:`irstats.stats.anova.anova` (of ``systems`` if given, else all)
    and, for ``two_way_anova_replicated``, of ``effect`` in
    :func:`~irstats.stats.anova.anova_with_replication` of a list of score matrices, one per
    replicate.
    """
    from irstats.stats.anova import anova, anova_with_replication

    spec = power_design(test)
    share(alpha, "alpha")
    share(beta, "beta")
    one_of(effect, "effect", EFFECTS)
    if spec.replicated:
        if isinstance(scores, ScoreMatrix):
            raise ArgumentTypeError("two_way_anova_replicated needs a list of score matrices, one per replicate",
                                    argument="scores")
        if systems is not None:
            scores = [score_matrix(m, "scores").subset(_names(systems), None) for m in scores]
        table = anova_with_replication(scores)
        return power_analysis(table.f_statistic(effect), test, n=table.replicates, n_systems=len(table.systems),
                              n_topics=len(table.topics), effect=effect, alpha=alpha, beta=beta,
                              measure=table.measure)
    matrix = score_matrix(scores, "scores")
    if systems is not None:
        matrix = matrix.subset(_names(systems), None)
    if spec.on_scores is not None:  # a t-test of two systems
        if len(matrix.systems) != 2:
            raise ArgumentError(f"{test} compares two systems; give systems=(a, b) (the matrix has "
                                f"{len(matrix.systems)})", argument="systems")
        a, b = matrix.values
        result, n, n2 = spec.on_scores(a, b)
        if not np.isfinite(result.statistic):
            raise InputError(f"{matrix.measure}: the {test} statistic of {' vs '.join(matrix.systems)} is "
                             f"{result.statistic} (no spread of the scores): there is no power to analyse")
        return power_analysis(result.statistic, test, n=n, n2=n2, alpha=alpha, beta=beta, measure=matrix.measure,
                              compared=matrix.systems)
    if effect != "systems":
        raise ArgumentError(f"{test} tests the systems; effect={effect!r} is for two_way_anova_replicated",
                            argument="effect")
    assert spec.anova is not None  # declared with every design that is not a t-test
    table = anova(matrix, spec.anova)
    f = table.f_statistic("systems")
    if not np.isfinite(f):
        raise InputError(f"{matrix.measure}: the residual variance is 0, so F is infinite: there is no power "
                         f"to analyse")
    return power_analysis(f, test, n=len(table.topics), n_systems=len(table.systems), alpha=alpha, beta=beta,
                          measure=table.measure)


def _names(systems: object) -> tuple[str, ...]:
    if isinstance(systems, str) or not isinstance(systems, Sequence) or \
            not all(isinstance(s, str) for s in systems):
        raise ArgumentTypeError(f"systems must be a list of system names; got {kind_of(systems)}",
                                argument="systems")
    return tuple(systems)


__all__ = ["EFFECTS", "POWER_DESIGNS", "PowerAnalysis", "PowerDesign", "TESTS", "UNITS", "achieved_power", "f_power",
           "future_sample_size", "power_analysis", "power_design", "power_from_scores", "t_power"]
