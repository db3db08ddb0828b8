"""ScoreMatrix: systems × topics scores of one measure, the hub of every later stage.

A score matrix converts to and from a tidy frame with the columns
``system, topic, measure, value`` (the *score file* of the command line), and so to TSV,
CSV, JSON and Parquet. NaN marks a topic that was not evaluated for a system.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, overload

import numpy as np

from irstats.checks import kind_of, names, numbers
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, NotFoundError, did_you_mean, some

if TYPE_CHECKING:
    import polars as pl

SCORE_COLUMNS = ("system", "topic", "measure", "value")


@dataclass
class ScoreMatrix:
    """Per-topic scores of one measure: ``values[i, j]`` is system i's score on topic j.

    ``over_topics`` is how :meth:`summaries` summarises a system: ``"mean"`` over its evaluated
    topics, or ``"sum"`` (the counts NumRet, NumRel, NumRelRet, as trec_eval does).
    ``options`` records how the scores were made (depth, level, …).
    """

    values: np.ndarray
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    measure: str
    options: dict = field(default_factory=dict)
    over_topics: str = "mean"

    def __post_init__(self):
        self.values = np.ascontiguousarray(numbers(self.values, "values"))
        self.systems, self.topics = names(self.systems, "systems"), names(self.topics, "topics")
        if self.values.shape != (len(self.systems), len(self.topics)):
            raise ArgumentError(f"values of shape {self.values.shape} do not fit "
                                f"{len(self.systems)} systems × {len(self.topics)} topics", argument="values")

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape

    def means(self) -> np.ndarray:
        """Each system's mean over the topics it was evaluated on (NaN if none), whatever the
        measure — the counts too (see :meth:`summaries` for trec_eval's sums)."""
        counted = ~np.isnan(self.values)
        totals = np.where(counted, self.values, 0.0).sum(axis=1)
        n = counted.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, totals / np.maximum(n, 1), np.nan)

    def summaries(self) -> np.ndarray:
        """Each system's summary as trec_eval prints it on its ``all`` line: the mean, or the
        sum over topics for the counts (``over_topics == "sum"``: NumRet, NumRel, NumRelRet)."""
        if self.over_topics == "sum":
            return np.where(~np.isnan(self.values), self.values, 0.0).sum(axis=1)
        return self.means()

    def num_topics(self) -> np.ndarray:
        """How many topics each system was evaluated on."""
        return (~np.isnan(self.values)).sum(axis=1)

    def topic_positions(self) -> dict[str, int]:
        """{topic: column}, built once per matrix (a lookup per topic stays O(1) on 10^5 topics)."""
        positions = self.__dict__.get("_topic_positions")
        if positions is None or len(positions) != len(self.topics):
            positions = {t: j for j, t in enumerate(self.topics)}
            self.__dict__["_topic_positions"] = positions
        return positions

    def value(self, system: int, topic: str) -> float:
        """System ``system``'s (by position) score on ``topic``."""
        return float(self.values[system, self.topic_positions()[topic]])

    def system(self, name: str) -> np.ndarray:
        """The per-topic scores of one system."""
        try:
            return self.values[self.systems.index(name)]
        except ValueError:
            raise NotFoundError(f"no system {name!r} in this score matrix{did_you_mean(name, self.systems)}",
                                argument="name") from None

    def subset(self, systems: Iterable[str] | None = None, topics: Iterable[str] | None = None) -> "ScoreMatrix":
        """The matrix restricted to some systems and/or topics (in the order given)."""
        rows = (_positions(self.systems, systems, "systems") if systems is not None
                else list(range(len(self.systems))))
        cols = _positions(self.topics, topics, "topics") if topics is not None else list(range(len(self.topics)))
        return ScoreMatrix(self.values[np.ix_(rows, cols)], tuple(self.systems[i] for i in rows),
                           tuple(self.topics[j] for j in cols), self.measure, dict(self.options), self.over_topics)

    def part(self, systems: slice = slice(None), topics: slice = slice(None)) -> "ScoreMatrix":
        """The matrix of a range of systems and of topics, by position (a view of the values: no
        name is looked up, so taking 10^5 topics a block at a time stays linear)."""
        return ScoreMatrix(self.values[systems, topics], self.systems[systems], self.topics[topics], self.measure,
                           self.options, self.over_topics)

    def to_frame(self) -> pl.DataFrame:
        """Tidy frame ``system, topic, measure, value``; topics not evaluated are left out."""
        return next(self.frames(max(self.values.size, 1)))

    def frames(self, rows: int) -> Iterator[pl.DataFrame]:
        """:meth:`to_frame` in consecutive pieces of at most ``rows`` (system, topic) pairs each
        (fewer once the topics not evaluated are left out), systems outermost: stacked, they
        are :meth:`to_frame`. At least one piece, empty when the matrix is."""
        import polars as pl

        n_top = max(self.values.shape[1], 1)
        systems, topics = np.array(self.systems, dtype=object), np.array(self.topics, dtype=object)
        flat = self.values.ravel()
        for start in range(0, max(flat.size, 1), rows):
            pairs = np.arange(start, min(start + rows, flat.size))
            frame = pl.DataFrame({
                "system": systems[pairs // n_top].astype(str),
                "topic": topics[pairs % n_top].astype(str),
                "measure": [self.measure] * len(pairs),
                "value": flat[pairs],
            }, schema={"system": pl.String, "topic": pl.String, "measure": pl.String, "value": pl.Float64})
            yield frame.filter(pl.col("value").is_not_nan())

    def to_pandas(self):
        """:meth:`to_frame` as a pandas DataFrame (pandas must be installed)."""
        return self.to_frame().to_pandas()

    def to_jsonl(self, path: str | os.PathLike) -> Path:
        """Write the per-topic scores as JSON lines ``{"run_id", "topic_id", "measure", "value"}``
        (the TREC AutoJudge layout), atomically; topics not evaluated are left out."""
        write_frame(self.to_frame(), _path_argument(path), "jsonl")
        return Path(path)

    def _repr_html_(self) -> str:
        """Jupyter shows a score matrix as its shape and each system's summary (mean, or sum
        for the counts) as an HTML table."""
        import numpy as np

        from irstats.render import Cell, Table, number_cell

        counted = self.num_topics()
        summary = self.summaries()
        with np.errstate(all="ignore"):
            low, high = np.nanmin(np.where(counted[:, None] > 0, self.values, 0.0), axis=1), np.nanmax(
                np.where(counted[:, None] > 0, self.values, 0.0), axis=1)
        order = np.argsort(-np.nan_to_num(summary, nan=-np.inf), kind="stable")
        whole = self.over_topics == "sum"
        rows = [[Cell(self.systems[i]), number_cell(summary[i], whole=whole), number_cell(low[i], whole=whole),
                 number_cell(high[i], whole=whole), Cell(str(int(counted[i])))] for i in order]
        title = (f"{self.measure}: {len(self.systems)} systems × {len(self.topics)} topics "
                 f"({'sum' if whole else 'mean'} per system, best first)")
        return Table.of(["system", "sum" if whole else "mean", "min", "max", "topics"], rows,
                        [False, True, True, True, True], title=title).html()

    def summary_frame(self) -> pl.DataFrame:
        """Frame ``system, measure, value`` of the per-system summaries."""
        import polars as pl

        return pl.DataFrame({"system": list(self.systems), "measure": [self.measure] * len(self.systems),
                             "value": self.summaries()})

    @classmethod
    def from_frame(cls, frame: pl.DataFrame, measure: str | None = None) -> "ScoreMatrix":
        """Build from a tidy frame of one measure (``system, topic, value`` [, ``measure``]);
        a polars or pandas DataFrame."""
        matrices = matrices_from_frame(frame)
        if measure is not None and not isinstance(measure, str):
            raise ArgumentTypeError(f"measure must be a measure name or None; got {kind_of(measure)}",
                                    argument="measure")
        if measure is None:
            if len(matrices) != 1:
                raise InputError(f"the frame holds {len(matrices)} measures; name one of {', '.join(matrices)}")
            return next(iter(matrices.values()))
        if measure not in matrices:
            raise InputError(f"no measure {measure!r} in the frame; it has {', '.join(matrices)}")
        return matrices[measure]

    def __repr__(self) -> str:
        return f"ScoreMatrix({self.measure!r}, {len(self.systems)} systems × {len(self.topics)} topics)"


def _positions(held: tuple[str, ...], wanted, argument: str) -> list[int]:
    """The positions of the ``wanted`` systems (or topics) among those ``held``."""
    index = {name: k for k, name in enumerate(held)}
    wanted = names(wanted, argument)
    missing = [name for name in wanted if name not in index]
    if missing:
        raise NotFoundError(f"{argument}: no {argument[:-1]} {some(missing)} in this score matrix "
                            f"(it has {some(held)}){did_you_mean(missing[0], held)}", argument=argument)
    return [index[name] for name in wanted]


def _summary_rule(measure: str) -> str:
    from irstats.measures import parse_measure  # late import: scores has no measure dependency otherwise

    try:
        return parse_measure(measure).definition.over_topics
    except Exception:  # noqa: BLE001 - measures irstats does not know are averaged
        return "mean"


def matrices_from_frame(frame: pl.DataFrame, source: str | None = None) -> dict[str, ScoreMatrix]:
    """Split a tidy score frame into one ScoreMatrix per measure.

    Systems and topics are sorted bytewise; a (system, topic) pair missing from the frame
    is NaN (not evaluated). A (system, topic, measure) given twice is an error. ``frame`` is a
    polars or pandas DataFrame.
    """
    import polars as pl

    frame = _score_frame(frame, source)
    if "measure" not in frame.columns:
        frame = frame.with_columns(pl.lit("value").alias("measure"))
    missing = [c for c in SCORE_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"score table lacks column(s) {', '.join(missing)}; has {', '.join(frame.columns)}",
                         path=source)
    _check_score_columns(frame, source)
    frame = frame.select(pl.col("system").cast(pl.String), pl.col("topic").cast(pl.String),
                         pl.col("measure").cast(pl.String), pl.col("value").cast(pl.Float64, strict=False))
    dup = frame.select(pl.struct("system", "topic", "measure").is_duplicated()).to_series()
    if dup.any():
        row = frame.filter(dup).row(0, named=True)
        raise InputError(f"score for system {row['system']!r}, topic {row['topic']!r}, measure {row['measure']!r} "
                         "is given twice", path=source)
    out: dict[str, ScoreMatrix] = {}
    for measure in frame.get_column("measure").unique(maintain_order=True).to_list():
        part = frame.filter(pl.col("measure") == measure)
        systems = sorted(part.get_column("system").unique().to_list())
        topics = sorted(part.get_column("topic").unique().to_list())
        values = np.full((len(systems), len(topics)), np.nan)
        s_index = {s: i for i, s in enumerate(systems)}
        t_index = {t: i for i, t in enumerate(topics)}
        rows = part.get_column("system").replace_strict(s_index, return_dtype=pl.Int64).to_numpy()
        cols = part.get_column("topic").replace_strict(t_index, return_dtype=pl.Int64).to_numpy()
        values[rows, cols] = part.get_column("value").fill_null(np.nan).to_numpy()
        out[measure] = ScoreMatrix(values, tuple(systems), tuple(topics), measure, over_topics=_summary_rule(measure))
    return out


def score_matrices(scores: ScoreMatrix | Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix],
                   argument: str = "scores") -> list[ScoreMatrix]:
    """The matrices of one ScoreMatrix, a ``{measure: matrix}`` mapping or an iterable of them.

    Anything else (an array, text, None, a list holding something other than ScoreMatrix
    objects) is an :class:`~irstats.errors.ArgumentTypeError` naming ``argument``.
    """
    import polars as pl

    if isinstance(scores, ScoreMatrix):
        return [scores]
    expected = "a ScoreMatrix, a {measure: ScoreMatrix} dict or a list of ScoreMatrix objects"
    if isinstance(scores, Mapping):
        items = list(scores.values())
    elif (scores is None or isinstance(scores, (str, bytes, np.ndarray, pl.DataFrame, pl.Series))
          or not isinstance(scores, Iterable)):
        raise ArgumentTypeError(f"{argument} must be {expected}; got {kind_of(scores)}", argument=argument)
    else:
        items = list(scores)
    for item in items:
        if not isinstance(item, ScoreMatrix):
            raise ArgumentTypeError(f"{argument} must be {expected}; it holds {kind_of(item)}", argument=argument)
    return items


