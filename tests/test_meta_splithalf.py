"""Split-half self-consistency (METHODS.md §5.1) and its building blocks.

The vectorised code is checked against plain loops over ``scipy.stats.kendalltau`` and
:func:`irstats.aggregate.aggregate`, on the same splits, on real score matrices (Robust04
trec_eval output, TREC DL 2019 runs) and on synthetic ones.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from numpy.random import PCG64, Generator
from scipy import stats as sps

import irstats
from irstats.aggregate import aggregate
from irstats.errors import InputError
from irstats.trec_eval.read import read_trec_eval
from irstats.meta.correlation import TieWarning, kendall_tau_b, pearson, snap_ties, tau_ap
from irstats.meta.splitagg import REASON_CODES, SplitAggregator
from irstats.meta.splithalf import (SWEEP_EPSILONS, difficulty_splits, epsilon_sweep, low_score_share,
                                    parse_methods, split_half)
from irstats.meta.splits import random_halvings, random_subsets
from irstats.scores import ScoreMatrix, write_scores
from irstats.standardize import apply_factors, fit_factors
from tests.conftest import run_cli

RTOL = 1e-12


# --- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def robust04(reference_data: Path) -> dict[str, ScoreMatrix]:
    return read_trec_eval(reference_data / "confint-score-matrices" / "robust04")


@pytest.fixture(scope="module")
def dl19(reference_data: Path) -> dict[str, ScoreMatrix]:
    folder = reference_data / "trec-dl-2019-passage"
    return irstats.evaluate(folder / "qrels.dl19-passage.txt", sorted((folder / "runs").glob("*.run.gz")),
                            ["AP", "P@10"])


def synthetic(s: int = 30, t: int = 24, seed: int = 1, zeros: float = 0.15) -> ScoreMatrix:
    rng = np.random.default_rng(seed)
    values = rng.beta(0.6, 2.0, (s, t)) * rng.uniform(0.5, 1.0, (s, 1))
    values[rng.random((s, t)) < zeros] = 0.0
    values[1] = values[0]  # a duplicated run: always tied
    return ScoreMatrix(np.round(values, 3), tuple(f"s{i:02d}" for i in range(s)),
                       tuple(str(300 + j) for j in range(t)), "AP")


# --- plain-loop references ------------------------------------------------------------------------


def loop_split_half(matrix: ScoreMatrix, method: str, epsilon, splits, correlation: str = "kendall",
                    omit: bool = False) -> np.ndarray:
    """Per split: aggregate() on each half, then scipy (τ-b on tie-snapped aggregates, or r)."""
    out = np.empty(len(splits))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for b in range(len(splits)):
            h1, h2 = np.sort(splits.first[b]), np.sort(splits.second[b])
            a1 = aggregate(matrix.values[:, h1], method, epsilon).values
            a2 = aggregate(matrix.values[:, h2], method, epsilon).values
            if omit:
                keep = ~(np.isnan(a1) | np.isnan(a2))
                a1, a2 = a1[keep], a2[keep]
            if correlation == "pearson":
                out[b] = sps.pearsonr(a1, a2).statistic if np.ptp(a1) > 0 and np.ptp(a2) > 0 else np.nan
            else:
                out[b] = sps.kendalltau(snap_ties(a1, RTOL), snap_ties(a2, RTOL)).statistic
    return out


def tau_ap_direct(x: np.ndarray, y: np.ndarray) -> float:
    """τ_AP(X→Y) straight from its definition (Yilmaz, Aslam & Robertson), ties by index."""
    s = len(x)
    order_x = sorted(range(s), key=lambda i: (-x[i], i))
    rank_y = {item: r for r, item in enumerate(sorted(range(s), key=lambda i: (-y[i], i)))}
    total = 0.0
    for pos in range(1, s):
        item = order_x[pos]
        c = sum(1 for j in order_x[:pos] if rank_y[j] < rank_y[item])
        total += c / pos
    return 2.0 / (s - 1) * total - 1.0


# --- correlations ---------------------------------------------------------------------------------


@pytest.mark.parametrize("s", [2, 3, 7, 40, 64, 65, 100, 150])
def test_tau_b_equals_scipy_with_ties(s):
    rng = np.random.default_rng(s)
    x = rng.integers(0, max(2, s // 3), (150, s)).astype(float)  # many ties
    y = rng.integers(0, 5, (150, s)).astype(float)
    x[1] = 3.0  # entirely tied: NaN
    y[2] = -x[2] + 0.5 * (np.arange(s) % 2)  # strongly discordant
    got = kendall_tau_b(x, y)
    ref = np.array([sps.kendalltau(a, b).statistic for a, b in zip(x, y)])
    np.testing.assert_array_equal(got, ref)  # bit for bit
    perm = rng.permuted(np.tile(np.arange(s, dtype=float), (50, 1)), axis=1)  # orderings without ties
    got = kendall_tau_b(perm, perm[::-1])
    np.testing.assert_array_equal(got, [sps.kendalltau(a, b).statistic for a, b in zip(perm, perm[::-1])])


def test_tau_b_nan_policies_and_broadcasting():
    rng = np.random.default_rng(5)
    x = rng.random((60, 25)).round(1)
    y = rng.random((60, 25)).round(1)
    x[rng.random(x.shape) < 0.1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = np.array([sps.kendalltau(a, b, nan_policy="omit").statistic for a, b in zip(x, y)])
    np.testing.assert_array_equal(kendall_tau_b(x, y, nan_policy="omit"), ref)
    prop = kendall_tau_b(x, y)
    assert np.isnan(prop[np.isnan(x).any(axis=1)]).all()
    # leading axes broadcast; a 1-D pair gives a 0-d result
    z = kendall_tau_b(x[:3, None, :], y[None, :4, :])
    assert z.shape == (3, 4)
    assert float(kendall_tau_b([1, 2, 3], [3, 1, 2])) == pytest.approx(sps.kendalltau([1, 2, 3], [3, 1, 2]).statistic)
    with pytest.raises(InputError):
        kendall_tau_b(x, y, nan_policy="drop")


def test_tie_rtol_equals_snapping():
    # Means of P@10-like values summed in different orders differ in the last bits.
    a = np.array([0.1 + 0.2 + 0.3, 0.3 + 0.2 + 0.1, 0.2, 0.65, 0.7])
    assert a[0] != a[1]
    b = np.array([1.0, 1.0, 0.0, 2.0, 3.0])
    assert kendall_tau_b(a, b, tie_rtol=1e-12) == pytest.approx(1.0)
    assert kendall_tau_b(a, b) < 1.0  # without the tolerance the rounding breaks the tie
    rng = np.random.default_rng(3)
    x = rng.integers(0, 6, (80, 30)) / 10
    x = x + rng.choice([0.0, 1e-15, -2e-16], x.shape)
    y = rng.random((80, 30))
    got = kendall_tau_b(x, y, tie_rtol=1e-12)
    ref = [sps.kendalltau(snap_ties(u, 1e-12), v).statistic for u, v in zip(x, y)]
    np.testing.assert_array_equal(got, ref)


def test_tau_ap_matches_definition():
    rng = np.random.default_rng(11)
    for s in (2, 5, 17):
        x, y = rng.random(s), rng.random(s)
        assert tau_ap(x, y, symmetric=False) == pytest.approx(tau_ap_direct(x, y), abs=1e-12)
        assert tau_ap(x, y) == pytest.approx((tau_ap_direct(x, y) + tau_ap_direct(y, x)) / 2, abs=1e-12)
    x = np.arange(8.0)
    assert tau_ap(x, x) == pytest.approx(1.0) and tau_ap(x, -x) == pytest.approx(-1.0)
    batch_x, batch_y = rng.random((6, 9)), rng.random((6, 9))
    np.testing.assert_allclose(tau_ap(batch_x, batch_y, symmetric=False),
                               [tau_ap_direct(a, b) for a, b in zip(batch_x, batch_y)], atol=1e-12)
    with pytest.warns(TieWarning):
        tied = tau_ap(np.array([1.0, 1.0, 0.5]), np.array([0.2, 0.1, 0.0]), symmetric=False)
    assert tied == pytest.approx(tau_ap_direct([1.0, 1.0, 0.5], [0.2, 0.1, 0.0]))


def test_pearson_equals_scipy():
    rng = np.random.default_rng(2)
    x, y = rng.random((20, 15)), rng.random((20, 15))
    np.testing.assert_allclose(pearson(x, y), [sps.pearsonr(a, b).statistic for a, b in zip(x, y)], atol=1e-14)
    x[0] = 0.5
    assert np.isnan(pearson(x, y)[0])
    x[1, 3] = np.nan
    keep = ~np.isnan(x[1])
    assert pearson(x, y, nan_policy="omit")[1] == pytest.approx(sps.pearsonr(x[1, keep], y[1, keep]).statistic)


# --- splits ---------------------------------------------------------------------------------------


def test_halvings_follow_the_rule():
    topics = [str(t) for t in range(450, 400, -1)]  # reversed: sorted bytewise first
    h = random_halvings(topics, n_splits=5, seed=3)
    rng = Generator(PCG64(3))
    assert h.topics == tuple(sorted(topics))
    for b in range(5):
        perm = rng.permutation(50)
        np.testing.assert_array_equal(h.first[b], perm[:25])
        np.testing.assert_array_equal(h.second[b], perm[25:])
    odd = random_halvings(7, n_splits=2, seed=0)
    assert odd.sizes == (3, 4)  # odd t: H1 is the smaller half
    again = random_halvings(list(reversed(topics)), n_splits=5, seed=3)
    np.testing.assert_array_equal(again.first, h.first)
    subsets = random_subsets(topics, [5, 25], n_splits=4, seed=3)
    rng = Generator(PCG64(3))
    for b in range(4):
        perm = rng.permutation(50)
        np.testing.assert_array_equal(subsets[5].first[b], perm[:5])
        np.testing.assert_array_equal(subsets[5].second[b], perm[5:10])
    assert subsets[25].complementary and not subsets[5].complementary
    with pytest.raises(InputError, match="2·26"):
        random_subsets(topics, [26], n_splits=2)


def test_difficulty_splits_positions_t50():
    t = 50
    topics = tuple(f"t{j:02d}" for j in range(t))
    # AP so that D_t (Eq. 2) strictly decreases with j: t00 hardest, t49 easiest.
    rng = np.random.default_rng(0)
    base = rng.random((12, 1))
    values = np.hstack([np.where(np.arange(12)[:, None] == 0, 0.2 + 0.001 * j, 0.2 * base + 0.3 * j / t)
                        for j in range(t)])
    matrix = ScoreMatrix(values, tuple(f"s{i}" for i in range(12)), topics, "AP")
    from irstats.difficulty import topic_difficulty
    ranked = topic_difficulty(matrix).ranked()
    splits = difficulty_splits(matrix)
    hard, easy = splits["hard_easy"].topic_sets(0)
    middle, rest = splits["middle_rest"].topic_sets(0)
    assert hard == ranked[:25] and easy == ranked[25:]
    assert middle == ranked[12:37]  # 1-based positions 13–37
    assert sorted(rest) == sorted(ranked[:12] + ranked[37:])  # the 12 hardest and the 13 easiest
    assert len(middle) == 25 and len(rest) == 25
    three = difficulty_splits(matrix.subset(topics=topics[:7]))  # t = 7: h = ⌊(7 − 3)/2⌋ = 2
    r7 = topic_difficulty(matrix.subset(topics=topics[:7])).ranked()
    assert three["middle_rest"].topic_sets(0)[0] == r7[2:5]


# --- the split aggregator -------------------------------------------------------------------------


@pytest.mark.parametrize("t", [9, 30, 57])
def test_split_aggregator_equals_aggregate(t):
    m = synthetic(s=12, t=t, seed=t)
    x = m.values.copy()
    x[3, 2] = np.nan
    rng = np.random.default_rng(t)
    masks = rng.random((15, t)) < 0.5
    for data, skipna in ((m.values, False), (x, False), (x, True)):
        for method in ("am", "gm", "egm", "gm_trec_eval", "hm", "ehm", "median", "al", "logit"):
            agg = SplitAggregator(data, method, skipna=skipna)
            v1, c1, v2, c2 = agg.pair(masks, ~masks, complementary=True)
            for b in range(len(masks)):
                for values, codes, cols in ((v1, c1, masks[b]), (v2, c2, ~masks[b])):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        ref = aggregate(data[:, cols], method, skipna=skipna)
                    np.testing.assert_array_equal(np.isnan(values[b]), np.isnan(ref.values))
                    if method == "median":
                        np.testing.assert_array_equal(values[b], ref.values)
                    else:
                        np.testing.assert_allclose(values[b], ref.values, rtol=1e-13, atol=1e-300)
                    reasons = [REASON_CODES.get(int(c)) for c in codes[b]]
                    assert reasons == [None if r == "gm_zero" else r for r in ref.reasons]


# --- split-half -----------------------------------------------------------------------------------


METHODS4 = ["am", "egm", "gm_trec_eval", "median"]


def test_split_half_equals_plain_loop_robust04(robust04):
    matrices = {k: robust04[k] for k in ("AP", "P@10")}
    result = split_half(matrices, METHODS4 + ["ehm:0.1"], n_splits=25, seed=4)
    for measure in matrices:
        splits = result.splits[measure]
        for method, eps in parse_methods(METHODS4 + ["ehm:0.1"]):
            ref = loop_split_half(matrices[measure], method, eps, splits)
            np.testing.assert_allclose(result[(measure, method)], ref, rtol=0, atol=1e-12)
    assert result.splits["AP"] is result.splits["P@10"]  # one set of halvings for all


def test_split_half_equals_plain_loop_dl19(dl19):
    result = split_half(dl19, ["am", "gm_trec_eval", "median"], n_splits=20, seed=9, correlation="kendall")
    for measure, matrix in dl19.items():
        for method in ("am", "gm_trec_eval", "median"):
            ref = loop_split_half(matrix, method, None, result.splits[measure])
            np.testing.assert_allclose(result[(measure, method)], ref, rtol=0, atol=1e-12)
    r = split_half(dl19["AP"], ["am", "egm"], n_splits=20, seed=9, correlation="pearson")
    for method in ("am", "egm"):
        ref = loop_split_half(dl19["AP"], method, None, r.splits["AP"], correlation="pearson")
        np.testing.assert_allclose(r[("AP", method)], ref, rtol=0, atol=1e-12)


def test_same_seed_and_batch_size_give_identical_results(robust04):
    ap = robust04["AP"]
    a = split_half(ap, METHODS4, n_splits=60, seed=12)
    b = split_half(ap, METHODS4, n_splits=60, seed=12, batch_size=7)
    c = split_half(ap, METHODS4, n_splits=60, seed=12, batch_size=60)
    for other in (b, c):
        np.testing.assert_array_equal(a.values, other.values)
        for name in a.fixed:
            np.testing.assert_array_equal(a.fixed[name], other.fixed[name])
    d = split_half(ap, METHODS4, n_splits=60, seed=13)
    assert not np.array_equal(a.values, d.values)
    # the order systems and topics come in does not matter (they are sorted bytewise)
    shuffled = ap.subset(systems=list(reversed(ap.systems)), topics=list(reversed(ap.topics)))
    np.testing.assert_array_equal(split_half(shuffled, METHODS4, n_splits=60, seed=12).values, a.values)


def test_summary_quantiles_and_paired_comparison(robust04):
    result = split_half(robust04["AP"], ["am", "egm"], n_splits=40, seed=1)
    frame = result.summary()
    assert frame.columns[:5] == ["measure", "method", "n", "mean", "sd"]
    assert {"q05", "q25", "q50", "q75", "q95", "epsilon", "hard_easy", "middle_rest", "pct_zero",
            "pct_low"} <= set(frame.columns)
    am = result["am"]
    row = frame.row(0, named=True)
    assert row["n"] == 40 and row["mean"] == pytest.approx(am.mean()) and row["sd"] == pytest.approx(am.std(ddof=1))
    assert row["q25"] == pytest.approx(np.quantile(am, 0.25))
    comp = result.compare("egm", "am")
    delta = result["egm"] - am
    assert comp.mean_delta == pytest.approx(delta.mean()) and comp.share_positive == pytest.approx((delta > 0).mean())
    ref = sps.ttest_rel(result["egm"], am)
    assert comp.t == pytest.approx(ref.statistic) and comp.p == pytest.approx(ref.pvalue)
    assert result.comparisons().height == 1


def test_fixed_splits_and_low_shares(robust04):
    ap = robust04["AP"]
    result = split_half(ap, ["am", "egm"], n_splits=5, seed=0)
    splits = difficulty_splits(ap)
    for name, split in splits.items():
        for k, method in enumerate(["am", "egm"]):
            ref = loop_split_half(ap, method, None, split)
            assert result.fixed[name][k] == pytest.approx(ref[0], abs=1e-12)
    share = result.low["AP"]
    x = ap.values
    assert share.pct_zero == pytest.approx(100 * (x == 0).mean()) and share.pct_low == pytest.approx(100 * (x < 0.1).mean())
    p10 = robust04["P@10"]
    strict, inclusive = low_score_share(p10), low_score_share(p10, low_inclusive=True)
    assert strict.pct_low == pytest.approx(strict.pct_zero)  # P@10 = 0.1 is not "below 0.1"
    assert inclusive.pct_low == pytest.approx(100 * (p10.values <= 0.1).mean())
    assert inclusive.pct_low > strict.pct_low
    none = split_half(p10, ["am"], n_splits=3, difficulty=None)
    assert none.fixed == {} and "hard_easy" not in none.summary().columns


def test_undefined_aggregates_raise_or_are_omitted():
    m = synthetic(s=15, t=12, seed=3, zeros=0.3)
    with pytest.raises(InputError, match="hm_zero.*nan-policy omit"):
        split_half(m, ["hm"], n_splits=10)
    result = split_half(m, ["hm"], n_splits=10, nan_policy="omit", difficulty=None)
    assert result.omitted[0] > 0
    ref = loop_split_half(m, "hm", None, result.splits["AP"], omit=True)
    np.testing.assert_allclose(result["hm"], ref, rtol=0, atol=1e-12, equal_nan=True)
    x = m.values.copy()
    x[2, 3] = np.nan
    missing = ScoreMatrix(x, m.systems, m.topics, "AP")
    with pytest.raises(InputError, match="nan_input.*skipna"):
        split_half(missing, ["am"], n_splits=5, difficulty=None)
    skipped = split_half(missing, ["am"], n_splits=5, skipna=True, difficulty=None)
    assert np.isfinite(skipped["am"]).all()


def test_epsilon_sweep_tends_to_am(robust04):
    sweep = epsilon_sweep(robust04["AP"], n_splits=15, seed=2)
    assert len(sweep.variants) == 2 * len(SWEEP_EPSILONS) + 1
    assert SWEEP_EPSILONS[0] == 1e-5 and SWEEP_EPSILONS[-1] == 1e3 and SWEEP_EPSILONS[1] == pytest.approx(10 ** -4.5)
    am = sweep["am"].mean()
    for method in ("egm", "ehm"):
        assert sweep[("AP", method, 1e3)].mean() == pytest.approx(am, abs=0.01)


def test_standardized_scores_are_scores_like_any_other(robust04):
    ap = robust04["AP"]
    std = apply_factors(ap, fit_factors(ap))
    result = split_half({"AP": ap, std.measure: std}, ["am"], n_splits=10, seed=0)
    assert result.measures == ("AP", std.measure) and result.low[std.measure].pct_zero == 0.0
    assert result.splits["AP"] is result.splits[std.measure]
    assert np.isfinite(result.fixed["hard_easy"]).all()  # D_t from AP, reused for std(AP)


# --- command line ---------------------------------------------------------------------------------



def test_cli_contract_tsv(tmp_path, robust04, capsys):
    ap = robust04["AP"]
    std = apply_factors(ap, fit_factors(ap))
    raw_file, std_file = tmp_path / "ap.tsv", tmp_path / "std.tsv"
    write_scores({"AP": ap}, raw_file)
    write_scores({std.measure: std}, std_file)
    args = ["splithalf", raw_file, "-m", "AP", "--method", "am", "--method", "egm", "--method", "gm_trec_eval",
            "--epsilon", "0.01", "-n", "30", "--seed", "5", "--format", "tsv"]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t", null_values=["nan"])
    assert frame.columns[:5] == ["measure", "method", "n", "mean", "sd"]
    assert frame.get_column("method").to_list() == ["am", "egm", "gm_trec_eval"]
    assert frame.get_column("measure").to_list() == ["AP"] * 3
    api = split_half(ap, ["am", "egm", "gm_trec_eval"], epsilon=0.01, n_splits=30, seed=5)
    np.testing.assert_allclose(frame.get_column("mean").to_numpy(), api.mean(), rtol=1e-15)
    code, out, err = run_cli(["splithalf", std_file, "--method", "am", "-n", "30", "--format", "tsv"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t", null_values=["nan"])
    assert frame.get_column("measure").to_list() == ["std(AP)"] and frame.get_column("n").to_list() == [30]
    code, out, err = run_cli(["splithalf", raw_file, "--method", "hm", "-n", "5"], capsys)
    assert code == 2 and "irstats: error:" in err and "Traceback" not in err


def test_cli_sweep_paired_and_plot(tmp_path, robust04, capsys):
    raw_file = tmp_path / "scores.tsv"
    write_scores({"AP": robust04["AP"]}, raw_file)
    code, out, err = run_cli(["splithalf", raw_file, "--epsilon-sweep", "-n", "8", "--format", "csv",
                              "--plot", tmp_path / "sweep.png", "-q"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), null_values=["nan"])
    assert frame.height == 2 * len(SWEEP_EPSILONS) + 1
    assert (tmp_path / "sweep.png").stat().st_size > 0 and (tmp_path / "sweep.csv").exists()
    code, out, err = run_cli(["splithalf", raw_file, "--method", "am", "--method", "egm", "--paired", "-n", "8",
                              "--format", "json"], capsys)
    assert code == 0, err
    paired = pl.read_json(out.encode())
    assert {"mean_delta", "share_positive", "t", "p"} <= set(paired.columns)
    assert paired.get_column("epsilon_a").to_list() == [None]  # NaN is written as null
    code, out, err = run_cli(["splithalf", raw_file, "-n", "8", "--plot", tmp_path / "density.svg"], capsys)
    assert code == 0 and "hard/easy" in out and (tmp_path / "density.csv").exists()


# --- figures --------------------------------------------------------------------------------------


def test_figures_render_with_their_data(tmp_path, robust04):
    from irstats.plots import save
    from irstats.plots import meta as figs

    ap = robust04["AP"]
    std = apply_factors(ap, fit_factors(ap))
    result = split_half({"AP": ap, std.measure: std}, ["am", "egm", "gm_trec_eval"], n_splits=30, seed=0)
    sweep = epsilon_sweep(ap, n_splits=6)
    p10 = split_half(robust04["P@10"], ["am", "egm"], n_splits=10)
    drawings = {
        "f1": figs.plot_tau_density(result),
        "f2": figs.plot_epsilon_sweep(sweep),
        "f3": figs.plot_score_density({"AP": ap, "std(AP)": std}),
        "f4": figs.plot_delta_low({"robust04": result, "robust04-p10": p10}),
        "f10": figs.plot_score_heatmap(ap.subset(systems=ap.systems[:20])),
        "f11": figs.plot_system_means(ap),
    }
    for name, ax in drawings.items():
        path = save(ax, tmp_path / f"{name}.png", figs.figure_data(ax))
        assert path.stat().st_size > 1000
        data = pl.read_csv(tmp_path / f"{name}.csv")
        assert data.height > 0, name
    f1 = pl.read_csv(tmp_path / "f1.csv")
    assert f1.get_column("variant").n_unique() == 6
    f4 = figs.delta_low_data({"robust04": result, "robust04-p10": p10})
    assert f4.height == 3 and set(f4.get_column("measure")) == {"AP", std.measure, "P@10"}
    f11 = figs.system_means_data(ap)
    assert f11.get_column("mean").is_sorted(descending=True)
    from irstats.stats import t_interval
    low, high = t_interval(ap.system(f11.get_column("system")[0]))
    assert f11.row(0, named=True)["low"] == pytest.approx(low) and f11.row(0, named=True)["high"] == pytest.approx(high)


def test_paired_comparison_of_a_constant_difference_follows_the_degenerate_rule():
    """METHODS §5.6: s_d = 0 gives t = ±∞, p = 0, or t = 0, p = 1 when the mean Δ is 0 —
    not (nan, nan); otherwise the test equals scipy's one-sample t-test."""
    from scipy import stats as sps

    from irstats.meta._common import significance_t

    assert significance_t(np.full(50, 0.02)) == (np.inf, 0.0)
    assert significance_t(np.full(50, -0.02)) == (-np.inf, 0.0)
    assert significance_t(np.zeros(50)) == (0.0, 1.0)
    assert all(np.isnan(significance_t(np.array([0.3]))))
    delta = np.random.default_rng(3).normal(0.01, 0.05, 200)
    expected = sps.ttest_1samp(delta, 0.0)
    t, p = significance_t(delta)
    assert t == pytest.approx(expected.statistic, rel=1e-12) and p == pytest.approx(expected.pvalue, rel=1e-9)


