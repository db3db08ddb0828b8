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


def test_eval_prints_the_evaluation(shared_data, capsys):
    te = shared_data / "conformance" / "trec_eval-test"
    scores = irstats.evaluate(te / "qrels.test", te / "results.test", ["AP", "P@5", "NumRet"])
    for fmt in ("table", "markdown", "latex"):
        for per_topic in (False, True):
            code, out, err = run_cli(["eval", te / "qrels.test", te / "results.test", "-m", "AP", "-m", "P@5",
                                      "-m", "NumRet", "--format", fmt, *(["-q"] if per_topic else [])], capsys)
            assert code == 0, err
            assert out == scores.view(per_topic).format(fmt)
