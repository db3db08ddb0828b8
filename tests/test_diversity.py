"""Diversity measures against pyndeval (TREC's ndeval, through ir_measures' provider).

There is no real diversity qrels file in tests/data, so the subtopic qrels are derived
deterministically from NIST's DL 2019 qrels: each judged passage gets 1–3 of 4 subtopics
(seeded), keeping its grade on each with probability 0.8 (else 0). The runs are real: the 14
of the 37 official ones that tests/data keeps.

irstats ranks as ndeval does (score descending, then docno descending, trec_eval's rule);
pyndeval's Python front end sorts ties by docno *ascending*. So the runs handed to irstats
here are written in pyndeval's order and read in file order (``order="file"``).

pyndeval's values for a run are computed once per module (``pyndeval``) and shared by the tests
that compare the same run; the quick test budget compares 9 of the 14 runs with pyndeval, the
full one (``--full``) all of them.
"""

from __future__ import annotations

from pathlib import Path

import ir_measures
import numpy as np
import polars as pl
import pytest
from ir_measures import ERR_IA, NRBP, P_IA, StRecall, alpha_DCG, alpha_nDCG, nERR_IA, nNRBP

from irstats.diversity import evaluate_diversity, read_subtopic_qrels
from irstats.errors import ArgumentError, InputError, MeasureError
from tests.conftest import DL19_RUNS, examples, run_cli, spread


@pytest.fixture(scope="module")
def subtopic_qrels(reference_data):
    folder = reference_data / "trec-dl-2019-passage"
    rows = [line.split() for line in (folder / "qrels.dl19-passage.txt").read_text().splitlines() if line.strip()]
    rng = np.random.default_rng(7)
    lines = []
    for topic, _, docno, grade in rows:
        for subtopic in rng.choice(4, size=rng.integers(1, 4), replace=False):
            lines.append((topic, str(subtopic), docno, int(grade) if rng.random() < 0.8 else 0))
    return folder, lines


def _in_pyndevals_order(source, target):
    import gzip

    rows = [line.split() for line in gzip.open(source, "rt") if line.strip()]
    rows.sort(key=lambda r: (r[0], -float(r[4]), r[2]))  # score descending, then docno ascending
    target.write_text("".join(" ".join(r) + "\n" for r in rows))
    return target


def _reference(lines, run_path, measures, rel=1, alpha=0.5, beta=0.5):
    qrels = [ir_measures.Qrel(t, d, g, s) for t, s, d, g in lines]  # the subtopic as the iteration
    run = list(ir_measures.read_trec_run(str(run_path)))
    provider = ir_measures.pyndeval
    out = {}
    for metric in provider.iter_calc(measures, qrels, run):
        out[(metric.query_id, str(metric.measure))] = metric.value
    return out


class PyndevalRuns:
    """DL 2019 runs rewritten in pyndeval's order, and pyndeval's values on them for MEASURES,
    each made once and kept for every test of the module that compares the same run."""

    def __init__(self, lines: list, folder: Path) -> None:
        self.lines = lines
        self.folder = folder
        self._reference: dict[Path, dict] = {}

    def ordered(self, source: Path) -> Path:
        """``source`` (a .run.gz) written in pyndeval's order, as a plain file."""
        target = self.folder / source.name.replace(".gz", "")
        if not target.exists():
            _in_pyndevals_order(source, target)
        return target

    def reference(self, ordered: Path) -> dict:
        """pyndeval's value of every measure of MEASURES per topic: {(topic, str(measure)): value}."""
        if ordered not in self._reference:
            self._reference[ordered] = _reference(self.lines, ordered, [m for m, _ in MEASURES])
        return self._reference[ordered]


@pytest.fixture(scope="module")
def pyndeval(subtopic_qrels, tmp_path_factory) -> PyndevalRuns:
    return PyndevalRuns(subtopic_qrels[1], tmp_path_factory.mktemp("pyndeval-order"))


MEASURES = [(alpha_nDCG@20, "alpha_nDCG@20"), (alpha_nDCG@1, "alpha_nDCG@1"), (alpha_nDCG@5, "alpha_nDCG@5"),
            (alpha_DCG@2, "alpha_DCG@2"), (alpha_DCG@10, "alpha_DCG@10"), (ERR_IA@20, "ERR_IA@20"),
            (ERR_IA@1, "ERR_IA@1"), (nERR_IA@10, "nERR_IA@10"), (NRBP, "NRBP"), (nNRBP, "nNRBP"),
            (P_IA@10, "P_IA@10"), (P_IA@20, "P_IA@20"), (StRecall@5, "StRecall@5"), (StRecall@20, "StRecall@20")]


