"""Prediction-powered means (METHODS.md §5.8) against ppi_py's ppi_mean_pointestimate and
ppi_mean_ci (and classical_mean_ci for the gold-only interval), on hypothesis-generated
per-topic values and on DL 2019 with degraded labels; the command's output against the
result's printers; argument checks."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate

import irstats
from irstats.io.trec import read_qrels
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, NotFoundError
from irstats.ppi import PPIResult, degrade_qrels, ppi, ppi_scores
from irstats.render import delimited
from irstats.scores import ScoreMatrix
from irstats.stats.ppi import ppi_mean, ppi_mean_rows
from tests.conftest import examples, run_cli

TOL = 1e-9


def _reference(y, f, fu, alpha, lam):
    """ppi_py's estimate and interval (α passed explicitly: ppi_py's default is 0.1)."""
    estimate = float(np.squeeze(ppi_mean_pointestimate(y, f, fu, lam=lam)))
    low, high = ppi_mean_ci(y, f, fu, alpha=alpha, lam=lam)
    return estimate, float(np.squeeze(low)), float(np.squeeze(high))


def _check_row(row, y, f, fu, alpha, lam):
    estimate, low, high = _reference(y, f, fu, alpha, lam)
    assert row["estimate"] == pytest.approx(estimate, abs=TOL)
    assert row["ci_low"] == pytest.approx(low, abs=TOL)
    assert row["ci_high"] == pytest.approx(high, abs=TOL)
    gold_low, gold_high = classical_mean_ci(y, alpha=alpha)
    assert row["gold_ci_low"] == pytest.approx(float(gold_low), abs=TOL)
    assert row["gold_ci_high"] == pytest.approx(float(gold_high), abs=TOL)
    assert row["gold_estimate"] == pytest.approx(float(np.mean(y)), abs=TOL)
    assert row["auto_estimate"] == pytest.approx(float(np.mean(np.concatenate([f, fu]))), abs=TOL)
    # effective gold topics: a classical interval over that many topics is as wide as PPI's
    width, gold_width = high - low, float(gold_high - gold_low)
    if width > 1e-12:
        assert row["n_effective"] == pytest.approx(len(y) * (gold_width / width) ** 2, rel=1e-9)


def _as_dict(m) -> dict:
    return dataclasses.asdict(m)


# --------------------------------------------------------------------------- per-topic values

@st.composite
def topic_values(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n, N = draw(st.integers(2, 25)), draw(st.integers(1, 60))
    noise, bias = draw(st.floats(0.0, 0.5)), draw(st.floats(-0.3, 0.3))
    kind = draw(st.sampled_from(["uniform", "bounded", "discrete"]))
    if kind == "uniform":
        truth = rng.random(n + N)
    elif kind == "bounded":  # many zeros and ones, as per-topic nDCG or P@k
        truth = np.clip(rng.normal(0.5, 0.4, n + N), 0, 1)
    else:
        truth = rng.integers(0, 5, n + N) / 4
    auto = truth + bias + noise * rng.standard_normal(n + N)
    if draw(st.booleans()):
        auto = np.round(auto, 1)  # ties among the cheap scores
    return truth[:n], auto[:n], auto[n:]


@settings(max_examples=examples(150), deadline=None)
@given(topic_values(), st.sampled_from([None, None, 0.0, 0.3, 1.0]), st.floats(0.01, 0.3))
def test_equals_ppi_py_on_generated_values(values, lam, alpha):
    y, f, fu = values
    if np.ptp(np.concatenate([f, fu])) == 0:
        return  # constant cheap scores: test_constant_auto_scores
    m = ppi_mean(y, f, fu, alpha=alpha, lam=lam)
    _check_row(_as_dict(m), y, f, fu, alpha, lam)
    if lam is not None:
        assert m.lam == lam


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 15), st.integers(1, 30), st.integers(1, 6))
def test_rows_with_missing_scores_equal_ppi_py_on_each_row(seed, n, N, rows):
    """Batched over rows, NaN left out row by row, one level per row."""
    rng = np.random.default_rng(seed)
    y = rng.random((rows, n + 2))
    f = y + 0.2 * rng.standard_normal((rows, n + 2))
    fu = rng.random((rows, N)) + 0.1
    y[rng.random(y.shape) < 0.1] = np.nan
    fu[rng.random(fu.shape) < 0.1] = np.nan
    alpha = rng.uniform(0.01, 0.2, rows)
    out = ppi_mean_rows(y, f, fu, alpha=alpha)
    for r in range(rows):
        keep = ~np.isnan(y[r])
        yr, fr, fur = y[r][keep], f[r][keep], fu[r][~np.isnan(fu[r])]
        if len(yr) < 2 or len(fur) < 1:
            assert np.isnan(out.estimate[r])
            continue
        assert out.n_gold[r] == len(yr) and out.n_other[r] == len(fur)
        row = {k: getattr(out, k)[r] for k in ("estimate", "ci_low", "ci_high", "gold_estimate", "gold_ci_low",
                                               "gold_ci_high", "auto_estimate", "n_effective")}
        _check_row(row, yr, fr, fur, alpha[r], None)


def test_rows_without_enough_topics_are_nan_quietly():
    import warnings

    y = np.array([[np.nan, np.nan, np.nan], [0.1, 0.2, 0.3], [0.4, np.nan, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ppi_mean_rows(y, y, np.array([[np.nan, 0.5], [0.2, 0.1], [0.3, 0.3]]))
    assert np.isnan(out.estimate[[0, 2]]).all() and np.isfinite(out.estimate[1])
    assert out.n_gold.tolist() == [0, 3, 1] and out.n_other.tolist() == [1, 2, 2]


def test_constant_auto_scores():
    """ppi_py's tuned λ is 0/0 there (NaN); every λ gives the same answer, and irstats says λ = 0."""
    y, f, fu = np.array([0.2, 0.5, 0.9, 0.4]), np.full(4, 0.3), np.full(7, 0.3)
    m = ppi_mean(y, f, fu, alpha=0.05)
    assert m.lam == 0.0
    for lam in (0.0, 1.0):
        estimate, low, high = _reference(y, f, fu, 0.05, lam)
        assert (m.estimate, m.ci_low, m.ci_high) == pytest.approx((estimate, low, high), abs=TOL)
    assert m.n_effective == pytest.approx(4.0)