def test_tau_density_equals_scipy_gaussian_kde():
    """F1's density is scipy's Gaussian KDE with Scott's bandwidth (computed without scipy.stats)."""
    from scipy.stats import gaussian_kde

    from irstats.plots.meta import _kde

    rng = np.random.default_rng(2)
    for n in (2, 40, 2000):
        values = rng.normal(0.6, 0.1, n)
        grid = np.linspace(0.0, 1.0, 256)
        expected = gaussian_kde(values, bw_method="scott")(grid)
        np.testing.assert_allclose(_kde(values, grid), expected, rtol=1e-10, atol=1e-14 * expected.max())


def test_shared_epsilon_leaves_gm_trec_eval_floor_alone():
    """Issue 16's trap: --epsilon 0.01 sets εGM's ε only; GM_trec_eval keeps trec_eval's 1e-5
    floor (seed 000's Table 3), so the shared ε equals giving egm its own ε."""
    from irstats.meta.splithalf import parse_methods

    assert parse_methods(["am", "egm", "gm_trec_eval"], epsilon=0.01) == \
        parse_methods(["am", "egm:0.01", "gm_trec_eval"])
    assert dict(parse_methods(["gm_trec_eval"], epsilon=0.01))["gm_trec_eval"] == 1e-5
    assert dict(parse_methods(["gm_trec_eval:0.001"]))["gm_trec_eval"] == 0.001
    rng = np.random.default_rng(4)
    matrix = ScoreMatrix(rng.beta(1, 3, (10, 20)), tuple(f"s{i}" for i in range(10)),
                         tuple(str(t) for t in range(20)), "AP")
    shared = split_half(matrix, ["am", "egm", "gm_trec_eval"], epsilon=0.01, n_splits=50, seed=1)
    own = split_half(matrix, ["am", "egm:0.01", "gm_trec_eval"], n_splits=50, seed=1)
    np.testing.assert_array_equal(shared.values, own.values)


