"""Closed-form significance tests and intervals (METHODS §5.6, §4.8).

Every test returns a :class:`TestResult`. The paired tests take two score vectors over
the same topics (e.g. two rows of a :class:`~irstats.scores.ScoreMatrix`); a topic on
which either system has no score (NaN) is dropped with a warning, and the number dropped
is in ``details["dropped"]``.

Conventions (METHODS §5.6):

- d_i = a_i − b_i; |d_i| ≤ 1e-12 counts as zero (sign test, Wilcoxon).
- All tests are two-sided unless ``alternative`` says otherwise.
- Paired effect size: d_z = d̄/s_d. Two-sample: Cohen's d with the pooled sd.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from irstats.checks import numbers, share
from irstats.errors import ArgumentError, ArgumentTypeError, warn
from irstats.stats.degenerate import ZERO_TOL as ZERO_TOL  # re-exported: |d| at or below it counts as zero
from irstats.stats.degenerate import degenerate_t, zero_spread

ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass
class TestResult:
    """The outcome of one significance test.

    ``statistic`` is the test's own statistic (t, V, n₊, mean difference …);
    ``ci_low``/``ci_high`` a confidence interval for the mean difference where the test
    gives one (NaN otherwise); ``effect_size`` the test's effect size (see each test);
    ``n`` the number of topics (pairs) used; ``details`` everything else (df, method,
    alternative, topics dropped, resamples, seed …).
    """

    __test__ = False  # not a pytest test class

    test: str
    statistic: float
    p_value: float
    ci_low: float = np.nan
    ci_high: float = np.nan
    effect_size: float = np.nan
    n: int = 0
    details: dict[str, Any] = field(default_factory=dict)

    def significant(self, alpha: float = 0.05) -> bool:
        """Whether p < alpha."""
        share(alpha, "alpha")
        return bool(self.p_value < alpha)


class Interval(NamedTuple):
    """A confidence interval ``(low, high)``."""

    low: float
    high: float


# --------------------------------------------------------------------------- inputs

def paired_differences(a: ArrayLike, b: ArrayLike, *, quiet: bool = False) -> tuple[np.ndarray, int]:
    """d = a − b over the topics where both a and b have a score; also how many were dropped.

    Warns (unless ``quiet``) when topics are dropped because a score is missing (NaN).
    """
    a = numbers(a, "a")
    b = numbers(b, "b")
    if a.ndim != 1 or a.shape != b.shape:
        raise ArgumentError(f"paired scores a and b need two vectors of the same length, got shapes {a.shape} "
                            f"and {b.shape}", argument="a" if a.ndim != 1 else "b")
    keep = ~(np.isnan(a) | np.isnan(b))
    dropped = int(a.size - np.count_nonzero(keep))
    if dropped and not quiet:
        warn(f"{dropped} of {a.size} topics lack a score for one of the two systems and were dropped; "
             f"{a.size - dropped} paired topics remain")
    return a[keep] - b[keep], dropped


def _scipy_stats() -> Any:
    """scipy.stats, imported when a test runs: importing it costs start-up (about a second)
    that commands such as ``splithalf`` never need."""
    from scipy import stats

    return stats


def _check_alternative(alternative: str) -> None:
    if not (isinstance(alternative, str) and alternative in ALTERNATIVES):
        error = ArgumentError if isinstance(alternative, str) else ArgumentTypeError
        raise error(f"unknown alternative {alternative!r}; expected one of {', '.join(ALTERNATIVES)}",
                    argument="alternative")


def _check_confidence(confidence: float) -> None:
    """``confidence`` is a number strictly between 0 and 1."""
    share(confidence, "confidence")


def _t_pvalue(t: np.ndarray, df: np.ndarray, alternative: str) -> np.ndarray:
    # scipy.special.stdtr is what scipy.stats.t.sf/cdf evaluate; importing scipy.stats would
    # cost a command most of a second of start-up for the same numbers.
    from scipy.special import stdtr

    p: np.ndarray
    if alternative == "two-sided":
        p = np.minimum(1.0, 2.0 * stdtr(df, -np.abs(t)))
    elif alternative == "greater":
        p = stdtr(df, -t)
    else:
        p = stdtr(df, t)
    return p


def _t_quantile(q: float, df: ArrayLike) -> np.ndarray:
    from scipy.special import stdtrit  # scipy.stats.t.ppf

    quantile: np.ndarray = stdtrit(df, q)
    return quantile


def _t_ci(mean: float | np.ndarray, se: float | np.ndarray, df: float | np.ndarray, alternative: str,
          confidence: float) -> tuple[np.ndarray, np.ndarray]:
    if alternative == "two-sided":
        q = _t_quantile((1 + confidence) / 2, df)
        return mean - q * se, mean + q * se
    q = _t_quantile(confidence, df)
    if alternative == "greater":
        return mean - q * se, np.full_like(np.asarray(mean, dtype=float), np.inf)
    return np.full_like(np.asarray(mean, dtype=float), -np.inf), mean + q * se


# --------------------------------------------------------------------------- paired t

@dataclass(frozen=True)
class PairedTRows:
    """Paired t-tests, one per row of differences: arrays with one value per row.

    ``statistic`` t, ``p_value``, ``ci_low``/``ci_high`` the interval of the mean difference,
    ``effect_size`` d_z, ``n`` the topics used, ``df``, ``mean`` and ``sd`` of the differences,
    ``degenerate`` where s_d = 0 (the one degenerate-t rule applied).
    """

    statistic: np.ndarray
    p_value: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    effect_size: np.ndarray
    n: np.ndarray
    df: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    degenerate: np.ndarray


def paired_t_rows(D: np.ndarray, alternative: str = "two-sided", confidence: float = 0.95) -> PairedTRows:
    """The paired t-test on each row of D (pairs × topics; NaN entries are ignored).

    The batched core of :func:`paired_t` (and of every paired t in irstats).

    >>> rows = paired_t_rows(np.array([[0.1, 0.0, 0.1, 0.2], [0.1, 0.1, 0.1, 0.1]]))
    >>> rows.statistic.round(4).tolist(), rows.p_value.round(4).tolist()
    ([2.4495, inf], [0.0917, 0.0])
    """
    D = np.ascontiguousarray(np.atleast_2d(np.asarray(D, dtype=np.float64)))
    ok = ~np.isnan(D)
    n = ok.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, D, 0.0).sum(axis=-1) / n
        dev = np.where(ok, D - mean[:, None], 0.0)
        sd = np.sqrt((dev * dev).sum(axis=-1) / (n - 1))
        se = sd / np.sqrt(n)
        t = mean / se
        df = (n - 1).astype(np.float64)
        p = _t_pvalue(t, df, alternative)
        lo, hi = _t_ci(mean, se, df, alternative, confidence)
        dz = mean / sd
    # s_d = 0 (all differences equal): p = 1 when d̄ = 0, else p = 0 (METHODS §5.6 [CHOICE]).
    degenerate = (n >= 2) & zero_spread(sd, mean)
    if degenerate.any():
        t_deg, p_deg, zero_mean = degenerate_t(mean, alternative)
        t = np.where(degenerate, t_deg, t)
        p = np.where(degenerate, p_deg, p)
        lo = np.where(degenerate, np.where(np.isinf(lo), lo, mean), lo)
        hi = np.where(degenerate, np.where(np.isinf(hi), hi, mean), hi)
        dz = np.where(degenerate, np.where(zero_mean, 0.0, np.copysign(np.inf, mean)), dz)
    small = n < 2
    for arr in (t, p, lo, hi, dz, sd):
        arr[small] = np.nan
    return PairedTRows(t, p, lo, hi, dz, n, df, mean, sd, degenerate)


def paired_t(a: ArrayLike, b: ArrayLike, alternative: str = "two-sided", confidence: float = 0.95) -> TestResult:
    """Paired t-test of a against b (R ``t.test(a, b, paired=TRUE)``, scipy ``ttest_rel``).

    t = d̄/(s_d/√n), df = n − 1. The interval is the t-interval of the mean difference at
    ``confidence`` (one-sided for a one-sided ``alternative``); the effect size is
    d_z = d̄/s_d. Fewer than 2 pairs give NaN. If every difference is the same (s_d = 0),
    p = 1 when d̄ = 0 and 0 otherwise, with a warning.

    >>> r = paired_t([0.3, 0.5, 0.4, 0.6], [0.2, 0.5, 0.3, 0.4])
    >>> round(r.statistic, 4), round(r.p_value, 4)
    (2.4495, 0.0917)
    """
    _check_alternative(alternative)
    _check_confidence(confidence)
    d, dropped = paired_differences(a, b)
    row = paired_t_rows(d[None, :], alternative, confidence)
    if row.degenerate[0]:
        warn("all paired differences are equal (s_d = 0): the t statistic is undefined; "
             f"p = {row.p_value[0]:g} by convention")
    return TestResult("paired_t", float(row.statistic[0]), float(row.p_value[0]), float(row.ci_low[0]),
                      float(row.ci_high[0]), float(row.effect_size[0]), int(row.n[0]),
                      {"df": float(row.df[0]), "mean_difference": float(row.mean[0]), "sd_difference": float(row.sd[0]),
                       "alternative": alternative, "confidence": confidence, "dropped": dropped})


# --------------------------------------------------------------------------- Wilcoxon

@lru_cache(maxsize=128)
def _signrank_counts(n: int) -> np.ndarray:
    """Number of sign vectors of 1..n whose positive ranks sum to v, for v = 0..n(n+1)/2.

    Exact in float64 for n < 53 (the counts stay below 2^53).
    """
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for k in range(1, n + 1):
        shifted = np.zeros_like(counts)
        shifted[k:] = counts[:-k]
        counts = counts + shifted
    counts.setflags(write=False)
    return counts


@dataclass(frozen=True)
class SignedRank:
    """One Wilcoxon signed-rank test: V, p, the rank-biserial effect size, the non-zero
    differences used, the zeros dropped, whether |d| had ties, and ``exact``/``approx``/``none``."""

    statistic: float
    p_value: float
    effect_size: float
    n_nonzero: int
    zeros: int
    ties: bool
    method: str


def wilcoxon_from_differences(d: np.ndarray, exact: bool | None = None, correct: bool = True) -> SignedRank:
    """Wilcoxon signed-rank test on differences d (no NaN), following R ``wilcox.test``."""
    d = np.asarray(d, dtype=np.float64)
    zero = np.abs(d) <= ZERO_TOL
    zeros = int(np.count_nonzero(zero))
    x = d[~zero]
    n = x.size
    if n == 0:
        return SignedRank(0.0, 1.0, 0.0, 0, zeros, False, "none")
    r = _scipy_stats().rankdata(np.abs(x))  # average ranks for ties
    v = float(r[x > 0].sum())
    _, tie_sizes = np.unique(r, return_counts=True)
    ties = bool(tie_sizes.size != n)
    total = n * (n + 1) / 2
    use_exact = (n < 50) if exact is None else bool(exact)
    if use_exact and not ties and not zeros and n < 53:
        counts = _signrank_counts(n)
        vi = int(round(v))
        if v > n * (n + 1) / 4:
            tail = counts[vi:].sum()
        else:
            tail = counts[: vi + 1].sum()
        p = min(1.0, 2.0 * tail / 2.0 ** n)
        method = "exact"
    else:
        z = v - n * (n + 1) / 4
        sigma = np.sqrt(n * (n + 1) * (2 * n + 1) / 24 - np.sum(tie_sizes.astype(float) ** 3 - tie_sizes) / 48)
        corr = np.sign(z) * 0.5 if correct else 0.0
        z = (z - corr) / sigma
        p = float(min(1.0, 2.0 * min(_scipy_stats().norm.cdf(z), _scipy_stats().norm.sf(z))))
        method = "approx"
    return SignedRank(v, float(p), float((2 * v - total) / total), n, zeros, ties, method)


def wilcoxon(a: ArrayLike, b: ArrayLike, exact: bool | None = None, correct: bool = True) -> TestResult:
    """Wilcoxon signed-rank test of a against b, two-sided, following R ``wilcox.test``.

    Differences with |d| ≤ 1e-12 are dropped (n′ remain); |d| is ranked with average ranks
    for ties; the statistic is V, the sum of the positive ranks (R's V; scipy reports
    min(V, n′(n′+1)/2 − V) instead). The p-value is exact when n′ < 50 (or ``exact=True``)
    and there are neither ties nor dropped zeros — R's rule; otherwise it comes from the
    normal approximation with the tie-corrected variance
    n′(n′+1)(2n′+1)/24 − Σ(u³ − u)/48 and (if ``correct``) a 0.5 continuity correction.
    n′ = 0 gives p = 1. ``details["method"]`` says which was used.

    The effect size is the matched-pairs rank-biserial correlation (2V − S)/S with
    S = n′(n′+1)/2 (+1: a wins on every topic, −1: b does).
    """
    d, dropped = paired_differences(a, b)
    res = wilcoxon_from_differences(d, exact, correct)
    return TestResult("wilcoxon", res.statistic, res.p_value, effect_size=res.effect_size, n=int(d.size),
                      details={"method": res.method, "n_nonzero": res.n_nonzero, "zeros": res.zeros,
                               "ties": res.ties, "correct": correct, "alternative": "two-sided",
                               "dropped": dropped})


# --------------------------------------------------------------------------- sign test

@dataclass(frozen=True)
class SignRows:
    """Two-sided sign tests, one per row: n₊ (``statistic``), p, (n₊ − n₋)/m, n₊, n₋, topics used."""

    statistic: np.ndarray
    p_value: np.ndarray
    effect_size: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    n: np.ndarray


def sign_rows(D: np.ndarray) -> SignRows:
    """The two-sided sign test on each row of D (pairs × topics, NaN ignored)."""
    D = np.atleast_2d(np.asarray(D, dtype=np.float64))
    with np.errstate(invalid="ignore"):
        pos = (D > ZERO_TOL).sum(axis=-1)
        neg = (D < -ZERO_TOL).sum(axis=-1)
    m = pos + neg
    p = np.where(m > 0, np.minimum(1.0, 2.0 * _scipy_stats().binom.cdf(np.minimum(pos, neg), np.maximum(m, 1), 0.5)), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        effect = np.where(m > 0, (pos - neg) / m, 0.0)
    return SignRows(pos.astype(np.float64), p, effect, pos, neg, (~np.isnan(D)).sum(axis=-1))


def sign_test(a: ArrayLike, b: ArrayLike) -> TestResult:
    """Two-sided sign test of a against b.

    m = n₊ + n₋ topics with a non-zero difference (|d| > 1e-12);
    p = min(1, 2·P[Bin(m, ½) ≤ min(n₊, n₋)]) — the same as ``scipy.stats.binomtest(n₊, m)``
    and R ``binom.test``. m = 0 gives p = 1. The statistic is n₊ (topics where a wins);
    the effect size is (n₊ − n₋)/m.
    """
    d, dropped = paired_differences(a, b)
    row = sign_rows(d[None, :])
    pos, neg = int(row.pos[0]), int(row.neg[0])
    return TestResult("sign", float(row.statistic[0]), float(row.p_value[0]), effect_size=float(row.effect_size[0]),
                      n=int(d.size), details={"positive": pos, "negative": neg, "zeros": int(d.size - pos - neg),
                                              "alternative": "two-sided", "dropped": dropped})


# --------------------------------------------------------------------------- two-sample t

def row_moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count, mean and sample variance (ddof 1) along the last axis, NaN left out."""
    if not np.isnan(x).any():
        n = np.full(x.shape[:-1], x.shape[-1], dtype=np.int64)
        mean = x.sum(axis=-1) / x.shape[-1]
        dev = x - mean[..., None]
        with np.errstate(invalid="ignore", divide="ignore"):
            var = (dev * dev).sum(axis=-1) / (n - 1)
        return n, mean, var
    ok = ~np.isnan(x)
    n = ok.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, x, 0.0).sum(axis=-1) / n
        dev = np.where(ok, x - mean[..., None], 0.0)
        var = (dev * dev).sum(axis=-1) / (n - 1)
    return n, mean, var


