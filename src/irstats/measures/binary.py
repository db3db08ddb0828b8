"""Set and rank measures on binary relevance: P@k, R@k, Rprec, RR, Success@k, Judged@k
and the counts (METHODS.md §2.1, 2.2, 2.4, 2.10)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable

import numpy as np

from irstats.measures.common import LEVEL_PARAM, depth_axis, level_of, per_topic, safe_divide, shown
from irstats.measures.params import Param
from irstats.measures.registry import (OFFICIAL, TREC_CUTS, Family, IrMeasuresName, RNormalisation, Role,
                                      TrecEvalName, register)
from irstats.measures.ties import (expected_first_relevant_terms, expected_r_precision,
                                   expected_reciprocal_rank_terms)

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure


def relevant_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """1 at a relevant rank, else 0: their sum to depth k is C(k)."""
    return j.head(j.relevant(level_of(j, m)), width)


def first_relevant_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """1 at the first relevant rank, else 0: their sum to depth k says whether one is inside k."""
    level = level_of(j, m)
    first: np.ndarray = j.head(j.relevant(level), width) & (j.head(j.cum_relevant(level), width) == 1)
    return first


def reciprocal_rank_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """1/i at the first relevant rank i, else 0."""
    return np.where(first_relevant_terms(j, m, width), 1.0 / j.ranks[:width], 0.0)


def judged_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    return j.head(j.judged, width)


def _relevant_share(j: Judgments, m: Measure) -> Hashable:
    return ("relevant", level_of(j, m))


def _first_relevant_share(j: Judgments, m: Measure) -> Hashable:
    return ("first relevant", level_of(j, m))


def _by_k(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    # The denominator stays k even when the list is shorter (m_P.c).
    assert depths is not None  # the families divided by k require a cut-off
    return depth_axis(depths)


def _by_r(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    return per_topic(j.num_relevant(level_of(j, m)))


def _by_shown(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    # The share of the documents actually shown: denominator min(k, n), as in ir_measures
    # since 0.3.1 (METHODS §2.10); an empty list gives 0.
    return shown(j, depths)


def r_precision(j: Judgments, m: Measure) -> np.ndarray:
    """Precision at rank c = ⌊mult·R + 0.9⌋ (trec_eval's Rprec_mult; c = R for mult = 1): C(c)/c,
    0 when c = 0. Positions past the list hold no relevant document, so C(c) = C(min(c, K))."""
    level = level_of(j, m)
    cut = np.floor(m["mult"] * j.num_relevant(level).astype(np.float64) + 0.9).astype(np.int64)
    if j.depth == 0:
        return np.zeros(j.n_ret.shape)
    idx = np.clip(np.minimum(cut, j.depth) - 1, 0, None)
    cum = j.cum_relevant(level)
    hits = np.take_along_axis(cum, np.broadcast_to(idx[None, :, None], (cum.shape[0], cum.shape[1], 1)), axis=2)[..., 0]
    return safe_divide(np.where(cut[None, :] > 0, hits, 0), cut[None, :])


MULT_PARAM = Param("mult", float, 1.0, help="the rank cut-off as a multiple of R (trec_eval Rprec_mult)",
                   low=0, open_low=True)


def num_ret(j: Judgments, m: Measure) -> np.ndarray:
    counts: np.ndarray = j.n_ret.astype(float)
    return counts


def num_rel(j: Judgments, m: Measure) -> np.ndarray:
    per_list: np.ndarray = np.broadcast_to(j.num_relevant(level_of(j, m))[None, :].astype(float), j.n_ret.shape).copy()
    return per_list


def _ideal_precision(raw: Measure, r: np.ndarray, depth: int | None) -> np.ndarray:
    """min(R, k)/k: the precision at k of a ranking with every relevant document first."""
    assert raw.cutoff is not None  # P's cut-off is required
    ideal: np.ndarray = np.minimum(r, raw.cutoff) / raw.cutoff
    return ideal


_RELEVANT: dict[str, Any] = dict(terms=relevant_terms, shares_terms=_relevant_share, params=(LEVEL_PARAM,),
                                 ties="pointwise")
_FIRST: dict[str, Any] = dict(shares_terms=_first_relevant_share, params=(LEVEL_PARAM,), ties="closed",
                              expected_terms=expected_first_relevant_terms)

#: trec_eval's counts: in its official measures and the set measures' nickname.
_COUNTED = ("official", "all_trec", "set")

register(Family("P", "Precision at k: relevant documents in the top k, divided by k.", normaliser=_by_k,
                cutoff="required", ir_measures=IrMeasuresName("P"),
                trec_eval=(TrecEvalName("P", "P@{}", 11, "longs", TREC_CUTS, nicknames=OFFICIAL, spellings=("P",)),),
                r_normalisation=RNormalisation("nP", ideal=_ideal_precision), **_RELEVANT), aliases=("Precision",))
register(Family("R", "Recall at k: relevant documents in the top k, divided by R.", normaliser=_by_r,
                cutoff="required", trec_eval=(TrecEvalName("recall", "R@{}", 13, "longs", TREC_CUTS),),
                ir_measures=IrMeasuresName("R"), **_RELEVANT), aliases=("Recall",))
register(Family("Rprec", "R-precision: precision at rank R (every relevant document counts if the list is shorter); "
                "Rprec(mult=x) at rank ⌊x·R + 0.9⌋ (trec_eval Rprec_mult).",
                (MULT_PARAM, LEVEL_PARAM), kernel=r_precision, cutoff="none", ir_measures=IrMeasuresName("Rprec"),
                trec_eval=(TrecEvalName("Rprec", "Rprec", 7, nicknames=OFFICIAL, spellings=("R-prec",)),
                           TrecEvalName("Rprec_mult", "Rprec(mult={:g})", 16, "floats",
                                        tuple(k / 10 for k in range(2, 21, 2)))),
                ties="closed", expected_kernel=expected_r_precision),
         aliases=("R-prec",))
register(Family("RR", "Reciprocal rank of the first relevant document (0 if none in the top k).",
                terms=reciprocal_rank_terms, params=(LEVEL_PARAM,), ties="closed",
                expected_terms=expected_reciprocal_rank_terms, ir_measures=IrMeasuresName("RR"),
                trec_eval=(TrecEvalName("recip_rank", "RR", 9, nicknames=OFFICIAL),)),
         aliases=("MRR",))
register(Family("Success", "1 if a relevant document is in the top k, else 0.", terms=first_relevant_terms,
                cutoff="required", trec_eval=(TrecEvalName("success", "Success@{}", 27, "longs", (1, 5, 10)),),
                ir_measures=IrMeasuresName("Success"), **_FIRST))
register(Family("Judged", "Share of the top min(k, n) documents that are judged (ir_measures' Judged@k); "
                "without k, of all n retrieved documents (ir_measures' Judged).",
                terms=judged_terms, shares_terms=lambda j, m: ("judged",), normaliser=_by_shown, ties="pointwise",
                ir_measures=IrMeasuresName("Judged"),
                roles=frozenset({Role.JUDGED_SHARE})))
register(Family("NumRet", "Number of documents retrieved (after depth and condensation).", kernel=num_ret,
                ties="order_free",
                cutoff="none", over_topics="sum", bounded=False, ir_measures=IrMeasuresName("NumRet"),
                trec_eval=(TrecEvalName("num_ret", "NumRet", 2, nicknames=_COUNTED),),
                roles=frozenset({Role.RETRIEVED})))
register(Family("NumRel", "Number of relevant documents in the qrels (R).", (LEVEL_PARAM,), kernel=num_rel,
                ties="order_free",
                cutoff="none", over_topics="sum", bounded=False, ir_measures=IrMeasuresName("NumRel"),
                trec_eval=(TrecEvalName("num_rel", "NumRel", 3, nicknames=_COUNTED,
                                        graded_lines_with_c=True),),
                roles=frozenset({Role.R_PER_TOPIC})))
register(Family("NumRelRet", "Number of relevant documents retrieved.", cutoff="none", over_topics="sum", bounded=False,
                trec_eval=(TrecEvalName("num_rel_ret", "NumRelRet", 4, nicknames=_COUNTED),),
                ir_measures=IrMeasuresName("NumRet", requires=("rel",)), **_RELEVANT))
