"""Aggregates of every system over the topic sets of many splits at once (METHODS.md §3, §5).

The experiments of §5 aggregate each system's scores over thousands of topic subsets.
:class:`SplitAggregator` does that for a whole batch of subsets, given as a boolean mask
of shape (b, t), without a loop over subsets, systems or topics:

* Methods that are a function of a sum over the subset (AM, GM, εGM, GM_trec_eval, HM,
  εHM, AL, the logit mean) transform the scores once (e.g. log1p(x/ε)), then take the
  sums over all subsets with one matrix product ``mask @ terms``. The terms are split into
  integer limbs (relative to a power of two per system; two of 46 bits for 50 topics, at
  least 78 bits in all) so small that every sum over up to t of them is exact
  integer arithmetic in float64: the result does not depend on the order of summation,
  the batch size, the BLAS or the number of threads, and systems whose subsets hold the
  same multiset of scores get bit-identical aggregates (they stay tied).
* The median ranks each system's scores once; a subset becomes a bitset over those ranks
  (again by an exact matrix product, 24 bits per float32 word), and the middle element(s)
  are found by popcount-based selection over its bytes.

Undefined aggregates are NaN with a reason code (see :data:`REASON_CODES`), as
:func:`irstats.aggregate.aggregate` would give for the same subset; the values agree with
it up to floating-point rounding of the sums (a few ulps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from irstats.aggregate import DEFAULT_EPSILON, resolve_method
from irstats.errors import InputError

#: Reason codes of undefined aggregates (0 = defined), in the words of :data:`irstats.aggregate.REASONS`.
REASON_CODES: dict[int, str] = {1: "nan_input", 2: "empty", 3: "nonpositive", 4: "hm_zero", 5: "logit_domain"}
_CODE = {name: code for code, name in REASON_CODES.items()}

#: Bits kept below each system's largest |term| (at least): sums are exact on this grid.
_PRECISION_BITS = 78


def _limb_layout(t: int) -> tuple[int, int]:
    """(bits per limb, limbs) for t topics: a sum of t limbs stays below 2^53 (exact in float64)."""
    bits = 52 - max(1, int(t).bit_length())
    return bits, -(-_PRECISION_BITS // bits)


#: Bits per word of the median's rank bitsets: sums of distinct powers of two below 2^24 are
#: exact in float32. Each word is read as three bytes, which index the selection tables.
_WORD_BITS = 24
_BYTE = 8


@dataclass
class _Plan:
    terms: list[np.ndarray]  # per-topic terms (s, t) whose subset sums are needed
    bad: list[tuple[str, np.ndarray]]  # (reason, (s, t) bool): any in the subset → NaN
    zero: np.ndarray | None  # (s, t) bool: any in the subset → the value is 0 (GM)
    finish: Callable[[list[np.ndarray], np.ndarray], np.ndarray]  # (sums, n) → values


def _limbs(term: np.ndarray, bits: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer limbs (count, s, t) and per-row scale 2^e (s,): term ≈ scale·Σ_k limb_k·2^(−bits(k+1)).

    Each limb is an integer with |limb| ≤ 2^bits, and bits + log2(t) ≤ 52, so the sum over
    any subset of the t topics is exact in float64 whatever the order. The representation
    keeps bits·count ≥ 78 bits below each row's largest |term|: exact for every term within
    a factor 2^25 of it, and within 2^−78 of the largest term otherwise.
    """
    big = np.max(np.abs(term), axis=1) if term.shape[1] else np.zeros(term.shape[0])
    _, exponent = np.frexp(np.where(big > 0, big, 1.0))
    scale = np.ldexp(1.0, exponent)  # power of two ≥ every |term| of the row
    u = term / scale[:, None]  # exact: division by a power of two
    limbs = np.empty((count,) + term.shape)
    for k in range(count):
        u = np.ldexp(u, bits)
        limbs[k] = np.rint(u)
        u = u - limbs[k]  # exact: the rounded integer part is removed
    return limbs, scale


def _from_limbs(sums: np.ndarray, scale: np.ndarray, bits: int) -> np.ndarray:
    """Σ_k sums[k]·2^(−bits(k+1))·scale, smallest limb first (deterministic rounding)."""
    count = sums.shape[0]
    total = sums[count - 1] * 2.0 ** (-bits * count)
    for k in range(count - 2, -1, -1):
        total = total + sums[k] * 2.0 ** (-bits * (k + 1))
    return total * scale