def test_equal_to_pyndeval_on_all_dl19_runs(subtopic_qrels, pyndeval, tmp_path):
    """Every measure, per topic, equal to pyndeval's on the DL 2019 runs (all 14 in the full
    test budget, 9 spread over them in the quick one), evaluated together as one batch."""
    folder, lines = subtopic_qrels
    path = tmp_path / "subtopics.qrels"
    path.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in lines))
    sources = sorted((folder / "runs").glob("*.run.gz"))
    assert len(sources) == len(DL19_RUNS)
    runs = [pyndeval.ordered(run) for run in spread(sources, 9)]
    ours = evaluate_diversity(path, runs, [m[1] for m in MEASURES], order="file")
    compared = 0
    for k, run in enumerate(runs):
        reference = pyndeval.reference(run)
        system = ours[MEASURES[0][1]].systems[k]
        for measure, name in MEASURES:
            matrix = ours[name]
            for topic, value in zip(matrix.topics, matrix.system(system)):
                assert value == pytest.approx(reference[(topic, str(measure))], abs=1e-9), (run.name, name, topic)
                compared += 1
    assert compared == len(runs) * len(MEASURES) * 43


@pytest.mark.parametrize("rel, alpha, beta", [(2, 0.5, 0.5), (1, 0.2, 0.8), (1, 0.9, 0.3)])
def test_parameters_equal_pyndeval(subtopic_qrels, pyndeval, rel, alpha, beta):
    folder, lines = subtopic_qrels
    frame = pl.DataFrame(lines, schema=["topic", "subtopic", "docno", "grade"], orient="row")
    run = pyndeval.ordered(sorted((folder / "runs").glob("*.run.gz"))[5])
    pairs = [(alpha_nDCG(alpha=alpha, rel=rel)@10, "alpha_nDCG@10"), (NRBP(alpha=alpha, beta=beta, rel=rel), "NRBP"),
             (ERR_IA(rel=rel)@10, "ERR_IA@10"), (StRecall(rel=rel)@10, "StRecall@10")]
    ours = evaluate_diversity(frame, run, [p[1] for p in pairs], rel=rel, alpha=alpha, beta=beta, order="file")
    for measure, name in pairs:
        # pyndeval takes one alpha/beta per call: ERR-IA and StRecall use its defaults
        a, b = (alpha, beta) if name in ("alpha_nDCG@10", "NRBP") else (0.5, 0.5)
        mine = ours[name] if (a, b) == (alpha, beta) else \
            evaluate_diversity(frame, run, [name], rel=rel, alpha=a, beta=b, order="file")[name]
        reference = _reference(lines, run, [measure], rel=rel)
        for topic, value in zip(mine.topics, mine.values[0]):
            assert value == pytest.approx(reference[(topic, str(measure))], abs=1e-9), (name, topic)


def test_bad_input(tmp_path, capsys):
    path = tmp_path / "q"
    path.write_text("1 a d1 1\n1 b d2 x\n")
    with pytest.raises(InputError, match=r"q:2: the grade must be a whole number"):
        read_subtopic_qrels(path)
    path.write_text("1 a d1 1\n1 d2 1\n")
    with pytest.raises(InputError, match=r"q:2: expected 4 fields"):
        read_subtopic_qrels(path)
    with pytest.raises(MeasureError, match="needs a cut-off"):
        evaluate_diversity(tmp_path / "q", [], ["alpha_nDCG"])
    with pytest.raises(MeasureError, match="unknown diversity measure"):
        evaluate_diversity(tmp_path / "q", [], ["nDCG@10"])
    path.write_text("1 a d1 1\n1 b d2 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 d2 1 2.0 r\n1 Q0 d1 2 1.0 r\n")
    code, out, err = run_cli(["diversity", path, run, "-m", "alpha_nDCG@2", "-m", "StRecall@1", "--format", "tsv"],
                             capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t")
    assert frame.columns == ["system", "measure", "value"]
    assert frame.filter(pl.col("measure") == "StRecall@1")["value"][0] == 0.0  # d2 is relevant to nothing
    code, out, err = run_cli(["diversity", path, run, "--alpha", "2"], capsys)
    assert code == 2 and "alpha" in err and "Traceback" not in err


# ----------------------------------------------------------------------------- registered measures
# The diversity measures are families (measures/diversity.py) over the subtopic judgments the
# judgments tensor carries: irstats.evaluate(..., subtopic_qrels=...) and `irstats eval
# --subtopic-qrels` compute them beside any other measure; `irstats diversity` is a shortcut of it.

import irstats  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from irstats.evaluate import Evaluator  # noqa: E402
from tests import reference_diversity  # noqa: E402

NAMES = [name for _, name in MEASURES]


def _write_subtopics(lines, path):
    path.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in lines))
    return path


