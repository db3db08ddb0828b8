"""The average-precision family: AP, AP@k, AP_min@k and SP (METHODS.md §2.3).

All accumulate the same terms, b_i·C(i)/i (their sum to depth k is SP@k), and differ only in
the normaliser: R for AP, min(k, R) for AP_min, nothing for SP. SP and AP are each other's
raw and R-normalised forms (§4.7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable

import numpy as np

from irstats.measures.common import LEVEL_PARAM, depth_axis, level_of, per_topic
from irstats.measures.registry import (OFFICIAL, TREC_CUTS, Family, IrMeasuresName, RNormalisation, Role, TrecEvalName,
                                      register)
from irstats.measures.ties import _log_comb, expected_precision_terms, group_counts

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure


def precision_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """b_i·C(i)/i for the first ``width`` ranks: precision at each relevant rank, else 0."""
    level = level_of(j, m)
    rel = j.head(j.relevant(level), width)
    cum = j.head(j.cum_relevant(level), width)
    return np.where(rel, cum / j.ranks[:width], 0.0)


def _same_terms(j: Judgments, m: Measure) -> Hashable:
    return ("sum of precisions", level_of(j, m))


def _by_r(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    return per_topic(j.num_relevant(level_of(j, m)))


def _by_min_k_r(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    assert depths is not None  # the families divided by min(k, R) require a cut-off
    by: np.ndarray = np.minimum(depth_axis(depths), _by_r(j, m, depths))
    return by


_SUM_OF_PRECISIONS: dict[str, Any] = dict(terms=precision_terms, shares_terms=_same_terms, params=(LEVEL_PARAM,),
                                           ties="closed", expected_terms=expected_precision_terms)


def expected_inferred_ap_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """infAP's expected terms. Its term at a relevant rank i is 1/i + ((c + q + u)/i)·((c + ε)/(c + q
    + 2ε)) with c relevant, q judged non-relevant and u pool-unjudged documents above i: a ratio,
    so the counts' joint distribution is needed. Counts above i's group are fixed; inside it (n
    documents: r relevant, g judged non-relevant, o others, of which v pool-unjudged), i is
    relevant with chance r/n and then its p − 1 predecessors are drawn from the other n − 1:
    x relevant and y judged non-relevant are multivariate hypergeometric, and given them the
    pool-unjudged count is linear in the term, so its conditional mean (p − 1 − x − y)·v/o
    enters directly."""
    assert j.tie_start is not None and j.tie_size is not None  # expected terms are asked for tied lists only
    width = min(width, j.depth)
    start = j.tie_start[:, :, :width]
    single = j.tie_size[:, :, :width] == 1
    out = np.where(single, inferred_ap_terms(j, m, width), 0.0)
    rel = j.relevant(level_of(j, m))
    nonrel = j.judged & ~rel
    relevant, rel_above = group_counts(j, rel, width)
    judged_nonrel, nonrel_above = group_counts(j, nonrel, width)
    pool, pool_above = group_counts(j, j.pool_unjudged, width)
    for s, t, first in zip(*np.nonzero(~single & (start == np.arange(width)))):
        n, r = int(j.tie_size[s, t, first]), int(relevant[s, t, first])
        if r == 0:
            continue
        g, v = int(judged_nonrel[s, t, first]), int(pool[s, t, first])
        others = n - r - g  # pool-unjudged and documents not in the qrels
        c0, q0, u0 = int(rel_above[s, t, first]), int(nonrel_above[s, t, first]), int(pool_above[s, t, first])
        x = np.arange(r)[:, None]  # relevant among the predecessors (of the other r − 1)
        y = np.arange(g + 1)[None, :]  # judged non-relevant among them
        for place in range(min(n, width - first)):  # place = p − 1 predecessors drawn
            rank = first + place + 1.0
            if rank == 1.0:
                out[s, t, first] = r / n  # rank 1 scores 1 whenever it is relevant
                continue
            rest = place - x - y
            chance = np.exp(_log_comb(r - 1, x) + _log_comb(g, y) + _log_comb(others, rest) - _log_comb(n - 1, place))
            rest = np.maximum(rest, 0)
            u = u0 + (rest * v / others if others else 0.0)
            c, q = c0 + x, q0 + y
            with np.errstate(invalid="ignore", divide="ignore"):
                term = 1.0 / rank + ((c + q + u) / rank) * ((c + INFAP_EPSILON) / (c + q + 2 * INFAP_EPSILON))
            out[s, t, first + place] = (r / n) * np.nansum(np.where(chance > 0, chance * term, 0.0))
    return out


register(Family("AP", "Average precision: SP@k divided by R (map, map_cut_k).", normaliser=_by_r,
                trec_eval=(TrecEvalName("map", "AP", 5, nicknames=OFFICIAL),
                           TrecEvalName("map_cut", "AP@{}", 25, "longs", TREC_CUTS)),
                ir_measures=IrMeasuresName("AP"), **_SUM_OF_PRECISIONS,
                roles=frozenset({Role.DEFAULT, Role.POOL_VARIANT})), aliases=("MAP",))
register(Family("AP_min", "AP@k normalised by min(k, R) (Observed Volatility, Eq. 1).", normaliser=_by_min_k_r,
                cutoff="required", **_SUM_OF_PRECISIONS))
register(Family("SP", "Sum of precisions at the relevant ranks (un-normalised AP, R·AP).", bounded=False,
                r_normalisation=RNormalisation("AP", ideal=lambda raw, r, depth: r), **_SUM_OF_PRECISIONS),
         aliases=("SumP",))


#: trec_eval's INFAP_EPSILON.
INFAP_EPSILON = 1e-5


def inferred_ap_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """infAP's term at each judged relevant rank i (1-based; Yilmaz & Aslam, CIKM 2006, as
    trec_eval's m_infap.c): 1 at rank 1, else 1/i + ((i−1)/i)·(p/(i−1))·((c + ε)/(c + q + 2ε)),
    with c relevant and q judged non-relevant documents above, p = c + q + pool-unjudged ones
    above (documents not in the qrels are skipped)."""
    level = level_of(j, m)
    rel = j.head(j.relevant(level), width)
    judged_nonrel = j.head(j.judged, width) & ~rel
    pool_unjudged = j.head(j.pool_unjudged, width)
    c = j.head(j.cum_relevant(level), width) - rel  # relevant above
    q = np.cumsum(judged_nonrel, axis=2, dtype=np.int64) - judged_nonrel  # judged non-relevant above
    u = np.cumsum(pool_unjudged, axis=2, dtype=np.int64) - pool_unjudged  # pool-unjudged above
    rank = j.ranks[:width]
    above = rank - 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        later = 1.0 / rank + (above / rank) * ((c + q + u) / above) * ((c + INFAP_EPSILON) / (c + q + 2 * INFAP_EPSILON))
    return np.where(rel, np.where(rank == 1.0, 1.0, later), 0.0)


register(Family("infAP", "Inferred AP from sampled judgments (Yilmaz & Aslam 2006; trec_eval infAP): AP estimated "
                "from the judged documents; qrels lines with a negative grade are in the pool but unjudged.",
                (LEVEL_PARAM,), terms=inferred_ap_terms, normaliser=_by_r, cutoff="none", ties="closed",
                expected_terms=expected_inferred_ap_terms,
                trec_eval=(TrecEvalName("infAP", "infAP", 14),), ir_measures=IrMeasuresName("infAP")),
         aliases=("InfAP",))
