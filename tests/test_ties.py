"""``ties``: trec_eval's docno order, file order, and expected values over tied orderings.

Expected values (``ties="expected"``) are checked against a brute force (tests/reference_ties.py:
every ordering of every tie group, ``itertools.permutations``, averaged) scored by the plain
reference (tests/reference.py) for the families it has, and by irstats' own per-ordering
evaluation (no tie code involved: each ordering is a separate run with distinct scores) for
the others; and against rbp_eval's tie-averaged test vectors (tests/data/conformance/rbp_eval),
including the inputs the plain conformance test must leave out (6.spec, default-manyties.out).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstats
import irstats.preference_judgments
from irstats.errors import InputError, MeasureError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import topic_score  # noqa: E402
from reference_ties import every_ordering, expected_score, tie_groups  # noqa: E402
from tests.conftest import examples  # noqa: E402

TOLERANCE = 1e-12
CUTOFFS = (1, 2, 3, 5)

#: Families the plain reference scores (tests/reference.py), at several cut-offs.
REFERENCE_MEASURES = (
    "AP", "SP", "RR", "Rprec", "Bpref", "nDCG", "DCG", "RBP(p=0.8)", "RBP(p=0.8,rel=2)", "RBPresid(p=0.8)", "Q(beta=1)",
    "NumRet", "NumRel", "NumRelRet", "ERR", "Q(beta=0.5)@3", "Q(beta=2,norm=min)",
    *(f"{family}@{k}" for k in CUTOFFS for family in
      ("P", "R", "AP", "AP_min", "RR", "nDCG", "DCG", "RBP(p=0.5)", "RBPresid(p=0.5)", "ERR", "Judged")),
)
#: The remaining families, checked against irstats' evaluation of each ordering separately.
OTHER_MEASURES = (
    "infAP", "binG", "binG@3", "G", "nDCG_rel", "RnDCG", "IPrec@0.5", "IPrecAvg", "SetP", "SetR", "SetF(beta=1)", "SetAP",
    "SetRelP", "Utility(a=1,b=-1,c=0,d=0)", "NumQ", "NumNonrelJudgedRet", "Q(beta=1,norm=min)@3",
    *(f"{family}@{k}" for k in CUTOFFS for family in ("Success", "Unj", "RelP", "nDCG(gain=exp)")),
    "INST(T=1,max_rel=2)", "INSQ(T=1,max_rel=2)", "SDCG(max_rel=2)@3", "BPM(T=1,max_rel=2)@3",
    "NERR8(max_rel=2)@3", "NERR9(max_rel=2)@3", "NERR10(p=0.9,max_rel=2)", "NERR11(T=1,max_rel=2)",
    "Compat(p=0.95)", "Compat(p=0.8,normalize=false)", "Accuracy", "Accuracy@3", "Accuracy(rel=2)@2",
)
#: The diversity families (measures/diversity.py), which read subtopic qrels: checked as OTHER_MEASURES.
SUBTOPIC_MEASURES = ("alpha_DCG@1", "alpha_DCG@3", "alpha_nDCG@2", "ERR_IA@3", "nERR_IA@5", "NRBP", "nNRBP(alpha=0.2)",
                     "P_IA@2", "StRecall@3")
#: trec_eval's preference measures (measures/preferences.py), which read preference judgments: likewise.
PREFERENCE_MEASURES = ("NumPrefsPoss", "NumPrefsFul", "NumPrefsFulRet", "PrefsSimp", "PrefsPair", "PrefsAvgJG",
                       "PrefsAvgJGRnonrel", "PrefsSimpRet", "PrefsPairRet", "PrefsAvgJGRet", "PrefsAvgJGRnonrelRet",
                       "PrefsSimpImp", "PrefsPairImp", "PrefsAvgJGImp")

DOCS = [f"d{i}" for i in range(8)]
GRADES = st.sampled_from([None, None, 0, 0, 1, 2, -1])  # None: no qrels line; -1: in the pool, unjudged


@st.composite
def tied_collections(draw, max_docs: int = 6):
    """Two topics; each run list short, with scores from three values (many ties)."""
    qrels, run = [], []
    for topic in ("1", "2"):
        grades = {d: draw(GRADES) for d in DOCS}
        if all(g is None or g < 1 for g in grades.values()):
            grades[DOCS[-1]] = 1  # some topic R > 0
        qrels += [(topic, d, g) for d, g in grades.items() if g is not None]
        chosen = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=max_docs, unique=True))
        run += [(topic, d, rank, float(draw(st.sampled_from([1, 2, 3]))))
                for rank, d in enumerate(chosen, start=1)]
    return qrels, run


def _frames(qrels, run):
    q = pl.DataFrame({"topic": [t for t, _, _ in qrels], "docno": [d for _, d, _ in qrels],
                      "rel": [g for _, _, g in qrels]})
    r = pl.DataFrame({"system": ["run"] * len(run), "topic": [t for t, *_ in run], "docno": [d for _, d, _, _ in run],
                      "score": [s for *_, s in run], "rank": [k for _, _, k, _ in run]})
    return q, r


def _qrels_by_topic(qrels):
    out: dict[str, dict[str, int]] = {"1": {}, "2": {}}
    for t, d, g in qrels:
        out[t][d] = g
    return out


def _lines(run, topic):
    return [line for line in run if line[0] == topic]


def _check(values, want, label):
    if math.isnan(want) and math.isnan(values):  # undefined on some ordering (Accuracy without a pair)
        return
    assert abs(values - want) <= TOLERANCE, f"{label}: irstats {values!r}, brute force {want!r}"


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_collections(), st.booleans())
def test_expected_equals_brute_force_reference(data, judged_only):
    qrels, run = data
    q, r = _frames(qrels, run)
    scores = irstats.evaluate(q, r, REFERENCE_MEASURES, ties="expected", depth=None, judged_only=judged_only)
    by_topic = _qrels_by_topic(qrels)
    g_max = max(g for _, _, g in qrels)
    for name, matrix in scores.items():
        for t, topic in enumerate(matrix.topics):
            want = expected_score(_lines(run, topic), by_topic[topic], name, g_max=g_max, judged_only=judged_only)
            _check(matrix.values[0, t], want, f"{name} topic {topic}")


def _per_ordering(q, run, topic, measures, judged_only, **options):
    """irstats' value of each measure for every ordering of ``topic``'s tied documents, averaged:
    each ordering is one run whose scores are distinct (so nothing is tied)."""
    orderings = list(every_ordering(tie_groups(_lines(run, topic))))
    rows = [(f"o{i}", topic, d, float(-pos)) for i, ranked in enumerate(orderings) for pos, d in enumerate(ranked)]
    frame = pl.DataFrame({"system": [x[0] for x in rows], "topic": [x[1] for x in rows],
                          "docno": [x[2] for x in rows], "score": [x[3] for x in rows]})
    scores = irstats.evaluate(q, frame, measures, depth=None, judged_only=judged_only, **options)
    return {name: float(np.mean(m.values[:, m.topics.index(topic)])) for name, m in scores.items()}


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_collections(max_docs=5), st.booleans())
def test_expected_equals_brute_force_per_ordering(data, judged_only):
    _check_against_orderings(data, judged_only, OTHER_MEASURES)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_collections(max_docs=5), st.booleans(), st.data())
def test_diversity_expected_equals_brute_force_per_ordering(data, judged_only, draw):
    """The diversity measures over tied orderings: their subtopic rows arranged (two tied documents
    of one grade may differ in their subtopics)."""
    qrels, _ = data
    lines = [(t, f"s{s}", d, draw.draw(st.sampled_from([0, 1, 2]))) for t, d, g in qrels if g is not None and g >= 0
             for s in draw.draw(st.lists(st.integers(0, 2), min_size=1, max_size=2, unique=True))]
    subtopics = pl.DataFrame(lines, schema=["topic", "subtopic", "docno", "grade"], orient="row")
    _check_against_orderings(data, judged_only, SUBTOPIC_MEASURES, subtopic_qrels=subtopics)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_collections(max_docs=5), st.data())
def test_preference_expected_equals_brute_force_per_ordering(data, draw):
    """The preference measures over tied orderings: the judged documents' rows arranged, with
    judgment groups of one sub-group and of several."""
    qrels, _ = data
    lines = [(t, f"g{k}", draw.draw(st.sampled_from(["s", "s", "t"])), d, float(draw.draw(st.sampled_from([0, 1, 2]))))
             for t, d, g in qrels if g is not None for k in range(draw.draw(st.integers(1, 2)))]
    prefs = pl.DataFrame(lines, schema=["topic", "jg", "jsg", "docno", "level"], orient="row")
    try:
        irstats.preference_judgments.PreferenceJudgments(prefs).on(("1", "2"))
    except irstats.preference_judgments.PreferenceError:
        return  # contradictory preferences: refused (tests/test_preferences.py)
    _check_against_orderings(data, False, PREFERENCE_MEASURES, preferences=prefs)


def _check_against_orderings(data, judged_only, measures, **options):
    qrels, run = data
    q, r = _frames(qrels, run)
    scores = irstats.evaluate(q, r, measures, ties="expected", depth=None, judged_only=judged_only, **options)
    for topic in ("1", "2"):
        want = _per_ordering(q, run, topic, measures, judged_only, **options)
        for name, matrix in scores.items():
            _check(matrix.values[0, matrix.topics.index(topic)], want[name], f"{name} topic {topic}")


@settings(max_examples=examples(25), deadline=None)
@given(tied_collections())
def test_rank_order_ties_are_equal_ranks(data):
    """Under rank order, documents of equal rank are the tie groups."""
    qrels, run = data
    run = [(t, d, int(s), s) for t, d, _, s in run]  # the rank column holds the tied values
    q, r = _frames(qrels, run)
    measures = ("AP", "RR", "nDCG@3", "P@2", "Bpref")
    scores = irstats.evaluate(q, r, measures, ties="expected", depth=None, order="rank")
    by_topic = _qrels_by_topic(qrels)
    g_max = max(g for _, _, g in qrels)
    for name, matrix in scores.items():
        for t, topic in enumerate(matrix.topics):
            want = expected_score(_lines(run, topic), by_topic[topic], name, order="rank", g_max=g_max)
            _check(matrix.values[0, t], want, f"{name} topic {topic}")


@settings(max_examples=examples(25), deadline=None)
@given(tied_collections())
def test_docno_is_the_default_and_file_keeps_file_order(data):
    qrels, run = data
    q, r = _frames(qrels, run)
    measures = ("AP", "RR", "nDCG@3", "P@2", "ERR@3", "Bpref", "IPrecAvg")
    default = irstats.evaluate(q, r, measures, depth=None)
    docno = irstats.evaluate(q, r, measures, depth=None, ties="docno")
    file_ = irstats.evaluate(q, r, measures, depth=None, ties="file")
    # ties="file": the file pre-sorted stably by score, then read in file order
    presorted = r.with_row_index("line").sort(["topic", "score", "line"], descending=[False, True, False])
    stable = irstats.evaluate(q, presorted.drop("line"), measures, depth=None, order="file")
    by_topic = _qrels_by_topic(qrels)
    g_max = max(g for _, _, g in qrels)
    for name in default:
        assert np.array_equal(default[name].values, docno[name].values)
        assert np.array_equal(file_[name].values, stable[name].values)
        for t, topic in enumerate(docno[name].topics):
            # docno: trec_eval's order, scored by the plain reference
            from reference import process_run
            if name.split("@")[0].split("(")[0] in ("IPrecAvg",):
                continue
            ranked = process_run(_lines(run, topic), depth=None)
            assert abs(docno[name].values[0, t] - topic_score(ranked, by_topic[topic], name, g_max=g_max)) <= 1e-12


def test_file_order_among_ties_differs_from_docno(tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 5 t\n1 Q0 b 2 5 t\n")
    values = {ties: irstats.evaluate(qrels, run, ["RR"], ties=ties)["RR"].values[0, 0]
              for ties in ("docno", "file", "expected")}
    assert values == {"docno": 0.5, "file": 1.0, "expected": 0.75}


def test_mcsherry_najork_worked_example(tmp_path):
    """Four documents tied, two relevant (R = 2): E[AP] = E[(1/i₁ + 2/i₂)]/2 over the six
    placements of the relevant pair — computed here by hand, (1/6)·Σ (1/i + 2/j)/2."""
    pairs = [(i, j) for i in range(1, 5) for j in range(i + 1, 5)]
    want = sum((1 / i + 2 / j) / 2 for i, j in pairs) / len(pairs)
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 0\n")
    (tmp_path / "r").write_text("".join(f"1 Q0 {d} {k} 1.5 t\n" for k, d in enumerate("abcd", 1)))
    got = irstats.evaluate(tmp_path / "q", tmp_path / "r", ["AP"], ties="expected")["AP"].values[0, 0]
    assert abs(got - want) <= TOLERANCE


def test_enumeration_past_the_limit_is_refused(tmp_path):
    """A family with no closed form refuses, naming itself, when the orderings are too many."""
    docs = [f"x{i}" for i in range(40)]
    (tmp_path / "q").write_text("".join(f"1 0 {d} {i % 3}\n" for i, d in enumerate(docs)))
    (tmp_path / "r").write_text("".join(f"1 Q0 {d} {k} 1 t\n" for k, d in enumerate(docs, 1)))
    with pytest.raises(MeasureError, match=r"G.*ties='expected'.*no closed form"):
        irstats.evaluate(tmp_path / "q", tmp_path / "r", ["G"], ties="expected")
    # the closed forms need no enumeration however large the group
    scores = irstats.evaluate(tmp_path / "q", tmp_path / "r", ["AP", "RR", "nDCG@10", "Bpref", "Rprec", "ERR", "Q",
                                                               "infAP", "nDCG_rel", "RnDCG", "IPrec@0.5", "IPrecAvg"],
                              ties="expected")
    assert all(np.isfinite(m.values).all() for m in scores.values())


def test_tie_group_across_the_depth_cut_off_is_refused(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n1 Q0 c 3 1 t\n")
    with pytest.raises(InputError, match="depth cut-off 2"):
        irstats.evaluate(tmp_path / "q", tmp_path / "r", ["AP"], ties="expected", depth=2)
    # a cut between groups is fine
    irstats.evaluate(tmp_path / "q", tmp_path / "r", ["AP"], ties="expected", depth=1)


def test_unknown_ties_value_is_an_error():
    with pytest.raises(InputError, match="ties must be one of docno, file, expected"):
        irstats.EvalOptions(ties="random")


def test_cli_ties(tmp_path, capsys):
    from conftest import run_cli

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 5 t\n1 Q0 b 2 5 t\n")
    outputs = {}
    for ties in ("docno", "file", "expected"):
        code, out, err = run_cli(["eval", tmp_path / "q", tmp_path / "r", "-m", "RR", "--ties", ties], capsys)
        assert code == 0, err
        outputs[ties] = out
    assert "0.5" in outputs["docno"] and "0.75" in outputs["expected"] and "1.0" in outputs["file"]


# ----------------------------------------------------------------------------- rbp_eval


def _rbp_module():
    import test_conformance_rbp

    return test_conformance_rbp


ALL_RBP_INPUTS = [f"{i}.spec" for i in range(1, 12)] + ["default-noties.out", "default-ties.out",
                                                        "default-manyties.out"]


@pytest.fixture(scope="module")
def rbp_dir(reference_data):
    folder = reference_data / "conformance" / "rbp_eval"
    assert folder.is_dir(), f"rbp_eval test vectors missing: {folder.resolve()}"
    return folder


def _groups_at(ranked, depth):
    """[(first, last + 1)] of the tie groups of ``ranked`` ([(docno, tie key)]), 0-based."""
    out, start = [], 0
    while start < len(ranked):
        end = start + 1
        while end < len(ranked) and ranked[end][1] == ranked[start][1]:
            end += 1
        out.append((start, end))
        start = end
    return out


def _straddled(ranked, values, depth):
    """Whether a tie group with a non-zero value crosses the cut-off ``depth``."""
    return any(start < depth < end and any(values[start:end]) for start, end in _groups_at(ranked, depth))


def _rbp_eval_rule(ranked, values, depth, p, residual):
    """rbp_eval's tie rule as its README states it, written out: each document of a group gets
    the group's mean weight, times the share of the group inside d (plus p^d for the residual)."""
    total = 0.0
    for start, end in _groups_at(ranked, depth):
        n = end - start
        mean_weight = sum((1 - p) * p ** i for i in range(start, end)) / n
        inside = max(0, min(end, depth) - start) / n
        total += mean_weight * inside * sum(values[start:end])
    return total + (p ** depth if residual else 0.0)


