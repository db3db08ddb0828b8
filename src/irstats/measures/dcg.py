"""Discounted cumulative gain: DCG, DCG@k, nDCG, nDCG@k (METHODS.md §2.5).

Graded: the gain comes from the raw grade and ignores the relevance level, as trec_eval's
``ndcg`` does. The ideal list holds every qrels document with positive gain, retrieved or
not, and is not cut at the list length.
"""

from __future__ import annotations

import numpy as np

from irstats.measures.common import per_topic
from irstats.errors import MeasureError
from irstats.measures.registry import Family, Param, RNormalisation, register

GAIN_PARAM = Param("gain", str, "lin", choices=("lin", "exp"), help="lin: gain = grade (trec_eval); exp: 2^grade − 1")


#: 2^g − 1 is infinite in float64 from this grade on.
EXP_GAIN_LIMIT = 1024


def gain_function(kind: str):
    """Map grades to gains; unjudged, 0 and negative grades give 0."""
    if kind == "exp":
        return _exp_gain
    return lambda grades: np.maximum(grades, 0).astype(np.float64)


def _exp_gain(grades: np.ndarray) -> np.ndarray:
    top = int(np.max(grades, initial=0))
    if top >= EXP_GAIN_LIMIT:
        raise MeasureError(f"gain=exp: grade {top} gives the gain 2^{top} − 1, beyond the largest float; "
                           f"use gain=lin or grades below {EXP_GAIN_LIMIT}")
    return np.exp2(np.maximum(grades, 0)) - 1.0


def gain_terms(j, m, width: int) -> np.ndarray:
    """gain(g_i)/log2(i + 1) for the first ``width`` ranks."""
    grades = j.head(j.grades, width)
    return gain_function(m["gain"])(grades) * (1.0 / np.log2(j.ranks[:width] + 1.0))


def ideal_dcg(j, kind: str, depths: np.ndarray | None) -> np.ndarray:
    """IDCG at each depth k, (T, D): the ideal list's DCG to rank k (the whole list when None).

    The ideal list holds every positively graded qrels document, so it is not cut at the
    run's length; a topic without one has IDCG 0 (and nDCG 0).
    """
    def running_sum():
        ideal = j.qrels.ideal_gains(kind, gain_function(kind))
        return np.cumsum(ideal / np.log2(np.arange(2, ideal.shape[1] + 2, dtype=np.float64)), axis=1)

    cumulative = j.memo(("ideal DCG", kind), running_sum)
    length = cumulative.shape[1]
    wanted = np.array([length]) if depths is None else np.clip(depths, 1, max(length, 1))
    if length == 0:
        return np.zeros((cumulative.shape[0], len(wanted)))
    return cumulative[:, wanted - 1]


def _by_ideal_dcg(j, m, depths):
    return per_topic(ideal_dcg(j, m["gain"], depths))


def _trec_ndcg(m) -> str | None:
    if m["gain"] != "lin":
        return None
    return "ndcg" if m.cutoff is None else f"ndcg_cut_{m.cutoff}"


def _same_terms(j, m):
    return ("discounted gain", m["gain"])


register(Family("DCG", "Discounted cumulative gain, gain/log2(rank+1).", (GAIN_PARAM,), terms=gain_terms,
                shares_terms=_same_terms, bounded=False, r_normalisation=RNormalisation("nDCG")))
register(Family("nDCG", "DCG divided by the DCG of the ideal ranking of all judged documents.", (GAIN_PARAM,),
                terms=gain_terms, shares_terms=_same_terms, normaliser=_by_ideal_dcg, trec_eval=_trec_ndcg),
         aliases=("NDCG",))
