"""Real-valued relevance labels (issue 15): qrels grades such as 0.37 or 2.5 (LLM
probabilities, averaged assessor grades), with a negative label still meaning unjudged.

Gain-based measures use the label itself as the grade, binary measures threshold it at ℓ,
which may be real too. Expected values come from the plain-loop reference
(tests/reference.py, which knows nothing of the engine's integer grade codes) and, for the
C/W/L measures, from a loop of cwl_eval's formulas; whole-number qrels must give exactly the
values they always did, and `irstats trec_eval` keeps trec_eval's integer reading (atol).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstats
from tests import reference
from tests.conftest import examples, run_cli
from tests.test_cwl import plain_cwl

LABELS = [-1.0, 0.0, 0.0, 0.37, 0.5, 1.0, 1.25, 2.0, 2.5, 3.0]
GAIN_MEASURES = ["DCG", "nDCG", "nDCG@5", "DCG(gain=exp)@10", "nDCG(gain=exp)", "RBP(p=0.8)", "ERR@10",
                 "Q(beta=1)", "Q(beta=1,norm=min)@5"]
BINARY_MEASURES = ["P@5", "R@10", "AP", "RR", "Rprec", "Bpref", "NumRel", "NumRelRet", "RBP(p=0.8,rel=1)",
                   "P(rel=0.4)@5", "AP(rel=2.25)"]


@st.composite
def collections(draw):
    """Two topics of real-valued qrels and a run with ties, unjudged and unretrieved documents."""
    qrels, run = {}, {}
    for topic in ("t1", "t2"):
        docs = [f"{topic}d{i}" for i in range(draw(st.integers(1, 9)))]
        labels = draw(st.lists(st.sampled_from(LABELS), min_size=len(docs), max_size=len(docs)))
        qrels[topic] = dict(zip(docs, labels))
        retrieved = draw(st.lists(st.sampled_from(docs + [f"{topic}u{i}" for i in range(3)]), unique=True,
                                  max_size=10))
        scores = draw(st.lists(st.sampled_from([1.0, 2.0, 2.5, 3.0, 4.0]), min_size=len(retrieved),
                               max_size=len(retrieved)))
        run[topic] = dict(zip(retrieved, scores))
    return qrels, run


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), level=st.sampled_from([1, 0.3, 0.5, 1.5, 2.25]))
def test_every_measure_equals_the_plain_loop(data, level):
    qrels, run = data
    if not any(r for r in run.values()):
        run["t1"]["t1u0"] = 1.0  # a run needs a line
    frame = pl.DataFrame([(t, d, g) for t, docs in qrels.items() for d, g in docs.items()],
                         schema=["topic", "docno", "rel"], orient="row")
    g_max = max(max(docs.values()) for docs in qrels.values())
    ours = irstats.evaluate(frame, {"r": run}, GAIN_MEASURES + BINARY_MEASURES, rel_level=level, complete=True)
    for topic, docs in qrels.items():
        lines = [(topic, d, "0", s) for d, s in run.get(topic, {}).items()]
        ranked = reference.process_run(lines, qrels_topic=docs)
        for name in GAIN_MEASURES + BINARY_MEASURES:
            expected = reference.topic_score(ranked, docs, name, rel_level=level, g_max=g_max)
            got = ours[name].values[0, ours[name].topics.index(topic)]
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-12), (name, topic, level)


@settings(max_examples=examples(60), deadline=None)
@given(labels=st.lists(st.sampled_from(LABELS), min_size=1, max_size=25), t=st.sampled_from([0.5, 1.0, 2.0]),
       k=st.integers(1, 12))
def test_cwl_measures_use_the_real_gain(labels, t, k):
    docs = [f"d{i}" for i in range(len(labels))]
    qrels = {"1": {d: g for d, g in zip(docs, labels) if g >= 0} or {"other": 0.5}}
    if all(float(g).is_integer() for g in qrels["1"].values()):
        qrels["1"]["other"] = 0.5  # keep the labels real
    run = {"1": {d: float(len(docs) - i) for i, d in enumerate(docs)}}
    names = [f"INST(T={t:g},max_rel=3)", f"INSQ(T={t:g},max_rel=3)", f"SDCG(max_rel=3)@{k}"]
    ours = irstats.evaluate(qrels, run, names)
    gains = [min(max(g, 0), 3) / 3 for g in labels]
    for name, kind in zip(names, ("INST", "INSQ", "SDCG")):
        assert ours[name].values[0, 0] == pytest.approx(plain_cwl(gains, kind, t, k), abs=1e-12), name


def test_whole_number_labels_keep_their_values(reference_data):
    """DL 2019's qrels plus one real-valued label on a topic of its own, which sends every
    grade through the real-label codes: every value on the 43 NIST topics is unchanged."""
    d = reference_data / "trec-dl-2019-passage"
    from irstats.io.trec import read_qrels

    qrels = read_qrels(d / "qrels.dl19-passage.txt")
    assert qrels["rel"].dtype == pl.Int64
    real = pl.concat([qrels.with_columns(pl.col("rel").cast(pl.Float64)),
                      pl.DataFrame({"topic": ["zzz"], "docno": ["x"], "rel": [0.5]})])
    runs = sorted((d / "runs").glob("*.gz"))[:4]
    measures = GAIN_MEASURES + BINARY_MEASURES[:-2] + ["infAP", "IPrec@0.5", "INST(T=1)", "Compat(p=0.95)",
                                                       "nDCG(gain=1:3;2:9)@10", "RBP(p=0.8,scale=topic)"]
    whole = irstats.evaluate(qrels, runs, measures, rel_level=2)
    coded = irstats.evaluate(real, runs, measures, rel_level=2)
    for name in measures:
        a, b = whole[name], coded[name]
        columns = [b.topics.index(t) for t in a.topics]
        assert np.array_equal(a.values, b.values[:, columns], equal_nan=True), name


def test_real_labels_from_a_file_and_a_real_level(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 0.9\n1 0 b 0.2\n1 0 c 0.6\n1 0 d -1\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 b 1 4 r\n1 Q0 a 2 3 r\n1 Q0 d 3 2 r\n1 Q0 c 4 1 r\n")
    scores = irstats.evaluate(qrels, run, ["P@2", "NumRel", "DCG@2"], rel_level=0.5)
    assert scores["P@2"].values[0, 0] == 0.5  # a (0.9) relevant at ℓ = 0.5, b (0.2) not
    assert scores["NumRel"].values[0, 0] == 2  # a and c
    assert scores["DCG@2"].values[0, 0] == pytest.approx(0.2 + 0.9 / np.log2(3))
    code, out, err = run_cli(["eval", qrels, run, "-l", "0.5", "-m", "P@2", "--format", "tsv"], capsys)
    assert code == 0 and out.splitlines()[1].split("\t")[-1] == "0.5"


def test_trec_eval_reads_grades_as_trec_eval_does(reference_data, tmp_path):
    """trec_eval reads a grade with atol: 1.7 is 1 and 0.37 is 0. With qrels.test's grades so
    written, `irstats trec_eval` still prints trec_eval's out.test byte for byte."""
    from click.testing import CliRunner

    from irstats.cli.main import cli

    te = reference_data / "conformance" / "trec_eval-test"
    lines = []
    for line in (te / "qrels.test").read_text().splitlines():
        topic, it, docno, rel = line.split()
        lines.append(f"{topic} {it} {docno} {rel}.7" if rel in ("0", "1") else line)
    qrels = tmp_path / "qrels"
    qrels.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(cli, ["trec_eval", str(qrels), str(te / "results.test")])
    assert result.exit_code == 0, result.output
    assert result.output == (te / "out.test").read_text()


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), level=st.sampled_from([1, 0.5, 2.25]))
def test_tie_aware_values_with_real_labels(data, level):
    """--ties expected on real-valued labels: the mean over every ordering of the tied
    documents, as the brute force of tests/reference_ties.py computes it."""
    from tests import reference_ties

    qrels, run = data
    if not any(r for r in run.values()):
        run["t1"]["t1u0"] = 1.0
    frame = pl.DataFrame([(t, d, g) for t, docs in qrels.items() for d, g in docs.items()],
                         schema=["topic", "docno", "rel"], orient="row")
    g_max = max(max(docs.values()) for docs in qrels.values())
    names = ["nDCG@5", "RBP(p=0.8)", "ERR@10", "AP", "P@3", "Q(beta=1)"]
    ours = irstats.evaluate(frame, {"r": run}, names, rel_level=level, complete=True, ties="expected")
    for topic, docs in qrels.items():
        lines = [(topic, d, "0", s) for d, s in run.get(topic, {}).items()]
        for name in names:
            expected = reference_ties.expected_score(lines, docs, name, rel_level=level, g_max=g_max)
            got = ours[name].values[0, ours[name].topics.index(topic)]
            assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (name, topic)


