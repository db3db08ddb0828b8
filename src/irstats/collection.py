"""From files to the judgments tensor: Collection (qrels), RunSet (runs) and the options.

The runs of a run set are stacked into one columnar frame, joined once with the qrels and
sorted once; positions within each (system, topic) come from numpy, and the grades are
scattered into the tensor in one assignment (DESIGN.md: one sort and one join).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import polars as pl

from irstats.errors import InputError, warn
from irstats.io.trec import expand_paths, read_qrels, read_run_file, run_from_frame, run_name_from_path
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
class RunSet:
    """Several runs as one frame: ``sys`` (index into ``names``), topic, docno, rank, score, line."""

    names: tuple[str, ...]
    frame: pl.DataFrame
    sources: tuple[str, ...]  # the file (or "DataFrame") each run came from

    @classmethod
    def load(cls, runs, *, score_dtype: str = "float64", need_rank: bool = False) -> "RunSet":
        """Read runs from paths, a directory, a glob, a DataFrame or a {name: DataFrame} dict."""
        parts: list[tuple[str, str, pl.DataFrame]] = []  # (tag, source, frame)
        if isinstance(runs, dict):
            for name, frame in runs.items():
                for sub in run_from_frame(frame, default_name=str(name)).values():
                    parts.append((str(name), "DataFrame", sub))
        elif isinstance(runs, pl.DataFrame) or type(runs).__name__ == "DataFrame":
            for name, frame in run_from_frame(runs).items():
                parts.append((name, "DataFrame", frame))
        else:
            for path in expand_paths(runs):
                tag, frame = read_run_file(path, score_dtype=score_dtype, need_rank=need_rank)
                parts.append((tag, str(path), frame))
        if not parts:
            raise InputError("no runs given")
        names = _unique_names(parts)
        frames = [frame.with_columns(pl.lit(i, dtype=pl.UInt32).alias("sys")) for i, (_, _, frame) in enumerate(parts)]
        stacked = pl.concat(frames, how="vertical_relaxed") if len(frames) > 1 else frames[0]
        return cls(tuple(names), stacked, tuple(src for _, src, _ in parts))


def _unique_names(parts: list[tuple[str, str, pl.DataFrame]]) -> list[str]:
    """Run tags, with file names standing in for tags that several runs share."""
    counts = Counter(tag for tag, _, _ in parts)
    names = []
    for tag, source, _ in parts:
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


def build_judgments(collection: Collection, runset: RunSet, options: EvalOptions) -> Judgments:
    """The judgments tensor of a run set against a collection (METHODS.md §1.4–1.8)."""
    topics = collection.topics
    n_sys, n_top = len(runset.names), len(topics)
    frame = runset.frame.with_columns(
        pl.col("topic").cast(pl.Enum(topics), strict=False).to_physical().alias("tidx")
    )
    _check_topics(frame, runset, n_sys)
    frame = frame.filter(pl.col("tidx").is_not_null())

    present = np.zeros((n_sys, n_top), dtype=bool)
    pairs = frame.select("sys", "tidx").unique()
    present[pairs.get_column("sys").to_numpy(), pairs.get_column("tidx").to_numpy()] = True

    qrels = collection.qrels.with_columns(pl.col("topic").cast(pl.Enum(topics)).to_physical().alias("tidx"))
    frame = frame.join(qrels.select("tidx", "docno", "rel"), on=["tidx", "docno"], how="left")
    frame = _order(frame, options.order)
    sys_idx = frame.get_column("sys").to_numpy()
    top_idx = frame.get_column("tidx").to_numpy()
    position = _positions(sys_idx, top_idx)

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
        _check_duplicates(frame, runset)

    rel = frame.get_column("rel")
    grade = rel.fill_null(UNJUDGED).to_numpy()
    if options.negative_rel == "unjudged":
        grade = np.where(grade < 0, UNJUDGED, grade)
    else:
        grade = np.where(rel.is_null().to_numpy(), UNJUDGED, np.maximum(grade, 0))
    if options.judged_only:
        judged = grade >= 0
        sys_idx, top_idx, grade = sys_idx[judged], top_idx[judged], grade[judged]
        position = _positions(sys_idx, top_idx)

    dtype = np.int8 if collection.g_max <= np.iinfo(np.int8).max else np.int32
    width = int(position.max()) + 1 if len(position) else 1
    grades = np.full((n_sys, n_top, width), PADDING, dtype=dtype)
    grades[sys_idx, top_idx, position] = grade
    n_ret = np.zeros((n_sys, n_top), dtype=np.int64)
    np.add.at(n_ret, (sys_idx, top_idx), 1)

    qrels_rel = qrels.get_column("rel").to_numpy().astype(np.int64)
    if options.negative_rel == "nonrel":
        qrels_rel = np.maximum(qrels_rel, 0)
    g_max = options.g_max if options.g_max is not None else collection.g_max
    facts = QrelsFacts(qrels.get_column("tidx").to_numpy().astype(np.int64), qrels_rel, n_top, int(g_max))
    if options.complete:
        present[:] = True
    return Judgments(grades, n_ret, present, runset.names, topics, facts, options.rel_level, options.trec_eval_compat)


def _order(frame: pl.DataFrame, order: str) -> pl.DataFrame:
    """Sort rows by system, topic, then the ranking rule (METHODS.md §1.4)."""
    if order == "score":
        return frame.sort(["sys", "tidx", "score", "docno"], descending=[False, False, True, True])
    if order == "rank":
        return frame.sort(["sys", "tidx", "rank", "line"])
    return frame.sort(["sys", "tidx", "line"])


def _positions(sys_idx: np.ndarray, top_idx: np.ndarray) -> np.ndarray:
    """0-based position of each row within its (system, topic) block of a sorted frame."""
    n = len(sys_idx)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    key = sys_idx.astype(np.int64) * (int(top_idx.max()) + 1) + top_idx
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    lengths = np.diff(np.concatenate((starts, [n])))
    return np.arange(n) - np.repeat(starts, lengths)


def _check_topics(frame: pl.DataFrame, runset: RunSet, n_sys: int) -> None:
    """Each run needs a topic in common with the qrels; topics outside the qrels are noted."""
    stats = (
        frame.group_by("sys")
        .agg(pl.col("tidx").is_not_null().any().alias("common"), pl.col("topic").filter(pl.col("tidx").is_null())
             .unique().len().alias("extra"), pl.col("topic").first().alias("example"))
        .sort("sys")
    )
    for row in stats.iter_rows(named=True):
        name, source = runset.names[row["sys"]], runset.sources[row["sys"]]
        if not row["common"]:
            raise InputError(f"run {name!r} has no topic in common with the qrels (its first topic is "
                             f"{row['example']!r})", path=source)
        if row["extra"]:
            warn(f"run {name!r}: {row['extra']} topic(s) not in the qrels are ignored")


def _check_duplicates(frame: pl.DataFrame, runset: RunSet) -> None:
    """A docno twice in one topic of a run is an error, as in trec_eval."""
    # Hash first (cheap) and confirm exactly on the few candidate rows.
    key = frame.select(
        (pl.col("docno").hash(seed=7) ^ (pl.col("sys").cast(pl.UInt64) * (1 << 40)) ^ pl.col("tidx").cast(pl.UInt64))
        .is_duplicated()
    ).to_series()
    if not key.any():
        return
    candidates = frame.filter(key)
    dup = candidates.select(pl.struct("sys", "tidx", "docno").is_duplicated()).to_series()
    if not dup.any():
        return
    rows = candidates.filter(dup).sort("line")
    first = rows.row(0, named=True)
    same = rows.filter((pl.col("sys") == first["sys"]) & (pl.col("topic") == first["topic"])
                       & (pl.col("docno") == first["docno"]))
    raise InputError(
        f"document {first['docno']!r} appears twice for topic {first['topic']!r} (first on line {same['line'][0]}); "
        "use on_duplicate='first' (--on-duplicate first) to keep the first occurrence",
        path=runset.sources[first["sys"]],
        line=int(same["line"][1]),
    )
