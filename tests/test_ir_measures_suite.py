"""ir_measures' own conventions, which the irstats provider must keep once registered first in
ir_measures' default pipeline (found by running ir_measures 0.4.3's test suite with irstats
registered; its tests/test_providers.py::test_empty is re-expressed here).

Expected values are the literals of that test or the values of ir_measures' own pytrec_eval
provider — never irstats'. Inside ir_measures the provider follows ir_measures (empty inputs
give defaults or nothing, run topics outside the qrels are dropped silently); irstats'
own API keeps its clear errors (last test)."""

from __future__ import annotations

import math
import warnings

import ir_measures
import pytest
from ir_measures import AP, ERR, RR, Bpref, Judged, Metric, NumQ, NumRet, P, R, Rprec, SetF, SetP, Success, infAP, \
    nDCG

from irstats.integrations import ir_measures as provider_module

# tests/test_providers.py::test_empty's data (ir_measures 0.4.3)
QRELS = list(ir_measures.read_trec_qrels('''
0 0 D0 0
0 0 D1 1
0 0 D2 1
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D5 2
'''))
PARTIAL_QRELS = [q for q in QRELS if q.query_id == '0']
RUN = list(ir_measures.read_trec_run('''
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D3 2 0.7 run
1 0 D4 3 0.3 run
1 0 D2 4 0.4 run
'''))
PARTIAL_RUN = [r for r in RUN if r.query_id == '0']
#: a run answering only topics the qrels do not judge (irstats itself stops on it)
OTHER_RUN = [r._replace(query_id="9" + r.query_id) for r in RUN]
EMPTY: list = []

CASES = {
    "qrels, no run": (QRELS, EMPTY),
    "qrels, partial run": (QRELS, PARTIAL_RUN),
    "no qrels, run": (EMPTY, RUN),
    "partial qrels, run": (PARTIAL_QRELS, RUN),
    "no qrels, no run": (EMPTY, EMPTY),
    "qrels, run on other topics": (QRELS, OTHER_RUN),
}

#: measures both irstats and pytrec_eval compute, with -J, rel and cut-off variants
MEASURES = [P@5, P(rel=2)@5, AP, AP@3, nDCG, nDCG@3, RR, Rprec, Bpref, R@5, Success@3, SetP, SetF, infAP, NumRet,
            NumRet(rel=1), NumQ, P(judged_only=True)@5]


@pytest.fixture()
def registered():
    """irstats registered first in ir_measures' default pipeline, undone afterwards."""
    pipeline = list(ir_measures.DefaultPipeline.providers)
    registry = dict(ir_measures.providers.registry)
    had = hasattr(ir_measures, "irstats")
    saved = getattr(ir_measures, "irstats", None)
    try:
        yield provider_module.register()
    finally:
        ir_measures.DefaultPipeline.providers[:] = pipeline
        ir_measures.providers.registry.clear()
        ir_measures.providers.registry.update(registry)
        if had:
            ir_measures.irstats = saved
        elif hasattr(ir_measures, "irstats"):
            del ir_measures.irstats


def quietly(compute):
    """What ``compute()`` gives; any warning fails the test (no ir_measures provider warns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return compute()


def test_empty_per_query_as_test_providers(registered):
    """test_empty's iter_calc lines for P@5, through the default pipeline and through
    ir_measures.irstats, no warning."""
    for calc in (ir_measures.iter_calc, ir_measures.irstats.iter_calc):
        assert quietly(lambda: set(calc([P@5], QRELS, EMPTY))) == {Metric('0', P@5, 0.), Metric('1', P@5, 0.)}
        assert quietly(lambda: set(calc([P@5], QRELS, PARTIAL_RUN))) == {Metric('0', P@5, 0.6),
                                                                          Metric('1', P@5, 0.)}
        assert quietly(lambda: list(calc([P@5], EMPTY, RUN))) == []
        assert quietly(lambda: set(calc([P@5], PARTIAL_QRELS, RUN))) == {Metric('0', P@5, 0.6)}
        assert quietly(lambda: list(calc([P@5], EMPTY, EMPTY))) == []


def test_empty_aggregates_as_test_providers(registered):
    """test_empty's calc_aggregate lines: 0 with qrels and no run, NaN with no qrels."""
    for calc in (ir_measures.calc_aggregate, ir_measures.irstats.calc_aggregate):
        assert quietly(lambda: calc([P@5], QRELS, EMPTY)) == {P@5: 0.}
        assert quietly(lambda: calc([P@5], QRELS, PARTIAL_RUN)) == {P@5: pytest.approx(0.3, abs=1e-12)}
        assert math.isnan(quietly(lambda: calc([P@5], EMPTY, RUN))[P@5])
        assert quietly(lambda: calc([P@5], PARTIAL_QRELS, RUN)) == {P@5: pytest.approx(0.6, abs=1e-12)}
        assert math.isnan(quietly(lambda: calc([P@5], EMPTY, EMPTY))[P@5])


