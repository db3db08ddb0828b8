"""From files to the judgments tensor: Collection (qrels), RunSet (runs) and the options.

The runs of a run set are stacked into one columnar frame, joined once with the qrels and
sorted once; positions within each (system, topic) come from numpy, and the grades are
scattered into the tensor in one assignment (DESIGN.md: one sort and one join).
"""

from __future__ import annotations

import gzip
import os
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import polars as pl

from irstats.errors import InputError, warn
from irstats.io.trec import (
    check_run_values,
    expand_paths,
    fast_separator,
    first_tag,
    is_gzip,
    read_bytes,
    read_qrels,
    read_run_file,
    run_from_frame,
    run_name_from_path,
    scan_run_bytes,
)
from irstats.judgments import PADDING, UNJUDGED, Judgments, QrelsFacts

ORDERS = ("score", "rank", "file")


@dataclass(frozen=True)
class EvalOptions:
    """How runs are turned into ranked lists and which topics count (METHODS.md §1).

    rel_level        ℓ: a document is relevant iff grade >= ℓ (trec_eval -l).
    complete         score topics missing from a run as empty runs, average over all qrels
                     topics (trec_eval -c).
    depth            keep the first M documents per topic after ordering; None = unlimited
                     (trec_eval -M; default 1000, the TREC submission depth).
    judged_only      condensed lists: drop unjudged documents after truncation (trec_eval -J).
    order            "score" (score descending, then docno descending: trec_eval), "rank"
                     (rank column ascending, ties in file order) or "file" (file order).
    score_dtype      "float64" (trec_eval 10) or "float32" (trec_eval <= 9, pytrec_eval).
    on_duplicate     a docno twice in one topic of a run: "error" or "first" (keep the first
                     occurrence after ordering, with a warning).
    qrels_duplicate  a (topic, docno) judged twice: "error", "max" or "last".
    negative_rel     "unjudged" (trec_eval: in the pool but unjudged) or "nonrel".
    drop_r0          leave out topics with no relevant document.
    trec_eval_compat reproduce trec_eval's quirks (rbp_resid 0 when nothing is unjudged).
    g_max            the top grade for graded RBP and ERR (default: the qrels' largest).
    """

    rel_level: int = 1
    complete: bool = False
    depth: int | None = 1000
    judged_only: bool = False
    order: str = "score"
    score_dtype: str = "float64"
    on_duplicate: str = "error"
    qrels_duplicate: str = "error"
    negative_rel: str = "unjudged"
    drop_r0: bool = False
    trec_eval_compat: bool = False
    g_max: int | None = None

    def __post_init__(self):
        order = "score" if self.order == "trec_eval" else self.order
        object.__setattr__(self, "order", order)
        checks = {
            "order": (self.order, ORDERS),
            "score_dtype": (self.score_dtype, ("float64", "float32")),
            "on_duplicate": (self.on_duplicate, ("error", "first")),
            "qrels_duplicate": (self.qrels_duplicate, ("error", "max", "last")),
            "negative_rel": (self.negative_rel, ("unjudged", "nonrel")),
        }
        for name, (value, allowed) in checks.items():
            if value not in allowed:
                raise InputError(f"option {name} must be one of {', '.join(allowed)}; got {value!r}")
        if self.depth is not None and self.depth < 1:
            raise InputError(f"option depth must be at least 1 (or None for unlimited); got {self.depth}")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Collection:
    """Judgments of a test collection: qrels lines and their sorted topic list."""

    qrels: pl.DataFrame  # topic, docno, rel
    topics: tuple[str, ...]  # every topic with a qrels line, sorted bytewise
    source: str | None = None

    @classmethod
    def load(cls, qrels, *, qrels_duplicate: str = "error") -> "Collection":
        """Read qrels from a path, paths or a DataFrame (see :func:`irstats.io.read_qrels`)."""
        frame = read_qrels(qrels, on_duplicate=qrels_duplicate)
        if frame.height == 0:
            raise InputError("the qrels hold no judgments")
        # Python orders str by code point, which is the bytewise order of their UTF-8 forms.
        topics = tuple(sorted(frame.get_column("topic").unique().to_list()))
        source = os.fspath(qrels) if isinstance(qrels, (str, os.PathLike)) else None
        return cls(frame, topics, source)

    @property
    def g_max(self) -> int:
        return int(self.qrels.get_column("rel").max())


