"""Preference judgments and trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``).

A preference file has five fields, ``topic jg jsg docno level``: within one judgment
sub-group (jsg) every document is preferred to those with a lower level; the sub-groups of
one judgment group (jg: one user's need at one time) together give a partial order, closed
under transitivity; different groups (users) may disagree. A level of 0 means "judged
nonrelevant", which the ``*_Rnonrel`` measures treat apart. ``qrels_prefs`` reads an ordinary
qrels file (``topic iter docno grade``) the same way, the iter field as the group, with one
sub-group per group.

For one run and topic, the retrieved judged documents come first, in the run's order (score
descending, ties by docno *ascending*, as trec_eval's form_prefs_counts.c ranks them), then
the judged documents the run missed. A preference A > B is then fulfilled or not, among the
retrieved (both retrieved), implied (one retrieved: fulfilled iff it is A) or neither
retrieved (never fulfilled). The 14 measures (trec_eval's names in brackets):

- ``NumPrefsPoss`` (prefs_num_prefs_poss), ``NumPrefsFul`` (prefs_num_prefs_ful),
  ``NumPrefsFulRet`` (prefs_num_prefs_ful_ret): counts, summed over topics;
- ``PrefsSimp``: fulfilled / possible preferences; ``PrefsPair``: the mean over document
  pairs of the share of the pair's preferences that are fulfilled; ``PrefsAvgJG``: fulfilled
  / possible within each judgment group, averaged over groups; ``PrefsAvgJGRnonrel``: as
  PrefsAvgJG with the number of nonrelevant documents of each group set to its number of
  relevant ones (akin to bpref);
- each also over retrieved pairs only (``…Ret``) and over retrieved plus implied (``…Imp``).

Every rule, including the odd ones, is trec_eval 10's (``irstats trec_eval -R prefs`` prints
its output byte for byte): a topic's value is 0 where trec_eval leaves it unset (no possible
preference), and a group without possible preferences makes the Rnonrel average 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from irstats.errors import InputError, MeasureError
from irstats.ids import bytewise_sorted

if TYPE_CHECKING:
    import polars as pl
    from irstats.scores import ScoreMatrix

#: irstats name → trec_eval name, in trec_eval's print order.
MEASURES: dict[str, str] = {
    "NumPrefsPoss": "prefs_num_prefs_poss",
    "NumPrefsFul": "prefs_num_prefs_ful",
    "NumPrefsFulRet": "prefs_num_prefs_ful_ret",
    "PrefsSimp": "prefs_simp",
    "PrefsPair": "prefs_pair",
    "PrefsAvgJG": "prefs_avgjg",
    "PrefsAvgJGRnonrel": "prefs_avgjg_Rnonrel",
    "PrefsSimpRet": "prefs_simp_ret",
    "PrefsPairRet": "prefs_pair_ret",
    "PrefsAvgJGRet": "prefs_avgjg_ret",
    "PrefsAvgJGRnonrelRet": "prefs_avgjg_Rnonrel_ret",
    "PrefsSimpImp": "prefs_simp_imp",
    "PrefsPairImp": "prefs_pair_imp",
    "PrefsAvgJGImp": "prefs_avgjg_imp",
}
#: the counts, which trec_eval sums over topics instead of averaging
COUNTS = ("NumPrefsPoss", "NumPrefsFul", "NumPrefsFulRet")
_BY_TREC_NAME = {v: k for k, v in MEASURES.items()}


def measure_name(name: str) -> str:
    """The irstats name of a preference measure given by either name (``PrefsSimp`` or
    ``prefs_simp``)."""
    if not isinstance(name, str):
        from irstats.checks import kind_of
        from irstats.errors import ArgumentTypeError

        raise ArgumentTypeError(f"a preference measure name must be text (e.g. PrefsSimp); got {kind_of(name)}",
                                argument="name")
    if name in MEASURES:
        return name
    if name in _BY_TREC_NAME:
        return _BY_TREC_NAME[name]
    raise MeasureError(f"unknown preference measure {name!r}; expected one of {', '.join(MEASURES)}")


# ----------------------------------------------------------------------------- reading


def read_prefs(source, *, qrels: bool = False) -> pl.DataFrame:
    """Preference judgments as ``topic, jg, jsg, docno, level, line``.

    ``source``: a prefs file (``topic jg jsg docno level``; ``qrels=True``: a qrels file
    ``topic iter docno grade``, read as trec_eval's ``-R qrels_prefs`` does, the iter field as
    the judgment group and one sub-group) or a frame with those columns. Levels are real
    numbers; a bad line is an error naming the file and line.
    """
    import polars as pl

    from irstats.io.trec import _is_frame, check_field_count, read_lines, split_fields

    columns = ("topic", "jg", "docno", "level") if qrels else ("topic", "jg", "jsg", "docno", "level")
    if _is_frame(source):
        frame = pl.DataFrame(source) if not isinstance(source, pl.DataFrame) else source
        if qrels and "jsg" not in frame.columns:
            frame = frame.with_columns(pl.lit("0").alias("jsg"))
        missing = [c for c in ("topic", "jg", "jsg", "docno", "level") if c not in frame.columns]
        if missing:
            raise InputError(f"preference frame: missing column(s) {', '.join(missing)}")
        frame = (frame if "line" in frame.columns else frame.with_row_index("line", offset=1)).select(
            pl.col("topic", "jg", "jsg", "docno").cast(pl.String), pl.col("level").cast(pl.Float64), "line")
        name = "preference frame"
    else:
        name = str(source)
        parts = split_fields(read_lines(source))
        if parts.height == 0:
            raise InputError("no preference lines (only comments or blank lines)", path=name)
        check_field_count(parts, parts["fields"].list.len() != len(columns), f"{len(columns)} fields '"
                          + " ".join(columns) + "'", name)
        frame = parts.select("line", *(pl.col("fields").list.get(i).alias(c) for i, c in enumerate(columns)))
        if qrels:
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


# ----------------------------------------------------------------------------- one topic


@dataclass
class JudgmentGroup:
    """One judgment group's preferences for one run and topic, and trec_eval's counts.

    With one sub-group the preferences are its equivalence classes (``classes``: the docid
    ranks of each level, highest level first, each ascending); with several, a preference
    matrix (``matrix[i, j]``: i preferred to j, transitively closed) and each document's
    level (``levels``, −1 for documents the group did not judge).
    """

    classes: list[np.ndarray] | None = None
    class_levels: list[float] | None = None
    matrix: np.ndarray | None = None
    levels: np.ndarray | None = None
    fulfilled_ret: int = 0
    possible_ret: int = 0
    fulfilled_imp: int = 0
    possible_imp: int = 0
    possible_notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0


@dataclass
class TopicPreferences:
    """All judgment groups of one topic against one ranking.

    Documents are numbered by *docid rank*: the retrieved judged ones 0 … ``num_judged_ret``
    − 1 in ranking order, then the unretrieved judged ones by docno (bytewise).
    """

    groups: list[JudgmentGroup]
    num_judged: int
    num_judged_ret: int

    @cached_property
    def pair_counts(self) -> np.ndarray:
        """``[i, j]``: how many groups prefer document i to j (only the Pairs measures need
        this num_judged² table, so it is made on first use)."""
        counts = np.zeros((self.num_judged, self.num_judged), dtype=np.int32)
        for group in self.groups:
            if group.matrix is not None:
                counts += group.matrix
                continue
            members = np.zeros((len(group.classes), self.num_judged), dtype=np.int32)
            for k, ranks in enumerate(group.classes):
                np.add.at(members[k], ranks, 1)
            above = np.cumsum(members, axis=0) - members  # documents of the classes above each class
            counts += above.T @ members
        return counts


class PreferenceError(InputError):
    """Preferences that contradict themselves inside one judgment group."""


def topic_preferences(judgments: pl.DataFrame, ranking: list[str], topic: str = "") -> TopicPreferences:
    """trec_eval's form_prefs_counts for one topic: ``judgments`` are the topic's rows of
    :func:`read_prefs`; ``ranking`` the run's docnos in its order (already cut at depth)."""
    import polars as pl

    if not isinstance(judgments, pl.DataFrame):
        from irstats.checks import kind_of
        from irstats.errors import ArgumentTypeError

        raise ArgumentTypeError(f"judgments must be a DataFrame of one topic's rows of read_prefs; got "
                                f"{kind_of(judgments)}", argument="judgments")
    docnos = judgments["docno"].to_list()
    judged = set(docnos)
    docid: dict[str, int] = {}
    for docno in ranking:
        if docno in judged:
            docid[docno] = len(docid)
    num_judged_ret = len(docid)
    for docno in bytewise_sorted(judged.difference(docid)):
        docid[docno] = len(docid)
    n = len(docid)
    rows = judgments.with_columns(pl.Series("rank", [docid[d] for d in docnos], dtype=pl.Int64))
    # trec_eval's order: group, sub-group (bytewise), level descending, docid rank
    rows = rows.sort([pl.col("jg").cast(pl.Binary), pl.col("jsg").cast(pl.Binary), "level", "rank"],
                     descending=[False, False, True, False])
    groups = []
    for part in rows.partition_by("jg", maintain_order=True):
        jsg = part["jsg"].to_numpy()
        ranks = part["rank"].to_numpy()
        levels = part["level"].to_numpy()
        if len(np.unique(jsg)) > 1:
            group = _matrix_group(jsg, ranks, levels, part["docno"].to_list(), n, num_judged_ret, topic)
        else:
            group = _class_group(ranks, levels, num_judged_ret, topic)
        groups.append(group)
    return TopicPreferences(groups, n, num_judged_ret)