@dataclass(frozen=True)
class TwoSampleTRows:
    """Two-sample t-tests along the last axis: t, df, p and the two means, of the leading shape."""

    statistic: np.ndarray
    df: np.ndarray
    p_value: np.ndarray
    mean_x: np.ndarray
    mean_y: np.ndarray


def two_sample_t_rows(x: np.ndarray, y: np.ndarray, equal_var: bool = False,
                      alternative: str = "two-sided") -> TwoSampleTRows:
    """Two-sample t-tests of x against y along the last axis, vectorised over leading axes.

    x (..., n_x) and y (..., n_y) must have the same leading shape; NaN entries are left
    out. Welch (default) or pooled (``equal_var=True``), as :func:`irstats.stats.two_sample_t`
    and ``scipy.stats.ttest_ind``; ``alternative`` is ``"two-sided"``, ``"greater"``
    (x̄ > ȳ) or ``"less"``. When both samples are constant (se ≤ 1e-12·max(1, |x̄ − ȳ|)),
    t = 0 and p = 1 if the means agree, else t = ±∞ and p = 0 (in the direction tested).
    Fewer than 2 values in a sample give NaN.
    """
    _check_alternative(alternative)
    x = numbers(x, "x")
    y = numbers(y, "y")
    nx, mx, vx = row_moments(x)
    ny, my, vy = row_moments(y)
    diff = mx - my
    with np.errstate(invalid="ignore", divide="ignore"):
        if equal_var:
            df = (nx + ny - 2).astype(np.float64)
            sp2 = ((nx - 1) * vx + (ny - 1) * vy) / df
            se = np.sqrt(sp2 * (1.0 / nx + 1.0 / ny))
        else:
            ax, ay = vx / nx, vy / ny
            se = np.sqrt(ax + ay)
            df = (ax + ay) ** 2 / (ax * ax / (nx - 1) + ay * ay / (ny - 1))
        t = diff / se
        p = _t_pvalue(t, df, alternative)
    degenerate = zero_spread(se, diff)
    if degenerate.any():
        t_deg, p_deg, _ = degenerate_t(diff, alternative)
        t = np.where(degenerate, t_deg, t)
        p = np.where(degenerate, p_deg, p)
        if equal_var is False:
            df = np.where(degenerate & ~np.isfinite(df), (nx + ny - 2).astype(np.float64), df)
    small = (nx < 2) | (ny < 2)
    if np.any(small):
        t, p, df = (np.where(small, np.nan, a) for a in (t, p, df))
    return TwoSampleTRows(t, df, p, mx, my)