@pytest.mark.parametrize("name", ALL_RBP_INPUTS)
def test_rbp_eval_tie_averaged_vectors(rbp_dir, tmp_path, name):
    """rbp_eval's tie-averaged vectors, none left out for ties: every num_rel_ret, and every sum
    and err whose cut-off d no tie group of non-zero value crosses, equal irstats' expected
    d·P@d, RBP@d and RBPresid@d under ``ties="expected"`` (within rbp_eval's 1e-4). Where a
    group does cross d, rbp_eval gives its documents the share inside d of the group's mean
    weight — not an expectation over orderings; those values are checked to follow that rule
    exactly (so they differ from irstats for that reason alone, docs/ties.md)."""
    rbp = _rbp_module()
    opts, rows = rbp._case(rbp_dir, name)
    qrels = rbp._read_qrels(rbp_dir / opts["qrels"])
    run_rows = rbp._read_run(rbp_dir / opts["run"])
    scale, gain_of, level, g_max = rbp._configure(opts, qrels)
    qrels_path = rbp_dir / opts["qrels"] if scale == 1 else rbp._write_int_qrels(qrels, scale, tmp_path / "s.qrels")
    judged = [q for q in dict.fromkeys(t for t, *_ in run_rows) if q in qrels]
    ranked = rbp._ordered(run_rows, opts["order"])
    rel = f",rel={level}" if level is not None else ""

    def at(name_, d):
        return name_ + (f"@{d}" if d else "")

    def quantities(q, kind):
        docs = ranked[q]
        if kind == "err":
            return [int(doc not in qrels[q]) for doc, _ in docs]
        return [float(gain_of(qrels[q][doc])) if doc in qrels[q] else 0.0 for doc, _ in docs]

    wanted = {}
    for key in rows:
        if len(key) == 3 and key[1] != "num_rel_ret":
            _, d, p = key
            wanted[key] = (at(f"RBP(p={p}{rel})", d), at(f"RBPresid(p={p})", d))
        elif key[1] == "num_rel_ret" and level is not None:
            wanted[key] = (f"P(rel={level})@{key[2]}",)
    measures = sorted({str(irstats.parse_measure(n)) for names in wanted.values() for n in names})
    options = {"order": opts["order"], "ties": "expected", "depth": None}
    if g_max is not None:
        options["g_max"] = g_max
    scores = irstats.evaluate(qrels_path, rbp_dir / opts["run"], measures, **options)

    def value(measure, qid):
        matrix = scores[str(irstats.parse_measure(measure))]
        return matrix.summaries()[0] if qid == "all" else matrix.values[0, matrix.topics.index(qid)]

    compared, by_rule, mismatches, worst = 0, 0, [], 0.0
    for key, names in wanted.items():
        qid = key[0]
        queries = judged if qid == "all" else [qid]
        if key[1] == "num_rel_ret":
            got = value(names[0], qid) * key[2] * (len(judged) if qid == "all" else 1)
            checks = [(got, rows[key], "num_rel_ret", None)]
        else:
            checks = [(value(n, qid), want, kind, key[2])
                      for n, want, kind in zip(names, rows[key], ("sum", "err"))]
        for got, want, kind, p in checks:
            d = key[1] if kind != "num_rel_ret" else key[2]
            crossed = kind != "num_rel_ret" and any(
                _straddled(ranked[q], quantities(q, kind), d or len(ranked[q])) for q in queries)
            if not crossed:
                compared += 1
                worst = max(worst, abs(got - want))
                if not abs(got - want) <= rbp.MARGIN:
                    mismatches.append(f"{key} {kind}: rbp_eval {want}, irstats {got}")
                continue
            by_rule += 1
            rule = float(np.mean([_rbp_eval_rule(ranked[q], quantities(q, kind), d or len(ranked[q]), p,
                                                 kind == "err") for q in queries]))
            if not abs(rule - want) <= rbp.MARGIN:
                mismatches.append(f"{key} {kind}: rbp_eval {want}, its tie rule {rule}")
    assert not mismatches, f"{name}: {len(mismatches)} differ:\n" + "\n".join(mismatches)
    assert compared >= 18, compared
    print(f"{name}: {compared} values equal to irstats' expectation (largest difference {worst:.2g}), "
          f"{by_rule} follow rbp_eval's crossing rule")