def _score_frame(frame, source: str | None) -> pl.DataFrame:
    """A polars DataFrame of scores; a pandas one is converted, anything else refused."""
    import polars as pl

    if isinstance(frame, pl.DataFrame):
        return frame
    if type(frame).__name__ == "DataFrame" and hasattr(frame, "columns"):  # pandas
        try:
            return pl.from_pandas(frame)
        except Exception as exc:  # noqa: BLE001 - a column polars cannot take
            raise InputError(f"cannot convert the pandas score table ({str(exc).splitlines()[0]})",
                             path=source) from None
    hint = "; call .collect() first" if isinstance(frame, pl.LazyFrame) else ""
    raise ArgumentTypeError(f"frame must be a polars or pandas DataFrame with columns system, topic, "
                            f"[measure,] value; got {kind_of(frame)}{hint}", argument="frame")


def _check_score_columns(frame: pl.DataFrame, source: str | None) -> None:
    """Ids must be scalars without nulls; values numbers (or text of numbers, or null)."""
    import polars as pl

    for column in ("system", "topic", "measure"):
        dtype = frame.schema[column]
        if dtype.is_nested() or dtype == pl.Object:
            raise InputError(f"column {column!r} must hold names (text or numbers), not {dtype}", path=source)
        nulls = frame.get_column(column).is_null()
        if nulls.any():
            raise InputError(f"column {column!r} is empty (null) in row {int(nulls.arg_true()[0]) + 1}",
                             path=source)
    value = frame.get_column("value")
    if value.dtype.is_numeric() or value.dtype == pl.Null:
        return
    if value.dtype.is_nested() or value.dtype == pl.Object or not (value.dtype == pl.String or value.dtype == pl.Boolean):
        raise InputError(f"column 'value' must hold numbers (NaN or null for no score), not {value.dtype}",
                         path=source)
    if value.dtype == pl.String:
        bad = value.is_not_null() & value.cast(pl.Float64, strict=False).is_null()
        if bad.any():
            at = int(bad.arg_true()[0])
            raise InputError(f"column 'value' must hold numbers (NaN or null for no score); row {at + 1} holds "
                             f"{value[at]!r}", path=source)


