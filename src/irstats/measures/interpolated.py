"""Interpolated precision at recall levels (trec_eval 10's m_iprec_at_recall.c, m_11pt_avg.c).

The interpolated precision at recall level r is the highest precision C(i)/i at or after the
rank of the c-th relevant document, c = round(r·R) (half away from zero, C's ``lround``); for
c = 0, at or after the first relevant document. A level the list never reaches (c greater than
the relevant documents retrieved) gives 0, and so does a list with no relevant document.

- ``IPrec@r`` — iprec_at_recall_r (r in [0, 1]); ``IPrec(round=trec_eval_9)@r`` takes trec_eval 9's
  cut instead (pytrec_eval's, and ir_measures' default provider's): c = (long)(r·R + 0.9) in
  doubles, i.e. ⌈r·R⌉ unless r·R is within 0.1 above a whole number (23.1 → 23, 23.2 → 24).
  The two differ where the fractional part of r·R lies in [0.1, 0.5): trec_eval 9 counts one
  relevant document more
  (commit 2a9e214 of usnistgov/trec_eval, "Change how cutoffs are computed", trec_eval 10);
- ``IPrecAvg`` — 11pt_avg: the mean of IPrec at the 11 levels 0, 0.1, …, 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from irstats.measures.common import LEVEL_PARAM, level_of
from irstats.measures.params import Param
from irstats.measures.registry import OFFICIAL, Family, IrMeasuresName, TrecEvalName, register

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure

#: One ranked list's tie groups: (offset, size, relevant documents, relevant documents above).
TieGroup = tuple[int, int, int, int]

ELEVEN_POINTS = tuple(k / 10 for k in range(11))

#: How IPrec turns a recall level into a number of relevant documents: trec_eval 10's lround, or
#: trec_eval 9's (pytrec_eval's) truncation of r·R + 0.9 with r held as a C float.
ROUND_PARAM = Param("round", str, "lround", choices=("lround", "trec_eval_9"),
                    help="the recall cut: lround(r·R) (trec_eval 10) or trec_eval_9 ((long)(r·R + 0.9), pytrec_eval)")


def relevant_cut(r: float, big_r: npt.ArrayLike, m: Measure) -> np.ndarray:
    """The number of relevant documents recall level ``r`` asks for, per topic (``big_r``: R):
    ``round(r·R)`` half away from zero (C's lround), or trec_eval 9's cut for ``round=trec_eval_9``."""
    if m.get("round", "lround") == "trec_eval_9":  # in doubles, as pytrec_eval computes it
        cut: np.ndarray = np.floor(r * np.asarray(big_r, dtype=np.float64) + 0.9)
        return cut
    cut = np.floor(r * np.asarray(big_r, dtype=np.float64) + 0.5)  # np.round would round half to even
    return cut


def _max_precision_from(j: Judgments, m: Measure) -> np.ndarray:
    """M[s, t, i] = max over ranks i' ≥ i (within the list) of C(i')/i' — kept on the tensor."""
    level = level_of(j, m)

    def compute() -> np.ndarray:
        precision = j.cum_relevant(level) / j.ranks
        inside = j.ranks[None, None, :] <= j.n_ret[:, :, None]
        precision = np.where(inside, precision, -np.inf)
        best: np.ndarray = np.maximum.accumulate(precision[:, :, ::-1], axis=2)[:, :, ::-1]
        return best

    memoised: np.ndarray = j.memo(("max precision from", level), compute)
    return memoised


def _at_levels(j: Judgments, m: Measure, levels: Sequence[float]) -> np.ndarray:
    """IPrec at each recall level: (S, T, L)."""
    level = level_of(j, m)
    out = np.zeros(j.n_ret.shape + (len(levels),))
    if j.depth == 0:
        return _undefined_on_empty_lists(j, m, levels, out)
    best = _max_precision_from(j, m)
    cum = j.cum_relevant(level)
    retrieved = cum[:, :, -1].astype(np.int64)  # C(n): padding adds no relevant document
    big_r = j.num_relevant(level).astype(np.float64)
    for k, r in enumerate(levels):
        cut = relevant_cut(r, big_r, m).astype(np.int64)
        target = np.maximum(cut, 1)[None, :, None]
        position = np.argmax(cum >= target, axis=2)  # rank (0-based) of the target-th relevant document
        value = np.take_along_axis(best, position[:, :, None], axis=2)[:, :, 0]
        reachable = (cut[None, :] <= retrieved) & (retrieved > 0)
        out[:, :, k] = np.where(reachable, np.maximum(value, 0.0), 0.0)
    return _undefined_on_empty_lists(j, m, levels, out)