def test_perfect_labels_are_worth_every_topic():
    """Cheap scores equal to the gold ones: λ near 1 and about n + N effective gold topics."""
    rng = np.random.default_rng(3)
    truth = rng.random(60)
    m = ppi_mean(truth[:10], truth[:10], truth[10:], alpha=0.05)
    assert m.lam == pytest.approx(1 / (1 + 10 / 50) , rel=0.2)
    assert m.n_effective > 40


# --------------------------------------------------------------------------- DL 2019

RUNS = ("bm25base_p", "bm25tuned_rm3_p", "idst_bert_p1", "p_bert", "runid2", "TUW19-p1-f", "UNH_bm25",
        "ICT-CKNRM_B")
MEASURES = ("nDCG@10", "AP(rel=2)")


@pytest.fixture(scope="module")
def dl19(reference_data, tmp_path_factory):
    """NIST's qrels on 15 seeded gold topics, degraded labels (confusion and leniency) on all
    43, eight runs; and the per-topic scores under NIST's full qrels as the reference's y."""
    import irstats

    base = reference_data / "trec-dl-2019-passage"
    nist = base / "qrels.dl19-passage.txt"
    folder = tmp_path_factory.mktemp("ppi")
    auto = degrade_qrels(nist, seed=7)
    qrels = read_qrels(nist).select("topic", pl.lit("0").alias("q0"), "docno", "rel")
    topics = sorted(qrels["topic"].unique().to_list())
    gold_topics = sorted(np.random.default_rng(11).choice(topics, 15, replace=False).tolist())
    gold_path, auto_path = folder / "gold.qrels", folder / "auto.qrels"
    qrels.filter(pl.col("topic").is_in(gold_topics)).write_csv(gold_path, separator=" ", include_header=False)
    auto.select("topic", pl.lit("0").alias("q0"), "docno", "rel").write_csv(auto_path, separator=" ",
                                                                             include_header=False)
    runs = [base / "runs" / f"{name}.run.gz" for name in RUNS]
    full = irstats.evaluate(nist, runs, list(MEASURES))
    cheap = irstats.evaluate(auto_path, runs, list(MEASURES))
    result = ppi(gold_path, auto_path, runs, list(MEASURES), baseline="bm25base_p")
    return dict(gold=gold_path, auto=auto_path, runs=runs, full=full, cheap=cheap, gold_topics=gold_topics,
                result=result)


