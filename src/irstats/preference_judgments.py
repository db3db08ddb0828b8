"""Preference judgments (trec_eval's ``-R prefs`` and ``-R qrels_prefs``), carried by the
judgments tensor for the preference measures (measures/preferences.py).

A preference file has five fields, ``topic jg jsg docno level``: within one judgment
sub-group (jsg) every document is preferred to those with a lower level; the sub-groups of
one judgment group (jg: one user's need at one time) together give a partial order, closed
under transitivity; different groups (users) may disagree. A level of 0 means "judged
nonrelevant". ``qrels_prefs`` reads an ordinary qrels file (``topic iter docno grade``) the
same way, the iter field as the group, with one sub-group per group.

- :class:`PreferenceJudgments`: the judgments as read (:func:`read_prefs`), and the
  ordinary qrels they imply (every judged document, grade 0), which is what ``irstats
  preferences`` and ``irstats trec_eval -R prefs`` rank against;
- :class:`PreferenceFacts`: those judgments over an evaluation's topic axis, built once and
  checked (a document at two levels of one sub-group, at 0 and above 0 in one group,
  preferences that contradict themselves are errors): the judged documents (a row each, by
  topic and then docno, bytewise: trec_eval's order of the documents a run misses); the
  judgment groups (by topic and then jg, bytewise); a group of one sub-group as its
  equivalence classes (``entry_*``: each line with its class, ``class_*``: each class, highest
  level first); a group of several as the preference pairs of its transitive closure
  (``pair_*``) and each document's level (``level_*``);
- :class:`Preferences`: a run set's ranking of the judged documents (``Judgments.preferences``),
  made when a measure first asks for it by ranking the runs with the engine against qrels
  numbered by row (as the pool simulation numbers its qrels lines): the same reading, depth
  and duplicate rule as every measure, with tied scores in trec_eval's preference order
  (docno *ascending*, form_prefs_counts.c; the engine's own order is docno descending, so
  each tie group is turned round before the depth cut).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from irstats.beyond import AxisFacts, RankedRuns, Read
from irstats.errors import InputError

if TYPE_CHECKING:
    import polars as pl

    from irstats.collection import Collection, EvalOptions, RunSet

#: What :attr:`irstats.measures.registry.Family.needs` says of the preference measures.
NEED = "preferences"
#: The docid key of a judged document the run does not retrieve: BIG + its place by docno
#: (a retrieved one's key is its rank, 0-based): the key orders documents as trec_eval's
#: docid ranks do.
BIG = 1 << 40


class PreferenceError(InputError):
    """Preferences that contradict themselves inside one judgment group."""


def read_prefs(source, *, from_qrels: bool = False) -> pl.DataFrame:
    """Preference judgments as ``topic, jg, jsg, docno, level, line``.

    ``source``: a prefs file (``topic jg jsg docno level``; ``from_qrels=True``: a qrels file
    ``topic iter docno grade``, read as trec_eval's ``-R qrels_prefs`` does, the iter field as
    the judgment group and one sub-group) or a frame with those columns. Levels are real
    numbers; a bad line is an error naming the file and line.
    """
    import polars as pl

    from irstats.io.trec import _is_frame, _to_polars, check_field_count, ids, read_lines, split_fields

    columns = ("topic", "jg", "docno", "level") if from_qrels else ("topic", "jg", "jsg", "docno", "level")
    if _is_frame(source):
        frame = _to_polars(source, "prefs")
        if from_qrels and "jsg" not in frame.columns:
            frame = frame.with_columns(pl.lit("0").alias("jsg"))
        missing = [c for c in ("topic", "jg", "jsg", "docno", "level") if c not in frame.columns]
        if missing:
            raise InputError(f"preference frame: missing column(s) {', '.join(missing)}")
        frame = (frame if "line" in frame.columns else frame.with_row_index("line", offset=1)).select(
            ids(frame.get_column("topic")).alias("topic"), pl.col("jg", "jsg").cast(pl.String),
            ids(frame.get_column("docno")).alias("docno"), pl.col("level").cast(pl.Float64), "line")
        name = "preference frame"
    else:
        name = str(source)
        parts = split_fields(read_lines(source))
        if parts.height == 0:
            raise InputError("no preference lines (only comments or blank lines)", path=name)
        check_field_count(parts, parts["fields"].list.len() != len(columns), f"{len(columns)} fields '"
                          + " ".join(columns) + "'", name)
        frame = parts.select("line", *(pl.col("fields").list.get(i).alias(c) for i, c in enumerate(columns)))
        if from_qrels:
            frame = frame.with_columns(pl.lit("0").alias("jsg"))
        level = frame["level"].cast(pl.Float64, strict=False)
        bad = level.is_null() | level.is_nan() | level.is_infinite()
        if bad.any():
            row = frame.filter(bad).row(0, named=True)
            raise InputError(f"expected a number as the level, found {row['level']!r}", path=name, line=row["line"])
        frame = frame.with_columns(level.alias("level"))
    if frame.height == 0:
        raise InputError("no preference judgments", path=name)
    # + 0.0: −0 is the level 0 (trec_eval compares doubles, where −0 == 0)
    return frame.select("topic", "jg", "jsg", "docno", pl.col("level") + 0.0, "line")


def preference_judgments(source) -> PreferenceJudgments:
    """``source`` (a prefs file, a frame or a :class:`PreferenceJudgments`) as read."""
    return source if isinstance(source, PreferenceJudgments) else PreferenceJudgments(source)


class Preferences(RankedRuns):
    """The ranking of a tensor's runs for the preference measures (``Judgments.preferences``):
    the facts and, made on first use, :attr:`ranked` (:meth:`PreferenceFacts.ranked`)."""

    facts: PreferenceFacts  # for type checkers: the facts it is made with are preference facts


@dataclass(eq=False)
class PreferenceFacts(AxisFacts):
    """Preference judgments over an evaluation's topic axis, as arrays (see the module)."""

    topic_keys: tuple[str, ...]
    docs: pl.DataFrame  # topic, docno, row: sorted by topic, then docno bytewise
    topic_of_row: np.ndarray  # (D,) the row's topic, a position on the axis
    place: np.ndarray  # (D + 1,) the row's place among its topic's documents (by docno)
    group_topic: np.ndarray  # (G,) each judgment group's topic; groups by topic, then jg bytewise
    entry_row: np.ndarray  # (E,) one-sub-group groups: each line's document ...
    entry_class: np.ndarray  # (E,) ... and its class (global, by group then level descending)
    entry_rel: np.ndarray  # (E,) level > 0
    class_group: np.ndarray  # (C,) each class's group
    class_last: np.ndarray  # (C,) the lowest class of its group
    pair_group: np.ndarray  # (P,) several-sub-group groups: each preference a > b of the closure
    pair_a: np.ndarray
    pair_b: np.ndarray
    level_group: np.ndarray  # (L,) several-sub-group groups: each document's level
    level_row: np.ndarray
    level_value: np.ndarray
    _cache: dict = field(default_factory=dict, repr=False)

    tensor_field = "preferences"  # Judgments.preferences
    handle = Preferences

    @property
    def n_groups(self) -> int:
        return len(self.group_topic)

    @cached_property
    def groups_per_topic(self) -> np.ndarray:
        return np.bincount(self.group_topic, minlength=self.n_topics)

    @classmethod
    def build(cls, frame: pl.DataFrame, topic_keys: tuple[str, ...]) -> "PreferenceFacts":
        import polars as pl

        enum = pl.Enum(topic_keys)
        frame = frame.filter(pl.col("topic").is_in(list(topic_keys))).with_columns(
            pl.col("topic").cast(enum).to_physical().cast(pl.Int64).alias("tidx"))
        docs = (frame.select("tidx", "topic", "docno").unique()
                .sort(["tidx", pl.col("docno").cast(pl.Binary)]).with_row_index("row")
                .with_columns(pl.col("row").cast(pl.Int64)))
        topic_of_row = docs.get_column("tidx").to_numpy()
        counts = np.bincount(topic_of_row, minlength=len(topic_keys))
        place = np.zeros(len(topic_of_row) + 1, dtype=np.int64)
        place[:-1] = np.arange(len(topic_of_row)) - (np.cumsum(counts) - counts)[topic_of_row]
        groups = (frame.group_by("tidx", "jg").agg(pl.col("jsg").n_unique().alias("subgroups"))
                  .sort(["tidx", pl.col("jg").cast(pl.Binary)]).with_row_index("gid")
                  .with_columns(pl.col("gid").cast(pl.Int64)))
        lines = frame.join(docs.select("tidx", "docno", "row"), on=["tidx", "docno"]).join(
            groups.select("tidx", "jg", "gid", "subgroups"), on=["tidx", "jg"])
        entries, classes = _classes(lines.filter(pl.col("subgroups") == 1), topic_keys)
        pairs, levels = _closures(lines.filter(pl.col("subgroups") > 1), topic_keys)
        return cls(topic_keys, docs.select("topic", "docno", "row"), topic_of_row, place,
                   groups.get_column("tidx").to_numpy(), *entries, *classes, *pairs, *levels)

    def numbered(self, collection: "Collection") -> "Collection":
        """Qrels whose grades are the rows, over ``collection``'s topics: ranking the runs
        against them numbers each ranked judged document by its row."""
        import polars as pl

        return self.numbered_collection(collection, self.docs.select("topic", "docno", pl.col("row").alias("rel")),
                                        "rows")

    def ranked(self, collection: "Collection", runset: "RunSet", systems: list[int],
               options: "EvalOptions") -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """The runs ``systems`` ranked for the preference measures: (rows (S, T, K): each ranked
        document's row, :attr:`none` for one without preference judgments or past the list;
        list lengths (S, T); the tie groups' starts and sizes under ``ties="expected"``, else
        None). Under trec_eval's order (score, ties by docno) tied documents are in docno
        *ascending* order, as form_prefs_counts.c sorts them; a judged-only (-J) evaluation
        does not condense them (trec_eval's preference measures never do)."""
        turn = options.order == "score" and options.ties == "docno"
        # with a depth, the documents kept depend on the order of a tie group crossing it: rank
        # every document, turn the groups round, then cut
        opts = replace(options, ties="expected" if turn else options.ties, depth=None if turn else options.depth,
                       judged_only=False,
                       on_duplicate="first" if turn and options.depth is not None else options.on_duplicate)
        ranked, rows = self.rank_numbered(self.numbered(collection), runset, systems, opts)
        if not turn:
            return rows, ranked.n_ret, ranked.tie_start, ranked.tie_size
        position = np.arange(rows.shape[2])
        rows = np.take_along_axis(rows, 2 * ranked.tie_start + ranked.tie_size - 1 - position, axis=2)
        n_ret = ranked.n_ret
        if options.depth is not None:
            rows = np.where(position < options.depth, rows, self.none)[:, :, :max(min(options.depth, rows.shape[2]), 1)]
            n_ret = np.minimum(n_ret, options.depth)
        return rows, n_ret, None, None

    def pair_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every pair of documents {x, y} (x's row < y's) some group has a preference between:
        (x, y, how many groups prefer x to y, how many y to x) — a line of a one-sub-group
        group counts for each time it is given, as trec_eval counts it."""
        if "pairs" not in self._cache:
            a, b = self.class_pairs()
            a = np.concatenate([a, self.pair_a])
            b = np.concatenate([b, self.pair_b])
            n = self.none + 1
            lo, hi = np.minimum(a, b), np.maximum(a, b)
            unordered, inverse = np.unique(lo * n + hi, return_inverse=True)
            forward = np.bincount(inverse, weights=(a < b), minlength=len(unordered)).astype(np.int64)
            backward = np.bincount(inverse, weights=(a > b), minlength=len(unordered)).astype(np.int64)
            self._cache["pairs"] = (unordered // n, unordered % n, forward, backward)
        return self._cache["pairs"]

    def class_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every (a, b) of the one-sub-group groups, a in a higher class than b, as rows, each
        line counted: entries are ordered by class, so b runs over the entries from the next
        class to the end of the group."""
        entry_group = self.class_group[self.entry_class]
        n = len(self.entry_row)
        if n == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        group_end = np.searchsorted(entry_group, entry_group, side="right")
        class_end = np.searchsorted(self.entry_class, self.entry_class, side="right")
        counts = group_end - class_end
        first = np.repeat(class_end, counts)
        offset = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        return np.repeat(self.entry_row, counts), self.entry_row[first + offset]


