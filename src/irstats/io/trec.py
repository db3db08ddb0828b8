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
import re
import stat
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence, Union, cast

from irstats.errors import ArgumentError, ArgumentTypeError, InputError, ResourceError, warn
from irstats.io.shapes import _is_frame  # (shapes sits below this module)

if TYPE_CHECKING:
    import polars as pl

PathLike = Union[str, os.PathLike]
QRELS_COLUMNS = ("topic", "docno", "rel")


# ----------------------------------------------------------------------------- paths


def expand_paths(spec: PathLike | Sequence[PathLike]) -> list[Path]:
    """Turn a file, a directory, a glob or a list of them into a sorted list of files.

    A directory stands for the regular files directly inside it (hidden files skipped);
    ``-`` is standard input, and pipes (``<(zcat run.gz)``) are taken as they are.
    """
    items = [spec] if isinstance(spec, (str, os.PathLike)) else _path_items(spec)
    paths: list[Path] = []
    for item in items:
        text = os.fspath(item)
        p = Path(text)
        if text == STDIN:
            if p in paths:
                raise InputError("standard input ('-') is given twice")
            paths.append(p)
        elif p.is_dir():
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


def _path_items(spec) -> list:
    """The items of a list of paths, each a str or os.PathLike."""
    from irstats.checks import kind_of

    what = "a file, a directory, a glob or a list of them"
    if isinstance(spec, (bytes, dict)) or not isinstance(spec, Iterable):
        raise ArgumentTypeError(f"expected {what}; got {kind_of(spec)}", argument="paths")
    items = list(spec)
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise ArgumentTypeError(f"expected {what}; the list holds {kind_of(item)}", argument="paths")
    return items


def path_name(path, argument: str = "path") -> str:
    """A file name given as text or a path object, as text; anything else names ``argument``."""
    if not isinstance(path, (str, os.PathLike)):
        from irstats.checks import kind_of

        raise ArgumentTypeError(f"{argument} must be a file name (str or os.PathLike); got {kind_of(path)}",
                                argument=argument)
    return os.fspath(path)


def run_name_from_path(path: Path) -> str:
    """The file name without ``.gz`` and then without ``.run``/``.txt``/``.trec``/``.eval``."""
    name = path.name
    for suffix in (".gz", ".run", ".txt", ".trec", ".eval"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name


# ----------------------------------------------------------------------------- lines

#: trec_eval's field separators: C's isspace() in the "C" locale. Ids are compared as bytes,
#: so no other character (a non-breaking space, a 0x1f byte) ever splits a field.
WHITESPACE = " \t\n\r\v\f"
_BLANKS = "[ \\t\\r\\x0B\\x0C]"  # the same set in a regular expression, newline excluded
STDIN = "-"

_read_once: dict[str, bytes] = {}  # standard input and pipes cannot be read twice


def is_gzip(path: PathLike) -> bool:
    """Whether a file starts with gzip's magic bytes."""
    return _read_start(path, 2) == b"\x1f\x8b"


def _read_start(path: PathLike, size: int) -> bytes:
    """The first ``size`` bytes of a file, without consuming a pipe or standard input."""
    name = path_name(path)
    if name not in _read_once and name != STDIN and _is_regular(name):
        try:
            with open(name, "rb") as fh:
                return fh.read(size)
        except OSError as exc:
            raise ResourceError.from_os_error(exc, name, doing="cannot read") from None
    return read_raw(path)[:size]


def _is_regular(name: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(name).st_mode)
    except OSError:
        return True  # let the read itself say what is wrong


def read_raw(path: PathLike) -> bytes:
    """A file's bytes as stored; ``-`` is standard input.

    Standard input, pipes and process substitutions (``<(zcat run.gz)``) can be read only
    once, so their bytes are kept for every later look at the same name.
    """
    name = path_name(path)
    if name in _read_once:
        return _read_once[name]
    try:
        if name == STDIN:
            data = sys.stdin.buffer.read()
        else:
            with open(name, "rb") as fh:
                regular = stat.S_ISREG(os.fstat(fh.fileno()).st_mode)
                data = fh.read()
            if regular:
                return data
    except IsADirectoryError:
        raise InputError("is a folder; expected a file", path=name) from None
    except FileNotFoundError:
        raise InputError("no such file", path=name) from None
    except OSError as exc:
        raise ResourceError.from_os_error(exc, name, doing="cannot read") from None
    _read_once[name] = data
    return data


def read_bytes(path: PathLike) -> bytes:
    """The file's content, decompressed if it is gzip (recognised by its magic bytes)."""
    data = read_raw(path)
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"corrupt gzip file ({exc})", path=os.fspath(path)) from None
    return data