def scores_to_frame(matrices: Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix], per_topic: bool = True) -> pl.DataFrame:
    """Stack several matrices into one tidy frame (per topic, or per-system summaries)."""
    import polars as pl

    frames = [m.to_frame() if per_topic else m.summary_frame() for m in score_matrices(matrices, "matrices")]
    if not frames:
        return pl.DataFrame(schema={c: pl.String for c in SCORE_COLUMNS[:-1]} | {"value": pl.Float64})
    return pl.concat(frames)


FORMATS = ("tsv", "csv", "json", "jsonl", "parquet")

#: Column names of JSON-lines score output, as TREC AutoJudge and ir_measures' tools read them.
JSONL_NAMES = {"system": "run_id", "topic": "topic_id"}


@overload
def write_frame(frame: pl.DataFrame, path: None, fmt: str) -> str: ...
@overload
def write_frame(frame: pl.DataFrame, path: str | os.PathLike, fmt: str) -> None: ...
def write_frame(frame: pl.DataFrame, path: str | os.PathLike | None, fmt: str) -> str | None:
    """Write a frame as TSV, CSV, JSON (records) or Parquet; to a path, or return text."""
    import polars as pl

    if not isinstance(frame, pl.DataFrame):
        raise ArgumentTypeError(f"frame must be a polars DataFrame; got {kind_of(frame)}", argument="frame")
    if not (isinstance(fmt, str) and fmt in FORMATS):
        error = ArgumentError if isinstance(fmt, str) else ArgumentTypeError
        raise error(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}", argument="fmt")
    if path is not None:
        _path_argument(path)
    if fmt == "parquet":
        if path is None:
            raise ArgumentError("Parquet output needs a file: give a path (-o FILE)", argument="path")
        import io

        from irstats.io.output import write_bytes

        buffer = io.BytesIO()  # polars' own writer would leave a partial file on a full disk
        frame.write_parquet(buffer)
        write_bytes(path, buffer.getvalue())
        return None
    if fmt in ("tsv", "csv"):
        text = frame.write_csv(separator="\t" if fmt == "tsv" else ",", float_precision=None)
    elif fmt == "json":
        import json

        text = json.dumps(frame.to_dicts(), indent=1, allow_nan=True) + "\n"
    elif fmt == "jsonl":  # one record per line: run_id topic_id measure value
        import json

        renamed = frame.rename({k: v for k, v in JSONL_NAMES.items() if k in frame.columns})
        text = "".join(json.dumps(row, allow_nan=True) + "\n" for row in renamed.iter_rows(named=True))
    else:
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if path is None:
        return text
    from irstats.io.output import write_text

    write_text(path, text)
    return None