class PreferenceJudgments(Read):
    """Preference judgments as read (:func:`read_prefs`; ``from_qrels=True``: a qrels file read as
    trec_eval's ``-R qrels_prefs``), with their facts over each topic axis (:meth:`on`)."""

    facts_type = PreferenceFacts

    def __init__(self, source, *, from_qrels: bool = False):
        super().__init__(source.frame if isinstance(source, PreferenceJudgments) else read_prefs(source, from_qrels=from_qrels))

    def __repr__(self) -> str:
        return f"PreferenceJudgments({len(self.topic_keys)} topics, {self.frame.height} judgments)"

    def collection(self, *, byte_ids: bool = False) -> "Collection":
        """Every judged document as an ordinary qrels line (grade 0): what the runs are ranked
        against when the preferences are all the judgments there are. ``byte_ids``: topics
        also *shown* as the bytes read (:meth:`Collection.with_byte_ids`, the drop-in's ids)."""
        import polars as pl

        from irstats.collection import Collection

        docs = self.frame.select("topic", "docno").unique().sort("topic", "docno")
        docs = docs.with_columns(pl.lit(0, dtype=pl.Int64).alias("rel"))
        return Collection.with_byte_ids(docs) if byte_ids else Collection(docs, self.topic_keys)


def _classes(lines: pl.DataFrame, topic_keys) -> tuple[tuple, tuple]:
    """Groups of one sub-group: their lines by group and level descending, each with its class."""
    import polars as pl

    twice = lines.group_by("gid", "docno").agg(pl.col("level").n_unique().alias("levels"), pl.col("tidx").first())
    twice = twice.filter(pl.col("levels") > 1).sort("gid")
    if twice.height:
        raise PreferenceError(f"topic {topic_keys[twice.get_column('tidx')[0]]!r}: a document has two different "
                              "levels in one judgment sub-group")
    ordered = lines.sort(["gid", "level"], descending=[False, True])
    gid = ordered.get_column("gid").to_numpy()
    level = ordered.get_column("level").to_numpy()
    new_class = np.ones(len(gid), dtype=bool)
    new_class[1:] = (gid[1:] != gid[:-1]) | (level[1:] != level[:-1])
    entry_class = np.cumsum(new_class) - 1
    class_group = gid[new_class]
    class_last = np.ones(len(class_group), dtype=bool)
    class_last[:-1] = class_group[1:] != class_group[:-1]
    return ((ordered.get_column("row").to_numpy(), entry_class.astype(np.int64), level > 0.0),
            (class_group.astype(np.int64), class_last))


