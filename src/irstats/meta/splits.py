"""Topic splits shared by the meta-evaluation experiments (METHODS.md §5 common rules).

A :class:`TopicSplits` holds B pairs of topic sets (``first[b]``, ``second[b]``), as
indices into a tuple of topic ids sorted bytewise. It is drawn once and then shared by
every method and metric being compared, so that paired comparisons are paired.

* :func:`random_halvings` — B random halvings: ``perm = rng.permutation(t)``,
  H₁ = the first ⌊t/2⌋ topics of ``perm``, H₂ = the rest (for odd t, H₁ is the smaller
  half), with ``rng = numpy.random.Generator(PCG64(seed))``, default seed 0.
* :func:`random_subsets` — B pairs of disjoint size-n topic sets for several n (the
  φ-versus-topic-subset-size curve): the first 2n topics of one permutation, as the first n
  and the next n. The same B permutations serve every n.
* :func:`fixed_split` — one given split (e.g. Hard/Easy), B = 1.

Topic ids are sorted bytewise (UTF-8) before anything is drawn, so a fixed seed gives
bit-identical splits whatever order the topics came in.

>>> h = random_halvings([str(t) for t in range(401, 451)], n_splits=3, seed=0)
>>> len(h), h.first.shape, h.second.shape
(3, (3, 25), (3, 25))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np
from numpy.random import Generator

from irstats.checks import kind_of, names, resample_count, whole
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, some
from irstats.ids import bytewise_sorted
from irstats.random import Seed, check_seed, generator

#: Default number of random halvings of the split-half experiment (METHODS.md §5.1).
DEFAULT_SPLITHALF_SPLITS = 10_000
#: Default number of random halvings of the predictive-power experiment (§5.2).
DEFAULT_PREDICTIVE_SPLITS = 2_000


@dataclass(frozen=True, eq=False)
class TopicSplits:
    """B pairs of topic sets over ``topics`` (bytewise sorted ids).

    ``first`` and ``second`` are integer arrays of shape (B, n₁) and (B, n₂) holding
    indices into ``topics``; row b is split b. ``complementary`` is True when the two sets
    of every split partition all topics (halvings), which lets sums over the second set be
    taken as total minus first. ``kind`` names how the splits were made; ``seed`` the seed
    (None when not random).
    """

    topics: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    kind: str = "halving"
    seed: int | None = None
    complementary: bool = False
    labels: tuple[str, str] = ("H1", "H2")

    def __post_init__(self):
        first = np.atleast_2d(np.asarray(self.first))
        second = np.atleast_2d(np.asarray(self.second))
        if first.shape[0] != second.shape[0]:
            raise ArgumentError("first and second must hold the same number of splits", argument="second")
        t = len(self.topics)
        for part in (first, second):
            if part.size and (part.min() < 0 or part.max() >= t):
                raise ArgumentError(f"topic index out of range (0..{t - 1})", argument="first")
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "second", second)
        object.__setattr__(self, "topics", tuple(self.topics))

    def __len__(self) -> int:
        return int(self.first.shape[0])

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @property
    def sizes(self) -> tuple[int, int]:
        """(n₁, n₂): topics per set."""
        return int(self.first.shape[1]), int(self.second.shape[1])

    def masks(self, start: int = 0, stop: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Boolean membership masks of splits ``start:stop``, each of shape (b, t)."""
        stop = len(self) if stop is None else min(stop, len(self))
        b = max(stop - start, 0)
        m1 = np.zeros((b, self.n_topics), dtype=bool)
        m2 = np.zeros((b, self.n_topics), dtype=bool)
        rows = np.arange(b)[:, None]
        m1[rows, self.first[start:stop]] = True
        m2[rows, self.second[start:stop]] = True
        return m1, m2

    def topic_sets(self, b: int) -> tuple[list[str], list[str]]:
        """The topic ids of split b: (first set, second set), each in drawing order."""
        return ([self.topics[j] for j in self.first[b]], [self.topics[j] for j in self.second[b]])

    def subset(self, start: int, stop: int) -> "TopicSplits":
        """Splits ``start:stop`` (a view)."""
        return TopicSplits(self.topics, self.first[start:stop], self.second[start:stop], self.kind, self.seed,
                           self.complementary, self.labels)

    def align(self, topics: Sequence[str]) -> "TopicSplits":
        """The same splits over ``topics`` (the same set in another order): indices remapped.

        Raises :class:`~irstats.errors.InputError` when the topic sets differ.
        """
        topics = tuple(topics)
        if topics == self.topics:
            return self
        if set(topics) != set(self.topics) or len(topics) != len(self.topics):
            ours, theirs = set(self.topics), set(topics)
            missing, extra = sorted(ours - theirs), sorted(theirs - ours)
            raise InputError("the splits were drawn over other topics than the scores have"
                             + (f"; the scores lack {some(missing)}" if missing else "")
                             + (f"; the scores also have {some(extra)}" if extra else ""))
        where = {t: j for j, t in enumerate(topics)}
        remap = np.array([where[t] for t in self.topics], dtype=np.int64)
        return TopicSplits(topics, remap[self.first], remap[self.second], self.kind, self.seed,
                           self.complementary, self.labels)


