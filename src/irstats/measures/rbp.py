"""Rank-biased precision and its residual (Moffat & Zobel; METHODS.md §2.6)."""

from __future__ import annotations

import numpy as np

from irstats.measures.common import LEVEL_PARAM, rank_sum
from irstats.measures.registry import Family, Param, register

P_PARAM = Param("p", float, 0.8, always_shown=True, help="persistence, the probability of going on to the next rank",
                low=0, high=1, open_low=True, open_high=True)


def _weights(j, p: float, cutoff: int | None) -> np.ndarray:
    """(1 − p)·p^(i−1) for ranks 1..min(k, K)."""
    depth = j.depth if cutoff is None else min(cutoff, j.depth)
    return (1.0 - p) * np.power(p, np.arange(depth, dtype=np.float64))


def rbp(j, m) -> np.ndarray:
    p, level = m["p"], m["rel"]
    if level is None:
        # Graded: clip(grade, 0, g_max)/g_max with the collection-wide g_max.
        g_max = max(j.qrels.g_max, 1)
        gains = np.clip(j.head(j.grades, m.cutoff), 0, g_max) / g_max
    else:
        gains = j.head(j.relevant(level), m.cutoff)
    return rank_sum(gains * _weights(j, p, m.cutoff))


def rbp_residual(j, m) -> np.ndarray:
    p = m["p"]
    grades = j.head(j.grades, m.cutoff)
    unjudged = grades == -1
    weights = _weights(j, p, m.cutoff)
    inside = rank_sum(unjudged * weights)
    shown = j.n_ret if m.cutoff is None else np.minimum(j.n_ret, m.cutoff)
    residual = inside + np.power(p, shown)
    if j.trec_eval_compat:
        # trec_eval's rbp_resid is 0 (the tail p^n dropped) when no retrieved document is unjudged.
        residual = np.where(unjudged.any(axis=2), residual, 0.0)
    return residual


def _trec_rbp(m) -> str | None:
    # trec_eval rescales graded gains per topic; for grades {0, 1} (and {0, 1, 2}) it agrees.
    if m.cutoff is not None or m["rel"] not in (None, 1):
        return None
    return f"rbp.p={m['p']:g}" if m["p"] != 0.9 else "rbp"


def _trec_rbp_resid(m) -> str | None:
    if m.cutoff is not None:
        return None
    return f"rbp_resid.p={m['p']:g}" if m["p"] != 0.9 else "rbp_resid"


register(Family("RBP", "Rank-biased precision (1−p)Σ g_i p^(i−1); graded gain grade/g_max unless rel= is given.",
                rbp, (P_PARAM, LEVEL_PARAM), trec_eval=_trec_rbp))
register(Family("RBPresid", "RBP residual: the most RBP could rise if every unjudged document and every rank "
                "past the list were relevant.", rbp_residual, (P_PARAM,), trec_eval=_trec_rbp_resid),
         aliases=("RBP_resid",))