def _undefined_on_empty_lists(j: Judgments, m: Measure, levels: Sequence[float], out: np.ndarray) -> np.ndarray:
    """trec_eval_compat: a list with no document (:meth:`Judgments.empty_lists`: all unjudged
    under -J, or -M 0) starts trec_eval's interpolation from precision 0/0 and keeps it at every
    recall level that rounds to no relevant document (lround(r·R) = 0); trec_eval prints NaN
    there, and 11pt_avg averages it in. irstats' own value is 0."""
    if not j.trec_eval_compat:
        return out
    empty = j.empty_lists()
    if not empty.any():
        return out
    big_r = j.num_relevant(level_of(j, m)).astype(np.float64)
    for k, r in enumerate(levels):
        none_relevant = relevant_cut(r, big_r, m) == 0  # per topic
        out[:, :, k] = np.where(empty & none_relevant[None, :], np.nan, out[:, :, k])
    return out


def interpolated_precision(j: Judgments, m: Measure) -> np.ndarray:
    assert m.cutoff is not None  # the family's cut-off (the recall level) is required
    at_level: np.ndarray = _at_levels(j, m, (m.cutoff,))[:, :, 0]
    return at_level


# ----------------------------------------------------------------------------- tied scores
# IPrec at level r is V = max over the relevant documents j ≥ c' (c' = max(c, 1)) of j/pos_j:
# past the c'-th relevant document, precision peaks at relevant documents. Under tied scores
# the relevant documents of a tie group (k of its size n, J relevant above it, at offset o)
# take a uniformly random k-subset q_1 < … < q_k of its places, and groups are independent.
# So P(V ≤ x) is a product over groups of P(every (J + i)/(o + q_i) ≤ x), a count of subsets
# with lower bounds on their order statistics (q_i ≥ ⌈(J + i)/x⌉ − o), and E[V] sums x times
# the jumps of that product over the values V can take — exact, in integers where it matters.

#: Most elementary steps the exact expectation may take for one ranked list, and for a whole
#: evaluation (about 2·10^8 steps a second here): past them the measure is refused before any
#: is computed. (DL 2019's test1, the most tied official run, needs 3·10^9 in all; one list of
#: 1,000 equal scores with 300 relevant documents, 10^12.)
LIST_STEPS = 2 * 10**9
TOTAL_STEPS = 10**10


def _expected_at_levels(j: Judgments, m: Measure, levels: Sequence[float]) -> np.ndarray:
    """E[IPrec] at each recall level over every ordering of the tied documents: (S, T, L)."""
    level = level_of(j, m)
    out = np.zeros(j.n_ret.shape + (len(levels),))
    if j.depth == 0:
        return _undefined_on_empty_lists(j, m, levels, out)
    relevant = j.relevant(level)
    big_r = j.num_relevant(level)
    assert j.tie_start is not None and j.tie_size is not None  # expected values are asked for tied lists only
    lists: list[tuple[int, int, list[TieGroup], int]] = []
    for s, t in zip(*np.nonzero(j.n_ret)):
        n = int(j.n_ret[s, t])
        rel = relevant[s, t, :n].astype(np.int64)
        starts = np.flatnonzero(j.tie_start[s, t, :n] == np.arange(n))
        groups = [(int(o), int(j.tie_size[s, t, o]), int(rel[o:o + j.tie_size[s, t, o]].sum()), int(rel[:o].sum()))
                  for o in starts]
        lists.append((s, t, groups, int(rel.sum())))
    _refuse_beyond_budget(j, m, lists, [[max(int(relevant_cut(r, big_r[t], m)), 1) for r in levels]
                                        for _, t, _, _ in lists])
    for s, t, groups, retrieved in lists:
        known: dict[int, float] = {}  # levels rounding to the same relevant document share it
        for k, r in enumerate(levels):
            cut = int(relevant_cut(r, big_r[t], m))
            if retrieved and cut <= retrieved:
                first = max(cut, 1)
                if first not in known:
                    known[first] = _expected_best_precision(groups, first)
                out[s, t, k] = known[first]
    return _undefined_on_empty_lists(j, m, levels, out)


