"""Sakai's Q-measure (METHODS.md §2.8)."""

from __future__ import annotations

import numpy as np

from irstats.measures.common import LEVEL_PARAM, level_of, rank_sum, safe_divide
from irstats.measures.dcg import gain_function
from irstats.measures.registry import Family, Param, register

BETA_PARAM = Param("beta", float, 1.0, always_shown=True, help="weight of cumulative gain in the blended ratio", low=0)
NORM_PARAM = Param("norm", str, "R", choices=("R", "min"), help="divide by R (default) or by min(k, R)")


def q_measure(j, m) -> np.ndarray:
    beta, level = m["beta"], level_of(j, m)
    rel = j.head(j.relevant(level), m.cutoff)
    depth = rel.shape[2]
    cum_rel = j.head(j.cum_relevant(level), m.cutoff)
    cum_gain = np.cumsum(j.head(j.positive_grades(), m.cutoff), axis=2, dtype=np.float64)
    ideal = j.qrels.ideal_gains("lin", gain_function("lin"))
    ideal_cum = np.cumsum(ideal, axis=1)
    # cg*(r) stays at its last value for r past the ideal list's length.
    idx = np.minimum(np.arange(depth), ideal_cum.shape[1] - 1)
    cg_star = ideal_cum[:, idx]  # (T, depth)
    ranks = j.ranks[:depth]
    blended = (cum_rel + beta * cum_gain) / (ranks + beta * cg_star[None, :, :])
    total = rank_sum(np.where(rel, blended, 0.0))
    big_r = j.num_relevant(level)
    if m["norm"] == "min":
        big_r = np.minimum(big_r, m.cutoff if m.cutoff is not None else j.n_ret)
    return safe_divide(total, big_r[None, :] if big_r.ndim == 1 else big_r)


register(Family("Q", "Q-measure: AP with the blended ratio (C(r) + β·cg(r))/(r + β·cg*(r)).", q_measure,
                (BETA_PARAM, NORM_PARAM, LEVEL_PARAM)))