def _closures(lines: pl.DataFrame, topic_keys) -> tuple[tuple, tuple]:
    """Groups of several sub-groups (form_jg_pa): each group's preferences closed under
    transitivity, as (group, a, b) pairs, and each document's level; one group at a time (a
    group's own documents), as the judgments are read, never per run."""
    import polars as pl

    empty = np.zeros(0, dtype=np.int64)
    if lines.height == 0:
        return (empty, empty, empty), (empty, empty, np.zeros(0))
    pairs, levels = [], []
    # trec_eval's order: sub-group (bytewise), level descending, document
    ordered = lines.sort(["gid", pl.col("jsg").cast(pl.Binary), "level", pl.col("docno").cast(pl.Binary)],
                         descending=[False, False, True, False])
    for part in ordered.partition_by("gid", maintain_order=True):
        gid, topic = int(part.get_column("gid")[0]), topic_keys[int(part.get_column("tidx")[0])]
        rows, local = np.unique(part.get_column("row").to_numpy(), return_inverse=True)
        docnos = part.get_column("docno").to_list()
        jsg = part.get_column("jsg").to_numpy()
        value = part.get_column("level").to_numpy()
        doc_level = np.full(len(rows), -1.0)
        for i, (doc, new) in enumerate(zip(local, value)):  # trec_eval's check, in its order
            old = doc_level[doc]
            if (old > 0.0 and new == 0.0) or (old == 0.0 and new > 0.0):
                raise PreferenceError(f"topic {topic!r}: document {docnos[i]!r} has both level 0 and a level above 0 "
                                      "in one judgment group")
            doc_level[doc] = new
        matrix = np.zeros((len(rows), len(rows)), dtype=bool)
        for name in np.unique(jsg):
            member = jsg == name
            r, v = local[member], value[member]
            above, below = np.nonzero(v[:, None] > v[None, :])
            matrix[r[above], r[below]] = True
        closure = matrix | np.eye(len(rows), dtype=bool)
        while True:  # the reflexive-transitive closure by repeated squaring
            wider = (closure.astype(np.float64) @ closure.astype(np.float64)) > 0
            if (wider == closure).all():
                break
            closure = wider
        np.fill_diagonal(closure, False)
        if (closure & closure.T).any():
            i, j = np.argwhere(closure & closure.T)[0]
            names = dict(zip(local.tolist(), docnos))
            raise PreferenceError(f"topic {topic!r}: inconsistent preferences in one judgment group (documents "
                                  f"{names[i]!r} and {names[j]!r} are each preferred to the other)")
        a, b = np.nonzero(closure)
        pairs.append((np.full(len(a), gid), rows[a], rows[b]))
        levels.append((np.full(len(rows), gid), rows, doc_level))
    return (tuple(np.concatenate([p[k] for p in pairs]).astype(np.int64) for k in range(3)),
            tuple(np.concatenate([p[k] for p in levels]) for k in range(3)))


__all__ = ["PreferenceError", "PreferenceFacts", "PreferenceJudgments", "Preferences", "preference_judgments",
           "read_prefs"]