def _steps(groups: Sequence[TieGroup], firsts: Iterable[int]) -> int:
    """The steps :func:`_max_at_most` takes for one list's tie groups at each first counted
    relevant document: per group, (its candidate values) × (its relevant documents) × (its size)."""
    total = 0
    for first in firsts:
        for _, size, k, above in groups:
            ranks = k - max(0, first - above - 1)
            if ranks > 0 and size > 1:
                total += ranks * (size - k + 1) * k * size
    return total


def _refuse_beyond_budget(j: Judgments, m: Measure, lists: Sequence[tuple[int, int, list[TieGroup], int]],
                          firsts: Sequence[Sequence[int]]) -> None:
    """Refuse up front (a MeasureError naming the measure, the run and the topic) an
    expectation that would take more than a few seconds: what is left of it is a count over
    the arrangements of each tie group's relevant documents, quadratic in the group's size."""
    from irstats.errors import MeasureError

    costs = [(_steps(groups, set(f)), s, t, groups) for (s, t, groups, _), f in zip(lists, firsts)]
    if not costs:
        return
    worst = max(costs, key=lambda c: c[0])
    total = sum(c[0] for c in costs)
    if worst[0] > LIST_STEPS or total > TOTAL_STEPS:
        steps, s, t, groups = worst
        _, size, k, _ = max(groups, key=lambda g: _steps([g], [1]))
        scope = (f"run {j.systems[s]!r}, topic {j.topics[t]!r} alone would take ~{steps:.1e} steps" if steps > LIST_STEPS
                 else f"all lists together would take ~{total:.1e} steps (the largest: run {j.systems[s]!r}, "
                      f"topic {j.topics[t]!r})")
        raise MeasureError(f"{m}: ties='expected' is refused: {scope}, more than a few seconds, for a tie group "
                           f"of {size} documents with {k} relevant; use ties='docno' or 'file', or a smaller "
                           f"depth (-M)")


def _expected_best_precision(groups: Sequence[TieGroup], first: int) -> float:
    """E[max over relevant documents j ≥ first of j/pos_j]; groups as (offset, size, relevant,
    relevant above)."""
    steps: list[tuple[np.ndarray, np.ndarray]] = []  # per group: its possible values (ascending) and P(group's max ≤ each)
    for offset, size, k, above in groups:
        ranks = [i for i in range(1, k + 1) if above + i >= first]
        if not ranks:
            continue
        # the values (above + i)/(offset + q), q_i ∈ [i, size − k + i], as exact fractions
        pairs = sorted({(above + i, offset + q) for i in ranks for q in range(i, size - k + i + 1)},
                       key=lambda f: f[0] / f[1])
        values = np.array([a / b for a, b in pairs])
        keep = np.append(values[1:] != values[:-1], True)  # equal fractions: one value
        pairs = [f for f, kept in zip(pairs, keep) if kept]
        steps.append((values[keep], _max_at_most(pairs, offset, size, k, above, ranks)))
    if not steps:
        return 0.0
    support = np.unique(np.concatenate([values for values, _ in steps]))
    cdf = np.ones(len(support))
    for values, chance in steps:
        at = np.searchsorted(values, support, side="right") - 1
        cdf *= np.where(at >= 0, chance[np.maximum(at, 0)], 0.0)
    return float(np.sum(support * np.diff(np.concatenate(([0.0], cdf)))))