@settings(max_examples=examples(15), deadline=None)
@given(tied_collections())
def test_depth_sweep_carries_the_tie_groups(data):
    """The depth sweep (and its condensed lists) of a tied tensor equals ``evaluate`` with
    ``ties="expected"`` at every depth (``judged_only`` for the condensed form)."""
    from irstats.collection import EvalOptions
    from irstats.depth import sweep_judgments
    from irstats.evaluate import Evaluator

    qrels, run = data
    q, r = _frames(qrels, run)
    options = EvalOptions(ties="expected", depth=None)
    judgments = Evaluator(q, options).judgments(r)
    result = sweep_judgments(judgments, ["AP", "P", "nDCG", "RBP(p=0.8)"], depths=[1, 2, 3, 5], options=options)
    for (measure, form), values in result.per_topic.items():
        for i, k in enumerate(result.depths):
            name = str(irstats.parse_measure(f"{measure}@{k}"))
            want = irstats.evaluate(q, r, [name], ties="expected", depth=None,
                                    judged_only=form == "condensed")[name]
            assert np.allclose(values[:, :, i], want.values, atol=1e-12, rtol=0, equal_nan=True), (name, form)
    for i, k in enumerate(result.depths):  # the share of unjudged documents in the top k
        want = irstats.evaluate(q, r, [f"Judged@{k}"], ties="expected", depth=None)[f"Judged@{k}"]
        got = np.nanmean(np.where(want.values == want.values, 1.0 - want.values, np.nan), axis=1)
        assert np.allclose(result.unjudged[:, i], got, atol=1e-12, rtol=0), k


