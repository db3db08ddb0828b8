"""Expected measures over every ordering of tied documents (``ties="expected"``; docs/ties.md).

McSherry & Najork, "Computing information retrieval performance measures efficiently in the
presence of tied scores" (ECIR 2008): when a run gives several documents the same score, every
ordering of them is equally plausible, and the fair value of a measure is its mean over all
those orderings. The judgments tensor then carries each position's tie group
(``tie_start``, ``tie_size``), and each family says how its expectation is computed
(``Family.ties``):

- pointwise families (a rank's term depends on that rank and its grade only): by linearity,
  the expected term at rank i is the mean of the terms the group's grades would give there;
- AP (the sum of precisions) and RR/Success: closed forms per rank, from the group's size n,
  its relevant documents r and the relevant documents c above the group;
- R-precision and bpref: closed forms of their kernels;
- set measures and counts: the retrieved set does not depend on the order;
- anything else: every distinct arrangement of the tied *grades* is evaluated and averaged
  (measures see grades only, so arrangements of equal grades need not be told apart),
  refused with an error past :data:`ENUMERATION_LIMIT` arrangements of one list.

Every answer is exact; there is no sampling.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import TYPE_CHECKING, Callable, Iterator

import numpy as np
import numpy.typing as npt

from irstats.errors import MeasureError

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.judgments import QrelsFacts
    from irstats.measures.registry import Family, Measure, Terms

#: A grade code of the tensor (an int of the grades array; a float when labels are real-valued).
Grade = int | float

#: Most arrangements of one ranked list's tied grades that the exact enumeration averages.
ENUMERATION_LIMIT = 20_000


def expected_value(family: Family, j: Judgments, m: Measure) -> np.ndarray:
    """``family``'s measure ``m`` averaged over every ordering of the tied documents: (S, T)."""
    method = family.tie_method(j, m)
    if method == "order_free":
        return family.evaluate_ordering(j, m)
    if method == "closed" and family.expected_kernel is not None:
        return family.expected_kernel(j, m)
    if family.terms is not None and method in ("pointwise", "closed"):
        depths = None if m.cutoff is None else np.array([m.cutoff], dtype=np.int64)
        return family.values(j, m, depths)[:, :, 0]
    if method != "enumerate":
        raise ValueError(f"family {family.name}: unknown tie method {method!r}")
    # A sum over ranks cut at k does not see groups that start at or after rank k.
    limit = m.cutoff if family.terms is not None and m.cutoff is not None else None
    return enumerated(j, m, lambda arranged: family.evaluate_ordering(arranged, m), limit)


def expected_terms(family: Family, j: Judgments, m: Measure) -> Terms | None:
    """The family's expected per-rank terms, as a ``terms(j, m, width)`` callable, or None when
    it has no per-rank form (then the arrangements are enumerated)."""
    method = family.tie_method(j, m)
    if method == "closed" and family.expected_terms is not None:
        return family.expected_terms
    if method == "pointwise":
        terms = family.terms
        assert terms is not None  # a pointwise tie method is declared with the terms it averages
        return lambda j_, m_, width: pointwise_terms(terms, j_, m_, width)
    return None


# ----------------------------------------------------------------------------- group facts

def _running(mask: np.ndarray) -> np.ndarray:
    """Counts of ``mask`` before each position 0..K: (S, T, K + 1), starting at 0."""
    out = np.zeros(mask.shape[:2] + (mask.shape[2] + 1,), dtype=np.int64)
    np.cumsum(mask, axis=2, dtype=np.int64, out=out[:, :, 1:])
    return out