def _max_at_most(pairs: Sequence[tuple[int, int]], offset: int, size: int, k: int, above: int, ranks: list[int]) -> np.ndarray:
    """P(every (above + i)/(offset + q_i) ≤ a/b) for each threshold a/b in ``pairs``, the k
    relevant places q_1 < … < q_k a uniform k-subset of 1..size: a count of subsets with
    q_i ≥ ⌈(above + i)·b/a⌉ − offset, by a running sum over places, divided by C(size, k)
    (the bound-free count, carried as row 0 so both are scaled alike)."""
    out = np.empty(len(pairs))
    place = np.arange(1, size + 1)
    for start in range(0, len(pairs), 2048):
        chunk = pairs[start:start + 2048]
        a = np.array([1] + [p[0] for p in chunk], dtype=np.int64)[:, None]
        b = np.array([0] + [p[1] for p in chunk], dtype=np.int64)[:, None]
        ways: np.ndarray | None = None
        for i in range(1, k + 1):
            bound = np.full(a.shape, i, dtype=np.int64)
            if i in ranks:
                need = -((-(above + i) * b) // a) - offset  # ⌈(above + i)·b/a⌉ − offset
                bound = np.maximum(bound, need)
                bound[0] = i  # row 0: no bound
            allowed = place[None, :] >= bound
            if ways is None:
                ways = allowed.astype(np.float64)
            else:
                before = np.concatenate((np.zeros((len(a), 1)), np.cumsum(ways, axis=1)[:, :-1]), axis=1)
                ways = before * allowed
            assert ways is not None  # set at i = 1
            ways /= ways[0].sum()  # keeps the counts in range; the ratio to row 0 is unchanged
        assert ways is not None  # k >= 1: a group with a counted relevant document
        totals = ways.sum(axis=1)
        out[start:start + len(chunk)] = totals[1:] / totals[0]
    return out


def expected_interpolated_precision(j: Judgments, m: Measure) -> np.ndarray:
    assert m.cutoff is not None  # the family's cut-off (the recall level) is required
    at_level: np.ndarray = _expected_at_levels(j, m, (m.cutoff,))[:, :, 0]
    return at_level


def expected_eleven_point_average(j: Judgments, m: Measure) -> np.ndarray:
    levels = tuple(float(v) for v in m["levels"].split(";")) if m["levels"] else ELEVEN_POINTS
    mean: np.ndarray = _expected_at_levels(j, m, levels).mean(axis=2)  # the mean of expectations: linear
    return mean


LEVELS_PARAM = Param("levels", str, "", help="recall levels such as 0.25;0.5;0.75 (default the 11 points)",
                     pattern=r"(0|1|0?\.\d+|1\.0*|0\.\d*)(;(0|1|0?\.\d+|1\.0*|0\.\d*))*")


def eleven_point_average(j: Judgments, m: Measure) -> np.ndarray:
    levels = tuple(float(v) for v in m["levels"].split(";")) if m["levels"] else ELEVEN_POINTS
    mean: np.ndarray = _at_levels(j, m, levels).mean(axis=2)
    return mean


register(Family("IPrec", "Interpolated precision at recall level r: the best precision at or after the rank where "
                "round(r·R) relevant documents are retrieved (trec_eval iprec_at_recall; round=trec_eval_9: "
                "trec_eval 9's cut, as pytrec_eval).", (LEVEL_PARAM, ROUND_PARAM),
                kernel=interpolated_precision, cutoff="required", cutoff_kind="recall", ties="closed",
                expected_kernel=expected_interpolated_precision, ir_measures=IrMeasuresName("IPrec"),
                trec_eval=(TrecEvalName("iprec_at_recall", "IPrec@{:g}", 10, "floats", ELEVEN_POINTS,
                                        nicknames=OFFICIAL),)))
register(Family("IPrecAvg", "11-point interpolated average precision: IPrec at recall 0, 0.1, …, 1, averaged "
                "(trec_eval 11pt_avg; levels= for others).", (LEVELS_PARAM, LEVEL_PARAM), kernel=eleven_point_average,
                cutoff="none", ties="closed", expected_kernel=expected_eleven_point_average,
                trec_eval=(TrecEvalName("11pt_avg", "IPrecAvg(levels={})", 18, "levels_one", plain="IPrecAvg"),)))
