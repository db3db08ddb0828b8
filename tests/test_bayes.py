"""Bayesian comparisons (issue 38): the signed-rank test against baycomp, the paired t posterior
against scipy, the command line's printers and its bad input.

Monte-Carlo precision: both baycomp and irstats draw ``SAMPLES`` = 50,000 posterior samples;
each probability is a share of samples, whose standard error is at most √(0.25/50,000) ≈
0.0022, so the two estimates differ with a standard error of at most 0.0032. ``MC_TOL`` =
0.016 is five of those (a false alarm about once in 1.7 million comparisons)."""

from __future__ import annotations

import io
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from irstats.trec_eval.read import read_trec_eval
from irstats.scores import ScoreMatrix
from irstats.stats.bayes import bayes, bayes_pair
from tests.conftest import best_and_median, examples, run_cli

SAMPLES = 50_000
MC_TOL = 5 * math.sqrt(0.25 * 2 / SAMPLES)  # 0.0158
T_TOL = 1e-12
FORMATS = ("table", "markdown", "latex", "tsv", "csv", "json")
COLUMNS = ["measure", "system", "baseline", "p_baseline_better", "p_rope", "p_system_better", "interval_low",
           "interval_high"]


def baycomp_signed_rank(system, baseline, rope):
    """baycomp's three probabilities (x: the baseline, y: the system; left = baseline better)."""
    import baycomp

    probs = baycomp.SignedRankTest.probs(np.asarray(baseline, float), np.asarray(system, float), rope=rope,
                                         nsamples=SAMPLES, random_state=1)
    if rope == 0:
        return probs[0], 0.0, probs[1]
    return probs


def scipy_t(system, baseline, rope, level=0.95):
    """The posterior Student t of the mean difference, one scipy.stats.t per pair."""
    from scipy import stats

    d = np.asarray(system, float) - np.asarray(baseline, float)
    n = d.size
    posterior = stats.t(n - 1, loc=d.mean(), scale=d.std(ddof=1) / math.sqrt(n))
    left, right = posterior.cdf(-rope), posterior.sf(rope)
    return left, 1 - left - right, right, posterior.ppf((1 - level) / 2), posterior.ppf((1 + level) / 2)


scores_4dp = st.floats(0, 1).map(lambda v: round(v, 4))  # trec_eval's 4 decimals: ties among the differences


@st.composite
def pairs(draw, min_topics=3, max_topics=40):
    n = draw(st.integers(min_topics, max_topics))
    baseline = draw(st.lists(scores_4dp, min_size=n, max_size=n))
    shift = draw(st.sampled_from([0.0, 0.01, 0.05, -0.03]))
    noise = draw(st.lists(st.floats(-0.1, 0.1).map(lambda v: round(v, 4)), min_size=n, max_size=n))
    system = [min(1.0, max(0.0, round(b + shift + e, 4))) for b, e in zip(baseline, noise)]
    rope = draw(st.sampled_from([0.0, 0.01, 0.03]))
    return np.array(system), np.array(baseline), rope


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs())
def test_signed_rank_equals_baycomp(pair):
    system, baseline, rope = pair
    ours = bayes_pair(system, baseline, rope=rope, n_samples=SAMPLES, seed=3)
    if rope == 0 and not (system - baseline).any():
        # θ_left = θ_right in every sample: irstats splits the tie; baycomp's argmax follows rounding noise
        assert ours == (0.5, 0.0, 0.5)
        return
    theirs = baycomp_signed_rank(system, baseline, rope)
    assert np.allclose(ours, theirs, atol=MC_TOL, rtol=0), (ours, theirs)
    assert math.isclose(sum(ours), 1.0, abs_tol=1e-9)


