"""The one rule for t-tests whose standard error is 0 (METHODS §5.6 [CHOICE]), and the one
zero tolerance. numpy only, so that light callers (split-half) need not import scipy.

When every difference is the same (s = 0, up to ``ZERO_TOL`` relative to the mean), the t
statistic is 0 and p = 1 if the mean difference is 0 too, else t = ±∞ and p = 0
(two-sided; for one-sided alternatives 0 or 1 by the direction).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: |x| at or below this counts as 0; a spread at or below ZERO_TOL·max(1, |center|) as none.
ZERO_TOL = 1e-12


def zero_spread(spread: npt.ArrayLike, center: npt.ArrayLike) -> np.ndarray:
    """Whether a standard deviation or error ``spread`` is 0 next to ``center`` (elementwise)."""
    flat: np.ndarray = np.asarray(spread) <= ZERO_TOL * np.maximum(1.0, np.abs(center))
    return flat


def degenerate_t(center: npt.ArrayLike, alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """t, p and the "no difference" mask of t-tests whose standard error is 0.

    >>> [x.tolist() for x in degenerate_t(np.array([0.0, 0.2, -0.1]))]
    [[0.0, inf, -inf], [1.0, 0.0, 0.0], [True, False, False]]
    """
    center = np.asarray(center, dtype=np.float64)
    same = np.abs(center) <= ZERO_TOL
    t = np.where(same, 0.0, np.copysign(np.inf, center))
    if alternative == "two-sided":
        p = np.where(same, 1.0, 0.0)
    elif alternative == "greater":
        p = np.where(same | (center < 0), 1.0, 0.0)
    else:
        p = np.where(same | (center > 0), 1.0, 0.0)
    return t, p, same


def studentize(center: npt.ArrayLike, spread: npt.ArrayLike, n: npt.ArrayLike = 1) -> np.ndarray:
    """t = center/(spread/√n), with the one rule where the spread is 0 (t = 0 or ±∞).

    ``spread`` is a standard deviation of n values (or, with n = 1, a standard error).

    >>> studentize(np.array([0.2, 0.0, 0.1]), np.array([0.0, 0.0, 0.5]), 4).tolist()
    [inf, 0.0, 0.4]
    """
    center = np.asarray(center, dtype=np.float64)
    spread = np.asarray(spread, dtype=np.float64)
    flat = zero_spread(spread, center)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = center / (spread / np.sqrt(n))
    if np.any(flat):
        t = np.where(flat, degenerate_t(center)[0], t)
    return t