def as_text(data: bytes, name: str) -> bytes:
    """The bytes of a TREC text file in the form the readers take, every id kept byte for byte.

    trec_eval compares topics and docnos as C strings (bytes). Polars needs UTF-8, so a file
    with bytes above 127 is read as Latin-1, which maps each byte to the character of the
    same number: distinct byte strings stay distinct, and their order (code point order) is
    the bytes' order. ASCII files, nearly all of them, pass through untouched.
    :func:`shown` turns such an id back into readable text. Binary data (a NUL byte) and
    UTF-16 text are refused, naming the file and line.
    """
    if b"\x00" in data:
        head = data[:2]
        if head in (b"\xff\xfe", b"\xfe\xff") or data[:64].count(b"\x00") >= 16:
            raise InputError("is not UTF-8 text (it looks like UTF-16: convert it, e.g. iconv -f UTF-16 -t UTF-8)",
                             path=name)
        at = data.index(b"\x00")
        raise InputError("is not a text file (a NUL byte)", path=name, line=data.count(b"\n", 0, at) + 1)
    if data.isascii():
        return data
    return data.decode("latin-1").encode("utf-8")


def shown(text: str) -> str:
    """An id read by :func:`as_text`, as the text a person expects (UTF-8 decoded)."""
    if text.isascii():
        return text
    try:
        return text.encode("latin-1").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # not an id read from a file
        return text


def read_lines(path: PathLike) -> pl.Series:
    """All lines of a file as a string Series; row i is line i + 1."""
    name = path_name(path)
    return text_lines(as_text(read_bytes(path), name), name)


def text_lines(text: bytes, name: str) -> pl.Series:
    """The lines of bytes made by :func:`as_text` as a string Series; row i is line i + 1."""
    import polars as pl

    if not text.strip():
        raise InputError("empty file", path=name)
    return pl.Series("line", [text.decode("utf-8")]).str.split("\n").explode()


def split_fields(lines: pl.Series) -> pl.DataFrame:
    """Split lines into a list column ``fields`` at runs of whitespace, as trec_eval does.

    Returns the content lines only (not blank, not starting with ``#``), with their 1-based
    ``line`` number. The common layouts (tab-only or single-space-only) take a literal
    split; anything else is normalised with a regular expression first.
    """
    import polars as pl

    frame = pl.DataFrame({"text": lines}).with_row_index("line", offset=1)
    stripped = pl.col("text").str.strip_chars(WHITESPACE)
    frame = frame.filter(stripped.is_not_null() & (stripped != "") & ~stripped.str.starts_with("#"))
    text = frame.get_column("text")
    has_space = bool(text.str.contains(" ", literal=True).any())
    has_tab = bool(text.str.contains("\t", literal=True).any())
    irregular = f"{_BLANKS}{_BLANKS}|^{_BLANKS}|{_BLANKS}$|[\\r\\x0B\\x0C]"
    if has_space != has_tab and not text.str.contains(irregular).any():
        fields = text.str.split(" " if has_space else "\t")
    else:
        fields = text.str.strip_chars(WHITESPACE).str.replace_all(f"{_BLANKS}+", " ").str.split(" ")
    return frame.select("line", fields.alias("fields"))


def check_field_count(parts: pl.DataFrame, bad: pl.Series, expected: str, name: str) -> None:
    """Raise on the first line whose field count is wrong, naming the file and line."""
    if bad.any():
        row = parts.filter(bad).row(0, named=True)
        raise InputError(f"expected {expected}, found {len(row['fields'])}", path=name, line=row["line"])


# ----------------------------------------------------------------------------- qrels


