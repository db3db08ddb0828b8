"""Accuracy, ir_measures' measure, added as one family declared in one file
(src/irstats/measures/accuracy.py): its kernel, its expectation over tied scores and its
ir_measures name, from which the provider routes it.

Expected values are ir_measures' own: its ``accuracy`` provider per topic on the TREC DL
2019 runs of tests/data, the literals of its tests/test_accuracy.py and tests/test_providers.py, and, for
tied scores, a brute force over every ordering (tests/reference_ties.py) scored by a plain
transcription of that provider's loop — never irstats itself.
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstats
from irstats.measures import FAMILIES

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import Accuracy, Metric  # noqa: E402

from irstats.integrations import ir_measures as provider_module  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_ties import expected_score  # noqa: E402
from tests.conftest import DL19_RUNS, examples, spread  # noqa: E402


def plain_accuracy(ranked: list[str], qrels_topic: dict, k: int | None = None, level: int = 1) -> float:
    """ir_measures' AccuracyEvaluator for one ranking, line for line; NaN where it reports
    nothing (no relevant document) or divides by zero (no non-relevant one)."""
    nonrels = [0]
    for doc in ranked[:k]:
        if qrels_topic.get(doc, 0) >= level:
            nonrels.append(nonrels[-1])
        else:
            nonrels[-1] += 1
    if len(nonrels) < 2 or nonrels[-1] == 0:
        return math.nan
    return 1. - sum(nonrels[:-1]) / (float(nonrels[-1]) * (len(nonrels) - 1))


# ir_measures' tests/test_accuracy.py
QRELS = list(ir_measures.read_trec_qrels('''
0 0 C0_1 0
0 0 B0_1 1
0 0 A0_1 2
1 0 A1_1 2
1 0 A1_2 2
1 0 B1_1 1
1 0 C1_2 0
2 0 B1_1 1
'''))
RUN = list(ir_measures.read_trec_run('''
0 0 C0_1 1 0.4 run
0 0 A0_1 2 0.3 run
0 0 C0_2 3 0.2 run
0 0 C0_3 4 0.1 run
1 0 C1_1 1 0.8 run
1 0 A1_1 2 0.7 run
1 0 C1_2 3 0.6 run
1 0 B1_1 4 0.5 run
1 0 C1_3 5 0.4 run
2 0 B1_1 2 0.2 run
2 0 C1_1 3 0.1 run
'''))
EXPECTED = {Accuracy(rel=1): {"0": 2. / 3., "1": .5 * (2 / 3. + 1. / 3), "2": 1.},
            Accuracy(rel=2): {"0": 2. / 3, "1": 0.75}}


def _frames(qrels, run):
    q = pl.DataFrame({"topic": [x.query_id for x in qrels], "docno": [x.doc_id for x in qrels],
                      "rel": [x.relevance for x in qrels]})
    r = pl.DataFrame({"system": ["run"] * len(run), "topic": [x.query_id for x in run],
                      "docno": [x.doc_id for x in run], "score": [x.score for x in run]})
    return q, r


def test_ir_measures_accuracy_test_case():
    """ir_measures' own test, through irstats.evaluate and through the irstats provider."""
    q, r = _frames(QRELS, RUN)
    scores = irstats.evaluate(q, r, ["Accuracy", "Accuracy(rel=2)"], depth=None)
    for measure, name in ((Accuracy(rel=1), "Accuracy"), (Accuracy(rel=2), "Accuracy(rel=2)")):
        matrix = scores[name]
        got = {t: v for t, v in zip(matrix.topics, matrix.values[0]) if not math.isnan(v)}
        assert got == pytest.approx(EXPECTED[measure], abs=1e-12)
    provider = provider_module.IrstatsProvider()
    for measure, expected in EXPECTED.items():
        assert provider.supports(measure)
        got = {m.query_id: m.value for m in provider.iter_calc([measure], QRELS, RUN)}
        assert got == pytest.approx(expected, abs=1e-12)  # topic 2 at rel=2: undefined, not reported
        mean = sum(expected.values()) / len(expected)
        assert provider.calc_aggregate([measure], QRELS, RUN)[measure] == pytest.approx(mean, abs=1e-12)
        assert mean == pytest.approx(ir_measures.accuracy.calc_aggregate([measure], QRELS, RUN)[measure], abs=1e-12)