def _index_dtype(t: int):
    return np.int16 if t < 2**15 else np.int32


def random_permutations(t: int, n: int, rng: Generator) -> np.ndarray:
    """n rows of ``rng.permutation(t)``, drawn one after another (the §5 rule).

    ``Generator.permuted`` along rows draws the same stream in one call (each row is
    shuffled in turn, exactly as ``permutation`` shuffles ``arange(t)``); it is used when
    the first rows agree with literal ``permutation`` calls on a copy of the generator,
    otherwise the literal loop runs.
    """
    out = np.empty((n, t), dtype=_index_dtype(t))
    state = rng.bit_generator.state
    rng.permuted(np.broadcast_to(np.arange(t, dtype=out.dtype), (n, t)), axis=1, out=out)
    check = Generator(type(rng.bit_generator)(0))
    check.bit_generator.state = state
    if all(np.array_equal(check.permutation(t), out[b]) for b in range(min(n, 3))):
        return out
    rng.bit_generator.state = state  # pragma: no cover - a numpy whose permuted draws differently
    for b in range(n):  # pragma: no cover
        out[b] = rng.permutation(t)
    return out  # pragma: no cover


def _topics_of(topics) -> tuple[str, ...]:
    if isinstance(topics, (int, np.integer)) and not isinstance(topics, (bool, np.bool_)):
        return tuple(str(j) for j in range(int(topics)))
    if hasattr(topics, "topics") and not isinstance(topics, (list, tuple)):
        topics = topics.topics  # a ScoreMatrix
    if topics is None or isinstance(topics, (str, bytes, float, bool, Mapping)) or not isinstance(topics, Iterable):
        raise ArgumentTypeError(f"topics must be topic ids, a ScoreMatrix or a whole number of topics; got "
                                f"{kind_of(topics)}", argument="topics")
    ids = bytewise_sorted(topics)
    if len(set(ids)) != len(ids):
        raise ArgumentError("topic ids must be unique", argument="topics")
    return ids


def random_halvings(topics, n_splits: int = DEFAULT_SPLITHALF_SPLITS,
                    seed: Seed = 0) -> TopicSplits:
    """B random halvings of the topics (METHODS.md §5 common rules).

    Parameters
    ----------
    topics:
        Topic ids (any order; they are sorted bytewise first), a
        :class:`~irstats.scores.ScoreMatrix` (its topics), or a number t (ids "0".."t−1").
    n_splits:
        B, the number of halvings.
    seed:
        Seed of ``Generator(PCG64(seed))`` (default 0), or a Generator.

    Returns
    -------
    TopicSplits
        ``first[b]`` = the first ⌊t/2⌋ entries of the b-th ``rng.permutation(t)`` (H₁),
        ``second[b]`` the rest (H₂).
    """
    check_seed(seed)
    ids = _topics_of(topics)
    t = len(ids)
    if t < 2:
        raise ArgumentError(f"a halving needs at least 2 topics, not {t}", argument="topics")
    n_splits = resample_count(n_splits, "n_splits", t)
    perms = random_permutations(t, n_splits, generator(seed))
    h = t // 2
    return TopicSplits(ids, perms[:, :h], perms[:, h:], "halving", _seed_of(seed), True, ("H1", "H2"))


