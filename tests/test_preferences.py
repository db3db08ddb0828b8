"""Preference judgments and trec_eval's prefs_* measures (irstats.preferences).

Byte-identical output on trec_eval's own test files is in test_trec_eval_cmd.py. Here the
vectorised measures are held to tests/reference_prefs.py, a literal port of trec_eval's
form_prefs_counts.c and m_prefs_*.c loops: on random preference files (single and multiple
sub-groups, so both of trec_eval's representations, transitive closure, ties in scores,
unretrieved and unjudged documents, depth cuts) and on NIST's DL 2019 qrels read as
preferences (-R qrels_prefs).
"""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irstats.errors import InputError
from irstats.preference_judgments import PreferenceJudgments
from irstats.preferences import MEASURES, PreferenceError, evaluate_preferences, measure_name, read_prefs
from tests import reference_prefs
from tests.conftest import examples, run_cli

DOCS = [f"d{i}" for i in range(7)]


@st.composite
def topic_judgments(draw):
    """Consistent preference groups: each group has hidden levels; with several sub-groups each
    sub-group shows some documents with their hidden level (a partial order), with one the
    levels are free."""
    rows = []
    for g in range(draw(st.integers(1, 3))):
        hidden = {d: draw(st.sampled_from([0.0, 0.0, 1.0, 2.0, 0.5, 3.0])) for d in DOCS}
        subgroups = draw(st.sampled_from([1, 1, 2, 3]))
        for s in range(subgroups):
            shown = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True))
            for d in shown:
                level = hidden[d] if subgroups > 1 else draw(st.sampled_from([0.0, 1.0, 2.0, 3.0]))
                rows.append((f"g{g}", f"s{s}", level, d))
    return rows


rankings = st.lists(st.tuples(st.sampled_from(DOCS + ["u1", "u2"]), st.sampled_from([1.0, 2.0, 2.5, 3.0])),
                    max_size=9, unique_by=lambda x: x[0])


def _frames(rows, results):
    prefs = pl.DataFrame({"topic": ["q"] * len(rows), "jg": [r[0] for r in rows], "jsg": [r[1] for r in rows],
                          "docno": [r[3] for r in rows], "level": [r[2] for r in rows]})
    # plus a line on a topic nobody judged, so that an empty ranking of q is still a run
    run = pl.DataFrame({"topic": ["q"] * len(results) + ["other"], "docno": [d for d, _ in results] + ["x"],
                        "score": [s for _, s in results] + [1.0]})
    return prefs, run


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=topic_judgments(), results=rankings, depth=st.sampled_from([None, 1, 3]))
def test_equal_to_trec_eval_loops(rows, results, depth):
    """Every measure equals the literal port of trec_eval's loops, on both representations."""
    prefs, run = _frames(rows, results)
    got = evaluate_preferences(prefs, {"r": run}, depth=depth, complete=True)
    counts = reference_prefs.form_prefs_counts(rows, results, depth)
    expected = reference_prefs.measures(counts)
    for name, trec_name in MEASURES.items():
        assert got[name].values[0, 0] == pytest.approx(expected[trec_name], abs=1e-12), trec_name


def test_dl19_qrels_as_preferences(reference_data):
    """-R qrels_prefs on NIST's DL 2019 qrels (43 topics, 4 grades): every measure of three runs
    on every topic equals the reference loops."""
    from irstats.io.trec import read_run_file

    d = reference_data / "trec-dl-2019-passage"
    qrels = d / "qrels.dl19-passage.txt"
    judged = read_prefs(qrels, from_qrels=True)
    runs = sorted((d / "runs").glob("*.gz"))[:3]
    assert len(runs) == 3
    for path in runs:
        scores = evaluate_preferences(qrels, path, from_qrels=True)
        frame = read_run_file(path)[1]
        for t, topic in enumerate(scores["PrefsSimp"].topics):
            rows = [(r["jg"], r["jsg"], r["level"], r["docno"])
                    for r in judged.filter(pl.col("topic") == topic).iter_rows(named=True)]
            results = list(frame.filter(pl.col("topic") == topic).select("docno", "score").iter_rows())
            expected = reference_prefs.measures(reference_prefs.form_prefs_counts(rows, results))
            for name, trec_name in MEASURES.items():
                assert scores[name].values[0, t] == pytest.approx(expected[trec_name], abs=1e-12), (path, topic)


