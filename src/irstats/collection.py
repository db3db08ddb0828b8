"""From files to the judgments tensor: Collection (qrels), RunSet (runs) and the options.

The runs of a run set are stacked into one columnar frame, joined once with the qrels and
sorted once; positions within each (system, topic) come from numpy, and the grades are
scattered into the tensor in one assignment (DESIGN.md: one sort and one join).
"""

from __future__ import annotations

import os
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Hashable, TypeVar

import numpy as np

from irstats.errors import MAX_WHOLE, ArgumentError, ArgumentTypeError, InputError, warn
from irstats.io.trec import (
    as_text,
    check_run_values,
    expand_paths,
    fast_separator,
    first_tag,
    id_of,
    parse_run_lines,
    read_bytes,
    read_qrels,
    read_raw,
    read_run_file,
    run_from_frame,
    run_name_from_path,
    scan_run_bytes,
    shown,
    STDIN,
    text_lines,
    _read_once,
    _read_start,
)

if TYPE_CHECKING:
    import polars as pl

ORDERS = ("score", "rank", "file")

#: What a memoised computation gives (Collection.memo).
_T = TypeVar("_T")

#: How documents of equal score (equal rank under "rank" order) are ordered: EvalOptions.ties.
TIES = ("docno", "file", "expected")


def relevance_level(value) -> int | float:
    """A relevance level ℓ >= 0: whole numbers as int (``2``, ``2.0``), real levels as float."""
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not number or not 0 <= value <= MAX_WHOLE:  # (NaN and ±inf fail the comparison)
        raise ArgumentError(f"option rel_level must be a number from 0 to {MAX_WHOLE}; got {value!r}",
                            argument="rel_level")
    return int(value) if float(value).is_integer() else float(value)


def _top_grade(value) -> int | float:
    """g_max > 0: whole numbers as int, a real top grade (real-valued labels) as float."""
    number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not number or not np.isfinite(value) or value <= 0:
        raise ArgumentError(f"option g_max must be a number above 0; got {value!r}", argument="g_max")
    return int(value) if float(value).is_integer() else float(value)


def whole_number(name: str, value, minimum: int | None = None, maximum: int | None = None, note: str = "") -> int:
    """``value`` as an int if it is a whole number within the bounds; otherwise an error naming
    the option. Every option of a count, depth or level goes through here, from the API and
    the command line alike, so that it means the same everywhere."""
    from irstats.checks import whole

    return whole(value, name, minimum, maximum, note=note, label=f"option {name}")


