"""Rank correlations between system orderings, batched over many pairs (METHODS.md §5).

Every function takes two arrays of shape (..., s): the last axis holds one score per
system, the leading axes index pairs of orderings (e.g. one per random halving), and the
result has the leading shape. Correlations are computed on the scores directly, so tied
scores stay tied (τ-b).

Kendall's τ-b is computed in O(s log s + s²/64) per pair, vectorised over pairs: both
vectors are turned into dense ranks with one sort each, the items are put in (x, y) order
with one integer sort, and the discordant pairs are the inversions of y in that order,
counted with 64-bit prefix bitsets and popcounts. The tie counts and the final formula are
scipy's, so the result equals ``scipy.stats.kendalltau(x, y).statistic`` bit for bit.
"""

from __future__ import annotations

import warnings

import numpy as np

from irstats.checks import numbers, real
from irstats.errors import ArgumentError, IrstatsWarning

#: Rows per block in the τ-b kernel are chosen so a block's bitsets stay near this size.
_BLOCK_BYTES = 24_000_000
#: At most this many items (rows × s) go through the τ-b kernel at once.
_BLOCK_CELLS = 2_000_000

NAN_POLICIES = ("propagate", "omit")


def _check_policy(nan_policy: str) -> str:
    if not isinstance(nan_policy, str) or nan_policy not in NAN_POLICIES:
        raise ArgumentError(f"nan_policy must be one of {', '.join(NAN_POLICIES)}, not {nan_policy!r}",
                            argument="nan_policy")
    return nan_policy


def _new_group(sorted_values: np.ndarray, rtol: float) -> np.ndarray:
    """True where a sorted row starts a new tie group (NaN: each its own group).

    Consecutive sorted values tie when they differ by at most rtol·(the row's largest
    finite |value|); groups chain. With ``rtol`` = 0 only equal values tie.
    """
    n, s = sorted_values.shape
    new = np.ones((n, s), dtype=bool)
    if s < 2:
        return new
    with np.errstate(invalid="ignore"):
        gap = sorted_values[:, 1:] - sorted_values[:, :-1]  # ≥ 0; NaN for NaN or inf − inf
        if rtol > 0:
            tolerance = rtol * _finite_scale(sorted_values)
            np.greater(gap, tolerance[:, None], out=new[:, 1:])
        else:
            np.greater(gap, 0.0, out=new[:, 1:])
    if np.isnan(sorted_values[:, -1]).any():  # NaN sorts last: each one starts a group
        new[:, 1:] |= np.isnan(sorted_values[:, 1:])
    return new


def _finite_scale(sorted_values: np.ndarray) -> np.ndarray:
    """The largest finite |value| of each sorted row (0 when none)."""
    ends = np.maximum(np.abs(sorted_values[:, 0]), np.abs(sorted_values[:, -1]))
    bad = ~np.isfinite(ends)
    if bad.any():
        rows = sorted_values[bad]
        ends[bad] = np.where(np.isfinite(rows), np.abs(rows), 0.0).max(axis=1)
    return ends