def _less_pairs(a: np.ndarray, b: np.ndarray) -> int:
    """#{(x, y) : x ∈ a, y ∈ b, x < y} (multisets)."""
    if not len(a) or not len(b):
        return 0
    return int(np.searchsorted(np.sort(a), b, side="left").sum())


def _class_group(ranks: np.ndarray, levels: np.ndarray, njr: int, topic: str) -> JudgmentGroup:
    """One sub-group: equivalence classes by level; every document of a class is preferred to
    every document of each lower class (add_ec_pref_to_jg)."""
    starts = np.flatnonzero(np.r_[True, levels[1:] != levels[:-1]])
    bounds = np.r_[starts, len(levels)]
    classes = [ranks[bounds[k]:bounds[k + 1]] for k in range(len(starts))]
    class_levels = [float(levels[s]) for s in starts]
    group = JudgmentGroup(classes=classes, class_levels=class_levels)
    members = np.concatenate([np.unique(c) for c in classes])
    if len(np.unique(members)) < len(members):
        raise PreferenceError(f"topic {topic!r}: a document has two different levels in one judgment sub-group")
    above_ret = above_unret = 0  # retrieved and unretrieved documents of the classes above
    above: list[np.ndarray] = []
    for ranks_k, level in zip(classes, class_levels):
        ret = ranks_k[ranks_k < njr]
        unret = len(ranks_k) - len(ret)
        if level > 0.0:
            group.num_rel_ret += len(ret)
            group.num_rel += len(ranks_k)
        else:
            group.num_nonrel_ret += len(ret)
            group.num_nonrel += len(ranks_k)
        if above:
            group.fulfilled_ret += _less_pairs(np.concatenate(above), ret)
        group.possible_ret += above_ret * len(ret)
        group.fulfilled_imp += above_ret * unret
        group.possible_imp += above_ret * unret + above_unret * len(ret)
        group.possible_notoccur += above_unret * unret
        above.append(ret)
        above_ret += len(ret)
        above_unret += unret
    return group


