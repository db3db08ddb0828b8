"""``irstats aggregate`` and ``irstats standardize fit|apply``: output contract, Table 1 through
the command line, and bad input (one-line errors, exit code 2, no traceback)."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

import irstats

from irstats.scores import ScoreMatrix, read_scores, write_scores
from irstats.standardize import apply_factors, fit_factors, read_factors, read_trec_eval_factors
from tests.conftest import run_cli

TABLE1 = np.array([
    [0.1, 0.1, 0.3, 0.8, 0.1],
    [0.0, 0.4, 0.2, 0.4, 0.3],
    [0.1, 0.5, 0.3, 0.2, 0.2],
    [0.2, 0.2, 0.3, 0.2, 0.2],
])



def assert_one_line_error(code, err, *fragments):
    assert code == 2, err
    lines = err.strip().splitlines()
    errors = [line for line in lines if line.startswith("irstats: error:")]
    assert len(errors) == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in errors[0], errors[0]


@pytest.fixture
def table1_file(tmp_path):
    matrix = ScoreMatrix(TABLE1, ("S1", "S2", "S3", "S4"), ("t1", "t2", "t3", "t4", "t5"), "AP")
    path = tmp_path / "table1.tsv"
    write_scores({"AP": matrix}, path)
    return path


def read_tsv(text: str) -> pl.DataFrame:
    return pl.read_csv(text.encode(), separator="\t", schema_overrides={"value": pl.Float64})


def test_tsv_contract_and_table1(table1_file, capsys):
    methods = ["am", "gm", "egm", "hm", "ehm", "median"]
    args = ["aggregate", table1_file, "--format", "tsv"] + [a for m in methods for a in ("--method", m)]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "system\tmeasure\tmethod\tvalue"
    frame = read_tsv(out)
    assert frame.columns == ["system", "measure", "method", "value"] and frame.height == 4 * len(methods)
    got = {(r["system"], r["method"]): r["value"] for r in frame.iter_rows(named=True)}
    assert round(got[("S1", "am")], 3) == 0.280 and round(got[("S3", "gm")], 3) == 0.227
    assert round(got[("S1", "egm")], 3) == 0.192 and round(got[("S4", "hm")], 3) == 0.214
    assert round(got[("S2", "ehm")], 3) == 0.034 and round(got[("S2", "median")], 3) == 0.300
    assert got[("S2", "gm")] == 0.0
    # HM of S2 is undefined: printed as nan, with a warning saying why
    assert "S2\tAP\thm\tnan" in out.splitlines()
    assert "hm_zero" in err and "S2" in err


def test_gm_trec_eval_epsilon_and_formats(table1_file, capsys, tmp_path):
    code, out, _ = run_cli(["aggregate", table1_file, "--method", "gm_trec_eval", "--format", "csv"], capsys)
    assert code == 0 and out.splitlines()[0] == "system,measure,method,value"
    s2 = [line for line in out.splitlines() if line.startswith("S2,")][0]
    assert round(float(s2.split(",")[-1]), 3) == 0.039
    code, out, _ = run_cli(["aggregate", table1_file, "--method", "gm_trec_eval:0.01", "--format", "json"], capsys)
    rows = {r["system"]: r["value"] for r in json.loads(out)}
    assert round(rows["S2"], 3) == 0.157
    # a shared --epsilon never moves gm_trec_eval's floor (issue 16): it is then an error to give it alone
    code, _, err = run_cli(["aggregate", table1_file, "--method", "gm_trec_eval", "--epsilon", "0.01"], capsys)
    assert code == 2 and "gm_trec_eval:FLOOR" in err and "no effect" in err
    code, out, _ = run_cli(["aggregate", table1_file], capsys)  # default: a table of am, egm, gm_trec_eval
    assert out.splitlines()[0] == "Aggregates over topics (am, egm, gm_trec_eval)"
    header = out.splitlines()[1].split()
    assert header == ["system", "AP:am", "AP:egm", "AP:gm_trec_eval"]
    assert out.splitlines()[3].startswith("S1")  # sorted by the first column (AM), best first
    from irstats.aggregate import aggregate_table

    result = aggregate_table(irstats.read_scores(table1_file), ["am", "egm", "gm_trec_eval"])
    assert out == result.to_text()  # one printer: the command prints the result's own table
    for fmt, method in (("markdown", result.to_markdown), ("latex", result.to_latex)):
        assert run_cli(["aggregate", table1_file, "--format", fmt], capsys)[1] == method()
    target = tmp_path / "agg.parquet"
    code, out, _ = run_cli(["aggregate", table1_file, "--method", "am", "--format", "parquet", "-o", target],
                           capsys)
    assert code == 0 and out == "" and pl.read_parquet(target).height == 4
    code, out, _ = run_cli(["aggregate", table1_file, "--method", "logit", "--back-transform", "--format", "tsv"],
                           capsys)
    assert code == 0 and all(0 < v < 1 for v in read_tsv(out)["value"])


def test_missing_topic_is_an_error_unless_skipna(table1_file, tmp_path, capsys):
    lines = table1_file.read_text().splitlines()
    dropped = [line for line in lines if not line.startswith("S3\tt4\t")]
    assert len(dropped) == len(lines) - 1
    path = tmp_path / "missing.tsv"
    path.write_text("\n".join(dropped) + "\n")
    code, out, err = run_cli(["aggregate", path, "--method", "am"], capsys)
    assert_one_line_error(code, err, "system 'S3'", "topic(s) 't4'", "--skipna")
    assert out == ""
    code, out, err = run_cli(["aggregate", path, "--method", "am", "--skipna", "--format", "tsv"], capsys)
    assert code == 0, err
    value = read_tsv(out).filter(pl.col("system") == "S3")["value"][0]
    assert value == pytest.approx((0.1 + 0.5 + 0.3 + 0.2) / 4)


def test_bad_input_errors(table1_file, tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    text = table1_file.read_text().splitlines()
    text[3] = text[3].rsplit("\t", 1)[0] + "\tzero.one"
    bad.write_text("\n".join(text) + "\n")
    code, _, err = run_cli(["aggregate", bad], capsys)
    assert_one_line_error(code, err, "bad.tsv:4:", "expected a number", "'zero.one'")
    code, _, err = run_cli(["aggregate", table1_file, "--method", "trimmed"], capsys)
    assert_one_line_error(code, err, "unknown aggregation method 'trimmed'", "am, gm, egm")
    code, _, err = run_cli(["aggregate", table1_file, "-m", "nDCG@10"], capsys)
    assert_one_line_error(code, err, "measure 'nDCG@10' is not in the score file", "AP")
    code, _, err = run_cli(["aggregate", table1_file, "--method", "egm", "--epsilon", "small"], capsys)
    assert_one_line_error(code, err, "--epsilon takes a number", "'small'")
    code, _, err = run_cli(["aggregate", table1_file, "--method", "am", "--epsilon", "0.1"], capsys)
    assert_one_line_error(code, err, "--epsilon has no effect on am")
    code, _, err = run_cli(["aggregate", tmp_path / "absent.tsv"], capsys)
    assert_one_line_error(code, err, "absent.tsv", "no such file")


def test_help_has_examples(capsys):
    for args in (["aggregate", "--help"], ["standardize", "--help"], ["standardize", "fit", "--help"],
                 ["standardize", "apply", "--help"], ["difficulty", "--help"]):
        code, out, _ = run_cli(args, capsys)
        assert code == 0 and "Examples:" in out and "irstats " in out.split("Examples:")[1], args


@pytest.fixture
def dl_scores(reference_data, tmp_path_factory, capsys):
    root = reference_data / "trec-dl-2019-passage"
    path = tmp_path_factory.mktemp("dl") / "scores.tsv"
    code, _, err = run_cli(["eval", root / "qrels.dl19-passage.txt", root / "runs", "-m", "AP", "-m", "nDCG@10",
                            "--per-topic", "--format", "tsv", "-o", path], capsys)
    assert code == 0, err
    return path


def test_standardize_fit_apply_round_trip(dl_scores, tmp_path, capsys):
    scores = read_scores(dl_scores)
    systems = scores["AP"].systems
    names = tmp_path / "reference.txt"
    names.write_text("# standardizing systems\n" + "\n".join(systems[:-3]) + "\n\n")
    factors_path = tmp_path / "factors.tsv"
    code, out, err = run_cli(["standardize", "fit", dl_scores, "--reference", names, "-o", factors_path], capsys)
    assert code == 0 and out == "", err
    factors = read_factors(factors_path)
    assert factors.reference == systems[:-3] and set(factors.measure_names) == {"AP", "nDCG@10"}
    code, out, err = run_cli(["standardize", "apply", dl_scores, "--factors", factors_path], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t", schema_overrides={"topic": pl.String})
    assert frame.columns == ["system", "topic", "measure", "value"]
    assert set(frame["measure"]) == {"std(AP)", "std(nDCG@10)"}
    expected = apply_factors(scores["AP"], fit_factors(scores["AP"], reference=list(systems[:-3])))
    got = frame.filter(pl.col("measure") == "std(AP)")
    held_out = systems[-1]
    row = got.filter((pl.col("system") == held_out) & (pl.col("topic") == expected.topics[0]))["value"][0]
    assert row == expected.system(held_out)[0]  # full precision through the TSV
    # z form, trec_eval factor format, and the result read back as a score file for aggregation
    te = tmp_path / "zscores_file"
    code, _, err = run_cli(["standardize", "fit", dl_scores, "-m", "AP", "--trec-eval-format", "-o", te], capsys)
    assert code == 0, err
    assert read_trec_eval_factors(te).measure_names == ["AP"] and te.read_text().split()[1] == "map"
    out_path = tmp_path / "z.tsv"
    code, _, err = run_cli(["standardize", "apply", dl_scores, "--factors", te, "--z", "-o", out_path], capsys)
    assert code == 0 and "nDCG@10" in err  # no factors for nDCG@10: a warning, AP is standardized
    z = read_scores(out_path)
    assert list(z) == ["z(AP)"]
    np.testing.assert_allclose(z["z(AP)"].values.mean(axis=0), 0.0, atol=1e-12)
    code, out, err = run_cli(["aggregate", out_path, "--method", "am", "--format", "tsv"], capsys)
    assert code == 0 and set(read_tsv(out)["measure"]) == {"z(AP)"}


def test_standardize_bad_input(dl_scores, tmp_path, capsys):
    factors_path = tmp_path / "factors.tsv"
    code, _, err = run_cli(["standardize", "fit", dl_scores, "-m", "AP", "-o", factors_path], capsys)
    assert code == 0, err
    lines = factors_path.read_text().splitlines()
    topic = lines[-1].split("\t")[0]
    lacking = tmp_path / "lacking.tsv"
    lacking.write_text("\n".join(lines[:-1]) + "\n")
    code, out, err = run_cli(["standardize", "apply", dl_scores, "-m", "AP", "--factors", lacking], capsys)
    assert_one_line_error(code, err, "lacking.tsv", f"topic(s) '{topic}'", "'AP'")
    code, out, err = run_cli(["standardize", "apply", dl_scores, "-m", "AP", "--factors", lacking,
                              "--missing", "nan"], capsys)
    assert code == 0 and "no standardization factors" in err and f"\t{topic}\t" not in out
    broken = tmp_path / "broken.tsv"
    bad_lines = list(lines)
    bad_lines[7] = "\t".join(bad_lines[7].split("\t")[:3])
    broken.write_text("\n".join(bad_lines) + "\n")
    code, _, err = run_cli(["standardize", "apply", dl_scores, "--factors", broken], capsys)
    assert_one_line_error(code, err, "broken.tsv:8:", "expected 6 fields")
    code, _, err = run_cli(["standardize", "apply", dl_scores, "-m", "nDCG@10", "--factors", factors_path], capsys)
    assert_one_line_error(code, err, "no standardization factors for measure 'nDCG@10'", "factors.tsv")
    names = tmp_path / "names.txt"
    names.write_text("not_a_run\n")
    code, _, err = run_cli(["standardize", "fit", dl_scores, "--reference", names, "-o", tmp_path / "x.tsv"],
                           capsys)
    assert_one_line_error(code, err, "names.txt", "'not_a_run'")
    code, _, err = run_cli(["standardize", "fit", dl_scores, "--trec-eval-format", "-m", "AP", "-m", "nDCG@10",
                            "-o", tmp_path / "ok.txt"], capsys)
    assert code == 0, err


def test_nan_formatting_helper():
    from irstats.render import delimited, format_number

    assert format_number(float("nan")) == "nan" and format_number(0.1) == "0.1"
    frame = pl.DataFrame({"a": ["x"], "v": [math.nan]})
    assert delimited(frame, "\t") == "a\tv\nx\tnan\n"