#: (system, topic) pairs of one measure written at once by :func:`score_chunks`.
CHUNK_ROWS = 1 << 17

#: The formats :func:`score_chunks` writes a piece at a time (Parquet's row groups are laid out
#: from the whole frame, so a Parquet file is written from it).
CHUNKED_FORMATS = ("tsv", "csv", "json", "jsonl")


def score_chunks(matrices: Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix], fmt: str,
                 per_topic: bool = True, rows: int = CHUNK_ROWS) -> Iterator[str]:
    """The text of ``write_frame(scores_to_frame(matrices, per_topic), None, fmt)`` in pieces,
    ``rows`` (system, topic) pairs of one measure at a time, so that the per-topic scores of
    10^5 topics × 100 measures are written without their whole tidy frame (or its text) in
    memory. ``fmt``: one of :data:`CHUNKED_FORMATS`. The pieces join to the very same text."""
    if fmt not in CHUNKED_FORMATS:
        raise ArgumentError(f"unknown format {fmt!r}; expected one of {', '.join(CHUNKED_FORMATS)}", argument="fmt")
    items = score_matrices(matrices, "matrices")
    if not per_topic or not items:
        yield write_frame(scores_to_frame(items, per_topic=per_topic), None, fmt)
        return
    frames = (frame for m in items for frame in m.frames(rows))
    if fmt in ("tsv", "csv"):
        separator = "\t" if fmt == "tsv" else ","
        for k, frame in enumerate(frames):
            yield frame.write_csv(separator=separator, float_precision=None, include_header=k == 0)
    elif fmt == "jsonl":
        for frame in frames:
            yield json_records(frame.rename(JSONL_NAMES), "jsonl")
    else:  # one JSON list: each piece's records without the brackets, joined as json.dumps joins them
        bodies = (json_records(frame, "json") for frame in frames if frame.height)
        first = next(bodies, None)
        if first is None:
            yield "[]\n"
            return
        yield "[\n" + first
        for body in bodies:
            yield ",\n" + body
        yield "\n]\n"