@pytest.mark.parametrize("case", list(CASES))
def test_edge_inputs_per_query_equal_pytrec_eval(case):
    """Every shared measure, per query, on each of test_empty's shapes (and a run on no qrels
    topic): the same (query, measure) pairs and values as ir_measures' pytrec_eval provider."""
    qrels, run = CASES[case]
    provider = provider_module.IrstatsProvider()
    mine = quietly(lambda: {(m.query_id, str(m.measure)): m.value for m in provider.iter_calc(MEASURES, qrels, run)})
    theirs = {(m.query_id, str(m.measure)): m.value
              for m in ir_measures.pytrec_eval.iter_calc(MEASURES, qrels, run)}
    assert mine.keys() == theirs.keys()
    for key, value in theirs.items():
        assert mine[key] == pytest.approx(value, abs=1e-9), key
    aggregate = quietly(lambda: provider.calc_aggregate(MEASURES, qrels, run))
    reference = ir_measures.pytrec_eval.calc_aggregate(MEASURES, qrels, run)
    for measure, value in reference.items():
        assert aggregate[measure] == pytest.approx(value, abs=1e-9, nan_ok=True), measure


def test_judged_on_edge_inputs_equals_ir_measures_judged():
    """Judged (pytrec_eval lacks it) against ir_measures' judged provider, as test_empty does."""
    provider = provider_module.IrstatsProvider()
    for case, (qrels, run) in CASES.items():
        mine = quietly(lambda: set(provider.iter_calc([Judged@5], qrels, run)))
        assert mine == set(ir_measures.judged.iter_calc([Judged@5], qrels, run)), case


def test_a_measure_irstats_does_not_compute(registered):
    """ERR (gdeval's definition) is not irstats': ir_measures.irstats names it and where the
    default pipeline sends it, which still computes it through that provider."""
    with pytest.raises(ValueError) as caught:
        ir_measures.irstats.calc_aggregate([ERR@20], QRELS, RUN)
    message = str(caught.value)
    assert "ERR@20" in message and "irstats does not compute" in message and "gdeval" in message
    assert "unknown measure" not in message and "None" not in message
    with pytest.raises(ValueError, match=r"measures ERR@20, nDCG\(dcg='exp-log2'\)@5; "):
        list(ir_measures.irstats.iter_calc([P@5, ERR@20, nDCG(dcg="exp-log2")@5], QRELS, RUN))
    through_pipeline = quietly(lambda: ir_measures.calc_aggregate([ERR@20, P@5], QRELS, RUN))
    assert through_pipeline[ERR@20] == pytest.approx(
        ir_measures.gdeval.calc_aggregate([ERR@20], QRELS, RUN)[ERR@20], abs=1e-12)
    assert through_pipeline[P@5] == pytest.approx(0.4, abs=1e-12)  # (0.6 + 0.2) / 2, as pytrec_eval
    assert through_pipeline[P@5] == pytest.approx(ir_measures.pytrec_eval.calc_aggregate([P@5], QRELS, RUN)[P@5])


def test_the_irstats_api_keeps_its_errors():
    """Outside ir_measures, irstats.evaluate still refuses what it cannot evaluate."""
    import pandas as pd

    import irstats
    from irstats.errors import InputError

    qrels = pd.DataFrame([(q.query_id, q.doc_id, q.relevance) for q in QRELS], columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(r.query_id, r.doc_id, r.score) for r in RUN], columns=["query_id", "doc_id", "score"])
    with pytest.raises(InputError, match="no judgments"):
        irstats.evaluate(qrels.iloc[:0], {"run": run}, ["P@5"])
    with pytest.raises(InputError, match="no runs given"):
        irstats.evaluate(qrels, {"run": run.iloc[:0]}, ["P@5"])
    with pytest.warns(irstats.IrstatsWarning, match="not in the qrels"):
        irstats.evaluate(qrels[qrels.query_id == "0"], {"run": run}, ["P@5"])
