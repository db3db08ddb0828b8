"""Expected reciprocal rank (Chapelle et al.; METHODS.md §2.7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from collections import Counter

import numpy as np

from irstats.measures.registry import Family, register
from irstats.measures.ties import _mean_subset_products

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure


def stop_probability(j: Judgments, grades: np.ndarray) -> np.ndarray:
    """(2^g − 1)/2^g_max for (non-negative) grades g."""
    g_max = j.qrels.gain_top
    # Written as 2^(g − g_max) − 2^−g_max: the same number, and no overflow for grades past
    # 1023, where 2^g alone is infinite (ERR would be NaN).
    stop: np.ndarray = np.exp2(np.asarray(grades, dtype=np.float64) - g_max) - np.exp2(-float(g_max))
    return stop


def err_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """P(the user stops at rank r)/r: the stop probability times the chance of reaching r."""
    grades = j.head(j.positive_grades(), width).astype(np.float64)
    stop = stop_probability(j, grades)
    # Probability of reaching rank r: the product of (1 − stop) over the ranks before it.
    reach = np.cumprod(1.0 - stop, axis=2)
    reach = np.concatenate((np.ones(reach.shape[:2] + (1,)), reach[:, :, :-1]), axis=2)
    terms: np.ndarray = stop * reach / j.ranks[:width]
    return terms



def expected_err_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """ERR's expected terms. The term at rank r is stop(g_r)·Π_{i<r} x(g_i)/r, x = 1 − stop.
    Whole groups above r's group give the same product in any order; inside the group, with
    r at place p, E[stop(g_r)·Π x over the p − 1 places before] = Σ_g (c_g/n)·stop(g)·M_{p−1},
    M_k the mean product of x over a random k-subset of the group's other grades (a
    multivariate hypergeometric mixture, :func:`_mean_subset_products`)."""
    assert j.tie_start is not None and j.tie_size is not None  # tie groups: only tied lists get here
    width = min(width, j.depth)
    grades = j.positive_grades()
    stop = stop_probability(j, grades)
    keep = 1.0 - stop
    before = np.ones(grades.shape[:2] + (grades.shape[2] + 1,))
    np.cumprod(keep, axis=2, out=before[:, :, 1:])
    start = j.tie_start[:, :, :width]
    reach = np.take_along_axis(before, start, axis=2)  # Π x over the groups above
    single = j.tie_size[:, :, :width] == 1
    out = np.where(single, stop[:, :, :width] * reach, 0.0)
    positions = np.arange(width)
    for s, t, first in zip(*np.nonzero(~single & (start == positions))):
        n = int(j.tie_size[s, t, first])
        places = min(n, width - first)
        counts = Counter(grades[s, t, first:first + n].tolist())
        expected = np.zeros(places)
        for grade, count in counts.items():
            others = counts.copy()
            others[grade] -= 1
            g_stop = float(stop_probability(j, np.array(grade)))
            classes = [(1.0 - float(stop_probability(j, np.array(g))), c) for g, c in others.items() if c]
            expected += (count / n) * g_stop * _mean_subset_products(classes, places - 1)
        out[s, t, first:first + places] = reach[s, t, first] * expected
    terms: np.ndarray = out / j.ranks[:width]
    return terms


register(Family("ERR", "Expected reciprocal rank with stop probability (2^g − 1)/2^g_max.", terms=err_terms,
                default_cutoff=20, ties="closed", expected_terms=expected_err_terms))
