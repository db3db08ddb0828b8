"""One printer per result (issue 24, item 5): what a command prints for ``--format FMT`` is the
result's own ``format(FMT)`` — the CLI only chooses — and the data formats hold the data only
(pandas reads exactly the frame's rows and columns; the legend goes to stderr)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import irstats
from irstats import stats
from tests.conftest import run_cli

FORMATS = ("table", "markdown", "latex", "tsv", "csv", "json")


@pytest.fixture(scope="module")
def score_file(tmp_path_factory):
    """Per-topic AP and P@10 of 6 systems over 20 topics (beta-distributed, seeded)."""
    rng = np.random.default_rng(11)
    lines = ["system\ttopic\tmeasure\tvalue"]
    for measure, shift in (("AP", 0.0), ("P@10", 0.1)):
        for s in range(6):
            for t in range(20):
                value = min(1.0, rng.beta(2 + s * 0.3, 3) + shift)
                lines.append(f"s{s}\t{t}\t{measure}\t{value:.6f}")
    path = tmp_path_factory.mktemp("printers") / "scores.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _api(name: str, scores):
    """The result each command prints, made through the API with the same settings."""
    from irstats.aggregate import aggregate_table
    from irstats.meta.predictive import predictive_power
    from irstats.meta.splithalf import split_half
    from irstats.meta.transforms import transform_robustness
    from irstats.result import Results
    from irstats.stats.anova import anova
    from irstats.stats.risk import risk
    from irstats.stats.topicset import design_topic_set

    if name == "compare":
        return stats.compare(scores, baseline="s0")
    if name == "aggregate":
        return aggregate_table(scores, ["am", "egm", "gm_trec_eval"])
    if name == "risk":
        return Results(risk(m, "s0", 1.0) for m in scores.values())
    if name == "anova":
        return Results(anova(m, "two-way", 0.95) for m in scores.values())
    if name == "topicset":
        return Results(design_topic_set(m, min_diff=0.1) for m in scores.values())
    if name == "transforms":
        return Results(transform_robustness(m) for m in scores.values())
    if name == "splithalf":
        return split_half(scores, ["am", "egm", "gm_trec_eval"], n_splits=30, seed=0, progress=False,
                          difficulty="AP").view()
    if name == "predictive":
        return predictive_power(scores, n_splits=30, seed=0, top=1.0, progress=False).view()
    raise AssertionError(name)


COMMANDS = {
    "compare": ["--baseline", "s0"],
    "aggregate": [],
    "risk": ["--baseline", "s0"],
    "anova": [],
    "topicset": ["--min-diff", "0.1"],
    "transforms": [],
    "splithalf": ["-n", "30", "-q"],
    "predictive": ["-n", "30", "-q", "--all-systems"],
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_cli_prints_the_results_own_printer(score_file, capsys, command, fmt):
    scores = irstats.read_scores(score_file)
    code, out, err = run_cli([command, score_file, *COMMANDS[command], "--format", fmt], capsys)
    assert code == 0, err
    result = _api(command, scores)
    assert out == result.format(fmt)
    if fmt in ("tsv", "csv"):
        frame = pd.read_csv(io.StringIO(out), sep="\t" if fmt == "tsv" else ",", keep_default_na=False,
                            na_values=["nan"])
        data = result.to_frame()
        assert list(frame.columns) == data.columns and len(frame) == data.height
        assert not any(line.startswith("#") for line in out.splitlines())
        for line in result.legend():
            assert line in err
    if fmt == "latex":
        assert out.count(r"\begin{table") == out.count(r"\caption{") == out.count(r"\label{") >= 1


def test_eval_prints_the_evaluation(reference_data, capsys):
    te = reference_data / "conformance" / "trec_eval-test"
    scores = irstats.evaluate(te / "qrels.test", te / "results.test", ["AP", "P@5", "NumRet"])
    for fmt in ("table", "markdown", "latex"):
        for per_topic in (False, True):
            code, out, err = run_cli(["eval", te / "qrels.test", te / "results.test", "-m", "AP", "-m", "P@5",
                                      "-m", "NumRet", "--format", fmt, *(["-q"] if per_topic else [])], capsys)
            assert code == 0, err
            assert out == scores.view(per_topic).format(fmt)


@pytest.fixture(scope="module")
def dl19_small(reference_data, tmp_path_factory):
    """4 DL 2019 runs, their per-topic score file, and a second qrels (grades shifted)."""
    base = reference_data / "trec-dl-2019-passage"
    runs = sorted((base / "runs").glob("*.run.gz"))[:4]
    qrels = base / "qrels.dl19-passage.txt"
    folder = tmp_path_factory.mktemp("dl19small")
    scores = folder / "scores.tsv"
    irstats.write_scores(irstats.evaluate(qrels, runs, ["AP", "nDCG@10", "NumRel"]), scores, "tsv")
    other = folder / "other.qrels"
    lines = []
    for line in qrels.read_text().splitlines():
        t, i, d, g = line.split()
        lines.append(f"{t} {i} {d} {max(0, int(g) - (hash(d) % 2))}")
    other.write_text("\n".join(lines) + "\n")
    names = folder / "pool.txt"
    names.write_text("\n".join(p.name.removesuffix(".run.gz") for p in runs[:3]) + "\n")
    gold = folder / "gold.qrels"  # human labels on 20 of the 43 topics
    topics = sorted({line.split()[0] for line in qrels.read_text().splitlines()})[:20]
    gold.write_text("".join(line + "\n" for line in qrels.read_text().splitlines() if line.split()[0] in topics))
    return qrels, runs, scores, other, names, gold


def _other_commands(score_file, dl19_small):
    qrels, runs, scores, other, names, gold = dl19_small
    each_run = [x for r in runs for x in ("--runs", r)]
    return {
        "eval": ["eval", qrels, *runs, "-m", "AP", "-m", "P@10"],
        "eval -q": ["eval", qrels, *runs, "-m", "AP", "-q"],
        "agreement": ["agreement", qrels, other, "-n", "20"],
        "agreement --runs": ["agreement", qrels, other, *each_run, "-m", "AP", "-n", "20"],
        "comparability": ["comparability", scores, "-m", "AP", "--partitions", "10", "--fp-partitions", "10", "-q"],
        "robustness": ["robustness", scores, "-m", "AP", "--standardizing", names, "-n", "20", "--sizes", "2,3", "-q"],
        "difficulty": ["difficulty", score_file, "-m", "AP"],
        "power": ["power", score_file, "-m", "AP", "--test", "paired_t", "--systems", "s0", "s1"],
        "ppi": ["ppi", "--gold", gold, "--auto", other, "--runs", *runs, "-m", "AP"],
        "volatility": ["volatility", qrels, *runs[:3], "--depths", "5,10", "-m", "AP", "-q"],
    }


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
@pytest.mark.parametrize("name", ["eval", "eval -q", "agreement", "agreement --runs", "comparability", "robustness",
                                  "difficulty", "power", "ppi", "volatility"])
def test_every_data_output_is_the_table_alone(score_file, dl19_small, capsys, name, fmt):
    """Issue 23: every command's tsv/csv output is read by pandas as one table — a header of
    distinct names and rows of as many fields, no comment lines; the notes go to stderr."""
    args = _other_commands(score_file, dl19_small)[name]
    code, out, err = run_cli([*args, "--format", fmt], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines and not any(line.startswith("#") for line in lines)
    sep = "\t" if fmt == "tsv" else ","
    frame = pd.read_csv(io.StringIO(out), sep=sep, keep_default_na=False, na_values=["nan", ""])
    header = lines[0].split(sep)
    assert list(frame.columns) == header and len(set(header)) == len(header)
    assert len(frame) == len(lines) - 1 > 0
