"""The command line: its output contract, formats, the demo, and errors without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys

import polars as pl
import pytest

import irstats
from tests.conftest import run_cli



def test_per_topic_tsv_contract(te, capsys):
    code, out, err = run_cli(["eval", te / "qrels.test", te / "results.test", "-m", "map", "-m", "ndcg_cut.10",
                              "--per-topic", "--format", "tsv"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t", schema_overrides={"topic": pl.String})
    assert frame.columns == ["system", "topic", "measure", "value"]
    assert set(frame["measure"]) == {"AP", "nDCG@10"}  # canonical names, whatever alias was asked for
    assert set(frame["system"]) == {"STANDARD"}  # the run's tag column
    assert frame.height == 2 * 3
    ap = dict(zip(frame.filter(pl.col("measure") == "AP")["topic"], frame.filter(pl.col("measure") == "AP")["value"]))
    assert ap["302"] == pytest.approx(0.4175, abs=5e-5)  # out.test.aq


def test_summary_tsv_and_other_formats(te, capsys, tmp_path):
    code, out, _ = run_cli(["eval", te / "qrels.test", te / "results.test", "-m", "P_10", "--format", "tsv"], capsys)
    assert code == 0
    assert out.splitlines() == ["system\tmeasure\tvalue", "STANDARD\tP@10\t0.3"]
    code, out, _ = run_cli(["eval", te / "qrels.test", te / "results.test", "-m", "P@10", "--format", "json"], capsys)
    assert json.loads(out) == [{"system": "STANDARD", "measure": "P@10", "value": pytest.approx(0.3)}]
    code, out, _ = run_cli(["eval", te / "qrels.test", te / "results.test", "-m", "P@10", "--format", "csv"], capsys)
    assert out.splitlines()[0] == "system,measure,value"
    target = tmp_path / "s.parquet"
    code, out, _ = run_cli(["eval", te / "qrels.test", te / "results.test", "-m", "AP", "-q", "--format", "parquet",
                            "-o", target], capsys)
    assert code == 0 and out == ""
    assert irstats.read_scores(target)["AP"].shape == (1, 3)


def test_trec_eval_format_matches_trec_eval(te, capsys):
    """--format trec_eval reproduces out.test's lines for the measures irstats shares."""
    code, out, _ = run_cli(["eval", te / "qrels.test", te / "results.test", "-m", "num_ret", "-m", "map",
                            "-m", "P.5,10", "-m", "ndcg_cut.10", "-M", "none", "--format", "trec_eval"], capsys)
    assert code == 0
    expected = {tuple(line.split()[:2]): line for line in (te / "out.test").read_text().splitlines()}
    lines = out.splitlines()
    assert lines[0].split() == ["runid", "all", "STANDARD"]
    for line in lines[1:]:
        key = tuple(line.split()[:2])
        if key in expected:
            assert line == expected[key]  # byte for byte
    # runid num_q num_ret map P_5 P_10 (out.test has no ndcg_cut_10: not a default measure)
    assert sum(tuple(line.split()[:2]) in expected for line in lines) == 6


def test_table_is_default(te, capsys):
    code, out, _ = run_cli(["eval", te / "qrels.test", te / "results.test"], capsys)
    assert code == 0
    assert out.splitlines()[0].startswith("System means by measure (1 system; topics per system: ")
    header = out.splitlines()[1].split()
    assert header[:3] == ["system", "AP", "nDCG@10"]
    # one printer: the command prints the Evaluation's own table
    import irstats

    assert out == irstats.evaluate(te / "qrels.test", te / "results.test").to_text()


@pytest.mark.parametrize("args, needle", [
    (["eval", "no-such-qrels", "x"], "no-such-qrels: no such file"),
    (["eval", "{qrels}", "{te}/results.test", "-m", "nope"], "unknown measure 'nope'"),
    (["eval", "{qrels}", "{te}/results.test", "-m", "P"], "needs a cut-off"),
    (["eval", "{qrels}", "{te}/results.test", "--depth", "ten"], "--depth"),
])
def test_errors_are_one_line(te, capsys, args, needle):
    args = [a.format(qrels=te / "qrels.test", te=te) for a in args]
    code, out, err = run_cli(args, capsys)
    assert code == 2
    assert needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_bad_line_error_in_subprocess(tmp_path, te):
    """The installed command prints file:line and exits 2, with no traceback."""
    run = tmp_path / "bad.run"
    run.write_text("301 Q0 doc1 1 0.5 tag\n301 Q0 doc2 2 oops tag\n")
    proc = subprocess.run([sys.executable, "-m", "irstats", "eval", str(te / "qrels.test"), str(run)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert f"{run}:2:" in proc.stderr and "Traceback" not in proc.stderr


def test_demo(tmp_path, capsys):
    out_dir = tmp_path / "demo"
    code, out, err = run_cli(["demo", "--out", out_dir, "--seed", "3"], capsys)
    assert code == 0, err
    runs = sorted((out_dir / "runs").glob("*.run"))
    assert 20 <= len(runs) <= 40
    qrels = pl.read_csv(out_dir / "qrels.txt", separator=" ", has_header=False,
                        new_columns=["topic", "iter", "docno", "rel"])
    assert qrels["topic"].n_unique() == 50
    assert set(qrels["rel"].unique()) >= {0, 1, 2, 3}  # graded
    scores = irstats.read_scores(out_dir / "scores.tsv")
    assert scores["AP"].shape == (len(runs), 50)
    # Pooling was depth-limited: deeper down, many retrieved documents are unjudged.
    judged = irstats.evaluate(out_dir / "qrels.txt", out_dir / "runs", ["Judged@10", "Judged@100"])
    assert judged["Judged@100"].means().mean() < judged["Judged@10"].means().mean()
    # The same seed gives the same collection.
    again = tmp_path / "again"
    run_cli(["demo", "--out", again, "--seed", "3", "--no-report"], capsys)
    assert (again / "qrels.txt").read_bytes() == (out_dir / "qrels.txt").read_bytes()
    assert "run01" in out
    assert (out_dir / "report" / "index.html").exists() and "Study report:" in out


def test_help_lists_examples(capsys):
    code, out, _ = run_cli(["eval", "--help"], capsys)
    assert code == 0 and "Examples:" in out and "trec_eval" in out


def test_qrels_mode_takes_the_relevance_level(reference_data, capsys):
    """`--qrels/--runs -l 2` evaluates at level 2, as `irstats eval -l 2` does."""
    base = reference_data / "trec-dl-2019-passage"
    runs = sorted((base / "runs").glob("*.run.gz"))[:3]
    args = ["aggregate", "--qrels", base / "qrels.dl19-passage.txt", "--runs", runs[0], "--runs", runs[1],
            "--runs", runs[2], "-m", "P@10", "--method", "am", "--format", "tsv"]
    code, out, err = run_cli(args + ["-l", "2"], capsys)
    assert code == 0, err
    got = {line.split("\t")[0]: float(line.split("\t")[3]) for line in out.splitlines()[1:]}
    expected = irstats.evaluate(base / "qrels.dl19-passage.txt", runs, ["P@10"], rel_level=2)["P@10"]
    assert got == {s: pytest.approx(v, abs=1e-12) for s, v in zip(expected.systems, expected.means())}