def random_subsets(topics, sizes: Sequence[int], n_splits: int = DEFAULT_PREDICTIVE_SPLITS,
                   seed: Seed = 0) -> dict[int, TopicSplits]:
    """Pairs of disjoint size-n topic sets for each n in ``sizes`` (METHODS.md §5.2).

    B permutations are drawn as for :func:`random_halvings` and shared by every n: for
    size n, set 1 = the first n topics of a permutation and set 2 = the next n. Each n
    needs 2n ≤ t.
    """
    check_seed(seed)
    ids = _topics_of(topics)
    t = len(ids)
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Iterable):
        raise ArgumentTypeError(f"sizes must be a list of whole numbers; got {kind_of(sizes)}", argument="sizes")
    sizes = [whole(n, "sizes", minimum=1) for n in sizes]
    if not sizes:
        raise ArgumentError("sizes: give at least one subset size", argument="sizes")
    for n in sizes:
        if n < 1 or 2 * n > t:
            raise ArgumentError(f"subset size {n} does not fit: two disjoint sets of {n} topics need 2·{n} <= {t} "
                                "topics", argument="sizes")
    n_splits = resample_count(n_splits, "n_splits", t)
    perms = random_permutations(t, n_splits, generator(seed))
    return {n: TopicSplits(ids, perms[:, :n], perms[:, n:2 * n], "subsets", _seed_of(seed), 2 * n == t,
                           ("S1", "S2")) for n in sizes}


def fixed_split(topics, first: Sequence[str], second: Sequence[str] | None = None, kind: str = "fixed",
                labels: tuple[str, str] = ("first", "second")) -> TopicSplits:
    """One given split (B = 1) of the topics; ``second`` defaults to the other topics."""
    ids = _topics_of(topics)
    where = {t: j for j, t in enumerate(ids)}
    first = names(first, "first", what="topic ids")
    second = None if second is None else names(second, "second", what="topic ids")
    try:
        a = [where[str(t)] for t in first]
        if second is None:
            taken = set(a)
            b = [j for j in range(len(ids)) if j not in taken]
        else:
            b = [where[str(t)] for t in second]
    except KeyError as exc:
        raise InputError(f"topic {exc.args[0]!r} is not among the topics") from None
    if set(a) & set(b):
        raise InputError("the two sets of a split must be disjoint")
    complementary = len(a) + len(b) == len(ids)
    return TopicSplits(ids, np.array([a], dtype=np.int64), np.array([b], dtype=np.int64), kind, None,
                       complementary, labels)


def check_splits(splits, argument: str = "splits") -> TopicSplits:
    """``splits`` if it is a :class:`TopicSplits` (from :func:`random_halvings`, :func:`fixed_split` …)."""
    if not isinstance(splits, TopicSplits):
        raise ArgumentTypeError(f"{argument} must be TopicSplits (from random_halvings, random_subsets or "
                                f"fixed_split) or None; got {kind_of(splits)}", argument=argument)
    return splits


def _seed_of(seed) -> int | None:
    """The seed a split records: the whole number, None for a Generator (:func:`irstats.random.seed_label`)."""
    from irstats.random import seed_label

    label = seed_label(seed)
    return label if isinstance(label, int) else None  # the other label is "generator"


__all__ = ["DEFAULT_PREDICTIVE_SPLITS", "DEFAULT_SPLITHALF_SPLITS", "TopicSplits", "fixed_split", "random_halvings",
           "random_permutations", "random_subsets"]
