"""Robustness of standardization (METHODS.md §5.3): the batched experiment equals a plain loop
over fit_factors / apply_factors / scipy's Kendall τ, is deterministic and independent of the
batch size; factor longevity; figure F7; ``irstats robustness``."""

from __future__ import annotations

import json
import warnings

import numpy as np
import polars as pl
import pytest
import scipy.stats

from irstats.errors import InputError
from irstats.trec_eval.read import read_trec_eval
from irstats.meta.correlation import kendall_tau_b
from irstats.meta.robustness import (correlate_means, draw_samples, factor_longevity, sample_taus,
                                     standardization_robustness)
from irstats.plots.common import save
from irstats.plots.standardization import plot_tau_quantiles, tau_quantile_data
from irstats.scores import ScoreMatrix
from irstats.standardize import apply_factors, fit_factors
from irstats.random import generator
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def robust04(reference_data):
    return read_trec_eval(reference_data / "confint-score-matrices" / "robust04")


@pytest.fixture(scope="module")
def robust05(reference_data):
    return read_trec_eval(reference_data / "confint-score-matrices" / "robust05")


def split_names(matrix: ScoreMatrix) -> tuple[list[str], list[str]]:
    """Alternate systems (bytewise order) into a standardizing pool and an evaluated set."""
    names = sorted(matrix.systems, key=str.encode)
    return names[::2], names[1::2]


def plain_loop(matrix: ScoreMatrix, pool: list[str], evaluated: list[str], samples: np.ndarray,
               zero_sd: str = "trec_eval", ddof: int = 1) -> np.ndarray:
    """The reference implementation: one fit_factors / apply_factors / scipy τ per sample."""
    topics = sorted(matrix.topics, key=str.encode)
    P = matrix.subset(pool, topics)
    E = matrix.subset(evaluated, topics)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = apply_factors(E, fit_factors(P, ddof=ddof), zero_sd=zero_sd).means()
        out = []
        for s in samples:
            factors = fit_factors(P, reference=[P.systems[k] for k in s], ddof=ddof)
            means = apply_factors(E, factors, zero_sd=zero_sd).means()
            out.append(scipy.stats.kendalltau(means, ref).statistic)
    return np.array(out)


