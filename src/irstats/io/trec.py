"""Readers for TREC qrels and run files.

Files are read with polars as one string column of lines (so that a bad line can be named by
its number) and split into fields by vectorised string operations: there is no Python loop
over lines. Plain and gzip files are accepted; blank lines and lines whose first non-blank
character is ``#`` are skipped (METHODS.md §1.1–1.2).
"""

from __future__ import annotations

import glob
import gzip
import os
from pathlib import Path
from typing import Iterable, Sequence, Union

import polars as pl

from irstats.errors import InputError, warn

PathLike = Union[str, os.PathLike]
QRELS_COLUMNS = ("topic", "docno", "rel")


# ----------------------------------------------------------------------------- paths


def expand_paths(spec: PathLike | Sequence[PathLike]) -> list[Path]:
    """Turn a file, a directory, a glob or a list of them into a sorted list of files.

    A directory stands for the regular files directly inside it (hidden files skipped).
    """
    items = [spec] if isinstance(spec, (str, os.PathLike)) else list(spec)
    paths: list[Path] = []
    for item in items:
        text = os.fspath(item)
        p = Path(text)
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.is_file() and not q.name.startswith("."))
            if not found:
                raise InputError("directory holds no files", path=text)
            paths.extend(found)
        elif p.exists():
            paths.append(p)
        elif glob.has_magic(text):
            found = sorted(Path(q) for q in glob.glob(text) if Path(q).is_file())
            if not found:
                raise InputError("no file matches this pattern", path=text)
            paths.extend(found)
        else:
            raise InputError("no such file or directory", path=text)
    return paths