def group_counts(j: Judgments, mask: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """For the first ``width`` positions: how many of ``mask`` lie in the position's tie group,
    and how many lie above (before) the group; (S, T, width) each."""
    assert j.tie_start is not None and j.tie_size is not None  # tie groups: only tied lists get here
    running = _running(mask)
    start = j.tie_start[:, :, :width]
    end = start + j.tie_size[:, :, :width]
    before = np.take_along_axis(running, start, axis=2)
    inside: np.ndarray = np.take_along_axis(running, end, axis=2) - before
    return inside, before


def expected_relevant(j: Judgments, level: int | float) -> np.ndarray:
    """P(the document at each position is relevant) = r/n of its tie group: (S, T, K)."""
    assert j.tie_start is not None and j.tie_size is not None  # tie groups: only tied lists get here
    inside, _ = group_counts(j, j.relevant(level), j.depth)
    chance: np.ndarray = inside / j.tie_size
    return chance


def pointwise_terms(terms: Terms, j: Judgments, m: Measure, width: int) -> np.ndarray:
    """E[term at rank i] = Σ_g (share of grade g in i's tie group) · term(i, g), for terms that
    depend only on the rank and its grade: each grade's terms come from a tensor holding that
    grade at every position of the lists."""
    from irstats.judgments import PADDING

    assert j.tie_start is not None and j.tie_size is not None  # tie groups: only tied lists get here
    out: np.ndarray = np.zeros(j.grades.shape[:2] + (min(width, j.depth),))
    width = out.shape[2]
    size = j.tie_size[:, :, :width]
    for grade in np.unique(j.grades[j.grades != PADDING]).tolist():
        inside, _ = group_counts(j, j.grades == grade, width)
        if not inside.any():
            continue
        uniform = j.memo(("every position graded", grade), lambda: _with_grades(
            j, np.where(j.grades == PADDING, PADDING, grade).astype(j.grades.dtype)))
        out += (inside / size) * np.asarray(terms(uniform, m, width), dtype=np.float64)
    return out


def _with_grades(j: Judgments, grades: np.ndarray, n_ret: np.ndarray | None = None, present: np.ndarray | None = None,
                 topics: tuple[str, ...] | None = None, qrels: QrelsFacts | None = None) -> Judgments:
    """A tensor like ``j`` (no tie groups) with other grades."""
    return j.variant(grades=grades, n_ret=j.n_ret if n_ret is None else n_ret,
                     present=j.present if present is None else present, topics=j.topics if topics is None else topics,
                     qrels=j.qrels if qrels is None else qrels, tie_start=None, tie_size=None)


# ----------------------------------------------------------------------------- closed forms

def _positions(j: Judgments, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(p, n): each position's 1-based place within its tie group and the group's size."""
    assert j.tie_start is not None and j.tie_size is not None  # tie groups: only tied lists get here
    start = j.tie_start[:, :, :width]
    return np.arange(width)[None, None, :] - start + 1, j.tie_size[:, :, :width]


def expected_precision_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """E[b_i·C(i)/i] (AP's terms). With c relevant above the group, r relevant among its n
    documents and i at place p in it: E[b_i·C(i)] = (r/n)(c + 1) + (p − 1)·r(r − 1)/(n(n − 1)),
    the chance i is relevant times itself, plus each earlier place's chance of being relevant
    together with i (McSherry & Najork 2008)."""
    from irstats.measures.common import level_of

    width = min(width, j.depth)
    r, c = group_counts(j, j.relevant(level_of(j, m)), width)
    p, n = _positions(j, width)
    pairs = np.where(n > 1, (p - 1) * r * (r - 1) / np.maximum(n * (n - 1), 1), 0.0)
    terms: np.ndarray = (r / n * (c + 1) + pairs) / j.ranks[:width]
    return terms


def first_relevant_chance(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """P(the first relevant document of the list is at rank i): 0 when a relevant document lies
    above i's group; else C(n − p, r − 1)/C(n, r), none of the p − 1 places before i and i
    itself relevant."""
    from scipy.special import gammaln

    from irstats.measures.common import level_of

    width = min(width, j.depth)
    r, c = group_counts(j, j.relevant(level_of(j, m)), width)
    p, n = _positions(j, width)
    possible = (c == 0) & (r > 0) & (n - p >= r - 1)

    def log_choose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = np.maximum(a, 0), np.clip(b, 0, np.maximum(a, 0))
        log_count: np.ndarray = gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)
        return log_count

    chance = np.exp(log_choose(n - p, r - 1) - log_choose(n, r))
    # no tie: the ordering's own answer, exactly
    exact = (r > 0) & (c == 0)
    return np.where(n == 1, exact.astype(np.float64), np.where(possible, chance, 0.0))


def expected_first_relevant_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """Success's expected terms: the chance the first relevant document is at each rank."""
    return first_relevant_chance(j, m, width)


def expected_reciprocal_rank_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """RR's expected terms: the chance the first relevant document is at rank i, over i."""
    chance = first_relevant_chance(j, m, width)
    over_rank: np.ndarray = chance / j.ranks[:chance.shape[2]]
    return over_rank


def expected_r_precision(j: Judgments, m: Measure) -> np.ndarray:
    """E[C(c)]/c at c = ⌊mult·R + 0.9⌋: C is a sum of relevance indicators, so its expectation
    sums each position's r/n."""
    from irstats.measures.common import level_of, safe_divide

    level = level_of(j, m)
    cut = np.floor(m["mult"] * j.num_relevant(level).astype(np.float64) + 0.9).astype(np.int64)
    if j.depth == 0:
        return np.zeros(j.n_ret.shape)
    cumulative = np.cumsum(expected_relevant(j, level), axis=2)
    idx = np.clip(np.minimum(cut, j.depth) - 1, 0, None)
    hits = np.take_along_axis(cumulative, np.broadcast_to(idx[None, :, None], j.n_ret.shape + (1,)), axis=2)[..., 0]
    return safe_divide(np.where(cut[None, :] > 0, hits, 0.0), cut[None, :])


def expected_bpref(j: Judgments, m: Measure) -> np.ndarray:
    """E[bpref]: a relevant document's credit is 1 − min(x, R)/min(N, R) with x the judged
    non-relevant documents above it; in a group with q of them and a above the group, its place
    among those q + 1 documents is uniform, so x is uniform on a..a + q and the credit's mean
    is 1 − (S(a + q) − S(a − 1))/((q + 1)·min(N, R)), S(M) = Σ_{x=0..M} min(x, R)."""
    from irstats.measures.common import level_of, safe_divide

    level = level_of(j, m)
    rel = j.relevant(level)
    q, a = group_counts(j, j.judged & ~rel, j.depth)
    big_r = j.num_relevant(level)[None, :, None].astype(np.float64)
    denominator = np.minimum(j.num_nonrelevant(level)[None, :, None], big_r)

    def partial(top: np.ndarray) -> np.ndarray:  # S(M) = Σ_{x=0..M} min(x, R), 0 for M < 0
        top = top.astype(np.float64)
        low = np.minimum(top, big_r)
        return np.where(top < 0, 0.0, low * (low + 1) / 2 + np.maximum(top - big_r, 0) * big_r)

    penalty = safe_divide(partial(a + q) - partial(a - 1), (q + 1) * denominator)
    total = np.cumsum(np.where(rel, 1.0 - penalty, 0.0), axis=2)[:, :, -1] if j.depth else np.zeros(j.n_ret.shape)
    return safe_divide(total, j.num_relevant(level)[None, :])


def group_sums(j: Judgments, values: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """For the first ``width`` positions: the sum of ``values`` over the position's tie group
    and over the positions above the group; (S, T, width) each, float."""
    assert j.tie_start is not None and j.tie_size is not None  # tie groups: only tied lists get here
    running = np.zeros(values.shape[:2] + (values.shape[2] + 1,))
    np.cumsum(values, axis=2, dtype=np.float64, out=running[:, :, 1:])
    start = j.tie_start[:, :, :width]
    before = np.take_along_axis(running, start, axis=2)
    inside: np.ndarray = np.take_along_axis(running, start + j.tie_size[:, :, :width], axis=2) - before
    return inside, before


def _log_comb(n: npt.ArrayLike, k: npt.ArrayLike) -> np.ndarray:
    """log C(n, k), −inf where k < 0 or k > n (so exp gives 0): the multivariate hypergeometric
    probabilities as products of binomials, with no special case for empty classes."""
    from scipy.special import gammaln

    total, chosen = np.asarray(n, dtype=np.float64), np.asarray(k, dtype=np.float64)
    valid = (chosen >= 0) & (chosen <= total)
    safe_k = np.where(valid, chosen, 0.0)
    return np.where(valid, gammaln(total + 1) - gammaln(safe_k + 1) - gammaln(total - safe_k + 1), -np.inf)


def _mean_subset_products(classes: list[tuple[float, int]], most: int) -> np.ndarray:
    """M_k for k = 0..most: the mean over the k-subsets of a multiset (``classes``: value and
    count) of the product of their values. One class against the rest: with j of the k drawn
    from the first class (hypergeometric), M_k = Σ_j P(j)·x^j·M'_{k−j} over the rest."""
    from scipy.stats import hypergeom

    ks = np.arange(most + 1)
    if not classes:
        only_empty: np.ndarray = (ks == 0).astype(np.float64)
        return only_empty
    (value, count), rest = classes[0], classes[1:]
    total = count + sum(c for _, c in rest)
    rest_means = _mean_subset_products(rest, most)
    drawn = np.arange(count + 1)
    chance = hypergeom.pmf(drawn[None, :], total, count, ks[:, None])  # (k, j)
    remaining = ks[:, None] - drawn[None, :]
    valid = (remaining >= 0) & (remaining <= total - count)
    rest_at = np.where(valid, rest_means[np.clip(remaining, 0, most)], 0.0)
    means: np.ndarray = np.sum(np.where(valid, chance * np.power(value, drawn)[None, :] * rest_at, 0.0), axis=1)
    return means


# ----------------------------------------------------------------------------- enumeration

def enumerated(j: Judgments, m: Measure, evaluate: Callable[[Judgments], npt.ArrayLike],
               limit: int | float | None) -> np.ndarray:
    """The mean of ``evaluate`` over every distinct arrangement of each list's tied grades.

    ``evaluate(tensor)`` gives (A, 1[, D]) for a one-topic tensor of A arranged lists; ``limit``:
    only tie groups starting above this rank are arranged (None: all). Refused with a
    MeasureError when one list has more than :data:`ENUMERATION_LIMIT` arrangements.
    """
    n_sys, n_top, _ = j.grades.shape
    for t in range(n_top):  # refused up front, before any list is arranged
        for s in range(n_sys):
            _arrangement_count(j, s, t, limit, m)
    out: np.ndarray | None = None
    for t in range(n_top):
        facts = _topic_facts(j, t)
        rows: list[np.ndarray] = []
        owners: list[np.ndarray] = []
        for s in range(n_sys):
            arranged = _arrangements(j, s, t, limit, m)
            rows.append(arranged)
            owners.append(np.full(len(arranged), s))
        grades = np.concatenate(rows)[:, None, :]
        owner = np.concatenate(owners)
        one_topic = _with_grades(j, grades, n_ret=j.n_ret[owner, t][:, None], present=j.present[owner, t][:, None],
                                 topics=(j.topics[t],), qrels=facts)
        values = np.asarray(evaluate(one_topic), dtype=np.float64)[:, 0]
        counts = np.bincount(owner, minlength=n_sys).astype(np.float64)
        sums = np.zeros((n_sys,) + values.shape[1:])
        np.add.at(sums, owner, values)
        mean = sums / counts.reshape((n_sys,) + (1,) * (values.ndim - 1))
        if out is None:
            out = np.zeros((n_sys, n_top) + values.shape[1:])
        out[:, t] = mean
    return out if out is not None else np.zeros((n_sys, n_top))


def _topic_facts(j: Judgments, t: int) -> QrelsFacts:
    """The qrels facts of topic ``t`` alone (a one-topic axis), for the arranged tensors."""
    from irstats.judgments import QrelsFacts

    def compute() -> QrelsFacts:
        keep = j.qrels.topic_index == t
        return QrelsFacts(np.zeros(int(keep.sum()), dtype=np.int64), j.qrels.rel[keep], 1, j.qrels.g_max, j.qrels.labels)

    facts: QrelsFacts = j.memo(("one topic's qrels", t), compute)
    return facts


def _tie_groups(j: Judgments, s: int, t: int, limit: int | float | None) -> list[tuple[int, list[Grade]]]:
    """List (s, t)'s tie groups whose grades differ, as (first rank, grades); ``limit``: only
    groups starting above this rank."""
    assert j.tie_start is not None and j.tie_size is not None  # tie groups: only tied lists get here
    base = j.grades[s, t]
    starts, sizes = j.tie_start[s, t], j.tie_size[s, t]
    groups = []
    for first in np.flatnonzero((sizes > 1) & (starts == np.arange(len(base)))).tolist():
        if limit is not None and first >= limit:
            break
        grades = base[first:first + sizes[first]].tolist()
        if len(set(grades)) > 1:
            groups.append((first, grades))
    return groups


def _arrangement_count(j: Judgments, s: int, t: int, limit: int | float | None, m: Measure) -> int:
    """How many distinct arrangements list (s, t) has; a MeasureError past ENUMERATION_LIMIT."""
    count = math.prod(_multinomial(g) for _, g in _tie_groups(j, s, t, limit))
    if count > ENUMERATION_LIMIT:
        raise MeasureError(f"{m}: ties='expected' would average {count} orderings of the tied documents of run "
                           f"{j.systems[s]!r}, topic {j.topics[t]!r} (more than {ENUMERATION_LIMIT}); "
                           f"{m.family} has no closed form over ties — use ties='docno' or 'file'")
    return count


def _arrangements(j: Judgments, s: int, t: int, limit: int | float | None, m: Measure) -> np.ndarray:
    """Every distinct arrangement of list (s, t)'s tied grades: (A, K), each row a list."""
    base = j.grades[s, t]
    groups = _tie_groups(j, s, t, limit)
    if not groups:
        alone: np.ndarray = base[None, :]
        return alone
    count = _arrangement_count(j, s, t, limit, m)
    out = np.repeat(base[None, :], count, axis=0)
    choices = [list(_distinct_permutations(g)) for _, g in groups]
    for row, combination in enumerate(itertools.product(*choices)):
        for (first, grades), arrangement in zip(groups, combination):
            out[row, first:first + len(grades)] = arrangement
    return out


def _multinomial(values: list[Grade]) -> int:
    """The number of distinct orderings of a multiset."""
    total = math.factorial(len(values))
    for k in Counter(values).values():
        total //= math.factorial(k)
    return total


def _distinct_permutations(values: list[Grade]) -> Iterator[tuple[Grade, ...]]:
    """Each distinct ordering of a multiset once (no repeats of equal values)."""
    counts = Counter(values)
    distinct = sorted(counts)
    n = len(values)
    current: list[Grade] = []

    def extend() -> Iterator[tuple[Grade, ...]]:
        if len(current) == n:
            yield tuple(current)
            return
        for value in distinct:
            if counts[value]:
                counts[value] -= 1
                current.append(value)
                yield from extend()
                current.pop()
                counts[value] += 1

    yield from extend()
