"""``irstats compare``: every number printed equals the API's, in every format; bad input
exits 2 with a one-line error."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import irstats
from irstats import stats
from tests.conftest import run_cli



@pytest.fixture(scope="module")
def score_file(reference_data, tmp_path_factory):
    """Per-topic AP and nDCG@10 of the DL 2019 passage runs, as a score file."""
    base = reference_data / "trec-dl-2019-passage"
    runs = sorted((base / "runs").glob("*.run.gz"))
    path = tmp_path_factory.mktemp("compare") / "scores.tsv"
    irstats.write_scores(irstats.evaluate(base / "qrels.dl19-passage.txt", runs, ["AP", "nDCG@10"]), path, "tsv")
    return path


@pytest.fixture(scope="module")
def scores(score_file):
    """What the command reads: the API is called on the same input."""
    return irstats.read_scores(score_file)


def close(cell: str, value: float, decimals: int = 4) -> bool:
    """A printed cell shows ``value`` rounded to fixed decimals."""
    return abs(float(cell) - value) <= 0.5 * 10 ** -decimals + 1e-12


def close_p(cell: str, value: float) -> bool:
    """A p-value printed in the one notation: three decimals, or ``< 0.001``."""
    cell = cell.replace("$<$\\,", "< ")
    if cell.startswith("<"):
        return value < 0.001
    return close(cell, value, 3)


def check_rows(rows: list[list[str]], comp: stats.Comparison, width: int = 6, markers: str = "mean"):
    """Rows of the wide table (system, then mean / Δ / p — and +/=/− when ``width`` is 6 — per
    measure) against the API; the significance marker on the mean, on Δ or on both."""
    assert [r[0] for r in rows] == list(comp.systems)
    expected = {(r["measure"], r["system"]): r for r in comp.frame.iter_rows(named=True)}
    for row in rows:
        for k, measure in enumerate(comp.measures):
            mean, delta, p = row[1 + width * k: 4 + width * k]
            want = expected[(measure, row[0])]
            if markers in ("mean", "both"):
                assert mean.endswith(want["marker"]) and not (want["is_baseline"] and want["marker"])
            else:
                assert not mean.endswith(("*", "†"))
            assert close(mean.rstrip("*†"), want["mean"])
            if want["is_baseline"]:
                assert "baseline" in delta and p == ""
                continue
            if markers in ("delta", "both"):
                assert delta.endswith(want["marker"])
            else:
                assert not delta.endswith(("*", "†"))
            assert close(delta.rstrip("*†"), want["delta"])
            assert close_p(p, want["p_adjusted"])
            if width == 6:
                assert [int(c) for c in row[4 + width * k: 7 + width * k]] == [want["wins"], want["ties"],
                                                                               want["losses"]]


def test_table_equals_api(scores, score_file, capsys):
    code, out, err = run_cli(["compare", score_file], capsys)
    assert code == 0, err
    comp = stats.compare(scores)
    assert out == comp.to_text()  # one printer: the command prints the result's own table
    lines = out.splitlines()
    assert lines[0] == comp.title
    header = lines[1].split()
    assert header == ["system", "AP", "ΔAP", "p(AP)", "+(AP)", "=(AP)", "−(AP)", "nDCG@10", "ΔnDCG@10", "p(nDCG@10)",
                      "+(nDCG@10)", "=(nDCG@10)", "−(nDCG@10)"]
    body = lines[3:3 + len(comp.systems)]
    rows = []
    for line in body:
        cells = line.replace("< 0.001", "<0.001").split()
        if "baseline" in cells:  # the baseline has no p-values or counts: pad where they would be
            cells = [cells[0], cells[1], "baseline", "", "", "", "", cells[3], "baseline", "", "", "", ""]
        rows.append(cells)
    check_rows(rows, comp)
    # Default baseline: the best system by AP; the API's p-values are the paired t against it, Holm-adjusted.
    ap = scores["AP"]
    best = ap.systems[int(np.nanargmax(ap.means()))]
    assert comp.baseline == best and f"against the baseline {best} (the best by AP)" in out
    b = ap.system(best)
    others = [s for s in ap.systems if s != best]
    raw = [stats.paired_t(ap.system(s), b).p_value for s in others]
    frame = comp.frame.filter((pl.col("measure") == "AP") & ~pl.col("is_baseline"))
    by_system = dict(zip(frame["system"], frame["p_adjusted"]))
    assert [by_system[s] for s in others] == pytest.approx(stats.holm(raw).tolist(), abs=1e-13)
    # Footer: discriminative power per measure, from the API.
    for measure in ("AP", "nDCG@10"):
        power = stats.discriminative_power(scores[measure], "paired_t", 0.05)
        pairs = len(ap.systems) * (len(ap.systems) - 1) // 2
        assert f"{measure} {100 * power:.1f}% ({round(power * pairs)}/{pairs})" in out


def test_markdown_parses_and_matches(scores, score_file, capsys):
    code, out, err = run_cli(["compare", score_file, "-m", "nDCG@10", "--baseline", "p_bert", "--test", "wilcoxon",
                              "--correction", "bonferroni", "--format", "markdown"], capsys)
    assert code == 0, err
    comp = stats.compare({"nDCG@10": scores["nDCG@10"]}, baseline="p_bert", test="wilcoxon",
                         correction="bonferroni")
    assert out == comp.to_markdown()
    table = [line for line in out.splitlines() if line.startswith("|")]
    cells = [[c.strip().replace("\\*", "*").replace("**", "") for c in line.strip("|").split(" | ")]
             for line in table]
    assert cells[0] == ["system", "nDCG@10", "ΔnDCG@10", "p(nDCG@10)", "+(nDCG@10)", "=(nDCG@10)", "−(nDCG@10)"]
    assert set(table[1]) <= set("|:-")
    assert all(len(row) == 7 for k, row in enumerate(cells) if k != 1)
    check_rows(cells[2:], comp)
    x, base = scores["nDCG@10"].system("idst_bert_p1"), scores["nDCG@10"].system("p_bert")
    raw = comp.frame.filter(pl.col("system") == "idst_bert_p1")["p_value"][0]
    assert raw == pytest.approx(stats.wilcoxon(x, base).p_value, abs=1e-13)
    assert "Bonferroni-adjusted" in out and "Wilcoxon" in out


def test_latex_parses_and_matches(scores, score_file, capsys):
    code, out, err = run_cli(["compare", score_file, "-m", "AP", "--test", "randomization", "-n", "300",
                              "--seed", "3", "--format", "latex"], capsys)
    assert code == 0, err
    comp = stats.compare({"AP": scores["AP"]}, test="randomization", n_resamples=300, seed=3)
    assert out == comp.to_latex()
    lines = out.splitlines()
    label = "tab:compare-ap-" + comp.baseline.lower().replace("_", "-")
    assert r"\begin{table}[t]" in lines and rf"\label{{{label}}}" in lines
    assert any(line.startswith(r"\caption{") and "randomisation test" in line for line in lines)
    assert r"\begin{tabular}{lrrr}" in lines and r"\end{tabular}" in lines
    body = lines[lines.index(r"\midrule") + 1: lines.index(r"\bottomrule")]
    rows = []
    for line in body:
        assert line.endswith(r"\\")
        cells = [c.strip() for c in line[:-2].split(" & ")]
        assert len(cells) == 4
        cells = [c.replace(r"\textbf{", "").rstrip("}") if c.startswith(r"\textbf{") else c for c in cells]
        marks = [(r"$^{*}$", "*"), (r"$^{\dagger}$", "†"), ("$-$", "-"), (r"\textit{baseline}", "baseline")]
        for k in (1, 2):
            for old, new in marks:
                cells[k] = cells[k].replace(old, new)
        rows.append([cells[0].replace(r"\_", "_"), *cells[1:]])
    check_rows(rows, comp, width=3)
    ap = scores["AP"]
    p = comp.frame.filter(pl.col("system") == "TUA1-1")["p_value"][0]
    assert p == stats.randomization_test(ap.system("TUA1-1"), ap.system(comp.baseline), n_resamples=300,
                                         seed=3).p_value


def test_tsv_round_trip_and_tukey(scores, score_file, capsys, tmp_path):
    target = tmp_path / "cmp.tsv"
    code, out, err = run_cli(["compare", score_file, "--test", "tukey", "-n", "200", "--format", "tsv",
                              "-o", target], capsys)
    assert code == 0 and out == "", err
    comp = stats.compare(scores, test="tukey", n_resamples=200)
    import pandas as pd

    # the data only: pandas reads exactly the frame's rows and columns (no comment lines)
    frame = pd.read_csv(target, sep="\t", keep_default_na=False, na_values=["nan"])
    assert list(frame.columns) == comp.frame.columns and len(frame) == comp.frame.height
    assert frame["system"].tolist() == comp.frame["system"].to_list()
    for col in ("mean", "delta", "p_value", "p_adjusted"):
        assert np.array_equal(frame[col].to_numpy(), comp.frame[col].to_numpy(), equal_nan=True)
    assert frame["marker"].tolist() == comp.frame["marker"].to_list()
    # the legend, discriminative power included, goes to stderr
    for measure in comp.measures:
        power = stats.tukey_hsd(scores[measure], n_resamples=200).discriminative_power(0.05)
        assert f"{measure} {100 * power:.1f}%" in err and err.startswith("irstats: note:")
    tukey = stats.tukey_hsd(scores["AP"], n_resamples=200)
    for system in comp.systems[1::6]:
        row = comp.frame.filter((pl.col("measure") == "AP") & (pl.col("system") == system))
        assert row["p_value"][0] == tukey.p(system, comp.baseline)


@pytest.mark.parametrize("args, message", [
    (["--test", "anova"], "unknown --test 'anova'"),
    (["--baseline", "no-such-run"], "unknown baseline 'no-such-run'"),
    (["-m", "P@10"], "measure 'P@10' is not in the score file"),
    (["--correction", "fdr"], "unknown --correction 'fdr'"),
    (["--format", "html"], "unknown format 'html'"),
    (["--test", "tukey", "--correction", "holm"], "already familywise"),
])
def test_bad_input_exits_2_with_one_line(score_file, capsys, args, message):
    code, out, err = run_cli(["compare", score_file, *args], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and message in err
    assert err.startswith("irstats: error:")


def test_help_has_examples(capsys):
    code, out, _ = run_cli(["compare", "--help"], capsys)
    assert code == 0
    assert "Examples:" in out and "irstats compare scores.tsv" in out and "--baseline" in out


def test_several_baselines_and_all_pairs_against_scipy(dl19_scores_for_pairs):
    """compare_pairs: every pair's paired-t p equals scipy's; the correction runs over the
    stated family (all pairs, or every system against each baseline once)."""
    from scipy import stats as sps

    from irstats.stats.compare import compare_pairs

    ap = dl19_scores_for_pairs["AP"]
    m = len(ap.systems)
    everything = compare_pairs(ap, None, correction="bh")
    assert everything.frame.height == m * (m - 1) // 2
    assert everything.family.startswith(f"all {m * (m - 1) // 2} pairs")
    p = everything.frame["p_value"].to_numpy()
    np.testing.assert_allclose(everything.frame["p_adjusted"].to_numpy(), sps.false_discovery_control(p, method="bh"),
                               rtol=1e-12)
    for row in everything.frame.head(20).iter_rows(named=True):
        a, b = ap.system(row["system_a"]), ap.system(row["system_b"])
        assert row["p_value"] == pytest.approx(sps.ttest_rel(a, b).pvalue, rel=1e-9)
        assert row["delta"] == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    two = compare_pairs(ap, [ap.systems[0], ap.systems[1]])
    assert two.frame.height == (m - 1) + (m - 2)  # the two baselines are compared once
    assert set(two.frame["system_b"]) == {ap.systems[0], ap.systems[1]}


@pytest.fixture(scope="module")
def dl19_scores_for_pairs(reference_data):
    d = reference_data / "trec-dl-2019-passage"
    return irstats.evaluate(d / "qrels.dl19-passage.txt", sorted((d / "runs").glob("*"))[:8], ["AP"])


def test_cli_all_pairs_and_baselines(tmp_path, capsys):
    path = tmp_path / "scores.tsv"
    rng = np.random.default_rng(3)
    values = rng.beta(2, 3, size=(4, 15))
    lines = ["system\ttopic\tmeasure\tvalue"] + [f"s{i}\t{j}\tAP\t{values[i, j]:.4f}" for i in range(4)
                                                 for j in range(15)]
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(["compare", path, "--all-pairs", "--format", "tsv"], capsys)
    assert code == 0, err
    assert out.splitlines()[0].split("\t")[:6] == ["measure", "system_a", "system_b", "delta", "p_value", "p_adjusted"]
    assert len(out.splitlines()) == 7 and sum(1 for line in out.splitlines() if line.startswith("AP\t")) == 6
    assert "family: all 6 pairs" in err  # the legend: on stderr, the data alone on stdout
    code, out, err = run_cli(["compare", path, "--baseline", "s0", "--baseline", "s1"], capsys)
    assert code == 0, err
    assert out.splitlines()[1].split()[-2:] == ["s0", "s1"] and "5 comparisons with 2 baseline(s)" in out
