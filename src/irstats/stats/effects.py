"""Effect sizes and bootstrap intervals (METHODS.md §5.6; Sakai 2018, ch. 5).

Effect sizes of a difference between two systems:

- paired: d_z = d̄/s_d (the standardized mean of the per-topic differences);
- two-sample: Cohen's d = (x̄ − ȳ)/s_p with the pooled s_p² = ((n_x − 1)s_x² + (n_y − 1)s_y²)/(n_x + n_y − 2);
  Hedges' g = J·d with the exact small-sample correction J = Γ(ν/2)/(√(ν/2)·Γ((ν − 1)/2)),
  ν = n_x + n_y − 2; Glass's Δ = (x̄ − ȳ)/s_y (y the control: its sd alone);
- with an ANOVA: Sakai's ES_E = (x̄_i − x̄_j)/√V_E (:meth:`irstats.stats.anova.AnovaResult.tukey`).

Bootstrap intervals of a mean (a system's mean score, or the mean of paired differences):
B resamples of the topics with replacement, drawn as ``rng.integers(0, n, (B, n))`` — exactly
the draws of ``scipy.stats.bootstrap`` with the same Generator — and the percentile or BCa
(bias-corrected and accelerated; Efron & Tibshirani 1993, §14.3) interval of the B means.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from numpy.typing import ArrayLike

from irstats.checks import numbers, one_of, share, whole
from irstats.errors import ArgumentError, ArgumentTypeError, InputError
from irstats.random import Seed, check_seed, generator

if TYPE_CHECKING:  # pragma: no cover
    from irstats.distributed import Job

INTERVAL_METHODS = ("percentile", "bca")


def d_z(differences: ArrayLike) -> float:
    """Paired effect size d̄/s_d (ddof = 1); NaN with fewer than two values or s_d = 0."""
    d = numbers(differences, "differences")
    d = d[~np.isnan(d)]
    if d.size < 2:
        return float("nan")
    sd = d.std(ddof=1)
    return float(d.mean() / sd) if sd > 0 else float("nan")


def _pooled_sd(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.sqrt(((x.size - 1) * x.var(ddof=1) + (y.size - 1) * y.var(ddof=1)) / (x.size + y.size - 2)))


def _two_samples(x: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = numbers(x, "x").ravel(), numbers(y, "y").ravel()
    xs, ys = xs[~np.isnan(xs)], ys[~np.isnan(ys)]
    if xs.size < 2 or ys.size < 2:
        raise InputError("each sample needs at least two values")
    return xs, ys


#: How Cohen's d pools the two samples' variance: "df" divides the pooled sum of squares by
#: n_x + n_y − 2 (the usual form, Sakai's Eq. 5.6); "n" by n_x + n_y (Sakai's Eq. 5.8, the
#: form of his book's Cohen's d).
COHEN_POOLING = ("df", "n")


def cohens_d(x: ArrayLike, y: ArrayLike, pooling: str = "df") -> float:
    """(x̄ − ȳ)/s_p with the pooled standard deviation: s_p² = (S_x + S_y)/(n_x + n_y − 2)
    (``pooling="df"``) or (S_x + S_y)/(n_x + n_y) (``pooling="n"``, Sakai's Eq. 5.8), with
    S the sums of squared deviations."""
    one_of(pooling, "pooling", COHEN_POOLING)
    x, y = _two_samples(x, y)
    if pooling == "n":
        squares = ((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()
        sp = float(np.sqrt(squares / (x.size + y.size)))
    else:
        sp = _pooled_sd(x, y)
    return float((x.mean() - y.mean()) / sp) if sp > 0 else float("nan")


def hedges_correction(df: float) -> float:
    """J(ν) = Γ(ν/2)/(√(ν/2)·Γ((ν − 1)/2)), the exact bias correction of Cohen's d."""
    from math import exp, lgamma, sqrt

    return exp(lgamma(df / 2) - lgamma((df - 1) / 2)) / sqrt(df / 2)


def hedges_g(x: ArrayLike, y: ArrayLike) -> float:
    """Cohen's d times J(n_x + n_y − 2): unbiased for the population effect size."""
    x, y = _two_samples(x, y)
    return cohens_d(x, y) * hedges_correction(x.size + y.size - 2)


def glass_delta(x: ArrayLike, y: ArrayLike) -> float:
    """(x̄ − ȳ)/s_y: the difference in units of the control sample's (y's) standard deviation."""
    x, y = _two_samples(x, y)
    sd = y.std(ddof=1)
    return float((x.mean() - y.mean()) / sd) if sd > 0 else float("nan")


@dataclass(frozen=True)
class BootstrapIntervals:
    """Bootstrap intervals of the mean of each row: ``low``, ``high``, the point estimates
    ``mean`` and the bootstrap standard errors ``standard_error``."""

    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    standard_error: np.ndarray
    method: str
    confidence: float
    n_resamples: int


def bootstrap_mean_intervals(values: ArrayLike, n_resamples: int = 10000, confidence: float = 0.95,
                             method: str = "percentile", seed: Seed = 0, *, client: Any = None) -> BootstrapIntervals:
    """Percentile or BCa bootstrap intervals of the mean of each row of ``values`` (rows ×
    topics, no NaN), every row resampled with the same B index draws (as scipy does for
    2-D data), so that rows of paired differences stay paired.

    ``client`` (a ``distributed.Client``): the resampled means are computed on its Dask
    cluster in batches (:mod:`irstats.distributed`); the index draws are made here, so the
    intervals are the same to the last bit.

    >>> b = bootstrap_mean_intervals([[0.1, 0.4, 0.35, 0.8, 0.5]], n_resamples=2000, seed=1)
    >>> bool(b.low[0] < 0.43 < b.high[0])
    True
    """
    from irstats.distributed import planned

    intervals: BootstrapIntervals = planned(
        client, "bootstrap intervals",
        lambda job: _bootstrap_mean_intervals(values, n_resamples, confidence, method, seed, job), unit="resample")
    return intervals


#: Resamples per task on a cluster, in steps of :func:`_means_step`: a task gathers about 64 MB.
_STEPS_PER_TASK = 8


def _means_step(rows: int, n: int) -> int:
    """Resamples whose means are taken at once: about 8 MB gathered (rows × step × n values)."""
    return max(1, (8 << 20) // max(1, rows * n * 8))


def resampled_means(x: np.ndarray, index: np.ndarray, step: int) -> np.ndarray:
    """The mean of each row of ``x`` over each resample (row of ``index``, topic positions):
    rows × resamples, ``step`` resamples at a time. A run of resamples starting at a multiple
    of ``step`` is computed in the very blocks the whole run computes it in."""
    means = np.empty((x.shape[0], len(index)))
    for start in range(0, len(index), step):
        means[:, start:start + step] = x[:, index[start:start + step]].mean(axis=-1)
    return means


def _bootstrap_mean_intervals(values: ArrayLike, n_resamples: int, confidence: float, method: str, seed: Seed,
                              job: Job | None) -> Callable[[], BootstrapIntervals]:
    """:func:`bootstrap_mean_intervals` up to its resampled means; returns the function that
    completes the result. With ``job`` (:class:`irstats.distributed.Job`), the means are
    submitted to it in runs of whole steps, each with its slice of the index draws."""
    if not (isinstance(method, str) and method in INTERVAL_METHODS):
        raise (ArgumentError if isinstance(method, str) else ArgumentTypeError)(
            f"unknown interval method {method!r}; expected one of {', '.join(INTERVAL_METHODS)}", argument="method")
    share(confidence, "confidence")
    n_resamples = whole(n_resamples, "n_resamples", minimum=2)
    check_seed(seed)
    x = np.atleast_2d(numbers(values, "values"))
    if x.ndim != 2:
        raise ArgumentError(f"values must be one row or rows × topics, got an array of shape {x.shape}",
                            argument="values")
    if np.isnan(x).any():
        raise InputError("bootstrap intervals need complete rows (no NaN)")
    rows, n = x.shape
    if n < 2:
        raise InputError("a bootstrap interval needs at least two topics")
    index = generator(seed).integers(0, n, (n_resamples, n))  # one call: scipy's draws
    step = _means_step(rows, n)
    if job is None:
        means = resampled_means(x, index, step)
        return lambda: _mean_intervals(x, means, confidence, method)
    data, tasks = job.share(x), []
    index = index.astype(np.min_scalar_type(n - 1))  # the same positions, in fewer bytes to send
    for start in range(0, n_resamples, step * _STEPS_PER_TASK):
        stop = min(start + step * _STEPS_PER_TASK, n_resamples)
        tasks.append(job.submit(f"bootstrap intervals, resamples {start + 1}–{stop} of {n_resamples}",
                                resampled_means, data, index[start:stop], step, weight=stop - start))
    return lambda: _mean_intervals(x, np.concatenate([job.result(k) for k in tasks], axis=1), confidence, method)


def _mean_intervals(x: np.ndarray, means: np.ndarray, confidence: float, method: str) -> BootstrapIntervals:
    """The intervals of each row of ``x`` from its resampled means (rows × B)."""
    rows, n_resamples = means.shape
    alpha = (1 - confidence) / 2
    point = x.mean(axis=1)
    if method == "percentile":
        levels = np.broadcast_to(np.array([alpha, 1 - alpha]), (rows, 2))
    else:
        levels = _bca_levels(x, point, means, alpha)
    # A constant row has the interval [mean, mean]; a row whose BCa levels are undefined
    # (every resampled mean on one side of the estimate) gets NaN, as scipy gives.
    constant = np.ptp(x, axis=1) == 0
    low, high = np.full(rows, np.nan), np.full(rows, np.nan)
    for r in range(rows):
        if constant[r]:
            low[r] = high[r] = point[r]
        elif np.isfinite(levels[r]).all():
            low[r], high[r] = np.quantile(means[r], levels[r])
    return BootstrapIntervals(point, low, high, means.std(axis=1, ddof=1), method, confidence, n_resamples)


def _bca_levels(x: np.ndarray, point: np.ndarray, means: np.ndarray, alpha: float) -> np.ndarray:
    """The BCa-adjusted quantile levels of each row (Efron & Tibshirani 1993, Eq. 14.9–14.15)."""
    from scipy.special import ndtr, ndtri

    n_resamples = means.shape[1]
    below = (means < point[:, None]).sum(axis=1) + (means <= point[:, None]).sum(axis=1)
    with np.errstate(divide="ignore"):
        z0 = ndtri(below / (2 * n_resamples))
    n = x.shape[1]
    jackknife = (x.sum(axis=1, keepdims=True) - x) / (n - 1)  # the mean without topic i
    u = (n - 1) * (jackknife.mean(axis=1, keepdims=True) - jackknife)
    with np.errstate(invalid="ignore", divide="ignore"):
        z0 = np.asarray(z0)
        a_hat = (u ** 3).sum(axis=1) / n ** 3 / (6 * ((u ** 2).sum(axis=1) / n ** 2) ** 1.5)
    out = np.empty((x.shape[0], 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        for k, z in enumerate((ndtri(alpha), -ndtri(alpha))):
            shifted = z0 + z
            out[:, k] = ndtr(z0 + shifted / (1 - a_hat * shifted))
    return out


__all__ = ["BootstrapIntervals", "INTERVAL_METHODS", "bootstrap_mean_intervals", "cohens_d", "d_z", "glass_delta",
           "hedges_correction", "hedges_g"]
