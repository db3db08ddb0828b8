"""One declaration per measure family: the engine, the depth sweep, comparability's
R-normalisation and the report all derive from it (issue 11, item 1).

Expected values come from plain loops over the run and qrels files (tests/reference.py reads
them independently of irstats), never from irstats itself.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

import irstats
from irstats.demo import make_demo_collection
from irstats.depth import parse_swept_measure, sweep_judgments
from irstats.errors import MeasureError
from irstats.evaluate import Evaluator
from irstats.measures import FAMILIES, Family, parse_measure
from irstats.measures.registry import (_FAMILY_KEYS, IrMeasuresName, TrecEvalName, all_trec, expand_measures,
                                      r_normalisation, register, trec_eval_alias)
from irstats.meta.comparability import metric_group, normalisation_of
from tests.reference import process_run, read_qrels, read_run


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return make_demo_collection(tmp_path_factory.mktemp("decl"), seed=3, n_topics=6, n_runs=4, n_docs=200,
                                run_depth=60, pool_depth=10)


def _hits_terms(j, m, width):
    """1/log2(i + 2) at each relevant rank: a toy family, not one irstats has."""
    return j.head(j.relevant(), width) / np.log2(j.ranks[:width] + 2.0)


@pytest.fixture
def toy_family():
    """A family declared in one place, registered for the test and removed after it."""
    family = register(Family("ToyDG", "A toy discounted gain (test only).", terms=_hits_terms))
    yield family
    del FAMILIES["ToyDG"]
    del _FAMILY_KEYS["toydg"]


def _plain_toy(qrels_path, run_path, k):
    """The toy measure by a plain loop over one run: per topic, Σ_{i≤k, relevant} 1/log2(i+2)."""
    qrels = read_qrels(qrels_path)
    out = {}
    for topic, lines in read_run(run_path).items():
        docs = process_run(lines)
        total = 0.0
        for i, doc in enumerate(docs[:k], start=1):
            if qrels.get(topic, {}).get(doc, -1) >= 1:
                total += 1.0 / math.log2(i + 2)
        out[topic] = total
    return out


def test_a_new_family_is_one_declaration(demo, toy_family):
    """Registered once, the family is evaluated by the engine at any cut-off and swept over
    every depth, and both agree with a plain loop."""
    run = sorted(demo.runs)[0]
    scores = irstats.evaluate(demo.qrels, run, ["ToyDG@5", "ToyDG"])
    for k, name in ((5, "ToyDG@5"), (None, "ToyDG")):
        expected = _plain_toy(demo.qrels, run, k)
        matrix = scores[name]
        for t, topic in enumerate(matrix.topics):
            assert matrix.values[0, t] == pytest.approx(expected.get(topic, 0.0), abs=1e-12)
    assert toy_family.sweepable and parse_swept_measure("ToyDG").name == "ToyDG"
    judgments = Evaluator(demo.qrels).judgments(run)
    depths = np.arange(1, 61)
    swept = sweep_judgments(judgments, ["ToyDG"], depths=depths, forms=("judged-as-nonrel",))
    for k in (1, 7, 60):
        expected = _plain_toy(demo.qrels, run, k)
        got = swept.matrix("ToyDG", "judged-as-nonrel", k)
        for t, topic in enumerate(got.topics):
            assert got.values[0, t] == pytest.approx(expected.get(topic, 0.0), abs=1e-12)


@pytest.fixture
def toy_named_family():
    """A family with a trec_eval name (listed cut-offs, in all_trec, after unj) and an ir_measures
    name (ir_measures' ERR, which no irstats family claims), registered for the test only."""
    family = register(Family("ToyNamed", "A toy discounted gain with other names (test only).", terms=_hits_terms,
                             trec_eval=(TrecEvalName("toy_dg", "ToyNamed@{}", 1000, "longs", (3, 7)),),
                             ir_measures=IrMeasuresName("ERR")))
    yield family
    del FAMILIES["ToyNamed"]
    del _FAMILY_KEYS["toynamed"]


def test_every_other_name_is_derived_from_the_declaration(toy_named_family, demo):
    """Declared once, the family's trec_eval and ir_measures names reach the aliases, the trec_eval
    name of a measure, all_trec, the list forms, the drop-in's table and the ir_measures routing."""
    from irstats.trec_eval import table

    assert str(parse_measure("toy_dg_7")) == "ToyNamed@7" and str(parse_measure("toy_dg.3")) == "ToyNamed@3"
    assert parse_measure("ToyNamed@7").trec_eval_name == "toy_dg_7" and parse_measure("ToyNamed").trec_eval_name is None
    assert all_trec()[-2:] == ("ToyNamed@3", "ToyNamed@7")
    assert expand_measures(["toy_dg.3,7"]) == ["toy_dg.3", "toy_dg.7"]
    derived = table._table()
    assert derived[-1].name == "toy_dg" and [v for v in derived[-1].values((5,))] == [("toy_dg_5", "ToyNamed@5")]
    scores = irstats.evaluate(demo.qrels, sorted(demo.runs)[0], ["toy_dg_3", "ToyNamed@3"])
    assert list(scores) == ["ToyNamed@3"]
    ir_measures = pytest.importorskip("ir_measures")
    from irstats.integrations.ir_measures import ir_measures_names, irstats_name

    assert irstats_name(ir_measures.ERR@5) == "ToyNamed@5" and "ERR" in ir_measures_names()
    assert irstats_name(ir_measures.ERR(judged_only=True)@5) == "ToyNamed@5"  # an evaluation option


def test_a_family_declares_its_names_once():
    """Two declarations of one trec_eval measure (or of one place in its table) are refused."""
    from irstats.trec_eval import table

    twin = register(Family("ToyTwin", "A family claiming map's place (test only).", terms=_hits_terms,
                           trec_eval=(TrecEvalName("toy_map", "ToyTwin", 5),)))
    try:
        with pytest.raises(ValueError, match="place 5"):
            table._table()
    finally:
        del FAMILIES[twin.name]
        del _FAMILY_KEYS["toytwin"]
    assert len(table._table()) == len(table.TABLE)


def test_a_family_declares_terms_or_a_kernel():
    with pytest.raises(ValueError, match="either terms"):
        Family("Broken", "neither")


SWEEPABLE_DEFAULTS = ["AP", "AP_min", "SP", "P", "R", "RR", "Success", "Judged", "DCG", "nDCG", "ERR",
                      "Q(beta=1)", "Q(beta=1,norm=min)", "RBP(p=0.8)", "RBP(p=0.5,rel=2)", "RBPresid(p=0.8)"]


def test_sweepable_is_derived_from_the_declaration():
    sweepable = {name for name, family in FAMILIES.items() if family.sweepable}
    assert {parse_measure(m, family_only=True).family for m in SWEEPABLE_DEFAULTS} <= sweepable
    assert not {"Rprec", "Bpref", "NumRet", "NumRel", "NumRelRet"} & sweepable


@pytest.mark.parametrize("measure", SWEEPABLE_DEFAULTS)
def test_every_sweepable_family_sweeps_to_the_engine_value(demo, measure):
    """The sweep at depth k equals evaluating Family@k (tests/test_reference.py ties the engine
    to plain loops), for every family that declares itself sweepable."""
    runs = sorted(demo.runs)
    judgments = Evaluator(demo.qrels).judgments(runs)
    depths = np.array([1, 3, 10, 25, 60, 100])
    swept = sweep_judgments(judgments, [measure], depths=depths, forms=("judged-as-nonrel",))
    name = parse_swept_measure(measure).name
    for k in depths:
        engine = irstats.evaluate(demo.qrels, runs, [f"{name}@{k}"])
        expected = next(iter(engine.values()))
        got = swept.matrix(name, "judged-as-nonrel", int(k))
        np.testing.assert_allclose(got.values, expected.values, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name, raw, partner, is_normalised", [
    ("SP", "SP", "AP", False), ("AP@10", "SP@10", "AP@10", True), ("DCG@5", "DCG@5", "nDCG@5", False),
    ("nDCG", "DCG", "nDCG", True), ("P@10", "P@10", "nP@10", False), ("nP@10", "P@10", "nP@10", True),
    ("RBP(p=0.95,rel=1)", "RBP(p=0.95,rel=1)", "nRBP(p=0.95,rel=1)", False),
    ("nRBP(p=0.95,rel=1)", "RBP(p=0.95,rel=1)", "nRBP(p=0.95,rel=1)", True),
])
def test_r_normalised_partners_come_from_the_raw_family(name, raw, partner, is_normalised):
    measure, rule, normalised = r_normalisation(name)
    assert (str(measure), rule.partner_name(measure), normalised) == (raw, partner, is_normalised)