def _per_topic(dl19, measure, system):
    full, cheap, G = dl19["full"][measure], dl19["cheap"][measure], dl19["gold_topics"]
    U = [t for t in cheap.topics if t not in set(G)]
    y = full.values[full.systems.index(system), [full.topics.index(t) for t in G]]
    f = cheap.values[cheap.systems.index(system), [cheap.topics.index(t) for t in G]]
    fu = cheap.values[cheap.systems.index(system), [cheap.topics.index(t) for t in U]]
    return y, f, fu


def test_dl19_means_and_differences_equal_ppi_py(dl19):
    result = dl19["result"]
    assert isinstance(result, PPIResult)
    assert result.gold_topics == tuple(dl19["gold_topics"]) and len(result.other_topics) == 43 - 15
    assert result.means.height == len(RUNS) * len(MEASURES)
    for row in result.means.iter_rows(named=True):
        _check_row(row, *_per_topic(dl19, row["measure"], row["system"]), 0.05, None)
        assert (row["n_gold"], row["n_other"], row["confidence"]) == (15, 28, 0.95)
    assert result.differences.height == (len(RUNS) - 1) * len(MEASURES)
    level = 0.05 / (len(RUNS) - 1)  # Bonferroni over the comparisons of a measure
    for row in result.differences.iter_rows(named=True):
        assert row["versus"] == "bm25base_p"
        a, b = _per_topic(dl19, row["measure"], row["system"]), _per_topic(dl19, row["measure"], "bm25base_p")
        _check_row(row, *(x - z for x, z in zip(a, b)), level, None)
        assert row["confidence"] == pytest.approx(1 - level)
    assert "Bonferroni" in result.title and f"{len(RUNS) - 1} comparisons" in result.title


def test_dl19_all_pairs_and_classic_lambda(dl19):
    """From the score matrices (ppi_scores), every pair, classic PPI, unadjusted."""
    G = dl19["gold_topics"]
    gold = {m: s.subset(topics=G) for m, s in dl19["full"].items()}
    result = ppi_scores(gold, dl19["cheap"], ["nDCG@10"], lam=1, all_pairs=True, correction="none", alpha=0.1)
    pairs = result.differences
    assert pairs.height == len(RUNS) * (len(RUNS) - 1) // 2
    for row in pairs.iter_rows(named=True):
        a, b = _per_topic(dl19, "nDCG@10", row["system"]), _per_topic(dl19, "nDCG@10", row["versus"])
        _check_row(row, *(x - z for x, z in zip(a, b)), 0.1, 1)
        assert row["lam"] == 1.0
    means = result.means["estimate"].to_list()
    assert means == sorted(means, reverse=True)  # best first; pairs as (higher, lower)
    assert "not adjusted" in result.title and "classic PPI" in result.title


def test_result_shape(dl19):
    result = dl19["result"]
    assert result.to_frame().columns[:5] == ["system", "measure", "versus", "estimate", "ci_low"]
    assert {"ci_high", "gold_ci_low", "gold_ci_high", "auto_estimate", "lam", "n_gold", "n_other",
            "n_effective"} <= set(result.to_frame().columns)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.alpha = 0.1  # type: ignore[misc]
    assert result.to_pandas().shape == result.to_frame().shape
    text = str(result)
    assert text.startswith("Prediction-powered means (PPI++") and "bm25base_p" in text
    latex = result.to_latex()
    packages, float_ = latex.split("\n", 1)  # the packages it needs, named in a comment, then the float
    assert packages.startswith("% needs") and float_.startswith("\\begin{table*}")
    assert "\\caption{" in latex and "\\toprule" in latex
    assert "$-$" in latex  # typeset minus signs (UNH_bm25 is below the baseline)
    assert result.to_markdown().startswith("**Prediction-powered means")


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex", "tsv", "csv", "json"])
def test_cli_writes_the_results_printers(dl19, fmt, capsys, tmp_path):
    args = ["ppi", "--gold", dl19["gold"], "--auto", dl19["auto"], "--runs", *dl19["runs"][:4], "-m", "nDCG@10",
            "--all-pairs", "--format", fmt]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    result = ppi(dl19["gold"], dl19["auto"], dl19["runs"][:4], ["nDCG@10"], all_pairs=True)
    expected = {"table": str(result), "markdown": result.to_markdown(), "latex": result.to_latex(),
                "tsv": delimited(result.to_frame(), "\t"), "csv": delimited(result.to_frame(), ",")}
    if fmt == "json":
        import json

        rows = json.loads(out)
        assert [r["estimate"] for r in rows] == pytest.approx(result.to_frame()["estimate"].to_list(), abs=0)
        assert len(rows) == result.to_frame().height and set(rows[0]) == set(result.to_frame().columns)
    else:
        assert out == expected[fmt]
    code, _, err = run_cli([*args, "-o", tmp_path / "out.txt"], capsys)
    # the same file; a LaTeX float labelled by the file's name (tab:out), not the result's own label
    assert code == 0 and (tmp_path / "out.txt").read_text() == (result.to_latex(label="tab:out") if fmt == "latex"
                                                                 else out)


