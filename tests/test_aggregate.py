"""Aggregation over topics (METHODS.md §3): Table 1 of seed 000, the ε properties of seed 001,
undefined cases, and agreement of the vectorised kernels with plain per-system formulas."""

from __future__ import annotations

import math
import statistics
import warnings

import numpy as np
import polars as pl
import pytest

from irstats.aggregate import (METHODS, AggregationWarning, aggregate, aggregate_many, check_complete,
                               resolve_method)
from irstats.errors import InputError
from irstats.scores import ScoreMatrix

# Score Aggregation (Ravana & Moffat 2009), Table 1: t = 5, ε = 0.01.
TABLE1 = np.array([
    [0.1, 0.1, 0.3, 0.8, 0.1],
    [0.0, 0.4, 0.2, 0.4, 0.3],
    [0.1, 0.5, 0.3, 0.2, 0.2],
    [0.2, 0.2, 0.3, 0.2, 0.2],
])
SYSTEMS = ("S1", "S2", "S3", "S4")
EXPECTED = {  # rounded to 3 decimals as printed; None = "–" (undefined)
    "am": [0.280, 0.260, 0.260, 0.220],
    "gm": [0.189, 0.000, 0.227, 0.217],
    "egm": [0.192, 0.151, 0.228, 0.217],
    "hm": [0.145, None, 0.197, 0.214],
    "ehm": [0.148, 0.034, 0.200, 0.214],
    "median": [0.100, 0.300, 0.200, 0.200],
}
WINNERS = {"am": "S1", "median": "S2", "gm": "S3", "egm": "S3", "hm": "S4", "ehm": "S4"}


@pytest.fixture
def table1() -> ScoreMatrix:
    return ScoreMatrix(TABLE1, SYSTEMS, tuple(f"t{j}" for j in range(5)), "AP")


def quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AggregationWarning)
        return aggregate(*args, **kwargs)


@pytest.mark.parametrize("method", sorted(EXPECTED))
def test_table1_to_three_decimals(table1, method):
    result = quiet(table1, method)
    assert result.systems == SYSTEMS and result.method == method and result.measure == "AP"
    for value, expected in zip(result.values, EXPECTED[method]):
        if expected is None:
            assert math.isnan(value)
        else:
            assert round(float(value), 3) == pytest.approx(expected, abs=1e-12)


def test_table1_winner_depends_on_method(table1):
    for method, winner in WINNERS.items():
        values = np.nan_to_num(quiet(table1, method).values, nan=-1)
        assert SYSTEMS[int(np.argmax(values))] == winner
        assert np.sum(values == values.max()) == 1  # a strict winner


def test_table1_gm_trec_eval_and_ref_d(table1):
    s2 = table1.subset(["S2"])
    assert round(aggregate(s2, "gm_trec_eval").values[0], 3) == 0.039  # ε = 1e-5 (default floor)
    assert round(aggregate(s2, "gm_trec_eval", epsilon=0.01).values[0], 3) == 0.157
    assert aggregate(s2, "gm_trec_eval").values[0] == pytest.approx(0.039487, abs=1e-6)
    assert aggregate(table1, "egm").values[0] == pytest.approx(0.191746, abs=1e-6)
    assert aggregate(table1, "ehm").values[1] == pytest.approx(0.034300, abs=1e-6)
    # GM_trec_eval floors but does not subtract: on S1 (no zeros) it equals GM, not εGM
    assert aggregate(table1, "gm_trec_eval").values[0] == pytest.approx(quiet(table1, "gm").values[0], rel=1e-12)


def test_table1_undefined_cases_warn_with_reasons(table1):
    with pytest.warns(AggregationWarning) as record:
        hm = aggregate(table1, "hm")
    assert hm.reasons == (None, "hm_zero", None, None)
    assert [w.message.reason for w in record] == ["hm_zero"] and "S2" in str(record[0].message)
    with pytest.warns(AggregationWarning) as record:
        gm = aggregate(table1, "gm")
    assert gm.values[1] == 0.0 and gm.reasons[1] == "gm_zero"
    assert record[0].message.reason == "gm_zero" and record[0].message.systems == ("S2",)


