"""irstats as an ir_measures provider (issue 16): ir_measures' calc_aggregate and iter_calc
through irstats give pytrec_eval's values (ir_measures' own default provider) on DL 2019."""

from __future__ import annotations

import ir_measures
import pytest
from ir_measures import AP, R, RR, Bpref, IPrec, Judged, NumQ, NumRel, NumRet, P, Rprec, SetAP, SetF, SetP, SetR, \
    Success, infAP, nDCG

from irstats.integrations import ir_measures as provider_module

#: Every measure the two providers share, with parameters (rel = relevance level, cutoffs, -J).
SHARED = [P@5, P@10, P(rel=2)@10, R@100, R@1000, AP, AP@100, AP(rel=2), nDCG, nDCG@10, nDCG@100, RR, RR(rel=2),
          Rprec, Rprec(rel=2), Bpref, Success@10, SetP, SetP(relative=True), SetR, SetF, SetF(beta=0.5), SetAP,
          infAP, IPrec@0.2, IPrec@0.5, NumRet, NumRet(rel=1), NumRel, NumQ, P(judged_only=True)@10,
          AP(judged_only=True), nDCG(judged_only=True)@10]


@pytest.fixture(scope="module")
def dl19(shared_data):
    folder = shared_data / "trec-dl-2019-passage"
    qrels = list(ir_measures.read_trec_qrels(str(folder / "qrels.dl19-passage.txt")))
    runs = {path.name: list(ir_measures.read_trec_run(str(path))) for path in sorted((folder / "runs").glob("*"))[:6]}
    return qrels, runs


@pytest.fixture(scope="module")
def irstats_provider():
    # float32 scores: pytrec_eval stores scores as C floats, so ties fall as there
    return provider_module.IrstatsProvider(score_dtype="float32")


def test_supports_every_shared_measure_and_declines_others(irstats_provider):
    for measure in SHARED:
        assert irstats_provider.supports(measure), measure
    for measure in (nDCG(dcg="exp-log2")@10, ir_measures.ERR@10, ir_measures.AP_IA, ir_measures.RBP):
        assert not irstats_provider.supports(measure), measure


def test_calc_aggregate_equals_pytrec_eval(dl19, irstats_provider):
    qrels, runs = dl19
    reference = ir_measures.pytrec_eval
    for name, run in runs.items():
        mine = irstats_provider.calc_aggregate(SHARED, qrels, run)
        # IPrec: trec_eval 10 (irstats) rounds the recall cut-offs differently from trec_eval 9
        # (pytrec_eval); irstats' IPrec is held to trec_eval 10's output in test_trec_eval_cmd.py
        theirs = reference.calc_aggregate([m for m in SHARED if reference.supports(m) and m.NAME != "IPrec"],
                                          qrels, run)
        for measure, value in theirs.items():
            assert mine[measure] == pytest.approx(value, abs=1e-6), (name, measure)


def test_iter_calc_per_query_equals_pytrec_eval(dl19, irstats_provider):
    qrels, runs = dl19
    measures = [AP, nDCG@10, P(rel=2)@10, RR, Bpref, infAP]
    for name, run in list(runs.items())[:3]:
        mine = {(m.query_id, str(m.measure)): m.value for m in irstats_provider.iter_calc(measures, qrels, run)}
        theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.pytrec_eval.iter_calc(measures, qrels, run)}
        assert mine.keys() == theirs.keys()
        for key, value in theirs.items():
            assert mine[key] == pytest.approx(value, abs=1e-6), (name, key)


def test_judged_equals_ir_measures_judged_provider(dl19, irstats_provider):
    qrels, runs = dl19
    run = next(iter(runs.values()))
    for measure in (Judged, Judged@10, Judged@100):
        assert irstats_provider.calc_aggregate([measure], qrels, run)[measure] == pytest.approx(
            ir_measures.judged.calc_aggregate([measure], qrels, run)[measure], abs=1e-9)