@settings(max_examples=examples(60), deadline=None)
@given(pairs(min_topics=2), st.sampled_from([0.8, 0.9, 0.95]))
def test_t_posterior_equals_scipy(pair, level):
    system, baseline, rope = pair
    d = system - baseline
    if d.std(ddof=1) <= 1e-12 * max(1.0, abs(d.mean())):
        return  # a constant difference: the posterior is a point (see test_t_constant_difference)
    matrix = ScoreMatrix(np.vstack([baseline, system]), ("base", "sys"), tuple(map(str, range(d.size))), "AP")
    row = bayes(matrix, "base", test="t", rope=rope, level=level).frame.row(0, named=True)
    expected = scipy_t(system, baseline, rope, level)
    got = (row["p_baseline_better"], row["p_rope"], row["p_system_better"], row["interval_low"], row["interval_high"])
    assert np.allclose(got, expected, rtol=0, atol=T_TOL), (got, expected)


def test_t_constant_difference():
    base = np.array([0.1, 0.2, 0.3, 0.4])
    matrix = ScoreMatrix(np.vstack([base, base + 0.05]), ("base", "sys"), ("1", "2", "3", "4"), "AP")
    row = bayes(matrix, "base", test="t", rope=0.01).frame.row(0, named=True)
    assert (row["p_baseline_better"], row["p_rope"], row["p_system_better"]) == (0.0, 0.0, 1.0)
    assert row["interval_low"] == pytest.approx(0.05) and row["interval_high"] == pytest.approx(0.05)


@pytest.fixture(scope="module")
def tracks(reference_data):
    base = reference_data / "confint-score-matrices"
    return {name: read_trec_eval(base / name)["AP"] for name in ("robust04", "robust05", "web2012")}


@pytest.fixture(scope="module")
def dl19(reference_data):
    import irstats

    base = reference_data / "trec-dl-2019-passage"
    return irstats.evaluate(base / "qrels.dl19-passage.txt", sorted((base / "runs").glob("*.run.gz")), ["nDCG@10"])[
        "nDCG@10"]


@pytest.mark.parametrize("track", ["robust04", "robust05", "web2012", "dl19"])
def test_real_data_equals_baycomp_and_scipy(track, tracks, dl19):
    full = dl19 if track == "dl19" else tracks[track]
    best, median = best_and_median(full)
    system, baseline = full.system(best), full.system(median)
    matrix = ScoreMatrix(np.vstack([baseline, system]), (median, best), full.topics, full.measure)
    for rope in ((0.01, 0.0) if track == "web2012" else (0.01,)):
        result = bayes(matrix, median, rope=rope, n_samples=SAMPLES, seed=5).frame
        row = result.filter(pl.col("system") == best).row(0, named=True)
        ours = (row["p_baseline_better"], row["p_rope"], row["p_system_better"])
        assert np.allclose(ours, baycomp_signed_rank(system, baseline, rope), atol=MC_TOL, rtol=0)
    t = bayes(matrix, median, test="t", rope=0.01).frame.filter(pl.col("system") == best).row(0, named=True)
    got = (t["p_baseline_better"], t["p_rope"], t["p_system_better"], t["interval_low"], t["interval_high"])
    assert np.allclose(got, scipy_t(system, baseline, 0.01), atol=T_TOL, rtol=0)


def test_batch_sizes_change_nothing(tracks, monkeypatch):
    from irstats.stats import bayes as module

    matrix = tracks["robust05"]
    first = bayes(matrix, matrix.systems[0], n_samples=3000, seed=2).frame
    monkeypatch.setattr(module, "CHUNK", 700)
    monkeypatch.setattr(module, "PAIR_BLOCK", 5)
    assert bayes(matrix, matrix.systems[0], n_samples=3000, seed=2).frame.equals(first)


def test_seeded_and_pairs_independent(tracks):
    matrix = tracks["web2012"]
    systems = matrix.systems[:4]
    small = ScoreMatrix(matrix.values[:4], systems, matrix.topics, "AP")
    one = bayes(small, systems[0], n_samples=4000, seed=9).frame
    again = bayes(small, systems[0], n_samples=4000, seed=9).frame
    assert one.equals(again)
    every = bayes(small, all_pairs=True, n_samples=4000, seed=9).frame
    for row in one.iter_rows(named=True):  # the same pair draws the same weights whatever else is compared
        match = every.filter(((pl.col("system") == row["system"]) & (pl.col("baseline") == row["baseline"])))
        if match.height:
            assert match.row(0, named=True) == row
        else:
            swapped = every.filter((pl.col("system") == row["baseline"]) & (pl.col("baseline") == row["system"]))
            r = swapped.row(0, named=True)
            assert (r["p_baseline_better"], r["p_system_better"]) == pytest.approx(
                (row["p_system_better"], row["p_baseline_better"]), abs=MC_TOL)
    other = bayes(small, systems[0], n_samples=4000, seed=10).frame
    assert not one.equals(other)


