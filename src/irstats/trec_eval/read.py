"""Read ``trec_eval -q`` output (``measure topic value`` lines) into ScoreMatrix objects.

One file holds one run; its name is the ``runid`` line's value, else the file name. The
``all`` summary rows are skipped (they are recomputed from the per-topic values), and
trec_eval's measure names are translated to canonical ones where irstats knows them
(``map`` → ``AP``, ``P10``/``P_10`` → ``P@10``, ``R-prec`` → ``Rprec``); others are kept.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from irstats.errors import ArgumentError, InputError
from irstats.io.trec import check_field_count, expand_paths, read_lines, run_name_from_path, split_fields
from irstats.measures.registry import trec_eval_alias
from irstats.scores import ScoreMatrix, matrices_from_frame

if TYPE_CHECKING:
    import polars as pl

TEXT_MEASURES = ("runid", "relstring")


def read_trec_eval_file(path) -> pl.DataFrame:
    """One ``trec_eval -q`` file as a tidy frame ``system, topic, measure, value``."""
    import polars as pl

    name = os.fspath(path)
    parts = split_fields(read_lines(path))
    check_field_count(parts, parts.get_column("fields").list.len() != 3, "3 fields 'measure topic value'", name)
    frame = parts.select(
        "line",
        pl.col("fields").list.get(0).alias("measure"),
        pl.col("fields").list.get(1).alias("topic"),
        pl.col("fields").list.get(2).alias("text"),
    )
    runid = frame.filter(pl.col("measure") == "runid").get_column("text")
    system = runid[0] if len(runid) else run_name_from_path(Path(name))
    numeric = frame.filter(~pl.col("measure").is_in(TEXT_MEASURES))
    frame = numeric.filter(pl.col("topic") != "all")
    if frame.height == 0 and numeric.height:
        raise InputError("holds only the 'all' summary lines; per-topic lines are needed (run trec_eval with -q)",
                         path=name)
    value = pl.col("text").cast(pl.Float64, strict=False)
    frame = frame.with_columns(value.alias("value"))
    bad = frame.get_column("value").is_null()
    if bad.any():
        row = frame.filter(bad).row(0, named=True)
        raise InputError(f"expected a number in field 3, found {row['text']!r}", path=name, line=row["line"])
    measures = frame.get_column("measure").unique().to_list()
    mapping = {m: (trec_eval_alias(m) or m) for m in measures}
    return frame.select(
        pl.lit(system).alias("system"),
        "topic",
        pl.col("measure").replace_strict(mapping, return_dtype=pl.String),
        "value",
    )


def read_trec_eval(source) -> dict[str, ScoreMatrix]:
    """Read one or many ``trec_eval -q`` outputs (files, a directory or a glob).

    Returns one ScoreMatrix per measure over all the runs read.
    """
    import polars as pl

    paths = expand_paths(source)
    if not paths:
        raise ArgumentError("source: no trec_eval output given (an empty list of files)", argument="source")
    frames = [read_trec_eval_file(p) for p in paths]
    systems = [f.get_column("system")[0] for f in frames if f.height]
    seen = set()
    for system, path in zip(systems, paths):
        if system in seen:
            raise InputError(f"run {system!r} is read twice", path=os.fspath(path))
        seen.add(system)
    return matrices_from_frame(pl.concat(frames))