def test_transitive_preferences_across_subgroups():
    """get_prefs.c's example: 1>2, 1>3, 2>3 in one sub-group and 2>4 in another give 1>4 too
    (5 preferences); a run ranking 4, 3, 2, 1 fulfils none of them."""
    rows = [("u", "s1", 3.0, "d1"), ("u", "s1", 2.0, "d2"), ("u", "s1", 1.0, "d3"),
            ("u", "s2", 5.0, "d2"), ("u", "s2", 4.0, "d4")]
    prefs, run = _frames(rows, [("d4", 4.0), ("d3", 3.0), ("d2", 2.0), ("d1", 1.0)])
    scores = evaluate_preferences(prefs, {"r": run}, ["prefs_num_prefs_poss", "NumPrefsFul", "PrefsSimp"])
    assert [scores[m].values[0, 0] for m in ("NumPrefsPoss", "NumPrefsFul", "PrefsSimp")] == [5.0, 0.0, 0.0]
    prefs, run = _frames(rows, [("d1", 4.0), ("d2", 3.0), ("d3", 2.0), ("d4", 1.0)])
    assert evaluate_preferences(prefs, {"r": run}, "PrefsSimp")["PrefsSimp"].values[0, 0] == 1.0


def test_topics_without_results_and_complete():
    rows = [("u", "s", 1.0, "d1"), ("u", "s", 0.0, "d2")]
    prefs, run = _frames(rows, [("d1", 1.0)])
    prefs = pl.concat([prefs, prefs.with_columns(pl.lit("z").alias("topic"))])
    scores = evaluate_preferences(prefs, {"r": run}, "PrefsSimp")["PrefsSimp"]
    assert scores.topics == ("q", "z") and scores.values[0, 0] == 1.0 and scores.values[0, 1] != scores.values[0, 1]
    complete = evaluate_preferences(prefs, {"r": run}, "PrefsSimp", complete=True)["PrefsSimp"]
    assert complete.values[0, 1] == 0.0  # the preference d1 > d2: neither retrieved, not fulfilled


def test_names_and_frame_equals_file(tmp_path):
    assert measure_name("prefs_avgjg_Rnonrel_ret") == "PrefsAvgJGRnonrelRet" == measure_name("PrefsAvgJGRnonrelRet")
    with pytest.raises(Exception, match="unknown preference measure"):
        measure_name("prefs_nope")
    rows = [("u", "s", 2.0, "d1"), ("u", "s", 1.0, "d2"), ("u", "s", 0.0, "d3"), ("v", "s", 1.0, "d3")]
    (tmp_path / "prefs").write_text("".join(f"q {g} {s} {d} {level}\n" for g, s, level, d in rows))
    (tmp_path / "run").write_text("q Q0 d3 1 3 r\nq Q0 d1 2 2 r\nq Q0 d2 3 1 r\n")
    prefs, run = _frames(rows, [("d3", 3.0), ("d1", 2.0), ("d2", 1.0)])
    from_file = evaluate_preferences(tmp_path / "prefs", tmp_path / "run")
    from_frame = evaluate_preferences(prefs, {"r": run})
    for name in MEASURES:
        assert from_file[name].values.tolist() == from_frame[name].values.tolist()
    assert from_file["NumPrefsPoss"].over_topics == "sum" and from_file["PrefsSimp"].over_topics == "mean"


def test_bad_preferences_are_one_line_errors(tmp_path, capsys):
    run = tmp_path / "run"
    run.write_text("q Q0 d1 1 2 r\nq Q0 d2 2 1 r\n")
    bad = tmp_path / "prefs"
    bad.write_text("q u s d1 1\nq u s d2 high\n")
    with pytest.raises(InputError, match="prefs:2: expected a number as the level, found 'high'"):
        evaluate_preferences(bad, run)
    bad.write_text("q u s d1 1\nq u d2 0\n")
    with pytest.raises(InputError, match="prefs:2: expected 5 fields"):
        evaluate_preferences(bad, run)
    bad.write_text("q u s1 d1 2\nq u s1 d2 1\nq u s2 d2 2\nq u s2 d1 1\n")  # d1 > d2 and d2 > d1
    with pytest.raises(PreferenceError, match="inconsistent preferences"):
        evaluate_preferences(bad, run)
    bad.write_text("q u s1 d1 1\nq u s2 d1 0\nq u s2 d2 2\n")  # d1 judged 0 and > 0 in one group
    with pytest.raises(PreferenceError, match="both level 0"):
        evaluate_preferences(bad, run)
    bad.write_text("q u s d1 1\nq u s d1 0\n")  # one document at two levels of one sub-group
    with pytest.raises(PreferenceError, match="two different levels"):
        evaluate_preferences(bad, run)
    bad.write_text("q u s d1 1\nq u s d2 0\n")
    run.write_text("q Q0 d1 1 2 r\nq Q0 d1 2 1 r\n")
    with pytest.raises(InputError, match="run:2: document 'd1' appears twice for topic 'q'"):  # the engine's rule
        evaluate_preferences(bad, run)
    code, out, err = run_cli(["trec_eval", "-R", "prefs", "-m", "all_prefs", bad, run], capsys)
    assert code != 0 and "appears twice" in err and "Traceback" not in err and out == ""