def read_columns(path: PathLike, columns: Sequence[str | None], layout: str) -> pl.DataFrame:
    """A file of whitespace-separated fields, as many on every line as ``columns`` names: the
    frame of its ``line`` number and each named column (None: a field read past), as text.
    A file with no such line, or a line with another number of fields, is an InputError
    naming the file and line and the ``layout`` expected (``"'topic iter docno rel'"``)."""
    import polars as pl

    name = path_name(path)
    parts = split_fields(read_lines(path))
    if parts.height == 0:
        raise InputError("no qrels lines (only comments or blank lines)", path=name)
    check_field_count(parts, parts.get_column("fields").list.len() != len(columns),
                      f"{len(columns)} fields {layout}", name)
    fields = pl.col("fields")
    return parts.select("line", *(fields.list.get(i).alias(c) for i, c in enumerate(columns) if c is not None))


def read_qrels_file(path: PathLike, *, on_duplicate: str = "error", labels: str = "real") -> pl.DataFrame:
    """Read one TREC qrels file (``topic iter docno rel``) into ``topic, docno, rel``.

    ``on_duplicate`` decides what a repeated (topic, docno) pair does: ``"error"``
    (default, as trec_eval), ``"max"`` (keep the highest grade) or ``"last"``.
    ``labels``: ``"real"`` reads whole-number grades as Int64 and real-valued labels
    (``0.37``, ``2.5``; negative = unjudged) as Float64; ``"atol"`` reads every grade as
    trec_eval does, its leading whole number (``2.5`` → 2).
    """
    name = path_name(path)
    frame = read_columns(path, ("topic", None, "docno", "rel_text"), "'topic iter docno rel'")
    rel = frame.get_column("rel_text")
    grades = _atol(rel) if labels == "atol" else _grades(rel)
    bad = grades.is_null()
    if bad.any():
        row = frame.filter(bad).row(0, named=True)
        expected = "an integer relevance grade" if labels == "atol" else "a number as the relevance grade"
        raise InputError(f"expected {expected}, found {row['rel_text']!r}", path=name, line=row["line"])
    frame = frame.with_columns(grades.alias("rel"))
    return _resolve_qrels_duplicates(frame.drop("rel_text"), name, on_duplicate)


def _grades(text: pl.Series) -> pl.Series:
    """Relevance grades from their text: whole numbers as Int64 (``2``, ``2.0``); real labels
    (``0.37``, ``2.5``) make the column Float64. Null where a value is not a finite number."""
    import polars as pl

    whole = text.cast(pl.Int64, strict=False)
    if not whole.null_count():
        return whole
    real = text.cast(pl.Float64, strict=False)
    real = pl.select(pl.when(real.is_finite()).then(real)).to_series().alias(text.name)
    integral = real.is_null() | (real.floor() == real)
    largest = cast("float | None", real.abs().max())  # None when no value is a number
    if integral.all() and (largest is None or largest <= 2.0 ** 53):  # whole and exact as Int64
        return real.cast(pl.Int64)
    return real


def _atol(text: pl.Series) -> pl.Series:
    """C's atol, as trec_eval reads grades: the leading whole number (``2.5`` → 2, ``0.37`` → 0);
    null when the text does not start with one."""
    import polars as pl

    return text.str.extract(r"^\s*([+-]?\d+)", 1).str.strip_chars_start("+").cast(pl.Int64, strict=False)


def _resolve_qrels_duplicates(frame: pl.DataFrame, name: str, on_duplicate: str) -> pl.DataFrame:
    import polars as pl

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
                f"(also on line {later[0]}); to keep the highest grade or the last: --qrels-duplicate max|last "
                f"on the command line, qrels_duplicate='max'|'last' in the API",
                path=name,
                line=int(later[1]),
            )
        if on_duplicate == "max":
            frame = frame.sort("rel").unique(["topic", "docno"], keep="last")
        elif on_duplicate == "last":
            frame = frame.unique(["topic", "docno"], keep="last", maintain_order=True)
        else:
            raise ArgumentError(f"on_duplicate must be 'error', 'max' or 'last', not {on_duplicate!r}",
                                argument="on_duplicate")
        kept = "highest grade" if on_duplicate == "max" else "last grade"
        warn(f"{name}: {int(dup.sum())} duplicate judgment lines resolved: the {kept} of each pair is kept")
    return frame.select(*QRELS_COLUMNS).sort(["topic", "docno"])


