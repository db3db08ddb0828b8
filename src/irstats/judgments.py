"""The judgments tensor: the grade of the document at every rank of every run and topic.

``grades[s, t, r]`` is the qrels grade of the document that system ``s`` ranks at position
``r`` (0-based) for topic ``t``, ``UNJUDGED`` (−1) when the document has no qrels line (or a
negative grade, trec_eval's pool-unjudged), and ``PADDING`` (−2) past the end of the list.
Every measure kernel works on this one tensor plus per-topic facts from the qrels (R, N,
ideal gain vectors), vectorised over systems and topics (DESIGN.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

UNJUDGED = -1
PADDING = -2


@dataclass
class QrelsFacts:
    """Per-topic facts from the qrels, over the tensor's topic axis.

    ``topic_index`` and ``rel`` are the qrels lines (topic position, grade) of the topics
    on the axis; everything else is derived from them on demand.
    """

    topic_index: np.ndarray  # int64, one per qrels line
    rel: np.ndarray  # int64 grades, one per qrels line
    n_topics: int
    g_max: int  # the largest grade in the qrels file (collection-wide, METHODS.md §2.6)
    _cache: dict = field(default_factory=dict, repr=False)

    def num_relevant(self, level: int) -> np.ndarray:
        """R per topic: qrels documents with grade >= level."""
        key = ("R", level)
        if key not in self._cache:
            self._cache[key] = np.bincount(self.topic_index[self.rel >= level], minlength=self.n_topics)
        return self._cache[key]

    def num_nonrelevant(self, level: int) -> np.ndarray:
        """N per topic: judged documents with 0 <= grade < level."""
        key = ("N", level)
        if key not in self._cache:
            mask = (self.rel >= 0) & (self.rel < level)
            self._cache[key] = np.bincount(self.topic_index[mask], minlength=self.n_topics)
        return self._cache[key]

    def ideal_gains(self, gain_key, gain_fn) -> np.ndarray:
        """Gains of all qrels documents with positive gain, sorted descending per topic.

        Returns a (topics × longest) float array padded with zeros. ``gain_fn`` maps an
        array of grades to gains; ``gain_key`` identifies it in the cache.
        """
        key = ("ideal", gain_key)
        if key not in self._cache:
            gains = np.asarray(gain_fn(self.rel), dtype=np.float64)
            keep = gains > 0
            t, g = self.topic_index[keep], gains[keep]
            order = np.lexsort((-g, t))
            t, g = t[order], g[order]
            counts = np.bincount(t, minlength=self.n_topics)
            width = max(int(counts.max(initial=0)), 1)
            starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
            pos = np.arange(len(t)) - np.repeat(starts, counts)
            ideal = np.zeros((self.n_topics, width))
            ideal[t, pos] = g
            self._cache[key] = ideal
        return self._cache[key]


@dataclass
class Judgments:
    """Grades of the ranked documents of a run set, with the facts measures need.

    ``present[s, t]`` says whether topic ``t`` is evaluated for system ``s`` (it is in the
    run, or ``complete`` evaluation scores a missing topic as an empty run).
    """

    grades: np.ndarray  # (S, T, K) int8/int16
    n_ret: np.ndarray  # (S, T) int64: documents in the processed list
    present: np.ndarray  # (S, T) bool
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    qrels: QrelsFacts
    rel_level: int = 1
    trec_eval_compat: bool = False  # reproduce trec_eval's quirks (METHODS.md §1.8, §2.6)
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def depth(self) -> int:
        return self.grades.shape[2]

    @cached_property
    def ranks(self) -> np.ndarray:
        """1-based ranks 1..K as float64, broadcastable along the rank axis."""
        return np.arange(1, self.depth + 1, dtype=np.float64)

    @cached_property
    def judged(self) -> np.ndarray:
        """Mask of ranked documents that have a (non-negative) qrels grade."""
        return self.grades >= 0

    def relevant(self, level: int | None = None) -> np.ndarray:
        """Mask of ranked documents with grade >= level (the run's ℓ by default)."""
        level = self.rel_level if level is None else level
        key = ("rel", level)
        if key not in self._cache:
            # unjudged (-1) and padding (-2) are never relevant, even at level 0
            self._cache[key] = self.grades >= max(level, 0)
        return self._cache[key]

    def cum_relevant(self, level: int | None = None) -> np.ndarray:
        """C(i): relevant documents at ranks 1..i, along the rank axis (int32)."""
        level = self.rel_level if level is None else level
        key = ("C", level)
        if key not in self._cache:
            self._cache[key] = np.cumsum(self.relevant(level), axis=2, dtype=np.int32)
        return self._cache[key]

    def num_relevant(self, level: int | None = None) -> np.ndarray:
        """R per topic, shape (T,)."""
        return self.qrels.num_relevant(self.rel_level if level is None else level)

    def num_nonrelevant(self, level: int | None = None) -> np.ndarray:
        """N per topic, shape (T,)."""
        return self.qrels.num_nonrelevant(self.rel_level if level is None else level)

    def positive_grades(self) -> np.ndarray:
        """Grades with unjudged and padding set to 0 (int)."""
        if "pos" not in self._cache:
            self._cache["pos"] = np.maximum(self.grades, 0)
        return self._cache["pos"]

    def at_cutoff(self, cumulative: np.ndarray, k: int | None) -> np.ndarray:
        """The value of a cumulative array at rank k (the whole list when k is None)."""
        idx = self.depth if k is None else min(k, self.depth)
        if idx == 0:
            return np.zeros(cumulative.shape[:2], dtype=cumulative.dtype)
        return cumulative[:, :, idx - 1]

    def head(self, array: np.ndarray, k: int | None) -> np.ndarray:
        """The first k ranks of an (S, T, K) array (all of them when k is None)."""
        return array if k is None else array[:, :, :k]
