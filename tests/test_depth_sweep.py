"""Depth sweeps (irstats.depth.sweep; METHODS.md §5.5) against the engine, depth by depth.

The sweep reads every depth off cumulative arrays of one judgments tensor. Evaluating each
depth separately with ``irstats.evaluate`` (``AP@k``, ``nDCG@k`` …; ``judged_only=True``
for the condensed form) against the simulated qrels must give the same per-topic values
to 1e-12 — on real TREC DL 2019 runs (a few depths and runs, to stay fast) and on a
synthetic pooled collection. The properties of METHODS.md §2.3/§5.5 are checked too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import irstats
from irstats.collection import Collection, EvalOptions, RunSet
from irstats.demo import make_demo_collection
from irstats.depth import (
    DEFAULT_SWEEP_MEASURES,
    UNJUDGED_FORMS,
    condense,
    default_depths,
    depth_sweep,
    parse_swept_measure,
    simulate_pool,
    sweep,
)
from irstats.errors import InputError, MeasureError
from irstats.judgments import build_judgments

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import process_run, read_qrels, read_run  # noqa: E402

TOL = 1e-12
# Every swept measure with an engine counterpart (AP_pool has none: it needs the pool).
ENGINE_MEASURES = ("AP", "AP_min", "nDCG", "Q(beta=1,norm=min)", "RBP(p=0.8)", "RBPresid(p=0.8)", "ERR",
                   "SP", "DCG", "P", "R", "RR", "Judged", "RBP(p=0.8,rel=2)", "nDCG(gain=exp)", "Q(beta=0.5)")
DL19_RUNS = ("ICT-BERT2", "ICT-CKNRM_B50", "bm25base_p", "idst_bert_p1", "p_exp_rm3_bert", "TUW19-p3-re")
DL19_DEPTHS = (1, 2, 5, 9, 10, 11, 20, 50, 100, 1000)


@pytest.fixture(scope="module")
def dl19(reference_data):
    folder = reference_data / "trec-dl-2019-passage"
    runs = [folder / "runs" / f"{name}.run.gz" for name in DL19_RUNS]
    for run in runs:
        assert run.exists(), f"missing DL 2019 run {run}"
    pool = simulate_pool(folder / "qrels.dl19-passage.txt", runs, 10)
    result = sweep(pool, (*ENGINE_MEASURES, "AP_pool"), DL19_DEPTHS)
    return folder, runs, pool, result


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    demo = make_demo_collection(tmp_path_factory.mktemp("demo"), seed=5, n_topics=10, n_runs=8, n_docs=300,
                                run_depth=150, pool_depth=20)
    pooled = [f"run{r + 1:02d}" for r in range(0, 8, 2)]
    pool = simulate_pool(demo.qrels, demo.runs, 20, pooled)
    return demo, pool, sweep(pool, depths="all")


def assert_sweep_equals_engine(pool, runs, result, measures, depths, qrels):
    worst = 0.0
    for form in UNJUDGED_FORMS:
        for k in depths:
            names = [f"{m}@{k}" for m in measures]
            engine = irstats.evaluate(qrels, runs, names, judged_only=(form == "condensed"), g_max=pool.g_max)
            for m in measures:
                expected = engine[str(irstats.parse_measure(f"{m}@{k}"))]
                got = result.matrix(m, form, k)
                assert got.systems == expected.systems and got.topics == expected.topics
                diff = np.abs(got.values - expected.values)
                assert np.array_equal(np.isnan(got.values), np.isnan(expected.values))
                worst = max(worst, float(np.nanmax(diff)))
                assert np.nanmax(diff) <= TOL, (form, k, m, float(np.nanmax(diff)))
    return worst


def test_sweep_equals_engine_on_dl19(dl19, tmp_path):
    folder, runs, pool, result = dl19
    qrels_file = pool.write_qrels(tmp_path / "dl19-pool10.qrels")  # the engine reads the simulated qrels file
    assert_sweep_equals_engine(pool, runs, result, ENGINE_MEASURES, DL19_DEPTHS, qrels_file)
    # the simulated qrels passed as a DataFrame give the same
    assert_sweep_equals_engine(pool, runs, result, ("AP_min", "ERR"), (10, 100), pool.qrels)


def test_sweep_equals_engine_on_synthetic_pool(demo):
    data, pool, result = demo
    worst = assert_sweep_equals_engine(pool, data.runs, result, DEFAULT_SWEEP_MEASURES[:2] + DEFAULT_SWEEP_MEASURES[3:],
                                       (1, 7, 20, 21, 100, 150, 1000 if 1000 in result.depths else 150), pool.qrels)
    assert worst <= TOL


def test_means_are_the_score_matrix_means(dl19):
    _, _, _, result = dl19
    for key, means in result.means.items():
        for col, k in enumerate(result.depths):
            np.testing.assert_allclose(means[:, col], result.matrix(*key, k).means(), rtol=1e-14, atol=1e-15)


def test_unjudged_as_nonrel_rbp_and_ap_never_decrease(dl19, demo):
    for result in (dl19[3], demo[2]):
        for name in {"AP", "RBP(p=0.8)", "ERR", "SP", "DCG"} & set(result.measures):
            per_topic = result.topic_values(name, "judged-as-nonrel")
            steps = np.diff(per_topic, axis=2)
            assert np.all(steps[~np.isnan(steps)] >= 0), name  # every system, every topic
            assert np.all(np.diff(result.series(name, "judged-as-nonrel"), axis=1) >= 0), name


def test_ap_min_and_ap_pool_relations(dl19, demo):
    for result, pool in ((dl19[3], dl19[2]), (demo[2], demo[1])):
        big_r = pool.judgments().num_relevant().astype(float)
        ap = result.topic_values("AP", "judged-as-nonrel")
        ap_min = result.topic_values("AP_min", "judged-as-nonrel")
        k = result.depths[None, None, :].astype(float)
        r = big_r[None, :, None]
        # AP_min@k = AP@k · R / min(k, R), hence = AP@k when k ≥ R
        expected = np.where(r > 0, ap * r / np.minimum(k, np.maximum(r, 1)), 0.0)
        np.testing.assert_allclose(ap_min, expected, rtol=1e-12, atol=1e-15)
        at_or_past_r = np.broadcast_to(k >= r, ap.shape)
        np.testing.assert_allclose(ap_min[at_or_past_r], ap[at_or_past_r], rtol=0, atol=1e-15)
        for form in UNJUDGED_FORMS:
            ap_f, pool_f = result.topic_values("AP", form), result.topic_values("AP_pool", form)
            deep = result.depths >= pool.pool_depth
            assert np.array_equal(ap_f[:, :, deep], pool_f[:, :, deep])  # AP″ = AP′ for k ≥ d
            # AP_pool = SP@k / R_k
            sp = result.topic_values("SP", form) if "SP" in result.measures else ap_f * r
            r_k = pool.r_k(result.depths)[None].astype(float)
            np.testing.assert_allclose(pool_f, np.where(r_k > 0, sp / np.where(r_k > 0, r_k, 1), 0.0),
                                       rtol=1e-12, atol=1e-15)


def test_ap_pool_against_plain_loop(demo):
    """AP″ on one topic and system from a literal R_k and SP@k (METHODS.md §2.3)."""
    data, pool, result = demo
    read_qrels(data.qrels)  # the file parses with the reference reader too
    runs = {Path(p).stem: read_run(p) for p in data.runs}
    ranked = {n: {t: process_run(lines) for t, lines in run.items()} for n, run in runs.items()}
    sim = {}
    for topic, doc, rel in pool.qrels.iter_rows():
        sim.setdefault(topic, {})[doc] = rel
    values = result.topic_values("AP_pool", "judged-as-nonrel")
    d = pool.pool_depth
    for si, system in enumerate(result.systems[:3]):
        for ti, topic in enumerate(result.topics[:4]):
            docs = ranked[system][topic]
            for col, k in enumerate(result.depths[:40]):
                seen = {doc for n in pool.contributing for doc in ranked[n][topic][:min(k, d)]}
                r_k = sum(1 for doc, g in sim[topic].items() if g >= 1 and doc in seen)
                hits, sp = 0, 0.0
                for i, doc in enumerate(docs[:k], start=1):
                    if sim[topic].get(doc, -1) >= 1:
                        hits += 1
                        sp += hits / i
                expected = sp / r_k if r_k else 0.0
                assert values[si, ti, col] == pytest.approx(expected, abs=1e-12), (system, topic, k)


def test_condense_equals_engine_judged_only(demo):
    data, pool, _ = demo
    collection = Collection.load(pool.qrels)
    runset = RunSet.load(data.runs)
    engine = build_judgments(collection, runset, EvalOptions(judged_only=True))
    mine = condense(build_judgments(collection, runset, EvalOptions()))
    assert np.array_equal(mine.grades, engine.grades)
    assert np.array_equal(mine.n_ret, engine.n_ret)


def test_depth_grid_and_frames(demo):
    _, pool, result = demo
    assert list(result.depths) == list(range(1, 1001))  # "all" = 1..M
    grid = default_depths(10)
    assert grid[0] == 1 and grid[-1] == 1000 and 10 in grid and 25 in grid and len(grid) == 37
    assert list(default_depths(35)).count(35) == 1 and len(default_depths(35)) == 38
    small = sweep(pool, ["AP_min", "RBP"], [50, 5, 5], forms=["condensed"])
    assert list(small.depths) == [5, 20, 50]  # sorted, unique, with d added
    frame = small.to_frame()
    assert frame.columns == ["system", "measure", "form", "depth", "value"]
    assert frame.height == len(small.systems) * 2 * 3
    assert set(frame["measure"]) == {"AP_min", "RBP(p=0.8)"} and set(frame["form"]) == {"condensed"}
    assert small.matrix("AP_min", "condensed", 20).measure == "AP_min@20"
    topics = small.per_topic_frame()
    assert topics.columns == ["system", "topic", "measure", "form", "depth", "value"]
    assert topics.height == len(small.systems) * len(small.topics) * 2 * 3
    lean = sweep(pool, ["ERR"], [1, 2], per_topic=False)
    with pytest.raises(InputError):
        lean.topic_values("ERR")
    assert "depths" in repr(small)


def test_swept_measure_names():
    assert [parse_swept_measure(m).name for m in DEFAULT_SWEEP_MEASURES] == list(DEFAULT_SWEEP_MEASURES)
    assert parse_swept_measure("map").name == "AP"
    assert parse_swept_measure("ndcg").at(10) == "nDCG@10"
    assert parse_swept_measure("AP_pool(rel=2)").name == "AP_pool(rel=2)"
    assert parse_swept_measure("Q(beta=1, norm=min)").name == "Q(beta=1,norm=min)"
    assert parse_swept_measure("ERR").measure.cutoff is None
    for bad, match in (("nDCG@10", "without '@k'"), ("Bpref", "cannot be swept"), ("map_cut_10", "cut-off"),
                       ("Nope", "unknown measure")):
        with pytest.raises(MeasureError, match=match):
            parse_swept_measure(bad)


def test_depth_sweep_one_call_and_errors(demo):
    data, pool, _ = demo
    result = depth_sweep(data.qrels, data.runs, ["AP_min"], pool_depth=20, simulate=True, contributing=pool.contributing,
                         depths=[1, 30])
    np.testing.assert_array_equal(result.series("AP_min", "condensed"),
                                  sweep(pool, ["AP_min"], [1, 30]).series("AP_min", "condensed"))
    with pytest.raises(InputError, match="form"):
        sweep(pool, ["AP"], [1], forms=["bogus"])
    with pytest.raises(InputError, match="at least 1"):
        sweep(pool, ["AP"], [0, 3])
    only = sweep(pool, ["AP"], [1, 5], systems=list(pool.contributing))
    assert only.systems == pool.contributing
    with pytest.raises(InputError, match="no run named"):
        sweep(pool, ["AP"], [1], systems=["missing"])
    with pytest.raises(KeyError):
        only.series("nDCG")
    assert isinstance(only.to_frame(), pl.DataFrame)