def test_register_puts_irstats_first_in_the_default_pipeline(dl19):
    qrels, runs = dl19
    run = next(iter(runs.values()))
    saved = list(ir_measures.DefaultPipeline.providers)
    try:
        provider = provider_module.register(score_dtype="float32")
        assert ir_measures.DefaultPipeline.providers[0] is provider and ir_measures.irstats is provider
        assert ir_measures.providers.registry["irstats"] is provider
        calls = []
        original = provider._evaluator
        provider._evaluator = lambda measures, q: calls.append(measures) or original(measures, q)
        values = ir_measures.calc_aggregate([AP, nDCG@10, ir_measures.ERR@10], qrels, run)
        assert calls and {str(m) for m in calls[0]} == {"AP", "nDCG@10"}  # ERR@10 went to another provider
        assert values[AP] == pytest.approx(ir_measures.pytrec_eval.calc_aggregate([AP], qrels, run)[AP], abs=1e-6)
        provider_module.register(default=False)
        assert all(getattr(p, "NAME", "") != "irstats" for p in ir_measures.DefaultPipeline.providers)
    finally:
        ir_measures.DefaultPipeline.providers[:] = saved


def test_pyterrier_experiment_uses_irstats(dl19, shared_data):
    """PyTerrier's pt.Experiment over two DL 2019 runs given as DataFrames evaluates through
    the irstats provider (pyterrier's core needs no Java for this)."""
    import pandas as pd
    import pyterrier as pt

    qrels, runs = dl19
    qrels_frame = pd.DataFrame([(q.query_id, q.doc_id, q.relevance) for q in qrels],
                               columns=["qid", "docno", "label"])
    systems = []
    for run in list(runs.values())[:2]:
        frame = pd.DataFrame([(r.query_id, r.doc_id, r.score) for r in run], columns=["qid", "docno", "score"])
        frame["rank"] = frame.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
        systems.append(frame)
    topics = pd.DataFrame({"qid": sorted(qrels_frame["qid"].unique()), "query": ""})
    saved = list(ir_measures.DefaultPipeline.providers)
    try:
        provider = provider_module.register(score_dtype="float32")
        calls = []
        original = provider._evaluator
        provider._evaluator = lambda measures, q: calls.append(measures) or original(measures, q)
        result = pt.Experiment(systems, topics, qrels_frame, eval_metrics=[AP, nDCG@10], names=["a", "b"])
    finally:
        ir_measures.DefaultPipeline.providers[:] = saved
    assert calls, "pt.Experiment did not evaluate through the irstats provider"
    for (name, run), row in zip(list(runs.items())[:2], result.itertuples()):
        expected = ir_measures.pytrec_eval.calc_aggregate([AP, nDCG@10], qrels, run)
        assert getattr(row, "AP") == pytest.approx(expected[AP], abs=1e-6)


def test_cwl_and_compat_through_the_provider_equal_their_reference_providers(dl19, irstats_provider):
    """The C/W/L measures and Compat go to irstats too, with cwl_eval's and compat's values
    (runs taken as ir_measures orders them: score, ties in file order — the DL 2019 runs
    below are written in score order)."""
    qrels, runs = dl19
    provider = provider_module.IrstatsProvider(order="file")
    cwl = [ir_measures.INST(T=1.0, max_rel=3), ir_measures.INSQ(T=2.0, max_rel=3), ir_measures.SDCG(max_rel=3)@10,
           ir_measures.BPM(T=1.0, max_rel=3)@10, ir_measures.NERR8(max_rel=3)@10, ir_measures.NERR10(max_rel=3)]
    for measure in (*cwl, ir_measures.Compat(p=0.95), ir_measures.Compat(p=0.8, normalize=False)):
        assert provider.supports(measure), measure
    name, run = "bm25base_rm3_p.run.gz", runs.get("bm25base_rm3_p.run.gz")
    if run is None:  # not among the fixture's first runs: read it
        from pathlib import Path

        folder = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "trec-dl-2019-passage"
        run = list(ir_measures.read_trec_run(str(folder / "runs" / name)))
    mine = provider.calc_aggregate(cwl, qrels, run)
    theirs = ir_measures.cwl_eval.calc_aggregate(cwl, qrels, run)
    for measure in cwl:
        assert mine[measure] == pytest.approx(theirs[measure], abs=1e-9), measure
    compat = [ir_measures.Compat(p=0.95)]
    assert provider.calc_aggregate(compat, qrels, run)[compat[0]] == pytest.approx(
        ir_measures.compat.calc_aggregate(compat, qrels, run)[compat[0]], abs=1e-12)
