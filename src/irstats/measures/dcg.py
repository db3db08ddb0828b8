"""Discounted cumulative gain: DCG, DCG@k, nDCG, nDCG@k (METHODS.md §2.5).

Graded: the gain comes from the raw grade and ignores the relevance level, as trec_eval's
``ndcg`` does. The ideal list holds every qrels document with positive gain, retrieved or
not, and is not cut at the list length.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Hashable

import numpy as np

from irstats.measures.common import level_of, per_topic, rank_sum
from irstats.errors import MeasureError
from irstats.measures.params import Param
from irstats.measures.registry import TREC_CUTS, Family, IrMeasuresName, RNormalisation, TrecEvalName, register

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure

#: 2^g − 1 is infinite in float64 from this grade on.
EXP_GAIN_LIMIT = 1024


def gain_function(gain: str) -> Callable[[np.ndarray], np.ndarray]:
    """Map grades to gains; unjudged and padding give 0. A name of :data:`NAMED_GAINS` (``lin``:
    the grade, 0 for negative grades; ``exp``: 2^grade − 1), or a map ``"1:3;2:9"``: those
    grades get those gains and every other grade ≥ 0 keeps gain = grade (trec_eval's gain
    maps: gains may be 0 or negative)."""
    named = NAMED_GAINS.get(gain)
    if named is not None:
        return named
    table: dict[float, float] = {}
    for level, value in (item.split(":") for item in gain.split(";")):
        if float(level) in table:
            raise MeasureError(f"gain map {gain!r} gives grade {level} twice")
        table[float(level)] = float(value)

    def mapped(grades: np.ndarray) -> np.ndarray:
        grades = np.asarray(grades)
        out = np.where(grades >= 0, grades, 0).astype(np.float64)
        for level, value in table.items():
            out = np.where(grades == level, value, out)
        return out

    return mapped


def _exp_gain(grades: np.ndarray) -> np.ndarray:
    top = int(np.max(grades, initial=0))
    if top >= EXP_GAIN_LIMIT:
        raise MeasureError(f"gain=exp: grade {top} gives the gain 2^{top} − 1, beyond the largest float; "
                           f"use gain=lin or grades below {EXP_GAIN_LIMIT}")
    gains: np.ndarray = np.exp2(np.maximum(grades, 0)) - 1.0
    return gains


def _linear_gain(grades: np.ndarray) -> np.ndarray:
    gains: np.ndarray = np.maximum(grades, 0).astype(np.float64)
    return gains


#: The gains ``gain=`` names (any other value is a map of grades to gains: :func:`gain_function`).
NAMED_GAINS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"lin": _linear_gain, "exp": _exp_gain}

GAIN_PARAM = Param("gain", str, "lin", choices=tuple(NAMED_GAINS),
                   help="a map of grades to gains such as 1:3;2:9 (other grades keep gain = grade, as trec_eval's "
                        "ndcg.1=3,2=9)",
                   # grades only: a gain for a negative level would reach unjudged documents and padding
                   pattern=r"\d+(\.\d*)?:-?\d+(\.\d*)?(;\d+(\.\d*)?:-?\d+(\.\d*)?)*")


def gain_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """gain(g_i)/log2(i + 1) for the first ``width`` ranks."""
    grades = j.values(j.head(j.grades, width))
    terms: np.ndarray = gain_function(m["gain"])(grades) * (1.0 / np.log2(j.ranks[:width] + 1.0))
    return terms


def ideal_dcg(j: Judgments, kind: str, depths: np.ndarray | None) -> np.ndarray:
    """IDCG at each depth k, (T, D): the ideal list's DCG to rank k (the whole list when None).

    The ideal list holds every positively graded qrels document, so it is not cut at the
    run's length; a topic without one has IDCG 0 (and nDCG 0).
    """
    def running_sum() -> np.ndarray:
        ideal = _ideal(j, kind)
        return np.cumsum(ideal / np.log2(np.arange(2, ideal.shape[1] + 2, dtype=np.float64)), axis=1)

    cumulative: np.ndarray = j.memo(("ideal DCG", kind), running_sum)
    length = cumulative.shape[1]
    wanted = np.array([length]) if depths is None else np.clip(depths, 1, max(length, 1))
    if length == 0:
        return np.zeros((cumulative.shape[0], len(wanted)))
    at_depths: np.ndarray = cumulative[:, wanted - 1]
    return at_depths


def _ideal(j: Judgments, kind: str) -> np.ndarray:
    """The ideal gains per topic (T, L); a gain map in trec_eval_compat mode walks the grade
    levels in trec_eval's order (judgments.trec_eval_ideal_gains)."""
    return j.qrels.ideal_gains(kind, gain_function(kind), trec_eval_order=j.trec_eval_compat)


