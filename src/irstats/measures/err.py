"""Expected reciprocal rank (Chapelle et al.; METHODS.md §2.7)."""

from __future__ import annotations

import numpy as np

from irstats.measures.registry import Family, register
from irstats.measures.ties import expected_err_terms


def stop_probability(j, grades: np.ndarray) -> np.ndarray:
    """(2^g − 1)/2^g_max for (non-negative) grades g."""
    g_max = j.qrels.gain_top
    # Written as 2^(g − g_max) − 2^−g_max: the same number, and no overflow for grades past
    # 1023, where 2^g alone is infinite (ERR would be NaN).
    return np.exp2(np.asarray(grades, dtype=np.float64) - g_max) - np.exp2(-float(g_max))


def err_terms(j, m, width: int) -> np.ndarray:
    """P(the user stops at rank r)/r: the stop probability times the chance of reaching r."""
    grades = j.head(j.positive_grades(), width).astype(np.float64)
    stop = stop_probability(j, grades)
    # Probability of reaching rank r: the product of (1 − stop) over the ranks before it.
    reach = np.cumprod(1.0 - stop, axis=2)
    reach = np.concatenate((np.ones(reach.shape[:2] + (1,)), reach[:, :, :-1]), axis=2)
    return stop * reach / j.ranks[:width]


register(Family("ERR", "Expected reciprocal rank with stop probability (2^g − 1)/2^g_max.", terms=err_terms,
                default_cutoff=20, ties="closed", expected_terms=expected_err_terms))