def qrels_from_frame(frame) -> pl.DataFrame:
    """Accept a polars or pandas DataFrame with ``topic, docno, rel`` columns.

    ir_measures/pandas names ``query_id, doc_id, relevance`` are accepted too.
    """
    import polars as pl

    frame = _to_polars(frame, "qrels")
    frame = _rename(frame, {"query_id": "topic", "doc_id": "docno", "relevance": "rel"})
    _require_columns(frame, QRELS_COLUMNS, "qrels DataFrame")
    _check_frame_columns(frame, "qrels", ids=("topic", "docno"), numbers=("rel",))
    rel = frame.get_column("rel")
    if rel.dtype.is_numeric():
        grades = _grades(rel.cast(pl.Float64).cast(pl.String)) if rel.dtype.is_float() else rel.cast(pl.Int64)
    else:
        grades = _grades(rel.cast(pl.String))
    if grades.null_count():
        row = int(grades.is_null().arg_true()[0])
        raise ArgumentError(f"qrels DataFrame: column 'rel' must hold numbers (whole-number grades or real-valued "
                            f"labels); row {row + 1} (counting from 1) has {rel[row]!r}", argument="qrels")
    out = pl.DataFrame([ids(frame.get_column("topic")), ids(frame.get_column("docno")), grades.alias("rel")])
    dup = out.select(pl.struct("topic", "docno").is_duplicated()).to_series()
    if dup.any():
        first = out.filter(dup).row(0, named=True)
        raise ArgumentError(f"qrels DataFrame: duplicate judgment for topic {first['topic']!r}, document "
                            f"{first['docno']!r}", argument="qrels")
    return out.sort(["topic", "docno"])


def read_qrels(source, *, on_duplicate: str = "error", labels: str = "real") -> pl.DataFrame:
    """Read qrels from a path (plain or gzip), several paths, or a DataFrame.

    Several files are concatenated; a (topic, docno) pair judged in two files is a duplicate.
    pytrec_eval/ranx/ir_datasets shapes are accepted too (:mod:`irstats.io.shapes`).
    """
    import polars as pl

    from irstats.io.shapes import qrels_shape

    if not (isinstance(on_duplicate, str) and on_duplicate in ("error", "max", "last")):
        raise ArgumentError(f"on_duplicate must be 'error', 'max' or 'last', not {on_duplicate!r}",
                            argument="on_duplicate")
    if not (isinstance(labels, str) and labels in ("real", "atol")):
        raise ArgumentError(f"labels must be 'real' or 'atol', not {labels!r}", argument="labels")
    source = qrels_shape(source)
    if _is_frame(source):
        return qrels_from_frame(source)
    paths = expand_paths(source)
    if not paths:
        raise ArgumentError("qrels: no qrels given (an empty list of files)", argument="qrels")
    frames = [read_qrels_file(p, on_duplicate=on_duplicate, labels=labels) for p in paths]
    if len(frames) == 1:
        return frames[0]
    merged = pl.concat(frames, how="vertical_relaxed").with_row_index("line", offset=1)
    return _resolve_qrels_duplicates(merged, " + ".join(map(str, paths)), on_duplicate)


# ----------------------------------------------------------------------------- runs


def run_schema() -> dict:
    """The columns of a run file as the fast scanner reads them."""
    import polars as pl

    return {"topic": pl.String, "q0": pl.String, "docno": pl.String, "rank": pl.String, "score": pl.Float64,
            "tag": pl.String}


def fast_separator(data: bytes) -> str | None:
    """The separator to try the fast CSV scanner with: tab or space, or None if both occur.

    Only single-byte searches here (they run at memory speed); lines the scanner cannot take
    as they are (comments, runs of blanks, stray fields) show up as unreadable or incomplete
    rows after the scan, and that file is then re-read line by line (:func:`read_run_file`).
    """
    has_tab, has_space = b"\t" in data, b" " in data
    if has_tab == has_space or b"\r" in data or b"\v" in data or b"\f" in data:
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
    import polars as pl

    return (
        pl.scan_csv(data if isinstance(data, bytes) else os.fspath(data), separator=separator, has_header=False, quote_char=None, schema=run_schema())
        .with_row_index("line", offset=1)
        .select("topic", "q0", "docno", "rank", "score", "tag", pl.col("line").cast(pl.Int64))
    )