def test_evaluate_with_subtopic_qrels_equals_diversity_and_the_plain_loops(subtopic_qrels, tmp_path):
    """irstats.evaluate with NIST's DL 2019 qrels and the subtopic qrels equals evaluate_diversity
    (to the last bit: one engine) on the DL 2019 runs, beside AP, and the plain-loop reference on three."""
    folder, lines = subtopic_qrels
    path = _write_subtopics(lines, tmp_path / "subtopics.qrels")
    runs = sorted((folder / "runs").glob("*.run.gz"))
    assert len(runs) == len(DL19_RUNS)
    ours = irstats.evaluate(folder / "qrels.dl19-passage.txt", runs, NAMES + ["AP"], subtopic_qrels=path, depth=None)
    shortcut = evaluate_diversity(path, runs, NAMES)
    assert ours["AP"].values.shape == (len(DL19_RUNS), 43)
    for name in NAMES:
        assert ours[name].systems == shortcut[name].systems and ours[name].topics == shortcut[name].topics
        assert np.array_equal(ours[name].values, shortcut[name].values), name
    for k in (0, len(runs) // 2, len(runs) - 1):
        reference = reference_diversity.evaluate(path, runs[k], NAMES)
        for name in NAMES:
            for topic, value in zip(ours[name].topics, ours[name].values[k]):
                assert value == pytest.approx(reference[(topic, name)], rel=1e-12, abs=1e-15), (runs[k].name, name)


def test_cli_eval_with_subtopic_qrels_equals_diversity_and_pyndeval(subtopic_qrels, pyndeval, tmp_path, capsys):
    """`irstats eval QRELS RUNS --subtopic-qrels FILE -m …` prints what `irstats diversity` prints,
    per topic, on the DL 2019 runs; and, on the runs in pyndeval's order read in file order,
    pyndeval's values."""
    folder, lines = subtopic_qrels
    path = _write_subtopics(lines, tmp_path / "subtopics.qrels")
    gz_runs = sorted((folder / "runs").glob("*.run.gz"))
    flags = [arg for name in NAMES for arg in ("-m", name)] + ["-q", "--format", "tsv"]
    qrels = folder / "qrels.dl19-passage.txt"
    code, out, err = run_cli(["eval", qrels, *gz_runs, "--subtopic-qrels", path, "-M", "none", *flags], capsys)
    assert code == 0, err
    code, shortcut, err = run_cli(["diversity", path, *gz_runs, *flags], capsys)
    assert code == 0, err
    read = lambda text: pl.read_csv(text.encode(), separator="\t", schema_overrides={"topic": pl.String})  # noqa: E731
    assert read(out).equals(read(shortcut)) and read(out).height == len(DL19_RUNS) * 43 * len(NAMES)  # (eval's tsv prints 1e-07)
    runs = [pyndeval.ordered(run) for run in gz_runs[::9]]
    code, out, err = run_cli(["eval", qrels, *runs, "--subtopic-qrels", path, "-M", "none", "--order", "file",
                              *flags], capsys)
    assert code == 0, err
    frame = read(out)
    names = {name: str(m) for m, name in MEASURES}
    for run in runs:
        system = run.read_text().split(None, 6)[5]
        reference = pyndeval.reference(run)
        part = frame.filter(pl.col("system") == system)
        assert part.height == 43 * len(NAMES)
        for topic, measure, value in part.select("topic", "measure", "value").iter_rows():
            assert value == pytest.approx(reference[(topic, names[measure])], abs=1e-9), (system, measure, topic)


def test_measures_need_subtopic_qrels_before_any_run_is_read(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n")
    with pytest.raises(MeasureError, match=r"alpha_nDCG@20, NRBP need subtopic qrels"):
        irstats.evaluate(qrels, tmp_path / "no such run", ["AP", "alpha_nDCG@20", "NRBP"])
    subtopics = _write_subtopics([("1", "a", "d1", 1)], tmp_path / "subtopics")
    with pytest.raises(ArgumentError, match="not evaluated on a Dask cluster"):  # a limit of client=, not of the measure
        Evaluator(qrels, subtopic_qrels=subtopics).score(tmp_path / "no such run", ["ERR_IA@5"], client=object())
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 1.0 r\n1 Q0 d2 2 1.0 r\n")  # tied: d2 first (docno descending), or either
    assert irstats.evaluate(qrels, run, ["StRecall@1"], subtopic_qrels=subtopics)["StRecall@1"].values[0, 0] == 0.0
    assert irstats.evaluate(qrels, run, ["StRecall@1"], subtopic_qrels=subtopics,
                            ties="expected")["StRecall@1"].values[0, 0] == 0.5
    with pytest.raises(MeasureError, match="need subtopic qrels"):  # a tensor made without them
        Evaluator(qrels).score_judgments(Evaluator(qrels).judgments(run), ["P_IA@5"])


def test_topics_the_subtopic_qrels_do_not_judge_score_zero_and_minus_j(tmp_path):
    """The qrels' topics are the axis: a topic without subtopic judgments scores 0 (S = 0, as
    ndeval scores a topic without relevant documents). -J condenses the lists by the qrels, as for
    every measure; with the qrels derived from the subtopic ones that is pyndeval's judged_only."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 1\n")
    subtopics = _write_subtopics([("1", "s1", "a", 1), ("1", "s2", "c", 1), ("1", "s2", "u", 1), ("3", "s", "x", 1)],
                                 tmp_path / "subtopics")
    run = tmp_path / "run"
    run.write_text("1 Q0 u 1 5 r\n1 Q0 z 2 4 r\n1 Q0 c 3 3 r\n1 Q0 a 4 2 r\n2 Q0 x 1 1 r\n")
    scores = irstats.evaluate(qrels, run, ["StRecall@1", "P_IA@2", "alpha_nDCG@3"], subtopic_qrels=subtopics)
    assert scores["StRecall@1"].topics == ("1", "2")
    assert scores["StRecall@1"].values.tolist() == [[0.5, 0.0]]  # u covers s2
    assert scores["P_IA@2"].values.tolist() == [[0.25, 0.0]]  # z: nothing
    condensed = irstats.evaluate(qrels, run, ["StRecall@1", "P_IA@2"], subtopic_qrels=subtopics, judged_only=True)
    assert condensed["StRecall@1"].values.tolist() == [[0.5, 0.0]]  # u and z dropped: c first
    assert condensed["P_IA@2"].values.tolist() == [[0.5, 0.0]]  # c, a
    judged = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"x": 1}}
    reference = reference_diversity.evaluate(subtopics, run, ["alpha_nDCG@3", "nNRBP"], judged_only=True,
                                             judged=judged)
    got = irstats.evaluate(qrels, run, ["alpha_nDCG@3", "nNRBP"], subtopic_qrels=subtopics, judged_only=True)
    assert got["alpha_nDCG@3"].values[0, 0] == pytest.approx(reference[("1", "alpha_nDCG@3")], abs=1e-15)
    assert got["nNRBP"].values[0, 0] == pytest.approx(reference[("1", "nNRBP")], abs=1e-15)


def test_one_tensor_of_many_batches_carries_its_subtopic_judgments(subtopic_qrels, tmp_path, monkeypatch):
    """Evaluator.judgments (batches concatenated, systems in the order asked) and score_judgments
    give what score gives."""
    import irstats.ingest

    folder, lines = subtopic_qrels
    path = _write_subtopics(lines, tmp_path / "subtopics.qrels")
    runs = sorted((folder / "runs").glob("*.run.gz"))[:5]
    evaluator = Evaluator(folder / "qrels.dl19-passage.txt", subtopic_qrels=path)
    names = ["alpha_nDCG@10", "NRBP", "StRecall@20"]
    scored = evaluator.score(runs, names)
    monkeypatch.setattr(irstats.ingest, "COMPILED_BATCH_BYTES", 1)  # two runs a batch
    tensor = evaluator.judgments(runs, systems=[4, 0, 2, 1, 3])
    assert tensor.subtopics is not None
    again = evaluator.score_judgments(tensor, names)
    for name in names:
        assert np.array_equal(again[name].values, scored[name].values[[4, 0, 2, 1, 3]]), name


@st.composite
def _diversity_case(draw):
    docs = [f"d{i}" for i in range(8)]
    subtopic_lines = [(t, f"s{s}", d, draw(st.integers(0, 2)))
                      for t in ("1", "2") for d in docs[:draw(st.integers(0, 8))]
                      for s in draw(st.lists(st.integers(0, 4), max_size=3, unique=True))]
    run_lines = [(t, d, draw(st.sampled_from([1.0, 2.0, 2.5, 3.0])))
                 for t in ("1", "2") for d in draw(st.lists(st.sampled_from(docs + ["u1", "u2"]), max_size=9,
                                                             unique=True))]
    return subtopic_lines, run_lines


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=_diversity_case(), alpha=st.sampled_from([0.0, 0.5, 0.7, 1.0]), beta=st.sampled_from([0.3, 0.5, 0.9]),
       rel=st.sampled_from([1, 2]), depth=st.sampled_from([None, 1, 4]))
def test_equal_to_the_plain_loops(case, alpha, beta, rel, depth, tmp_path_factory):
    """Every measure equals tests/reference_diversity.py on generated subtopic qrels and runs:
    ties in scores, short and empty lists, documents judged for no subtopic, topics without a
    relevant document, depth cuts, α = 0 and 1."""
    subtopic_lines, run_lines = case
    folder = tmp_path_factory.mktemp("case")
    path = _write_subtopics(subtopic_lines + [("1", "s9", "d0", 0), ("2", "s9", "d0", 0)], folder / "subtopics")
    run = folder / "run"
    run.write_text("".join(f"{t} Q0 {d} 0 {s} r\n" for t, d, s in run_lines) or "1 Q0 zz 0 1 r\n")
    names = ["alpha_DCG@1", "alpha_DCG@3", "alpha_nDCG@2", "ERR_IA@3", "nERR_IA@5", "NRBP", "nNRBP", "P_IA@3",
             "StRecall@2"]
    ours = evaluate_diversity(path, run, names, rel=rel, alpha=alpha, beta=beta, depth=depth)
    reference = reference_diversity.evaluate(path, run, names, rel=rel, alpha=alpha, beta=beta, depth=depth)
    for name in names:
        for topic, value in zip(ours[name].topics, ours[name].values[0]):
            if (topic, name) in reference:
                assert value == pytest.approx(reference[(topic, name)], rel=1e-12, abs=1e-15), (name, topic)
            else:
                assert np.isnan(value), (name, topic)


def test_names_are_the_families(tmp_path):
    """The diversity measures are registered families with their parameters; the shortcut's
    alpha/beta/rel fill what a name leaves at its default."""
    from irstats.diversity import diversity_measures
    from irstats.measures import parse_measure

    assert diversity_measures() == ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA",
                                    "StRecall")
    assert str(parse_measure("alpha_nDCG(alpha=0.3,rel=2)@20")) == "alpha_nDCG(alpha=0.3,rel=2)@20"
    assert str(parse_measure("NRBP(beta=0.8)")) == "NRBP(beta=0.8)"
    with pytest.raises(MeasureError, match="takes no cut-off"):
        parse_measure("NRBP@10")
    with pytest.raises(MeasureError, match="alpha must be in"):
        parse_measure("ERR_IA(alpha=2)@10")
    path = _write_subtopics([("1", "a", "d1", 1), ("1", "b", "d2", 1)], tmp_path / "q")
    run = tmp_path / "r"
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    one = evaluate_diversity(path, run, ["alpha_DCG(alpha=0.9)@1", "alpha_DCG@1"], alpha=0.1)
    assert list(one) == ["alpha_DCG(alpha=0.9)@1", "alpha_DCG@1"]
    assert one["alpha_DCG@1"].measure == "alpha_DCG@1"


def test_ir_measures_routes_the_diversity_measures_to_irstats(subtopic_qrels):
    """ir_measures' diversity measures go to the irstats provider (the qrels' iteration as the
    subtopic, as pyndeval reads it), equal to pyndeval's on runs without tied scores."""
    from irstats.integrations import ir_measures as provider_module

    folder, lines = subtopic_qrels
    qrels = [ir_measures.Qrel(t, d, g, s) for t, s, d, g in lines]
    provider = provider_module.IrstatsProvider()
    measures = [m for m, _ in MEASURES] + [alpha_nDCG(alpha=0.3, rel=2)@10, NRBP(beta=0.8)]
    for measure in measures:
        assert provider.supports(measure), measure
    assert not provider.supports(ir_measures.AP_IA)
    for path in sorted((folder / "runs").glob("*.run.gz"))[:2]:
        run = list(ir_measures.read_trec_run(str(path)))
        run = [r._replace(score=-float(k)) for k, r in enumerate(run)]  # no tied scores: one order for both
        ours = {(m.query_id, str(m.measure)): m.value for m in provider.iter_calc(measures, qrels, run)}
        theirs = {}
        for group in ([m for m, _ in MEASURES], measures[-2:-1], measures[-1:]):  # pyndeval reads the run once:
            theirs.update({(m.query_id, str(m.measure)): m.value  # one call per parameter set
                           for m in ir_measures.pyndeval.iter_calc(group, qrels, run)})
        assert ours.keys() == theirs.keys()
        for key, value in theirs.items():
            assert ours[key] == pytest.approx(value, abs=1e-9), key