def test_epsilon_forms_approach_am_as_epsilon_grows(table1):
    am = aggregate(table1, "am").values
    gaps = {}
    for method in ("egm", "ehm"):
        previous = np.inf
        for eps in (0.01, 1.0, 100.0, 1e4, 1e6, 1e9):
            gap = np.max(np.abs(aggregate(table1, method, epsilon=eps).values - am))
            assert gap < previous  # monotone approach
            previous = gap
        gaps[method] = previous
        assert previous < 1e-9
    # ... but GM_trec_eval does not: a huge floor makes every system equal the floor.
    te = aggregate(table1, "gm_trec_eval", epsilon=1e6).values
    assert np.allclose(te, 1e6)
    # the εGM gap is ≈ variance/(2ε) for large ε (second-order Taylor term)
    var = TABLE1.var(axis=1)
    assert np.allclose(am - aggregate(table1, "egm", epsilon=1e6).values, var / 2e6, rtol=1e-3)


def _on_gmap_like(rng: np.random.Generator, zeros: int = 3, t: int = 50) -> np.ndarray:
    x = rng.uniform(0.01, 0.9, t)
    x[:zeros] = 0.0
    x[zeros:zeros + 3] = 0.01
    return rng.permutation(x)


@pytest.mark.parametrize("zeros", [1, 3, 7])
def test_egm_scales_as_epsilon_to_the_z_over_t(zeros):
    """§3 [REF-D]: with z zeros among t values and small ε, εGM ∝ ε^{z/t} (On GMAP: 10^{3/50} = 1.148)."""
    rng = np.random.default_rng(zeros)
    x = _on_gmap_like(rng, zeros)
    t = x.size
    values = {eps: aggregate(x, "egm", epsilon=eps).values[0] for eps in (1e-8, 1e-7, 1e-6, 1e-5)}
    for small, large in ((1e-8, 1e-7), (1e-7, 1e-6)):
        ratio = values[large] / values[small]
        assert ratio == pytest.approx(10 ** (zeros / t), rel=1e-3)
        slope = (math.log(values[large] + large) - math.log(values[small] + small)) / math.log(large / small)
        assert slope == pytest.approx(zeros / t, abs=1e-4)
    # without zeros εGM does not depend on ε at small ε
    y = np.where(x == 0, 0.5, x)
    assert aggregate(y, "egm", epsilon=1e-8).values[0] == pytest.approx(aggregate(y, "egm", epsilon=1e-7).values[0],
                                                                       rel=1e-5)


def test_on_gmap_shift_properties():
    """Adding 0.05 to every value shifts AM by exactly 0.05; εGM rises; low-end boosts help εGM more."""
    rng = np.random.default_rng(7)
    x = _on_gmap_like(rng)
    am = aggregate(x, "am").values[0]
    assert aggregate(x + 0.05, "am").values[0] == pytest.approx(am + 0.05, abs=1e-12)
    g = aggregate(x, "egm", epsilon=1e-5).values[0]
    order = np.argsort(x, kind="stable")
    low, high = x.copy(), x.copy()
    low[order[:25]] += 0.05
    high[order[25:]] += 0.05
    g_low = aggregate(low, "egm", epsilon=1e-5).values[0]
    g_high = aggregate(high, "egm", epsilon=1e-5).values[0]
    assert aggregate(x + 0.05, "egm", epsilon=1e-5).values[0] > g_low > g_high > g
    assert aggregate(low, "am").values[0] == pytest.approx(am + 0.025, abs=1e-12)
    assert aggregate(high, "am").values[0] == pytest.approx(am + 0.025, abs=1e-12)


@pytest.mark.parametrize("method", list(METHODS))
def test_independent_of_topic_order(method):
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, (6, 41))
    x[0, 5] = 0.0
    x[2, :3] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AggregationWarning)
        base = aggregate(x, method)
        for seed in range(5):
            perm = np.random.default_rng(seed).permutation(x.shape[1])
            other = aggregate(x[:, perm], method)
            np.testing.assert_allclose(other.values, base.values, rtol=1e-13, atol=1e-15, equal_nan=True)
            assert other.reasons == base.reasons


