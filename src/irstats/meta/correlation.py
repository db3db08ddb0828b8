"""Rank correlations between system orderings, batched over many pairs (METHODS.md §5).

Every function takes two arrays of shape (..., s): the last axis holds one score per
system, the leading axes index pairs of orderings (e.g. one per random halving), and the
result has the leading shape. Correlations are computed on the scores directly, so tied
scores stay tied (τ-b).
"""

from __future__ import annotations

import numpy as np

#: Pairs per block in the s × s comparisons: bounds memory at about 64 MB per call.
_BLOCK_ELEMENTS = 16_000_000


def kendall_tau_b(x, y) -> np.ndarray:
    """Kendall's τ-b between x and y along the last axis, ties handled as scipy does.

    τ_b = (n_c − n_d)/√((n₀ − n₁)(n₀ − n₂)); NaN when either vector is entirely tied.
    Equal to ``scipy.stats.kendalltau(x, y).statistic`` for each pair.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    lead, s = x.shape[:-1], x.shape[-1]
    x2, y2 = x.reshape(-1, s), y.reshape(-1, s)
    out = np.empty(x2.shape[0])
    n0 = s * (s - 1) / 2.0
    block = max(1, _BLOCK_ELEMENTS // max(s * s, 1))
    upper = np.triu(np.ones((s, s), dtype=bool), k=1)
    for start in range(0, x2.shape[0], block):
        xb, yb = x2[start:start + block], y2[start:start + block]
        # Sign of every pairwise difference, upper triangle only (each pair once).
        dx = np.sign(xb[:, :, None] - xb[:, None, :]) * upper
        dy = np.sign(yb[:, :, None] - yb[:, None, :]) * upper
        numerator = np.einsum("bij,bij->b", dx, dy)
        tied_x = n0 - np.abs(dx).sum(axis=(1, 2))
        tied_y = n0 - np.abs(dy).sum(axis=(1, 2))
        denominator = np.sqrt((n0 - tied_x) * (n0 - tied_y))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + block] = np.where(denominator > 0, numerator / np.where(denominator > 0,
                                                                                        denominator, 1), np.nan)
    return out.reshape(lead)


def pearson(x, y) -> np.ndarray:
    """Pearson's r along the last axis; NaN when either vector has zero variance."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    sxx, syy = (xc * xc).sum(axis=-1), (yc * yc).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=-1) / np.sqrt(sxx * syy)
    return np.where((sxx > 0) & (syy > 0), r, np.nan)


def tau_ap(x, y, symmetric: bool = True) -> np.ndarray:
    """Yilmaz, Aslam & Robertson's AP correlation τ_AP of ordering y against ordering x.

    Items are ordered by x descending (ties by position, i.e. system index: callers sort
    systems bytewise by id first, METHODS.md §5). For i = 2..s, c_i counts the items above
    position i in x that y also ranks above item i; τ_AP = 2/(s−1) Σ c_i/(i−1) − 1. With
    ``symmetric`` (the default, METHODS.md [CHOICE]) the mean of both directions.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    one_way = _tau_ap_one_way(x, y)
    return (one_way + _tau_ap_one_way(y, x)) / 2.0 if symmetric else one_way


def _tau_ap_one_way(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    lead, s = x.shape[:-1], x.shape[-1]
    x2, y2 = x.reshape(-1, s), y.reshape(-1, s)
    # Stable sort on −x keeps tied items in index order.
    order = np.argsort(-x2, axis=1, kind="stable")
    rank_y = _strict_ranks(y2, np.argsort(-y2, axis=1, kind="stable"))
    ry = np.take_along_axis(rank_y, order, axis=1)  # y's rank of the item at each x position
    # c_i = #{j < i : ry[j] < ry[i]} (y places item j above item i).
    above = ry[:, None, :] < ry[:, :, None]  # [b, i, j]: item j above item i in y
    earlier = np.tril(np.ones((s, s), dtype=bool), k=-1)
    counts = (above & earlier).sum(axis=2)[:, 1:]
    weights = 1.0 / np.arange(1, s)
    result = 2.0 / (s - 1) * (counts * weights).sum(axis=1) - 1.0
    return result.reshape(lead)


def _strict_ranks(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Rank (0 = top) of each item when items are taken in ``order``."""
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(values.shape[1])[None, :].repeat(values.shape[0], 0), axis=1)
    return ranks
