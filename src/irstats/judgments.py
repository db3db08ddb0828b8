"""The judgments tensor: the grade of the document at every rank of every run and topic.

``grades[s, t, r]`` is the qrels grade of the document that system ``s`` ranks at position
``r`` (0-based) for topic ``t``, ``UNJUDGED`` (−1) when the document has no qrels line,
``POOL_UNJUDGED`` (−3) when its qrels grade is negative (trec_eval: in the pool but not
judged, as sampled qrels for infAP mark it), and ``PADDING`` (−2) past the end of the list.
Both kinds of unjudged document count as unjudged everywhere; only infAP and trec_eval's
relstring tell them apart.
Every measure kernel works on this one tensor plus per-topic facts from the qrels (R, N,
ideal gain vectors), vectorised over systems and topics (DESIGN.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from irstats.collection import Collection, EvalOptions, RunSet
from irstats.errors import InputError, some, warn

if TYPE_CHECKING:
    import polars as pl

    from irstats.preference_judgments import Preferences
    from irstats.subtopics import Subtopics

UNJUDGED = -1
PADDING = -2
POOL_UNJUDGED = -3


@dataclass
class QrelsFacts:
    """Per-topic facts from the qrels, over the tensor's topic axis.

    ``topic_index`` and ``rel`` are the qrels lines (topic position, grade) of the topics
    on the axis; everything else is derived from them on demand.
    """

    topic_index: np.ndarray  # int64, one per qrels line
    rel: np.ndarray  # int64 grade codes, one per qrels line
    n_topics: int
    g_max: int | float  # the largest grade in the qrels file (collection-wide, METHODS.md §2.6)
    # real-valued labels: the label of each code >= 0 (Collection.labels); None: codes are grades
    labels: np.ndarray | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    def level_code(self, level: int | float) -> int:
        """The code from which a document is relevant at level ℓ (label >= ℓ)."""
        if self.labels is None:
            return level if isinstance(level, (int, np.integer)) else int(np.ceil(level))
        return int(np.searchsorted(self.labels, level, side="left")) if level > 0 else min(int(np.ceil(level)), 0)

    def values(self, codes: np.ndarray) -> np.ndarray:
        """The grades (labels) of grade codes; negative codes (unjudged, padding) stay as they
        are. Whole-number grades: ``codes`` itself."""
        if self.labels is None:
            return codes
        codes = np.asarray(codes)
        return np.where(codes >= 0, self.labels[np.clip(codes, 0, len(self.labels) - 1)], codes.astype(np.float64))

    @property
    def gain_top(self) -> int | float:
        """g_max as the denominator of graded gains (METHODS.md §2.6–2.7): 1 when no grade is
        positive (every gain is 0 then). Warns once when the top grade dwarfs every other."""
        if "top checked" not in self._cache:
            self._cache["top checked"] = True
            _warn_outlying_top(self.g_max, self.values(self.rel))
        return self.g_max if self.g_max > 0 else 1

    def num_relevant(self, level: int | float) -> np.ndarray:
        """R per topic: qrels documents with grade >= level."""
        key = ("R", level)
        if key not in self._cache:
            mask = self.rel >= self.level_code(level)
            self._cache[key] = np.bincount(self.topic_index[mask], minlength=self.n_topics)
        return self._cache[key]

    def num_nonrelevant(self, level: int | float) -> np.ndarray:
        """N per topic: judged documents with 0 <= grade < level."""
        key = ("N", level)
        if key not in self._cache:
            mask = (self.rel >= 0) & (self.rel < self.level_code(level))
            self._cache[key] = np.bincount(self.topic_index[mask], minlength=self.n_topics)
        return self._cache[key]

    def ideal_gains(self, gain_key, gain_fn, trec_eval_order: bool = False) -> np.ndarray:
        """Gains of all qrels documents with positive gain, sorted descending per topic.

        Returns a (topics × longest) float array padded with zeros. ``gain_fn`` maps an
        array of grades to gains; ``gain_key`` identifies it in the cache. With
        ``trec_eval_order`` and a gain map, the grade levels come in trec_eval's order
        instead (:func:`trec_eval_ideal_gains`).
        """
        if trec_eval_order and gain_key not in ("lin", "exp") and self.labels is None:
            key = ("trec_eval ideal", gain_key)
            if key not in self._cache:
                self._cache[key] = trec_eval_ideal_gains(self.topic_index, self.rel, self.n_topics, gain_key)
            return self._cache[key]
        key = ("ideal", gain_key)
        if key not in self._cache:
            gains = np.asarray(gain_fn(self.values(self.rel)), dtype=np.float64)
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


def trec_eval_ideal_gains(topic_index: np.ndarray, rel: np.ndarray, n_topics: int, gain_map: str) -> np.ndarray:
    """The ideal gain sequence as trec_eval 10 walks it for a gain map (``"1:3;2:9"``).

    setup_gains (gain_init.c) lists the mapped levels in the map's order, then every other
    level 0..max grade of the topic with gain = level, and sorts them with qsort and a
    comparator that returns ``(int)(gain_a − gain_b)``: gains less than 1 apart compare
    equal, so fractional gains need not come out in order. The ideal ranking then walks
    that list from the top, each level as many times as the topic has documents at it,
    passing over levels without documents, and stops at the first gain ≤ 0 it lands on
    (or at once when the top level's gain is ≤ 0). For whole-number gains this is every
    positive gain in descending order, as :meth:`QrelsFacts.ideal_gains` makes it.
    """
    mapped = [(int(float(level)), float(gain)) for level, gain in (item.split(":") for item in gain_map.split(";"))]
    sequences = []
    judged = rel >= 0
    order = np.argsort(topic_index[judged], kind="stable")
    by_topic = np.split(rel[judged][order], np.cumsum(np.bincount(topic_index[judged], minlength=n_topics))[:-1])
    for t in range(n_topics):
        grades = by_topic[t]
        counts = np.bincount(grades) if len(grades) else np.zeros(0, dtype=np.int64)
        levels = mapped + [(level, float(level)) for level in range(len(counts))
                           if level not in {m for m, _ in mapped}]
        ordered = _glibc_merge_sort(levels, lambda a, b: int(a[1] - b[1]))
        at_level = [int(counts[level]) if 0 <= level < len(counts) else 0 for level, _ in ordered]
        # m_ndcg.c's walk, step for step: from the top level, move down past every level
        # whose documents are used up (levels without documents too), stop on a gain ≤ 0
        sequence: list[float] = []
        current = len(ordered) - 1
        gain = ordered[current][1] if current >= 0 else 0.0
        taken = 0
        while gain > 0:
            taken += 1
            while current >= 0 and taken > at_level[current]:
                taken, current = 1, current - 1
                gain = ordered[current][1] if current >= 0 else 0.0
            if gain > 0:
                sequence.append(gain)
        sequences.append(sequence)
    ideal = np.zeros((n_topics, max([len(q) for q in sequences] + [1])))
    for t, sequence in enumerate(sequences):
        ideal[t, :len(sequence)] = sequence
    return ideal


def _glibc_merge_sort(items: list, compare) -> list:
    """glibc's qsort (msort.c, Debian 12's glibc 2.36): top-down merge sort, first half
    ⌊n/2⌋, taking from the left run while compare(left, right) ≤ 0. Reproduces the order
    a comparator that is not a total order (trec_eval's truncated gain difference) gives."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _glibc_merge_sort(items[:half], compare), _glibc_merge_sort(items[half:], compare)
    out = []
    while left and right:
        out.append(left.pop(0) if compare(left[0], right[0]) <= 0 else right.pop(0))
    return out + left + right


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
    rel_level: int | float = 1
    trec_eval_compat: bool = False  # reproduce trec_eval's quirks (METHODS.md §1.8, §2.6)
    # ties="expected": for every position, the 0-based position where its group of tied
    # documents starts and the group's size (S, T, K); None evaluates the one ordering held.
    tie_start: np.ndarray | None = None
    tie_size: np.ndarray | None = None
    # subtopic judgments of the ranked documents (irstats.subtopics.Subtopics), when the
    # evaluation has subtopic qrels: the diversity measures read them; None otherwise
    subtopics: Subtopics | None = None
    # the runs' ranking of the judged documents for the preference measures
    # (irstats.preference_judgments.Preferences), when the evaluation has preference judgments
    preferences: Preferences | None = None
    # what was ranked away: documents outside the qrels (-J), and the cut-off depth (-M)
    judged_only: bool = False
    max_depth: int | None = None
    # derived arrays, kept per tensor; never carried to a variant (not an init field)
    _cache: dict = field(default_factory=dict, repr=False, init=False)

    @classmethod
    def of(cls, grades: np.ndarray, n_ret: np.ndarray, present: np.ndarray, systems, topics, qrels: QrelsFacts,
           options: EvalOptions, tie_start: np.ndarray | None = None,
           tie_size: np.ndarray | None = None) -> "Judgments":
        """The one constructor: a tensor ranked and judged under ``options`` (its relevance
        level and trec_eval compatibility). A tensor derived from another (other rows, other
        grades, no tie groups) is :meth:`variant`."""
        return cls(grades, n_ret, present, tuple(systems), tuple(topics), qrels, options.rel_level,
                   options.trec_eval_compat, tie_start, tie_size, judged_only=options.judged_only,
                   max_depth=options.depth)

    def variant(self, **changes) -> "Judgments":
        """This tensor with some fields changed (``dataclasses.replace``); what was kept for it
        is not carried over."""
        import dataclasses

        return dataclasses.replace(self, **changes)

    @cached_property
    def tied(self) -> bool:
        """Whether measures are expectations over the orderings of tied documents (some group
        holds two or more documents)."""
        return self.tie_size is not None and bool((self.tie_size > 1).any())

    @property
    def depth(self) -> int:
        return self.grades.shape[2]

    def empty_lists(self) -> np.ndarray:
        """(S, T) bool: the evaluated lists with no document. Under trec_eval_compat, as trec_eval
        sees them: it ranks one made-up unjudged document for a topic -c adds (irstats holds an
        empty list there), which only -J or -M 0 takes away again — so without those, every
        list trec_eval evaluates holds a document."""
        empty = self.present & (self.n_ret == 0)
        if self.trec_eval_compat and not (self.judged_only or self.max_depth == 0):
            return np.zeros_like(empty)
        return empty

    def memo(self, key, compute, *, replace: bool = False):
        """What ``compute()`` gives, kept for this tensor under ``key`` (measures share work:
        masks, running sums). ``compute`` None only looks: None when nothing is kept."""
        if replace or key not in self._cache:
            if compute is None:
                return None
            self._cache[key] = compute()
        return self._cache[key]

    @cached_property
    def ranks(self) -> np.ndarray:
        """1-based ranks 1..K as float64, broadcastable along the rank axis."""
        return np.arange(1, self.depth + 1, dtype=np.float64)

    @cached_property
    def judged(self) -> np.ndarray:
        """Mask of ranked documents that have a (non-negative) qrels grade."""
        return self.grades >= 0

    @cached_property
    def unjudged(self) -> np.ndarray:
        """Mask of ranked documents without a qrels grade (padding past the list is not one)."""
        return (self.grades == UNJUDGED) | (self.grades == POOL_UNJUDGED)

    @cached_property
    def pool_unjudged(self) -> np.ndarray:
        """Mask of ranked documents whose qrels grade is negative (in the pool, not judged)."""
        return self.grades == POOL_UNJUDGED

    def relevant(self, level: int | float | None = None) -> np.ndarray:
        """Mask of ranked documents with grade >= level (the run's ℓ by default)."""
        level = self.rel_level if level is None else level
        key = ("rel", level)
        if key not in self._cache:
            # unjudged (-1) and padding (-2) are never relevant, even at level 0
            self._cache[key] = self.grades >= max(self.qrels.level_code(level), 0)
        return self._cache[key]

    def cum_relevant(self, level: int | float | None = None) -> np.ndarray:
        """C(i): relevant documents at ranks 1..i, along the rank axis (int32)."""
        level = self.rel_level if level is None else level
        key = ("C", level)
        if key not in self._cache:
            self._cache[key] = np.cumsum(self.relevant(level), axis=2, dtype=np.int32)
        return self._cache[key]

    def num_relevant(self, level: int | float | None = None) -> np.ndarray:
        """R per topic, shape (T,)."""
        return self.qrels.num_relevant(self.rel_level if level is None else level)

    def num_nonrelevant(self, level: int | float | None = None) -> np.ndarray:
        """N per topic, shape (T,)."""
        return self.qrels.num_nonrelevant(self.rel_level if level is None else level)

    def positive_grades(self) -> np.ndarray:
        """Grades with unjudged and padding set to 0 (int; the real labels, float, when the
        qrels hold real-valued labels)."""
        if "pos" not in self._cache:
            self._cache["pos"] = self.qrels.values(np.maximum(self.grades, 0))
        return self._cache["pos"]

    def values(self, codes: np.ndarray) -> np.ndarray:
        """The grades of grade codes (the tensor's entries): see :meth:`QrelsFacts.values`."""
        return self.qrels.values(codes)

    def at_cutoff(self, cumulative: np.ndarray, k: int | None) -> np.ndarray:
        """The value of a cumulative array at rank k (the whole list when k is None)."""
        idx = self.depth if k is None else min(k, self.depth)
        if idx == 0:
            return np.zeros(cumulative.shape[:2], dtype=cumulative.dtype)
        return cumulative[:, :, idx - 1]

    def head(self, array: np.ndarray, k: int | None) -> np.ndarray:
        """The first k ranks of an (S, T, K) array (all of them when k is None)."""
        return array if k is None else array[:, :, :k]


# ----------------------------------------------------------------------------- building

# Odd 64-bit constants that spread small integers over the hash space.
_TOPIC_MIX = 0x9E3779B97F4A7C15
_SYSTEM_MIX = 0xC2B2AE3D27D4EB4F


def _doc_key(tidx: pl.Expr) -> pl.Expr:
    """A 64-bit key for (topic, docno): joins and duplicate checks on integers, not strings."""
    import polars as pl

    return pl.col("docno").hash(seed=20081) ^ (tidx.cast(pl.UInt64) * _TOPIC_MIX)


def build_judgments(collection: Collection, runset: RunSet, options: EvalOptions,
                    systems: list[int] | None = None, stacked: pl.DataFrame | None = None,
                    outside: dict[str, int] | None = None) -> Judgments:
    """The judgments tensor of a run set (or of the runs ``systems``) against a collection.

    Implements METHODS.md §1.4–1.8: ordering, depth, duplicate handling, condensation and
    which topics count. The tensor's system axis follows ``systems`` (default: all runs).
    The runs are stacked in one frame and joined with the qrels once; ordering is a
    permutation applied to numpy arrays, so the string columns are never shuffled.
    ``stacked`` is that frame when the caller has read it already (:func:`stack_runs`);
    ``outside``, as there.
    """
    for value, kind, argument in ((collection, Collection, "collection"), (runset, RunSet, "runset"),
                                  (options, EvalOptions, "options")):
        if not isinstance(value, kind):
            from irstats.checks import kind_of
            from irstats.errors import ArgumentTypeError

            raise ArgumentTypeError(f"{argument} must be a {kind.__name__}; got {kind_of(value)}", argument=argument)
    systems = list(range(len(runset.parts))) if systems is None else list(systems)
    topics = collection.topics
    n_sys, n_top = len(systems), len(topics)
    index = qrels_index(collection, options)
    if stacked is None:
        stacked = stack_runs(runset, systems, collection.topic_keys, options, outside)
    frame = _join_grades(stacked, index)
    del stacked

    sys_idx = frame.get_column("sys").to_numpy()
    top_idx = frame.get_column("tidx").to_numpy().astype(np.int64)
    perm = _ranking_permutation(frame, sys_idx, top_idx, options.order, options.ties)
    if perm is not None:
        sys_idx, top_idx = sys_idx[perm], top_idx[perm]
    rows = np.arange(frame.height) if perm is None else perm  # frame row of each ranked position
    position = _positions(sys_idx, top_idx)

    present = np.zeros((n_sys, n_top), dtype=bool)
    present[sys_idx[position == 0], top_idx[position == 0]] = True

    if options.on_duplicate == "first":
        first = _first_occurrences(frame, rows)
        if not first.all():
            warn(f"{int((~first).sum())} repeated documents in runs dropped (on_duplicate='first')")
            rows, sys_idx, top_idx = rows[first], sys_idx[first], top_idx[first]
            position = _positions(sys_idx, top_idx)
    expected = options.ties == "expected" and options.order != "file"
    if expected and options.depth is not None:
        _refuse_straddling_ties(frame, rows, position, options, runset, systems, topics, sys_idx, top_idx)
    if options.depth is not None:
        keep = position < options.depth
        if not keep.all():
            rows, sys_idx, top_idx, position = rows[keep], sys_idx[keep], top_idx[keep], position[keep]
    if options.on_duplicate == "error":
        _check_duplicates(frame, rows, runset, systems, topics)

    rel = frame.get_column("rel").to_numpy()  # float, NaN for unjudged
    grade = np.nan_to_num(rel[rows], nan=UNJUDGED).astype(np.int64)
    if options.negative_rel == "unjudged":
        # a negative grade is a qrels line (in the pool) left unjudged: its own code
        grade[(grade < 0) & ~np.isnan(rel[rows])] = POOL_UNJUDGED
    else:
        judged = ~np.isnan(rel[rows])
        grade = np.where(judged, np.maximum(grade, 0), UNJUDGED)
    tie_keys = _tie_keys(frame, options) if expected else None
    del frame, rel
    if options.judged_only:
        judged = grade >= 0
        sys_idx, top_idx, grade, rows = sys_idx[judged], top_idx[judged], grade[judged], rows[judged]
        position = _positions(sys_idx, top_idx)

    dtype = grade_dtype(collection.max_code)
    width = int(position.max()) + 1 if len(position) else 1
    grades = np.full((n_sys, n_top, width), PADDING, dtype=dtype)
    grades[sys_idx, top_idx, position] = grade
    n_ret = np.bincount(sys_idx.astype(np.int64) * n_top + top_idx, minlength=n_sys * n_top).reshape(n_sys, n_top)

    tie_start = tie_size = None
    if tie_keys is not None:  # expected
        tie_start, tie_size = _tie_groups(tie_keys[rows], sys_idx, top_idx, position,
                                          grades.shape)
    if options.complete:
        present[:] = True
    names = tuple(runset.names[i] for i in systems)
    return Judgments.of(grades, n_ret, present, names, topics, index.facts, options, tie_start, tie_size)


def _tie_keys(frame: pl.DataFrame, options: EvalOptions) -> np.ndarray:
    """What makes two documents tied: equal score (score order) or equal rank (rank order)."""
    return frame.get_column("score" if options.order == "score" else "rank").to_numpy()


def _tie_groups(keys: np.ndarray, sys_idx: np.ndarray, top_idx: np.ndarray, position: np.ndarray,
                shape: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Each position's tie group as (start position, size), (S, T, K) each; padding is alone.

    ``keys`` are the ranked rows' tie keys, in ranking order (rows of a block consecutive)."""
    n = len(keys)
    start = np.broadcast_to(np.arange(shape[2], dtype=np.int64), shape).copy()
    size = np.ones(shape, dtype=np.int64)
    if n == 0:
        return start, size
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = (keys[1:] != keys[:-1]) | (sys_idx[1:] != sys_idx[:-1]) | (top_idx[1:] != top_idx[:-1])
    group = np.cumsum(new_group) - 1
    first = position[new_group]
    counts = np.bincount(group)
    start[sys_idx, top_idx, position] = first[group]
    size[sys_idx, top_idx, position] = counts[group]
    return start, size


def _refuse_straddling_ties(frame: pl.DataFrame, rows: np.ndarray, position: np.ndarray, options: EvalOptions,
                            runset: RunSet, systems: list[int], topics: tuple[str, ...], sys_idx: np.ndarray,
                            top_idx: np.ndarray) -> None:
    """ties="expected" with a depth M: a tie group crossing rank M would make the evaluated set
    itself depend on the ordering; refused rather than approximated."""
    at_cut = np.flatnonzero((position == options.depth) & (position > 0))
    if len(at_cut) == 0:
        return
    keys = _tie_keys(frame, options)
    crossing = at_cut[keys[rows[at_cut]] == keys[rows[at_cut - 1]]]
    if len(crossing):
        i = crossing[0]
        raise InputError(f"ties='expected': run {runset.names[systems[sys_idx[i]]]!r}, topic "
                         f"{topics[top_idx[i]]!r} has tied documents on both sides of the depth cut-off "
                         f"{options.depth}; use depth=None (-M none) or a depth between tie groups",
                         path=runset.parts[systems[sys_idx[i]]].source)


#: A top grade this many times the next one is taken for a slip (2^31, 1e308 among grades 0–3).
OUTLYING_TOP = 1000


def _warn_outlying_top(top, grades: np.ndarray) -> None:
    """ERR and graded RBP divide gains by the collection's top grade, so one absurd grade (a
    typo, an overflowed export) silently turns every topic's value to ~0: say so, with the
    value, rather than print those numbers without a word."""
    below = grades[(grades > 0) & (grades < top)]
    if len(below) == 0 or top < OUTLYING_TOP * below.max():
        return
    top, second = (v.item() if hasattr(v, "item") else v for v in (top, below.max()))
    warn(f"the qrels' top grade {top!r} is over {OUTLYING_TOP} times the next largest ({second!r}): ERR and "
         f"graded RBP scale gains by the top grade, so every other document counts as ~0; check that grade, or "
         f"give g_max= to scale by another top grade")


def grade_dtype(g_max: int) -> np.dtype:
    """The smallest integer type that holds every grade up to ``g_max`` exactly (never a wrap)."""
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        if g_max <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    raise InputError(f"relevance grade {g_max} is too large (at most {np.iinfo(np.int64).max})")


def stack_runs(runset: RunSet, systems: list[int], topics: tuple[str, ...], options: EvalOptions,
               outside: dict[str, int] | None = None) -> pl.DataFrame:
    """Stack the runs ``systems`` in one parallel scan: ``sys, tidx, key, docno, score, rank, line``.

    ``sys`` numbers the runs 0.. in the order of ``systems``. Rows whose topic is not in the
    qrels are dropped (with a warning, or counted per run into ``outside`` for the caller to
    warn once about all batches); a run with no topic in common with the qrels is an error
    naming its file.
    """
    import polars as pl

    enum = pl.Enum(topics)
    need_rank = options.order == "rank"
    lazies = []
    for i, part in enumerate(runset.parts[k] for k in systems):
        rows = part.lazy()  # first: a file found irregular past its first bytes becomes careful here
        tidx = pl.col("topic").cast(enum, strict=False).to_physical()
        score = pl.col("score")
        if options.score_dtype == "float32":
            # trec_eval <= 9 and pytrec_eval store scores as C floats: round through float32.
            score = score.cast(pl.Float32).cast(pl.Float64)
        lazies.append(rows.select(
            pl.lit(i, dtype=pl.UInt32).alias("sys"), tidx.alias("tidx"), _doc_key(tidx).alias("key"), "topic", "docno",
            score.alias("score"),
            "rank", "line", "tag", (pl.col("tag") != part.tag).alias("other_tag"),
            # read, then dropped: a projection without it would not catch a line with extra fields
            pl.col("q0").is_null().alias("no_q0") if not part.careful else pl.lit(False).alias("no_q0"),
            pl.lit(part.careful).alias("careful"),
        ))
    try:
        frame = pl.concat(lazies).collect()
    except pl.exceptions.PolarsError:
        frame = None
    if frame is None:
        irregular = [i for i, lazy in enumerate(lazies)
                     if not runset.parts[systems[i]].careful and not _collects(lazy)]
    else:
        irregular = _irregular_runs(frame)
    if irregular:
        # Comments, blank runs of separators or bad values: the careful reader handles the
        # lines it can and names the first line it cannot.
        for i in irregular:
            runset.reread_carefully(systems[i])
        return stack_runs(runset, systems, topics, options, outside)
    assert frame is not None  # runs that do not concatenate include an irregular one
    bad_score = frame.get_column("score").is_nan()
    bad_rank = frame.get_column("rank").cast(pl.Int64, strict=False).is_null() if need_rank else None
    for bad in (bad_score, bad_rank):
        if bad is not None and (bad & frame.get_column("docno").is_not_null()).any():
            runset.diagnose(systems[int(frame.filter(bad).get_column("sys")[0])], need_rank)
    # trec_eval -c scores a run that answers none of the judged topics (every topic as failed);
    # elsewhere that is taken for a mistake (the wrong qrels)
    _check_topics_and_tags(frame, runset, systems, outside,
                           disjoint_ok=options.complete and options.trec_eval_compat)
    frame = frame.select("sys", "tidx", "key", "docno", "score",
                         pl.col("rank").cast(pl.Int64, strict=False) if need_rank else pl.lit(0).alias("rank"), "line")
    if frame.get_column("tidx").null_count():  # blank lines and topics outside the qrels
        frame = frame.filter(pl.col("tidx").is_not_null())
    return frame


def _collects(lazy: pl.LazyFrame) -> bool:
    import polars as pl

    try:
        lazy.collect()
    except pl.exceptions.PolarsError:
        return False
    return True


def _irregular_runs(frame: pl.DataFrame) -> list[int]:
    """Fast-scanned runs with rows the scanner could not take as they are."""
    import polars as pl

    # Cheap screen first: null counts are stored with the columns, and a comment line can only
    # hide among rows whose topic is not a qrels topic.
    nulls = sum(frame.get_column(c).null_count() for c in ("topic", "docno", "rank", "score", "tag"))
    outside = frame.get_column("tidx").is_null()
    if not nulls and not frame.get_column("no_q0").any() and not (
            outside.any() and frame.get_column("topic").filter(outside).str.starts_with("#").any()):
        return []
    # An empty field (two separators in a row) reads as null: trec_eval's "Malformed line".
    blank = pl.all_horizontal(pl.col("topic", "docno", "rank", "score", "tag").is_null())
    odd = (pl.any_horizontal(pl.col("topic", "docno", "rank", "score", "tag").is_null())
           | pl.col("no_q0") | pl.col("topic").str.starts_with("#") | (pl.col("docno") == ""))
    return frame.filter(odd & ~blank & ~pl.col("careful")).get_column("sys").unique().sort().to_list()


@dataclass
class QrelsIndex:
    """The qrels prepared once per collection: facts per topic and a sorted key index.

    ``keys`` are the 64-bit (topic, docno) keys sorted ascending, with each line's grade
    and docno in the same order, so a batch of runs finds its grades by binary search.
    """

    facts: QrelsFacts
    keys: np.ndarray
    rel: np.ndarray
    docno: pl.Series
    tidx: pl.Series
    unique: bool  # no two qrels lines share a key

    @cached_property
    def rows(self) -> pl.DataFrame:
        """``key, qrels_row``: the right side of the hash join."""
        import polars as pl

        return pl.DataFrame({"key": self.keys, "qrels_row": np.arange(len(self.keys), dtype=np.int64)})


def _qrels_columns(collection: Collection, options: EvalOptions) -> tuple[np.ndarray, np.ndarray]:
    """Each qrels line's topic index (int64) and grade code as the options read it (cached)."""
    def compute():
        rel = grade_codes(collection)
        return collection.line_topics(), (np.maximum(rel, 0) if options.negative_rel == "nonrel" else rel)

    return collection.memo(("qrels_columns", options.negative_rel), compute)


def grade_codes(collection: Collection) -> np.ndarray:
    """Each qrels line's grade code (int64): the grade itself, or for real-valued labels the
    label's position in ``collection.labels`` (−1 for a negative label)."""
    rel = collection.line_grades()
    if collection.labels is None:
        return rel.astype(np.int64)
    return np.where(rel >= 0, np.searchsorted(collection.labels, rel), -1).astype(np.int64)


def _g_max(collection: Collection, options: EvalOptions) -> int | float:
    return options.g_max if options.g_max is not None else collection.g_max


def qrels_facts(collection: Collection, options: EvalOptions) -> QrelsFacts:
    """Per-topic facts of the qrels (R per level, ideal gains…), without the join index."""
    def compute():
        tidx, rel = _qrels_columns(collection, options)
        return QrelsFacts(tidx, rel, len(collection.topics),
                          _g_max(collection, options), collection.labels)

    return collection.memo(("qrels_facts", options.negative_rel, _g_max(collection, options)), compute)


def qrels_index(collection: Collection, options: EvalOptions) -> QrelsIndex:
    """The collection's QrelsIndex for these options (cached on the collection)."""
    def compute():
        import polars as pl

        tidx, rel = _qrels_columns(collection, options)
        topic = pl.Series("tidx", tidx, dtype=pl.UInt32)
        keys = collection.qrels.with_columns(topic).select(_doc_key(pl.col("tidx"))).to_series().to_numpy()
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        unique = bool(np.all(sorted_keys[1:] != sorted_keys[:-1]))
        return QrelsIndex(qrels_facts(collection, options), sorted_keys, rel[order],
                          collection.qrels.get_column("docno").gather(order), topic.gather(order), unique)

    return collection.memo(("qrels_index", options.negative_rel, _g_max(collection, options)), compute)


def _join_grades(frame: pl.DataFrame, index: QrelsIndex) -> pl.DataFrame:
    """Add each ranked document's qrels grade (``rel``, float, NaN when unjudged).

    Looks up the 64-bit (topic, docno) key (hash join or binary search) and then confirms
    every match by comparing the docno strings, so a hash collision can never mislabel a document; in
    that unlikely case, or if two qrels keys collide, it joins on the strings instead.
    """
    import polars as pl

    keys = frame.get_column("key").to_numpy()
    rel = np.full(len(keys), np.nan)
    if len(index.keys) and index.unique:
        if 2 * len(index.keys) <= len(keys):
            # Qrels small next to the batch: a hash join on the integer key is fastest.
            found = frame.select("key").join(index.rows, on="key", how="left", maintain_order="left")
            at = found.get_column("qrels_row").fill_null(0).to_numpy()
        else:
            # Qrels large: binary search, in sorted order so that the index is read sequentially.
            order = np.argsort(keys)
            at = np.empty(len(keys), dtype=np.int64)
            at[order] = np.minimum(np.searchsorted(index.keys, keys[order]), len(index.keys) - 1)
        hit = index.keys[at] == keys
        rows = at[hit]
        same = frame.get_column("docno").filter(pl.Series(hit)) == index.docno.gather(rows)
        if same.all():
            rel[hit] = index.rel[rows]
            return frame.with_columns(pl.Series("rel", rel))
    qrels = pl.DataFrame({"tidx": index.tidx, "docno": index.docno, "rel": index.rel.astype(np.float64)})
    joined = frame.join(qrels.with_columns(pl.col("tidx").cast(frame.schema["tidx"])), on=["tidx", "docno"],
                        how="left", maintain_order="left")
    return joined.with_columns(pl.col("rel").fill_null(np.nan))


def _ranking_permutation(frame: pl.DataFrame, sys_idx: np.ndarray, top_idx: np.ndarray,
                         order: str, ties: str = "docno") -> np.ndarray | None:
    """Row order that groups rows per (system, topic), each block in ranking order (§1.4).

    Returns None when the rows are in that order already. Runs are usually written in
    ranking order: when every block is contiguous and its scores do not increase, only the
    rows of tied scores are put in docno-descending order (trec_eval's rule; ``ties="file"``
    leaves them in file order); otherwise the rows are sorted.
    """
    import polars as pl

    if frame.height < 2:
        return None
    boundary = (sys_idx[1:] != sys_idx[:-1]) | (top_idx[1:] != top_idx[:-1])
    starts = np.concatenate(([0], np.flatnonzero(boundary) + 1))
    block_keys = sys_idx[starts].astype(np.int64) * (int(top_idx.max()) + 1) + top_idx[starts]
    contiguous = len(np.unique(block_keys)) == len(starts)
    if contiguous and order == "file":
        return None  # rows are in file order within each run
    if contiguous and order == "rank":
        rank = frame.get_column("rank").to_numpy()
        if np.all((rank[:-1] <= rank[1:]) | boundary):
            return None
    if contiguous and order == "score":
        score = frame.get_column("score").to_numpy()
        if np.all((score[:-1] >= score[1:]) | boundary):
            return None if ties == "file" else _tie_permutation(frame, score, boundary)
    keys = {"score": (["sys", "tidx", "score", "line"], [False, False, True, False]) if ties == "file" else
                     (["sys", "tidx", "score", "docno"], [False, False, True, True]),
            "rank": (["sys", "tidx", "rank", "line"], [False] * 4),
            "file": (["sys", "tidx", "line"], [False] * 3)}[order]
    return frame.select(pl.arg_sort_by(keys[0], descending=keys[1])).to_series().to_numpy()


def _tie_permutation(frame: pl.DataFrame, score: np.ndarray, boundary: np.ndarray) -> np.ndarray | None:
    """Put runs of tied scores in docno-descending order, leaving every other row in place."""
    import polars as pl

    tie = np.flatnonzero((score[:-1] == score[1:]) & ~boundary)
    if len(tie) == 0:
        return None
    rows = np.unique(np.concatenate((tie, tie + 1)))
    block = np.concatenate(([0], np.cumsum(boundary)))[rows]
    tied = pl.DataFrame({"row": rows, "block": block, "score": score[rows],
                         "docno": frame.get_column("docno").gather(rows)})
    # Sorting the tied rows by (block, score desc, docno desc) keeps each tie in its own slots.
    reordered = tied.sort(["block", "score", "docno"], descending=[False, True, True]).get_column("row").to_numpy()
    if np.array_equal(reordered, rows):
        return None
    permutation = np.arange(frame.height)
    permutation[rows] = reordered
    return permutation


def _positions(sys_idx: np.ndarray, top_idx: np.ndarray) -> np.ndarray:
    """0-based position of each row within its (system, topic) block."""
    n = len(sys_idx)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    boundary = np.empty(n, dtype=bool)
    boundary[0] = True
    np.not_equal(sys_idx[1:], sys_idx[:-1], out=boundary[1:])
    boundary[1:] |= top_idx[1:] != top_idx[:-1]
    starts = np.flatnonzero(boundary)
    lengths = np.diff(np.append(starts, n))
    return np.arange(n) - np.repeat(starts, lengths)


def _first_occurrences(frame: pl.DataFrame, rows: np.ndarray) -> np.ndarray:
    """Mask of ranked rows whose document is not repeated higher up in the same topic."""
    import polars as pl

    ranked = frame.select("sys", "tidx", "docno")[rows]
    return ranked.select(pl.struct("sys", "tidx", "docno").is_first_distinct()).to_series().to_numpy()


class NoTopicInCommon(InputError):
    """A run answers none of the topics the qrels judge."""


def _check_topics_and_tags(frame: pl.DataFrame, runset: RunSet, systems: list[int],
                           outside_topics: dict[str, int] | None, disjoint_ok: bool = False) -> None:
    """Each run needs a topic in common with the qrels; other topics and tags are noted
    (topics outside the qrels into ``outside_topics`` when given, else warned of here)."""
    import polars as pl

    sys_idx = frame.get_column("sys").to_numpy()
    outside = frame.get_column("tidx").is_null().to_numpy() & frame.get_column("docno").is_not_null().to_numpy()
    other_tag = frame.get_column("other_tag").fill_null(False).to_numpy()
    common = np.bincount(sys_idx[~outside], minlength=len(systems))
    collected = outside_topics is None
    outside_topics = {} if outside_topics is None else outside_topics
    for i in np.flatnonzero((common == 0) | np.bincount(sys_idx[outside | other_tag], minlength=len(systems))):
        part, name = runset.parts[systems[i]], runset.names[systems[i]]
        rows = frame.filter(pl.col("sys") == i)
        mine = outside[sys_idx == i]
        if common[i] == 0 and not disjoint_ok:
            raise NoTopicInCommon(f"run {name!r} has no topic in common with the qrels (its first topic is "
                             f"{rows.get_column('topic').drop_nulls()[0]!r})", path=part.source)
        if mine.any():
            outside_topics[name] = rows.filter(pl.Series(mine)).get_column("topic").n_unique()
        tag_lines = rows.filter(pl.col("other_tag")).get_column("line")
        if len(tag_lines):
            warn(f"{part.source}:{tag_lines[0]}: run tag differs from the first line's {part.tag!r}; "
                 f"using {part.tag!r}")
    if collected:
        warn_topics_outside_qrels(outside_topics)


def warn_topics_outside_qrels(outside: dict[str, int]) -> None:
    """One warning for every run with topics the qrels do not judge (they are ignored, as by
    trec_eval). A collection judged on a subset of the topics every run answers — DL 2019's
    43 of 200 — would otherwise print one line per run."""
    if len(outside) == 1:
        (name, count), = outside.items()
        warn(f"run {name!r}: {count} topic(s) not in the qrels are ignored")
    elif outside:
        counts = sorted(set(outside.values()))
        counted = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        warn(f"{len(outside)} runs ({some(outside, limit=3)}): {counted} topic(s) each not in the qrels are ignored")


def _check_duplicates(frame: pl.DataFrame, rows: np.ndarray, runset: RunSet, systems: list[int],
                      topics: tuple[str, ...]) -> None:
    """A docno twice in one topic of a run is an error, as in trec_eval."""
    import polars as pl

    # Equal 64-bit keys (sorted, adjacent) flag candidates; the docno strings confirm them.
    keys = frame.get_column("key").to_numpy()[rows] ^ (
        frame.get_column("sys").to_numpy()[rows].astype(np.uint64) * np.uint64(_SYSTEM_MIX))
    ordered = np.sort(keys)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if len(repeated) == 0:
        return
    candidates = frame[rows[np.isin(keys, repeated)]]
    dup = candidates.select(pl.struct("sys", "tidx", "docno").is_duplicated()).to_series()
    if not dup.any():
        return
    hits = candidates.filter(dup).sort("line")
    first = hits.row(0, named=True)
    same_doc = hits.filter((pl.col("sys") == first["sys"]) & (pl.col("tidx") == first["tidx"])
                           & (pl.col("docno") == first["docno"]))
    raise InputError(
        f"document {first['docno']!r} appears twice for topic {topics[first['tidx']]!r} (first on line "
        f"{same_doc['line'][0]}); use on_duplicate='first' (--on-duplicate first) to keep the first occurrence",
        path=runset.parts[systems[first["sys"]]].source,
        line=int(same_doc["line"][1]),
    )
