"""Monte Carlo tests: paired bootstrap, randomisation (sign flip), and the range
distribution of Carterette's randomised Tukey HSD (METHODS §5.6).

Resamples are drawn in batches as numpy arrays, with bounded memory: at most about
:data:`ELEMENT_BUDGET` float64 values per working array. The random draws are made from a
``numpy.random.Generator`` in a fixed order (one row of the batch per resample), and each
resample's statistic is computed from its own row only, so the results are identical
whatever ``batch_size`` is, and identical on every rerun with the same seed.

The cores work on several pairs at once (rows of a pairs × topics matrix) with the *same*
resamples for every row; a row's result is therefore exactly what the single-pair function
gives with the same seed. :func:`irstats.stats.pairwise` uses this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping

import numpy as np
from numpy.typing import ArrayLike

from irstats.checks import resample_count, whole
from irstats.errors import ArgumentError, warn
from irstats.random import Seed, at_state, batch_states, check_seed, generator, seed_label
from irstats.stats.degenerate import ZERO_TOL, studentize, zero_spread
from irstats.stats.closed_form import TestResult, _check_confidence, paired_differences

#: Upper bound on the number of float64 values in one working array (32 MiB).
ELEMENT_BUDGET = 1 << 22

#: Most topics for which ``randomization_test(..., exact=True)`` enumerates all 2^n sign vectors.
MAX_EXACT_TOPICS = 24

def _check_resamples(n_resamples: int, values_per_resample: int = 1, *, feasible: bool = True) -> int:
    """``n_resamples`` as an int (:func:`irstats.checks.resample_count`)."""
    return resample_count(n_resamples, "n_resamples", values_per_resample, feasible=feasible)


def check_batch_size(batch_size: object) -> int | None:
    """``batch_size``: None (the default, sized to the memory budget) or a whole number >= 1."""
    return None if batch_size is None else whole(batch_size, "batch_size", minimum=1)


def exact_is_cheaper(n_topics: int, n_resamples: int) -> bool:
    """Whether enumerating all 2^n sign vectors is less work than the resamples asked for.

    Then the randomisation test is exact, and says so (a warning and ``details["exact"]``).
    """
    exact = n_topics <= MAX_EXACT_TOPICS and isinstance(n_resamples, (int, np.integer)) and (
        not isinstance(n_resamples, bool)) and bool((1 << n_topics) <= n_resamples)
    if exact:
        warn(f"randomization test: the {1 << n_topics} sign vectors of {n_topics} topics are fewer than the "
             f"{int(n_resamples):,} resamples asked for; the p-value is exact (every sign vector enumerated)")
    return exact


def batch_sizes(total: int, batch_size: int | None, per_item: int) -> Iterator[int]:
    """Split ``total`` resamples into batches; the default keeps a batch under the budget."""
    if batch_size is None:
        batch_size = max(1, ELEMENT_BUDGET // max(1, per_item))
    else:
        batch_size = whole(batch_size, "batch_size", minimum=1)  # as check_batch_size
    done = 0
    while done < total:
        size = min(batch_size, total - done)
        yield size
        done += size


def batch_slices(total: int, batch_size: int | None, per_item: int) -> Iterator[slice]:
    """The batches of :func:`batch_sizes` as slices of ``range(total)``."""
    start = 0
    for size in batch_sizes(total, batch_size, per_item):
        yield slice(start, start + size)
        start += size


def _row_chunks(rows: int, per_row: int) -> Iterator[slice]:
    step = max(1, ELEMENT_BUDGET // max(1, per_row))
    for start in range(0, rows, step):
        yield slice(start, min(rows, start + step))


def t_statistics(X: np.ndarray) -> np.ndarray:
    """t = x̄/(s/√n) along the last axis, with the degenerate cases of METHODS §5.6.

    When s = 0 (s ≤ 1e-12·max(1, |x̄|)): t = 0 if |x̄| ≤ 1e-12, else ±∞ with the sign of x̄.
    """
    n = X.shape[-1]
    mean = X.sum(axis=-1) / n
    dev = X - mean[..., None]
    sd = np.sqrt((dev * dev).sum(axis=-1) / (n - 1))
    return studentize(mean, sd, n)


# How the cores sum: a resample's n terms are added one draw position at a time,
# ``acc += term_k`` for k = 0 … n−1, each step vectorised over resamples × pairs. The
# order of every sum is thus fixed by construction (no dependence on numpy's choice of
# pairwise or blocked summation, which varies with array shape and layout), so a batch of
# any size gives the same bits; and no resamples × pairs × n temporary is needed.

# --------------------------------------------------------------------------- batches
# Each Monte Carlo core below draws batch after batch from one Generator. What a batch holds
# and draws is declared here once, so that the batches can also be computed apart (on a Dask
# cluster, irstats.distributed) with exactly the numbers of the single run: the draws of batch
# k start where batch k − 1's ended (irstats.random.batch_states), whoever computes it.

def _bootstrap_draw(rng: np.random.Generator, size: int, n: int) -> np.ndarray:
    return rng.integers(0, n, size=(size, n))  # row b: the n indices of resample b


def _sign_draw(rng: np.random.Generator, size: int, n: int) -> np.ndarray:
    return 1.0 - 2.0 * rng.integers(0, 2, size=(size, n))  # row b: the signs of resample b


def _tukey_draw(rng: np.random.Generator, size: int, m: int, n: int) -> np.ndarray:
    return rng.random((size, m, n))  # resample b: keys ordering each topic's m scores


@dataclass(frozen=True)
class ResamplingCore:
    """A Monte Carlo core, declared once (and named by the :class:`~irstats.stats.pairwise.PairedTest`
    that resamples with it): ``per_item`` the values per resample in a working array, given
    the data's shape (what sizes its batches); ``draw`` one batch's draws; ``run(data,
    n_resamples, rng, batch_size)`` the result of all resamples, in batches of a given size —
    a batch is the core run on the batch's resamples as one batch. The data is pairs × topics
    for the bootstrap and randomisation, systems × topics for Tukey's ranges. Its functions
    are module-level, so a core travels to a Dask worker by reference."""

    per_item: Callable[[int, int], int]
    draw: Callable[[np.random.Generator, int, tuple[int, int]], np.ndarray]
    run: Callable[[np.ndarray, int, np.random.Generator, int | None], Any]


def _bootstrap_per_item(rows: int, n: int) -> int:
    return 3 * rows + n


def _randomization_per_item(rows: int, n: int) -> int:
    return 2 * rows + n


def _tukey_per_item(m: int, n: int) -> int:
    return 3 * m * n


def _bootstrap_batch_draw(rng: np.random.Generator, size: int, shape: tuple[int, int]) -> np.ndarray:
    return _bootstrap_draw(rng, size, shape[1])


def _sign_batch_draw(rng: np.random.Generator, size: int, shape: tuple[int, int]) -> np.ndarray:
    return _sign_draw(rng, size, shape[1])


def _tukey_batch_draw(rng: np.random.Generator, size: int, shape: tuple[int, int]) -> np.ndarray:
    return _tukey_draw(rng, size, *shape)


def _bootstrap_counts(data: np.ndarray, n_resamples: int, rng: np.random.Generator,
                      batch_size: int | None) -> tuple[np.ndarray, np.ndarray]:
    t_obs, counts, _ = bootstrap_core(data, n_resamples, rng, batch_size)
    return t_obs, counts


def resample_batches(core: ResamplingCore, shape: tuple[int, int], n_resamples: int, rng: np.random.Generator,
                     batch_size: int | None = None) -> list[tuple[int, Mapping[str, Any]]]:
    """The batches ``core`` draws for data of ``shape`` with ``n_resamples`` and
    ``batch_size``: ``(size, state of rng at the batch's start)`` each, ``rng`` left where the
    core leaves it. :func:`resample_batch` computes one of them."""
    return batch_states(rng, batch_sizes(n_resamples, batch_size, core.per_item(*shape)),
                        lambda g, size: core.draw(g, size, shape))


def resample_batch(core: ResamplingCore, data: np.ndarray, size: int, state: Mapping[str, Any]) -> Any:
    """One batch of :func:`resample_batches`: ``core`` run on ``size`` resamples, as one batch,
    from a Generator at ``state`` — the same draws and sums as in the whole run. Returns
    ``(t_obs, counts)`` (bootstrap), ``(T, counts)`` (randomisation) or the ranges (Tukey);
    summed over the batches, what ``core.run`` gives for all resamples at once."""
    return core.run(data, size, at_state(state), size)


# --------------------------------------------------------------------------- bootstrap

def bootstrap_core(D: np.ndarray, n_resamples: int, rng: np.random.Generator, batch_size: int | None = None,
                   keep: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Shift-method bootstrap on each row of D (pairs × n, no NaN), same resamples for all rows.

    Each batch draws ``rng.integers(0, n, size=(batch, n))``: row b holds the n indices of
    resample b. Returns ``(t_obs, counts, t_star)``: the observed paired t per row, the
    number of resamples with |t*| ≥ |t_obs| per row, and (if ``keep``) the pairs × B
    array of t*.
    """
    D = np.ascontiguousarray(D, dtype=np.float64)
    P, n = D.shape
    t_obs = t_statistics(D)
    WT = np.ascontiguousarray((D - (D.sum(axis=-1) / n)[:, None]).T)  # n × pairs
    counts = np.zeros(P, dtype=np.int64)
    t_star = np.empty((P, n_resamples)) if keep else None
    done = 0
    for size in batch_sizes(n_resamples, batch_size, _bootstrap_per_item(P, n)):
        idx = _bootstrap_draw(rng, size, n)
        for cols in _row_chunks(P, 3 * size):
            Wc = np.ascontiguousarray(WT[:, cols])
            total = np.zeros((size, Wc.shape[1]))
            for k in range(n):
                total += Wc[idx[:, k]]
            mean = total / n
            squares = np.zeros_like(total)
            for k in range(n):
                dev = Wc[idx[:, k]] - mean
                squares += dev * dev
            t = studentize(mean, np.sqrt(squares / (n - 1)), n)  # size × pairs
            counts[cols] += (np.abs(t) >= np.abs(t_obs[cols])).sum(axis=0)
            if t_star is not None:  # kept
                t_star[cols, done:done + size] = t.T
        done += size
    return t_obs, counts, t_star


def bootstrap_test(a: ArrayLike, b: ArrayLike, n_resamples: int = 10000, seed: Seed = 0,
                   confidence: float = 0.95, batch_size: int | None = None) -> TestResult:
    """Paired bootstrap test, Efron & Tibshirani's shift method as used by Sakai.

    t_obs is the paired t of d = a − b. The differences are shifted to mean zero,
    w_i = d_i − d̄; each of the B resamples draws n of the w with replacement and computes
    t*_b = w̄*/(s_{w*}/√n) (0 if s_{w*} = 0 and w̄* = 0, ±∞ if only s_{w*} = 0).
    p = #{|t*_b| ≥ |t_obs|}/B — Sakai's count/B, without a +1 correction.

    The interval is the bootstrap-t interval of the mean difference at ``confidence``,
    [d̄ − q_{1−α/2}·se, d̄ − q_{α/2}·se] with q the quantiles of t* (the t* of the shifted
    resamples are exactly the studentised bootstrap statistics). Effect size: d_z = d̄/s_d.

    ``seed`` is an integer (a fresh ``Generator(PCG64(seed))``) or a Generator to draw
    from. ``batch_size`` (resamples per batch) changes memory use, never the result.
    """
    check_seed(seed)
    check_batch_size(batch_size)
    _check_confidence(confidence)
    d, dropped = paired_differences(a, b)
    B = _check_resamples(n_resamples, d.size + dropped)
    n = d.size
    details = {"n_resamples": B, "seed": seed_label(seed),
               "confidence": confidence, "alternative": "two-sided", "dropped": dropped}
    if n < 2:
        return TestResult("bootstrap", np.nan, np.nan, n=n, details=details)
    rng = generator(seed)
    t_obs, counts, t_star = bootstrap_core(d[None, :], B, rng, batch_size, keep=True)
    assert t_star is not None  # kept: keep=True
    mean, sd = d.mean(), d.std(ddof=1)
    se = sd / np.sqrt(n)
    alpha = 1 - confidence
    if zero_spread(se, mean):
        lo = hi = float(mean)
        dz = 0.0 if abs(mean) <= ZERO_TOL else float(np.copysign(np.inf, mean))
    else:
        q_lo, q_hi = np.quantile(t_star[0], [alpha / 2, 1 - alpha / 2])
        lo, hi = float(mean - q_hi * se), float(mean - q_lo * se)
        dz = float(mean / sd)
    return TestResult("bootstrap", float(t_obs[0]), float(counts[0] / B), lo, hi, dz, n,
                      details | {"count": int(counts[0]), "mean_difference": float(mean)})


# --------------------------------------------------------------------------- randomisation

def _flip_counts(D: np.ndarray, signs: np.ndarray, threshold: np.ndarray, counts: np.ndarray) -> None:
    """Add #{|mean(σ·d)| ≥ threshold} over the sign vectors (rows of ``signs``) to counts."""
    P, n = D.shape
    DT = np.ascontiguousarray(D.T)
    size = signs.shape[0]
    for cols in _row_chunks(P, 2 * size):
        Dc = np.ascontiguousarray(DT[:, cols])
        total = np.zeros((size, Dc.shape[1]))
        for k in range(n):
            total += signs[:, k, None] * Dc[k]
        counts[cols] += (np.abs(total / n) >= threshold[cols]).sum(axis=0)


def randomization_core(D: np.ndarray, n_resamples: int, rng: np.random.Generator,
                       batch_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Sign-flip randomisation on each row of D (pairs × n, no NaN), same flips for all rows.

    Returns ``(T, counts)``: the observed mean difference per row and the number of the
    B random sign vectors with |T*| ≥ |T| − τ, τ = 1e-12·max(1, |T|).
    """
    D = np.ascontiguousarray(D)
    P, n = D.shape
    T = D.sum(axis=-1) / n
    threshold = np.abs(T) - ZERO_TOL * np.maximum(1.0, np.abs(T))
    counts = np.zeros(P, dtype=np.int64)
    for size in batch_sizes(n_resamples, batch_size, _randomization_per_item(P, n)):
        signs = _sign_draw(rng, size, n)
        _flip_counts(D, signs, threshold, counts)
    return T, counts


def randomization_exact_core(D: np.ndarray, batch_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """All 2^n sign vectors: ``(T, counts)`` with counts = #{|T*| ≥ |T| − τ} out of 2^n."""
    D = np.ascontiguousarray(D)
    P, n = D.shape
    if n > MAX_EXACT_TOPICS:
        raise ArgumentError(f"exact randomisation (exact=True) enumerates 2^n sign vectors; n = {n} topics is too "
                            f"many (at most {MAX_EXACT_TOPICS}); use the Monte Carlo test", argument="exact")
    T = D.sum(axis=-1) / n
    threshold = np.abs(T) - ZERO_TOL * np.maximum(1.0, np.abs(T))
    counts = np.zeros(P, dtype=np.int64)
    bits = np.arange(n, dtype=np.int64)
    start = 0
    for size in batch_sizes(1 << n, batch_size, 2 * P + n):
        codes = np.arange(start, start + size, dtype=np.int64)
        signs = 1.0 - 2.0 * ((codes[:, None] >> bits) & 1)
        _flip_counts(D, signs, threshold, counts)
        start += size
    return T, counts


def randomization_test(a: ArrayLike, b: ArrayLike, n_resamples: int = 10000, seed: Seed = 0,
                       exact: bool = False, batch_size: int | None = None) -> TestResult:
    """Paired randomisation (sign-flip permutation) test, as in Smucker, Allan & Carterette.

    T = d̄ with d = a − b. Each of the B resamples flips the sign of every d_i with
    probability ½: T*_b = mean(σ_i·d_i). p = (1 + #{|T*_b| ≥ |T| − τ})/(1 + B), where
    τ = 1e-12·max(1, |T|) absorbs float noise and the +1 counts the observed arrangement.
    ``exact=True`` enumerates all 2^n sign vectors instead: p = #/2^n (n ≤ 24); so does a
    request for at least 2^n resamples, which enumeration answers exactly with less work.

    The statistic is T; the effect size d_z = d̄/s_d. ``seed`` is an integer or a
    Generator; ``batch_size`` changes memory use, never the result.
    """
    check_seed(seed)
    check_batch_size(batch_size)
    d, dropped = paired_differences(a, b)
    n = d.size
    _check_resamples(n_resamples, feasible=False)  # well formed even when the test enumerates
    exact = exact or (n > 0 and exact_is_cheaper(n, n_resamples))
    details = {"exact": exact, "alternative": "two-sided", "dropped": dropped}
    if not exact:
        B = _check_resamples(n_resamples, n)
        details |= {"n_resamples": B, "seed": seed_label(seed)}
    if n == 0:
        return TestResult("randomization", np.nan, np.nan, n=0, details=details)
    if exact:
        T, counts = randomization_exact_core(d[None, :], batch_size)
        p = counts[0] / 2.0 ** n
        details |= {"count": int(counts[0]), "n_resamples": 1 << n}
    else:
        T, counts = randomization_core(d[None, :], B, generator(seed), batch_size)
        p = (1 + counts[0]) / (1 + B)
        details["count"] = int(counts[0])
    sd = d.std(ddof=1) if n > 1 else np.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        dz = float(T[0] / sd) if n > 1 and sd > ZERO_TOL else (0.0 if abs(T[0]) <= ZERO_TOL else np.nan)
    return TestResult("randomization", float(T[0]), float(p), effect_size=dz, n=n, details=details)


# --------------------------------------------------------------------------- Tukey HSD

def tukey_ranges(X: np.ndarray, n_resamples: int, rng: np.random.Generator,
                 batch_size: int | None = None) -> np.ndarray:
    """The B ranges max − min of the system means after permuting each topic's scores.

    X is systems × topics (no NaN). For each resample, ``keys = rng.random((m, n))`` and
    each topic's column is permuted by ``argsort(keys[:, topic], kind="stable")``; the
    batch draws ``rng.random((batch, m, n))``, the same numbers in the same order.
    """
    X = np.ascontiguousarray(X)
    m, n = X.shape
    ranges = np.empty(n_resamples)
    done = 0
    for size in batch_sizes(n_resamples, batch_size, _tukey_per_item(m, n)):
        keys = _tukey_draw(rng, size, m, n)
        perm = np.argsort(keys, axis=1, kind="stable")  # size × m × n: row indices per topic
        total = np.zeros((size, m))
        for t in range(n):  # fixed summation order, see the note above the bootstrap
            total += X[perm[:, :, t], t]
        means = total / n
        ranges[done:done + size] = means.max(axis=-1) - means.min(axis=-1)
        done += size
    return ranges


def warn_dropped_topics(count: int, total: int, what: str) -> None:
    """One warning about topics left out because a score is missing."""
    if count:
        warn(f"{count} of {total} topics lack a score for some system and were left out of {what}")


# --------------------------------------------------------------------------- the cores
# Each is named by the paired test that resamples with it (stats/pairwise.TESTS).

BOOTSTRAP = ResamplingCore(_bootstrap_per_item, _bootstrap_batch_draw, _bootstrap_counts)
RANDOMIZATION = ResamplingCore(_randomization_per_item, _sign_batch_draw, randomization_core)
TUKEY_RANGES = ResamplingCore(_tukey_per_item, _tukey_batch_draw, tukey_ranges)