def test_ir_measures_test_providers_lines():
    """tests/test_providers.py::test_empty's Accuracy lines, where a run answers part of the
    qrels or the qrels judge part of the run: a topic without a value gets no DEFAULT."""
    qrels = list(ir_measures.read_trec_qrels("0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 0 D3 2\n0 0 D4 0\n"
                                             "1 0 D0 1\n1 0 D3 2\n1 0 D5 2\n"))
    run = list(ir_measures.read_trec_run("0 0 D0 1 0.8 run\n0 0 D2 2 0.7 run\n0 0 D1 3 0.3 run\n0 0 D3 4 0.4 run\n"
                                         "0 0 D4 5 0.1 run\n1 0 D1 1 0.8 run\n1 0 D3 2 0.7 run\n1 0 D4 3 0.3 run\n"
                                         "1 0 D2 4 0.4 run\n"))
    provider = provider_module.IrstatsProvider()
    partial_run = [x for x in run if x.query_id == "0"]
    partial_qrels = [x for x in qrels if x.query_id == "0"]
    for q, r in ((qrels, partial_run), (partial_qrels, run)):
        assert set(provider.iter_calc([Accuracy()], q, r)) == {Metric("0", Accuracy(), 0.5)}
        assert provider.calc_aggregate([Accuracy()], q, r) == {Accuracy(): 0.5}


def test_routing_from_the_declaration():
    """The family's IrMeasuresName routes Accuracy with its cut-off and level; rel=0 (unjudged
    documents relevant, which irstats never does) is declined and named with its provider."""
    assert FAMILIES["Accuracy"].ir_measures.name == "Accuracy" and "Accuracy" in provider_module.ir_measures_names()
    assert [provider_module.irstats_name(m) for m in (Accuracy, Accuracy@10, Accuracy(rel=2)@5)] == [
        "Accuracy", "Accuracy@10", "Accuracy(rel=2)@5"]
    provider = provider_module.IrstatsProvider()
    assert not provider.supports(Accuracy(rel=0))
    with pytest.raises(provider_module.UnsupportedMeasureError, match="Accuracy\\(rel=0\\) with accuracy"):
        provider.calc_aggregate([Accuracy(rel=0)], QRELS, RUN)
    assert parse_trec_eval_free()


def test_an_evaluator_of_a_declined_measure_says_so_when_made():
    """An IrstatsEvaluator made for a measure the provider declines (as ir_measures' own code
    could) raises the provider's error at once, not a KeyError of the name None when scoring."""
    with pytest.raises(provider_module.UnsupportedMeasureError, match="Accuracy\\(rel=0\\)"):
        provider_module.IrstatsEvaluator([Accuracy(rel=0)], None, {})


def parse_trec_eval_free() -> bool:
    """Accuracy has no trec_eval name: none is declared, none is derived."""
    return FAMILIES["Accuracy"].trec_eval == () and irstats.parse_measure("Accuracy@10").trec_eval_name is None


MEASURES = [Accuracy, Accuracy@10, Accuracy@100, Accuracy(rel=2), Accuracy(rel=3)@20]