def first_tag(text: bytes) -> str:
    """The tag (sixth field) of the first content line of a run file ("" if irregular).

    ``text`` is the start of the file as :func:`as_text` gives it.
    """
    for raw in text.split(b"\n", 64)[:64]:
        fields = raw.split()  # bytes.split() splits at ASCII whitespace, as trec_eval does
        if fields and not fields[0].startswith(b"#"):
            return fields[5].decode("utf-8") if len(fields) >= 6 else ""  # the careful reader will take over
    return ""


def last_line_tag(path: PathLike) -> str | None:
    """The sixth field of a run file's last line that is not blank (trec_eval prints that
    line's tag as ``runid``: each line's tag overwrites the one before), as :func:`as_text`
    would give it; None when that line has fewer fields.

    A plain regular file is read from its end, a block at a time, so a multi-GB run already
    read by the scanner is not read again; gzip files, pipes and standard input (kept by
    :func:`read_raw`) are taken whole."""
    name = path_name(path)
    if name in _read_once or name == STDIN or not _is_regular(name) or is_gzip(name):
        last = as_text(read_bytes(path), name).rstrip().rsplit(b"\n", 1)[-1]
        fields = last.split()
        return fields[5].decode("utf-8") if len(fields) >= 6 else None
    block, tail = 1 << 16, b""
    try:
        with open(name, "rb") as fh:
            position = fh.seek(0, os.SEEK_END)
            while position > 0:  # until the tail holds a whole last line (a newline before it)
                step = min(block, position)
                position -= step
                fh.seek(position)
                tail = fh.read(step) + tail
                if b"\n" in tail.rstrip():
                    break
    except OSError as exc:
        raise ResourceError.from_os_error(exc, name, doing="cannot read") from None
    fields = tail.rstrip().rsplit(b"\n", 1)[-1].split()  # bytes.split(): ASCII whitespace, as as_text keeps it
    return as_text(fields[5], name).decode("utf-8") if len(fields) >= 6 else None


def read_run_file(path: PathLike, *, need_rank: bool = False) -> tuple[str, pl.DataFrame]:
    """Read one TREC run file (``topic Q0 docno rank score tag``) line by line, carefully.

    Returns the run's tag (the first line's; judging warns if later lines differ) and a frame
    with ``topic, docno, rank, score, tag, line``. Fields after the sixth are ignored, as
    trec_eval ignores them. Bad lines raise :class:`InputError` naming the file and line.
    """
    return parse_run_lines(read_lines(path), path_name(path), need_rank=need_rank)


def parse_run_lines(lines: pl.Series, name: str, *, need_rank: bool = False) -> tuple[str, pl.DataFrame]:
    """:func:`read_run_file` on lines already read (:func:`text_lines`)."""
    import polars as pl

    parts = split_fields(lines)
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
    import polars as pl

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
    import polars as pl

    frame = _to_polars(frame, "runs")
    frame = _rename(frame, {"query_id": "topic", "doc_id": "docno", "run": "system", "tag": "system", "name": "system"})
    _require_columns(frame, ("topic", "docno", "score"), "run DataFrame")
    _check_frame_columns(frame, "runs", ids=tuple(c for c in ("system", "topic", "docno") if c in frame.columns),
                         numbers=("score",), scalars=("rank",))
    if "system" not in frame.columns:
        frame = frame.with_columns(pl.lit(default_name).alias("system"))
    if "rank" not in frame.columns:
        frame = frame.with_columns(pl.int_range(1, pl.len() + 1).over("system", "topic").alias("rank"))
    frame = frame.with_columns(ids(frame.get_column(c)) for c in ("system", "topic", "docno"))
    given = frame
    frame = frame.with_row_index("line", offset=1).select(
        pl.col("system"),
        pl.col("topic"),
        pl.col("docno"),
        pl.col("rank").cast(pl.String),
        pl.col("score").cast(pl.Float64, strict=False),
        pl.col("system").alias("tag"),
        pl.col("line").cast(pl.Int64),
    )
    score = frame.get_column("score")
    bad = score.is_null() | score.is_nan()
    if bad.any():
        row = int(bad.arg_true()[0])
        raise ArgumentError(f"run DataFrame: column 'score' must hold numbers (no NaN); row {row + 1} (counting "
                            f"from 1) has {given.get_column('score')[row]!r}", argument="runs")
    runs: dict[str, pl.DataFrame] = {}
    for (system,), part in frame.partition_by("system", as_dict=True, maintain_order=True).items():
        runs[system] = part.select("topic", "docno", "rank", "score", "tag", "line")
    return runs