@pytest.fixture(scope="module")
def score_file(tmp_path_factory):
    rng = np.random.default_rng(38)
    lines = ["system\ttopic\tmeasure\tvalue"]
    for s in range(4):
        for t in range(15):
            lines.append(f"s{s}\t{t}\tAP\t{min(1.0, rng.beta(2 + s * 0.4, 3)):.6f}")
            lines.append(f"s{s}\t{t}\tNumRet\t{rng.integers(500, 1000)}")
    path = tmp_path_factory.mktemp("bayes") / "scores.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("test", ["signed_rank", "t"])
def test_cli_prints_the_results_own_printer(score_file, capsys, fmt, test):
    import irstats

    scores = {"AP": irstats.read_scores(score_file)["AP"]}
    code, out, err = run_cli(["bayes", score_file, "-m", "AP", "--baseline", "s0", "--rope", "0.02", "--test", test,
                              "-n", "2000", "--seed", "4", "--format", fmt], capsys)
    assert code == 0, err
    result = bayes(scores, "s0", test=test, rope=0.02, n_samples=2000, seed=4)
    assert out == result.format(fmt)
    if fmt == "tsv":
        import pandas as pd

        frame = pd.read_csv(io.StringIO(out), sep="\t")
        assert list(frame.columns) == COLUMNS and len(frame) == 3
        assert set(frame["system"]) == {"s1", "s2", "s3"} and set(frame["baseline"]) == {"s0"}
        assert np.allclose(frame[["p_baseline_better", "p_rope", "p_system_better"]].sum(axis=1), 1.0)
        for line in result.legend():
            assert line in err
    if fmt == "latex":
        assert out.count(r"\begin{table") == out.count(r"\caption{") == out.count(r"\label{") == 1


def test_default_rope_follows_the_measure(score_file):
    import irstats

    scores = irstats.read_scores(score_file)
    result = bayes(scores, "s0", test="t")
    values = scores["NumRet"].values
    assert result.ropes == {"AP": 0.01, "NumRet": pytest.approx(0.01 * (values.max() - values.min()))}
    assert "(default)" in result.legend()[0]


@pytest.mark.parametrize("args, expected", [
    (["--rope", "-0.1"], "--rope -0.1 is negative; the ROPE is [−r, r]: give --rope r >= 0"),
    (["--rope", "1.5"], "larger than the range of AP"),
    (["--baseline", "nope"], "unknown --baseline 'nope'"),
    (["--level", "1.5"], "level must be a number strictly between 0 and 1"),
])
def test_bad_options_are_one_line_and_exit_2(score_file, capsys, args, expected):
    code, out, err = run_cli(["bayes", score_file, "-m", "AP", *args], capsys)
    assert code == 2 and out == ""
    assert expected in err and len(err.strip().splitlines()) == 1, err


def test_one_topic_and_no_common_topics_exit_2(tmp_path, capsys):
    one = tmp_path / "one.tsv"
    one.write_text("system\ttopic\tmeasure\tvalue\na\t1\tAP\t0.5\nb\t1\tAP\t0.4\n")
    code, _, err = run_cli(["bayes", one, "-m", "AP"], capsys)
    assert code == 2 and "one topic" in err and "more topics" in err and len(err.strip().splitlines()) == 1
    apart = tmp_path / "apart.tsv"
    apart.write_text("system\ttopic\tmeasure\tvalue\na\t1\tAP\t0.5\na\t2\tAP\t0.4\nb\t3\tAP\t0.4\nb\t4\tAP\t0.3\n")
    code, _, err = run_cli(["bayes", apart, "-m", "AP", "--baseline", "a"], capsys)
    assert code == 2 and "share no topics" in err and "irstats eval -c" in err, err


