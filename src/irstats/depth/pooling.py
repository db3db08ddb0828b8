"""Pool simulation: the qrels a depth-d pool of some contributing runs would have produced.

METHODS.md §5.5 and §2.3. Given qrels, the contributing runs (default: every run) and a
pool depth d, the simulated qrels keep exactly the qrels lines of documents that some
contributing run ranks at depth ≤ d (after the engine's ordering, trec_eval's by default,
and truncation at M); every other document becomes unjudged.

How it is computed. The engine builds its judgments tensor once against a copy of the
qrels whose grade column holds each line's *row number*: the tensor then tells, for every
system, topic and rank, which qrels line (if any) the ranked document is. Everything here
is a vectorised operation on that tensor:

- the shallowest rank at which a contributing run retrieves each qrels line
  (``first_rank``), hence the pool at any depth d′ (``first_rank ≤ d′``);
- R_k for AP_pool: relevant lines with ``first_rank ≤ min(k, d)``, for all k at once by a
  histogram over (topic, first rank) and a cumulative sum;
- the judgments tensor against the simulated qrels (grades looked up by line number) —
  the same tensor :func:`irstats.judgments.build_judgments` gives for the simulated qrels;
- the per-topic complete depth d_t.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import polars as pl

from irstats.collection import Collection, EvalOptions, RunSet, whole_number
from irstats.errors import InputError, warn
from irstats.evaluate import Evaluator
from irstats.io.trec import read_names  # noqa: F401 - kept importable from here
from irstats.judgments import (POOL_UNJUDGED, UNJUDGED, Judgments, grade_codes, grade_dtype, qrels_facts,
                               qrels_index)

_NEVER = np.iinfo(np.int64).max  # first_rank of a qrels line no contributing run retrieves


@dataclass
class RankedLines:
    """For every system, topic and rank: the row of the qrels line of the ranked document.

    ``lines[s, t, r]`` is a row of ``collection.qrels`` (≥ 0), ``UNJUDGED`` (−1) when the
    document has no qrels line, ``PADDING`` (−2) past the end of the list. ``n_ret`` and
    ``present`` are the engine's (METHODS.md §1.5–1.8).
    """

    lines: np.ndarray  # (S, T, K) int
    n_ret: np.ndarray  # (S, T)
    present: np.ndarray  # (S, T) bool
    systems: tuple[str, ...]
    topics: tuple[str, ...]  # the collection's topics (every topic with a qrels line)

    @property
    def depth(self) -> int:
        return self.lines.shape[2]


def ranked_lines(collection: Collection, runset: RunSet, options: EvalOptions,
                 systems: Sequence[int] | None = None) -> RankedLines:
    """The engine's judgments tensor with qrels row numbers in place of grades
    (:meth:`irstats.evaluate.Evaluator.judgments` on qrels whose grades are their row numbers)."""
    if options.ties == "expected":
        raise InputError("ties='expected' cannot simulate a judging pool: which tied documents enter the pool "
                         "depends on their order; use ties='docno' or 'file'")
    frame = collection.qrels.select("topic", "docno", pl.int_range(pl.len(), dtype=pl.Int64).alias("rel"))
    numbered = Collection(frame, collection.topic_keys, collection.source)
    opts = dataclasses.replace(options, judged_only=False, negative_rel="unjudged", g_max=None)
    lines = Evaluator(numbered, opts).judgments(runset, systems)
    return RankedLines(lines.grades, lines.n_ret, lines.present, lines.systems, collection.topics)


def complete_depth(judgments: Judgments, systems: Iterable[str] | None = None) -> np.ndarray:
    """Per topic, the largest d such that every given run has its whole top d judged (d_t).

    METHODS.md §5.5 (the paper's "12+" for ClueWeb09). Ranks past the end of a list count
    as judged (nothing there to judge), runs that do not cover a topic impose nothing, and
    the result is capped at the depth of the tensor. ``systems`` are run names (default:
    every system of the tensor). Returns an int array over ``judgments.topics``.
    """
    rows = _system_rows(judgments.systems, systems)
    grades = judgments.grades[rows]
    unjudged = (grades == UNJUDGED) | (grades == POOL_UNJUDGED)
    first = np.where(unjudged.any(axis=2), np.argmax(unjudged, axis=2), judgments.depth)
    first = np.where(judgments.present[rows], first, judgments.depth)
    if first.shape[0] == 0:
        return np.full(len(judgments.topics), judgments.depth, dtype=np.int64)
    return first.min(axis=0).astype(np.int64)


def judged_depth(judgments: Judgments, systems: Iterable[str] | None = None) -> int:
    """The depth the qrels judge the given runs to, robust to runs that were not pooled.

    Per run, the depth to which it is judged on every topic it covers (the minimum over
    topics of its own :func:`complete_depth`); then the median over runs, rounded down, at
    least 1. [CHOICE] The minimum over *runs* (what :func:`complete_depth` gives) is 1 as
    soon as one run was barely judged (a late or unpooled submission), which is what a
    depth-d pool would never show; the median needs half the runs to have been pooled.
    On TREC DL 2019 (pool depth 10) this gives 10.
    """
    rows = _system_rows(judgments.systems, systems)
    if not rows:
        return 1
    per_run = [int(complete_depth(judgments, [judgments.systems[r]]).min(initial=judgments.depth)) for r in rows]
    return max(1, int(np.floor(np.median(per_run))))


def _system_rows(names: Sequence[str], wanted: Iterable[str] | None, argument: str = "systems") -> list[int]:
    if wanted is None:
        return list(range(len(names)))
    from irstats.checks import names as name_list

    index = {n: i for i, n in enumerate(names)}
    rows = []
    for name in name_list(wanted, argument, what="run names"):
        if name not in index:
            raise InputError(f"no run named {name!r}; the runs are {', '.join(names)}")
        rows.append(index[name])
    return rows


@dataclass
class PoolSimulation:
    """The qrels of a simulated depth-d pool, and what the depth sweep needs from it.

    Build with :func:`simulate_pool`. ``qrels`` is the simulated qrels (``topic, docno,
    rel``: the original lines of pooled documents); :meth:`judgments` is the judgments
    tensor of every run against it; :meth:`r_k` gives R_k for AP_pool; :meth:`at_depth`
    re-pools at another depth without reading anything again.
    """

    pool_depth: int
    contributing: tuple[str, ...]
    collection: Collection  # the original qrels
    options: EvalOptions
    ranked: RankedLines
    first_rank: np.ndarray  # per original qrels line: shallowest contributing rank (1-based), or _NEVER
    simulated: bool = True  # False: the qrels as given, d only marks the judged depth
    _cache: dict = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ the simulated qrels
    @property
    def systems(self) -> tuple[str, ...]:
        """Every run of the simulation (contributing or not), in the run set's order."""
        return self.ranked.systems

    @property
    def in_pool(self) -> np.ndarray:
        """Boolean mask over the original qrels lines: kept by the simulated pool (all, when not simulated)."""
        if not self.simulated:
            return np.ones(len(self.first_rank), dtype=bool)
        return self.first_rank <= self.pool_depth

    @property
    def qrels(self) -> pl.DataFrame:
        """The simulated qrels, ``topic, docno, rel`` (a subset of the original lines)."""
        if "qrels" not in self._cache:
            kept = self.collection.qrels.filter(pl.Series(self.in_pool)).select("topic", "docno", "rel")
            if kept.height == 0:
                raise InputError(f"a pool of depth {self.pool_depth} over the contributing runs judges no document")
            self._cache["qrels"] = kept
        return self._cache["qrels"]

    @property
    def simulated_collection(self) -> Collection:
        """The simulated qrels as a :class:`~irstats.collection.Collection` (the original if not simulated)."""
        if not self.simulated:
            return self.collection
        if "collection" not in self._cache:
            simulated = Collection.load(self.qrels)
            # the original's label codes, so that a pooled line keeps its code (real-valued labels)
            simulated.cache["labels"] = self.collection.labels
            self._cache["collection"] = simulated
        return self._cache["collection"]

    @property
    def topics(self) -> tuple[str, ...]:
        """The topics of the simulated qrels (those with at least one pooled qrels line)."""
        return self.simulated_collection.topics

    @property
    def g_max(self) -> int | float:
        """The top grade used by graded RBP and ERR: the option, else the *original* qrels'.

        [CHOICE] The grading scale is a property of the collection, not of the pool: a
        shallow pool that happens to miss every top-grade document does not change it.
        """
        return self.options.g_max if self.options.g_max is not None else self.collection.g_max

    def write_qrels(self, path: str | os.PathLike) -> Path:
        """Write the simulated qrels as a TREC qrels file (``topic 0 docno rel``)."""
        from irstats.io.output import write_text

        path = Path(path)
        write_text(path, self.qrels.select("topic", pl.lit("0").alias("iter"), "docno", "rel").write_csv(
            separator=" ", include_header=False))
        return path

    def at_depth(self, pool_depth: int) -> "PoolSimulation":
        """The same runs and contributors pooled to another depth (nothing is read again)."""
        check_pool_depth(pool_depth, self.options)
        return PoolSimulation(int(pool_depth), self.contributing, self.collection, self.options, self.ranked,
                              self.first_rank, self.simulated)

    # ------------------------------------------------------------------ judgments
    def _line_grades(self) -> np.ndarray:
        """The grade of every original qrels line as the engine reads it (−3: pool-unjudged)."""
        rel = grade_codes(self.collection)
        if self.options.negative_rel == "nonrel":
            return np.maximum(rel, 0)
        return np.where(rel < 0, POOL_UNJUDGED, rel)

    def _judgments(self, keep: np.ndarray | None, collection: Collection) -> Judgments:
        lines = self.ranked.lines
        rel = self._line_grades()
        if keep is not None:
            rel = np.where(keep, rel, UNJUDGED)
        found = lines >= 0
        grades = np.where(found, rel[np.where(found, lines, 0)], lines)  # −1 and −2 stay as they are
        grades = grades.astype(grade_dtype(max(self.collection.max_code, int(rel.max(initial=0)))))
        topics = collection.topics
        columns = [self.ranked.topics.index(t) for t in topics]
        if len(columns) != len(self.ranked.topics):
            lost = len(self.ranked.topics) - len(columns)
            warn(f"{lost} topic(s) have no qrels line left in the simulated pool of depth {self.pool_depth}; "
                 "they are not evaluated")
            grades = grades[:, columns]
        facts = qrels_index(collection, dataclasses.replace(self.options, g_max=self.g_max)).facts
        return Judgments.of(grades, self.ranked.n_ret[:, columns], self.ranked.present[:, columns], self.systems,
                            topics, facts, self.options)

    def judgments(self) -> Judgments:
        """The judgments tensor of every run against the simulated qrels (unjudged = −1).

        Equal to :func:`irstats.judgments.build_judgments` on the simulated qrels with the
        simulation's options (``judged_only=False``); condensed lists come from
        :func:`irstats.depth.sweep.condense`.
        """
        if not self.simulated:
            return self.original_judgments()
        key = ("judgments", self.pool_depth)
        if key not in self._cache:
            self._cache[key] = self._judgments(self.in_pool, self.simulated_collection)
        return self._cache[key]

    def original_judgments(self) -> Judgments:
        """The judgments tensor of every run against the original (unsimulated) qrels."""
        if "original" not in self._cache:
            self._cache["original"] = self._judgments(None, self.collection)
        return self._cache["original"]

    # ------------------------------------------------------------------ pool facts
    def r_k(self, depths: Sequence[int] | np.ndarray, level: int | float | None = None) -> np.ndarray:
        """R_k per topic of the simulated qrels and per depth: shape (topics, len(depths)).

        R_k = relevant (grade ≥ ``level``, default the options' ℓ) qrels documents that
        some contributing run ranks in its top min(k, d) (METHODS.md §2.3); R_0 = 0 and
        R_k = R_d for k ≥ d. With the qrels as given (not simulated), every relevant line
        is in the pool at d, so R_d = R. All depths from one histogram and one cumulative sum.
        """
        level = self.options.rel_level if level is None else level
        depths = np.asarray(depths, dtype=np.int64)
        key = ("R_k", self.pool_depth, level)
        if key not in self._cache:
            d = self.pool_depth
            topics = self.topics
            rel = self._line_grades()
            index = {t: i for i, t in enumerate(topics)}
            line_topic = self.collection.qrels.get_column("topic").replace_strict(
                index, default=-1, return_dtype=pl.Int64).to_numpy()
            code = qrels_facts(self.collection, self.options).level_code(level)
            hit = (rel >= max(code, 0)) & self.in_pool & (line_topic >= 0)
            first = np.minimum(self.first_rank, d)  # given qrels: lines first met past d count at d
            counts = np.bincount(line_topic[hit] * (d + 1) + first[hit],
                                 minlength=len(topics) * (d + 1)).reshape(len(topics), d + 1)
            self._cache[key] = np.cumsum(counts, axis=1)  # column k: R_k for k = 0..d
        table = self._cache[key]
        return table[:, np.clip(depths, 0, self.pool_depth)]

    def complete_depth(self, systems: Iterable[str] | None = None) -> np.ndarray:
        """d_t per topic of the original qrels for the contributing runs (or ``systems``)."""
        return complete_depth(self.original_judgments(), self.contributing if systems is None else systems)

    def __repr__(self) -> str:
        if not self.simulated:
            return (f"PoolSimulation(qrels as given, judged depth {self.pool_depth}, {len(self.contributing)} of "
                    f"{len(self.systems)} runs contributing, {len(self.first_rank)} qrels lines)")
        return (f"PoolSimulation(depth {self.pool_depth}, {len(self.contributing)} of {len(self.systems)} runs "
                f"contributing, {int(self.in_pool.sum())} of {len(self.first_rank)} qrels lines kept)")


def check_pool_depth(pool_depth, options: EvalOptions) -> int:
    """The pool depth d as an int: a whole number from 1 to the evaluation depth M.

    Every command and API function that takes a pool depth checks it here.
    """
    whole_number("pool_depth", pool_depth, minimum=1)
    if options.depth is not None and pool_depth > options.depth:
        raise InputError(f"the pool depth {pool_depth} exceeds the evaluation depth M = {options.depth} "
                         "(raise depth=/--depth)")
    return int(pool_depth)


def _as_collection(qrels, options: EvalOptions) -> Collection:
    return qrels if isinstance(qrels, Collection) else Collection.load(qrels, qrels_duplicate=options.qrels_duplicate)


def _as_runset(runs) -> RunSet:
    return runs if isinstance(runs, RunSet) else RunSet.load(runs)


def simulate_pool(qrels, runs, pool_depth: int | None = None, contributing: Iterable[str] | None = None,
                  **options) -> PoolSimulation:
    """Simulate pooling ``contributing`` runs to ``pool_depth`` (METHODS.md §5.5).

    Parameters
    ----------
    qrels:
        A qrels path, paths, DataFrame or :class:`~irstats.collection.Collection`.
    runs:
        Run files, a directory, a glob, a DataFrame, a dict or a
        :class:`~irstats.collection.RunSet`: every run to be evaluated later.
    pool_depth:
        d. None = the complete depth of the qrels for the contributing runs,
        min over topics of d_t (the deepest d that keeps every judgment the contributing
        runs' top d has).
    contributing:
        Names of the runs that fed the pool (default: every run).
    **options:
        :class:`~irstats.collection.EvalOptions` fields (``depth`` M, ``order``,
        ``rel_level``, ``score_dtype``, ``g_max`` …). ``judged_only`` is ignored: the sweep
        computes both forms.

    >>> pool = simulate_pool("qrels.txt", "runs/", pool_depth=10)   # doctest: +SKIP
    >>> pool.qrels.height, pool.r_k([1, 5, 10, 100]).shape          # doctest: +SKIP
    """
    pool = _pool(qrels, runs, contributing, True, options)
    if pool_depth is None:
        d_t = pool.complete_depth()
        pool_depth = max(int(d_t.min(initial=pool.ranked.depth)), 1)
    check_pool_depth(pool_depth, pool.options)
    return pool.at_depth(int(pool_depth))


def given_pool(qrels, runs, pool_depth: int | None = None, contributing: Iterable[str] | None = None,
               **options) -> PoolSimulation:
    """The qrels as given, as a pool of judged depth ``pool_depth`` (nothing is dropped).

    What ``irstats volatility`` sweeps by default: the scores at depth k are exactly the
    engine's at ``-M k`` on the real qrels. ``pool_depth`` (d) only marks the judging depth
    for the statistics and figures; None = :func:`judged_depth` of the contributing runs
    (default every run). Arguments as :func:`simulate_pool`.

    >>> pool = given_pool("qrels.txt", "runs/")   # doctest: +SKIP
    >>> pool.pool_depth                           # doctest: +SKIP
    10
    """
    pool = _pool(qrels, runs, contributing, False, options)
    if pool_depth is None:
        pool_depth = judged_depth(pool.original_judgments(), pool.contributing)
    check_pool_depth(pool_depth, pool.options)
    return pool.at_depth(int(pool_depth))


def _pool(qrels, runs, contributing: Iterable[str] | None, simulated: bool, options: dict) -> PoolSimulation:
    """The runs ranked against the qrels once, with each qrels line's first contributing
    rank; :meth:`PoolSimulation.at_depth` then sets d."""
    opts = dataclasses.replace(EvalOptions(**options), judged_only=False)
    collection = _as_collection(qrels, opts)
    ranked = ranked_lines(collection, _as_runset(runs), opts)
    rows = _system_rows(ranked.systems, contributing, "contributing")
    if not rows:
        raise InputError("no contributing runs given")
    names = tuple(ranked.systems[i] for i in rows)
    first = _first_ranks(ranked.lines[rows], collection.qrels.height)
    return PoolSimulation(1, names, collection, opts, ranked, first, simulated)


def _first_ranks(lines: np.ndarray, n_lines: int) -> np.ndarray:
    """Per qrels line, the shallowest 1-based rank at which any of these runs has it."""
    found = lines >= 0
    ranks = np.broadcast_to(np.arange(1, lines.shape[2] + 1, dtype=np.int64), lines.shape)[found]
    first = np.full(n_lines, _NEVER, dtype=np.int64)
    np.minimum.at(first, lines[found].astype(np.int64), ranks)
    return first
