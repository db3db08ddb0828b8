"""Volatility statistics of a depth sweep (METHODS.md §5.5, list items 1–7).

How much do scores and system orderings move as the evaluation depth k grows past the
pool depth d? For every measure and form of a :class:`~irstats.depth.sweep.DepthSweep`:

1. τ_ref(k) = τ_b(S[k], S[k_max]) — agreement with the deepest ordering;
2. τ_b between consecutive depths of the grid;
3. swaps: system pairs strictly ordered at two consecutive depths but in reversed order
   (number, and fraction of all s(s−1)/2 pairs);
4. crossings per pair: sign changes of `S[k][a] − S[k][b]` along the grid, zeros skipped;
5. per system: total variation Σ|ΔS| and the number of direction changes;
6. the share of unjudged documents in each system's top k (from the sweep);
7. the discrimination ratio at each k (share of pairs with p < α, paired t by default)
   and the overturn rate: of the pairs significant at depth k, the share that at k_max are
   significant in the opposite direction (*strong*) or no longer significant (*weak*) —
   the next step named by *Observed Volatility* (following Ravana & Moffat, AIRS 2010).

[CHOICE] Differences of means with |Δ| ≤ 1e-12 count as ties (METHODS §5.6's zero) in the
swaps, crossings and direction changes, so that float noise in equal means is not read as
an ordering; τ_b compares the means exactly, as scipy does.

The functions below take plain arrays (``means``: systems × depths, ``per_topic``:
systems × topics × depths) so that each statistic can be checked on its own;
:func:`volatility` runs them all on a sweep.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.depth.sweep import DepthSweep
from irstats.checks import kind_of, numbers, real, share, whole
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, IrstatsWarning
from irstats.meta.correlation import kendall_tau_b
from irstats.random import Seed
from irstats.progress import Progress, track
from irstats.stats.pairwise import TESTS, _pairwise, paired_test
from irstats.stats.closed_form import ZERO_TOL

#: Elements of a pairs × topics × depths block of differences (bounds memory, ~32 MB).
_BLOCK = 4_000_000


# ----------------------------------------------------------------------------- orderings

def _series(means, argument: str = "means", ndim: int = 2) -> np.ndarray:
    """A systems × depths array of numbers (``ndim`` axes)."""
    array = numbers(means, argument)
    if array.ndim != ndim:
        shape = "systems × depths" if ndim == 2 else "systems × topics × depths"
        raise ArgumentError(f"{argument} must be a {shape} array, got one of shape {array.shape}", argument=argument)
    return array


def _depth_index(ref, n_depths: int) -> int:
    """``ref``, a depth index (negative from the end) within the D depths."""
    return whole(ref, "ref", minimum=-n_depths, maximum=n_depths - 1) if n_depths else whole(ref, "ref")


def tau_reference(means: np.ndarray, ref: int = -1) -> np.ndarray:
    """τ_b between the ordering at each depth and the ordering at depth index ``ref``: (D,)."""
    means = _series(means)
    ref = _depth_index(ref, means.shape[1])
    return kendall_tau_b(means.T, means[:, ref][None, :])


def tau_consecutive(means: np.ndarray) -> np.ndarray:
    """τ_b between the orderings at consecutive depths: (D − 1,); entry i compares i and i+1."""
    means = _series(means)
    return kendall_tau_b(means[:, :-1].T, means[:, 1:].T)


def pair_signs(means: np.ndarray, tol: float = ZERO_TOL) -> np.ndarray:
    """sign(S[a] − S[b]) for every pair a < b (system order) and depth: (pairs, D), ties = 0."""
    means = _series(means)
    tol = real(tol, "tol", low=0.0)
    i, j = np.triu_indices(means.shape[0], 1)
    diff = means[i] - means[j]
    return np.where(np.abs(diff) <= tol, 0, np.sign(diff)).astype(np.int8)


def swaps(means: np.ndarray, tol: float = ZERO_TOL) -> tuple[np.ndarray, np.ndarray]:
    """Swaps between consecutive depths: ``(swapped, ordered)``, each (D − 1,).

    ``ordered[i]``: pairs strictly ordered at both depth i and i+1; ``swapped[i]``: those of
    them whose order is reversed.
    """
    signs = pair_signs(means, tol)
    both = (signs[:, :-1] != 0) & (signs[:, 1:] != 0)
    swapped = both & (signs[:, :-1] != signs[:, 1:])
    return swapped.sum(axis=0), both.sum(axis=0)


def _changes(signs: np.ndarray) -> np.ndarray:
    """Mask (rows, D − 1) of sign changes along the last axis, zeros skipped.

    Entry i is True when the sign at i+1 is nonzero and differs from the last nonzero sign
    at or before i.
    """
    n = signs.shape[-1]
    position = np.where(signs != 0, np.arange(n), -1)
    last = np.maximum.accumulate(position, axis=-1)
    carried = np.take_along_axis(signs, np.maximum(last, 0), axis=-1)
    carried = np.where(last >= 0, carried, 0)
    return (signs[..., 1:] != 0) & (carried[..., :-1] != 0) & (signs[..., 1:] != carried[..., :-1])


def crossings(means: np.ndarray, tol: float = ZERO_TOL) -> np.ndarray:
    """Per pair a < b (system order): sign changes of S[a] − S[b] along the depths, zeros skipped."""
    return _changes(pair_signs(means, tol)).sum(axis=-1)


def crossing_steps(means: np.ndarray, tol: float = ZERO_TOL) -> np.ndarray:
    """Mask (pairs, D − 1): the pair's lines cross between depth i (or the last depth where
    they were apart) and depth i+1."""
    return _changes(pair_signs(means, tol))


def total_variation(means: np.ndarray) -> np.ndarray:
    """Per system: Σ_k |S[k+1] − S[k]| along the depths: (S,)."""
    return np.abs(np.diff(_series(means), axis=1)).sum(axis=1)


def direction_changes(means: np.ndarray, tol: float = ZERO_TOL) -> np.ndarray:
    """Per system: how often the trajectory turns (rise → fall or fall → rise); flat steps skipped."""
    steps = np.diff(_series(means), axis=1)
    tol = real(tol, "tol", low=0.0)
    signs = np.where(np.abs(steps) <= tol, 0, np.sign(steps)).astype(np.int8)
    if signs.shape[1] == 0:
        return np.zeros(signs.shape[0], dtype=np.int64)
    return _changes(signs).sum(axis=-1)


def decreases(means: np.ndarray, tol: float = ZERO_TOL) -> np.ndarray:
    """Per system: number of steps along the depths where the score falls by more than tol."""
    return (np.diff(_series(means), axis=1) < -real(tol, "tol", low=0.0)).sum(axis=1)


# ----------------------------------------------------------------------------- significance

def pairwise_p_values(per_topic: np.ndarray, test: str = "paired_t", *, n_resamples: int = 10000, seed: int = 0,
                      systems: tuple[str, ...] | None = None, client=None) -> tuple[np.ndarray, np.ndarray]:
    """p-values and mean differences of every pair a < b at every depth: two (D, pairs) arrays.

    ``per_topic`` is systems × topics × depths (NaN = not evaluated; a pair uses the topics
    both systems have). The paired t-test is vectorised over pairs and depths; any other
    test of :func:`irstats.stats.pairwise` is run depth by depth (same seed at every depth).
    Pairs whose differences are all equal follow METHODS §5.6 (p = 1 if they are all zero,
    else 0), silently. ``client`` (a ``distributed.Client``): the resample batches of every
    depth's test run on its Dask cluster, with the same p-values to the last bit.
    """
    from irstats.distributed import planned

    return planned(client, "pairwise p-values",
                   lambda job: _pairwise_p_values(per_topic, test, n_resamples, seed, systems, job), unit="resample")


def _pairwise_p_values(per_topic, test: str, n_resamples: int, seed: int, systems,
                       job) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    """:func:`pairwise_p_values` up to the resamples: each depth's test planned with
    :func:`irstats.stats.pairwise._pairwise` (its resample batches submitted to ``job``, when
    given); returns the function that gives ``(p, delta)`` once they have run."""
    spec = paired_test(test)
    X = _series(per_topic, "per_topic", ndim=3)
    n_sys, n_top, n_dep = X.shape
    i, j = np.triu_indices(n_sys, 1)
    n_pairs = len(i)
    p = np.full((n_dep, n_pairs), np.nan)
    delta = np.full((n_dep, n_pairs), np.nan)
    if n_pairs == 0 or n_dep == 0:
        return lambda: (p, delta)
    # Deep in a sweep the per-topic scores often stop changing from one depth to the next:
    # test each distinct matrix once and copy its results to the depths that repeat it.
    same = np.all((X[:, :, 1:] == X[:, :, :-1]) | (np.isnan(X[:, :, 1:]) & np.isnan(X[:, :, :-1])), axis=(0, 1))
    distinct = np.concatenate(([0], np.flatnonzero(~same) + 1))
    if len(distinct) < n_dep:
        tested = _pairwise_p_values(X[:, :, distinct], test, n_resamples, seed, systems, job)
        source = np.cumsum(np.concatenate(([True], ~same))) - 1

        def repeated() -> tuple[np.ndarray, np.ndarray]:
            p, delta = tested()
            return p[source], delta[source]

        return repeated
    if spec.rows is not None:  # a closed form of the difference rows: every depth in one batch
        step = max(1, _BLOCK // max(n_pairs * n_top, 1))
        for start in range(0, n_dep, step):
            block = X[:, :, start:start + step]
            D = np.moveaxis(block[i] - block[j], 2, 0)  # (depths, pairs, topics)
            rows = D.reshape(-1, n_top)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                res = spec.rows(rows)
                mean = res.mean if hasattr(res, "mean") else np.nanmean(rows, axis=1)
            p[start:start + step] = res.p_value.reshape(D.shape[:2])
            delta[start:start + step] = mean.reshape(D.shape[:2])
        return lambda: (p, delta)
    from irstats.scores import ScoreMatrix

    names = systems if systems is not None else tuple(f"s{k:06d}" for k in range(n_sys))
    topics = tuple(f"t{k:06d}" for k in range(n_top))
    tests = []
    for d in range(n_dep):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IrstatsWarning)
            tests.append(_pairwise(ScoreMatrix(X[:, :, d], names, topics, "value"), test, n_resamples, seed, False,
                                   None, job))

    def collect() -> tuple[np.ndarray, np.ndarray]:
        for d, finish in enumerate(tests):
            res = finish()
            p[d] = res.p_value[i, j]
            delta[d] = res.delta[i, j]
        return p, delta

    return collect


def discrimination_ratio(p: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Share of pairs with p < alpha, per depth (rows of ``p``); NaN p counts as not significant."""
    p = numbers(p, "p")
    share(alpha, "alpha")
    if p.ndim == 0:
        raise ArgumentError("p must be an array of p-values (depths × pairs), not one number", argument="p")
    if p.shape[-1] == 0:
        return np.full(p.shape[:-1], np.nan)
    return (np.nan_to_num(p, nan=1.0) < alpha).mean(axis=-1)