# ----------------------------------------------------------------------------- name lists


def read_names(path: PathLike, what: str = "system") -> list[str]:
    """Names (of systems or runs) from a file, one per line; blank lines and ``#`` comments
    (whole lines, or after whitespace) are skipped. ``-`` is standard input."""
    name = path_name(path)
    names = []
    for raw in read_bytes(path).decode("utf-8", "replace").splitlines():
        text = re.split(r"(?:^|\s)#", raw, maxsplit=1)[0].strip()
        if text:
            names.append(text)
    if not names:
        raise InputError(f"no {what} names in the file (one name per line expected)", path=name)
    return names


# ----------------------------------------------------------------------------- helpers


def id_of(text: str) -> str:
    """One id given as Python text, in the byte-for-byte form of ids read from files."""
    return text if text.isascii() else text.encode("utf-8").decode("latin-1")


def ids(column: pl.Series) -> pl.Series:
    """Ids given as Python text, in the byte-for-byte form of ids read from files (:func:`as_text`)."""
    import polars as pl

    text = column.cast(pl.String)
    if (text.str.len_bytes() == text.str.len_chars()).all():  # ASCII: nothing to do
        return text
    return text.map_elements(id_of, return_dtype=pl.String)


def _to_polars(frame, argument: str = "frame") -> pl.DataFrame:
    """A polars DataFrame; a pandas one is converted. A LazyFrame is refused (collect it first:
    irstats does not run a query on the caller's behalf)."""
    import polars as pl

    if isinstance(frame, pl.DataFrame):
        return frame
    if isinstance(frame, pl.LazyFrame):
        raise ArgumentTypeError(f"{argument}: a polars LazyFrame is not a DataFrame; call .collect() on it first",
                                argument=argument)
    try:
        return pl.from_pandas(frame)
    except Exception as exc:  # noqa: BLE001 - anything pandas-like that polars cannot take
        raise ArgumentError(f"{argument}: cannot convert the {type(frame).__name__} to a polars DataFrame "
                            f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})",
                            argument=argument) from None


def _check_frame_columns(frame: pl.DataFrame, argument: str, ids: Sequence[str] = (),
                         numbers: Sequence[str] = (), scalars: Sequence[str] = ()) -> None:
    """Columns of a qrels or run frame hold one value per row: ids (text or numbers, never null)
    and numbers (or their text) — no list, struct or object column; a null id names its row."""
    import polars as pl

    what = "qrels DataFrame" if argument == "qrels" else "run DataFrame"
    for column in (*ids, *numbers, *scalars):
        if column not in frame.columns:
            continue
        dtype = frame.schema[column]
        if dtype.is_nested() or dtype == pl.Object or dtype.is_temporal() or dtype == pl.Binary:
            kind = "ids (text or whole numbers)" if column in ids else "numbers" if column in numbers else "one value"
            raise ArgumentTypeError(f"{what}: column {column!r} must hold {kind} per row, not {dtype}",
                                    argument=argument)
    for column in ids:
        nulls = frame.get_column(column).is_null()
        if nulls.any():
            row = int(nulls.arg_true()[0]) + 1
            raise ArgumentError(f"{what}: column {column!r} is empty (null) in row {row} (counting from 1); every "
                                f"row needs a {column}", argument=argument)


def _rename(frame: pl.DataFrame, mapping: dict[str, str]) -> pl.DataFrame:
    usable = {old: new for old, new in mapping.items() if old in frame.columns and new not in frame.columns}
    return frame.rename(usable) if usable else frame


def _require_columns(frame: pl.DataFrame, columns: Iterable[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ArgumentError(f"{what}: missing column(s) {', '.join(missing)}; has {', '.join(frame.columns)}",
                            argument="qrels" if what.startswith("qrels") else "runs")
