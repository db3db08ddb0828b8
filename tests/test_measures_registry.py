"""Measure names: canonical forms, aliases, round trips, and errors."""

from __future__ import annotations

import polars as pl
import pytest

import irstats
from irstats.errors import MeasureError
from irstats.measures import FAMILIES, parse_measure
from irstats.measures.registry import all_trec, expand_measures, trec_eval_alias

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
    ("RBP(p=0.8,scale=topic)", "rbp_p=0.8"), ("RBP(p=0.9)", None), ("NumRet", "num_ret"), ("ERR@20", None), ("P(rel=2)@10", None),
    ("nDCG(gain=exp)@10", None),
])
def test_trec_eval_names(canonical, trec):
    assert parse_measure(canonical).trec_eval_name == trec


def test_trec_eval_list_forms():
    assert expand_measures(["P.5,10", "ndcg_cut.5,10,20"]) == ["P.5", "P.10", "ndcg_cut.5", "ndcg_cut.10",
                                                                 "ndcg_cut.20"]
    names = [irstats.canonical_name(n) for n in expand_measures(["all_trec"])]
    assert "AP" in names and "nDCG@1000" in names and len(names) == len(set(names))


#: trec_eval 10's measure table in its print order (measures.c te_trec_measures[]); the drop-in's
#: table is derived from the families' declarations and its own (trec_eval/table.py).
TREC_EVAL_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
    "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
    "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "rbp", "rbp_resid", "unj")


def test_the_drop_in_table_is_derived_in_trec_eval_order():
    from irstats.trec_eval.table import DROP_IN, NICKNAMES, TABLE

    assert tuple(m.name for m in TABLE) == TREC_EVAL_ORDER
    declared = [entry.name for family in FAMILIES.values() for entry in family.trec_eval]
    assert sorted(declared + [m.name for m in DROP_IN]) == sorted(TREC_EVAL_ORDER)  # each declared once
    assert NICKNAMES["official"] == ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                                     "bpref", "recip_rank", "iprec_at_recall", "P")
    assert NICKNAMES["set"] == ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
                                "set_relative_P", "set_recall", "set_map", "set_F")
    assert set(NICKNAMES["all_trec"]) == set(TREC_EVAL_ORDER[:34]) | {"rbp", "rbp_resid", "unj"}
    assert NICKNAMES["qrels_jg"] == ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")


def _family_entries():
    return [(entry, value) for family in FAMILIES.values() for entry in family.trec_eval
            for value in (entry.defaults if entry.listed else (None,))]


@pytest.mark.parametrize("entry, value", _family_entries(), ids=lambda x: getattr(x, "name", str(x)))
def test_every_trec_eval_name_prints_and_parses_back(entry, value):
    """A family's trec_eval name parses to its measure (as printed, P_10, and as given to -m,
    P.10), and the measure prints as that name: aliases and trec_eval_name are one declaration."""
    (printed, measure), = entry.values(None if value is None else (value,))
    canonical = irstats.canonical_name(measure)
    assert irstats.canonical_name(trec_eval_alias(printed)) == canonical
    if value is not None:
        assert irstats.canonical_name(trec_eval_alias(f"{entry.name}.{value}")) == canonical
    named = parse_measure(canonical).trec_eval_name
    assert named == printed or (named, canonical) == ("Rprec", "Rprec")  # Rprec_mult_1.00 is Rprec


@pytest.mark.parametrize("canonical, trec", [
    ("Utility(a=2,b=-1,c=0,d=0)", "utility_2,-1,0,0"), ("SetF(beta=0.5)", "set_F_0.5"),
    ("IPrecAvg(levels=0.2;0.6)", "11pt_avg_0.2,0.6"), ("nDCG(gain=1:3;2:9)", "ndcg_1=3,2=9"),
    ("RBPresid(p=0.5)", "rbp_resid_p=0.5"), ("Rprec(mult=0.2)", "Rprec_mult_0.20"), ("IPrec@0.5", "iprec_at_recall_0.50"),
    ("Utility(a=1,b=-1,c=0,d=0,docs=10)", None), ("SetF(beta=1,rel=2)", None), ("RBPresid(p=0.9)@10", None),
])
def test_parameters_print_as_trec_eval_prints_them(canonical, trec):
    """The name trec_eval prints for -m name.params (what its -Z files are keyed on), and back."""
    assert parse_measure(canonical).trec_eval_name == trec
    if trec is not None:
        assert irstats.canonical_name(trec_eval_alias(trec)) == canonical


def test_all_trec_is_derived_from_the_declarations():
    from irstats.trec_eval.table import TABLE

    names = all_trec()
    assert len(names) == 95 and len(set(names)) == 95
    expected = [irstats.canonical_name(m) for entry in TABLE if "all_trec" in entry.nicknames
                and entry.kind in ("float", "long", "num_q") for _, m in entry.values()]
    assert names == tuple(dict.fromkeys(expected))
    assert expand_measures(["iprec_at_recall.0.1,0.5", "Rprec_mult.0.2,2"]) == [
        "iprec_at_recall.0.1", "iprec_at_recall.0.5", "Rprec_mult.0.2", "Rprec_mult.2"]


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


def test_dataframe_inputs_equal_file_inputs(reference_data):
    te = reference_data / "conformance" / "trec_eval-test"
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
