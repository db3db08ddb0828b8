"""Set and rank measures on binary relevance: P@k, R@k, Rprec, RR, Success@k, Judged@k
and the counts (METHODS.md §2.1, 2.2, 2.4, 2.10)."""

from __future__ import annotations

import numpy as np

from irstats.measures.common import LEVEL_PARAM, level_of, safe_divide, trec_cut
from irstats.measures.registry import Family, register


def precision(j, m) -> np.ndarray:
    # The denominator stays k even when the list is shorter (m_P.c).
    return j.at_cutoff(j.cum_relevant(level_of(j, m)), m.cutoff) / m.cutoff


def recall(j, m) -> np.ndarray:
    level = level_of(j, m)
    return safe_divide(j.at_cutoff(j.cum_relevant(level), m.cutoff), j.num_relevant(level)[None, :])


def r_precision(j, m) -> np.ndarray:
    level = level_of(j, m)
    big_r = j.num_relevant(level)
    if j.depth == 0:
        return np.zeros(j.n_ret.shape)
    # C(min(R, n)): positions past n hold no relevant document, so C(min(R, K)) is the same.
    idx = np.clip(np.minimum(big_r, j.depth) - 1, 0, None)
    cum = j.cum_relevant(level)
    hits = np.take_along_axis(cum, np.broadcast_to(idx[None, :, None], (cum.shape[0], cum.shape[1], 1)), axis=2)[..., 0]
    return safe_divide(np.where(big_r[None, :] > 0, hits, 0), big_r[None, :])


def reciprocal_rank(j, m) -> np.ndarray:
    rel = j.head(j.relevant(level_of(j, m)), m.cutoff)
    if rel.shape[2] == 0:
        return np.zeros(rel.shape[:2])
    first = np.argmax(rel, axis=2)
    return np.where(rel.any(axis=2), 1.0 / (first + 1.0), 0.0)


def success(j, m) -> np.ndarray:
    return j.head(j.relevant(level_of(j, m)), m.cutoff).any(axis=2).astype(float)


def judged_at(j, m) -> np.ndarray:
    # The share of the documents actually shown that are judged: denominator min(k, n), as in
    # ir_measures since 0.3.1 (METHODS §2.10); an empty list gives 0.
    return safe_divide(j.head(j.judged, m.cutoff).sum(axis=2), np.minimum(j.n_ret, m.cutoff))


def num_ret(j, m) -> np.ndarray:
    return j.n_ret.astype(float)


def num_rel(j, m) -> np.ndarray:
    return np.broadcast_to(j.num_relevant(level_of(j, m))[None, :].astype(float), j.n_ret.shape).copy()


def num_rel_ret(j, m) -> np.ndarray:
    return j.at_cutoff(j.cum_relevant(level_of(j, m)), None).astype(float)


register(Family("P", "Precision at k: relevant documents in the top k, divided by k.", precision,
                (LEVEL_PARAM,), cutoff="required", trec_eval=lambda m: trec_cut("P", m)), aliases=("Precision",))
register(Family("R", "Recall at k: relevant documents in the top k, divided by R.", recall,
                (LEVEL_PARAM,), cutoff="required", trec_eval=lambda m: trec_cut("recall", m)), aliases=("Recall",))
register(Family("Rprec", "R-precision: precision at rank R (every relevant document counts if the list is shorter).",
                r_precision, (LEVEL_PARAM,), cutoff="none", trec_eval=lambda m: trec_cut("Rprec", m, "Rprec")),
         aliases=("R-prec",))
register(Family("RR", "Reciprocal rank of the first relevant document (0 if none in the top k).", reciprocal_rank,
                (LEVEL_PARAM,), trec_eval=lambda m: "recip_rank" if m.cutoff is None and m.get("rel") is None else None),
         aliases=("MRR",))
register(Family("Success", "1 if a relevant document is in the top k, else 0.", success, (LEVEL_PARAM,),
                cutoff="required", trec_eval=lambda m: trec_cut("success", m)))
register(Family("Judged", "Share of the top min(k, n) documents that are judged (ir_measures' Judged@k).", judged_at,
                cutoff="required"))
register(Family("NumRet", "Number of documents retrieved (after depth and condensation).", num_ret,
                cutoff="none", summary="sum", bounded=False, trec_eval=lambda m: "num_ret"))
register(Family("NumRel", "Number of relevant documents in the qrels (R).", num_rel, (LEVEL_PARAM,),
                cutoff="none", summary="sum", bounded=False, trec_eval=lambda m: trec_cut("num_rel", m, "num_rel")))
register(Family("NumRelRet", "Number of relevant documents retrieved.", num_rel_ret, (LEVEL_PARAM,),
                cutoff="none", summary="sum", bounded=False,
                trec_eval=lambda m: trec_cut("num_rel_ret", m, "num_rel_ret")))