def run_name_from_path(path: Path) -> str:
    """The file name without ``.gz`` and then without ``.run``/``.txt``/``.trec``/``.eval``."""
    name = path.name
    for suffix in (".gz", ".run", ".txt", ".trec", ".eval"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name


# ----------------------------------------------------------------------------- lines


def is_gzip(path: PathLike) -> bool:
    """Whether a file starts with gzip's magic bytes."""
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def read_bytes(path: PathLike) -> bytes:
    """The file's content, decompressed if it is gzip (recognised by its magic bytes)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", path=os.fspath(path)) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputError(f"corrupt gzip file ({exc})", path=os.fspath(path)) from None
    return data


def read_lines(path: PathLike) -> pl.Series:
    """All lines of a file as a string Series; row i is line i + 1 (blank lines are null)."""
    data = read_bytes(path)
    if not data.strip():
        raise InputError("empty file", path=os.fspath(path))
    try:
        frame = pl.read_csv(
            data,
            has_header=False,
            separator="\x1f",
            quote_char=None,
            new_columns=["line"],
            schema_overrides={"line": pl.String},
            encoding="utf8-lossy",
        )
    except pl.exceptions.PolarsError as exc:  # e.g. the unit separator inside a line
        raise InputError(f"cannot be read as text lines ({exc})", path=os.fspath(path)) from None
    return frame.get_column("line")


def split_fields(lines: pl.Series) -> pl.DataFrame:
    """Split whitespace-separated lines into a list column ``fields``.

    Returns the content lines only, with their 1-based ``line`` number. The common layouts
    (tab-only or single-space-only) take a literal split; anything else is normalised with a
    regular expression first.
    """
    frame = pl.DataFrame({"text": lines}).with_row_index("line", offset=1)
    stripped = pl.col("text").str.strip_chars()
    frame = frame.filter(stripped.is_not_null() & (stripped != "") & ~stripped.str.starts_with("#"))
    text = frame.get_column("text")
    has_space = bool(text.str.contains(" ", literal=True).any())
    has_tab = bool(text.str.contains("\t", literal=True).any())
    irregular = r"\s\s|^\s|\s$|\r"  # runs of blanks, leading/trailing blanks, CR line ends
    if has_space != has_tab and not text.str.contains(irregular).any():
        fields = text.str.split(" " if has_space else "\t")
    else:
        fields = text.str.strip_chars().str.replace_all(r"\s+", " ").str.split(" ")
    return frame.select("line", fields.alias("fields"))


def check_field_count(parts: pl.DataFrame, bad: pl.Series, expected: str, name: str) -> None:
    """Raise on the first line whose field count is wrong, naming the file and line."""
    if bad.any():
        row = parts.filter(bad).row(0, named=True)
        raise InputError(f"expected {expected}, found {len(row['fields'])}", path=name, line=row["line"])


# ----------------------------------------------------------------------------- qrels


def read_qrels_file(path: PathLike, *, on_duplicate: str = "error") -> pl.DataFrame:
    """Read one TREC qrels file (``topic iter docno rel``) into ``topic, docno, rel``.

    ``on_duplicate`` decides what a repeated (topic, docno) pair does: ``"error"``
    (default, as trec_eval), ``"max"`` (keep the highest grade) or ``"last"``.
    """
    name = os.fspath(path)
    parts = split_fields(read_lines(path))
    if parts.height == 0:
        raise InputError("no qrels lines (only comments or blank lines)", path=name)
    check_field_count(parts, parts.get_column("fields").list.len() != 4, "4 fields 'topic iter docno rel'", name)
    fields = pl.col("fields")
    frame = parts.select(
        "line",
        fields.list.get(0).alias("topic"),
        fields.list.get(2).alias("docno"),
        fields.list.get(3).alias("rel_text"),
    ).with_columns(pl.col("rel_text").cast(pl.Int64, strict=False).alias("rel"))
    bad = frame.get_column("rel").is_null()
    if bad.any():
        row = frame.filter(bad).row(0, named=True)
        raise InputError(
            f"expected an integer relevance grade, found {row['rel_text']!r}", path=name, line=row["line"]
        )
    return _resolve_qrels_duplicates(frame.drop("rel_text"), name, on_duplicate)


def _resolve_qrels_duplicates(frame: pl.DataFrame, name: str, on_duplicate: str) -> pl.DataFrame:
    dup = frame.select(pl.struct("topic", "docno").is_duplicated()).to_series()
    if dup.any():
        if on_duplicate == "error":
            rows = frame.filter(dup)
            first = rows.row(0, named=True)
            later = rows.filter(
                (pl.col("topic") == first["topic"]) & (pl.col("docno") == first["docno"])
            ).get_column("line")
            raise InputError(
                f"duplicate judgment for topic {first['topic']!r}, document {first['docno']!r} "
                f"(also on line {later[0]}); use on_duplicate='max' or 'last' to accept it",
                path=name,
                line=int(later[1]),
            )
        if on_duplicate == "max":
            frame = frame.sort("rel").unique(["topic", "docno"], keep="last")
        elif on_duplicate == "last":
            frame = frame.unique(["topic", "docno"], keep="last", maintain_order=True)
        else:
            raise InputError(f"on_duplicate must be 'error', 'max' or 'last', not {on_duplicate!r}")
        warn(f"{name}: {int(dup.sum())} duplicate judgment lines resolved with on_duplicate={on_duplicate!r}")
    return frame.select(*QRELS_COLUMNS).sort(["topic", "docno"])


def qrels_from_frame(frame) -> pl.DataFrame:
    """Accept a polars or pandas DataFrame with ``topic, docno, rel`` columns.

    ir_measures/pandas names ``query_id, doc_id, relevance`` are accepted too.
    """
    frame = _to_polars(frame)
    frame = _rename(frame, {"query_id": "topic", "doc_id": "docno", "relevance": "rel"})
    _require_columns(frame, QRELS_COLUMNS, "qrels DataFrame")
    out = frame.select(
        pl.col("topic").cast(pl.String),
        pl.col("docno").cast(pl.String),
        pl.col("rel").cast(pl.Int64, strict=False),
    )
    if out.get_column("rel").is_null().any():
        raise InputError("qrels DataFrame: column 'rel' must hold integers")
    dup = out.select(pl.struct("topic", "docno").is_duplicated()).to_series()
    if dup.any():
        row = out.filter(dup).row(0, named=True)
        raise InputError(f"qrels DataFrame: duplicate judgment for topic {row['topic']!r}, document {row['docno']!r}")
    return out.sort(["topic", "docno"])


def read_qrels(source, *, on_duplicate: str = "error") -> pl.DataFrame:
    """Read qrels from a path (plain or gzip), several paths, or a DataFrame.

    Several files are concatenated; a (topic, docno) pair judged in two files is a duplicate.
    """
    if _is_frame(source):
        return qrels_from_frame(source)
    paths = expand_paths(source)
    frames = [read_qrels_file(p, on_duplicate=on_duplicate) for p in paths]
    if len(frames) == 1:
        return frames[0]
    merged = pl.concat(frames).with_row_index("line", offset=1)
    return _resolve_qrels_duplicates(merged, " + ".join(map(str, paths)), on_duplicate)


# ----------------------------------------------------------------------------- runs


RUN_SCHEMA = {"topic": pl.String, "q0": pl.String, "docno": pl.String, "rank": pl.String, "score": pl.Float64,
              "tag": pl.String}


def fast_separator(data: bytes) -> str | None:
    """The separator to try the fast CSV scanner with: tab or space, or None if both occur.

    Only single-byte searches here (they run at memory speed); lines the scanner cannot take
    as they are (comments, runs of blanks, stray fields) show up as unreadable or incomplete
    rows after the scan, and that file is then re-read line by line (:func:`read_run_file`).
    """
    has_tab, has_space = b"\t" in data, b" " in data
    if has_tab == has_space:
        return None
    return "\t" if has_tab else " "


def scan_run_bytes(data: bytes | PathLike, separator: str) -> pl.LazyFrame:
    """A lazy scan of a run file: ``topic, q0, docno, rank, score, tag, line``.

    Select every field when collecting: the scanner checks the field count of a line only
    when all columns are read (with a projection, a line with an extra field would shift).

    Row i is line i + 1 (a blank line gives a row of nulls). The scan fails at collection
    time on a ragged line or a non-numeric score; the caller then re-reads the file with
    :func:`read_run_file`, which names the line.
    """
    return (
        pl.scan_csv(data if isinstance(data, bytes) else os.fspath(data), separator=separator, has_header=False, quote_char=None, schema=RUN_SCHEMA)
        .with_row_index("line", offset=1)
        .select("topic", "q0", "docno", "rank", "score", "tag", pl.col("line").cast(pl.Int64))
    )


def first_tag(data: bytes, separator: str) -> str:
    """The tag (sixth field) of the first content line of a run file ("" if irregular)."""
    for raw in data.split(b"\n", 64)[:64]:
        line = raw.decode("utf8", "replace").rstrip("\r")
        if line.strip() and not line.lstrip().startswith("#"):
            fields = line.split()  # any whitespace, as the careful reader splits
            return fields[5] if len(fields) >= 6 else ""  # the careful reader will take over
    return ""


def read_run_file(path: PathLike, *, need_rank: bool = False) -> tuple[str, pl.DataFrame]:
    """Read one TREC run file (``topic Q0 docno rank score tag``) line by line, carefully.

    Returns the run's tag (the first line's; judging warns if later lines differ) and a frame
    with ``topic, docno, rank, score, tag, line``. Fields after the sixth are ignored. Bad
    lines raise :class:`InputError` naming the file and line.
    """
    name = os.fspath(path)
    parts = split_fields(read_lines(path))
    if parts.height == 0:
        raise InputError("no run lines (only comments or blank lines)", path=name)
    check_field_count(parts, parts.get_column("fields").list.len() < 6, "6 fields 'topic Q0 docno rank score tag'",
                       name)
    fields = pl.col("fields")
    frame = parts.select(
        pl.col("line").cast(pl.Int64),
        fields.list.get(0).alias("topic"),
        fields.list.get(2).alias("docno"),
        fields.list.get(3).alias("rank"),
        fields.list.get(4).alias("score_text"),
        fields.list.get(5).alias("tag"),
    )
    frame = frame.with_columns(pl.col("score_text").cast(pl.Float64, strict=False).alias("score"))
    check_run_values(frame, name, need_rank)
    return frame.get_column("tag")[0], frame.select("topic", "docno", "rank", "score", "tag", "line")


def check_run_values(frame: pl.DataFrame, name: str, need_rank: bool) -> None:
    """Raise on a missing or NaN score (and a non-integer rank when ranks are used)."""
    score = frame.get_column("score")
    bad = score.is_null() | score.is_nan()
    if bad.any():
        row = frame.filter(bad).row(0, named=True)
        raise InputError(f"expected a numeric score in field 5, found {row.get('score_text', row['score'])!r}",
                         path=name, line=row["line"])
    if need_rank:
        bad = frame.get_column("rank").cast(pl.Int64, strict=False).is_null()
        if bad.any():
            row = frame.filter(bad).row(0, named=True)
            raise InputError(f"expected an integer rank in field 4, found {row['rank']!r}", path=name,
                             line=row["line"])


def run_from_frame(frame, default_name: str = "run") -> dict[str, pl.DataFrame]:
    """Split a run DataFrame into runs by its ``system`` (or ``tag``/``run``) column.

    Columns ``topic, docno, score`` (or ``query_id, doc_id, score``) are required; ``rank``
    is optional (file order is used in its place).
    """
    frame = _to_polars(frame)
    frame = _rename(frame, {"query_id": "topic", "doc_id": "docno", "run": "system", "tag": "system", "name": "system"})
    _require_columns(frame, ("topic", "docno", "score"), "run DataFrame")
    if "system" not in frame.columns:
        frame = frame.with_columns(pl.lit(default_name).alias("system"))
    if "rank" not in frame.columns:
        frame = frame.with_columns(pl.int_range(1, pl.len() + 1).over("system", "topic").alias("rank"))
    frame = frame.with_row_index("line", offset=1).select(
        pl.col("system").cast(pl.String),
        pl.col("topic").cast(pl.String),
        pl.col("docno").cast(pl.String),
        pl.col("rank").cast(pl.String),
        pl.col("score").cast(pl.Float64, strict=False),
        pl.col("system").alias("tag"),
        pl.col("line").cast(pl.Int64),
    )
    if frame.get_column("score").is_null().any() or frame.get_column("score").is_nan().any():
        raise InputError("run DataFrame: column 'score' must hold numbers (no NaN)")
    runs: dict[str, pl.DataFrame] = {}
    for (system,), part in frame.partition_by("system", as_dict=True, maintain_order=True).items():
        runs[system] = part.select("topic", "docno", "rank", "score", "tag", "line")
    return runs


# ----------------------------------------------------------------------------- helpers


def _is_frame(obj) -> bool:
    return isinstance(obj, pl.DataFrame) or type(obj).__name__ == "DataFrame"


def _to_polars(frame) -> pl.DataFrame:
    if isinstance(frame, pl.DataFrame):
        return frame
    try:
        return pl.from_pandas(frame)
    except Exception as exc:  # noqa: BLE001 - anything pandas-like that polars cannot take
        raise InputError(f"cannot convert {type(frame).__name__} to a DataFrame ({exc})") from None


def _rename(frame: pl.DataFrame, mapping: dict[str, str]) -> pl.DataFrame:
    usable = {old: new for old, new in mapping.items() if old in frame.columns and new not in frame.columns}
    return frame.rename(usable) if usable else frame


def _require_columns(frame: pl.DataFrame, columns: Iterable[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{what}: missing column(s) {', '.join(missing)}; has {', '.join(frame.columns)}")
