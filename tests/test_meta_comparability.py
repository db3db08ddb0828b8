"""Cross-collection comparability (METHODS.md §5.4): dRMSE, the vectorised two-sample t-test,
the randomised baseline against a plain loop, R-normalisation against evaluated measures,
observed collections, figures F8/F9 and ``irstats comparability``."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
import scipy.stats

import irstats
from irstats import stats
from irstats.errors import InputError
from irstats.trec_eval.read import read_trec_eval
from irstats.meta.comparability import (compare_collections, discriminative_power_complete, drmse, halving_statistics,
                                        ideal_scores_from_qrels, metric_forms, metric_group, num_relevant,
                                        num_relevant_from_qrels, r_denormalize, r_normalize, halving_permutations,
                                        randomized_baseline, rmse, two_sample_t_rows, union_topics)
from irstats.plots.common import save
from irstats.plots.standardization import drmse_data, false_positive_data, plot_drmse, plot_false_positives
from irstats.scores import ScoreMatrix, write_scores
from tests.conftest import run_cli

MEASURES = ["SP", "AP", "NumRel", "DCG", "nDCG", "P@10", "DCG@10", "nDCG@10", "RBP(p=0.95,rel=1)"]


@pytest.fixture(scope="module")
def dl19_paths(reference_data):
    base = reference_data / "trec-dl-2019-passage"
    return base / "qrels.dl19-passage.txt", sorted((base / "runs").glob("*.run.gz"))


@pytest.fixture(scope="module")
def dl19(dl19_paths):
    qrels, runs = dl19_paths
    return irstats.evaluate(qrels, runs, MEASURES)


@pytest.fixture(scope="module")
def dl19_ideal(dl19_paths):
    """IDCG per topic from the qrels (an ideal run evaluated with irstats.evaluate)."""
    return ideal_scores_from_qrels(dl19_paths[0], "DCG")


@pytest.fixture(scope="module")
def robust04(reference_data):
    return read_trec_eval(reference_data / "confint-score-matrices" / "robust04")


def adhoc_split(matrix: ScoreMatrix) -> tuple[ScoreMatrix, ScoreMatrix]:
    """TREC 7 (351–400) and TREC 8 (401–450) topics of the pooled Robust04 matrix."""
    return (matrix.subset(None, [t for t in matrix.topics if int(t) <= 400]),
            matrix.subset(None, [t for t in matrix.topics if int(t) > 400]))


# --------------------------------------------------------------------------- dRMSE and t


def test_drmse_hand_example():
    c = np.array([0.1, 0.2, 0.3])
    d = np.array([0.2, 0.2, 0.5])
    # RMSE = √((0.01 + 0 + 0.04)/3); sd(c) = 0.1, sd(d) = √0.03 (ddof 1).
    expected_rmse = math.sqrt(0.05 / 3)
    assert rmse(c, d) == pytest.approx(expected_rmse, rel=1e-12)
    assert drmse(c, d) == pytest.approx(2 * expected_rmse / (0.1 + math.sqrt(0.03)), rel=1e-12)
    assert drmse(c, d) == pytest.approx(0.945074, abs=1e-6)
    # Score matrices: their system means, over the common systems, in either order.
    a = ScoreMatrix(np.array([[0.0, 0.2], [0.4, 0.0], [0.3, 0.3]]), ("x", "y", "z"), ("1", "2"), "AP")
    b = ScoreMatrix(np.array([[0.5], [0.2], [0.2], [9.0]]), ("z", "y", "x", "extra"), ("3",), "AP")
    with pytest.warns(UserWarning, match="only one"):
        assert drmse(a, b) == pytest.approx(drmse([0.1, 0.2, 0.3], [0.2, 0.2, 0.5]), rel=1e-12)


@pytest.mark.parametrize("equal_var", [False, True])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_two_sample_t_equals_scipy(equal_var, alternative):
    rng = np.random.default_rng(7)
    x = rng.beta(1, 3, size=(4, 6, 23))
    y = rng.beta(1.2, 3, size=(4, 6, 31))
    x[0, 0, :3] = np.nan
    y[1, 2, 5] = np.nan
    got = two_sample_t_rows(x, y, equal_var=equal_var, alternative=alternative)
    want = scipy.stats.ttest_ind(x, y, axis=-1, equal_var=equal_var, alternative=alternative, nan_policy="omit")
    np.testing.assert_allclose(got.statistic, np.asarray(want.statistic), rtol=1e-10)
    np.testing.assert_allclose(got.p_value, np.asarray(want.pvalue), rtol=1e-9, atol=1e-15)
    one = stats.two_sample_t(x[2, 3], y[2, 3], equal_var=equal_var, alternative=alternative)
    assert got.p_value[2, 3] == pytest.approx(one.p_value, rel=1e-10)
    assert got.df[2, 3] == pytest.approx(one.details["df"], rel=1e-10)


def test_two_sample_t_degenerate_cases():
    x = np.array([[0.0, 0.0, 0.0], [0.2, 0.2, 0.2], [0.1, 0.2, 0.3]])
    y = np.array([[0.0, 0.0], [0.1, 0.1], [0.4, np.nan]])
    res = two_sample_t_rows(x, y)
    assert res.p_value[0] == 1.0 and res.statistic[0] == 0.0  # both constant, same mean
    assert res.p_value[1] == 0.0 and res.statistic[1] == np.inf  # both constant, different
    assert np.isnan(res.p_value[2])  # one score left in y
    one = two_sample_t_rows(x, y, alternative="less")
    assert one.p_value[1] == 1.0


# --------------------------------------------------------------------------- randomised baseline


def plain_halving_loop(matrix: ScoreMatrix, perms: np.ndarray, alpha: float, equal_var: bool):
    """dRMSE (numpy) and FP rate (scipy.stats.ttest_ind per system) for each halving."""
    X = matrix.subset(sorted(matrix.systems), sorted(matrix.topics)).values
    half = X.shape[1] // 2
    d, fp = [], []
    for perm in perms:
        h1, h2 = X[:, perm[:half]], X[:, perm[half:]]
        m1, m2 = h1.mean(axis=1), h2.mean(axis=1)
        r = math.sqrt(np.mean((m1 - m2) ** 2))
        d.append(2 * r / (m1.std(ddof=1) + m2.std(ddof=1)))
        p = [scipy.stats.ttest_ind(h1[i], h2[i], equal_var=equal_var).pvalue for i in range(X.shape[0])]
        fp.append(np.mean(np.nan_to_num(p, nan=1.0) < alpha))
    return np.array(d), np.array(fp)


@pytest.mark.parametrize("equal_var", [False, True])
def test_baseline_equals_plain_loop(robust04, equal_var):
    ap = robust04["AP"]
    result = randomized_baseline(ap, n_partitions=4, n_fp_partitions=6, seed=9, equal_var=equal_var,
                                 discriminative=False)
    key = result.keys[0]
    perms = halving_permutations(len(ap.topics), 6, 9)
    d, fp = plain_halving_loop(ap, perms, 0.05, equal_var)
    np.testing.assert_allclose(result.drmse[key], d[:4], rtol=1e-12)
    np.testing.assert_allclose(result.fp_rate[key], fp, rtol=0, atol=1e-12)


def test_halvings_follow_the_common_rules():
    perms = halving_permutations(11, 3, 4)
    rng = np.random.Generator(np.random.PCG64(4))
    for row in perms:
        assert np.array_equal(row, rng.permutation(11))


def test_baseline_deterministic_and_batch_independent(robust04):
    forms = metric_forms(robust04["AP"], num_rel=robust04["NumRel"])
    a = randomized_baseline(forms, n_partitions=30, n_fp_partitions=50, seed=3, discriminative=False)
    b = randomized_baseline(forms, n_partitions=30, n_fp_partitions=50, seed=3, discriminative=False, batch_size=7)
    c = randomized_baseline(forms, n_partitions=30, n_fp_partitions=50, seed=4, discriminative=False)
    for key in a.keys:
        assert np.array_equal(a.drmse[key], b.drmse[key]) and np.array_equal(a.fp_rate[key], b.fp_rate[key])
        assert not np.array_equal(a.drmse[key], c.drmse[key])
        # The dRMSE partitions are the first false-positive partitions.
        d, _ = halving_statistics(forms[key[1]].subset(sorted(forms[key[1]].systems), sorted(forms[key[1]].topics))
                                  .values, halving_permutations(100, 50, 3))
        np.testing.assert_array_equal(a.drmse[key], d[:30])
    assert [k[1] for k in a.keys] == ["raw", "R-normalised", "standardized"]
    assert {k[0] for k in a.keys} == {"SP/AP"}


def test_robust04_randomised_baseline_ref_s(robust04):
    """METHODS §5.4 [REF-S], qualitatively, on the 83 available Robust04 runs over 351–450 (the paper
    used 110 runs and the TREC 7/8 systems' factors; here the factors come from the 83 runs)."""
    groups = {}
    for name in ("AP", "P@10"):
        forms = metric_forms(robust04[name], num_rel=robust04["NumRel"])
        groups[metric_group(name)] = forms
    result = randomized_baseline(groups, n_partitions=300, n_fp_partitions=600, seed=0, discriminative=False)
    frame = result.to_frame()
    row = {(r["group"], r["form"]): r for r in frame.iter_rows(named=True)}
    for r in row.values():
        assert 0.03 <= r["fp_mean"] <= 0.07  # the paper: 0.042–0.052 for every form
        assert r["drmse_q2.5"] <= r["drmse_mean"] <= r["drmse_q97.5"] <= r["drmse_q99"]
    for group in ("SP/AP", "P@10"):
        std = row[(group, "standardized")]
        for form in ("raw", "R-normalised"):
            assert std["fp_q97.5"] < 0.5 * row[(group, form)]["fp_q97.5"]  # ≈ 50% → just over 15%
            assert std["drmse_mean"] < row[(group, form)]["drmse_mean"]
    assert row[("SP/AP", "standardized")]["fp_q97.5"] < 0.25
    assert row[("SP/AP", "R-normalised")]["fp_q97.5"] > 0.35  # R-normalisation barely helps
    # Observed T7 vs T8 (AP) sits inside the randomised distribution, as in the paper (0.627 vs 0.60).
    t7, t8 = adhoc_split(robust04["AP"])
    observed = drmse(t7, t8)
    assert np.mean(result.drmse[("SP/AP", "R-normalised")] <= observed) < 0.99


@pytest.mark.parametrize("collection", ["robust05", "web2012"])
def test_other_collections_baseline(reference_data, collection):
    """Robust 2005 (74 runs) and Web 2012 (48 runs): the same qualitative picture."""
    scores = read_trec_eval(reference_data / "confint-score-matrices" / collection)
    forms = metric_forms(scores["AP"], num_rel=scores["NumRel"])
    frame = randomized_baseline(forms, n_partitions=200, n_fp_partitions=400, seed=1, discriminative=False).to_frame()
    row = {r["form"]: r for r in frame.iter_rows(named=True)}
    assert all(0.03 <= r["fp_mean"] <= 0.07 for r in row.values())
    assert row["standardized"]["fp_q97.5"] < min(row["raw"]["fp_q97.5"], row["R-normalised"]["fp_q97.5"])
    assert row["standardized"]["drmse_mean"] < min(row["raw"]["drmse_mean"], row["R-normalised"]["drmse_mean"])


def test_discriminative_power_reuses_stats(dl19, dl19_ideal):
    ndcg = dl19["nDCG"]
    assert discriminative_power_complete(ndcg) == pytest.approx(stats.discriminative_power(ndcg, "paired_t", 0.05))
    forms = metric_forms(dl19["DCG"], num_rel=dl19["NumRel"], ideal=dl19_ideal)
    res = randomized_baseline(forms, n_partitions=5, n_fp_partitions=5, seed=0)
    powers = {k[1]: v for k, v in res.discriminative_power.items()}
    assert powers["R-normalised"] == pytest.approx(discriminative_power_complete(dl19["nDCG"]), abs=1e-12)
    assert 0 < powers["standardized"] < 1


# --------------------------------------------------------------------------- R-normalisation


def test_r_normalisation_equals_evaluated_measures(dl19, dl19_paths, dl19_ideal):
    qrels, _ = dl19_paths
    r_from_qrels = num_relevant_from_qrels(qrels)
    r = num_relevant(dl19["NumRel"], dl19["AP"].topics)
    assert r.tolist() == [r_from_qrels[t] for t in dl19["AP"].topics]
    ideal = dl19_ideal
    ideal10 = ideal_scores_from_qrels(qrels, "DCG@10")

    ap = r_normalize(dl19["SP"], num_rel=dl19["NumRel"])
    assert ap.measure == "AP"
    np.testing.assert_allclose(ap.values, dl19["AP"].values, rtol=1e-12, atol=1e-15)
    nd = r_normalize(dl19["DCG"], ideal=ideal)
    assert nd.measure == "nDCG"
    np.testing.assert_allclose(nd.values, dl19["nDCG"].values, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r_normalize(dl19["DCG@10"], ideal=ideal10).values, dl19["nDCG@10"].values,
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r_denormalize(dl19["AP"], num_rel=r_from_qrels).values, dl19["SP"].values,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r_denormalize(dl19["nDCG"], ideal=ideal).values, dl19["DCG"].values, rtol=1e-12,
                               atol=1e-12)
    # P@10 ÷ min(R, 10)/10 and binary RBP ÷ (1 − p^min(R, 1000)), by hand.
    p10 = r_normalize(dl19["P@10"], num_rel=r)
    np.testing.assert_allclose(p10.values, dl19["P@10"].values / (np.minimum(r, 10) / 10), rtol=1e-12)
    assert p10.measure == "nP@10" and np.nanmax(p10.values) <= 1 + 1e-12
    rbp = r_normalize(dl19["RBP(p=0.95,rel=1)"], num_rel=r)
    np.testing.assert_allclose(rbp.values, dl19["RBP(p=0.95,rel=1)"].values / (1 - 0.95 ** np.minimum(r, 1000)),
                               rtol=1e-12)
    assert np.nanmax(rbp.values) <= 1 + 1e-12
    # Forms: raw, R-normalised, standardized; std(SP) = std(AP) (§4.6).
    forms = metric_forms(dl19["AP"], num_rel=r)
    assert {k: v.measure for k, v in forms.items()} == {"raw": "SP", "R-normalised": "AP", "standardized": "std(AP)"}
    std_sp = metric_forms(dl19["SP"], num_rel=r)["standardized"]
    np.testing.assert_allclose(std_sp.values, forms["standardized"].values, rtol=1e-12, atol=1e-14)
    assert metric_group("std(AP)") == "SP/AP" and metric_group("nDCG@10") == "DCG@10/nDCG@10"


def test_r_normalisation_errors_and_zero_ideal():
    m = ScoreMatrix(np.array([[2.0, 0.0], [1.0, 0.0]]), ("a", "b"), ("1", "2"), "SP")
    out = r_normalize(m, num_rel={"1": 4, "2": 0})
    assert out.values.tolist() == [[0.5, 0.0], [0.25, 0.0]]  # ideal 0 gives 0
    with pytest.raises(InputError, match="needs R"):
        r_normalize(m)
    with pytest.raises(InputError, match="no R for topic"):
        r_normalize(m, num_rel={"1": 4})
    with pytest.raises(InputError, match="already R-normalised"):
        r_normalize(ScoreMatrix(m.values, m.systems, m.topics, "AP"), num_rel=[1, 1])
    with pytest.raises(InputError, match="graded"):
        r_normalize(ScoreMatrix(m.values, m.systems, m.topics, "RBP(p=0.95)"), num_rel=[1, 1])
    bad = ScoreMatrix(np.array([[3.0, 1.0], [4.0, 1.0]]), ("a", "b"), ("1", "2"), "NumRel")
    with pytest.raises(InputError, match="constant per topic"):
        num_relevant(bad, ("1", "2"))


# --------------------------------------------------------------------------- observed collections


def test_compare_collections_counts_equal_scipy(robust04):
    ap = robust04["AP"]
    t7, t8 = adhoc_split(ap)
    comp = compare_collections({"T7": t7, "T8": t8})
    X7 = t7.subset(sorted(t7.systems)).values
    X8 = t8.subset(sorted(t8.systems)).values
    one = scipy.stats.ttest_ind(X8, X7, axis=1, equal_var=False, alternative="greater").pvalue
    two = scipy.stats.ttest_ind(X8, X7, axis=1, equal_var=False).pvalue
    assert comp.better[1, 0] == int((one < 0.025).sum())
    assert comp.fp_rate[1, 0] == pytest.approx((two < 0.05).mean())
    assert comp.drmse[0, 1] == pytest.approx(drmse(t7, t8)) and comp.drmse[0, 1] == comp.drmse[1, 0]
    assert comp.better[0, 0] == 0 and np.isnan(comp.drmse[0, 0])
    frame = comp.to_frame()
    assert frame.height == 2 and set(frame.columns) == {"row", "column", "drmse", "rmse", "better", "fp_rate"}
    assert comp.square("better").columns == ["collection", "T7", "T8"]
    # Three collections: every pair.
    thirds = {f"c{k}": ap.subset(None, ap.topics[k::3]) for k in range(3)}
    comp3 = compare_collections(thirds)
    assert comp3.drmse.shape == (3, 3) and comp3.to_frame().height == 6


def test_union_topics(robust04):
    t7, t8 = adhoc_split(robust04["AP"])
    union = union_topics(t7, t8.subset(t8.systems[:40]))
    assert len(union.systems) == 40 and len(union.topics) == 100
    with pytest.warns(UserWarning, match="both collections"):
        clash = union_topics(t7, t7, ("A", "B"))
    assert clash.topics[0] == "A:351" and clash.topics[50] == "B:351"


# --------------------------------------------------------------------------- figures and the CLI


def test_figures_f8_f9_render_and_write_csv(robust04, tmp_path):
    groups = {metric_group(n): metric_forms(robust04[n], num_rel=robust04["NumRel"]) for n in ("AP", "P@10")}
    result = randomized_baseline(groups, n_partitions=20, n_fp_partitions=20, seed=0, discriminative=False)
    ax = plot_drmse(result)
    assert len(ax.patches) == 6
    save(ax, tmp_path / "f8.png", drmse_data(result))
    f8 = pl.read_csv(tmp_path / "f8.csv")
    assert f8.columns == ["group", "form", "drmse", "low", "high"]
    assert f8["drmse"].to_list() == pytest.approx(result.to_frame()["drmse_mean"].to_list())
    ax = plot_false_positives(result.to_frame())
    assert any(line.get_linestyle() == "--" and line.get_ydata()[0] == 0.05 for line in ax.lines)
    save(ax, tmp_path / "f9.png", false_positive_data(result))
    f9 = pl.read_csv(tmp_path / "f9.csv")
    assert f9["fp_q97.5"].to_list() == pytest.approx(result.to_frame()["fp_q97.5"].to_list())
    assert (tmp_path / "f8.png").stat().st_size > 1000 and (tmp_path / "f9.png").exists()
    no_whiskers = drmse_data(result, whiskers=False)
    assert no_whiskers["low"].null_count() == no_whiskers.height



def test_cli_one_and_two_collections(robust04, reference_data, tmp_path, capsys):
    source = reference_data / "confint-score-matrices" / "robust04"
    code, out, err = run_cli(["comparability", source, "-m", "AP", "--partitions", "20", "--fp-partitions", "30",
                              "--format", "tsv", "--plot", tmp_path / "b.png"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t")
    api = randomized_baseline(metric_forms(robust04["AP"], num_rel=robust04["NumRel"]), 20, 30, 0).to_frame()
    assert frame["form"].to_list() == ["raw", "R-normalised", "standardized"]
    assert frame["drmse_mean"].to_list() == pytest.approx(api["drmse_mean"].to_list(), rel=1e-15)
    assert frame["fp_q97.5"].to_list() == pytest.approx(api["fp_q97.5"].to_list(), rel=1e-15)
    assert (tmp_path / "b.png").exists() and (tmp_path / "b.csv").exists() and (tmp_path / "b-fp.csv").exists()

    t7, t8 = adhoc_split(robust04["AP"])
    n7, n8 = adhoc_split(robust04["NumRel"])
    write_scores({"AP": t7, "NumRel": n7}, tmp_path / "t7.tsv")
    write_scores({"AP": t8, "NumRel": n8}, tmp_path / "t8.tsv")
    args = ["comparability", tmp_path / "t7.tsv", tmp_path / "t8.tsv", "-m", "AP", "--labels", "T7,T8",
            "--partitions", "20", "--fp-partitions", "20", "-q"]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert "Observed: T7 vs T8" in out and "T8>T7" in out
    code, out, err = run_cli([*args, "--format", "json"], capsys)
    data = json.loads(out)
    rows = {r["form"]: r for r in data["rows"]}
    assert rows["R-normalised"]["observed_drmse"] == pytest.approx(drmse(t7, t8), rel=1e-12)
    comp = compare_collections({"T7": t7, "T8": t8})
    assert rows["R-normalised"]["better_second"] == comp.better[1, 0]

    # Robust04 and Robust05 share no runs: one line, exit 2.
    other = reference_data / "confint-score-matrices" / "robust05"
    code, out, err = run_cli(["comparability", source, other, "-m", "AP", "--partitions", "5"], capsys)
    assert code == 2 and err.count("\n") == 1 and "share 0 system" in err
    code, out, err = run_cli(["comparability", source, "-m", "nosuch"], capsys)
    assert code == 2 and "nosuch" in err


def test_cli_with_qrels_and_runs(dl19_paths, capsys):
    qrels, runs = dl19_paths
    run_args = [a for r in runs[:12] for a in ("--runs", r)]
    code, out, err = run_cli(["comparability", "--qrels", qrels, *run_args, "-m", "DCG", "-m", "P@10",
                              "--partitions", "10", "--fp-partitions", "10", "-q"], capsys)
    assert code == 0, err
    assert "DCG/nDCG" in out and "nP@10" in out and "std(DCG)" in out


def test_cli_help(capsys):
    code, out, _ = run_cli(["comparability", "--help"], capsys)
    assert code == 0 and "Examples:" in out and "--partitions" in out