def _by_ideal_dcg(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    return per_topic(ideal_dcg(j, m["gain"], depths))


def _same_terms(j: Judgments, m: Measure) -> Hashable:
    return ("discounted gain", m["gain"])


register(Family("DCG", "Discounted cumulative gain, gain/log2(rank+1).", (GAIN_PARAM,), terms=gain_terms,
                shares_terms=_same_terms, bounded=False, ties="pointwise", r_normalisation=RNormalisation("nDCG")))
register(Family("nDCG", "DCG divided by the DCG of the ideal ranking of all judged documents.", (GAIN_PARAM,),
                terms=gain_terms, shares_terms=_same_terms, normaliser=_by_ideal_dcg, ties="pointwise",
                trec_eval=(TrecEvalName("ndcg", "nDCG(gain={})", 21, "gain_map", plain="nDCG"),
                           TrecEvalName("ndcg_cut", "nDCG@{}", 24, "longs", TREC_CUTS)),
                ir_measures=IrMeasuresName("nDCG", only={"dcg": "log2"})),
         aliases=("NDCG",))


# ----------------------------------------------------------------------------- trec_eval's
# experimental nDCG variants (m_ndcg_rel.c, m_Rndcg.c), with trec_eval's default gains
# (gain = relevance grade). D(i) is the run's DCG to rank i, I(i) the ideal DCG to rank i
# (capped at L, the number of positively graded qrels documents), n the list's length.


def _run_and_ideal(j: Judgments, m: Measure,
                   gains: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """D at every rank (S, T, K), I at every rank 1..L (T, L) and L per topic. ``gains``:
    other gains than the list's own (the expected gains under ties), (S, T, K)."""
    from irstats.measures.common import accumulate

    width = j.depth
    discount = 1.0 / np.log2(j.ranks[:width] + 1.0)
    kind = m["gain"]
    if gains is not None:
        running = np.cumsum(gains * discount, axis=2)
    else:
        running = accumulate(j, ("discounted gain", kind),
                             lambda w: gain_function(kind)(j.values(j.head(j.grades, w))) * discount[:w],
                             np.arange(1, width + 1) if width else None)
    ideal = _ideal(j, kind)
    ideal_running = np.cumsum(ideal / np.log2(np.arange(2, ideal.shape[1] + 2, dtype=np.float64)), axis=1)
    length = (ideal > 0).sum(axis=1)
    return running, ideal_running, length


def ndcg_rel(j: Judgments, m: Measure) -> np.ndarray:
    """nDCG averaged over the relevant documents: at each positive-gain document retrieved at
    rank i, D(i)/I(min(i, L)); each relevant document not retrieved contributes D(n)/I(L);
    the sum is divided by L (trec_eval ndcg_rel)."""
    out = np.zeros(j.n_ret.shape)
    if j.depth == 0:
        return out
    running, ideal_running, length = _run_and_ideal(j, m)
    ranks = np.arange(1, j.depth + 1)
    # (S, T, K): retrieved documents with positive gain
    positive = gain_function(m["gain"])(j.values(j.head(j.grades, j.depth))) > 0
    cap = np.minimum(ranks[None, :], np.maximum(length, 1)[:, None])  # (T, K)
    ideal_at = np.take_along_axis(ideal_running, cap - 1, axis=1)  # (T, K)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = np.where(positive, running / ideal_at[None, :, :], 0.0)
    found = positive.sum(axis=2)
    n = j.n_ret
    final_d = np.take_along_axis(running, np.clip(n, 1, j.depth)[:, :, None] - 1, axis=2)[:, :, 0]
    final_d = np.where(n > 0, final_d, 0.0)
    ideal_all = ideal_running[np.arange(len(length)), np.maximum(length, 1) - 1]  # I(L)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = rank_sum(ratios) + (length[None, :] - found) * final_d / ideal_all[None, :]
        value = total / length[None, :]
    return np.where((length[None, :] > 0) & (total > 0), value, 0.0)


def r_ndcg(j: Judgments, m: Measure, gains: np.ndarray | None = None) -> np.ndarray:
    """nDCG averaged at the R levels: D(min(b, n))/I(b) at every boundary b where the ideal
    gain drops (the cumulative counts of the positive grades, highest first), and D(n)/I(L)
    once more when the list runs on past L + 1 (trec_eval Rndcg); 0 on a topic with no
    relevant document at the relevance level. ``gains``: see :func:`_run_and_ideal`.

    trec_eval_compat: NaN on a topic with a relevant document at the relevance level but no
    positive gain in the ideal ranking (-l 0, say, or a gain map): trec_eval divides 0 by 0
    there (its -nan)."""
    out = np.zeros(j.n_ret.shape)
    if j.trec_eval_compat:
        no_ideal_gain = ~(_ideal(j, m["gain"]) > 0).any(axis=1)
        undefined = no_ideal_gain & (j.num_relevant(level_of(j, m)) > 0)
        out[:, undefined] = np.nan
    if j.depth == 0:
        return out
    running, ideal_running, length = _run_and_ideal(j, m, gains)
    ideal = _ideal(j, m["gain"])
    n = j.n_ret
    # trec_eval gives 0 to a topic with no relevant document at the relevance level (-l), even
    # when lower grades carry gain
    num_rel = j.num_relevant(level_of(j, m))
    for t in range(ideal.shape[0]):
        big_l = int(length[t])
        if num_rel[t] == 0 or big_l == 0:  # (L = 0: 0 divided by 0 in trec_eval, above)
            continue
        gains = ideal[t, :big_l]
        boundaries = np.flatnonzero(np.append(gains[1:] != gains[:-1], True)) + 1  # ranks where the gain drops
        ideal_at = ideal_running[t, boundaries - 1]
        cut = np.minimum(boundaries[None, :], n[:, t][:, None])  # (S, B)
        d = np.where(cut >= 1, np.take_along_axis(running[:, t, :], np.clip(cut, 1, j.depth) - 1, axis=1), 0.0)
        points = d / ideal_at[None, :]
        count = np.full(n.shape[0], len(boundaries), dtype=np.float64)
        total = points.sum(axis=1)
        longer = n[:, t] >= big_l + 2
        final_d = np.take_along_axis(running[:, t, :], np.clip(n[:, t], 1, j.depth)[:, None] - 1, axis=1)[:, 0]
        total = total + np.where(longer, final_d / ideal_running[t, big_l - 1], 0.0)
        count = count + longer
        out[:, t] = total / count
    return out


def _expected_gains(j: Judgments) -> np.ndarray:
    """Each position's expected gain over the orderings of its tie group: the group's mean."""
    from irstats.measures.ties import group_sums

    total, _ = group_sums(j, np.asarray(j.positive_grades(), dtype=np.float64), j.depth)
    assert j.tie_size is not None  # tie groups: only tied lists get here
    mean: np.ndarray = total / j.tie_size
    return mean


def expected_r_ndcg(j: Judgments, m: Measure) -> np.ndarray:
    """RnDCG is linear in the gains (n, L and the boundaries do not depend on the order), so its
    expectation is RnDCG of the expected gains."""
    return r_ndcg(j, m, _expected_gains(j))


def expected_ndcg_rel(j: Judgments, m: Measure) -> np.ndarray:
    """E[nDCG_rel]: its sum Σ_i b_i·D(i)/I(i) is a sum of products b_i·g_j (j ≤ i), whose
    expectations are pairwise: for i at place p of a tie group of m documents with r of positive
    gain and gain sum Σg, and A the expected D above the group,
    E[b_i·D(i)] = (r/m)·A + (r − 1)·Σg/(m(m − 1))·Σ_{places before p} d + (Σg/m)·d_i
    (another document of the group before i is positive-gain-and-i with chance r(r − 1)/(m(m − 1))
    … written with b·g = g). The found count and D(n) are linear or fixed."""
    from irstats.measures.ties import group_counts, group_sums

    out = np.zeros(j.n_ret.shape)
    if j.depth == 0:
        return out
    assert j.tie_start is not None and j.tie_size is not None  # tie groups: only tied lists get here
    gains = np.asarray(j.positive_grades(), dtype=np.float64)
    positive = gains > 0
    expected = _expected_gains(j)
    running, ideal_running, length = _run_and_ideal(j, m, expected)
    width = j.depth
    discount = 1.0 / np.log2(j.ranks[:width] + 1.0)
    r, _ = group_counts(j, positive, width)
    gain_sum, _ = group_sums(j, gains, width)
    size = j.tie_size[:, :, :width]
    start = j.tie_start[:, :, :width]
    before = np.concatenate((np.zeros((running.shape[0], running.shape[1], 1)), running), axis=2)
    above = np.take_along_axis(before, start, axis=2)  # expected D over the ranks above the group
    discount_before = np.concatenate(([0.0], np.cumsum(discount)))  # Σ_{j<i} d_j, for i = 0..K
    in_group = discount_before[np.arange(width)][None, None, :] - discount_before[start]
    with np.errstate(invalid="ignore", divide="ignore"):
        pairs = np.where(size > 1, (r - 1) * gain_sum / (size * (size - 1.0)), 0.0)
        numerator = r / size * above + pairs * in_group + gain_sum / size * discount[None, None, :]
    ranks = np.arange(1, width + 1)
    cap = np.minimum(ranks[None, :], np.maximum(length, 1)[:, None])
    ideal_at = np.take_along_axis(ideal_running, cap - 1, axis=1)
    inside = ranks[None, None, :] <= j.n_ret[:, :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(inside & (r > 0), numerator / ideal_at[None, :, :], 0.0)
    found = positive.sum(axis=2)
    n = j.n_ret
    final_d = np.take_along_axis(running, np.clip(n, 1, width)[:, :, None] - 1, axis=2)[:, :, 0]
    final_d = np.where(n > 0, final_d, 0.0)
    ideal_all = ideal_running[np.arange(len(length)), np.maximum(length, 1) - 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        total = rank_sum(terms) + (length[None, :] - found) * final_d / ideal_all[None, :]
        value = total / length[None, :]
    return np.where((length[None, :] > 0) & (total > 0), value, 0.0)


def _closed_for_grade_gains(j: Judgments, m: Measure) -> str:
    # the closed forms are written for gain = grade; a gain map averages every arrangement
    return "closed" if m["gain"] == "lin" else "enumerate"


register(Family("nDCG_rel", "nDCG averaged over the relevant documents (trec_eval ndcg_rel, experimental).",
                (GAIN_PARAM,), kernel=ndcg_rel, cutoff="none", ties=_closed_for_grade_gains,
                trec_eval=(TrecEvalName("ndcg_rel", "nDCG_rel(gain={})", 22, "gain_map", plain="nDCG_rel"),),
                expected_kernel=expected_ndcg_rel))
register(Family("RnDCG", "nDCG averaged at the R levels of the graded qrels (trec_eval Rndcg, experimental).",
                (GAIN_PARAM,), kernel=r_ndcg, cutoff="none", ties=_closed_for_grade_gains,
                trec_eval=(TrecEvalName("Rndcg", "RnDCG(gain={})", 23, "gain_map", plain="RnDCG"),),
                expected_kernel=expected_r_ndcg))


def g_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """trec_eval's G: gain_i / log2(2 + Σ_{k≤i} max(g*_k, 1) − Σ_{k≤i} gain_k) at each rank with
    a gain, where g* is the ideal ranking's gain at rank k (0 past it): a document's credit
    shrinks with how far the run's gain so far lags the ideal's (m_G.c)."""
    gains = gain_function(m["gain"])(j.values(j.head(j.grades, width)))
    ideal = _ideal(j, m["gain"])
    padded = np.zeros((ideal.shape[0], width))
    span = min(width, ideal.shape[1])
    padded[:, :span] = ideal[:, :span]
    cost = np.cumsum(np.maximum(padded, 1.0), axis=1)  # (T, width)
    so_far = np.cumsum(gains, axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(gains != 0, gains / np.log2(2.0 + cost[None, :, :] - so_far), 0.0)


def _by_total_ideal_gain(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    return per_topic(_ideal(j, m["gain"]).sum(axis=1))


register(Family("G", "Normalized gain G: each document's gain over log2(2 + the ideal's lead in cumulative gain), "
                "summed and divided by the total ideal gain (trec_eval G, experimental).", (GAIN_PARAM,),
                terms=g_terms, normaliser=_by_total_ideal_gain,
                trec_eval=(TrecEvalName("G", "G(gain={})", 20, "gain_map", plain="G"),)))