def test_judged_documents_numbering_and_pair_counts():
    """The judged documents are numbered by topic and docno (trec_eval's order of the documents a
    run misses); pair_counts counts each group's preference once; a run ranking x (unjudged) and y
    retrieves y only, so both groups' z > y are implied and not fulfilled."""
    judgments = pl.DataFrame({"topic": ["q"] * 4, "jg": ["a", "a", "b", "b"], "jsg": ["s"] * 4,
                              "docno": ["z", "y", "z", "y"], "level": [1.0, 0.0, 1.0, 0.0]})
    facts = PreferenceJudgments(judgments).on(("q",))
    assert facts.docs.get_column("docno").to_list() == ["y", "z"] and facts.place.tolist() == [0, 1, 0]
    lo, hi, forward, backward = facts.pair_counts()
    assert (lo.tolist(), hi.tolist(), forward.tolist(), backward.tolist()) == ([0], [1], [0], [2])
    run = pl.DataFrame({"topic": ["q", "q"], "docno": ["x", "y"], "score": [2.0, 1.0]})
    scores = evaluate_preferences(judgments, {"r": run}, ["NumPrefsPoss", "NumPrefsFul", "PrefsSimpImp"])
    assert [scores[m].values[0, 0] for m in scores] == [2.0, 0.0, 0.0]


def test_preferences_command_matches_trec_eval_summary(reference_data, capsys):
    """`irstats preferences` prints, per measure, the 'all' value of trec_eval's out.test.prefs."""
    te = reference_data / "conformance" / "trec_eval-test"
    expected = {}
    for line in (te / "out.test.prefs").read_text().splitlines():
        name, topic, value = line.split()
        if topic == "all" and name.startswith("prefs_"):
            expected[name] = value
    code, out, err = run_cli(["preferences", te / "prefs.test", te / "prefs.results.test", "--format", "tsv"], capsys)
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    assert len(rows) == 14
    for system, name, value in rows:
        trec_name = MEASURES[name]
        shown = str(int(float(value))) if name.startswith("Num") else f"{float(value):6.4f}"
        assert shown == expected[trec_name], name


def _trec_eval_lines(text: str) -> dict[tuple[str, str], str]:
    """{(measure, topic): value} of trec_eval's preference lines."""
    out = {}
    for line in text.splitlines():
        name, topic, value = line.split()
        if name in MEASURES.values():
            out[(name, topic)] = value
    return out


@pytest.mark.parametrize("judgments, results, flags", [
    ("prefs.test", "prefs.results.test", []), ("prefs.test", "prefs.results.test", ["-M", "5"]),
    ("prefs.test", "prefs.results.test", ["-c"]), ("prefs.comment.test", "prefs.results.test", []),
    ("qrels.test", "results.test", []), ("qrels.test", "results.test", ["-c", "-M", "20"])])
def test_eval_with_prefs_equals_trec_eval_prefs(reference_data, tmp_path, capsys, judgments, results, flags):
    """The preference measures through `irstats eval QRELS RUNS --prefs FILE` (or --qrels-prefs)
    print what `irstats trec_eval -R prefs` (-R qrels_prefs) prints, per topic and over all, on
    trec_eval's own test files — the drop-in's output is trec_eval's byte for byte
    (test_trec_eval_cmd.py)."""
    te = reference_data / "conformance" / "trec_eval-test"
    as_qrels = judgments.startswith("qrels")
    code, expected, err = run_cli(["trec_eval", "-q", "-R", "qrels_prefs" if as_qrels else "prefs", "-m", "all_prefs",
                                   *flags, te / judgments, te / results], capsys)
    assert code == 0, err
    if as_qrels:
        qrels, extra = te / judgments, ["--qrels-prefs"]
    else:  # the judged documents as ordinary qrels: the topics the engine evaluates
        qrels = tmp_path / "judged.qrels"
        qrels.write_text("".join(f"{t} 0 {d} 0\n" for t, d in read_prefs(te / judgments).select("topic", "docno")
                                 .unique().sort("topic", "docno").iter_rows()))
        extra = ["--prefs", te / judgments]
    depth = flags[flags.index("-M") + 1] if "-M" in flags else "none"
    measures = [arg for name in MEASURES for arg in ("-m", name)]
    code, out, err = run_cli(["eval", qrels, te / results, *extra, *measures, "-M", depth,
                              *(["-c"] if "-c" in flags else []), "-q", "--format", "trec_eval"], capsys)
    assert code == 0, err
    ours, theirs = _trec_eval_lines(out), _trec_eval_lines(expected)
    assert len(theirs) > 14 and ours == theirs