def test_logit_back_map_is_exact_inverse():
    rng = np.random.default_rng(11)
    for eps in (0.0, 1e-3, 0.01, 0.5):
        x = rng.uniform(0.001, 0.999, (20, 1))  # one topic: the mean of one logit is that logit
        x[0, 0], x[1, 0] = 0.3, 0.75
        back = aggregate(x, "logit", epsilon=eps, back_transform=True).values
        np.testing.assert_allclose(back, x[:, 0], rtol=1e-13, atol=1e-15)
        # and the forward transform is the stated one
        lm = aggregate(x, "logit", epsilon=eps).values
        np.testing.assert_allclose(lm, np.log((x[:, 0] + eps) / (1 - x[:, 0] + eps)), rtol=1e-13)
    # with ε = 0 the back-map is the logistic function of the mean logit
    y = rng.uniform(0.05, 0.95, (4, 9))
    lm = aggregate(y, "logit", epsilon=0.0).values
    np.testing.assert_allclose(aggregate(y, "logit", epsilon=0.0, back_transform=True).values,
                               1 / (1 + np.exp(-lm)), rtol=1e-14)
    # values 0 and 1 are fine with ε > 0, outside the domain with ε = 0
    z = np.array([[0.0, 1.0, 0.5]])
    assert np.isfinite(aggregate(z, "logit").values[0])
    with pytest.warns(AggregationWarning, match="logit_domain"):
        assert math.isnan(aggregate(z, "logit", epsilon=0.0).values[0])


def test_al_back_transform_is_egm(table1):
    al = aggregate(table1, "al")
    assert al.epsilon == 0.01
    np.testing.assert_allclose(al.values, np.log(TABLE1 + 0.01).mean(axis=1), rtol=1e-14)
    np.testing.assert_allclose(aggregate(table1, "al", back_transform=True).values, aggregate(table1, "egm").values,
                               rtol=1e-13)


def _reference(method: str, row: list[float], eps: float | None) -> float:
    """Plain-Python definitions of §3 (one system at a time) to check the vectorised kernels."""
    t = len(row)
    if method == "am":
        return sum(row) / t
    if method == "gm":
        return 0.0 if 0.0 in row else math.exp(sum(math.log(v) for v in row) / t)
    if method == "egm":
        return math.exp(sum(math.log(v + eps) for v in row) / t) - eps
    if method == "gm_trec_eval":
        return math.exp(sum(math.log(max(v, eps)) for v in row) / t)
    if method == "hm":
        return t / sum(1 / v for v in row)
    if method == "ehm":
        return t / sum(1 / (v + eps) for v in row) - eps
    if method == "median":
        return statistics.median(row)
    if method == "al":
        return sum(math.log(v + eps) for v in row) / t
    if method == "logit":
        return sum(math.log((v + eps) / (1 - v + eps)) for v in row) / t
    raise AssertionError(method)


@pytest.mark.parametrize("method", list(METHODS))
def test_vectorised_kernels_match_plain_definitions(method):
    rng = np.random.default_rng(5)
    x = rng.uniform(0.0005, 1.0, (12, 30))
    x[3, 7] = 0.0 if method not in ("hm",) else x[3, 7]
    x[4, :2] = 1.0
    for eps in (None, 1e-4, 0.3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AggregationWarning)
            result = aggregate(x, method, epsilon=eps)
        used = result.epsilon
        expected = [_reference(method, row.tolist(), used) for row in x]
        np.testing.assert_allclose(result.values, expected, rtol=1e-12, atol=1e-14)
    # an odd number of topics for the median
    odd = x[:, :29]
    np.testing.assert_allclose(aggregate(odd, "median").values, [statistics.median(r) for r in odd.tolist()])


