"""Set and rank measures on binary relevance: P@k, R@k, Rprec, RR, Success@k, Judged@k
and the counts (METHODS.md §2.1, 2.2, 2.4, 2.10)."""

from __future__ import annotations

import numpy as np

from irstats.measures.common import LEVEL_PARAM, depth_axis, level_of, per_topic, safe_divide, shown, trec_cut
from irstats.measures.registry import Family, Param, RNormalisation, register
from irstats.measures.ties import (expected_first_relevant_terms, expected_r_precision,
                                   expected_reciprocal_rank_terms)


def relevant_terms(j, m, width: int) -> np.ndarray:
    """1 at a relevant rank, else 0: their sum to depth k is C(k)."""
    return j.head(j.relevant(level_of(j, m)), width)


def first_relevant_terms(j, m, width: int) -> np.ndarray:
    """1 at the first relevant rank, else 0: their sum to depth k says whether one is inside k."""
    level = level_of(j, m)
    return j.head(j.relevant(level), width) & (j.head(j.cum_relevant(level), width) == 1)


def reciprocal_rank_terms(j, m, width: int) -> np.ndarray:
    """1/i at the first relevant rank i, else 0."""
    return np.where(first_relevant_terms(j, m, width), 1.0 / j.ranks[:width], 0.0)


def judged_terms(j, m, width: int) -> np.ndarray:
    return j.head(j.judged, width)


def _relevant_share(j, m):
    return ("relevant", level_of(j, m))


def _first_relevant_share(j, m):
    return ("first relevant", level_of(j, m))


def _by_k(j, m, depths):
    # The denominator stays k even when the list is shorter (m_P.c).
    return depth_axis(depths)


def _by_r(j, m, depths):
    return per_topic(j.num_relevant(level_of(j, m)))


def _by_shown(j, m, depths):
    # The share of the documents actually shown: denominator min(k, n), as in ir_measures
    # since 0.3.1 (METHODS §2.10); an empty list gives 0.
    return shown(j, depths)


def r_precision(j, m) -> np.ndarray:
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


def _trec_rprec(m) -> str | None:
    if m.get("rel") is not None:
        return None
    return "Rprec" if m["mult"] == 1.0 else f"Rprec_mult_{m['mult']:.2f}"


def num_ret(j, m) -> np.ndarray:
    return j.n_ret.astype(float)


def num_rel(j, m) -> np.ndarray:
    return np.broadcast_to(j.num_relevant(level_of(j, m))[None, :].astype(float), j.n_ret.shape).copy()


def _ideal_precision(raw, r, depth):
    """min(R, k)/k: the precision at k of a ranking with every relevant document first."""
    return np.minimum(r, raw.cutoff) / raw.cutoff


_RELEVANT = dict(terms=relevant_terms, shares_terms=_relevant_share, params=(LEVEL_PARAM,), ties="pointwise")
_FIRST = dict(shares_terms=_first_relevant_share, params=(LEVEL_PARAM,), ties="closed",
              expected_terms=expected_first_relevant_terms)

register(Family("P", "Precision at k: relevant documents in the top k, divided by k.", normaliser=_by_k,
                cutoff="required", trec_eval=lambda m: trec_cut("P", m),
                r_normalisation=RNormalisation("nP", ideal=_ideal_precision), **_RELEVANT), aliases=("Precision",))
register(Family("R", "Recall at k: relevant documents in the top k, divided by R.", normaliser=_by_r,
                cutoff="required", trec_eval=lambda m: trec_cut("recall", m), **_RELEVANT), aliases=("Recall",))
register(Family("Rprec", "R-precision: precision at rank R (every relevant document counts if the list is shorter); "
                "Rprec(mult=x) at rank ⌊x·R + 0.9⌋ (trec_eval Rprec_mult).",
                (MULT_PARAM, LEVEL_PARAM), kernel=r_precision, cutoff="none", trec_eval=_trec_rprec,
                ties="closed", expected_kernel=expected_r_precision),
         aliases=("R-prec",))
register(Family("RR", "Reciprocal rank of the first relevant document (0 if none in the top k).",
                terms=reciprocal_rank_terms, params=(LEVEL_PARAM,), ties="closed",
                expected_terms=expected_reciprocal_rank_terms,
                trec_eval=lambda m: "recip_rank" if m.cutoff is None and m.get("rel") is None else None),
         aliases=("MRR",))
register(Family("Success", "1 if a relevant document is in the top k, else 0.", terms=first_relevant_terms,
                cutoff="required", trec_eval=lambda m: trec_cut("success", m), **_FIRST))
register(Family("Judged", "Share of the top min(k, n) documents that are judged (ir_measures' Judged@k); "
                "without k, of all n retrieved documents (ir_measures' Judged).",
                terms=judged_terms, shares_terms=lambda j, m: ("judged",), normaliser=_by_shown, ties="pointwise"))
register(Family("NumRet", "Number of documents retrieved (after depth and condensation).", kernel=num_ret,
                ties="order_free",
                cutoff="none", summary="sum", bounded=False, trec_eval=lambda m: "num_ret"))
register(Family("NumRel", "Number of relevant documents in the qrels (R).", (LEVEL_PARAM,), kernel=num_rel,
                ties="order_free",
                cutoff="none", summary="sum", bounded=False, trec_eval=lambda m: trec_cut("num_rel", m, "num_rel")))
register(Family("NumRelRet", "Number of relevant documents retrieved.", cutoff="none", summary="sum", bounded=False,
                trec_eval=lambda m: trec_cut("num_rel_ret", m, "num_rel_ret"), **_RELEVANT))
