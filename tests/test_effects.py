"""Effect sizes and bootstrap intervals (METHODS.md §5.6) against their textbook formulas
(computed here directly) and scipy.stats.bootstrap on the same resamples."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import special, stats

from irstats.errors import InputError
from irstats.scores import ScoreMatrix
from irstats.stats.compare import compare
from irstats.stats.effects import bootstrap_mean_intervals, cohens_d, d_z, glass_delta, hedges_g

X = np.array([0.61, 0.42, 0.35, 0.80, 0.52, 0.47, 0.33, 0.71, 0.58, 0.44])
Y = np.array([0.55, 0.40, 0.21, 0.66, 0.49, 0.52, 0.30, 0.60, 0.41, 0.47, 0.38, 0.29])


def test_effect_sizes_from_their_definitions():
    d = X - Y[:10]
    assert d_z(d) == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-14)
    sp = math.sqrt(((len(X) - 1) * X.var(ddof=1) + (len(Y) - 1) * Y.var(ddof=1)) / (len(X) + len(Y) - 2))
    assert cohens_d(X, Y) == pytest.approx((X.mean() - Y.mean()) / sp, rel=1e-14)
    nu = len(X) + len(Y) - 2
    j = special.gamma(nu / 2) / (math.sqrt(nu / 2) * special.gamma((nu - 1) / 2))
    assert hedges_g(X, Y) == pytest.approx(j * (X.mean() - Y.mean()) / sp, rel=1e-12)
    assert j == pytest.approx(1 - 3 / (4 * nu - 1), abs=2e-4)  # Hedges' usual approximation
    assert glass_delta(X, Y) == pytest.approx((X.mean() - Y.mean()) / Y.std(ddof=1), rel=1e-14)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_intervals_equal_scipy_on_the_same_resamples(method):
    rng = np.random.default_rng(4)
    data = rng.beta(1.2, 3, size=(5, 40))
    ours = bootstrap_mean_intervals(data, 4000, 0.9, method, seed=11)
    ref = stats.bootstrap((data,), np.mean, n_resamples=4000, confidence_level=0.9, method=method, axis=-1,
                          rng=np.random.Generator(np.random.PCG64(11)))
    np.testing.assert_allclose(ours.low, ref.confidence_interval.low, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ours.high, ref.confidence_interval.high, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ours.standard_error, ref.standard_error, rtol=1e-12)


def test_constant_rows_and_errors():
    b = bootstrap_mean_intervals([[0.2] * 6, [0.1, 0.5, 0.2, 0.4, 0.3, 0.6]], 500, method="bca", seed=0)
    assert b.low[0] == b.high[0] == pytest.approx(0.2) and b.low[1] < b.high[1]
    with pytest.raises(InputError, match="NaN"):
        bootstrap_mean_intervals([[0.1, np.nan, 0.3]])
    with pytest.raises(InputError, match="interval method"):
        bootstrap_mean_intervals([[0.1, 0.2, 0.3]], method="abc")


def test_compare_reports_intervals_and_d_z():
    values = np.vstack([X, Y[:10], (X + Y[:10]) / 2])
    matrix = ScoreMatrix(values, ("a", "b", "c"), tuple(str(t) for t in range(10)), "AP")
    frame = compare(matrix, baseline="b").frame
    row = frame.filter(pl.col("system") == "a").row(0, named=True)
    ref = stats.ttest_rel(X, Y[:10]).confidence_interval(0.95)
    assert (row["delta_low"], row["delta_high"]) == (pytest.approx(ref.low), pytest.approx(ref.high))
    assert row["effect_size"] == pytest.approx(d_z(X - Y[:10]))
    base = frame.filter(pl.col("is_baseline")).row(0, named=True)
    assert math.isnan(base["delta_low"]) and math.isnan(base["effect_size"])
    boot = compare(matrix, baseline="b", interval="bca", n_resamples=3000, seed=2).frame
    row = boot.filter(pl.col("system") == "a").row(0, named=True)
    ref = stats.bootstrap(((X - Y[:10])[None, :],), np.mean, n_resamples=3000, method="bca", axis=-1,
                          rng=np.random.Generator(np.random.PCG64(2)))
    # compare draws its bootstrap after the pairwise test: same Generator type, different draws.
    assert row["delta_low"] < row["delta"] < row["delta_high"]
    assert ref.confidence_interval.low[0] < row["delta"] < ref.confidence_interval.high[0]
