"""Discounted cumulative gain: DCG, DCG@k, nDCG, nDCG@k (METHODS.md §2.5).

Graded: the gain comes from the raw grade and ignores the relevance level, as trec_eval's
``ndcg`` does. The ideal list holds every qrels document with positive gain, retrieved or
not, and is not cut at the list length.
"""

from __future__ import annotations

import numpy as np

from irstats.measures.common import rank_sum, safe_divide
from irstats.errors import MeasureError
from irstats.measures.registry import Family, Param, register

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


def dcg(j, m) -> np.ndarray:
    grades = j.head(j.grades, m.cutoff)
    if grades.shape[2] == 0:
        return np.zeros(grades.shape[:2])
    # Only the first k ranks are read.
    discounts = 1.0 / np.log2(j.ranks[: grades.shape[2]] + 1.0)
    return rank_sum(gain_function(m["gain"])(grades) * discounts)


def ideal_dcg(j, kind: str, cutoff: int | None) -> np.ndarray:
    """IDCG@k per topic (the whole ideal list when cutoff is None)."""
    ideal = j.qrels.ideal_gains(kind, gain_function(kind))
    if cutoff is not None:
        ideal = ideal[:, :cutoff]
    discounts = np.log2(np.arange(2, ideal.shape[1] + 2, dtype=np.float64))
    return np.sum(ideal / discounts, axis=1)


def ndcg(j, m) -> np.ndarray:
    return safe_divide(dcg(j, m), ideal_dcg(j, m["gain"], m.cutoff)[None, :])


def _trec_ndcg(m) -> str | None:
    if m["gain"] != "lin":
        return None
    return "ndcg" if m.cutoff is None else f"ndcg_cut_{m.cutoff}"


register(Family("DCG", "Discounted cumulative gain, gain/log2(rank+1).", dcg, (GAIN_PARAM,), bounded=False))
register(Family("nDCG", "DCG divided by the DCG of the ideal ranking of all judged documents.", ndcg, (GAIN_PARAM,),
                trec_eval=_trec_ndcg), aliases=("NDCG",))