def _matrix_group(jsg, ranks, levels, docnos, n: int, njr: int, topic: str) -> JudgmentGroup:
    """Several sub-groups: a preference matrix, closed under transitivity (form_jg_pa)."""
    matrix = np.zeros((n, n), dtype=bool)
    doc_level = np.full(n, -1.0)
    for i in range(len(ranks)):  # trec_eval's check, in its order: 0 and > 0 for one document
        old, new = doc_level[ranks[i]], levels[i]
        if (old > 0.0 and new == 0.0) or (old == 0.0 and new > 0.0):
            raise PreferenceError(f"topic {topic!r}: document {docnos[i]!r} has both level 0 and a level above 0 "
                                  "in one judgment group")
        doc_level[ranks[i]] = new
    for name in np.unique(jsg):
        member = jsg == name
        r, v = ranks[member], levels[member]
        above, below = np.nonzero(v[:, None] > v[None, :])
        matrix[r[above], r[below]] = True
    closure = matrix | np.eye(n, dtype=bool)
    while True:  # the reflexive-transitive closure by repeated squaring
        wider = (closure.astype(np.float64) @ closure.astype(np.float64)) > 0
        if (wider == closure).all():
            break
        closure = wider
    np.fill_diagonal(closure, False)
    if (closure & closure.T).any():
        i, j = np.argwhere(closure & closure.T)[0]
        raise PreferenceError(f"topic {topic!r}: inconsistent preferences in one judgment group (documents at "
                              f"ranks {i} and {j} are each preferred to the other)")
    group = JudgmentGroup(matrix=closure, levels=doc_level)
    ret = slice(0, njr)
    group.num_rel_ret = int((doc_level[ret] > 0.0).sum())
    group.num_nonrel_ret = int((doc_level[ret] == 0.0).sum())
    group.num_rel = int((doc_level > 0.0).sum())
    group.num_nonrel = int((doc_level == 0.0).sum())
    _count_matrix(group, closure, njr)
    return group