def _tied_pairs(new: np.ndarray) -> np.ndarray:
    """Σ u(u−1)/2 over the tie groups of each row, given the new-group flags.

    Works on the sparse set of positions that continue a group, so it costs little when
    ties are few (the usual case) and no more than a pass over the array when they abound.
    """
    n, s = new.shape
    cont = np.flatnonzero(~new)  # rows never share a group: new[:, 0] is always True
    if cont.size == 0:
        return np.zeros(n, dtype=np.int64)
    k = np.arange(cont.size, dtype=np.int64)
    run_start = np.ones(cont.size, dtype=bool)
    run_start[1:] = np.diff(cont) != 1
    first = np.maximum.accumulate(np.where(run_start, k, 0))
    within = k - first + 1  # earlier members of the same group
    return np.bincount(cont // s, weights=within, minlength=n).astype(np.int64)


def _dense_ranks(v: np.ndarray, rtol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dense ranks (0-based, ties share a rank) of each row, its tied-pair count, and the
    flat indices of the row-wise sort order.

    NaN values sort last and each gets its own rank (they tie with nothing).
    """
    n, s = v.shape
    order = np.argsort(v, axis=1)
    flat = (order + (np.arange(n, dtype=np.int64) * s)[:, None]).ravel()
    sorted_v = v.ravel()[flat].reshape(n, s)
    new = _new_group(sorted_v, rtol)
    dense = np.cumsum(new, axis=1, dtype=np.int32) - 1
    ranks = np.empty(n * s, dtype=np.int32)
    ranks[flat] = dense.ravel()
    return ranks.reshape(n, s), _tied_pairs(new), flat  # NaNs start groups of their own


def _bit_tables(s: int) -> tuple[np.ndarray, np.ndarray]:
    """One-hot and 'strictly greater' bitsets of the values 0..s−1, shape (s, W)."""
    words = (s + 63) // 64
    u = np.arange(s)
    onehot = np.zeros((s, words), dtype=np.uint64)
    onehot[u, u // 64] = np.left_shift(np.uint64(1), (u % 64).astype(np.uint64))
    greater = np.zeros((s, words), dtype=np.uint64)
    if s > 1:
        greater[:-1] = np.bitwise_or.accumulate(onehot[::-1], axis=0)[::-1][1:]
    return onehot, greater


def _inversions(p: np.ndarray) -> np.ndarray:
    """#{i < j : p_i > p_j} for each row of p (rows are permutations of 0..s−1).

    Position by position, a bitset (64-bit words) of the values seen so far is ANDed with
    the bitset of values greater than the current one; popcounts give the counts.
    """
    n, s = p.shape
    if s < 2:
        return np.zeros(n, dtype=np.int64)
    onehot_table, greater_table = _bit_tables(s)
    words = onehot_table.shape[1]
    onehot = [np.ascontiguousarray(onehot_table[:, w]) for w in range(words)]
    greater = [np.ascontiguousarray(greater_table[:, w]) for w in range(words)]
    out = np.empty(n, dtype=np.int64)
    rows = max(1, _BLOCK_BYTES // (s * 8 * 3))
    for start in range(0, n, rows):
        pt = np.ascontiguousarray(p[start:start + rows].T, dtype=np.intp)  # (s, b): accumulate along axis 0
        before, at = pt[:-1], pt[1:]
        counts = np.zeros(pt.shape[1], dtype=np.int64)
        for w in range(words):  # one 64-bit word of the bitsets at a time
            seen = np.bitwise_or.accumulate(onehot[w].take(before), axis=0)  # values before position j
            seen &= greater[w].take(at)
            counts += np.bitwise_count(seen).sum(axis=0, dtype=np.int32)
        out[start:start + rows] = counts
    return out


def _sort_with_positions(keys: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """Sort each row of non-negative integer ``keys`` (< bound), ties by position (stable).

    Key and position are packed into one integer, so a plain (SIMD) sort replaces an
    argsort. Returns the sorted keys and the positions they came from.
    """
    n, s = keys.shape
    bits = max(1, (s - 1).bit_length())
    total = max(1, int(bound - 1).bit_length()) + bits
    dtype = np.int16 if total <= 15 else np.int32 if total <= 31 else np.int64
    if total > 63:
        order = np.argsort(keys, axis=1, kind="stable")
        return np.take_along_axis(keys, order, axis=1), order
    packed = (keys.astype(dtype) << dtype(bits)) | np.arange(s, dtype=dtype)
    packed.sort(axis=1)
    return packed >> dtype(bits), packed & dtype((1 << bits) - 1)


def _tau_b_rows(x: np.ndarray, y: np.ndarray, omit: bool, rtol: float) -> np.ndarray:
    """τ-b of each row pair of the 2-D arrays x, y (same shape)."""
    n, s = x.shape
    out = np.full(n, np.nan)
    if n == 0 or s < 2:
        return out
    if np.isnan(np.add.reduce(x, axis=None)) or np.isnan(np.add.reduce(y, axis=None)):
        valid = ~(np.isnan(x) | np.isnan(y))
        if omit:
            x = np.where(valid, x, np.nan)
            y = np.where(valid, y, np.nan)
        m = valid.sum(axis=1, dtype=np.int64)
    else:  # no NaN (a NaN makes the total NaN): every item counts
        valid = None
        m = np.full(n, s, dtype=np.int64)
    rx, xtie, x_order = _dense_ranks(x, rtol)
    ry, ytie, _ = _dense_ranks(y, rtol)
    dis = np.zeros(n, dtype=np.int64)
    ntie = np.zeros(n, dtype=np.int64)
    # Rows without ties (and without missing items): the discordant pairs are the inversions
    # of y's ranks taken in x order.
    free = (xtie == 0) & (ytie == 0)
    if valid is not None:
        free &= valid.all(axis=1)
    if free.any():
        in_x_order = ry.ravel()[x_order].reshape(n, s)
        dis[free] = _inversions(in_x_order if free.all() else in_x_order[free])
    tied = ~free
    if tied.any():
        rows = slice(None) if tied.all() else tied
        rx, ry = rx[rows], ry[rows]
        if omit and valid is not None:
            # Missing items get the same unique top rank in x and y: concordant with everything,
            # tied with nothing, so they change no count that the formula below uses.
            top = np.broadcast_to(np.arange(s, 2 * s, dtype=np.int32), rx.shape)
            rx = np.where(valid[rows], rx, top)
            ry = np.where(valid[rows], ry, top)
        base = 2 * s  # ranks are < 2s (missing items included)
        key_seq, _ = _sort_with_positions(rx.astype(np.int64) * base + ry, base * base)  # (x, y) order
        joint_new = np.ones(key_seq.shape, dtype=bool)
        joint_new[:, 1:] = key_seq[:, 1:] != key_seq[:, :-1]
        ntie[rows] = _tied_pairs(joint_new)
        # Order by (y, position in (x, y) order): the inversions of this permutation are the
        # pairs earlier in (x, y) order but strictly greater in y, i.e. the discordant pairs.
        _, p = _sort_with_positions(key_seq % base, base)
        dis[rows] = _inversions(p)
    tot = m * (m - 1) // 2
    con_minus_dis = tot - xtie - ytie + ntie - 2 * dis
    defined = (m >= 2) & (xtie != tot) & (ytie != tot)
    if not omit and valid is not None:
        defined &= valid.all(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    tau = np.minimum(1.0, np.maximum(-1.0, tau))
    out[defined] = tau[defined]
    return out


def kendall_tau_b(x, y, *, nan_policy: str = "propagate", tie_rtol: float = 0.0) -> np.ndarray:
    """Kendall's τ-b between x and y along the last axis, ties handled as scipy does.

    τ_b = (n_c − n_d)/√((n₀ − n₁)(n₀ − n₂)); NaN when either vector is entirely tied or
    has fewer than two items. Equal to ``scipy.stats.kendalltau(x, y).statistic`` for each
    pair (bit for bit).

    Parameters
    ----------
    x, y:
        Arrays broadcastable to a common shape (..., s).
    nan_policy:
        ``"propagate"``: a pair with a NaN gives NaN. ``"omit"``: items that are NaN in
        x or y are left out of that pair (as scipy's ``nan_policy="omit"``).
    tie_rtol:
        Treat values as tied when neighbours in sorted order differ by at most
        ``tie_rtol`` times the largest finite |value| of the vector (ties chain). 0 (the
        default): only equal values tie. A tiny value such as 1e-12 keeps aggregates tied
        that are equal up to rounding (e.g. means of P@10 summed in different orders); see
        :func:`snap_ties`.

    >>> float(kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]))
    0.6666666666666669
    """
    _check_policy(nan_policy)
    real(tie_rtol, "tie_rtol", low=0.0)
    x, y = _vectors(x, y)
    lead, s = x.shape[:-1], x.shape[-1]
    if s == 0:
        return np.full(lead, np.nan)
    x2, y2 = x.reshape(-1, s), y.reshape(-1, s)
    n = x2.shape[0]
    rows = max(1, _BLOCK_CELLS // max(s, 1))  # bounded memory; rows are independent
    if n <= rows:
        return _tau_b_rows(x2, y2, nan_policy == "omit", float(tie_rtol)).reshape(lead)
    tau = np.empty(n)
    for start in range(0, n, rows):
        tau[start:start + rows] = _tau_b_rows(x2[start:start + rows], y2[start:start + rows],
                                              nan_policy == "omit", float(tie_rtol))
    return tau.reshape(lead)


def snap_ties(x, rtol: float) -> np.ndarray:
    """Values made exactly tied where :func:`kendall_tau_b` with ``tie_rtol=rtol`` ties them.

    Along the last axis, each value is replaced by the smallest value of its tie group
    (neighbours in sorted order at most rtol·(largest finite |value|) apart, chained). NaN
    stays NaN.
    ``kendall_tau_b(x, y, tie_rtol=r)`` equals ``kendall_tau_b(snap_ties(x, r), snap_ties(y, r))``.
    """
    x = numbers(x, "x")
    real(rtol, "rtol", low=0.0)
    if x.ndim == 0 or x.size == 0:
        return x.copy()
    lead, s = x.shape[:-1], x.shape[-1]
    v = x.reshape(-1, s)
    n = v.shape[0]
    order = np.argsort(v, axis=1)
    flat = (order + (np.arange(n, dtype=np.int64) * s)[:, None]).ravel()
    sorted_v = v.ravel()[flat].reshape(n, s)
    new = _new_group(sorted_v, float(rtol))
    pos = np.arange(s)
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=1)
    snapped = np.take_along_axis(sorted_v, start, axis=1)
    out = np.empty(n * s)
    out[flat] = snapped.ravel()
    return out.reshape(lead + (s,))


def pearson(x, y, *, nan_policy: str = "propagate") -> np.ndarray:
    """Pearson's r along the last axis; NaN when either vector has zero variance.

    ``nan_policy="omit"`` leaves out the items that are NaN in x or y (pairwise).
    """
    _check_policy(nan_policy)
    x, y = _vectors(x, y)
    if nan_policy == "omit":
        valid = ~(np.isnan(x) | np.isnan(y))
        m = valid.sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            mx = np.where(valid, x, 0.0).sum(axis=-1, keepdims=True) / m
            my = np.where(valid, y, 0.0).sum(axis=-1, keepdims=True) / m
        xc = np.where(valid, x - mx, 0.0)
        yc = np.where(valid, y - my, 0.0)
    else:
        xc = x - x.mean(axis=-1, keepdims=True)
        yc = y - y.mean(axis=-1, keepdims=True)
    sxx, syy = (xc * xc).sum(axis=-1), (yc * yc).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=-1) / np.sqrt(sxx * syy)
    r = np.clip(r, -1.0, 1.0)
    return np.where((sxx > 0) & (syy > 0), r, np.nan)


def _vectors(x, y) -> tuple[np.ndarray, np.ndarray]:
    """x and y as float arrays of one shape (broadcast), with the items along the last axis."""
    x, y = numbers(x, "x"), numbers(y, "y")
    try:
        x, y = np.broadcast_arrays(x, y)
    except ValueError:
        raise ArgumentError(f"x and y must have the same shape (items along the last axis), got {x.shape} and "
                            f"{y.shape}", argument="y") from None
    if x.ndim == 0:
        raise ArgumentError("x and y must be vectors of scores (items along the last axis), not single numbers",
                            argument="x")
    return x, y


class TieWarning(IrstatsWarning):
    """τ_AP met tied scores and broke the ties by system position (METHODS.md §5)."""


def tau_ap(x, y, symmetric: bool = True, warn_ties: bool = True) -> np.ndarray:
    """Yilmaz, Aslam & Robertson's AP correlation τ_AP of ordering y against ordering x.

    Items are ordered by x descending (ties by position, i.e. system index: callers sort
    systems bytewise by id first, METHODS.md §5). For i = 2..s, c_i counts the items above
    position i in x that y also ranks above item i; τ_AP = 2/(s−1) Σ c_i/(i−1) − 1. With
    ``symmetric`` (the default, METHODS.md [CHOICE]) the mean of both directions. A
    :class:`TieWarning` says when ties were broken (``warn_ties=False`` silences it).
    """
    x, y = _vectors(x, y)
    if x.shape[-1] == 0:
        return np.full(x.shape[:-1], np.nan)
    if warn_ties and x.shape[-1] > 1:
        xs, ys = np.sort(x, axis=-1), np.sort(y, axis=-1)
        if (xs[..., 1:] == xs[..., :-1]).any() or (ys[..., 1:] == ys[..., :-1]).any():
            warnings.warn(TieWarning("τ_AP: tied scores were ordered by system position (bytewise system id)"),
                          stacklevel=2)
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


__all__ = ["NAN_POLICIES", "TieWarning", "kendall_tau_b", "pearson", "snap_ties", "tau_ap"]