def test_bounded_densities_reflect_and_integrate_to_one():
    """Issue 16: densities stay inside the measure's range (reflection at the bounds)."""
    from scipy.stats import gaussian_kde

    from irstats.plots.meta import _kde, score_density_data
    from irstats.scores import ScoreMatrix

    rng = np.random.default_rng(4)
    values = np.clip(rng.beta(0.6, 3.0, 500), 0, 1)  # piles up near 0, as AP does
    grid = np.linspace(0.0, 1.0, 4001)
    kde = gaussian_kde(values, bw_method="scott")
    expected = kde(grid) + kde(-grid) + kde(2.0 - grid)
    got = _kde(values, grid, 0.0, 1.0)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-14 * expected.max())
    assert np.trapezoid(got, grid) == pytest.approx(1.0, abs=1e-3)
    # an unbounded KDE of the same values loses mass below 0: what the figures used to show
    assert np.trapezoid(kde(grid), grid) < 0.95
    matrix = ScoreMatrix(values.reshape(20, 25), [f"s{i}" for i in range(20)], [f"t{j}" for j in range(25)], "AP")
    data = score_density_data(matrix)
    assert data["score"].min() >= 0.0 and data["score"].max() <= 1.0
    assert np.trapezoid(data["density"].to_numpy(), data["score"].to_numpy()) == pytest.approx(1.0, abs=0.02)