def _count_matrix(group: JudgmentGroup, matrix: np.ndarray, njr: int) -> None:
    """The five areas of form_prefs_counts.c's comment, split at njr and at the diagonal."""
    both = matrix[:njr, :njr]
    group.fulfilled_ret = int(np.triu(both, 1).sum())
    group.possible_ret = int(both.sum())
    group.fulfilled_imp = int(matrix[:njr, njr:].sum())
    group.possible_imp = group.fulfilled_imp + int(matrix[njr:, :njr].sum())
    group.possible_notoccur = int(matrix[njr:, njr:].sum())


# ----------------------------------------------------------------------------- measures


def _ratio(fulfilled: int, possible: int) -> float:
    """C's double division: 0/0 is NaN (which then zeroes an average), x/0 infinite."""
    if possible:
        return fulfilled / possible
    return float("nan") if fulfilled == 0 else float("inf")


def _group_average(ratios: list[float], num_groups: int) -> float:
    total = 0.0
    for value in ratios:  # in group order, as trec_eval adds
        total += value
    return total / num_groups if total > 0.0 else 0.0


def _simple(tp: TopicPreferences, imp: bool, notoccur: bool) -> float:
    ful = sum(g.fulfilled_ret + (g.fulfilled_imp if imp else 0) for g in tp.groups)
    poss = sum(g.possible_ret + (g.possible_imp if imp else 0) + (g.possible_notoccur if notoccur else 0)
               for g in tp.groups)
    return ful / poss if poss else 0.0


def _per_group(tp: TopicPreferences, imp: bool, notoccur: bool) -> float:
    ratios = []
    for g in tp.groups:
        ful = g.fulfilled_ret + (g.fulfilled_imp if imp else 0)
        poss = g.possible_ret + (g.possible_imp if imp else 0) + (g.possible_notoccur if notoccur else 0)
        if poss:
            ratios.append(ful / poss)
    return _group_average(ratios, len(tp.groups))


def _pairs(tp: TopicPreferences, imp: bool, notoccur: bool) -> float:
    """The mean over document pairs with a preference of the share fulfilled; pairs of two
    unretrieved documents count as 0 (``notoccur``)."""
    p, njr = tp.pair_counts, tp.num_judged_ret
    shares = []
    both = p[:njr, :njr]
    i, j = np.nonzero(np.triu((both + both.T) > 0, 1))  # row-major: trec_eval's loop order
    shares.append(both[i, j] / (both[i, j] + both[j, i]))
    count = len(i)
    if imp:
        forward, backward = p[:njr, njr:], p[njr:, :njr].T
        i, j = np.nonzero((forward + backward) > 0)
        shares.append(forward[i, j] / (forward[i, j] + backward[i, j]))
        count += len(i)
    if notoccur:
        rest = p[njr:, njr:]
        count += int(np.triu((rest + rest.T) > 0, 1).sum())
    if not count:
        return 0.0
    values = np.concatenate(shares)
    total = float(np.cumsum(values)[-1]) if len(values) else 0.0  # sequential, as trec_eval adds
    return total / count