#: The per-topic formats the workers of a Dask cluster lay out, a batch of runs each
#: (:func:`batch_pieces`); the client writes the pieces in order (:func:`pieces_in_order`).
BATCH_FORMATS = ("trec_eval", *CHUNKED_FORMATS)


def batch_pieces(matrices: Mapping[str, ScoreMatrix], fmt: str) -> list[str]:
    """The per-topic output of one batch of runs (consecutive runs, all their matrices on one
    topic axis): ``[text]`` in trec_eval's layout, run after run; for the score-file formats a
    text per measure (the formats write measure after measure, each over every run), without the
    CSV header or the JSON list's brackets. :func:`pieces_in_order` joins the batches' pieces
    into what :func:`score_chunks` (or trec_eval's printer) writes for all the runs at once."""
    if fmt == "trec_eval":
        from irstats.trec_eval.printer import score_chunks as trec_eval_chunks

        return ["".join(trec_eval_chunks(matrices, per_topic=True))]
    if fmt not in CHUNKED_FORMATS:
        raise ArgumentError(f"unknown format {fmt!r}; expected one of {', '.join(BATCH_FORMATS)}", argument="fmt")
    out = []
    for matrix in score_matrices(matrices, "matrices"):
        frames = list(matrix.frames(CHUNK_ROWS))
        if fmt in ("tsv", "csv"):
            separator = "\t" if fmt == "tsv" else ","
            out.append("".join(f.write_csv(separator=separator, float_precision=None, include_header=False)
                               for f in frames if f.height))
        elif fmt == "jsonl":
            out.append("".join(json_records(f.rename(JSONL_NAMES), "jsonl") for f in frames))
        else:
            out.append(",\n".join(json_records(f, "json") for f in frames if f.height))
    return out