def test_r_normalisation_ideal_scores():
    """METHODS.md §4.7: the ideal score each raw measure is divided by, from R (and depth m)."""
    r = np.array([0.0, 3.0, 50.0])
    assert np.array_equal(normalisation_of("SP").ideal(r), r)
    np.testing.assert_allclose(normalisation_of("P@10").ideal(r), [0.0, 0.3, 1.0])
    np.testing.assert_allclose(normalisation_of("RBP(p=0.5,rel=1)", depth=4).ideal(r),
                               [0.0, 1 - 0.5**3, 1 - 0.5**4])
    assert normalisation_of("nDCG@10").needs == "ideal"
    assert metric_group("AP@10") == "SP@10/AP@10" and metric_group("nP@10") == "P@10"


@pytest.mark.parametrize("name, message", [("RBP(p=0.8)", "graded"), ("Bpref", "no R-normalisation"),
                                           ("nope", "not a measure")])
def test_measures_without_r_normalisation(name, message):
    with pytest.raises(MeasureError, match=message):
        r_normalisation(name)


def test_measure_methods_replace_name_surgery():
    assert str(parse_measure("RBP(p=0.9)").residual) == "RBPresid(p=0.9)"
    assert str(parse_measure("RBP(p=0.5,rel=2)@10").residual) == "RBPresid(p=0.5)@10"
    assert parse_measure("AP").residual is None
    assert str(parse_measure("ndcg_cut_10").at(None)) == "nDCG"
    with pytest.raises(MeasureError, match="without '@k'"):
        parse_measure("AP@10", family_only=True)
    assert str(parse_measure("AP_min", family_only=True)) == "AP_min"


def test_shared_terms_are_summed_once(demo):
    """AP, AP@10, AP_min@10 and SP read one running sum of precisions: one cumulative array
    is kept for them, whatever order they are asked in."""
    runs = sorted(demo.runs)
    judgments = Evaluator(demo.qrels).judgments(runs)
    for name in ("AP_min@10", "AP@10", "SP", "AP"):
        m = parse_measure(name)
        m.definition.evaluate(judgments, m)
    kept = defaultdict(int)
    for key in judgments._cache:
        if key[0] == "cumulative":
            kept[key[1][0]] += 1
    assert kept == {"sum of precisions": 1}