def test_rope_past_an_unbounded_measures_range_warns(score_file):
    import irstats

    scores = irstats.read_scores(score_file)
    with pytest.warns(UserWarning, match="larger than the range of the NumRet scores"):
        result = bayes({"NumRet": scores["NumRet"]}, "s0", test="t", rope=10_000)
    assert (result.frame["p_rope"] > 0.99).all()


def test_figures(score_file, tmp_path, capsys):
    from matplotlib.backends.backend_pdf import PdfPages  # noqa: F401  (the PDF backend is there)

    code, _, err = run_cli(["bayes", score_file, "-m", "AP", "--all-pairs", "-n", "2000", "--plot",
                            tmp_path / "simplex.pdf", "--plot-size", "column"], capsys)
    assert code == 0, err
    assert (tmp_path / "simplex.pdf").stat().st_size > 0
    simplex = pl.read_csv(tmp_path / "simplex.csv")
    assert simplex.height == 6 and {"p_baseline_better", "p_rope", "p_system_better"} <= set(simplex.columns)
    for test in ("signed_rank", "t"):
        code, _, err = run_cli(["bayes", score_file, "-m", "AP", "--baseline", "s0", "--test", test, "-n", "2000",
                                "--plot", tmp_path / f"posterior-{test}.png", "--posterior", "s2"], capsys)
        assert code == 0, err
        density = pl.read_csv(tmp_path / f"posterior-{test}.csv")
        x, y = density["difference"].to_numpy(), density["density"].to_numpy()
        assert np.trapezoid(y, x) == pytest.approx(1.0, abs=0.03)  # a density: it integrates to 1


def test_report_section(reference_data, tmp_path, capsys):
    import irstats

    base = reference_data / "trec-dl-2019-passage"
    runs = sorted((base / "runs").glob("*.run.gz"))[:4]
    qrels = base / "qrels.dl19-passage.txt"
    code, _, err = run_cli(["report", "--qrels", qrels, *(x for r in runs for x in ("--runs", r)), "-m", "nDCG@10",
                            "--bayes", "--rope", "0.02", "--quick", "--figures", "--quiet", "-o", tmp_path / "r"],
                           capsys)
    assert code == 0, err
    table = pl.read_csv(tmp_path / "r" / "tables" / "bayes.tsv", separator="\t")
    expected = bayes(irstats.evaluate(qrels, runs, ["nDCG@10"]), rope=0.02).frame
    assert table.columns == COLUMNS
    assert np.allclose(table.select(COLUMNS[3:]).to_numpy(), expected.select(COLUMNS[3:]).to_numpy(), atol=1e-12)
    assert (tmp_path / "r" / "figures" / "bayes_simplex.pdf").exists()
    assert "Bayesian comparison with the best system" in (tmp_path / "r" / "report.md").read_text()
    code, _, err = run_cli(["report", "--qrels", qrels, "--runs", runs[0], "--rope", "0.02", "-o", tmp_path / "s"],
                           capsys)
    assert code == 2 and "give --bayes" in err


@pytest.mark.parametrize("size", ["column", "page"])
def test_figures_are_paper_ready(score_file, tmp_path, size):
    """The two figures (and the meta-analysis' forest plot) pass the paper checks of every
    figure: width, height, text >= 7 pt, legends outside the data, TrueType fonts only."""
    import irstats
    from irstats import plots
    from irstats.plots.common import SIZES
    from irstats.stats.meta_analysis import meta_analysis
    from tests.test_figures_paper import assert_true_type_only, check_figure

    scores = irstats.read_scores(score_file)
    result = bayes(scores, "s0", n_samples=2000)
    meta = meta_analysis({"a": scores, "b": scores}, "s3", "s0", ["AP"], hartung_knapp=True)
    drawn = {"posterior": result.plot_posterior(size=size), "simplex": result.plot_simplex(size=size),
             "forest": meta.plot(size=size)}
    for name, ax in drawn.items():
        check_figure(ax.figure, name, SIZES[size])
        assert_true_type_only(plots.save(ax, tmp_path / f"{name}.pdf"))