def test_pool_simulation_refuses_expected_ties(tmp_path):
    from irstats.depth.pooling import ranked_lines
    from irstats.collection import Collection, EvalOptions, RunSet

    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n")
    with pytest.raises(InputError, match="ties='expected' cannot simulate a judging pool"):
        ranked_lines(Collection.load(tmp_path / "q"), RunSet.load(tmp_path / "r"), EvalOptions(ties="expected"))


def test_batches_keep_the_tie_groups(tmp_path, monkeypatch):
    """Runs read in several batches (of different widths) give the same expected values, in
    ``evaluate`` and in one concatenated tensor (``Evaluator.judgments``, the report's path)."""
    import importlib

    from irstats.evaluate import Evaluator

    engine = importlib.import_module("irstats.evaluate")  # the module, not the function of that name

    rng = np.random.default_rng(15)
    (tmp_path / "q").write_text("".join(f"{t} 0 d{i} {rng.integers(0, 3)}\n" for t in (1, 2) for i in range(12)))
    runs = tmp_path / "runs"
    runs.mkdir()
    for s in range(4):
        lines = [f"{t} Q0 d{i} 1 {rng.integers(1, 4)} r{s}\n" for t in (1, 2) for i in rng.permutation(12)[:4 + 2 * s]]
        (runs / f"r{s}").write_text("".join(lines))
    measures = ["AP", "nDCG@3", "RR", "Bpref", "ERR@3", "P@2"]
    whole = irstats.evaluate(tmp_path / "q", runs, measures, ties="expected", depth=None)
    monkeypatch.setattr(engine, "BATCH_BYTES", 1)
    batched = irstats.evaluate(tmp_path / "q", runs, measures, ties="expected", depth=None)
    evaluator = Evaluator(tmp_path / "q", ties="expected", depth=None)
    joined = evaluator.score_judgments(evaluator.judgments(runs), measures)
    for name in whole:
        assert np.allclose(whole[name].values, batched[name].values, atol=1e-15, rtol=0), name
        assert np.allclose(whole[name].values, joined[name].values, atol=1e-15, rtol=0), name