def test_dl19_equals_ir_measures_accuracy_provider(reference_data):
    """Every run (9 spread over the 14 of tests/data in the quick test budget), topic and measure on TREC DL
    2019, per topic, equal to ir_measures' accuracy provider (ties in file order, as it sorts:
    stably by score). Where that provider divides by zero (a top k of relevant documents only)
    irstats has no value either."""
    folder = reference_data / "trec-dl-2019-passage"
    qrels = list(ir_measures.read_trec_qrels(str(folder / "qrels.dl19-passage.txt")))
    by_topic = defaultdict(list)
    for line in qrels:
        by_topic[line.query_id].append(line)
    provider = provider_module.IrstatsProvider(ties="file")
    compared = undefined = 0
    runs = sorted((folder / "runs").glob("*"))
    assert len(runs) == len(DL19_RUNS)
    runs = spread(runs, 9)
    for path in runs:
        run = list(ir_measures.read_trec_run(str(path)))
        mine = {(m.query_id, m.measure): m.value for m in provider.iter_calc(MEASURES, qrels, run)}
        lines = defaultdict(list)
        for line in run:
            lines[line.query_id].append(line)
        theirs = {}
        for topic, topic_lines in lines.items():
            for measure in MEASURES:
                try:
                    theirs.update({(m.query_id, m.measure): m.value
                                   for m in ir_measures.accuracy.iter_calc([measure], by_topic[topic], topic_lines)})
                except ZeroDivisionError:
                    undefined += 1
        assert mine.keys() == theirs.keys(), path.name
        for key, value in theirs.items():
            assert mine[key] == value, (path.name, key)  # the same operations: equal to the last bit
            compared += 1
    # ir_measures' own counts (its accuracy provider alone): the 14 runs: 2,576 values, 229 undefined;
    # the quick budget's 9: 1,647 and 152 (on all 37 official runs: 6,694 and 588)
    assert (compared, undefined) == ((2576, 229) if len(runs) == len(DL19_RUNS) else (1647, 152))


def test_undefined_topics_are_nan_and_left_out_of_means():
    """A topic with no relevant document retrieved, or none but relevant ones, has no pair: NaN,
    and the mean is over the other topics."""
    q = pl.DataFrame({"topic": ["1", "1", "2", "2", "3", "3"], "docno": ["a", "b", "a", "b", "a", "b"],
                      "rel": [1, 0, 0, 0, 1, 1]})
    r = pl.DataFrame({"system": "s", "topic": ["1", "1", "2", "2", "3", "3"], "docno": ["b", "a", "a", "b", "a", "b"],
                      "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0]})
    matrix = irstats.evaluate(q, r, ["Accuracy"])["Accuracy"]
    assert matrix.values[0, 0] == 0.0 and math.isnan(matrix.values[0, 1]) and math.isnan(matrix.values[0, 2])
    assert matrix.means()[0] == 0.0 and matrix.num_topics()[0] == 1


GRADES = st.sampled_from([None, None, 0, 0, 1, 2, -1])  # None: no qrels line; -1: in the pool, unjudged
DOCS = [f"d{i}" for i in range(7)]


@st.composite
def tied_lists(draw):
    """One topic, a short run with scores from three values (many ties)."""
    grades = {d: draw(GRADES) for d in DOCS}
    chosen = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
    lines = [("1", d, rank, float(draw(st.sampled_from([1, 2, 3])))) for rank, d in enumerate(chosen, start=1)]
    return {d: g for d, g in grades.items() if g is not None}, lines


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_lists(), st.sampled_from([None, 1, 2, 3, 5]), st.sampled_from([1, 2]), st.booleans())
def test_expected_over_ties_equals_brute_force(data, k, level, judged_only):
    """ties='expected' (closed form: pairs inside a tie group count ½; a group crossing rank k
    hypergeometric) = the mean over every ordering of the plain loop; NaN when one ordering has
    no pair."""
    qrels, lines = data
    name = "Accuracy" + (f"(rel={level})" if level != 1 else "") + (f"@{k}" if k else "")
    q = pl.DataFrame({"topic": ["1"] * (len(qrels) + 1), "docno": [*qrels, "x"], "rel": [*qrels.values(), 1]},
                     schema={"topic": pl.String, "docno": pl.String, "rel": pl.Int64})
    r = pl.DataFrame({"system": "run", "topic": [t for t, *_ in lines], "docno": [d for _, d, _, _ in lines],
                      "score": [s for *_, s in lines]})
    got = irstats.evaluate(q, r, [name], ties="expected", depth=None, judged_only=judged_only)[name].values[0, 0]
    want = expected_score(lines, qrels, name, judged_only=judged_only,
                          scorer=lambda ranked: plain_accuracy(ranked, qrels, k, level))
    assert (math.isnan(got) and math.isnan(want)) or abs(got - want) <= 1e-12, (got, want)