@dataclass(frozen=True)
class EvalOptions:
    """How runs are turned into ranked lists and which topics count (METHODS.md §1).

    rel_level        ℓ: a document is relevant iff grade >= ℓ (trec_eval -l); a number >= 0 (real
                     levels for real-valued labels; a whole number is held as an int).
    complete         score topics missing from a run as empty runs, average over all qrels
                     topics (trec_eval -c).
    depth            keep the first M documents per topic after ordering; None = unlimited
                     (trec_eval -M; default 1000, the TREC submission depth); 0 keeps none,
                     as in trec_eval.
    judged_only      condensed lists: drop unjudged documents after truncation (trec_eval -J).
    order            "score" (score descending, then docno descending: trec_eval), "rank"
                     (rank column ascending, ties in file order) or "file" (file order).
    ties             documents of equal score ("rank" order: equal rank): "docno" (trec_eval's
                     rule, docno descending; under "rank" order, file order as before), "file"
                     (file order among equals) or "expected" (every measure's expected value over
                     all orderings of the tied documents, McSherry & Najork 2008; docs/ties.md).
    score_dtype      "float64" (trec_eval 10) or "float32" (trec_eval <= 9, pytrec_eval).
    on_duplicate     a docno twice in one topic of a run: "error" or "first" (keep the first
                     occurrence after ordering, with a warning).
    qrels_duplicate  a (topic, docno) judged twice: "error", "max" or "last".
    negative_rel     "unjudged" (trec_eval: in the pool but unjudged) or "nonrel".
    drop_r0          leave out topics with no relevant document.
    trec_eval_compat reproduce trec_eval's quirks (rbp_resid 0 when nothing is unjudged).
    g_max            the top grade for graded RBP and ERR (default: the qrels' largest).
    """

    rel_level: int | float = 1
    complete: bool = False
    depth: int | None = 1000
    judged_only: bool = False
    order: str = "score"
    ties: str = "docno"
    score_dtype: str = "float64"
    on_duplicate: str = "error"
    qrels_duplicate: str = "error"
    negative_rel: str = "unjudged"
    drop_r0: bool = False
    trec_eval_compat: bool = False
    g_max: int | float | None = None

    def __new__(cls, *args, **fields):
        """Refuse an option that does not exist (a typo such as ``rel_levle=2``) by name, before
        the dataclass' own ``__init__`` would raise a bare TypeError."""
        known = cls.__dataclass_fields__
        unknown = [name for name in fields if name not in known]
        if unknown:
            import difflib

            close = difflib.get_close_matches(unknown[0], known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ArgumentTypeError(f"unknown option {unknown[0]!r}{hint}; the options are {', '.join(known)}",
                                    argument=unknown[0])
        if len(args) > len(known):
            raise ArgumentTypeError(f"EvalOptions takes at most {len(known)} options, got {len(args)} positional "
                                    "arguments; give them by name", argument="options")
        return super().__new__(cls)

    def __post_init__(self):
        order = "score" if self.order == "trec_eval" else self.order
        object.__setattr__(self, "order", order)
        checks = {
            "order": (self.order, ORDERS),
            "ties": (self.ties, TIES),
            "score_dtype": (self.score_dtype, ("float64", "float32")),
            "on_duplicate": (self.on_duplicate, ("error", "first")),
            "qrels_duplicate": (self.qrels_duplicate, ("error", "max", "last")),
            "negative_rel": (self.negative_rel, ("unjudged", "nonrel")),
        }
        for name, (value, allowed) in checks.items():
            if not isinstance(value, str) or value not in allowed:
                raise ArgumentError(f"option {name} must be one of {', '.join(allowed)}; got {value!r}", argument=name)
        object.__setattr__(self, "rel_level", relevance_level(self.rel_level))
        if self.depth is not None:
            whole_number("depth", self.depth, minimum=0, maximum=MAX_WHOLE, note=" (or None for unlimited)")
        if self.g_max is not None:
            object.__setattr__(self, "g_max", _top_grade(self.g_max))
        for name in ("complete", "judged_only", "drop_r0", "trec_eval_compat"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ArgumentError(f"option {name} must be True or False; got {getattr(self, name)!r}", argument=name)

    def as_dict(self) -> dict:
        """The options by name (every value a number, a string, a bool or None: no deep copy needed,
        unlike dataclasses.asdict, which a ScoreMatrix per measure paid for)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


class Collection:
    """Judgments of a test collection: qrels lines and their sorted topic list.

    Ids are held byte for byte (:func:`irstats.io.trec.as_text`): ``topic_keys`` are the
    topics in that form, for joins; ``topics`` the same topics as text for people.

    A plain qrels file read by the compiled reader is held as arrays (``arrays``:
    :class:`irstats.qrels_arrays.QrelsArrays`, no frame library involved); ``qrels``, the frame
    ``topic, docno, rel`` sorted by topic and docno, is then built from them on first use.
    The engine's own path (the facts per topic, the compiled ranker's hash table) reads
    :meth:`line_topics` and :meth:`line_grades`, which never need the frame.
    """

    def __init__(self, qrels: pl.DataFrame | None, topic_keys: tuple[str, ...], source: str | None = None,
                 cache: dict | None = None, *, arrays=None):
        if qrels is None and arrays is None:
            raise ArgumentError("a Collection needs its qrels (a frame or the compiled reader's arrays)",
                                argument="qrels")
        self._qrels = qrels
        self.arrays = arrays
        self.topic_keys = tuple(topic_keys)  # every topic with a qrels line, sorted bytewise
        self.source = source
        self.cache = {} if cache is None else cache  # derived indexes (see judgments.qrels_index)

    def __repr__(self) -> str:
        return f"Collection({len(self.topic_keys)} topics, {self.num_lines} judgments, source={self.source!r})"

    @property
    def qrels(self) -> pl.DataFrame:
        """The judgments as a frame: ``topic, docno, rel``, sorted by topic and docno."""
        if self._qrels is None:
            self._qrels = self.arrays.frame()
        return self._qrels

    @property
    def num_lines(self) -> int:
        """The number of judgments (qrels lines)."""
        return len(self.arrays.tidx) if self._qrels is None else self._qrels.height

    def line_topics(self) -> np.ndarray:
        """Each judgment's topic as its position in ``topic_keys`` (int64), in ``qrels`` order."""
        def compute():
            if self.arrays is not None:
                return self.arrays.tidx
            import polars as pl

            return (self.qrels.get_column("topic").cast(pl.Enum(self.topic_keys)).to_physical().to_numpy()
                    .astype(np.int64))

        return self.memo("line_topics", compute)

    def line_grades(self) -> np.ndarray:
        """Each judgment's grade as read (int64; float64 for real-valued labels), in ``qrels`` order."""
        return self.arrays.rel if self.arrays is not None else self.qrels.get_column("rel").to_numpy()

    def docno_blob(self) -> bytes:
        """Every judgment's docno as its bytes, joined by ``\\n``, in ``qrels`` order (ids hold no
        whitespace); UnicodeEncodeError for ids given as text that no file byte can match."""
        if self.arrays is not None:
            return self.arrays.docnos
        return self.qrels.get_column("docno").str.join("\n").item().encode("latin-1")

    def memo(self, key: Hashable, compute: Callable[[], _T]) -> _T:
        """What ``compute()`` gives, kept for this collection under ``key`` (the qrels' derived
        indexes: facts, the join index, the compiled path's hash table)."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    @property
    def topics(self) -> tuple[str, ...]:
        """The topics as text, in the order of ``topic_keys``."""
        return self.memo("topics", lambda: tuple(shown(t) for t in self.topic_keys))

    @classmethod
    def load(cls, qrels, *, qrels_duplicate: str = "error", labels: str = "real",
             byte_ids: bool = False) -> "Collection":
        """Read qrels from a path, paths or a DataFrame (see :func:`irstats.io.read_qrels`;
        ``labels``: ``"atol"`` reads grades as trec_eval does). ``byte_ids``: topics are also
        *shown* as the bytes read (:meth:`with_byte_ids`).

        One plain file goes to the compiled reader first (:func:`irstats.qrels_arrays.read_qrels_arrays`);
        whatever it does not take as it is (comments aside: another field count, a grade that
        is not a whole number, a pair judged twice …) is read by the careful reader, which
        applies every rule and names the file and line of any error."""
        source = os.fspath(qrels) if isinstance(qrels, (str, os.PathLike)) else None
        arrays = _compiled_qrels(qrels) if labels in ("real", "atol") else None
        if arrays is not None:
            collection = cls(None, arrays.topics, source, arrays=arrays)
        else:
            frame = read_qrels(qrels, on_duplicate=qrels_duplicate, labels=labels)
            if frame.height == 0:
                raise InputError("the qrels hold no judgments")
            # Python orders str by code point, which is the bytewise order of the ids' bytes.
            topics = tuple(sorted(frame.get_column("topic").unique().to_list()))
            collection = cls(frame, topics, source)
        if byte_ids:
            collection.cache["topics"] = collection.topic_keys
        return collection

    @classmethod
    def with_byte_ids(cls, frame: pl.DataFrame, source: str | None = None) -> "Collection":
        """Qrels already read (``topic, docno, rel`` in the byte-for-byte form of
        :func:`irstats.io.trec.as_text`) whose topics are also *shown* in that form: the
        trec_eval drop-in prints ids as the bytes it read, not as decoded text."""
        keys = tuple(sorted(frame.get_column("topic").unique().to_list()))
        collection = cls(frame, keys, source)
        collection.cache["topics"] = keys
        return collection

    @property
    def g_max(self) -> int | float:
        """The largest grade (label) in the qrels: the top of graded gains."""
        def compute():
            top = self.line_grades().max()
            return float(top) if self.labels is not None else int(top)

        return self.memo("g_max", compute)

    @property
    def labels(self) -> np.ndarray | None:
        """Real-valued labels: every distinct label >= 0 (and 0), ascending. The engine holds
        a document's label as its position in this array (its *code*), so integer machinery
        serves real labels; None for whole-number grades, whose codes are the grades."""
        def compute():
            values = self.line_grades()
            if not np.issubdtype(values.dtype, np.floating):
                return None
            return np.unique(np.concatenate(([0.0], values[values >= 0])))

        return self.memo("labels", compute)

    @property
    def max_code(self) -> int:
        """The largest grade code (what the judgments tensor's integer type must hold)."""
        return len(self.labels) - 1 if self.labels is not None else max(int(self.g_max), 0)


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
        """The run's rows; a file that turns out not to be in the plain layout after its first
        64 KiB is read by the careful reader instead (and ``careful`` becomes True)."""
        if self.frame is not None:
            return self.frame.lazy()
        assert self.separator is not None  # a part without a frame is a file in the plain layout
        text = as_text(read_bytes(self.source), self.source)
        if fast_separator(text) != self.separator:
            self.frame = parse_run_lines(text_lines(text, self.source), self.source)[1]
            self.separator = None
            return self.frame.lazy()
        return scan_run_bytes(text, self.separator)


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
        """Runs from paths, a directory, a glob, a DataFrame or a {name: DataFrame} dict, or
        any shape of :mod:`irstats.io.shapes` (pytrec_eval dicts, ranx Runs, records)."""
        from irstats.io.shapes import run_shape

        runs = run_shape(runs)
        parts: list[RunPart] = []
        if isinstance(runs, dict):
            import polars as pl

            for name, frame in runs.items():
                tag = id_of(str(name))
                for sub in run_from_frame(frame, default_name=str(name)).values():
                    sub = sub.with_columns(pl.lit(tag).alias("tag"))
                    parts.append(RunPart(tag, "DataFrame", int(sub.estimated_size()), frame=sub))  # bytes: an int (polars types any unit)
        elif type(runs).__name__ == "DataFrame":  # polars or pandas
            for name, frame in run_from_frame(runs).items():
                parts.append(RunPart(name, "DataFrame", int(frame.estimated_size()), frame=frame))
        else:
            for path in expand_paths(runs):
                parts.append(_open_file(path))
        if not parts:
            raise ArgumentError("no runs given: runs is empty", argument="runs")
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
    name = str(path)
    start = _read_start(path, _PEEK)
    size = path.stat().st_size if name not in _read_once and name != STDIN else len(read_raw(path))
    if start[:2] == b"\x1f\x8b":
        try:
            start = zlib.decompressobj(wbits=31).decompress(start, _PEEK)
        except zlib.error as exc:
            raise InputError(f"corrupt gzip file ({exc})", path=name) from None
        size *= 4  # a rough text size, for batching
    head = as_text(start, name)
    if not head.strip():
        raise InputError("empty file", path=name)
    separator = fast_separator(head)
    if separator is None:
        tag = first_tag(head)
        if tag and _compiled_path():
            # The compiled reader takes any run of whitespace: try it first. If it declines the
            # file, RunPart.lazy sees that no single separator fits and reads it carefully.
            return RunPart(tag, name, size, ANY_WHITESPACE)
        tag, frame = read_run_file(path)
        return RunPart(tag, name, size, frame=frame)
    return RunPart(first_tag(head), name, size, separator)


def _compiled_qrels(qrels):
    """One plain qrels file by the compiled reader, or None (see :meth:`Collection.load`)."""
    if not isinstance(qrels, (str, os.PathLike)) or not _compiled_path():
        return None
    from irstats.qrels_arrays import read_qrels_arrays

    paths = expand_paths(qrels)
    return read_qrels_arrays(paths[0]) if len(paths) == 1 else None


#: RunPart.separator of a file in no single-separator layout, left to the compiled reader.
ANY_WHITESPACE = "whitespace"


def _compiled_path() -> bool:
    from irstats.extension import available

    return available()


def _unique_names(parts: list[RunPart]) -> list[str]:
    """Run tags as text, with file names standing in for tags that several runs share."""
    counts = Counter(p.tag for p in parts)
    names = []
    for tag, source in ((p.tag, p.source) for p in parts):
        if counts[tag] > 1 and source != "DataFrame":
            names.append(run_name_from_path(Path(source)))
        else:
            names.append(shown(tag))
    clashes = [n for n, c in Counter(names).items() if c > 1]
    if clashes:
        raise InputError(f"several runs are named {clashes[0]!r} (by tag and by file name); rename one")
    replaced = [shown(tag) for tag, c in counts.items() if c > 1]
    if replaced:
        warn(f"run tag {replaced[0]!r} is used by several files; those runs are named by file name")
    return names