def test_err_closed_form_on_a_large_mixed_group(tmp_path):
    """ERR's expectation (hypergeometric mixture) on one group of 8 tied documents of four
    kinds of grade, below two untied ones, at cut-offs inside, at and past the group."""
    grades = {"a": 2, "b": 0, "c": 1, "d": 2, "e": None, "f": 1, "g": 0, "h": 3, "top": 1, "second": 0}
    (tmp_path / "q").write_text("".join(f"1 0 {d} {g}\n" for d, g in grades.items() if g is not None))
    lines = [("1", "top", 1, 9.0), ("1", "second", 2, 8.0)] + [("1", d, k, 5.0) for k, d in enumerate("abcdefgh", 3)]
    (tmp_path / "r").write_text("".join(f"{t} Q0 {d} {k} {s} t\n" for t, d, k, s in lines))
    qrels = {d: g for d, g in grades.items() if g is not None}
    for k in (1, 3, 6, 10, 20):
        got = irstats.evaluate(tmp_path / "q", tmp_path / "r", [f"ERR@{k}"], ties="expected")[f"ERR@{k}"]
        want = expected_score(lines, qrels, f"ERR@{k}", g_max=3)
        _check(got.values[0, 0], want, f"ERR@{k}")


def test_every_family_is_checked_against_the_brute_force():
    """Each registered family declares a known tie method and appears in a brute-force test."""
    from irstats.measures.registry import FAMILIES

    tested = {irstats.parse_measure(name).family
              for name in REFERENCE_MEASURES + OTHER_MEASURES + SUBTOPIC_MEASURES + PREFERENCE_MEASURES}
    assert set(FAMILIES) - tested == set()
    for family in FAMILIES.values():
        methods = {family.ties} if isinstance(family.ties, str) else {"pointwise", "enumerate"}
        assert methods <= {"pointwise", "closed", "order_free", "enumerate"}, family.name
        if family.ties == "closed":
            assert (family.expected_terms is not None) != (family.expected_kernel is not None), family.name


