"""From files to the judgments tensor: Collection (qrels), RunSet (runs) and the options.

The runs of a run set are stacked into one columnar frame, joined once with the qrels and
sorted once; positions within each (system, topic) come from numpy, and the grades are
scattered into the tensor in one assignment (DESIGN.md: one sort and one join).
"""

from __future__ import annotations

import gzip
import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

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
    cache: dict = field(default_factory=dict, repr=False)  # derived indexes (see judgments.qrels_index)

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
        if "g_max" not in self.cache:
            self.cache["g_max"] = int(self.qrels.get_column("rel").max())
        return self.cache["g_max"]


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
