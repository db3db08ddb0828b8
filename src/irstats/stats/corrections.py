"""Multiple-comparison corrections of p-values (METHODS §5.6, §5.7).

Holm and Bonferroni control the familywise error rate; Benjamini–Hochberg and
Benjamini–Yekutieli the false discovery rate (BY under any dependence between the tests).
Every function keeps the shape of their input; NaN p-values are left NaN and are not
counted in the family size m.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.typing import ArrayLike

from irstats.checks import numbers
from irstats.errors import ArgumentError, ArgumentTypeError

CORRECTIONS = ("holm", "bonferroni", "bh", "by", "none")


def _as_pvalues(pvalues: ArrayLike) -> np.ndarray:
    p = numbers(pvalues, "pvalues")
    finite = p[~np.isnan(p)]
    if np.any((finite < 0) | (finite > 1)):
        bad = finite[(finite < 0) | (finite > 1)][0]
        raise ArgumentError(f"pvalues must lie in [0, 1] (NaN for none); found {bad:g}", argument="pvalues")
    return p


def bonferroni(pvalues: ArrayLike) -> np.ndarray:
    """Bonferroni-adjusted p-values: p̃ = min(1, m·p), m = number of non-NaN p-values.

    >>> bonferroni([0.01, 0.04, 0.5]).tolist()
    [0.03, 0.12, 1.0]
    """
    p = _as_pvalues(pvalues)
    m = int(np.count_nonzero(~np.isnan(p)))
    adjusted: np.ndarray = np.minimum(1.0, m * p)
    return adjusted


def _in_order(pvalues: ArrayLike, adjust_sorted: Callable[[np.ndarray, int], np.ndarray]) -> np.ndarray:
    """Apply ``adjust_sorted(p_sorted, m)`` to the non-NaN p-values in ascending order (stable),
    and put the results back in the input's order and shape; NaN stays NaN."""
    p = _as_pvalues(pvalues)
    flat = p.ravel()
    out = np.full(flat.shape, np.nan)
    keep = np.flatnonzero(~np.isnan(flat))
    if keep.size:
        order = keep[np.argsort(flat[keep], kind="stable")]
        out[order] = adjust_sorted(flat[order], keep.size)
    return out.reshape(p.shape)


def holm(pvalues: ArrayLike) -> np.ndarray:
    """Holm's step-down adjusted p-values.

    Sort so that p_(1) ≤ … ≤ p_(m); p̃_(i) = max_{j≤i} min(1, (m − j + 1)·p_(j)), returned
    in the input order. m counts the non-NaN p-values; NaN stays NaN.

    >>> holm([0.01, 0.04, 0.03]).round(12).tolist()
    [0.03, 0.06, 0.06]
    """
    return _in_order(pvalues, lambda p, m: np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p)))


def benjamini_hochberg(pvalues: ArrayLike, dependent: bool = False) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (Benjamini–Yekutieli with ``dependent=True``).

    Sort so that p_(1) ≤ … ≤ p_(m); p̃_(i) = min_{j≥i} min(1, c·m·p_(j)/j), with c = 1 (BH) or
    c = Σ_{k=1}^{m} 1/k (BY), returned in the input order; as
    ``scipy.stats.false_discovery_control``. NaN stays NaN and is not counted in m.

    >>> benjamini_hochberg([0.01, 0.04, 0.03]).round(12).tolist()
    [0.03, 0.04, 0.04]
    """
    def step_up(p: np.ndarray, m: int) -> np.ndarray:
        c = np.sum(1.0 / np.arange(1, m + 1)) if dependent else 1.0
        scaled = np.minimum(1.0, c * m * p / np.arange(1, m + 1))
        return np.minimum.accumulate(scaled[::-1])[::-1]

    return _in_order(pvalues, step_up)


def benjamini_yekutieli(pvalues: ArrayLike) -> np.ndarray:
    """Benjamini–Yekutieli adjusted p-values: BH times Σ_{k≤m} 1/k, valid under any dependence."""
    return benjamini_hochberg(pvalues, dependent=True)


def adjust(pvalues: ArrayLike, method: str = "holm") -> np.ndarray:
    """Adjust p-values by ``method``: ``"holm"``, ``"bonferroni"``, ``"bh"``, ``"by"`` or ``"none"``."""
    if not isinstance(method, str):
        raise ArgumentTypeError(f"unknown correction {method!r}; expected one of {', '.join(CORRECTIONS)}",
                                argument="method")
    if method == "holm":
        return holm(pvalues)
    if method == "bonferroni":
        return bonferroni(pvalues)
    if method in ("bh", "by"):
        return benjamini_hochberg(pvalues, dependent=method == "by")
    if method == "none":
        unadjusted: np.ndarray = _as_pvalues(pvalues).copy()
        return unadjusted
    raise ArgumentError(f"unknown correction {method!r}; expected one of {', '.join(CORRECTIONS)}",
                        argument="method")