@settings(max_examples=examples(10), deadline=None)
@given(tied_collections(max_docs=5))
def test_trec_eval_compat_residual_is_enumerated(data):
    """RBPresid under trec_eval_compat (0 when nothing retrieved is unjudged) is not a sum of
    per-rank terms; its expectation enumerates the arrangements and equals the brute force."""
    qrels, run = data
    q, r = _frames(qrels, run)
    measures = ["RBPresid(p=0.8)", "RBPresid(p=0.5)@2"]
    scores = irstats.evaluate(q, r, measures, ties="expected", depth=None, trec_eval_compat=True)
    for topic in ("1", "2"):
        want = _per_ordering(q, run, topic, measures, False, trec_eval_compat=True)
        for name, matrix in scores.items():
            _check(matrix.values[0, matrix.topics.index(topic)], want[name], f"{name} topic {topic}")


IPREC_MEASURES = (*(f"IPrec@{r}" for r in (0, 0.1, 0.25, 0.3, 0.5, 0.75, 1)), "IPrec(rel=2)@0.5",
                  "IPrecAvg", "IPrecAvg(levels=0.2;0.6)")


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_collections(max_docs=6), st.booleans())
def test_interpolated_precision_closed_form_equals_brute_force(data, judged_only):
    """IPrec's exact expectation (order statistics of each tie group's relevant places, groups
    independent) at every kind of recall level equals the average over every ordering."""
    _check_against_orderings(data, judged_only, IPREC_MEASURES)