def synthetic(seed: int = 3, s: int = 14, t: int = 12) -> ScoreMatrix:
    """Scores with ties, zero-variance topics at small n, and a few missing scores."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.beta(0.8, 2.0, size=(s, t)), 1)
    x[:, 0] = 0.0  # every system scores 0: σ = 0 in every sample
    x[: s // 2, 1] = 0.3  # half the systems agree: σ = 0 in some small samples
    x[rng.random((s, t)) < 0.03] = np.nan
    x[:, 0] = 0.0
    return ScoreMatrix(x, tuple(f"sys{i:02d}" for i in range(s)), tuple(f"t{j}" for j in range(t)), "AP")


# --------------------------------------------------------------------------- equals the plain loop


def test_equals_plain_loop_on_robust04(robust04):
    ap = robust04["AP"]
    pool, evaluated = split_names(ap)
    result = standardization_robustness(ap, pool, evaluated, sizes=[2, 3, 7, 20], n_samples=12, seed=5,
                                        keep_samples=True)
    for i, n in enumerate(result.sizes):
        expected = plain_loop(ap, list(result.standardizing), list(result.evaluated), result.samples[int(n)])
        np.testing.assert_allclose(result.taus[i], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.tau_quantiles, np.quantile(result.taus, result.quantiles, axis=1).T)
    assert result.quantiles == (0.5, 0.05, 0.01)


@pytest.mark.parametrize("zero_sd", ["trec_eval", "inf", "drop"])
def test_equals_plain_loop_with_zero_variance_and_missing_scores(zero_sd):
    matrix = synthetic()
    pool, evaluated = list(matrix.systems[:9]), list(matrix.systems[9:] + matrix.systems[:3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = standardization_robustness(matrix, pool, evaluated, sizes=[2, 3, 9], n_samples=40, seed=1,
                                            zero_sd=zero_sd, keep_samples=True)
    assert result.zero_variance[0] > result.zero_variance[-1] > 0  # topic t0 always, t1 in small samples
    for i, n in enumerate(result.sizes):
        expected = plain_loop(matrix, list(result.standardizing), list(result.evaluated), result.samples[int(n)],
                              zero_sd=zero_sd)
        np.testing.assert_allclose(result.taus[i], expected, rtol=0, atol=1e-12, equal_nan=True)


def test_samples_are_uniform_subsets():
    rng = generator(0)
    samples = draw_samples(10, 4, 5000, rng)
    assert samples.shape == (5000, 4)
    assert (np.diff(samples, axis=1) > 0).all()  # distinct, sorted
    counts = np.bincount(samples.ravel(), minlength=10) / 5000
    np.testing.assert_allclose(counts, 0.4, atol=0.03)


# --------------------------------------------------------------------------- determinism


def test_same_seed_identical_other_seed_different(robust04):
    ap = robust04["AP"]
    pool, evaluated = split_names(ap)
    a = standardization_robustness(ap, pool, evaluated, sizes=[2, 5], n_samples=30, seed=11)
    b = standardization_robustness(ap.subset(list(reversed(ap.systems))), pool[::-1], evaluated, sizes=[5, 2],
                                   n_samples=30, seed=11)  # input order does not matter
    c = standardization_robustness(ap, pool, evaluated, sizes=[2, 5], n_samples=30, seed=12)
    assert np.array_equal(a.taus, b.taus)
    assert not np.array_equal(a.taus, c.taus)


def test_batch_size_does_not_change_results(robust04):
    ap = robust04["AP"]
    pool, evaluated = split_names(ap)
    P = ap.subset(pool).values
    E = ap.subset(evaluated).values
    ref = apply_factors(ap.subset(evaluated), fit_factors(ap.subset(pool))).means()
    samples = draw_samples(len(pool), 4, 37, generator(2))
    base, zero = sample_taus(P, E, samples, ref)
    for batch in (1, 5, 36, 1000):
        taus, z = sample_taus(P, E, samples, ref, batch_size=batch)
        assert np.array_equal(taus, base) and np.array_equal(z, zero)
    full = standardization_robustness(ap, pool, evaluated, sizes=[3], n_samples=25, seed=4)
    small = standardization_robustness(ap, pool, evaluated, sizes=[3], n_samples=25, seed=4, batch_size=3)
    assert np.array_equal(full.taus, small.taus)


# --------------------------------------------------------------------------- behaviour on real data


def test_more_standardizing_systems_agree_more(robust04, robust05):
    for matrix in (robust04["AP"], robust05["AP"]):
        pool, evaluated = split_names(matrix)
        result = standardization_robustness(matrix, pool, evaluated, sizes=[2, 5, 15, len(pool)], n_samples=60,
                                            seed=0)
        medians = result.tau_quantiles[:, 0]
        assert np.all(np.diff(medians) >= 0)
        assert np.all(result.tau_quantiles[:, 2] <= result.tau_quantiles[:, 1] + 1e-12)
        assert np.all(result.tau_quantiles[:, 1] <= medians + 1e-12)
        assert np.all(result.taus[-1] == 1.0)  # the whole pool is the reference
        raw = matrix.subset(sorted(evaluated, key=str.encode)).means()
        assert result.raw_tau == pytest.approx(float(kendall_tau_b(raw, result.reference_scores)))
        frame = result.to_frame()
        assert frame.columns[:4] == ["n", "tau_q50", "tau_q05", "tau_q01"]


def test_factor_longevity(robust04):
    ap = robust04["AP"]
    first, second = split_names(ap)
    res = factor_longevity(ap, first, second)
    a = apply_factors(ap, fit_factors(ap, reference=first)).means()
    b = apply_factors(ap, fit_factors(ap, reference=second)).means()
    order = np.argsort(np.array(ap.systems, dtype=object))
    assert res.pearson == pytest.approx(scipy.stats.pearsonr(a, b).statistic, abs=1e-12)
    assert res.kendall == pytest.approx(scipy.stats.kendalltau(a, b).statistic, abs=1e-12)
    np.testing.assert_allclose(res.scores_first, a[order])
    assert 0.95 < res.pearson <= 1 and 0.8 < res.kendall <= 1
    # Factors, a reference matrix and names are interchangeable.
    same = factor_longevity(ap, fit_factors(ap, reference=first), ap.subset(second))
    assert same.pearson == pytest.approx(res.pearson, abs=1e-12) and same.kendall == pytest.approx(res.kendall)
    assert factor_longevity(ap, first, first).kendall == pytest.approx(1.0)
    both = correlate_means(ap.subset(None, ap.topics[:50]), ap.subset(None, ap.topics[50:]))
    assert -1 <= both["kendall"] <= 1 and both["systems"] == len(ap.systems)


def test_bad_input(robust04):
    ap = robust04["AP"]
    pool, evaluated = split_names(ap)
    with pytest.raises(InputError, match="not in the scores"):
        standardization_robustness(ap, pool + ["nosuchrun"], evaluated, n_samples=2)
    with pytest.raises(InputError, match="outside"):
        standardization_robustness(ap, pool, evaluated, sizes=[1, 5], n_samples=2)
    with pytest.raises(InputError, match="outside"):
        standardization_robustness(ap, pool, evaluated, sizes=[len(pool) + 1], n_samples=2)
    with pytest.raises(InputError, match="positive integer"):
        standardization_robustness(ap, pool, evaluated, n_samples=0)


# --------------------------------------------------------------------------- figure F7 and the CLI


def test_figure_f7_renders_and_writes_csv(robust04, tmp_path):
    ap = robust04["AP"]
    pool, evaluated = split_names(ap)
    result = standardization_robustness(ap, pool, evaluated, sizes=[2, 4, 8], n_samples=20, seed=0)
    lines = {"topic sets": 0.742, "raw vs std": result.raw_tau}
    ax = plot_tau_quantiles(result, reference_lines=lines)
    assert len(ax.lines) == 3 + 2
    data = tau_quantile_data(result, lines)
    path = save(ax, tmp_path / "f7.png", data)
    assert path.stat().st_size > 1000
    csv = pl.read_csv(tmp_path / "f7.csv")
    assert csv.columns == ["series", "n", "tau"]
    assert csv.filter(pl.col("series") == "5%")["tau"].to_list() == pytest.approx(result.tau_quantiles[:, 1])
    assert csv.filter(pl.col("n").is_null()).height == 2
    # Drawing from the stored frame gives the same data.
    assert tau_quantile_data(result.to_frame(), lines).equals(data)
    assert tau_quantile_data(data).equals(data)



def test_cli(robust04, reference_data, tmp_path, capsys):
    ap = robust04["AP"]
    pool, evaluated = split_names(ap)
    (tmp_path / "pool.txt").write_text("# TREC pool\n" + "\n".join(pool) + "\n")
    (tmp_path / "eval.txt").write_text("\n".join(evaluated) + "\n")
    source = reference_data / "confint-score-matrices" / "robust04"
    args = ["robustness", source, "-m", "AP", "--standardizing", tmp_path / "pool.txt", "--evaluated",
            tmp_path / "eval.txt", "-n", "15", "--sizes", "2,3,10-30:10", "--seed", "3"]
    api = standardization_robustness(ap, pool, evaluated, sizes=[2, 3, 10, 20, 30], n_samples=15, seed=3)

    code, out, err = run_cli([*args, "--plot", tmp_path / "fig.png"], capsys)
    assert code == 0, err
    assert "τ 50%" in out and f"{api.raw_tau:.4f}" in out
    assert (tmp_path / "fig.png").exists() and (tmp_path / "fig.csv").exists()
    rows = [cells for cells in (line.split() for line in out.splitlines()) if len(cells) == 8 and cells[0].isdigit()]
    assert [int(r[0]) for r in rows] == [2, 3, 10, 20, 30]
    assert [float(r[1]) for r in rows] == pytest.approx(api.tau_quantiles[:, 0], abs=5e-5)

    code, out, err = run_cli([*args, "--format", "tsv", "--quiet"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t")
    assert frame["tau_q01"].to_list() == pytest.approx(api.tau_quantiles[:, 2], abs=1e-15)

    code, out, err = run_cli([*args, "--format", "json", "-q"], capsys)
    assert code == 0, err
    assert json.loads(out)["raw_tau"] == pytest.approx(api.raw_tau)

    (tmp_path / "bad.txt").write_text("nosuchrun\n")
    code, out, err = run_cli(["robustness", source, "-m", "AP", "--standardizing", tmp_path / "bad.txt"], capsys)
    assert code == 2 and err.count("\n") == 1 and "nosuchrun" in err and "bad.txt" in err
    code, out, err = run_cli([*args[:-6], "--sizes", "1,x"], capsys)
    assert code == 2 and "--sizes" in err


def test_cli_help(capsys):
    code, out, _ = run_cli(["robustness", "--help"], capsys)
    assert code == 0 and "Examples:" in out and "--standardizing" in out


def test_progress_bar_only_on_a_terminal(monkeypatch):
    """The one progress convention (irstats.progress): None draws a bar only on a terminal,
    False never, a callable gets the step counts."""
    import io
    import sys

    from irstats.progress import progress_bar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for progress, shown in ((None, True), (True, True), (False, False)):
        stream = Terminal()
        monkeypatch.setattr(sys, "stderr", stream)
        with progress_bar(4, progress, "robustness") as bar:
            bar.update(4)
        assert ("robustness" in stream.getvalue()) is shown
    stream = io.StringIO()  # not a terminal: no bar
    monkeypatch.setattr(sys, "stderr", stream)
    with progress_bar(4, None, "robustness") as bar:
        bar.update(4)
    assert stream.getvalue() == ""
    steps = []
    with progress_bar(4, steps.append, "robustness") as bar:
        bar.update(3)
        bar.update(1)
    assert steps == [3, 1] and stream.getvalue() == ""