def two_sample_t(x: ArrayLike, y: ArrayLike, equal_var: bool = False, alternative: str = "two-sided",
                 confidence: float = 0.95) -> TestResult:
    """Two-sample t-test of x against y: Welch (default) or pooled (``equal_var=True``).

    Matches R ``t.test(x, y, var.equal=...)`` and scipy ``ttest_ind``. NaN values are
    dropped from each sample. The interval is for x̄ − ȳ (Welch or pooled standard error
    and df); the effect size is Cohen's d = (x̄ − ȳ)/s_p with the pooled
    s_p² = ((n_x − 1)s_x² + (n_y − 1)s_y²)/(n_x + n_y − 2), whichever test is used.
    """
    _check_alternative(alternative)
    _check_confidence(confidence)
    xs = numbers(x, "x").ravel()
    ys = numbers(y, "y").ravel()
    dropped = int(np.isnan(xs).sum() + np.isnan(ys).sum())
    if dropped:
        warn(f"{dropped} missing score(s) (NaN) dropped from the two samples")
    xs, ys = xs[~np.isnan(xs)], ys[~np.isnan(ys)]
    nx, ny = xs.size, ys.size
    details = {"equal_var": equal_var, "alternative": alternative, "confidence": confidence, "dropped": dropped,
               "n_x": nx, "n_y": ny}
    if nx < 2 or ny < 2:
        return TestResult("two_sample_t", np.nan, np.nan, n=nx + ny, details=details | {"df": np.nan})
    row = two_sample_t_rows(xs, ys, equal_var, alternative)  # the batched test, on one row
    t, df, p = float(row.statistic), float(row.df), float(row.p_value)
    mx, my = float(row.mean_x), float(row.mean_y)
    vx, vy = xs.var(ddof=1), ys.var(ddof=1)
    sp2 = ((nx - 1) * vx + (ny - 1) * vy) / (nx + ny - 2)
    diff = mx - my
    se = np.sqrt(sp2 * (1 / nx + 1 / ny)) if equal_var else np.sqrt(vx / nx + vy / ny)
    with np.errstate(invalid="ignore", divide="ignore"):
        cohen = diff / np.sqrt(sp2)
    lo: float | np.ndarray
    hi: float | np.ndarray
    if zero_spread(se, diff):
        warn("both samples are constant: the t statistic is undefined; p set by convention")
        lo, hi = (diff, diff)
    else:
        lo, hi = _t_ci(diff, se, df, alternative, confidence)
    return TestResult("two_sample_t", float(t), float(p), float(lo), float(hi), float(cohen), nx + ny,
                      details | {"df": float(df), "mean_x": float(mx), "mean_y": float(my),
                                 "mean_difference": float(diff)})


# --------------------------------------------------------------------------- interval

def t_interval(x: ArrayLike, confidence: float = 0.95) -> Interval:
    """Student t confidence interval of the mean: x̄ ± t_{(1+c)/2, n−1}·s/√n (METHODS §4.8).

    NaN values are dropped (with a warning); fewer than 2 values give (NaN, NaN).

    >>> low, high = t_interval([0.1, 0.2, 0.3, 0.4])
    >>> round(low, 4), round(high, 4)
    (0.0446, 0.4554)
    """
    _check_confidence(confidence)
    values = numbers(x, "x").ravel()
    missing = int(np.isnan(values).sum())
    if missing:
        warn(f"{missing} missing value(s) (NaN) dropped before the t-interval")
        values = values[~np.isnan(values)]
    n = values.size
    if n < 2:
        return Interval(np.nan, np.nan)
    mean = values.mean()
    half = _t_quantile((1 + confidence) / 2, n - 1) * values.std(ddof=1) / np.sqrt(n)
    return Interval(float(mean - half), float(mean + half))
