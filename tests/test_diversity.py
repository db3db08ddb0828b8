"""Diversity measures against pyndeval (TREC's ndeval, through ir_measures' provider).

There is no real diversity qrels file in ../shared/data, so the subtopic qrels are derived
deterministically from NIST's DL 2019 qrels: each judged passage gets 1–3 of 4 subtopics
(seeded), keeping its grade on each with probability 0.8 (else 0). The 37 official runs are
the real ones.

irstats ranks as ndeval does (score descending, then docno descending, trec_eval's rule);
pyndeval's Python front end sorts ties by docno *ascending*. So the runs handed to irstats
here are written in pyndeval's order and read in file order (``order="file"``).
"""

from __future__ import annotations

import ir_measures
import numpy as np
import polars as pl
import pytest
from ir_measures import ERR_IA, NRBP, P_IA, StRecall, alpha_DCG, alpha_nDCG, nERR_IA, nNRBP

from irstats.diversity import evaluate_diversity, read_subtopic_qrels
from irstats.errors import InputError, MeasureError
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def subtopic_qrels(shared_data):
    folder = shared_data / "trec-dl-2019-passage"
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
    rows.sort(key=lambda r: r[2])
    rows.sort(key=lambda r: (r[0], -float(r[4])))
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


MEASURES = [(alpha_nDCG@20, "alpha_nDCG@20"), (alpha_nDCG@1, "alpha_nDCG@1"), (alpha_nDCG@5, "alpha_nDCG@5"),
            (alpha_DCG@2, "alpha_DCG@2"), (alpha_DCG@10, "alpha_DCG@10"), (ERR_IA@20, "ERR_IA@20"),
            (ERR_IA@1, "ERR_IA@1"), (nERR_IA@10, "nERR_IA@10"), (NRBP, "NRBP"), (nNRBP, "nNRBP"),
            (P_IA@10, "P_IA@10"), (P_IA@20, "P_IA@20"), (StRecall@5, "StRecall@5"), (StRecall@20, "StRecall@20")]


def test_equal_to_pyndeval_on_all_dl19_runs(subtopic_qrels, tmp_path):
    folder, lines = subtopic_qrels
    path = tmp_path / "subtopics.qrels"
    path.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in lines))
    runs = [_in_pyndevals_order(run, tmp_path / run.name.replace(".gz", ""))
            for run in sorted((folder / "runs").glob("*.run.gz"))]
    assert len(runs) == 37
    ours = evaluate_diversity(path, runs, [m[1] for m in MEASURES], order="file")
    compared = 0
    for k, run in enumerate(runs):
        reference = _reference(lines, run, [m[0] for m in MEASURES])
        system = ours[MEASURES[0][1]].systems[k]
        for measure, name in MEASURES:
            matrix = ours[name]
            for topic, value in zip(matrix.topics, matrix.system(system)):
                assert value == pytest.approx(reference[(topic, str(measure))], abs=1e-9), (run.name, name, topic)
                compared += 1
    assert compared == 37 * len(MEASURES) * 43


@pytest.mark.parametrize("rel, alpha, beta", [(2, 0.5, 0.5), (1, 0.2, 0.8), (1, 0.9, 0.3)])
def test_parameters_equal_pyndeval(subtopic_qrels, rel, alpha, beta, tmp_path):
    folder, lines = subtopic_qrels
    frame = pl.DataFrame(lines, schema=["topic", "subtopic", "docno", "grade"], orient="row")
    run = _in_pyndevals_order(sorted((folder / "runs").glob("*.run.gz"))[5], tmp_path / "run")
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