def _rnonrel(tp: TopicPreferences, retrieved_only: bool) -> float:
    """prefs_avgjg_Rnonrel(_ret): each group's nonrelevant documents counted as if there were
    exactly as many as relevant ones."""
    ratios = []
    for g in tp.groups:
        if retrieved_only:
            r, nonrel = g.num_rel_ret, g.num_nonrel_ret
            ful, poss = g.fulfilled_ret, g.possible_ret
        else:
            r, nonrel = g.num_rel, g.num_nonrel
            ful = g.fulfilled_ret + g.fulfilled_imp
            poss = g.possible_ret + g.possible_imp + g.possible_notoccur
        if r >= nonrel:  # R − N more nonrelevant documents, each below every relevant one
            ful += g.num_rel_ret * (r - nonrel)
            poss += g.num_rel * (r - nonrel)
        else:
            ful, poss = _recount_without_extra_nonrel(g, tp.num_judged_ret, retrieved_only)
        ratios.append(_ratio(ful, poss))
    return _group_average(ratios, len(tp.groups))


def _recount_without_extra_nonrel(g: JudgmentGroup, njr: int, retrieved_only: bool) -> tuple[int, int]:
    """trec_eval's recalculate(): the counts with only the first R nonrelevant documents."""
    if g.classes is not None:
        # as trec_eval: the classes above the last one against each other, then every class (the
        # last one too) against the first R documents of the last class
        keep = g.num_rel_ret if retrieved_only else g.num_rel
        classes = [c[c < njr] for c in g.classes] if retrieved_only else g.classes
        extra = g.classes[-1][:keep]
        extra = extra[extra < njr] if retrieved_only else extra
        pairs = [(a, b) for k, a in enumerate(classes) for b in classes[k + 1:len(classes) - 1]]
        pairs += [(a, extra) for a in classes]
        ful = poss = 0
        for a, b in pairs:
            fulfilled = _less_pairs(a if retrieved_only else a[a < njr], b)
            ful += fulfilled
            poss += len(a) * len(b) - fulfilled
        return ful, poss + ful
    levels = g.levels
    scan = njr if retrieved_only else len(levels)
    nonrel = np.flatnonzero(levels[:scan] == 0.0)
    first_dropped = nonrel[g.num_rel] if len(nonrel) > g.num_rel else scan
    kept = ~((np.arange(len(levels)) >= first_dropped) & (levels == 0.0))
    matrix = g.matrix & kept[:, None] & kept[None, :]
    if retrieved_only:
        matrix = matrix[:njr, :njr]
    counted = JudgmentGroup()
    _count_matrix(counted, matrix, njr)
    ful = counted.fulfilled_ret + counted.fulfilled_imp
    return ful, counted.possible_ret + counted.possible_imp + counted.possible_notoccur


def topic_values(tp: TopicPreferences, measures=MEASURES) -> dict[str, float]:
    """The preference measures (irstats names) of one topic."""
    compute = {
        "NumPrefsPoss": lambda: float(sum(g.possible_ret + g.possible_imp + g.possible_notoccur for g in tp.groups)),
        "NumPrefsFul": lambda: float(sum(g.fulfilled_ret + g.fulfilled_imp for g in tp.groups)),
        "NumPrefsFulRet": lambda: float(sum(g.fulfilled_ret for g in tp.groups)),
        "PrefsSimp": lambda: _simple(tp, True, True),
        "PrefsPair": lambda: _pairs(tp, True, True),
        "PrefsAvgJG": lambda: _per_group(tp, True, True),
        "PrefsAvgJGRnonrel": lambda: _rnonrel(tp, False),
        "PrefsSimpRet": lambda: _simple(tp, False, False),
        "PrefsPairRet": lambda: _pairs(tp, False, False),
        "PrefsAvgJGRet": lambda: _per_group(tp, False, False),
        "PrefsAvgJGRnonrelRet": lambda: _rnonrel(tp, True),
        "PrefsSimpImp": lambda: _simple(tp, True, False),
        "PrefsPairImp": lambda: _pairs(tp, True, False),
        "PrefsAvgJGImp": lambda: _per_group(tp, True, False),
    }
    return {name: compute[name]() for name in measures}


# ----------------------------------------------------------------------------- runs


