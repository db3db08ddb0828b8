"""The shapes qrels and runs already have in users' hands, turned into irstats' frames.

:func:`irstats.evaluate` (and everything that reads qrels or runs) takes, besides files,
directories, globs and DataFrames:

- **pytrec_eval's dicts**: qrels ``{query_id: {doc_id: grade}}``; a run
  ``{query_id: {doc_id: score}}``; several runs ``{run_name: {query_id: {doc_id: score}}}``;
- **ranx** ``Qrels`` / ``Run`` objects (anything with ``to_dict()``; a Run's ``name`` names
  it), alone or in a list or dict;
- **ir_datasets** ``qrels_iter()`` / ``scoreddocs_iter()`` and any iterable of tuples or
  namedtuples ``(query_id, doc_id, relevance[, iteration])`` / ``(query_id, doc_id, score)``
  (fields are read by name when they have names; ir_datasets stays optional);
- pandas and polars frames (``topic, docno, rel`` / ``query_id, doc_id, relevance``; runs
  ``topic, docno, score`` / ``query_id, doc_id, score`` with an optional ``system``).

Everything becomes the polars frames the readers already check, so the same rules and the
same one-line errors apply. Ids are taken as text (``str()`` of each id). Grades and scores
must be numbers (text, None or NaN is an error naming the query and document); a polars
LazyFrame must be collected first.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from irstats.checks import kind_of
from irstats.errors import ArgumentError, ArgumentTypeError

if TYPE_CHECKING:
    import polars as pl

QREL_FIELDS = ("query_id", "doc_id", "relevance")
RUN_FIELDS = ("query_id", "doc_id", "score")



def _is_frame(obj) -> bool:
    """A polars or pandas DataFrame (by its class' name: a path never imports polars to be told
    it is not one)."""
    return type(obj).__name__ == "DataFrame"

def _is_pathlike(value: Any) -> bool:
    return isinstance(value, (str, bytes, os.PathLike))


def _is_ranx(value: Any, kind: str) -> bool:
    return type(value).__name__ == kind and callable(getattr(value, "to_dict", None))


def _nested_frame(nested: Mapping, value: str, what: str) -> pl.DataFrame:
    """``{query_id: {doc_id: value}}`` as a frame ``query_id, doc_id, <value>``."""
    import polars as pl

    argument = "qrels" if value == "relevance" else "runs"
    qids, dids, values = [], [], []
    for qid, docs in nested.items():
        if not isinstance(docs, Mapping):
            raise ArgumentError(f"{what}: expected {{query_id: {{doc_id: {value}}}}}; query {qid!r} maps to "
                                f"{type(docs).__name__}", argument=argument)
        for did, v in docs.items():
            qids.append(str(qid))
            dids.append(str(did))
            values.append(v)
    if value == "score":
        for k, v in enumerate(values):
            if not _is_number(v) or np.isnan(v):
                raise ArgumentError(f"{what}: scores must be numbers (no NaN); query {qids[k]!r}, document "
                                    f"{dids[k]!r} has {kind_of(v)}", argument=argument)
    if value == "relevance":
        bad = [v for v in values if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating))
               or not np.isfinite(v)]
        if bad:
            raise ArgumentError(f"{what}: relevance grades must be numbers (whole or real-valued labels); "
                                f"found {bad[0]!r}", argument=argument)
        whole = all(float(v).is_integer() for v in values)  # real-valued labels (0.37) make the column float
        column = (pl.Series(value, [int(v) for v in values], dtype=pl.Int64) if whole
                  else pl.Series(value, [float(v) for v in values], dtype=pl.Float64))
    else:
        column = pl.Series(value, [float(v) for v in values], dtype=pl.Float64)
    return pl.DataFrame([pl.Series("query_id", qids, dtype=pl.String), pl.Series("doc_id", dids, dtype=pl.String),
                         column])


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _refuse_lazy(value: Any, argument: str, label: str | None = None) -> None:
    """A LazyFrame is a query, not data: the caller collects it (irstats does not run it for them)."""
    pl = sys.modules.get("polars")  # (a LazyFrame needs polars imported: paths never import it)
    if pl is not None and isinstance(value, pl.LazyFrame):
        raise ArgumentTypeError(f"{label or argument}: a polars LazyFrame is not a DataFrame; call .collect() on it "
                                "first", argument=argument)


def _check_source(source: Any, argument: str, shapes: str) -> Any:
    """What is left after the shapes are converted must be paths (or a frame)."""
    if _is_pathlike(source) or _is_frame(source):
        return source
    if isinstance(source, (list, tuple)) and all(_is_pathlike(x) for x in source):
        return source
    shown = kind_of(source) if not isinstance(source, (list, tuple)) else next(
        f"a list holding {kind_of(x)}" for x in source if not _is_pathlike(x))
    raise ArgumentTypeError(f"{argument} must be {shapes}; got {shown}", argument=argument)


QRELS_SHAPES = ("a qrels file, several files, a DataFrame (topic, docno, rel), a {query_id: {doc_id: grade}} dict, "
                "a ranx Qrels or records (query_id, doc_id, relevance)")
RUN_SHAPES = ("run files, a directory, a glob, a DataFrame (topic, docno, score [, system]), a {query_id: "
              "{doc_id: score}} dict, a {name: run} dict, ranx Runs or records (query_id, doc_id, score)")


def _tuples_frame(rows: list, fields: tuple[str, str, str], what: str) -> pl.DataFrame:
    """Tuples or namedtuples as a frame; named fields are read by name (ir_datasets' TrecQrel
    is ``query_id, doc_id, relevance, iteration``), plain tuples by position."""
    first = rows[0]
    names = getattr(first, "_fields", None)
    if names is not None and all(f in names for f in fields):
        columns = [[getattr(r, f) for r in rows] for f in fields]
    else:
        if any(len(r) < 3 for r in rows):
            raise ArgumentError(f"{what}: expected tuples ({', '.join(fields)}); found {rows[0]!r}", argument="qrels" if fields[2] == "relevance" else "runs")
        columns = [[r[i] for r in rows] for i in range(3)]
    nested: dict = {}
    for qid, did, value in zip(*columns):
        docs = nested.setdefault(qid, {})
        if did in docs:
            raise ArgumentError(f"{what}: query {str(qid)!r}, document {str(did)!r} appears twice", argument="qrels" if fields[2] == "relevance" else "runs")
        docs[did] = value
    return _nested_frame(nested, fields[2], what)


def _materialise(value: Any, argument: str) -> list | None:
    """An iterable of records as a list, or None if ``value`` is not one (paths, frames…)."""
    if _is_pathlike(value) or _is_frame(value) or isinstance(value, Mapping) or not isinstance(value, Iterable):
        return None
    if isinstance(value, (list, tuple)):
        if value and isinstance(value[0], tuple):
            return list(value)
        return None
    rows = list(value)  # a generator such as qrels_iter(): read it once
    if rows and not isinstance(rows[0], tuple):
        raise ArgumentError(f"{argument}: expected records (query_id, doc_id, value); found {type(rows[0]).__name__}",
                            argument=argument)
    return rows


def qrels_shape(source: Any) -> Any:
    """Qrels in any accepted shape → a DataFrame (or ``source`` unchanged: paths, frames)."""
    _refuse_lazy(source, "qrels")
    if _is_ranx(source, "Qrels"):
        return _nested_frame(source.to_dict(), "relevance", "ranx Qrels")
    if isinstance(source, Mapping):
        return _nested_frame(source, "relevance", "qrels dict")
    rows = _materialise(source, "qrels")
    if rows is not None:
        if not rows:
            raise ArgumentError("the qrels hold no judgments", argument="qrels")
        return _tuples_frame(rows, QREL_FIELDS, "qrels records")
    return _check_source(source, "qrels", QRELS_SHAPES)


def _is_nested_run(value: Any) -> bool:
    """``{query_id: {doc_id: score}}`` (one run) rather than ``{name: DataFrame or run}``."""
    if not isinstance(value, Mapping) or not value:
        return False
    inner = next(iter(value.values()))
    return isinstance(inner, Mapping) and (not inner or not isinstance(next(iter(inner.values())), Mapping))


def run_shape(source: Any) -> Any:
    """Runs in any accepted shape → a DataFrame, a ``{name: DataFrame}`` dict, or ``source``
    unchanged (paths, directories, globs, frames)."""
    _refuse_lazy(source, "runs")
    if _is_ranx(source, "Run"):
        return {str(getattr(source, "name", None) or "run"): _nested_frame(source.to_dict(), "score", "ranx Run")}
    if _is_nested_run(source):
        return {"run": _nested_frame(source, "score", "run dict")}
    if isinstance(source, Mapping):
        return {str(name): run_shape_one(run, str(name)) for name, run in source.items()}
    if isinstance(source, (list, tuple)) and source and all(_is_ranx(r, "Run") for r in source):
        out: dict = {}
        for k, run in enumerate(source):
            name = str(getattr(run, "name", None) or f"run{k + 1}")
            if name in out:
                raise ArgumentError(f"several ranx Runs are named {name!r}; give them distinct names", argument="runs")
            out[name] = _nested_frame(run.to_dict(), "score", "ranx Run")
        return out
    rows = _materialise(source, "runs")
    if rows is not None:
        if not rows:
            raise ArgumentError("no runs given", argument="runs")
        return {"run": _tuples_frame(rows, RUN_FIELDS, "run records")}
    return _check_source(source, "runs", RUN_SHAPES)


def run_shape_one(run: Any, name: str) -> Any:
    """One named run of a ``{name: run}`` dict in any accepted shape → a DataFrame."""
    _refuse_lazy(run, "runs", f"run {name!r}")
    if _is_frame(run):
        return run
    if _is_ranx(run, "Run"):
        return _nested_frame(run.to_dict(), "score", f"run {name!r}")
    if isinstance(run, Mapping):
        return _nested_frame(run, "score", f"run {name!r}")
    rows = _materialise(run, "runs")
    if rows is not None and rows:
        return _tuples_frame(rows, RUN_FIELDS, f"run {name!r}")
    raise ArgumentError(f"run {name!r}: expected a DataFrame, a {{query_id: {{doc_id: score}}}} dict, a ranx Run or "
                        f"records (query_id, doc_id, score); found {type(run).__name__}", argument="runs")