@dataclass
class RunPart:
    """One run before it is judged: its tag, where it came from, and how to read it.

    Files in a plain layout (tab- or space-separated) are scanned by the fast CSV reader
    from their path when they are judged, so no run is held in memory before its batch;
    ``separator`` is None for runs already read (DataFrames, or files re-read carefully by
    the line reader, which names a bad line).
    """

    tag: str
    source: str
    size: int
    separator: str | None = None
    frame: pl.DataFrame | None = None  # topic, docno, rank (str), score, tag, line

    @property
    def careful(self) -> bool:
        return self.separator is None

    def lazy(self) -> pl.LazyFrame:
        if self.frame is not None:
            return self.frame.lazy()
        data = read_bytes(self.source) if is_gzip(self.source) else self.source
        return scan_run_bytes(data, self.separator)


@dataclass
class RunSet:
    """Several runs over the same topics, read batch by batch when judged."""

    names: tuple[str, ...]
    parts: list[RunPart]

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(p.source for p in self.parts)

    @classmethod
    def load(cls, runs) -> "RunSet":
        """Runs from paths, a directory, a glob, a DataFrame or a {name: DataFrame} dict."""
        parts: list[RunPart] = []
        if isinstance(runs, dict):
            for name, frame in runs.items():
                for sub in run_from_frame(frame, default_name=str(name)).values():
                    sub = sub.with_columns(pl.lit(str(name)).alias("tag"))
                    parts.append(RunPart(str(name), "DataFrame", sub.estimated_size(), frame=sub))
        elif isinstance(runs, pl.DataFrame) or type(runs).__name__ == "DataFrame":
            for name, frame in run_from_frame(runs).items():
                parts.append(RunPart(name, "DataFrame", frame.estimated_size(), frame=frame))
        else:
            for path in expand_paths(runs):
                parts.append(_open_file(path))
        if not parts:
            raise InputError("no runs given")
        return cls(tuple(_unique_names(parts)), parts)

    def batches(self, max_bytes: int = 48 << 20) -> list[list[int]]:
        """Consecutive groups of runs of about ``max_bytes`` of text each (at least one run)."""
        groups: list[list[int]] = [[]]
        total = 0
        for i, part in enumerate(self.parts):
            if groups[-1] and total + part.size > max_bytes:
                groups.append([])
                total = 0
            groups[-1].append(i)
            total += part.size
        return groups

    def diagnose(self, index: int, need_rank: bool = False) -> None:
        """Re-read one run carefully so that its first bad line raises an InputError."""
        part = self.parts[index]
        frame = read_run_file(part.source, need_rank=need_rank)[1] if part.frame is None else part.frame
        check_run_values(frame, part.source, need_rank)

    def reread_carefully(self, index: int) -> None:
        """Replace a fast-scanned run by the careful line-by-line reading of its file."""
        part = self.parts[index]
        tag, frame = read_run_file(part.source)
        self.parts[index] = RunPart(tag, part.source, part.size, frame=frame)


_PEEK = 1 << 16


def _open_file(path: Path) -> RunPart:
    """Look at the start of a run file: its tag and whether the fast scanner can take it."""
    size = path.stat().st_size
    if is_gzip(path):
        with gzip.open(path, "rb") as fh:
            try:
                head = fh.read(_PEEK)
            except (OSError, EOFError) as exc:
                raise InputError(f"corrupt gzip file ({exc})", path=str(path)) from None
        size *= 4  # a rough text size, for batching
    else:
        with open(path, "rb") as fh:
            head = fh.read(_PEEK)
    if not head.strip():
        raise InputError("empty file", path=str(path))
    separator = fast_separator(head)
    if separator is None:
        tag, frame = read_run_file(path)
        return RunPart(tag, str(path), size, frame=frame)
    return RunPart(first_tag(head, separator), str(path), size, separator)


def _unique_names(parts: list[RunPart]) -> list[str]:
    """Run tags, with file names standing in for tags that several runs share."""
    counts = Counter(p.tag for p in parts)
    names = []
    for tag, source in ((p.tag, p.source) for p in parts):
        if counts[tag] > 1 and source != "DataFrame":
            names.append(run_name_from_path(Path(source)))
        else:
            names.append(tag)
    clashes = [n for n, c in Counter(names).items() if c > 1]
    if clashes:
        raise InputError(f"several runs are named {clashes[0]!r} (by tag and by file name); rename one")
    replaced = [tag for tag, c in counts.items() if c > 1]
    if replaced:
        warn(f"run tag {replaced[0]!r} is used by several files; those runs are named by file name")
    return names