def test_cli_bad_arguments(dl19, capsys):
    base = ["ppi", "--gold", dl19["gold"], "--auto", dl19["auto"], "--runs", dl19["runs"][0], "-m", "nDCG@10"]
    code, _, err = run_cli([*base, "--alpha", "1.5"], capsys)
    assert code == 2 and "alpha" in err
    code, _, err = run_cli([*base, "--baseline", "nope"], capsys)
    assert code == 2 and "baseline" in err
    code, _, err = run_cli([*base, "--lambda", "2"], capsys)
    assert code == 2 and "lam" in err
    code, _, err = run_cli(["ppi", "--gold", dl19["auto"], "--auto", dl19["gold"], "--runs", dl19["runs"][0],
                            "-m", "nDCG@10"], capsys)
    assert code == 2 and "do not cover" in err and "other way round" in err


# --------------------------------------------------------------------------- checks

def _matrices(values, topics, measure="nDCG@10"):
    systems = tuple(f"s{i}" for i in range(values.shape[0]))
    return {measure: ScoreMatrix(values, systems, tuple(topics), measure)}


@pytest.fixture()
def small():
    rng = np.random.default_rng(0)
    gold = _matrices(rng.random((3, 4)), ["t1", "t2", "t3", "t4"])
    auto = _matrices(rng.random((3, 9)), [f"t{i}" for i in range(1, 10)])
    return gold, auto


@pytest.mark.parametrize("kwargs, argument, error", [
    (dict(alpha=0), "alpha", ArgumentError), (dict(alpha=1.0), "alpha", ArgumentError),
    (dict(alpha="0.05"), "alpha", ArgumentTypeError), (dict(alpha=float("nan")), "alpha", ArgumentError),
    (dict(lam=1.5), "lam", ArgumentError), (dict(lam=-0.1), "lam", ArgumentError),
    (dict(lam="tuned"), "lam", ArgumentTypeError),
    (dict(baseline="nope"), "baseline", NotFoundError), (dict(baseline=3), "baseline", ArgumentTypeError),
    (dict(baseline="s0", all_pairs=True), "all_pairs", ArgumentError),
    (dict(all_pairs="yes"), "all_pairs", ArgumentTypeError),
    (dict(correction="holm"), "correction", ArgumentError), (dict(correction=None), "correction", ArgumentTypeError),
    (dict(measures=[]), "measures", ArgumentError), (dict(measures=["AP"]), "measures", NotFoundError),
])
def test_bad_arguments_name_the_argument(small, kwargs, argument, error):
    with pytest.raises(error) as info:
        ppi_scores(*small, **kwargs)
    assert info.value.argument == argument and argument in str(info.value)


def test_bad_scores_and_rows(small):
    with pytest.raises(ArgumentTypeError) as info:
        ppi_scores(np.zeros((2, 2)), small[1])
    assert info.value.argument == "gold_scores"
    with pytest.raises(ArgumentTypeError) as info:
        ppi_scores(small[0], "scores.tsv")
    assert info.value.argument == "auto_scores"
    with pytest.raises(ArgumentError) as info:
        ppi_mean_rows(np.zeros((2, 3)), np.zeros((2, 4)), np.zeros((2, 5)))
    assert info.value.argument == "Yhat_unlabeled"
    with pytest.raises(ArgumentTypeError) as info:
        ppi_mean(["a", "b"], [0.1, 0.2], [0.3])
    assert info.value.argument == "Y"
    with pytest.raises(ArgumentError) as info:
        ppi_mean(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 3)))
    assert info.value.argument == "Y"
    with pytest.raises(ArgumentError) as info:
        ppi_mean_rows(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 5)), alpha=[0.05, 0.05, 0.05])
    assert info.value.argument == "alpha"


