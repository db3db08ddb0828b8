"""Factor files of score standardization (METHODS.md §4): irstats' TSV and trec_eval's ``-Z``.

irstats' TSV: ``# key: value`` metadata lines (format, irstats version, ddof, reference
systems, measure options as JSON), then ``topic measure mean sd n ddof``. trec_eval's
``-Z`` format: ``topic measure mean sd`` with trec_eval's measure names. Both are written
atomically (:mod:`irstats.io.output`) and read with file:line errors.

A reader sits below the measures (docs/design.md's layers), so the measure names are parsed by
what its caller gives (:mod:`irstats.standardize` gives irstats' own): ``canonical``, a name →
its canonical name (None for a name that is no measure), and, to write trec_eval's format,
``trec_eval_name``.
"""

from __future__ import annotations

import json
import math
import os
from typing import Callable, Iterable, Sequence

import numpy as np
import polars as pl

from irstats.errors import ArgumentTypeError, InputError
from irstats.io.trec import check_field_count, path_name, read_lines, split_fields
from irstats.factors import FACTOR_COLUMNS, Factors

#: A measure-name parser: a name → its canonical name, None for a name that is no measure.
Canonical = Callable[[str], str | None]

def _check_factors(factors, path) -> None:
    """Factors to write, and a file name or None (the text is returned)."""
    if not isinstance(factors, Factors):
        from irstats.checks import kind_of

        raise ArgumentTypeError(f"factors must be Factors (from fit_factors or read_factors); got {kind_of(factors)}",
                                argument="factors")
    if path is not None:
        path_name(path)


def _fmt(value: float) -> str:
    if math.isnan(value):
        return "nan"
    return "%.17g" % value


def _sorted_rows(factors: Factors, names: Sequence[str]) -> np.ndarray:
    """Row order by (topic, measure name as written), bytewise (= code point order in UTF-8)."""
    keys = [(t.encode("utf8"), m.encode("utf8")) for t, m in zip(factors.topics, names)]
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)


def write_factors(factors: Factors, path: str | os.PathLike | None) -> str | None:
    """Write factors as irstats' TSV; return the text when ``path`` is None.

    Layout: ``# key: value`` metadata lines (format, irstats version, ddof, reference
    systems and measure options as JSON), then the header ``topic measure mean sd n ddof``
    and one row per (topic, measure), sorted bytewise, numbers as ``%.17g``.
    """
    from irstats import __version__

    _check_factors(factors, path)

    meta = {
        "format": "irstats standardization factors",
        "irstats_version": __version__,
        "ddof": "unknown" if factors.ddof is None else str(factors.ddof),
        "reference": "unknown" if factors.reference is None else json.dumps(list(factors.reference)),
        "options": json.dumps(factors.options, sort_keys=True, default=str),
    }
    lines = [f"# {k}: {v}" for k, v in meta.items()]
    lines.append("\t".join(FACTOR_COLUMNS))
    ddof = "nan" if factors.ddof is None else str(factors.ddof)
    for i in _sorted_rows(factors, factors.measures):
        n = factors.n[i]
        lines.append("\t".join((factors.topics[i], factors.measures[i], _fmt(factors.mean[i]), _fmt(factors.sd[i]),
                                "nan" if math.isnan(n) else str(int(n)), ddof)))
    text = "\n".join(lines) + "\n"
    if path is None:
        return text
    from irstats.io.output import write_text

    write_text(path, text)
    return None


def write_trec_eval_factors(factors: Factors, path: str | os.PathLike | None,
                            trec_eval_name: Callable[[str], str | None]) -> str | None:
    """Write factors in trec_eval's ``-Z`` format: ``topic measure mean sd`` per line.

    Measures are written under trec_eval's names (``map``, ``P_10``, ``ndcg_cut_10``), as
    ``trec_eval_name`` gives them: a measure's name → trec_eval's, the name itself for a name
    that is no measure (kept as read, e.g. trec_eval's ``iprec_at_recall_0.10``), None for a
    measure trec_eval lacks (e.g. ``SP``), which is an error: use :func:`write_factors` for it.
    Rows are sorted bytewise by (topic, measure) and numbers written with ``%.17g``.
    """
    _check_factors(factors, path)

    names_of: dict[str, str] = {}
    for m in factors.measure_names:
        name = trec_eval_name(m)
        if name is None:
            raise InputError(f"measure {m!r} has no trec_eval name, so trec_eval's -Z format cannot hold it; "
                             "write irstats' factor TSV instead")
        names_of[m] = name
    names = [names_of[m] for m in factors.measures]
    lines = [f"{factors.topics[i]} {names[i]} {_fmt(factors.mean[i])} {_fmt(factors.sd[i])}"
             for i in _sorted_rows(factors, names)]
    text = "\n".join(lines) + ("\n" if lines else "")
    if path is None:
        return text
    from irstats.io.output import write_text

    write_text(path, text)
    return None


