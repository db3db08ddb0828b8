"""Every input shape users already hold gives exactly the values of the file route (issue 16):
pytrec_eval's dicts, ranx Qrels/Run, ir_datasets-style records, pandas and polars frames."""

from __future__ import annotations

import gzip
from collections import namedtuple

import numpy as np
import pandas as pd
import polars as pl
import pytest

import irstats
from irstats.errors import InputError

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "Rprec"]
TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])  # ir_datasets' shape
ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])


@pytest.fixture(scope="module")
def dl19(reference_data):
    folder = reference_data / "trec-dl-2019-passage"
    runs = sorted((folder / "runs").glob("*.run.gz"))[:3]
    qrels_path = folder / "qrels.dl19-passage.txt"
    rows = [line.split() for line in qrels_path.read_text().splitlines() if line.strip()]
    qrels = pl.DataFrame({"topic": [r[0] for r in rows], "docno": [r[2] for r in rows],
                          "rel": [int(r[3]) for r in rows]})
    frames = {}
    for run in runs:  # read with the standard library: an independent route to the same rows
        with gzip.open(run, "rt") as f:
            rows = [line.split() for line in f if line.strip()]
        frame = pl.DataFrame({"topic": [r[0] for r in rows], "docno": [r[2] for r in rows],
                              "score": [float(r[4]) for r in rows], "tag": [r[5] for r in rows]})
        frames[frame["tag"][0]] = frame
    expected = irstats.evaluate(qrels_path, runs, MEASURES)
    return qrels_path, qrels, frames, expected


def assert_same(got, expected, systems=None):
    for measure in MEASURES:
        e = expected[measure]
        g = got[measure]
        names = systems or e.systems
        for system in names:
            np.testing.assert_array_equal(g.system(system if systems is None else system), e.system(system))


def as_dicts(qrels: pl.DataFrame, frames: dict):
    qrels_dict: dict = {}
    for topic, docno, rel in qrels.select("topic", "docno", "rel").iter_rows():
        qrels_dict.setdefault(topic, {})[docno] = rel
    runs_dict = {}
    for name, frame in frames.items():
        run: dict = {}
        for topic, docno, score in frame.select("topic", "docno", "score").iter_rows():
            run.setdefault(topic, {})[docno] = score
        runs_dict[name] = run
    return qrels_dict, runs_dict


def test_pytrec_eval_dicts(dl19):
    qrels_path, qrels, frames, expected = dl19
    qrels_dict, runs_dict = as_dicts(qrels, frames)
    assert_same(irstats.evaluate(qrels_dict, runs_dict, MEASURES), expected)
    name = next(iter(runs_dict))
    one = irstats.evaluate(qrels_dict, runs_dict[name], MEASURES)  # a single {qid: {doc: score}} run
    assert one["AP"].systems == ("run",)
    np.testing.assert_array_equal(one["AP"].system("run"), expected["AP"].system(name))


def test_records_like_ir_datasets(dl19):
    qrels_path, qrels, frames, expected = dl19
    records = (TrecQrel(t, d, r, "0") for t, d, r in qrels.select("topic", "docno", "rel").iter_rows())
    name, frame = next(iter(frames.items()))
    scored = [ScoredDoc(t, d, s) for t, d, s in frame.select("topic", "docno", "score").iter_rows()]
    got = irstats.evaluate(records, scored, MEASURES)
    np.testing.assert_array_equal(got["AP"].system("run"), expected["AP"].system(name))
    plain = [(t, d, r) for t, d, r in qrels.select("topic", "docno", "rel").iter_rows()]  # plain tuples
    got = irstats.evaluate(plain, {name: scored}, MEASURES)
    np.testing.assert_array_equal(got["nDCG@10"].system(name), expected["nDCG@10"].system(name))


def test_pandas_and_polars_frames(dl19):
    qrels_path, qrels, frames, expected = dl19
    renamed = {name: f.select(pl.col("topic").alias("query_id"), pl.col("docno").alias("doc_id"), "score")
               for name, f in frames.items()}
    q = qrels.select(pl.col("topic").alias("query_id"), pl.col("docno").alias("doc_id"),
                     pl.col("rel").alias("relevance"))
    assert_same(irstats.evaluate(q.to_pandas(), {n: f.to_pandas() for n, f in renamed.items()}, MEASURES), expected)
    stacked = pl.concat([f.with_columns(pl.lit(n).alias("system")) for n, f in renamed.items()])
    assert_same(irstats.evaluate(q, stacked, MEASURES), expected)
    assert_same(irstats.evaluate(q, stacked.to_pandas(), MEASURES), expected)


def test_ranx_objects(dl19):
    import ranx
    qrels_path, qrels, frames, expected = dl19
    qrels_dict, runs_dict = as_dicts(qrels, frames)
    ranx_runs = [ranx.Run(run, name=name) for name, run in runs_dict.items()]
    got = irstats.evaluate(ranx.Qrels(qrels_dict), ranx_runs, MEASURES)
    assert_same(got, expected)
    one = irstats.evaluate(ranx.Qrels(qrels_dict), ranx_runs[0], MEASURES)
    np.testing.assert_array_equal(one["AP"].system(ranx_runs[0].name), expected["AP"].system(ranx_runs[0].name))


def test_bad_shapes_are_one_line_errors():
    with pytest.raises(InputError, match="must be numbers"):
        irstats.evaluate({"1": {"d": "high"}}, {"1": {"d": 1.0}}, ["AP"])
    with pytest.raises(InputError, match="must be numbers"):
        irstats.evaluate({"1": {"d": float("nan")}}, {"1": {"d": 1.0}}, ["AP"])
    with pytest.raises(InputError, match="expected"):
        irstats.evaluate({"1": 3}, {"1": {"d": 1.0}}, ["AP"])
    with pytest.raises(InputError, match="appears twice"):
        irstats.evaluate([("1", "d", 1), ("1", "d", 0)], {"1": {"d": 1.0}}, ["AP"])
    with pytest.raises(InputError, match="run 'x'"):
        irstats.evaluate({"1": {"d": 1}}, {"x": 42}, ["AP"])
    with pytest.raises(InputError, match="column"):
        irstats.evaluate(pd.DataFrame({"query_id": ["1"], "doc_id": ["d"]}), {"1": {"d": 1.0}}, ["AP"])


def test_to_pandas_and_jsonl(dl19, tmp_path):
    qrels_path, _, _, expected = dl19
    frame = expected["AP"].to_pandas()
    assert isinstance(frame, pd.DataFrame) and len(frame) == expected["AP"].values.size
    path = expected["AP"].to_jsonl(tmp_path / "ap.jsonl")
    lines = path.read_text().splitlines()
    import json

    records = [json.loads(line) for line in lines]
    assert set(records[0]) == {"run_id", "topic_id", "measure", "value"}
    first = expected["AP"]
    got = {(r["run_id"], r["topic_id"]): r["value"] for r in records}
    for system in first.systems:
        for topic, value in zip(first.topics, first.system(system)):
            if not np.isnan(value):
                assert got[(system, topic)] == pytest.approx(value, abs=0)