def test_checks_come_before_reading_files(tmp_path):
    missing = tmp_path / "missing.qrels"
    with pytest.raises(ArgumentError) as info:
        ppi(missing, missing, tmp_path, ["nDCG@10"], alpha=2)
    assert info.value.argument == "alpha"
    with pytest.raises(ArgumentTypeError) as info:
        ppi(missing, missing, tmp_path, None)
    assert info.value.argument == "measures"


def test_topic_sets_that_do_not_fit(small):
    gold, auto = small
    with pytest.raises(InputError, match="do not cover 1 gold topic"):
        ppi_scores(_matrices(np.zeros((3, 2)), ["t1", "t99"]), auto)
    with pytest.raises(InputError, match="no topic beyond"):
        ppi_scores(auto, auto)
    with pytest.raises(InputError, match="at least 2"):
        ppi_scores(_matrices(np.zeros((3, 1)), ["t1"]), auto)


def test_degrade_qrels_is_seeded_and_keeps_what_it_should():
    frame = pl.DataFrame({"topic": ["1"] * 6 + ["2"] * 6, "docno": [f"d{i}" for i in range(12)],
                          "rel": [0, 1, 2, 3, -1, 0, 3, 2, 1, 0, 0, -1]})
    a, b = degrade_qrels(frame, seed=1), degrade_qrels(frame, seed=1)
    assert a.equals(b)
    assert a.filter(pl.col("rel") < 0).height == 2  # unjudged stay unjudged
    exact = degrade_qrels(frame, np.eye(4), leniency=0.0, seed=3)
    assert exact.equals(frame.sort(["topic", "docno"]))
    big = pl.DataFrame({"topic": [str(i % 20) for i in range(4000)], "docno": [f"d{i}" for i in range(4000)],
                        "rel": [i % 4 for i in range(4000)]})
    assert not degrade_qrels(big, seed=1).equals(degrade_qrels(big, seed=2))
    assert degrade_qrels(big, seed=1)["rel"].mean() > big["rel"].mean() - 0.2  # lenient, not harsh
    with pytest.raises(ArgumentError) as info:
        degrade_qrels(frame, [[0.5, 0.4], [0.5, 0.5]])
    assert info.value.argument == "confusion"
    with pytest.raises(ArgumentError) as info:
        degrade_qrels(frame, np.eye(3))
    assert info.value.argument == "qrels"
    with pytest.raises(ArgumentError) as info:
        degrade_qrels(frame, leniency=0.8)
    assert info.value.argument == "leniency"


def test_report_section_with_gold_topics(reference_data, tmp_path):
    """``report --qrels-b AUTO --gold-topics FILE``: a prediction-powered section whose
    estimates are ppi_py's PPI++ point estimates on the per-topic scores (people's labels on
    the gold topics, the cheap labels on all)."""
    import polars as pl

    from irstats.report import build_report

    base = reference_data / "trec-dl-2019-passage"
    qrels = base / "qrels.dl19-passage.txt"
    runs = sorted((base / "runs").glob("*.run.gz"))[:3]
    auto = tmp_path / "auto.qrels"
    auto.write_text("".join(f"{t} {i} {d} {max(0, int(g) - (k % 3 == 0))}\n"
                            for k, (t, i, d, g) in enumerate(line.split() for line in qrels.read_text().splitlines())))
    topics = sorted({line.split()[0] for line in qrels.read_text().splitlines()})
    gold = topics[::3]
    report = build_report(qrels, runs, tmp_path / "report", measures=["nDCG@10"], quick=True, progress=False,
                          qrels_b=auto, gold_topics=gold)
    table = pl.read_csv(report.out_dir / "tables" / "ppi_means.tsv", separator="\t")
    human = irstats.evaluate(qrels, runs, ["nDCG@10"])["nDCG@10"]
    cheap = irstats.evaluate(auto, runs, ["nDCG@10"])["nDCG@10"]
    g = [human.topics.index(t) for t in gold]
    u = [j for j, t in enumerate(cheap.topics) if t not in set(gold)]
    for row in table.filter(pl.col("measure") == "nDCG@10").iter_rows(named=True):
        y, f = human.system(row["system"]), cheap.system(row["system"])
        expected = float(np.squeeze(ppi_mean_pointestimate(y[g], f[g], f[u], lam=None)))
        assert row["estimate"] == pytest.approx(expected, abs=1e-9)
    with pytest.raises(irstats.ArgumentError, match="gold_topics goes with qrels_b"):
        build_report(qrels, runs, tmp_path / "r2", quick=True, progress=False, gold_topics=gold)
