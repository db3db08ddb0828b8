"""Pool simulation (irstats.depth.pooling; METHODS.md §5.5, §2.3) against plain loops.

A synthetic collection pooled at depth 20 from every other run (``make_demo_collection``)
is the ground truth: simulating that pool must give back exactly its qrels; simulating
other depths and contributor sets must give the qrels of the documents those runs rank at
depth ≤ d, R_k and the complete depth as a literal loop over the ranked lists computes them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from irstats.collection import Collection, EvalOptions, RunSet
from irstats.demo import make_demo_collection
from irstats.depth import complete_depth, given_pool, judged_depth, simulate_pool, sweep
from irstats.errors import InputError
from irstats.judgments import build_judgments

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import process_run, read_qrels, read_run  # noqa: E402

N_RUNS = 8
POOL_DEPTH = 20


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return make_demo_collection(tmp_path_factory.mktemp("demo"), seed=3, n_topics=12, n_runs=N_RUNS, n_docs=400,
                                run_depth=200, pool_depth=POOL_DEPTH)


@pytest.fixture(scope="module")
def pooled_names():
    return [f"run{r + 1:02d}" for r in range(0, N_RUNS, 2)]  # the demo pools every other run


@pytest.fixture(scope="module")
def ranked(demo):
    """{run name: {topic: processed list of docnos}} in trec_eval order, M = 1000."""
    out = {}
    for path in demo.runs:
        run = read_run(path)
        out[Path(path).stem] = {t: process_run(lines) for t, lines in run.items()}
    return out


def reference_pool(qrels: dict, ranked: dict, names, depth: int) -> set:
    """{(topic, docno, rel)}: the qrels lines of documents some run in ``names`` ranks at depth ≤ d."""
    pooled = {(t, d) for n in names for t, docs in ranked[n].items() for d in docs[:depth]}
    return {(t, d, g) for t, docs in qrels.items() for d, g in docs.items() if (t, d) in pooled}


def as_set(frame: pl.DataFrame) -> set:
    return set(frame.select("topic", "docno", "rel").iter_rows())


def test_original_pool_is_recovered_exactly(demo, pooled_names, ranked):
    qrels = read_qrels(demo.qrels)
    pool = simulate_pool(demo.qrels, demo.runs, POOL_DEPTH, pooled_names)
    everything = {(t, d, g) for t, docs in qrels.items() for d, g in docs.items()}
    assert as_set(pool.qrels) == everything
    assert pool.qrels.height == len(everything)
    # with every run contributing at the same depth the pool can only be the original too
    assert as_set(simulate_pool(demo.qrels, demo.runs, POOL_DEPTH).qrels) == everything
    assert pool.contributing == tuple(pooled_names) and len(pool.systems) == N_RUNS


@pytest.mark.parametrize("depth", [1, 3, 7, 20])
@pytest.mark.parametrize("which", ["pooled", "others", "all"])
def test_pool_equals_plain_loop(demo, pooled_names, ranked, depth, which):
    names = {"pooled": pooled_names, "all": list(ranked),
             "others": [n for n in ranked if n not in pooled_names]}[which]
    qrels = read_qrels(demo.qrels)
    pool = simulate_pool(demo.qrels, demo.runs, depth, names)
    assert as_set(pool.qrels) == reference_pool(qrels, ranked, names, depth)


def test_r_k_and_first_ranks_equal_plain_loop(demo, pooled_names, ranked):
    qrels = read_qrels(demo.qrels)
    d = 9
    pool = simulate_pool(demo.qrels, demo.runs, d, pooled_names)
    ks = np.arange(0, 40)
    for level in (1, 2):
        table = pool.r_k(ks, level)
        assert table.shape == (len(pool.topics), len(ks))
        for ti, topic in enumerate(pool.topics):
            for col, k in enumerate(ks):
                seen = {doc for n in pooled_names for doc in ranked[n].get(topic, [])[:min(k, d)]}
                expected = sum(1 for doc, g in qrels[topic].items() if g >= level and doc in seen)
                assert table[ti, col] == expected, (topic, k, level)
        # R_k = R_d for k ≥ d, and R_d is R of the simulated qrels
        assert np.array_equal(table[:, d], pool.judgments().num_relevant(level))
    assert np.all(np.diff(pool.r_k(ks), axis=1) >= 0)  # non-decreasing in k


def test_complete_depth_equals_plain_loop(demo, pooled_names, ranked):
    qrels = read_qrels(demo.qrels)
    pool = simulate_pool(demo.qrels, demo.runs, POOL_DEPTH, pooled_names)
    for names in (pooled_names, list(ranked)):
        got = pool.complete_depth(names)
        for ti, topic in enumerate(pool.collection.topics):
            limits = []
            for n in names:
                docs = ranked[n].get(topic)
                if not docs:
                    continue
                unjudged = [i for i, doc in enumerate(docs) if qrels[topic].get(doc, -1) < 0]
                limits.append(unjudged[0] if unjudged else pool.original_judgments().depth)
            assert got[ti] == min(limits, default=pool.original_judgments().depth), (topic, names)
    # the pooled runs are judged at least to the pool depth on every topic
    assert pool.complete_depth().min() >= POOL_DEPTH
    # without a pool depth, d is the smallest complete depth
    auto = simulate_pool(demo.qrels, demo.runs, None, pooled_names)
    assert auto.pool_depth == int(pool.complete_depth().min())


def test_judged_depth_equals_plain_loop(demo, pooled_names, ranked):
    """d for the qrels as given: per run the depth judged on every topic, median over runs."""
    qrels = read_qrels(demo.qrels)
    pool = given_pool(demo.qrels, demo.runs, None, pooled_names)
    width = pool.original_judgments().depth
    per_run = {}
    for name in ranked:
        limits = []
        for topic, docs in ranked[name].items():
            if topic not in qrels or not docs:
                continue
            unjudged = [i for i, doc in enumerate(docs) if qrels[topic].get(doc, -1) < 0]
            limits.append(unjudged[0] if unjudged else width)
        per_run[name] = min(limits, default=width)
    expected = max(1, int(np.floor(np.median([per_run[n] for n in pooled_names]))))
    assert pool.pool_depth == expected >= POOL_DEPTH
    # unpooled runs judged to shallow depths do not pull d down while half the runs were pooled
    unpooled = [n for n in ranked if n not in pooled_names]
    assert min(per_run[n] for n in unpooled) < POOL_DEPTH
    mixed = pooled_names + unpooled[: len(pooled_names) - 1]
    assert judged_depth(pool.original_judgments(), mixed) >= POOL_DEPTH
    # the qrels as given: nothing dropped, the judgments are the engine's on the real qrels
    assert pool.in_pool.all() and as_set(pool.qrels) == as_set(Collection.load(demo.qrels).qrels)
    engine = build_judgments(Collection.load(demo.qrels), RunSet.load(demo.runs), EvalOptions(judged_only=False))
    assert np.array_equal(pool.judgments().grades, engine.grades)


def test_judgments_equal_engine_on_simulated_qrels(demo, pooled_names, tmp_path):
    pool = simulate_pool(demo.qrels, demo.runs, 5, pooled_names)
    path = pool.write_qrels(tmp_path / "sim.qrels")
    collection = Collection.load(path)
    assert as_set(collection.qrels) == as_set(pool.qrels)
    engine = build_judgments(collection, RunSet.load(demo.runs), EvalOptions())
    mine = pool.judgments()
    assert mine.systems == engine.systems and mine.topics == engine.topics
    assert np.array_equal(mine.n_ret, engine.n_ret) and np.array_equal(mine.present, engine.present)
    width = max(mine.depth, engine.depth)

    def pad(g):
        return np.pad(g.astype(np.int64), ((0, 0), (0, 0), (0, width - g.shape[2])), constant_values=-2)

    assert np.array_equal(pad(mine.grades), pad(engine.grades))
    assert np.array_equal(mine.num_relevant(), engine.num_relevant())


def test_judged_at_k_is_one_within_the_pool(demo, pooled_names):
    """At k ≤ d every document of a contributing run is judged (Judged@k = 1)."""
    d = 12
    pool = simulate_pool(demo.qrels, demo.runs, d, pooled_names)
    result = sweep(pool, ["Judged"], depths=range(1, 31), forms=["judged-as-nonrel"])
    judged = result.topic_values("Judged")
    rows = [result.systems.index(n) for n in pooled_names]
    within = result.depths <= d
    assert np.all(judged[rows][:, :, within] == 1.0)
    assert np.any(judged[rows][:, :, ~within] < 1.0)  # and past d, not everything is
    others = [i for i in range(len(result.systems)) if i not in rows]
    assert np.any(judged[others][:, :, within] < 1.0)  # non-contributing runs were not pooled


def test_at_depth_reuses_the_tensor(demo, pooled_names):
    deep = simulate_pool(demo.qrels, demo.runs, POOL_DEPTH, pooled_names)
    shallow = deep.at_depth(4)
    assert as_set(shallow.qrels) == as_set(simulate_pool(demo.qrels, demo.runs, 4, pooled_names).qrels)
    assert shallow.ranked is deep.ranked
    assert "4" in repr(shallow)


def test_complete_depth_function_on_any_tensor(demo):
    j = build_judgments(Collection.load(demo.qrels), RunSet.load(demo.runs), EvalOptions(depth=50))
    d_t = complete_depth(j)
    assert d_t.shape == (len(j.topics),) and np.all((d_t >= 0) & (d_t <= 50))


def test_bad_inputs(demo, pooled_names):
    with pytest.raises(InputError, match="no run named"):
        simulate_pool(demo.qrels, demo.runs, 10, ["nosuchrun"])
    with pytest.raises(InputError, match="exceeds the evaluation depth"):
        simulate_pool(demo.qrels, demo.runs, 200, pooled_names, depth=100)
    with pytest.raises(InputError, match="at least 1"):
        simulate_pool(demo.qrels, demo.runs, 0, pooled_names)