def test_report_on_real_valued_labels(reference_data, tmp_path):
    """The report on DL 2019 with each grade g written as the label g/3 and ℓ = 0.5 (grades
    2 and 3): its system means equal `evaluate` at `-l 2` on the integer qrels for the binary
    measures (the same relevant documents), and the collection table summarises the labels."""
    from irstats.io.trec import read_qrels
    from irstats.report import build_report

    d = reference_data / "trec-dl-2019-passage"
    qrels = read_qrels(d / "qrels.dl19-passage.txt")
    labels = tmp_path / "labels.qrels"
    labels.write_text("".join(f"{t} 0 {doc} {g / 3:.6f}\n" for t, doc, g in qrels.iter_rows()))
    runs = sorted((d / "runs").glob("*.run.gz"))[:5]
    report = build_report(labels, runs, tmp_path / "report", quick=True, progress=False, rel_level=0.5)
    table = pl.read_csv(report.out_dir / "tables" / "relevant_per_topic.tsv", separator="\t",
                        schema_overrides={"topic": pl.String})
    assert {"mean label", "min label", "max label"} <= set(table.columns)
    expected = irstats.evaluate(qrels, runs, ["AP", "P@10"], rel_level=2)
    relevant = qrels.filter(pl.col("rel") >= 2).group_by("topic").len().sort("topic")
    assert table.filter(pl.col("relevant") > 0)["relevant"].to_list() == relevant["len"].to_list()
    means = pl.read_csv(report.out_dir / "tables" / "system_means.tsv", separator="\t")
    for name in ("AP", "P@10"):
        rows = means.filter(pl.col("measure") == name)
        got = dict(zip(rows["system"], rows["mean"]))
        assert len(got) == 5
        for system, value in zip(expected[name].systems, expected[name].means()):
            assert got[system] == pytest.approx(value, abs=1e-12), (name, system)