def pieces_in_order(pieces: list[list[str]], fmt: str) -> Iterator[str]:
    """The per-topic output of every run from the pieces of its batches (:func:`batch_pieces`,
    the batches in the runs' order): trec_eval's layout batch after batch; the score-file
    formats measure after measure, each batch's piece of the measure in turn — the very text
    :func:`score_chunks` writes."""
    if fmt == "trec_eval":
        yield from (text for batch in pieces for text in batch)
        return
    n_measures = len(pieces[0]) if pieces else 0
    in_order = (batch[k] for k in range(n_measures) for batch in pieces)
    if fmt in ("tsv", "csv"):
        separator = "\t" if fmt == "tsv" else ","
        yield separator.join(SCORE_COLUMNS) + "\n"
        yield from in_order
    elif fmt == "jsonl":
        yield from in_order
    else:
        bodies = [body for body in in_order if body]
        yield "[\n" + ",\n".join(bodies) + "\n]\n" if bodies else "[]\n"


def json_records(frame: pl.DataFrame, fmt: str) -> str:
    """A score frame's rows (string columns, then the Float64 ``value``) as ``json.dumps`` writes
    them, laid out a column at a time by polars: ``jsonl``, a record per line
    (``json.dumps(row)``); ``json``, the records of ``json.dumps(rows, indent=1)`` between its
    brackets (``[2:-2]`` of its text). A string of printable ASCII without quote or backslash is
    quoted as it is, any other escaped by ``json.dumps``; a number is written as polars writes
    it where that is Python's ``repr`` (0 and magnitudes from 1e-4 below 1e16), by
    ``json.dumps`` elsewhere (NaN, infinities, exponents)."""
    import json

    import numpy as np
    import polars as pl

    if not frame.height:
        return ""
    parts = []
    opening, between, closing = ("{", ", ", "}\n") if fmt == "jsonl" else (" {\n  ", ",\n  ", "\n }")
    for k, name in enumerate(frame.columns):
        column = frame.get_column(name)
        if column.dtype == pl.String:  # printable ASCII without quote or backslash: quoted as it is
            text = '"' + column + '"'
            odd = np.flatnonzero(~column.str.contains(r"^[\x20-\x21\x23-\x5b\x5d-\x7e]*$").to_numpy())
            if len(odd):
                text = text.scatter(odd, [json.dumps(v) for v in column.gather(odd).to_list()])
        else:
            values = column.cast(pl.Float64).to_numpy()
            size = np.abs(values)
            odd = ~((size == 0) | ((size >= 1e-4) & (size < 1e16)))  # (NaN and infinities among them)
            text = column.cast(pl.Float64).cast(pl.String)
            at = np.flatnonzero(odd)
            if len(at):
                text = text.scatter(at, [json.dumps(v, allow_nan=True) for v in values[at].tolist()])
        parts += [pl.lit((opening if k == 0 else between) + json.dumps(name) + ": "), text]
    parts.append(pl.lit(closing))
    records = pl.DataFrame({"_": np.zeros(frame.height, dtype=np.int8)}).select(pl.concat_str(parts)).to_series()
    if fmt == "jsonl":
        return records.str.join("").item()
    return records.str.join(",\n").item()


def write_scores(matrices, path: str | os.PathLike | None, fmt: str = "tsv", per_topic: bool = True) -> str | None:
    """Write score matrices as a score file (see :func:`write_frame`)."""
    return write_frame(scores_to_frame(matrices, per_topic=per_topic), path, fmt)


def read_scores(path: str | os.PathLike, fmt: str | None = None) -> dict[str, ScoreMatrix]:
    """Read a score file (TSV, CSV, JSON or Parquet written by irstats) into ScoreMatrix objects
    (``irstats.read_scores`` gives them as an :class:`~irstats.evaluation.Evaluation`).

    The format is taken from the file name when ``fmt`` is None. ``trec_eval -q`` output is
    read by :func:`irstats.trec_eval.read.read_trec_eval`.
    """
    import polars as pl

    name = _path_argument(path)
    if fmt is not None and not (isinstance(fmt, str) and fmt.lower() in READ_FORMATS):
        error = ArgumentError if isinstance(fmt, str) else ArgumentTypeError
        raise error(f"fmt must be one of {', '.join(READ_FORMATS)} or None (from the file name); got {kind_of(fmt)}",
                    argument="fmt")
    if os.path.isdir(name):
        raise InputError("is a folder; expected a score file (TSV, CSV, JSON or Parquet)", path=name)
    if not os.path.exists(name):
        raise InputError("no such file", path=name)
    fmt = fmt.lower() if fmt is not None else _guess_format(name)
    try:
        if fmt == "parquet":
            frame = pl.read_parquet(name)
            _check_numeric_values(frame, name)
        elif fmt == "json":
            frame = _read_json_scores(name)
        else:
            frame = _read_delimited_scores(name, "\t" if fmt == "tsv" else ",")
    except (pl.exceptions.PolarsError, ValueError, OSError) as exc:
        raise InputError(f"cannot read as a {fmt} score file ({str(exc).splitlines()[0]})", path=name) from None
    return matrices_from_frame(frame, source=name)


