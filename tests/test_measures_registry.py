"""Measure names: canonical forms, aliases, round trips, and errors."""

from __future__ import annotations

import polars as pl
import pytest

import irstats
from irstats.errors import MeasureError
from irstats.measures import FAMILIES, parse_measure
from irstats.measures.registry import expand_measures

CANONICAL = ["P@10", "P(rel=2)@10", "RR", "RR@10", "AP", "AP@100", "AP_min@5", "SP", "Rprec", "R@1000", "DCG",
             "DCG@10", "nDCG", "nDCG@10", "nDCG(gain=exp)@10", "RBP(p=0.8)", "RBP(p=0.95,rel=1)", "RBP(p=0.8)@10",
             "RBPresid(p=0.8)", "ERR@20", "Q(beta=1)", "Q(beta=1)@10", "Q(beta=1,norm=min)@10", "Bpref",
             "Judged@10", "Success@5", "NumRet", "NumRel", "NumRelRet", "Q(beta=0.5)"]


@pytest.mark.parametrize("name", CANONICAL)
def test_canonical_names_print_back_identically(name):
    measure = parse_measure(name)
    assert str(measure) == name
    assert parse_measure(str(measure)) == measure


@pytest.mark.parametrize("alias, canonical", [
    ("map", "AP"), ("map_cut_10", "AP@10"), ("map_cut.10", "AP@10"), ("P_10", "P@10"), ("P.10", "P@10"),
    ("P10", "P@10"), ("recall_1000", "R@1000"), ("recip_rank", "RR"), ("R-prec", "Rprec"), ("bpref", "Bpref"),
    ("ndcg", "nDCG"), ("ndcg_cut_10", "nDCG@10"), ("num_ret", "NumRet"), ("num_rel", "NumRel"),
    ("num_rel_ret", "NumRelRet"), ("rbp", "RBP(p=0.9,scale=topic)"), ("rbp.p=0.8", "RBP(p=0.8,scale=topic)"),
    ("rbp_resid.p=0.5", "RBPresid(p=0.5)"), ("success_5", "Success@5"),
    ("RBP", "RBP(p=0.8)"), ("Q", "Q(beta=1)"), ("ERR", "ERR@20"), ("MAP", "AP"), ("NDCG@10", "nDCG@10"),
    ("RBP(rel=1,p=0.8)", "RBP(p=0.8,rel=1)"), ("RBP(p=0.80)", "RBP(p=0.8)"),
])
def test_aliases(alias, canonical):
    assert irstats.canonical_name(alias) == canonical


@pytest.mark.parametrize("canonical, trec", [
    ("AP", "map"), ("AP@10", "map_cut_10"), ("P@10", "P_10"), ("R@100", "recall_100"), ("RR", "recip_rank"),
    ("nDCG", "ndcg"), ("nDCG@10", "ndcg_cut_10"), ("Bpref", "bpref"), ("RBP(p=0.9,scale=topic)", "rbp"),
    ("RBP(p=0.8,scale=topic)", "rbp.p=0.8"), ("RBP(p=0.9)", None), ("NumRet", "num_ret"), ("ERR@20", None), ("P(rel=2)@10", None),
    ("nDCG(gain=exp)@10", None),
])
def test_trec_eval_names(canonical, trec):
    assert parse_measure(canonical).trec_eval_name == trec


def test_trec_eval_list_forms():
    assert expand_measures(["P.5,10", "ndcg_cut.5,10,20"]) == ["P.5", "P.10", "ndcg_cut.5", "ndcg_cut.10",
                                                                 "ndcg_cut.20"]
    names = [irstats.canonical_name(n) for n in expand_measures(["all_trec"])]
    assert "AP" in names and "nDCG@1000" in names and len(names) == len(set(names))


@pytest.mark.parametrize("bad, message", [
    ("nope", "unknown measure"), ("P", "needs a cut-off"), ("Rprec@10", "takes no cut-off"),
    ("RBP(q=1)", "unknown parameter"), ("RBP(p=x)", "not a valid float"), ("nDCG(gain=cube)", "must be one of"),
    ("P@0", "at least 1"), ("AP(", "cannot parse"), ("RBP(p)", "key=value"),
])
def test_bad_names(bad, message):
    with pytest.raises(MeasureError, match=message):
        parse_measure(bad)


def test_every_family_has_a_description():
    for family in FAMILIES.values():
        assert family.description and (family.terms or family.kernel)


def test_dataframe_inputs_equal_file_inputs(shared_data):
    te = shared_data / "conformance" / "trec_eval-test"
    from_files = irstats.evaluate(te / "qrels.test", te / "results.test", ["AP", "nDCG@10"], depth=None)
    qrels = pl.read_csv(te / "qrels.test", separator=" ", has_header=False,
                        new_columns=["topic", "iter", "docno", "rel"], schema_overrides={"topic": pl.String})
    lines = (te / "results.test").read_text().split("\n")
    fields = [line.split() for line in lines if line.strip()]
    run = pl.DataFrame({"topic": [f[0] for f in fields], "docno": [f[2] for f in fields],
                        "score": [float(f[4]) for f in fields], "system": [f[5] for f in fields]})
    from_frames = irstats.evaluate(qrels, run, ["AP", "nDCG@10"], depth=None)
    for name in ("AP", "nDCG@10"):
        assert from_frames[name].systems == ("STANDARD",)
        assert from_frames[name].values.tolist() == from_files[name].values.tolist()
