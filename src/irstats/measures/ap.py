"""The average-precision family: AP, AP@k, AP_min@k and SP (METHODS.md §2.3).

All share SP@k = Σ_{i≤k} b_i·C(i)/i and differ only in the normaliser.
"""

from __future__ import annotations

import numpy as np

from irstats.measures.common import LEVEL_PARAM, level_of, rank_sum, safe_divide, trec_cut
from irstats.measures.registry import Family, register


def sum_precision(j, m) -> np.ndarray:
    """SP@k, the un-normalised sum of precisions at the relevant ranks."""
    level = level_of(j, m)
    key = ("SP", level, m.cutoff)
    if key not in j._cache:
        rel = j.head(j.relevant(level), m.cutoff)
        cum = j.head(j.cum_relevant(level), m.cutoff)
        ranks = j.ranks[: rel.shape[2]]
        j._cache[key] = rank_sum(np.where(rel, cum / ranks, 0.0))
    return j._cache[key]


def average_precision(j, m) -> np.ndarray:
    return safe_divide(sum_precision(j, m), j.num_relevant(level_of(j, m))[None, :])


def average_precision_min(j, m) -> np.ndarray:
    denominator = np.minimum(m.cutoff, j.num_relevant(level_of(j, m)))
    return safe_divide(sum_precision(j, m), denominator[None, :])


register(Family("AP", "Average precision: SP@k divided by R (map, map_cut_k).", average_precision, (LEVEL_PARAM,),
                trec_eval=lambda m: trec_cut("map_cut", m, "map")), aliases=("MAP",))
register(Family("AP_min", "AP@k normalised by min(k, R) (Observed Volatility, Eq. 1).", average_precision_min,
                (LEVEL_PARAM,), cutoff="required"))
register(Family("SP", "Sum of precisions at the relevant ranks (un-normalised AP, R·AP).", sum_precision,
                (LEVEL_PARAM,), bounded=False), aliases=("SumP",))