# Odd 64-bit constants that spread small integers over the hash space.
_TOPIC_MIX = 0x9E3779B97F4A7C15
_SYSTEM_MIX = 0xC2B2AE3D27D4EB4F


def _doc_key(tidx: pl.Expr) -> pl.Expr:
    """A 64-bit key for (topic, docno): joins and duplicate checks on integers, not strings."""
    return pl.col("docno").hash(seed=20081) ^ (tidx.cast(pl.UInt64) * _TOPIC_MIX)


def build_judgments(collection: Collection, runset: RunSet, options: EvalOptions,
                    systems: list[int] | None = None) -> Judgments:
    """The judgments tensor of a run set (or of the runs ``systems``) against a collection.

    Implements METHODS.md §1.4–1.8: ordering, depth, duplicate handling, condensation and
    which topics count. The tensor's system axis follows ``systems`` (default: all runs).
    """
    systems = list(range(len(runset.parts))) if systems is None else list(systems)
    topics = collection.topics
    n_sys, n_top = len(systems), len(topics)
    frame = _collect_runs(runset, systems, topics, options)
    qrels = collection.qrels.with_columns(pl.col("topic").cast(pl.Enum(topics)).to_physical().alias("tidx"))
    frame = _join_grades(frame, qrels)
    frame = _order(frame, options.order)
    sys_idx = frame.get_column("sys").to_numpy()
    top_idx = frame.get_column("tidx").to_numpy()
    position = _positions(sys_idx, top_idx)

    present = np.zeros((n_sys, n_top), dtype=bool)
    present[sys_idx[position == 0], top_idx[position == 0]] = True

    if options.on_duplicate == "first":
        first = frame.select(pl.struct("sys", "tidx", "docno").is_first_distinct()).to_series().to_numpy()
        if not first.all():
            warn(f"{int((~first).sum())} repeated documents in runs dropped (on_duplicate='first')")
            frame, sys_idx, top_idx = frame.filter(first), sys_idx[first], top_idx[first]
            position = _positions(sys_idx, top_idx)
    if options.depth is not None:
        keep = position < options.depth
        if not keep.all():
            frame, sys_idx, top_idx, position = frame.filter(keep), sys_idx[keep], top_idx[keep], position[keep]
    if options.on_duplicate == "error":
        _check_duplicates(frame, runset, systems)

    rel = frame.get_column("rel")
    grade = rel.fill_null(UNJUDGED).to_numpy()
    if options.negative_rel == "unjudged":
        grade = np.where(grade < 0, UNJUDGED, grade)
    else:
        grade = np.where(rel.is_null().to_numpy(), UNJUDGED, np.maximum(grade, 0))
    del frame, rel
    if options.judged_only:
        judged = grade >= 0
        sys_idx, top_idx, grade = sys_idx[judged], top_idx[judged], grade[judged]
        position = _positions(sys_idx, top_idx)

    dtype = np.int8 if collection.g_max <= np.iinfo(np.int8).max else np.int32
    width = int(position.max()) + 1 if len(position) else 1
    grades = np.full((n_sys, n_top, width), PADDING, dtype=dtype)
    grades[sys_idx, top_idx, position] = grade
    n_ret = np.bincount(sys_idx.astype(np.int64) * n_top + top_idx, minlength=n_sys * n_top).reshape(n_sys, n_top)

    qrels_rel = qrels.get_column("rel").to_numpy().astype(np.int64)
    if options.negative_rel == "nonrel":
        qrels_rel = np.maximum(qrels_rel, 0)
    g_max = options.g_max if options.g_max is not None else collection.g_max
    facts = QrelsFacts(qrels.get_column("tidx").to_numpy().astype(np.int64), qrels_rel, n_top, int(g_max))
    if options.complete:
        present[:] = True
    names = tuple(runset.names[i] for i in systems)
    return Judgments(grades, n_ret, present, names, topics, facts, options.rel_level, options.trec_eval_compat)