def test_missing_scores_nan_input_and_skipna(table1):
    x = table1.values.copy()
    x[1, 2] = np.nan
    m = ScoreMatrix(x, SYSTEMS, table1.topics, "AP")
    with pytest.warns(AggregationWarning, match=r"nan_input.*'S2'.*'t2'"):
        r = aggregate(m, "am")
    assert math.isnan(r.values[1]) and r.reasons[1] == "nan_input" and r.values[0] == pytest.approx(0.28)
    r = aggregate(m, "am", skipna=True)
    assert r.values[1] == pytest.approx((0.0 + 0.4 + 0.4 + 0.3) / 4) and r.num_topics.tolist() == [5, 4, 5, 5]
    with pytest.raises(InputError, match=r"system 'S2' has no score for topic\(s\) 't2'"):
        check_complete(m)
    check_complete(table1)  # complete: no error


def test_empty_and_nonpositive():
    with pytest.warns(AggregationWarning, match="empty"):
        r = aggregate(np.zeros((3, 0)), "egm")
    assert np.isnan(r.values).all() and set(r.reasons) == {"empty"}
    all_nan = np.array([[np.nan, np.nan], [0.2, 0.4]])
    with pytest.warns(AggregationWarning, match="empty"):
        r = aggregate(all_nan, "am", skipna=True)
    assert r.reasons == ("empty", None) and r.values[1] == pytest.approx(0.3)
    z = np.array([[-1.2, 0.3, 0.8], [0.1, 0.2, 0.3]])  # raw z-scores are not for GM/HM
    for method in ("gm", "hm", "egm", "ehm", "al"):
        with pytest.warns(AggregationWarning, match="nonpositive"):
            r = aggregate(z, method)
        assert math.isnan(r.values[0]) and r.reasons[0] == "nonpositive" and np.isfinite(r.values[1])
    # εGM with x + ε > 0 is fine even for a slightly negative x
    assert np.isfinite(aggregate(np.array([-0.005, 0.5]), "egm").values[0])
    with pytest.warns(AggregationWarning, match="logit_domain"):
        assert math.isnan(aggregate(np.array([1.2, 0.5]), "logit").values[0])
    # GM_trec_eval floors every value below the floor, negatives included
    assert aggregate(np.array([-3.0, 1.0]), "gm_trec_eval").values[0] == pytest.approx(math.sqrt(1e-5))


def test_method_names_and_bad_arguments(table1):
    assert resolve_method("AM") == "am" and resolve_method("MD") == "median" and resolve_method("gm_map") == \
        "gm_trec_eval" and resolve_method("LM") == "logit"
    with pytest.raises(InputError, match="unknown aggregation method 'mode'.*am, gm, egm"):
        aggregate(table1, "mode")
    with pytest.raises(InputError, match="epsilon"):
        aggregate(table1, "egm", epsilon=-0.1)
    with pytest.raises(InputError, match="back_transform"):
        aggregate(table1, "am", back_transform=True)
    assert aggregate(table1, "am", epsilon=5).epsilon is None  # ε is ignored by AM


def test_aggregate_many_tidy_frame(table1):
    other = ScoreMatrix(TABLE1[::-1] / 2, SYSTEMS, table1.topics, "P@10")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AggregationWarning)
        frame = aggregate_many({"AP": table1, "P@10": other}, ["am", "HM", "egm"])
    assert frame.columns == ["system", "measure", "method", "value"]
    assert frame.height == 2 * 3 * 4
    assert frame["method"].unique(maintain_order=True).to_list() == ["am", "hm", "egm"]
    row = frame.filter((pl.col("system") == "S2") & (pl.col("measure") == "AP") & (pl.col("method") == "hm"))
    assert math.isnan(row["value"][0])
    row = frame.filter((pl.col("system") == "S1") & (pl.col("measure") == "AP") & (pl.col("method") == "egm"))
    assert row["value"][0] == pytest.approx(0.191746, abs=1e-6)
    frame = aggregate_many(table1, "egm", epsilon=1e9)
    np.testing.assert_allclose(frame["value"].to_numpy(), TABLE1.mean(axis=1), atol=1e-9)


def test_one_dimensional_input_and_result_access():
    r = aggregate([0.1, 0.1, 0.3, 0.8, 0.1], "median")
    assert r.values.shape == (1,) and r["0"] == pytest.approx(0.1) and r.as_dict() == {"0": pytest.approx(0.1)}