class SplitAggregator:
    """Aggregate one score matrix over many topic subsets with one method of §3.

    Parameters
    ----------
    values:
        Scores, systems × topics (NaN: not evaluated).
    method, epsilon:
        As for :func:`irstats.aggregate.aggregate` (``am``, ``gm``, ``egm``, ``gm_trec_eval``,
        ``hm``, ``ehm``, ``median``, ``al``, ``logit``; ε defaults per method).
    skipna:
        Aggregate each system over the subset's topics it has scores for; otherwise a NaN
        score in the subset makes the aggregate NaN (reason ``nan_input``).

    >>> agg = SplitAggregator(np.array([[0.1, 0.2, 0.3, 0.4]]), "am")
    >>> agg(np.array([[True, True, False, False]]))[0].round(6).tolist()
    [[0.15]]
    """

    def __init__(self, values: np.ndarray, method: str, epsilon: float | None = None, skipna: bool = False):
        self.method = resolve_method(method)
        default = DEFAULT_EPSILON[self.method]
        self.epsilon = None if default is None else float(default if epsilon is None else epsilon)
        if self.epsilon is not None and not (self.epsilon >= 0 and np.isfinite(self.epsilon)):
            raise InputError(f"epsilon must be a finite number >= 0, not {epsilon!r}")
        x = np.asarray(values, dtype=np.float64)
        if x.ndim != 2:
            raise InputError(f"expected a systems × topics matrix, got shape {x.shape}")
        self.shape = x.shape
        self.skipna = bool(skipna)
        nan = np.isnan(x)
        self._valid = ~nan
        self._has_nan = bool(nan.any())
        s, t = x.shape
        self._layout = _limb_layout(t)
        # Blocks of per-topic columns whose subset sums are taken in one product:
        # [limbs of each term] [valid] [nan] [bad flags] [zero].
        blocks: list[np.ndarray] = []
        self._scales: list[np.ndarray] = []
        if self.method == "median":
            self._plan = None
            self._median_setup(x)
        else:
            self._plan = _PLANS[self.method](np.where(nan, 0.0, x), self._valid, self.epsilon)
            for term in self._plan.terms:
                term = np.where(self._valid, term, 0.0)
                bad = ~np.isfinite(term)
                if bad.any():
                    self._plan.bad.append(("nonpositive", bad))
                    term = np.where(bad, 0.0, term)
                limbs, scale = _limbs(term, *self._layout)
                blocks.extend(limbs)
                self._scales.append(scale)
        self._n_limb_blocks = len(blocks)
        flags: list[tuple[str, np.ndarray]] = []
        if self._has_nan:
            flags.append(("valid", self._valid))
            if not self.skipna:
                flags.append(("nan_input", nan))
        if self._plan is not None:
            for reason, bad in self._plan.bad:
                flags.append((reason, bad & self._valid))
            if self._plan.zero is not None:
                flags.append(("zero", self._plan.zero & self._valid))
        flags = [(name, f) for name, f in flags if name == "valid" or f.any()]  # all-zero flags are moot
        self._flag_names = [name for name, _ in flags]
        counts = [f.astype(np.float32) for _, f in flags]
        if self.method == "median":
            counts.extend(self._median_blocks)
        # Rows (block, system) × topics; a product with the masks gives every subset sum at once.
        # Limbs need float64; counts and bitset words (integers < 2^24) are exact in float32.
        self._limb_rows = np.concatenate(blocks, axis=0) if blocks else None
        self._count_rows = np.concatenate(counts, axis=0).astype(np.float32) if counts else None
        if t >= 2**16:
            raise InputError(f"too many topics ({t}) for the split aggregator (at most 65535)")
        self._limb_totals = None if self._limb_rows is None else self._limb_rows.sum(axis=1)
        self._count_totals = None if self._count_rows is None else self._count_rows.sum(axis=1, dtype=np.float64
                                                                                         ).astype(np.float32)

    @property
    def blocks(self) -> int:
        """Row blocks (of s rows each) in the products: a measure of the work and memory per split."""
        rows = sum(0 if r is None else r.shape[0] for r in (self._limb_rows, self._count_rows))
        return rows // max(self.shape[0], 1)

    # -- median setup: per-system ranks, subsets as bitsets over ranks -------------------------------

    def _median_setup(self, x: np.ndarray) -> None:
        s, t = x.shape
        order = np.argsort(x, axis=1, kind="stable")  # NaN last
        self._sorted = np.take_along_axis(x, order, axis=1)
        rank = np.empty((s, t), dtype=np.int64)
        np.put_along_axis(rank, order, np.broadcast_to(np.arange(t), (s, t)), axis=1)
        n_words = max(1, -(-t // _WORD_BITS))
        word_of, bit = rank // _WORD_BITS, rank % _WORD_BITS
        # Word w of a subset's bitset over sorted positions = Σ over its topics whose rank is in
        # word w of 2^(rank − 24w): one exact float32 product gives it for every subset.
        self._n_bytes = max(1, -(-t // _BYTE))
        self._median_blocks = [np.where((word_of == w) & self._valid, np.ldexp(1.0, bit), 0.0).astype(np.float32)
                               for w in range(n_words)]

    # -- evaluation ----------------------------------------------------------------------------------

    def sums(self, mask: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Exact subset sums for a mask of shape (b, t): (limb sums, count sums), each (blocks, s, b)."""
        mask = np.asarray(mask, dtype=bool)
        s, b = self.shape[0], mask.shape[0]
        limbs = counts = None
        if self._limb_rows is not None:
            limbs = (self._limb_rows @ mask.T.astype(np.float64)).reshape(-1, s, b)
        if self._count_rows is not None:
            counts = (self._count_rows @ mask.T.astype(np.float32)).reshape(-1, s, b)
        return limbs, counts

    def complement_sums(self, sums):
        """Sums over the complement of the subsets whose sums are given (exact)."""
        limbs, counts = sums
        s = self.shape[0]
        return (None if limbs is None else self._limb_totals.reshape(-1, s, 1) - limbs,
                None if counts is None else self._count_totals.reshape(-1, s, 1) - counts)

    def __call__(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Aggregates over the subsets in ``mask`` (b, t): values (b, s) and reason codes (b, s)."""
        mask = np.asarray(mask, dtype=bool)
        return self.finish(self.sums(mask), mask.sum(axis=1))

    def pair(self, first: np.ndarray, second: np.ndarray, complementary: bool = False):
        """Aggregates over both sets of each split: (values₁, codes₁, values₂, codes₂), each (b, s)."""
        first = np.asarray(first, dtype=bool)
        s1 = self.sums(first)
        if complementary:
            s2 = self.complement_sums(s1)
            n2 = self.shape[1] - first.sum(axis=1)
        else:
            second = np.asarray(second, dtype=bool)
            s2, n2 = self.sums(second), second.sum(axis=1)
        v1, c1 = self.finish(s1, first.sum(axis=1))
        v2, c2 = self.finish(s2, n2)
        return v1, c1, v2, c2

    def finish(self, sums, set_sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Aggregates (b, s) and reason codes (b, s) from :meth:`sums` and the subset sizes (b,)."""
        limbs, counts = sums
        s, b = self.shape[0], len(set_sizes)
        flag = {name: counts[k] for k, name in enumerate(self._flag_names)}
        if "valid" in flag:
            n = flag["valid"].astype(np.float64)
        else:
            n = np.repeat(np.asarray(set_sizes, dtype=np.float64)[None, :], s, axis=0)  # C order
        codes = np.zeros((s, b), dtype=np.int8)
        if "nan_input" in flag:
            codes[flag["nan_input"] > 0] = _CODE["nan_input"]
        codes[(codes == 0) & (n == 0)] = _CODE["empty"]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if self.method == "median":
                values = self._median_finish(counts[len(self._flag_names):], n)
            else:
                assert self._plan is not None  # made for every method but the median
                bits, count = self._layout
                term_sums = [_from_limbs(limbs[k * count:(k + 1) * count], scale[:, None], bits)
                             for k, scale in enumerate(self._scales)]
                values = self._plan.finish(term_sums, np.maximum(n, 1))
                for reason, _ in self._plan.bad:
                    if reason in flag:
                        codes[(codes == 0) & (flag[reason] > 0)] = _CODE[reason]
                if "zero" in flag:
                    values = np.where(flag["zero"] > 0, 0.0, values)
        if codes.any():
            values = np.where(codes == 0, values, np.nan)
        return np.ascontiguousarray(values.T), np.ascontiguousarray(codes.T)

    def _median_finish(self, words: np.ndarray, n: np.ndarray) -> np.ndarray:
        words = words.astype(np.uint32)  # (words, s, b): exact integers < 2^24
        count = n.astype(np.int16)
        s, t = self.shape
        flat = self._sorted.ravel()
        rows = (np.arange(s) * t)[:, None]
        low_k = np.maximum(count - 1, 0) // 2
        odd = count % 2 == 1
        nb = self._n_bytes
        bytes_ = np.empty((nb,) + words.shape[1:], dtype=np.uint8)
        for q in range(nb):
            w, r = divmod(q, _WORD_BITS // _BYTE)
            np.bitwise_and(words[w] >> np.uint32(_BYTE * r), np.uint32(0xFF), out=bytes_[q], casting="unsafe")
        prefix = np.empty(bytes_.shape, dtype=np.int16)  # members in bytes 0..q
        np.copyto(prefix[0], np.bitwise_count(bytes_[0]), casting="unsafe")
        for q in range(1, nb):
            np.add(prefix[q - 1], np.bitwise_count(bytes_[q]), out=prefix[q], casting="unsafe")
        a = flat[np.minimum(self._select(bytes_, prefix, low_k), t - 1) + rows]
        if odd.all():
            return a
        b = flat[np.minimum(self._select(bytes_, prefix, count // 2), t - 1) + rows]
        return np.where(odd, a, (a + b) / 2)

    @staticmethod
    def _select(bytes_: np.ndarray, prefix: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Sorted position of the k-th (0-based) member of each subset bitset: (s, b)."""
        nb = bytes_.shape[0]
        chunk = (prefix <= k[None]).sum(axis=0, dtype=np.int16)  # the byte holding member k
        chunk = np.minimum(chunk, nb - 1)
        cells = k.size
        index = chunk.astype(np.intp).ravel() * cells + np.arange(cells)
        byte = bytes_.ravel()[index].reshape(k.shape)
        before = prefix.ravel()[index].reshape(k.shape) - np.bitwise_count(byte)
        within = np.clip(k - before, 0, _BYTE - 1)
        return chunk.astype(np.intp) * _BYTE + _SELECT8.ravel()[byte.astype(np.intp) * _BYTE + within]


def _selection_table() -> np.ndarray:
    """Position of the k-th set bit of each byte (k = 0..7; 7 if none): shape (256, 8)."""
    values = np.arange(256)
    bits = (values[:, None] >> np.arange(8)) & 1
    select = np.full((256, 8), 7, dtype=np.int64)
    for v in range(256):
        where = np.flatnonzero(bits[v])
        select[v, :where.size] = where
    return select


_SELECT8 = _selection_table()


# --- plans: per-topic terms and how to finish the aggregate from their subset sums ---------------


def _plan_am(x, valid, eps):
    return _Plan([x], [], None, lambda sums, n: sums[0] / n)


def _plan_gm(x, valid, eps):
    positive = x > 0
    return _Plan([np.log(np.where(positive, x, 1.0))], [("nonpositive", x < 0)], x == 0,
                 lambda sums, n: np.exp(sums[0] / n))


def _plan_egm(x, valid, eps):
    y = x + eps
    bad = ~(y > 0)
    if eps > 0:
        term = np.log1p(np.where(bad, 0.0, x / eps))
        return _Plan([term], [("nonpositive", bad)], None, lambda sums, n: eps * np.expm1(sums[0] / n))
    term = np.log(np.where(bad, 1.0, y))
    return _Plan([term], [("nonpositive", bad)], None, lambda sums, n: np.exp(sums[0] / n))


def _plan_gm_trec_eval(x, valid, eps):
    floored = np.maximum(x, eps)
    zero = floored == 0  # only with a floor of 0: log 0 = −inf, the mean is exp(−inf) = 0
    return _Plan([np.log(np.where(zero, 1.0, floored))], [], zero, lambda sums, n: np.exp(sums[0] / n))


def _plan_hm(x, valid, eps):
    positive = x > 0
    return _Plan([1.0 / np.where(positive, x, 1.0)], [("nonpositive", x < 0), ("hm_zero", x == 0)], None,
                 lambda sums, n: n / sums[0])


def _plan_ehm(x, valid, eps):
    y = x + eps
    bad = ~(y > 0)
    w = np.where(bad, 0.0, 1.0 / np.where(bad, 1.0, y))
    return _Plan([w, w * x], [("nonpositive", bad)], None, lambda sums, n: sums[1] / sums[0])


def _plan_al(x, valid, eps):
    y = x + eps
    bad = ~(y > 0)
    return _Plan([np.log(np.where(bad, 1.0, y))], [("nonpositive", bad)], None, lambda sums, n: sums[0] / n)


def _plan_logit(x, valid, eps):
    outside = (x < 0) | (x > 1)
    if eps == 0:
        outside |= (x == 0) | (x == 1)
    ok = ~outside
    term = np.where(ok, np.log(np.where(ok, x + eps, 1.0)) - np.log(np.where(ok, 1 - x + eps, 1.0)), 0.0)
    return _Plan([term], [("logit_domain", outside)], None, lambda sums, n: sums[0] / n)


_PLANS = {"am": _plan_am, "gm": _plan_gm, "egm": _plan_egm, "gm_trec_eval": _plan_gm_trec_eval, "hm": _plan_hm,
          "ehm": _plan_ehm, "al": _plan_al, "logit": _plan_logit}


__all__ = ["REASON_CODES", "SplitAggregator"]