#: The formats :func:`read_scores` reads (JSON lines are written for other tools, not read back).
READ_FORMATS = ("tsv", "csv", "json", "parquet")


def _path_argument(path, argument: str = "path") -> str:
    """A path given as text or a path object, as text."""
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(f"{argument} must be a file name (str or os.PathLike); got {kind_of(path)}",
                                argument=argument)
    return os.fspath(path)


#: Values that stand for "no score" (a topic a system was not evaluated on): irstats writes NaN.
MISSING_VALUES = ("", "nan", "NaN", "NA", "null")


def _read_delimited_scores(name: str, separator: str) -> pl.DataFrame:
    """A TSV/CSV score file; every row needs all its fields and a number (or NaN) as value."""
    import polars as pl

    from irstats.io.trec import read_bytes

    data = read_bytes(name)
    frame = pl.read_csv(data, separator=separator, comment_prefix="#", infer_schema=False,
                        truncate_ragged_lines=False)
    if "value" not in frame.columns:
        return frame  # matrices_from_frame names the missing columns
    # Each row's line: the header is the first line that is neither blank nor a comment.
    text = pl.Series([data.decode("utf-8", "replace")]).str.split("\n").explode()
    stripped = text.str.strip_chars()
    content = (stripped != "") & ~stripped.str.starts_with("#")
    numbers = pl.Series(range(1, len(text) + 1)).filter(content)[1:]
    separators = text.filter(content)[1:].str.count_matches(separator, literal=True)
    if len(numbers) != frame.height:  # quoted line breaks: rows and lines do not correspond
        numbers = pl.Series([None] * frame.height, dtype=pl.Int64)
        separators = pl.Series([len(frame.columns) - 1] * frame.height)
    value = frame.get_column("value")
    keys = [c for c in ("system", "topic", "measure") if c in frame.columns]
    short = frame.select(pl.any_horizontal(pl.col(keys).is_null())).to_series() | (
        value.is_null() & (separators < len(frame.columns) - 1))
    given = value.is_not_null() & ~value.is_in(MISSING_VALUES)
    garbage = given & (value.cast(pl.Float64, strict=False).is_null() | value.str.contains("_", literal=True))
    for bad, what in ((short, f"expected {len(frame.columns)} fields ({', '.join(frame.columns)}), found fewer"),
                      (garbage, "expected a number in column 'value', found {!r}")):
        if bad.any():
            at = int(bad.arg_true()[0])
            raise InputError(what.format(value[at]), path=name, line=numbers[at])
    return frame.with_columns(pl.col("value").replace(list(MISSING_VALUES), None))


def _read_json_scores(name: str) -> pl.DataFrame:
    """A JSON score file: a list of records, each with a number (or null) as value."""
    import polars as pl

    from irstats.io.trec import read_bytes

    import json

    records = json.loads(read_bytes(name))
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise InputError("expected a JSON list of records {system, topic, measure, value}", path=name)
    wanted = [c for c in SCORE_COLUMNS if any(c in r for r in records[:1])] or list(SCORE_COLUMNS)
    for index, record in enumerate(records):
        lacking = [c for c in wanted if c not in record]
        if lacking:
            raise InputError(f"record {index + 1} lacks {', '.join(lacking)}", path=name)
        value = record.get("value")
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise InputError(f"record {index + 1}: expected a number (or null) as value, found {value!r}",
                             path=name)
    return pl.DataFrame(records, infer_schema_length=None)


def _check_numeric_values(frame: pl.DataFrame, name: str) -> None:
    if "value" in frame.columns and not frame.schema["value"].is_numeric():
        raise InputError(f"column 'value' must be numeric, found {frame.schema['value']}", path=name)


def _guess_format(name: str) -> str:
    lower = name.lower().removesuffix(".gz")
    for fmt, suffixes in (("parquet", (".parquet", ".pq")), ("csv", (".csv",)), ("json", (".json",))):
        if lower.endswith(suffixes):
            return fmt
    return "tsv"
