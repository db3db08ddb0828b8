"""Interpolated precision at recall levels (trec_eval 10's m_iprec_at_recall.c, m_11pt_avg.c).

The interpolated precision at recall level r is the highest precision C(i)/i at or after the
rank of the c-th relevant document, c = round(r·R) (half away from zero, C's ``lround``); for
c = 0, at or after the first relevant document. A level the list never reaches (c greater than
the relevant documents retrieved) gives 0, and so does a list with no relevant document.

- ``IPrec@r`` — iprec_at_recall_r (r in [0, 1]);
- ``IPrecAvg`` — 11pt_avg: the mean of IPrec at the 11 levels 0, 0.1, …, 1.
"""

from __future__ import annotations

import numpy as np

from irstats.measures.common import LEVEL_PARAM, level_of
from irstats.measures.registry import Family, Param, register

ELEVEN_POINTS = tuple(k / 10 for k in range(11))


def _max_precision_from(j, m) -> np.ndarray:
    """M[s, t, i] = max over ranks i' ≥ i (within the list) of C(i')/i' — kept on the tensor."""
    level = level_of(j, m)

    def compute():
        precision = j.cum_relevant(level) / j.ranks
        inside = j.ranks[None, None, :] <= j.n_ret[:, :, None]
        precision = np.where(inside, precision, -np.inf)
        return np.maximum.accumulate(precision[:, :, ::-1], axis=2)[:, :, ::-1]

    return j.memo(("max precision from", level), compute)


def _at_levels(j, m, levels) -> np.ndarray:
    """IPrec at each recall level: (S, T, L)."""
    level = level_of(j, m)
    out = np.zeros(j.n_ret.shape + (len(levels),))
    if j.depth == 0:
        return out
    best = _max_precision_from(j, m)
    cum = j.cum_relevant(level)
    retrieved = cum[:, :, -1].astype(np.int64)  # C(n): padding adds no relevant document
    big_r = j.num_relevant(level).astype(np.float64)
    for k, r in enumerate(levels):
        # C's lround: half away from zero (np.round would round half to even)
        cut = np.floor(r * big_r + 0.5).astype(np.int64)
        target = np.maximum(cut, 1)[None, :, None]
        position = np.argmax(cum >= target, axis=2)  # rank (0-based) of the target-th relevant document
        value = np.take_along_axis(best, position[:, :, None], axis=2)[:, :, 0]
        reachable = (cut[None, :] <= retrieved) & (retrieved > 0)
        out[:, :, k] = np.where(reachable, np.maximum(value, 0.0), 0.0)
    return out


def interpolated_precision(j, m) -> np.ndarray:
    return _at_levels(j, m, (m.cutoff,))[:, :, 0]


LEVELS_PARAM = Param("levels", str, "", help="recall levels such as 0.25;0.5;0.75 (default the 11 points)",
                     pattern=r"(0|1|0?\.\d+|1\.0*|0\.\d*)(;(0|1|0?\.\d+|1\.0*|0\.\d*))*")


def eleven_point_average(j, m) -> np.ndarray:
    levels = tuple(float(v) for v in m["levels"].split(";")) if m["levels"] else ELEVEN_POINTS
    return _at_levels(j, m, levels).mean(axis=2)


register(Family("IPrec", "Interpolated precision at recall level r: the best precision at or after the rank where "
                "round(r·R) relevant documents are retrieved (trec_eval iprec_at_recall).", (LEVEL_PARAM,),
                kernel=interpolated_precision, cutoff="required", cutoff_kind="recall",
                trec_eval=lambda m: f"iprec_at_recall_{m.cutoff:.2f}" if m.get("rel") is None else None))
register(Family("IPrecAvg", "11-point interpolated average precision: IPrec at recall 0, 0.1, …, 1, averaged "
                "(trec_eval 11pt_avg; levels= for others).", (LEVELS_PARAM, LEVEL_PARAM), kernel=eleven_point_average, cutoff="none",
                trec_eval=lambda m: "11pt_avg" if m.get("rel") is None else None))