def _content_rows(path) -> tuple[pl.DataFrame, list[tuple[int, str]]]:
    """Whitespace-split content rows with line numbers, and the leading ``#`` lines."""
    lines = read_lines(path)
    comments: list[tuple[int, str]] = []
    for number, text in enumerate(lines.to_list(), start=1):
        if text is None or not text.strip():
            continue
        if not text.lstrip().startswith("#"):
            break
        comments.append((number, text.lstrip()[1:].strip()))
    return split_fields(lines), comments


def _floats(frame: pl.DataFrame, column: str, path: str, allow_nan: bool = False) -> np.ndarray:
    text = frame.get_column(column)
    values = text.cast(pl.Float64, strict=False)
    bad = values.is_null() | (values.is_infinite() if allow_nan else ~values.is_finite())
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"expected a finite number for {column}, found {text[i]!r}", path=path,
                         line=int(frame["line"][i]))
    return values.to_numpy().astype(np.float64)


def _check_rows(frame: pl.DataFrame, mean: np.ndarray, sd: np.ndarray, measures: list[str],
                path: str) -> np.ndarray:
    """Check the rows; return which to keep. Two names of one measure (trec_eval's ``Rprec``
    and ``Rprec_mult_1.00`` are both irstats' ``Rprec``) may repeat a topic's factors when the
    values agree; different factors for one topic and measure are an error."""
    neg = np.flatnonzero(sd < 0)
    if neg.size:
        i = int(neg[0])
        raise InputError(f"a standard deviation cannot be negative ({sd[i]!r})", path=path,
                         line=int(frame["line"][i]))
    keys = pl.DataFrame({"topic": frame.get_column("topic"), "measure": measures})
    dup = (~keys.select(pl.struct("topic", "measure").is_first_distinct()).to_series()).to_numpy()
    if dup.any():
        first = {}
        for i, key in enumerate(zip(keys["topic"].to_list(), measures)):
            if key not in first:
                first[key] = i
            elif (mean[i], sd[i]) != (mean[first[key]], sd[first[key]]):
                raise InputError(f"factors for topic {key[0]!r}, measure {key[1]!r} are given twice, with "
                                 "different values", path=path, line=int(frame["line"][i]))
    return ~dup


def _canonical_names(raw: Iterable[str], canonical: Canonical | None) -> dict[str, str]:
    return {name: (canonical(name) if canonical is not None else None) or name for name in raw}


