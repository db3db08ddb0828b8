"""Volatility statistics (irstats.depth.volatility; METHODS.md §5.5 items 1–7), the F12–F14
figures and the ``irstats volatility`` command.

Every statistic is checked against a plain-loop implementation (scipy.stats.kendalltau,
scipy.stats.ttest_rel, loops over pairs and depths) on small inputs with ties.
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from irstats.demo import make_demo_collection
from irstats.depth import (
    UNJUDGED_FORMS,
    crossings,
    direction_changes,
    discrimination_ratio,
    overturn_rates,
    pairwise_p_values,
    simulate_pool,
    swaps,
    sweep,
    tau_consecutive,
    tau_reference,
    total_variation,
    volatility,
)
from irstats.depth.volatility import SUMMARY_COLUMNS, decreases
from irstats.plots import save
from irstats.plots.volatility import (
    ap_variants,
    highlighted,
    plot_data,
    trajectories,
    trajectory_grid,
    volatility_summary,
)
from irstats.stats import pairwise
from irstats.scores import ScoreMatrix
from tests.conftest import DL19_RUNS, run_cli

TOL = 1e-12


def small_means(seed: int, systems: int = 7, depths: int = 9) -> np.ndarray:
    """Scores on a coarse lattice so that ties (and equal consecutive values) happen."""
    rng = np.random.default_rng(seed)
    means = np.round(rng.uniform(0, 1, size=(systems, depths)) * 6) / 6
    means[1] = means[0]  # two systems tied at every depth
    means[2, 3:5] = means[2, 2]  # flat stretch
    return means


def sign(x: float) -> int:
    return 0 if abs(x) <= TOL else (1 if x > 0 else -1)


@pytest.mark.parametrize("seed", range(4))
def test_orderings_equal_plain_loops(seed):
    S = small_means(seed)
    n_sys, n_dep = S.shape
    ref = [sps.kendalltau(S[:, d], S[:, -1]).statistic for d in range(n_dep)]
    np.testing.assert_allclose(tau_reference(S), ref, rtol=0, atol=1e-12, equal_nan=True)
    cons = [sps.kendalltau(S[:, d], S[:, d + 1]).statistic for d in range(n_dep - 1)]
    np.testing.assert_allclose(tau_consecutive(S), cons, rtol=0, atol=1e-12, equal_nan=True)

    swapped, ordered = swaps(S)
    pairs = list(itertools.combinations(range(n_sys), 2))
    for d in range(n_dep - 1):
        both = [(a, b) for a, b in pairs if sign(S[a, d] - S[b, d]) and sign(S[a, d + 1] - S[b, d + 1])]
        rev = [(a, b) for a, b in both if sign(S[a, d] - S[b, d]) != sign(S[a, d + 1] - S[b, d + 1])]
        assert ordered[d] == len(both) and swapped[d] == len(rev)

    cross = crossings(S)
    for p, (a, b) in enumerate(pairs):
        seq = [sign(S[a, d] - S[b, d]) for d in range(n_dep)]
        nonzero = [s for s in seq if s]
        assert cross[p] == sum(1 for x, y in zip(nonzero, nonzero[1:]) if x != y)

    tv, turns, falls = total_variation(S), direction_changes(S), decreases(S)
    for s in range(n_sys):
        steps = [S[s, d + 1] - S[s, d] for d in range(n_dep - 1)]
        assert tv[s] == pytest.approx(sum(abs(x) for x in steps), abs=1e-12)
        dirs = [sign(x) for x in steps if sign(x)]
        assert turns[s] == sum(1 for x, y in zip(dirs, dirs[1:]) if x != y)
        assert falls[s] == sum(1 for x in steps if x < -TOL)


def test_p_values_equal_scipy_and_pairwise():
    rng = np.random.default_rng(11)
    X = rng.uniform(0, 1, size=(5, 12, 6))
    X[:, :, 4] = X[:, :, 3]  # a repeated depth (tested once, copied)
    X[3, 2, :] = np.nan  # a missing topic
    X[4] = X[0]  # identical systems: p = 1 by convention
    p, delta = pairwise_p_values(X)
    pairs = list(itertools.combinations(range(5), 2))
    for d in range(X.shape[2]):
        for k, (a, b) in enumerate(pairs):
            ok = ~np.isnan(X[a, :, d]) & ~np.isnan(X[b, :, d])
            if (a, b) == (0, 4):
                assert p[d, k] == 1.0 and delta[d, k] == 0.0
                continue
            res = sps.ttest_rel(X[a, ok, d], X[b, ok, d])
            assert p[d, k] == pytest.approx(res.pvalue, abs=1e-10)
            assert delta[d, k] == pytest.approx(np.mean(X[a, ok, d] - X[b, ok, d]), abs=1e-14)
    # any other test: the same p-values as irstats.stats.pairwise depth by depth
    p_sign, _ = pairwise_p_values(X, "sign")
    for d in range(X.shape[2]):
        with pytest.warns(Warning):
            expected = pairwise(ScoreMatrix(X[:, :, d], tuple("abcde"), tuple(f"t{i:02d}" for i in range(12)), "x"),
                                "sign").p_value
        np.testing.assert_allclose(p_sign[d], [expected[a, b] for a, b in pairs], rtol=0, atol=1e-12)


def test_discrimination_and_overturn_equal_loops():
    rng = np.random.default_rng(2)
    p = rng.choice([0.001, 0.03, 0.2, 0.7, np.nan], size=(6, 10))
    delta = rng.choice([-1.0, 1.0, 0.5, -0.2], size=(6, 10))
    disc = discrimination_ratio(p, 0.05)
    strong, weak, count = overturn_rates(p, delta, 0.05)
    for d in range(6):
        sig = [k for k in range(10) if p[d, k] < 0.05]
        assert disc[d] == pytest.approx(len(sig) / 10)
        assert count[d] == len(sig)
        if not sig:
            assert np.isnan(strong[d]) and np.isnan(weak[d])
            continue
        s = sum(1 for k in sig if p[-1, k] < 0.05 and np.sign(delta[d, k]) != np.sign(delta[-1, k]))
        w = sum(1 for k in sig if not p[-1, k] < 0.05)
        assert strong[d] == pytest.approx(s / len(sig)) and weak[d] == pytest.approx(w / len(sig))
    assert weak[-1] == 0.0 and strong[-1] == 0.0  # nothing overturns itself


@pytest.fixture(scope="module")
def demo_sweep(tmp_path_factory):
    demo = make_demo_collection(tmp_path_factory.mktemp("demo"), seed=7, n_topics=10, n_runs=8, n_docs=300,
                                run_depth=150, pool_depth=20)
    pooled = [f"run{r + 1:02d}" for r in range(0, 8, 2)]
    pool = simulate_pool(demo.qrels, demo.runs, 10, pooled)
    return demo, pooled, sweep(pool)


def test_volatility_report(demo_sweep):
    _, _, result = demo_sweep
    stats = volatility(result)
    n_series = len(result.measures) * len(result.forms)
    assert stats.summary().columns == list(SUMMARY_COLUMNS)
    assert stats.summary().height == n_series
    assert stats.by_depth.height == n_series * len(result.depths)
    s = len(result.systems)
    assert stats.pairs.height == n_series * s * (s - 1) // 2 and stats.systems.height == n_series * s
    assert stats.unjudged.columns == ["system", "depth", "unjudged_share"]
    assert stats.unjudged.height == s * len(result.depths)
    shallow = stats.unjudged.filter(pl.col("depth") <= 10)
    pooled = shallow.filter(pl.col("system").is_in(["run01", "run03", "run05", "run07"]))
    assert pooled["unjudged_share"].max() == 0.0  # the contributing runs are judged to d
    assert stats.unjudged.filter(pl.col("depth") == 150)["unjudged_share"].min() > 0
    for (measure, form), means in result.means.items():
        rows = stats.by_depth.filter((pl.col("measure") == measure) & (pl.col("form") == form))
        np.testing.assert_allclose(rows["tau_ref"].to_numpy(), tau_reference(means), equal_nan=True)
        assert rows["tau_ref"][-1] == pytest.approx(1.0)
        assert rows["swaps"].sum() == swaps(means)[0].sum()
        p, delta = pairwise_p_values(result.topic_values(measure, form))
        np.testing.assert_allclose(rows["discrimination"].to_numpy(), discrimination_ratio(p))
        line = stats.summary().filter((pl.col("measure") == measure) & (pl.col("form") == form)).row(0, named=True)
        d_col = result.depth_index(10)
        assert line["tau_ref_at_d"] == pytest.approx(tau_reference(means)[d_col], nan_ok=True)
        assert line["swaps"] == swaps(means)[0].sum()
    # unjudged-as-nonrel RBP never falls; AP_min does on this collection
    sysrows = stats.systems.filter(pl.col("form") == "judged-as-nonrel")
    assert sysrows.filter(pl.col("measure") == "RBP(p=0.8)")["decreases"].sum() == 0
    assert sysrows.filter(pl.col("measure") == "AP")["decreases"].sum() == 0
    text = stats.to_text()
    assert "τref@d" in text and "RBP(p=0.8)" in text and "pool depth d = 10" in text
    assert stats.to_markdown().splitlines()[2].startswith("| measure | form |")
    other = volatility(result, test="sign", significance=True)
    assert other.test == "sign" and other.summary().height == n_series
    quick = volatility(result, significance=False)
    assert quick.summary()["discrimination_at_d"].is_nan().all()


def test_highlighted_positions():
    scores = np.array([0.1, 0.9, 0.5, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6])  # s = 9
    picks = highlighted(scores)
    order = np.argsort(-scores, kind="stable")
    assert [row for _, row in picks] == [order[round(q * 8)] for q in (0, .25, .5, .75, 1)]
    assert picks[0][1] == 1 and picks[-1][1] == 0


def test_figures_render_and_write_csv(demo_sweep, tmp_path):
    _, _, result = demo_sweep
    stats = volatility(result, significance=False)
    ax = trajectories(result, "AP_min", "condensed")
    data = plot_data(ax)
    assert data.columns == ["system", "measure", "form", "depth", "value", "highlight"]
    assert data.filter(pl.col("highlight").is_not_null())["system"].n_unique() == 5
    out = save(ax, tmp_path / "f12_one.png", data)
    assert out.exists() and (tmp_path / "f12_one.csv").exists()
    axes = trajectory_grid(result, ["AP_min", "RBP(p=0.8)"])
    assert axes.shape == (2, 2)
    save(axes.flat[0], tmp_path / "f12.png", plot_data(axes))
    back = pl.read_csv(tmp_path / "f12.csv")
    assert back.height == 2 * 2 * len(result.systems) * len(result.depths)
    assert set(back["form"]) == set(UNJUDGED_FORMS)
    axes = ap_variants(result)
    save(axes[0], tmp_path / "f13.png", plot_data(axes))
    assert set(pl.read_csv(tmp_path / "f13.csv")["measure"]) == {"AP", "AP_pool"}
    axes = volatility_summary(stats)
    save(axes[0], tmp_path / "f14.svg", plot_data(axes))
    f14 = pl.read_csv(tmp_path / "f14.csv")
    assert f14.columns == ["measure", "form", "depth", "tau_ref", "swaps", "swap_fraction"]
    assert (tmp_path / "f14.svg").stat().st_size > 1000
    import matplotlib.pyplot as plt

    fig, given = plt.subplots(1, 2)
    assert volatility_summary(stats, measures=["ERR"], forms=["condensed"], axes=given)[0] is given[0]
    plt.close(fig)



def test_cli_contract(demo_sweep, capsys, tmp_path):
    demo, pooled, _ = demo_sweep
    names = tmp_path / "pooled.txt"
    names.write_text("# contributing runs\n" + "\n".join(pooled) + "\n")
    traj = tmp_path / "traj.tsv"
    plot = tmp_path / "f12.png"
    code, out, err = run_cli(["volatility", demo.qrels, *demo.runs, "--simulate-pool", 10, "--contributing", names,
                              "-m", "AP_min", "-m", "RBP", "-m", "Q(beta=1,norm=min)", "--depths", "1,2,5,10,50,150",
                              "-o", traj, "--plot", plot, "--quiet"], capsys)
    assert code == 0, err
    assert err == ""  # --quiet: no notes, no progress
    frame = pl.read_csv(traj, separator="\t")
    assert frame.columns == ["system", "measure", "form", "depth", "value"]
    assert set(frame["form"]) == {"judged-as-nonrel", "condensed"}
    assert set(frame["measure"]) == {"AP_min", "RBP(p=0.8)", "Q(beta=1,norm=min)"}
    assert sorted(frame["depth"].unique()) == [1, 2, 5, 10, 50, 150]
    assert frame.height == 8 * 3 * 2 * 6
    assert "τref@d" in out and "AP_min" in out
    assert plot.exists() and plot.with_suffix(".csv").exists()
    # the same numbers as the API
    pool = simulate_pool(demo.qrels, demo.runs, 10, pooled)
    api = sweep(pool, ["AP_min"], [1, 2, 5, 10, 50, 150]).to_frame()
    joined = api.join(frame, on=["system", "measure", "form", "depth"])
    assert joined.height == api.height
    np.testing.assert_allclose(joined["value"], joined["value_right"], rtol=0, atol=1e-15)

    code, out, err = run_cli(["volatility", demo.qrels, *demo.runs, "--pool-depth", 10, "-m", "ERR",
                              "--condensed", "no", "--format", "tsv", "--depths", "1,10,100"], capsys)
    assert code == 0, err
    summary = pl.read_csv(out.encode(), separator="\t")
    assert summary.columns == list(SUMMARY_COLUMNS)
    assert summary["form"].to_list() == ["judged-as-nonrel"]
    assert "qrels as given" in err and "pool depth d = 10 (given)" in err  # the note on stderr

    code, out, err = run_cli(["volatility", demo.qrels, *demo.runs, "--pool-depth", 10, "--simulate-pool", 20,
                              "-m", "ERR"], capsys)
    assert code == 2 and "disagree" in err and "Traceback" not in err

    code, out, err = run_cli(["volatility", demo.qrels, *demo.runs, "-m", "nDCG@10"], capsys)
    assert code == 2 and "without '@k'" in err and "Traceback" not in err
    code, out, _ = run_cli(["volatility", "--help"], capsys)
    assert code == 0 and "Examples:" in out and "system  measure  form  depth  value" in out


def test_defaults_use_the_qrels_as_given(reference_data, capsys, tmp_path):
    """Issue 16: by default nothing is simulated, so depth k is exactly ``irstats eval -M k``
    (the swept nDCG at k is the engine's nDCG@k, trec_eval's ndcg_cut_k); d is the runs'
    judged depth (DL 2019 was pooled to depth 10, TREC DL 2019 overview)."""
    import irstats

    folder = reference_data / "trec-dl-2019-passage"
    qrels, runs = folder / "qrels.dl19-passage.txt", folder / "runs"
    traj = tmp_path / "traj.tsv"
    code, out, err = run_cli(["volatility", qrels, runs, "-m", "AP", "-m", "nDCG", "-m", "RBP", "--condensed", "no",
                              "--depths", "10,100", "-o", traj, "-n", 10], capsys)
    assert code == 0, err
    assert "qrels as given (9260 lines); pool depth d = 10 (the contributing runs' judged depth)" in err
    frame = pl.read_csv(traj, separator="\t")
    for k in (10, 100):
        names = {"AP": "AP", "nDCG": f"nDCG@{k}", "RBP(p=0.8)": "RBP(p=0.8)"}
        scores = irstats.evaluate(qrels, runs, list(names.values()), depth=k)
        for measure, name in names.items():
            engine = dict(zip(scores[name].systems, scores[name].means()))
            rows = frame.filter((pl.col("depth") == k) & (pl.col("measure") == measure))
            assert rows.height == len(DL19_RUNS)
            for system, value in rows.select("system", "value").iter_rows():
                assert value == pytest.approx(engine[system], abs=1e-12), (system, measure, k)