def _rankings(frame: pl.DataFrame, depth: int | None, source: str) -> dict[str, list[str]]:
    """Each topic's docnos in trec_eval's preference order: score descending, docno ascending
    (bytewise), cut at ``depth``; a document twice in a topic is an error."""
    import polars as pl

    ordered = frame.select("topic", "docno", pl.col("score") + 0.0).sort(  # + 0.0: −0 ties with 0
        ["topic", "score", pl.col("docno").cast(pl.Binary)], descending=[False, True, False])
    out = {}
    for (topic,), part in ordered.group_by("topic", maintain_order=True):
        docnos = part["docno"].to_list()[:depth] if depth is not None else part["docno"].to_list()
        if len(set(docnos)) < len(docnos):
            seen: set[str] = set()
            twice = next(d for d in docnos if d in seen or seen.add(d))
            lines = frame.filter((pl.col("topic") == topic) & (pl.col("docno") == twice))
            line = int(lines["line"].sort()[1]) if "line" in lines.columns else None
            raise InputError(f"topic {topic!r}: document {twice!r} is retrieved twice", path=source, line=line)
        out[topic] = docnos
    return out


def evaluate_preferences(prefs, runs, measures=None, *, qrels: bool = False, depth: int | None = None,
                         complete: bool = False) -> dict[str, ScoreMatrix]:
    """Evaluate runs against preference judgments: one ScoreMatrix per measure (systems ×
    topics), with trec_eval's preference rules.

    ``prefs``: a prefs file or frame (:func:`read_prefs`; ``qrels=True`` reads a qrels file as
    trec_eval's ``-R qrels_prefs``); ``runs``: what :func:`irstats.evaluate` takes;
    ``measures``: irstats or trec_eval names (default: all 14); ``depth``: only the first
    ``depth`` documents of each ranking (trec_eval's -M); ``complete``: every judged topic,
    a topic a run did not answer scoring as an empty ranking (-c). Otherwise a run is scored
    on the judged topics it answers (NaN elsewhere).

    >>> import polars as pl
    >>> prefs = pl.DataFrame({"topic": ["q"] * 3, "jg": ["u"] * 3, "jsg": ["s"] * 3,
    ...                       "docno": ["a", "b", "c"], "level": [2.0, 1.0, 0.0]})
    >>> run = pl.DataFrame({"topic": ["q"] * 3, "docno": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
    >>> scores = evaluate_preferences(prefs, {"r": run}, ["PrefsSimp", "NumPrefsPoss"])
    >>> float(scores["PrefsSimp"].values[0, 0]), float(scores["NumPrefsPoss"].values[0, 0])
    (0.6666666666666666, 3.0)
    """
    from irstats.collection import RunSet
    from irstats.io.trec import check_run_values, read_run_file
    from irstats.scores import ScoreMatrix

    from irstats.checks import names as name_list, optional_whole

    names = list(MEASURES) if measures is None else [measure_name(m) for m in
                                                     name_list(measures, "measures", what="measure names")]
    optional_whole(depth, "depth", minimum=1)
    judgments = read_prefs(prefs, qrels=qrels)
    by_topic = {topic: part for (topic,), part in judgments.group_by("topic", maintain_order=True)}
    topics = bytewise_sorted(by_topic)
    run_set = RunSet.load(runs)
    values = np.full((len(names), len(run_set.parts), len(topics)), np.nan)
    for s, part in enumerate(run_set.parts):
        frame = part.frame if part.frame is not None else read_run_file(part.source)[1]
        check_run_values(frame, part.source, False)
        rankings = _rankings(frame, depth, part.source)
        for t, topic in enumerate(topics):
            if topic not in rankings and not complete:
                continue
            tp = topic_preferences(by_topic[topic], rankings.get(topic, []), topic)
            values[:, s, t] = list(topic_values(tp, names).values())
    return {name: ScoreMatrix(values[k], run_set.names, tuple(topics), name,
                              {"depth": depth, "complete": complete, "qrels": qrels},
                              "sum" if name in COUNTS else "mean")
            for k, name in enumerate(names)}


__all__ = ["COUNTS", "MEASURES", "PreferenceError", "TopicPreferences", "evaluate_preferences", "measure_name",
           "read_prefs", "topic_preferences", "topic_values"]
