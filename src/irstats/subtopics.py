"""Subtopic judgments (TREC diversity qrels), carried by the judgments tensor.

A subtopic qrels file has four fields, ``topic subtopic docno grade`` (TREC Web track
diversity qrels, NTCIR intents); a document is relevant to a subtopic when its grade there
is at least the measure's relevance level. The diversity measures (measures/diversity.py)
read them from the tensor, as every family reads the qrels:

- :class:`SubtopicQrels`: the judgments as read (:func:`read_subtopic_qrels`), and the
  ordinary qrels derived from them (each document's largest grade), which is how TREC makes
  its ad hoc qrels and what ``irstats diversity`` ranks against;
- :class:`SubtopicFacts`: those judgments over an evaluation's topic axis, built once: one
  row per judged (topic, docno) with its grade on each of the topic's subtopics (a
  (D + 1) × Q array; the last row is a document without subtopic judgments), the number of
  subtopics with a relevant document per topic, and ndeval's greedy ideal ranking;
- :class:`Subtopics`: a run set's rows, ``rows[s, t, r]`` the row of the document at rank r,
  on :attr:`irstats.judgments.Judgments.subtopics`. They are found by ranking the runs with
  the engine itself against qrels whose grades are the row numbers (as the pool simulation
  numbers its qrels lines): the same reading, ordering, depth, duplicate rule and
  condensation (-J keeps the documents the evaluation's qrels judge) as the tensor, so the
  two agree position for position. They are made when a measure first asks for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from irstats.beyond import AxisFacts, RankedRuns, Read
from irstats.errors import InputError

if TYPE_CHECKING:
    import polars as pl

    from irstats.collection import Collection, EvalOptions, RunSet

#: The grade of a (document, subtopic) pair without a line: below every relevance level.
MISSING = np.iinfo(np.int64).min
#: What :attr:`irstats.measures.registry.Family.needs` says of the diversity measures.
NEED = "subtopics"


def read_subtopic_qrels(source) -> pl.DataFrame:
    """Subtopic qrels ``topic subtopic docno grade`` from a file (plain or gzip) or a frame
    with those columns; a bad line is an error naming the file and line."""
    import polars as pl

    from irstats.io.trec import _is_frame, _to_polars, check_field_count, ids, read_lines, split_fields

    if _is_frame(source):
        frame = _to_polars(source, "subtopic_qrels")
        missing = [c for c in ("topic", "subtopic", "docno", "grade") if c not in frame.columns]
        if missing:
            raise InputError(f"subtopic qrels frame: missing column(s) {', '.join(missing)}")
        try:
            grade = frame.get_column("grade").cast(pl.Int64)
        except pl.exceptions.PolarsError:
            raise InputError("subtopic qrels frame: the grades must be whole numbers") from None
        return pl.DataFrame([ids(frame.get_column("topic")).alias("topic"),
                             frame.get_column("subtopic").cast(pl.String).alias("subtopic"),
                             ids(frame.get_column("docno")).alias("docno"), grade.alias("grade")])
    name = str(source)
    parts = split_fields(read_lines(source))
    check_field_count(parts, parts["fields"].list.len() != 4, "4 fields 'topic subtopic docno grade'", name)
    frame = parts.select("line", *(pl.col("fields").list.get(i).alias(c)
                                   for i, c in enumerate(("topic", "subtopic", "docno", "grade"))))
    grade = frame["grade"].cast(pl.Int64, strict=False)
    if grade.null_count():
        row = frame.filter(grade.is_null()).row(0, named=True)
        raise InputError(f"the grade must be a whole number; found {row['grade']!r}", path=name, line=row["line"])
    return frame.with_columns(grade.alias("grade")).select("topic", "subtopic", "docno", "grade")


def subtopic_qrels(source) -> SubtopicQrels:
    """``source`` (a subtopic qrels file, a frame or a :class:`SubtopicQrels`) as read."""
    return source if isinstance(source, SubtopicQrels) else SubtopicQrels(source)


class Subtopics(RankedRuns):
    """The subtopic judgments of a tensor's ranked documents (``Judgments.subtopics``): the
    facts and, made on first use, :attr:`ranked` — (rows, list lengths) of
    :meth:`SubtopicFacts.ranked`, the engine's ranking of the same runs against
    :meth:`SubtopicFacts.numbered`."""

    facts: SubtopicFacts  # for type checkers: the facts it is made with are subtopic facts


@dataclass(eq=False)
class SubtopicFacts(AxisFacts):
    """Subtopic judgments over an evaluation's topic axis (``topic_keys``), as arrays.

    ``docs``: one row per judged (topic, docno) of a topic on the axis, sorted by topic and
    then docno *descending* (ndeval's ideal ranking takes the larger docno among equals);
    ``grades[row, q]``: the largest grade of that document on the topic's q-th subtopic
    (subtopics numbered per topic, in sorted order), :data:`MISSING` where it has no line; the
    last row, :attr:`none`, is a document without subtopic judgments.
    """

    topic_keys: tuple[str, ...]
    docs: pl.DataFrame  # topic, docno, row
    topic_of_row: np.ndarray  # (D,) int64: the row's topic, a position on the axis
    grades: np.ndarray  # (D + 1, Q) int64
    _cache: dict = field(default_factory=dict, repr=False)

    tensor_field = "subtopics"  # Judgments.subtopics
    handle = Subtopics

    @classmethod
    def build(cls, frame: pl.DataFrame, topic_keys: tuple[str, ...]) -> "SubtopicFacts":
        import polars as pl

        enum = pl.Enum(topic_keys)
        on_axis = frame.filter(pl.col("topic").is_in(list(topic_keys)))
        docs = (on_axis.select("topic", "docno").unique()
                .sort([pl.col("topic").cast(enum), "docno"], descending=[False, True])
                .with_row_index("row").with_columns(pl.col("row").cast(pl.Int64)))
        columns = on_axis.select("topic", "subtopic").unique().with_columns(
            (pl.col("subtopic").rank("dense").over("topic").cast(pl.Int64) - 1).alias("column"))
        judged = on_axis.join(docs, on=["topic", "docno"]).join(columns, on=["topic", "subtopic"])
        width = int(columns.select(pl.max("column")).item() or 0) + 1
        grades = np.full((docs.height + 1, width), MISSING, dtype=np.int64)
        np.maximum.at(grades, (judged.get_column("row").to_numpy(), judged.get_column("column").to_numpy()),
                      judged.get_column("grade").to_numpy().astype(np.int64))
        topic_of_row = docs.get_column("topic").cast(enum).to_physical().to_numpy().astype(np.int64)
        return cls(topic_keys, docs, topic_of_row, grades)

    def relevant(self, level) -> np.ndarray:
        """``[row, q]``: whether the row's document is relevant to subtopic q at ``level``: (D + 1, Q)."""
        key = ("relevant", level)
        if key not in self._cache:
            self._cache[key] = self.grades >= level
        return self._cache[key]

    def num_subtopics(self, level) -> np.ndarray:
        """Per topic, its subtopics with a document relevant at ``level`` (ndeval's S): (T,)."""
        key = ("S", level)
        if key not in self._cache:
            covered = np.zeros((self.n_topics, self.grades.shape[1]), dtype=bool)
            np.logical_or.at(covered, self.topic_of_row, self.relevant(level)[:-1])
            self._cache[key] = covered.sum(axis=1)
        return self._cache[key]

    def _by_topic(self, level) -> np.ndarray:
        """The documents relevant to some subtopic at ``level``, per topic in docno-descending
        order, as a float 0/1 array (Q, T, longest) (zeros past a topic's documents)."""
        key = ("by topic", level)
        if key not in self._cache:
            relevant = self.relevant(level)[:-1]
            keep = relevant.any(axis=1)
            topic = self.topic_of_row[keep]
            counts = np.bincount(topic, minlength=self.n_topics)
            starts = np.cumsum(counts) - counts
            place = np.arange(len(topic)) - starts[topic]
            out = np.zeros((relevant.shape[1], self.n_topics, max(int(counts.max(initial=0)), 1)))
            out[:, topic, place] = relevant[keep].T
            self._cache[key] = out
        return self._cache[key]

    def ideal_gains(self, alpha: float, level, width: int | None) -> np.ndarray:
        """The gains of ndeval's ideal ranking at ranks 1..``width`` (None: every document
        relevant to something): (T, width), zeros past a topic's documents.

        Greedy, as ndeval: at each rank the document of largest gain Σ_s J(d, s)·(1 − α)^{c_s}
        (c_s: documents above relevant to s), the larger docno among equals; vectorised over
        topics, one step per rank."""
        matrix = self._by_topic(level)
        longest = matrix.shape[2]
        steps = longest if width is None else min(int(width), longest)
        key = ("ideal", alpha, level)
        kept = self._cache.get(key)
        if kept is None or kept.shape[1] < steps:
            kept = self._cache[key] = _greedy_ideal(matrix, alpha, steps)
        if width is None:
            return kept[:, :steps]
        out = np.zeros((self.n_topics, int(width)))
        out[:, :steps] = kept[:, :steps]
        return out

    def numbered(self, collection: "Collection", options: "EvalOptions") -> "Collection":
        """Qrels whose grades are :class:`SubtopicFacts` rows, over ``collection``'s topics: the
        subtopic-judged documents; under -J (``judged_only``) the documents ``collection``
        judges instead (a row each, :attr:`none` for those without subtopic judgments), so that
        ranking the runs against them condenses the lists as the tensor's own are."""
        import polars as pl

        from irstats.judgments import grade_codes

        docs = self.docs.select("topic", "docno", pl.col("row").alias("rel"))
        if options.judged_only:
            codes = grade_codes(collection)
            judged = (codes >= 0) | (options.negative_rel == "nonrel")
            main = collection.qrels.select("topic", "docno").filter(pl.Series(judged))
            docs = main.join(docs, on=["topic", "docno"], how="left").with_columns(
                pl.col("rel").fill_null(self.none))
        return self.numbered_collection(collection, docs, (options.judged_only, options.negative_rel))

    def ranked(self, collection: "Collection", runset: "RunSet", systems: list[int],
               options: "EvalOptions") -> tuple[np.ndarray, np.ndarray]:
        """The row of each ranked document of the runs ``systems`` ((S, T, K) int64, :attr:`none`
        for documents without subtopic judgments and past the end of a list) and the list
        lengths (S, T): the engine's ranking of the runs against :meth:`numbered`, in the
        tensor's own order (its tie groups are not needed again)."""
        opts = replace(options, ties="docno" if options.ties == "expected" else options.ties)
        ranked, rows = self.rank_numbered(self.numbered(collection, options), runset, systems, opts)
        return rows, ranked.n_ret


class SubtopicQrels(Read):
    """Subtopic judgments as read: a frame ``topic, subtopic, docno, grade``
    (:func:`read_subtopic_qrels` of a file or frame), with its facts over each topic axis
    it is evaluated on (:meth:`on`)."""

    facts_type = SubtopicFacts

    def __init__(self, source):
        super().__init__(source.frame if isinstance(source, SubtopicQrels) else read_subtopic_qrels(source))
        if self.frame.height == 0:
            raise InputError("the subtopic qrels hold no judgments")

    def __repr__(self) -> str:
        return f"SubtopicQrels({self.frame.get_column('topic').n_unique()} topics, {self.frame.height} judgments)"

    def qrels(self) -> pl.DataFrame:
        """Ordinary qrels ``topic, docno, rel``, each judged document at its largest grade over
        the subtopics (as TREC derives its ad hoc qrels from the diversity ones), sorted."""
        import polars as pl

        return (self.frame.group_by("topic", "docno").agg(pl.col("grade").max().alias("rel"))
                .sort("topic", "docno"))

    def collection(self) -> "Collection":
        """The :meth:`qrels` as a :class:`~irstats.collection.Collection` (the judgments when
        the subtopic qrels are all there are: ``irstats diversity``, ir_measures' diversity
        measures)."""
        from irstats.collection import Collection

        return Collection(self.qrels(), self.topic_keys)


def _greedy_ideal(matrix: np.ndarray, alpha: float, steps: int) -> np.ndarray:
    """ndeval's greedy ideal ranking's gains for every topic at once: ``matrix`` (Q, T, D) holds
    each topic's documents (0/1 per subtopic) in docno-descending order, so the first largest
    gain is the larger docno's."""
    n_sub, n_top, n_doc = matrix.shape
    gains = np.zeros((n_top, steps))
    weight = np.ones((n_sub, n_top))
    available = np.asarray(matrix.any(axis=0))  # an array (numpy's types allow a scalar)
    topics = np.arange(n_top)
    for step in range(steps):
        score = np.zeros((n_top, n_doc))
        for q in range(n_sub):  # added subtopic by subtopic, as ndeval adds
            score += matrix[q] * weight[q][:, None]
        score = np.where(available, score, -np.inf)
        best = np.argmax(score, axis=1)
        found = available[topics, best]
        if not found.any():
            break
        gains[:, step] = np.where(found, score[topics, best], 0.0)
        chosen = (matrix[:, topics, best] > 0) & found  # (a topic with none left keeps its weights)
        weight = np.where(chosen, weight * (1.0 - alpha), weight)
        available[topics, best] = False
    return gains


__all__ = ["SubtopicFacts", "SubtopicQrels", "Subtopics", "read_subtopic_qrels", "subtopic_qrels"]