def read_factors(path: str | os.PathLike, canonical: Canonical | None = None) -> Factors:
    """Read irstats' factor TSV (see :func:`write_factors`).

    The header must hold at least ``topic measure mean sd n``; other columns are ignored.
    Measure names are canonicalised by ``canonical`` (``map`` → ``AP``; None: kept as written),
    which the factors keep to be looked up with. A malformed line raises
    :class:`~irstats.errors.InputError` naming the file and line.
    """
    name = path_name(path)
    if not os.path.exists(name):
        raise InputError("no such factors file", path=name)
    rows, comments = _content_rows(name)
    meta = {}
    for number, text in comments:
        if ":" in text:
            key, value = text.split(":", 1)
            meta[key.strip()] = (number, value.strip())
    if rows.height == 0:
        raise InputError("no header line 'topic measure mean sd n' and no factors", path=name)
    header_line = int(rows["line"][0])
    header = rows["fields"][0].to_list()
    required = ["topic", "measure", "mean", "sd", "n"]
    lacking = [c for c in required if c not in header]
    if lacking:
        hint = " (is it a trec_eval -Z file? read it with read_trec_eval_factors / --trec-eval-format)" if len(
            header) == 4 else ""
        raise InputError(f"the header lacks column(s) {', '.join(lacking)}; expected at least "
                         f"'{' '.join(required)}'{hint}", path=name, line=header_line)
    body = rows.slice(1)
    count = body.get_column("fields").list.len()
    bad = count != len(header)
    if bad.any():
        row = body.filter(bad).row(0, named=True)
        raise InputError(f"expected {len(header)} fields ({' '.join(header)}), found {len(row['fields'])}",
                         path=name, line=row["line"])
    frame = body.select("line", *[pl.col("fields").list.get(header.index(c)).alias(c) for c in required])
    mean = _floats(frame, "mean", name)
    sd = _floats(frame, "sd", name)
    n_values = frame.get_column("n").cast(pl.Float64, strict=False)
    whole = (n_values >= 0) & (n_values == n_values.round(0))
    bad_n = n_values.is_null() | n_values.is_infinite() | (n_values.is_finite() & ~whole)
    if bad_n.any():
        i = int(np.flatnonzero(bad_n.to_numpy())[0])
        raise InputError(f"expected a count (or nan) for n, found {frame['n'][i]!r}", path=name,
                         line=int(frame["line"][i]))
    raw = frame.get_column("measure").to_list()
    mapping = _canonical_names(set(raw), canonical)
    measures = [mapping[m] for m in raw]
    keep = _check_rows(frame, mean, sd, measures, name)
    frame, mean, sd, n_values = frame.filter(pl.Series(keep)), mean[keep], sd[keep], n_values.filter(pl.Series(keep))
    measures = [m for m, k in zip(measures, keep) if k]

    def meta_value(key):
        return meta.get(key, (None, None))

    ddof: int | None = 1
    line, value = meta_value("ddof")
    if value is not None:
        if value in ("unknown", "nan", "None", ""):
            ddof = None
        else:
            try:
                ddof = int(value)
            except ValueError:
                raise InputError(f"expected a whole number for ddof, found {value!r}", path=name, line=line) from None
    reference = None
    line, value = meta_value("reference")
    if value is not None and value != "unknown":
        try:
            reference = tuple(str(s) for s in json.loads(value))
        except (json.JSONDecodeError, TypeError):
            raise InputError("expected a JSON list of system names after 'reference:'", path=name,
                             line=line) from None
    options: dict[str, dict] = {}
    line, value = meta_value("options")
    if value:
        try:
            options = {mapping.get(k, k): v for k, v in json.loads(value).items()}
        except (json.JSONDecodeError, AttributeError):
            raise InputError("expected a JSON object after 'options:'", path=name, line=line) from None
    version = meta_value("irstats_version")[1]
    return Factors(tuple(frame.get_column("topic").to_list()), tuple(measures), mean, sd,
                   n_values.fill_null(np.nan).to_numpy().astype(np.float64), ddof, reference, options, name, version,
                   canonical)


def read_trec_eval_factors(path: str | os.PathLike, canonical: Canonical | None = None) -> Factors:
    """Read a trec_eval ``-Z`` file: ``topic measure mean sd`` per line, ``#`` lines skipped.

    trec_eval names are mapped to canonical ones by ``canonical`` (``map`` → ``AP``, ``P_10`` →
    ``P@10``); names it does not know (or all, without it) are kept as they are. ``ddof``, ``n``
    and the reference systems are unknown in this format.
    """
    name = path_name(path)
    if not os.path.exists(name):
        raise InputError("no such factors file", path=name)
    rows, _ = _content_rows(name)
    check_field_count(rows, rows.get_column("fields").list.len() != 4, "4 fields 'topic measure mean sd'", name)
    frame = rows.select("line", *[pl.col("fields").list.get(i).alias(c)
                                  for i, c in enumerate(("topic", "measure", "mean", "sd"))])
    mean = _floats(frame, "mean", name)
    sd = _floats(frame, "sd", name)
    raw = frame.get_column("measure").to_list()
    mapping = _canonical_names(set(raw), canonical)
    measures = [mapping[m] for m in raw]
    keep = _check_rows(frame, mean, sd, measures, name)
    frame, mean, sd = frame.filter(pl.Series(keep)), mean[keep], sd[keep]
    measures = [m for m, k in zip(measures, keep) if k]
    return Factors(tuple(frame.get_column("topic").to_list()), tuple(measures), mean, sd,
                   np.full(len(measures), np.nan), None, None, {}, name, None, canonical)


def read_any_factors(path: str | os.PathLike, canonical: Canonical | None = None) -> Factors:
    """Read either format: irstats' TSV if a header line names ``topic``, else trec_eval's
    (``canonical`` as for :func:`read_factors`)."""
    name = path_name(path)
    rows, _ = _content_rows(name) if os.path.exists(name) else (None, None)
    if rows is None:
        raise InputError("no such factors file", path=name)
    if rows.height and rows["fields"][0].to_list()[:1] == ["topic"]:
        return read_factors(path, canonical)
    return read_trec_eval_factors(path, canonical)



__all__ = ["read_any_factors", "read_factors", "read_trec_eval_factors", "write_factors", "write_trec_eval_factors"]