def overturn_rates(p: np.ndarray, delta: np.ndarray, alpha: float = 0.05,
                   ref: int = -1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Overturned findings per depth: ``(strong, weak, significant)``, each (D,).

    Of the pairs significant at depth k (``significant[k]`` of them), ``strong[k]`` is the
    share significant at depth index ``ref`` with the opposite sign of the mean difference,
    ``weak[k]`` the share not significant at ``ref``. NaN where no pair is significant.
    """
    p, delta = _series(p, "p"), _series(delta, "delta")
    if p.shape != delta.shape:
        raise ArgumentError(f"p and delta must have the same shape (depths × pairs), got {p.shape} and {delta.shape}",
                            argument="delta")
    share(alpha, "alpha")
    ref = _depth_index(ref, p.shape[0])
    sig = np.nan_to_num(p, nan=1.0) < alpha
    ref_sig = sig[ref][None, :]
    flipped = np.sign(delta) != np.sign(delta[ref])[None, :]
    count = sig.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        strong = np.where(count > 0, (sig & ref_sig & flipped).sum(axis=-1) / count, np.nan)
        weak = np.where(count > 0, (sig & ~ref_sig).sum(axis=-1) / count, np.nan)
    return strong, weak, count


# ----------------------------------------------------------------------------- the report

#: Columns of :attr:`Volatility.statistics`, with their short headings for the printed table.
SUMMARY_COLUMNS = {
    "measure": "measure", "form": "form",
    "tau_ref_at_d": "τref@d", "tau_ref_min": "min τref",
    "swaps": "swaps", "swaps_beyond_d": "swaps>d",
    "crossings_per_pair": "cross/pair", "pairs_crossing": "pairs×",
    "total_variation": "TV", "direction_changes": "turns", "systems_decreasing": "sys↓",
    "discrimination_at_d": "disc@d", "discrimination_at_kmax": "disc@kmax",
    "overturn_strong_at_d": "over.s@d", "overturn_weak_at_d": "over.w@d",
    "unjudged_at_kmax": "unj@kmax",
}

SUMMARY_LEGEND = (
    "τref@d: τ_b between the orderings at k = d and at k_max; min τref: its minimum over the grid. "
    "swaps: system pairs reversed between consecutive depths, summed over the grid (swaps>d: steps ending past d). "
    "cross/pair: mean sign changes per system pair along the grid; pairs×: share of pairs that cross at least once. "
    "TV: mean total variation Σ|ΔS| per system; turns: mean direction changes per system; "
    "sys↓: share of systems whose score falls somewhere. "
    "disc@d, disc@kmax: share of pairs with p < α; over.s@d / over.w@d: of the pairs significant at k = d, "
    "the share significant the other way at k_max (strong) / no longer significant (weak). "
    "unj@kmax: mean share of unjudged documents in a system's top k_max."
)


@dataclass(frozen=True)
class Volatility(Result):
    """The volatility statistics of a sweep, as tidy frames.

    ``by_depth``: one row per measure, form and depth (τ_ref, τ with the previous depth,
    swaps, discrimination, overturn rates, unjudged share). ``systems``: one row per
    measure, form and system (score and rank at k_max, total variation, direction changes,
    decreases). ``pairs``: one row per measure, form and system pair (crossings).
    ``statistics``: one row per measure and form (:data:`SUMMARY_COLUMNS`), also
    :meth:`to_frame` and :meth:`summary`. ``unjudged``: one
    row per system and depth, the share of unjudged documents in the system's top k (mean
    over topics; unjudged = non-relevant lists — condensed lists have none).
    """

    by_depth: pl.DataFrame
    systems: pl.DataFrame
    pairs: pl.DataFrame
    statistics: pl.DataFrame
    pool_depth: int | None
    max_depth: int
    test: str
    alpha: float
    details: dict = field(default_factory=dict)
    unjudged: pl.DataFrame | None = None

    def to_frame(self) -> pl.DataFrame:
        """The statistics: one row per measure and form (:data:`SUMMARY_COLUMNS`)."""
        return self.statistics

    DIGITS = 3

    @property
    def title(self) -> str:
        return "Volatility over evaluation depth, per measure and form"

    def legend(self) -> list[str]:
        return [self.caption(), SUMMARY_LEGEND]

    def display_table(self, digits: int = 3):
        """The statistics: measure and form, then each statistic (– where undefined)."""
        from irstats.render import Cell, Table, number_cell

        columns = self.statistics.columns
        rows = []
        for row in self.statistics.iter_rows():
            cells = []
            for name, value in zip(columns, row):
                if isinstance(value, str):
                    cells.append(Cell(value))
                elif value is None or (isinstance(value, float) and not np.isfinite(value)):
                    cells.append(Cell("–", "--"))
                else:
                    cells.append(number_cell(value, digits, whole=name in ("swaps", "swaps_beyond_d")))
            rows.append(cells)
        return Table.of([SUMMARY_COLUMNS[c] for c in columns], rows, [c >= 2 for c in range(len(columns))],
                        title=self.title, legend=self.legend(), label="tab:volatility")

    def caption(self) -> str:
        """One sentence saying what the table was computed with."""
        d = "no pool depth" if self.pool_depth is None else f"pool depth d = {self.pool_depth}"
        return (f"{self.details.get('systems', '?')} systems, {self.details.get('topics', '?')} topics, "
                f"{self.details.get('depths', '?')} depths up to k_max = {self.max_depth}; {d}; "
                f"significance: {self.test}, α = {self.alpha:g}.")

    def __repr__(self) -> str:
        return f"Volatility({self.statistics.height} measure/form series, k_max = {self.max_depth}, d = {self.pool_depth})"


def volatility(result: DepthSweep, *, test: str = "paired_t", alpha: float = 0.05, n_resamples: int = 10000,
               seed: Seed = 0, significance: bool = True, tol: float = ZERO_TOL,
               progress: Progress = None, client=None) -> Volatility:
    """Every volatility statistic of a depth sweep (METHODS.md §5.5, items 1–7).

    The reference ordering is the one at k_max, the largest depth of the sweep.
    ``test``/``alpha``/``n_resamples``/``seed`` configure the significance tests behind
    the discrimination ratio and the overturn rates (``significance=False`` skips them;
    they also need the sweep's per-topic scores).

    >>> stats = volatility(depth_sweep("qrels.txt", "runs/", pool_depth=10))  # doctest: +SKIP
    >>> print(stats.to_text())                                                  # doctest: +SKIP

    ``seed`` is a whole number, None (= 0) or a numpy Generator; the same resamples are used
    at every depth (a Generator gives one seed for all of them).

    ``client`` (a ``distributed.Client``): the resample batches of the bootstrap,
    randomisation and Tukey tests at every depth of every series run on its Dask cluster as
    one job (:mod:`irstats.distributed`), with the same statistics to the last bit.
    """
    from irstats.random import fixed_seed

    if not isinstance(result, DepthSweep):
        raise ArgumentTypeError(f"result must be a DepthSweep (from depth_sweep or sweep); got {kind_of(result)}",
                                argument="result")
    paired_test(test)
    share(alpha, "alpha")
    real(tol, "tol", low=0.0)
    seed = fixed_seed(seed)
    depths = result.depths
    n_sys = len(result.systems)
    if n_sys < 2:
        raise InputError("volatility statistics need at least two systems")
    d = result.pool_depth
    d_idx = result.depth_index(d) if d is not None and d in set(depths.tolist()) else None
    beyond = depths[1:] > d if d is not None else np.zeros(len(depths) - 1, dtype=bool)
    pi, pj = np.triu_indices(n_sys, 1)
    n_pairs = len(pi)
    significance = significance and result.per_topic is not None
    unjudged_mean = np.nanmean(result.unjudged, axis=0)

    keys = list(result.means)

    def plan(job):
        """Every series' significance tests (the costly part: one progress step per series
        here, the job's own line on a cluster); the statistics once they are in."""
        tests = {}
        if significance:
            for key in track(keys, progress if job is None else False, "volatility", unit="series"):
                tests[key] = _pairwise_p_values(result.per_topic[key], test, n_resamples, seed, result.systems, job)
        return lambda: {key: finish() for key, finish in tests.items()}

    from irstats.distributed import planned

    p_values = planned(client, "volatility", plan, progress=progress, unit="resample")
    by_depth, per_system, per_pair, summary = [], [], [], []
    for measure, form in keys:
        S = result.means[(measure, form)]
        t_ref = tau_reference(S)
        t_prev = np.concatenate(([np.nan], tau_consecutive(S)))
        swapped, ordered = swaps(S, tol)
        swapped = np.concatenate(([0], swapped))
        cross = crossing_steps(S, tol)
        if significance:
            p, delta = p_values[(measure, form)]
            disc = discrimination_ratio(p, alpha)
            strong, weak, n_sig = overturn_rates(p, delta, alpha)
        else:
            disc = strong = weak = np.full(len(depths), np.nan)
            n_sig = np.zeros(len(depths), dtype=np.int64)
        by_depth.append(pl.DataFrame({
            "measure": measure, "form": form, "depth": depths,
            "tau_ref": t_ref, "tau_prev": t_prev, "swaps": swapped.astype(np.int64),
            "swap_fraction": swapped / n_pairs, "crossings": np.concatenate(([0], cross.sum(axis=0))).astype(np.int64),
            "discrimination": disc, "significant_pairs": np.asarray(n_sig, dtype=np.int64),
            "overturn_strong": strong, "overturn_weak": weak,
            "unjudged_share": unjudged_mean if form == "judged-as-nonrel" else np.zeros(len(depths)),
        }))
        ref_scores = S[:, -1]
        ranks = np.empty(n_sys, dtype=np.int64)
        ranks[np.argsort(-np.nan_to_num(ref_scores, nan=-np.inf), kind="stable")] = np.arange(1, n_sys + 1)
        tv, turns, falls = total_variation(S), direction_changes(S, tol), decreases(S, tol)
        per_system.append(pl.DataFrame({
            "measure": measure, "form": form, "system": list(result.systems), "score_at_kmax": ref_scores,
            "rank_at_kmax": ranks, "total_variation": tv, "direction_changes": turns.astype(np.int64),
            "decreases": falls.astype(np.int64),
        }))
        per_pair_cross = cross.sum(axis=1)
        per_pair.append(pl.DataFrame({
            "measure": measure, "form": form, "system_a": [result.systems[k] for k in pi],
            "system_b": [result.systems[k] for k in pj], "crossings": per_pair_cross.astype(np.int64),
        }))
        summary.append({
            "measure": measure, "form": form,
            "tau_ref_at_d": float(t_ref[d_idx]) if d_idx is not None else np.nan,
            "tau_ref_min": float(np.nanmin(t_ref)) if np.isfinite(t_ref).any() else np.nan,
            "swaps": int(swapped.sum()), "swaps_beyond_d": int(swapped[1:][beyond].sum()),
            "crossings_per_pair": float(per_pair_cross.mean()) if n_pairs else np.nan,
            "pairs_crossing": float((per_pair_cross > 0).mean()) if n_pairs else np.nan,
            "total_variation": float(tv.mean()), "direction_changes": float(turns.mean()),
            "systems_decreasing": float((falls > 0).mean()),
            "discrimination_at_d": float(disc[d_idx]) if d_idx is not None else np.nan,
            "discrimination_at_kmax": float(disc[-1]),
            "overturn_strong_at_d": float(strong[d_idx]) if d_idx is not None else np.nan,
            "overturn_weak_at_d": float(weak[d_idx]) if d_idx is not None else np.nan,
            "unjudged_at_kmax": float(unjudged_mean[-1]) if form == "judged-as-nonrel" else 0.0,
        })
    summary_frame = pl.DataFrame(summary, schema={c: (pl.String if c in ("measure", "form") else
                                                      pl.Int64 if c in ("swaps", "swaps_beyond_d") else pl.Float64)
                                                  for c in SUMMARY_COLUMNS})
    details = {"systems": n_sys, "topics": len(result.topics), "depths": len(depths), "pairs": n_pairs,
               "n_resamples": n_resamples if TESTS[test].resamples else None, "seed": seed,
               "significance": significance}
    unjudged = pl.DataFrame({
        "system": np.repeat(np.array(result.systems, dtype=object), len(depths)).astype(str),
        "depth": np.tile(depths, n_sys), "unjudged_share": result.unjudged.ravel(),
    })
    return Volatility(pl.concat(by_depth), pl.concat(per_system), pl.concat(per_pair), summary_frame, d,
                      result.max_depth, test, alpha, details, unjudged)