def _collect_runs(runset: RunSet, systems: list[int], topics: tuple[str, ...], options: EvalOptions) -> pl.DataFrame:
    """Stack the runs ``systems`` in one parallel scan: ``sys, tidx, key, docno, score, rank, line``.

    ``sys`` numbers the runs 0.. in the order of ``systems``.

    Rows whose topic is not in the qrels are dropped (with a warning); a run with no topic
    in common with the qrels is an error naming its file.
    """
    enum = pl.Enum(topics)
    need_rank = options.order == "rank"
    lazies = []
    for i, part in enumerate(runset.parts[k] for k in systems):
        tidx = pl.col("topic").cast(enum, strict=False).to_physical()
        score = pl.col("score")
        if options.score_dtype == "float32":
            # trec_eval <= 9 and pytrec_eval store scores as C floats: round through float32.
            score = score.cast(pl.Float32).cast(pl.Float64)
        lazies.append(part.lazy().select(
            pl.lit(i, dtype=pl.UInt32).alias("sys"), tidx.alias("tidx"), "topic", "docno", score.alias("score"),
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
        return _collect_runs(runset, systems, topics, options)
    frame = frame.filter(pl.col("topic").is_not_null() | pl.col("docno").is_not_null())  # blank lines

    bad_score = frame.get_column("score").is_nan()
    bad_rank = frame.get_column("rank").cast(pl.Int64, strict=False).is_null() if need_rank else None
    for bad in (bad_score, bad_rank):
        if bad is not None and bad.any():
            runset.diagnose(systems[int(frame.filter(bad).get_column("sys")[0])], need_rank)
    _check_topics_and_tags(frame, runset, systems)
    frame = frame.filter(pl.col("tidx").is_not_null())
    return frame.select("sys", "tidx", _doc_key(pl.col("tidx")).alias("key"), "topic", "docno", "score",
                        pl.col("rank").cast(pl.Int64, strict=False) if need_rank else pl.lit(0).alias("rank"),
                        "line")


def _collects(lazy: pl.LazyFrame) -> bool:
    try:
        lazy.collect()
    except pl.exceptions.PolarsError:
        return False
    return True


def _irregular_runs(frame: pl.DataFrame) -> list[int]:
    """Fast-scanned runs with rows the scanner could not take as they are."""
    blank = pl.all_horizontal(pl.col("topic", "docno", "score", "tag").is_null())
    odd = (pl.col("topic").is_null() | pl.col("docno").is_null() | pl.col("score").is_null()
           | pl.col("tag").is_null() | pl.col("topic").str.starts_with("#") | (pl.col("docno") == ""))
    return frame.filter(odd & ~blank & ~pl.col("careful")).get_column("sys").unique().sort().to_list()


def _join_grades(frame: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """Add each ranked document's qrels grade (``rel``, null when unjudged).

    Joins on the 64-bit (topic, docno) key and then confirms every match by comparing the
    docno strings, so a hash collision can never mislabel a document; in that unlikely
    case, or if two qrels keys collide, it joins on the strings instead.
    """
    right = qrels.select(_doc_key(pl.col("tidx")).alias("key"), "rel", pl.col("docno").alias("qrels_docno"))
    exact = right.get_column("key").n_unique() == right.height
    if exact:
        joined = frame.join(right, on="key", how="left", maintain_order="left")
        matched = joined.get_column("rel").is_not_null()
        exact = not (matched & (joined.get_column("docno") != joined.get_column("qrels_docno"))).any()
    if not exact:
        joined = frame.join(qrels.select("tidx", "docno", "rel"), on=["tidx", "docno"], how="left",
                            maintain_order="left")
    return joined.drop("qrels_docno", strict=False)


def _order(frame: pl.DataFrame, order: str) -> pl.DataFrame:
    """Arrange rows in blocks per (system, topic), each in ranking order (METHODS.md §1.4).

    Runs are usually written in ranking order already: when every block is contiguous and
    in order, the frame is kept as it is; when only tied scores are out of docno order,
    just the tied rows are reordered. Otherwise the frame is sorted.
    """
    if frame.height < 2:
        return frame
    sys_idx = frame.get_column("sys").to_numpy()
    top_idx = frame.get_column("tidx").to_numpy()
    boundary = (sys_idx[1:] != sys_idx[:-1]) | (top_idx[1:] != top_idx[:-1])
    starts = np.concatenate(([0], np.flatnonzero(boundary) + 1))
    block_keys = sys_idx[starts].astype(np.int64) * (int(top_idx.max()) + 1) + top_idx[starts]
    contiguous = len(np.unique(block_keys)) == len(starts)
    if contiguous and order == "file":
        return frame  # rows are in file order within each run
    if contiguous and order == "rank":
        rank = frame.get_column("rank").to_numpy()
        if np.all((rank[:-1] <= rank[1:]) | boundary):
            return frame
    if contiguous and order == "score":
        score = frame.get_column("score").to_numpy()
        if np.all((score[:-1] >= score[1:]) | boundary):
            return _order_ties(frame, score, boundary)
    if order == "score":
        return frame.sort(["sys", "tidx", "score", "docno"], descending=[False, False, True, True])
    if order == "rank":
        return frame.sort(["sys", "tidx", "rank", "line"])
    return frame.sort(["sys", "tidx", "line"])


def _order_ties(frame: pl.DataFrame, score: np.ndarray, boundary: np.ndarray) -> pl.DataFrame:
    """Put runs of tied scores in docno-descending order (trec_eval), leaving the rest alone."""
    tie = np.flatnonzero((score[:-1] == score[1:]) & ~boundary)
    if len(tie) == 0:
        return frame
    rows = np.unique(np.concatenate((tie, tie + 1)))
    block = np.concatenate(([0], np.cumsum(boundary)))[rows]
    tied = pl.DataFrame({"row": rows, "block": block, "score": score[rows],
                         "docno": frame.get_column("docno").gather(rows)})
    # Sorting the tied rows by (block, score desc, docno desc) keeps each tie in its own slots.
    reordered = tied.sort(["block", "score", "docno"], descending=[False, True, True]).get_column("row").to_numpy()
    if np.array_equal(reordered, rows):
        return frame
    permutation = np.arange(frame.height)
    permutation[rows] = reordered
    return frame[permutation]


def _positions(sys_idx: np.ndarray, top_idx: np.ndarray) -> np.ndarray:
    """0-based position of each row within its (system, topic) block of a sorted frame."""
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


def _check_topics_and_tags(frame: pl.DataFrame, runset: RunSet, systems: list[int]) -> None:
    """Each run needs a topic in common with the qrels; other topics and tags are noted."""
    stats = (
        frame.group_by("sys")
        .agg(
            pl.col("tidx").is_not_null().any().alias("common"),
            pl.col("topic").filter(pl.col("tidx").is_null()).n_unique().alias("extra"),
            pl.col("topic").first().alias("example"),
            pl.col("line").filter(pl.col("other_tag")).first().alias("other_tag_line"),
        )
        .sort("sys")
    )
    for row in stats.iter_rows(named=True):
        part, name = runset.parts[systems[row["sys"]]], runset.names[systems[row["sys"]]]
        if not row["common"]:
            raise InputError(f"run {name!r} has no topic in common with the qrels (its first topic is "
                             f"{row['example']!r})", path=part.source)
        if row["extra"]:
            warn(f"run {name!r}: {row['extra']} topic(s) not in the qrels are ignored")
        if row["other_tag_line"] is not None:
            warn(f"{part.source}:{row['other_tag_line']}: run tag differs from the first line's {part.tag!r}; "
                 f"using {part.tag!r}")


def _check_duplicates(frame: pl.DataFrame, runset: RunSet, systems: list[int]) -> None:
    """A docno twice in one topic of a run is an error, as in trec_eval."""
    # Equal 64-bit keys (sorted, adjacent) flag candidates; the docno strings confirm them.
    keys = frame.get_column("key").to_numpy() ^ (frame.get_column("sys").to_numpy().astype(np.uint64)
                                                  * np.uint64(_SYSTEM_MIX))
    ordered = np.sort(keys)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if len(repeated) == 0:
        return
    candidates = frame.filter(np.isin(keys, repeated))
    dup = candidates.select(pl.struct("sys", "tidx", "docno").is_duplicated()).to_series()
    if not dup.any():
        return
    hits = candidates.filter(dup).sort("line")
    first = hits.row(0, named=True)
    same_doc = hits.filter((pl.col("sys") == first["sys"]) & (pl.col("tidx") == first["tidx"])
                           & (pl.col("docno") == first["docno"]))
    raise InputError(
        f"document {first['docno']!r} appears twice for topic {first['topic']!r} (first on line "
        f"{same_doc['line'][0]}); use on_duplicate='first' (--on-duplicate first) to keep the first occurrence",
        path=runset.parts[systems[first["sys"]]].source,
        line=int(same_doc["line"][1]),
    )