@pytest.mark.parametrize("simulate", [None, 5])
def test_volatility_on_real_valued_labels(reference_data, tmp_path, capsys, simulate):
    """The depth sweep reads real labels as the engine does: with the qrels as given, the
    trajectory at depth k is `evaluate(depth=k)`; a simulated pool runs too."""
    from irstats.io.trec import read_qrels

    d = reference_data / "trec-dl-2019-passage"
    qrels = read_qrels(d / "qrels.dl19-passage.txt")
    labels = tmp_path / "labels.qrels"
    labels.write_text("".join(f"{t} 0 {doc} {g / 3:.6f}\n" for t, doc, g in qrels.iter_rows()))
    runs = sorted((d / "runs").glob("*.run.gz"))[:6]
    traj = tmp_path / "traj.tsv"
    extra = ["--simulate-pool", str(simulate)] if simulate else []
    code, out, err = run_cli(["volatility", labels, *runs, "-m", "nDCG", "-m", "RBP", "-m", "AP", "-l", "0.5",
                              "--condensed", "no", "--depths", "10,100", "-o", traj, "-n", 10, *extra], capsys)
    assert code == 0, err
    if simulate:
        return
    frame = pl.read_csv(traj, separator="\t")
    for k in (10, 100):
        names = {"AP": "AP", "nDCG": f"nDCG@{k}", "RBP(p=0.8)": "RBP(p=0.8)"}
        scores = irstats.evaluate(labels, runs, list(names.values()), depth=k, rel_level=0.5)
        for measure, name in names.items():
            engine = dict(zip(scores[name].systems, scores[name].means()))
            rows = frame.filter((pl.col("depth") == k) & (pl.col("measure") == measure))
            assert rows.height == 6
            for system, value in rows.select("system", "value").iter_rows():
                assert value == pytest.approx(engine[system], abs=1e-12), (system, measure, k)
