"""Significance tests, intervals and corrections (METHODS §5.6, §4.8).

Deterministic tests agree with scipy (and so with R's t.test / wilcox.test / binom.test) to
1e-10 on real TREC DL 2019 system pairs; the Monte Carlo tests agree with exact
enumeration within Monte Carlo error, with plain-loop reference implementations drawing
from the same generator, and with themselves across seeds reruns and batch sizes.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import scipy.stats as sps

import irstats
from irstats import stats
from irstats.errors import InputError, IrstatsWarning
from irstats.scores import ScoreMatrix
from tests.conftest import DL19_RUNS

TOL = 1e-10


@pytest.fixture(scope="module")
def dl19(reference_data):
    """Per-topic AP and nDCG@10 of the DL 2019 passage runs of tests/data (43 topics)."""
    base = reference_data / "trec-dl-2019-passage"
    scores = irstats.evaluate(base / "qrels.dl19-passage.txt", sorted((base / "runs").glob("*.run.gz")),
                              ["AP", "nDCG@10"])
    assert scores["AP"].shape == (len(DL19_RUNS), 43)
    return scores


def all_pairs(matrix):
    return list(itertools.combinations(range(matrix.shape[0]), 2))


def mc_tolerance(p: float, B: int) -> float:
    """Allowed distance of a Monte Carlo p from the exact one (METHODS §5.6)."""
    return 4 * np.sqrt(p * (1 - p) / B) + 1 / (B + 1)


# --------------------------------------------------------------------------- agreement with scipy

@pytest.mark.parametrize("measure", ["AP", "nDCG@10"])
def test_paired_t_matches_scipy_on_dl19(dl19, measure):
    X = dl19[measure].values
    for i, j in all_pairs(X):
        ours = stats.paired_t(X[i], X[j])
        ref = sps.ttest_rel(X[i], X[j])
        assert ours.statistic == pytest.approx(ref.statistic, abs=TOL, rel=TOL)
        assert ours.p_value == pytest.approx(ref.pvalue, abs=TOL)
        ci = ref.confidence_interval(0.95)
        assert (ours.ci_low, ours.ci_high) == pytest.approx((ci.low, ci.high), abs=TOL)
        d = X[i] - X[j]
        assert ours.effect_size == pytest.approx(d.mean() / d.std(ddof=1), abs=TOL)
        assert ours.n == 43 and ours.details["df"] == 42


def test_paired_t_one_sided_and_confidence_match_scipy(dl19):
    X = dl19["AP"].values
    for i, j in all_pairs(X)[::5]:  # 19 of the 91 pairs
        for alternative in ("greater", "less"):
            ours = stats.paired_t(X[i], X[j], alternative=alternative, confidence=0.9)
            ref = sps.ttest_rel(X[i], X[j], alternative=alternative)
            ci = ref.confidence_interval(0.9)
            assert ours.p_value == pytest.approx(ref.pvalue, abs=TOL)
            assert (ours.ci_low, ours.ci_high) == pytest.approx((ci.low, ci.high), abs=TOL)


def r_wilcox_uses_exact(d: np.ndarray) -> bool:
    """R wilcox.test's rule, written out independently: n′ < 50, no ties and no zeros."""
    zeros = np.abs(d) <= 1e-12
    nz = np.abs(d[~zeros])
    return nz.size < 50 and not zeros.any() and np.unique(nz).size == nz.size


@pytest.mark.parametrize("measure", ["AP", "nDCG@10"])
def test_wilcoxon_matches_scipy_configured_as_r(dl19, measure):
    X = dl19[measure].values
    seen = {"exact": 0, "approx": 0}
    for i, j in all_pairs(X):
        d = X[i] - X[j]
        d = np.where(np.abs(d) <= 1e-12, 0.0, d)
        ours = stats.wilcoxon(X[i], X[j])
        method = "exact" if r_wilcox_uses_exact(d) else "approx"
        assert ours.details["method"] == method
        seen[method] += 1
        ref = sps.wilcoxon(d, zero_method="wilcox", correction=True, method=method)
        assert ours.p_value == pytest.approx(ref.pvalue, abs=TOL)
        # R's V is the sum of positive ranks: scipy's statistic for alternative="greater".
        v = sps.wilcoxon(d, zero_method="wilcox", correction=True, method=method, alternative="greater").statistic
        assert ours.statistic == pytest.approx(v, abs=TOL)
    assert seen["exact"] > 0 and seen["approx"] > 0  # both branches are exercised by real data


def test_wilcoxon_r_documentation_example():
    # ?wilcox.test (Hollander & Wolfe p. 29): V = 40, one-sided p = 0.01953 = 10/512.
    x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
    y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    res = stats.wilcoxon(x, y)
    assert res.statistic == 40
    assert res.p_value == pytest.approx(2 * 10 / 512, abs=1e-15)
    assert res.details["method"] == "exact"


def test_wilcoxon_zeros_force_the_normal_approximation_as_in_r():
    a = np.array([0.5, 0.4, 0.9, 0.3, 0.7, 0.2, 0.65, 0.8])
    b = a - np.array([0.11, -0.02, 0.23, 0.0, 0.35, 0.06, 0.17, 0.29])
    res = stats.wilcoxon(a, b)
    assert res.details["zeros"] == 1 and not res.details["ties"]
    assert res.details["method"] == "approx"
    d = np.where(np.abs(a - b) <= 1e-12, 0.0, a - b)
    ref = sps.wilcoxon(d, zero_method="wilcox", correction=True, method="approx")
    assert res.p_value == pytest.approx(ref.pvalue, abs=TOL)
    # exact=False forces the approximation even without zeros; n′ = 0 gives p = 1.
    assert stats.wilcoxon(a[:3], a[:3] - 0.1 * np.arange(1, 4), exact=False).details["method"] == "approx"
    assert stats.wilcoxon(a, a).p_value == 1.0


@pytest.mark.parametrize("measure", ["AP", "nDCG@10"])
def test_sign_test_matches_binomtest(dl19, measure):
    X = dl19[measure].values
    for i, j in all_pairs(X):
        d = X[i] - X[j]
        pos, neg = int((d > 1e-12).sum()), int((d < -1e-12).sum())
        ours = stats.sign_test(X[i], X[j])
        ref = sps.binomtest(pos, pos + neg, 0.5).pvalue if pos + neg else 1.0
        assert ours.p_value == pytest.approx(ref, abs=TOL)
        assert ours.p_value == pytest.approx(min(1.0, 2 * sps.binom.cdf(min(pos, neg), pos + neg, 0.5)), abs=TOL)
        assert ours.statistic == pos


@pytest.mark.parametrize("equal_var", [False, True])
def test_two_sample_t_matches_ttest_ind(dl19, equal_var):
    X = dl19["AP"].values
    for i, j in all_pairs(X)[::11]:
        x, y = X[i, :21], X[j, 21:]  # two unpaired samples of different sizes
        ours = stats.two_sample_t(x, y, equal_var=equal_var)
        ref = sps.ttest_ind(x, y, equal_var=equal_var)
        assert ours.statistic == pytest.approx(ref.statistic, abs=TOL, rel=TOL)
        assert ours.p_value == pytest.approx(ref.pvalue, abs=TOL)
        assert ours.details["df"] == pytest.approx(ref.df, abs=TOL)
        ci = ref.confidence_interval(0.95)
        assert (ours.ci_low, ours.ci_high) == pytest.approx((ci.low, ci.high), abs=TOL)
        sp = np.sqrt(((x.size - 1) * x.var(ddof=1) + (y.size - 1) * y.var(ddof=1)) / (x.size + y.size - 2))
        assert ours.effect_size == pytest.approx((x.mean() - y.mean()) / sp, abs=TOL)
        one = stats.two_sample_t(x, y, equal_var=equal_var, alternative="less")
        assert one.p_value == pytest.approx(sps.ttest_ind(x, y, equal_var=equal_var, alternative="less").pvalue,
                                            abs=TOL)


# --------------------------------------------------------------------------- t-interval

def sample_with(mean: float, sd: float, n: int) -> np.ndarray:
    z = np.random.default_rng(1).standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    return mean + sd * z


def test_t_interval_ref_e_flab8atdn():
    x = sample_with(0.324, 0.220, 50)
    assert x.mean() == pytest.approx(0.324, abs=1e-14) and x.std(ddof=1) == pytest.approx(0.220, abs=1e-14)
    low, high = stats.t_interval(x)
    assert low == pytest.approx(0.262, abs=0.001) and high == pytest.approx(0.386, abs=0.001)
    ref = sps.t.interval(0.95, 49, loc=x.mean(), scale=x.std(ddof=1) / np.sqrt(50))
    assert (low, high) == pytest.approx(ref, abs=1e-12)
    assert stats.t_interval(x, 0.9) == pytest.approx(
        sps.t.interval(0.9, 49, loc=x.mean(), scale=x.std(ddof=1) / np.sqrt(50)), abs=1e-12)
    assert all(np.isnan(stats.t_interval([0.5])))


# --------------------------------------------------------------------------- corrections

def test_holm_and_bonferroni_hand_computed():
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 → 4·0.005, 3·0.01, 2·0.03, max(0.06, 1·0.04).
    assert stats.holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    assert stats.bonferroni(p) == pytest.approx([0.04, 0.16, 0.12, 0.02], abs=1e-15)
    assert stats.holm([0.5, 0.9]).tolist() == [1.0, 1.0]
    assert stats.bonferroni([0.5, 0.2]).tolist() == [1.0, 0.4]
    # NaN stays NaN and is not counted in m.
    out = stats.holm([0.02, np.nan, 0.01])
    assert np.isnan(out[1]) and out[[0, 2]] == pytest.approx([0.02, 0.02])
    assert stats.bonferroni([np.nan, 0.01]).tolist()[1] == pytest.approx(0.01)
    assert stats.adjust(p, "none").tolist() == p
    with pytest.raises(InputError):
        stats.adjust(p, "fdr")


def test_holm_matches_the_step_down_definition():
    rng = np.random.default_rng(3)
    for m in (1, 2, 5, 13):
        p = rng.random(m) ** 3
        order = np.argsort(p)
        expected = np.empty(m)
        for rank, idx in enumerate(order):  # p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j))
            expected[idx] = max(min(1.0, (m - j) * p[order[j]]) for j in range(rank + 1))
        assert stats.holm(p) == pytest.approx(expected, abs=1e-15)
        assert stats.bonferroni(p) == pytest.approx(np.minimum(1, m * p), abs=1e-15)


# --------------------------------------------------------------------------- randomisation

def exact_randomization_reference(d: np.ndarray) -> float:
    """p by enumerating all 2^n sign vectors in a plain loop."""
    T = abs(d.mean())
    hits = sum(abs(np.mean(np.array(s) * d)) >= T - 1e-12 * max(1, T)
               for s in itertools.product((1.0, -1.0), repeat=d.size))
    return hits / 2 ** d.size


def test_randomization_agrees_with_exact_enumeration(dl19):
    X = dl19["AP"].values
    B = 2000  # fewer than the 2^12 sign vectors: the Monte Carlo path, not enumeration
    for i, j in [(0, 1), (3, 9), (10, 13)]:
        a, b = X[i, :12], X[j, :12]
        exact = stats.randomization_test(a, b, exact=True)
        assert exact.p_value == pytest.approx(exact_randomization_reference(a - b), abs=1e-15)
        mc = stats.randomization_test(a, b, n_resamples=B, seed=0)
        assert not mc.details["exact"]
        assert abs(mc.p_value - exact.p_value) <= mc_tolerance(exact.p_value, B)


def randomization_plain_loop(d, B, seed):
    """Reference: one resample at a time, the same draws as the vectorised code."""
    rng = np.random.Generator(np.random.PCG64(seed))
    T = d.sum() / d.size
    hits = 0
    for _ in range(B):
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(1, d.size))[0]
        hits += abs((signs * d).sum() / d.size) >= abs(T) - 1e-12 * max(1, abs(T))
    return (1 + hits) / (1 + B)


def test_randomization_equals_plain_loop_and_is_deterministic(dl19):
    X = dl19["nDCG@10"].values
    a, b = X[5], X[9]
    ref = randomization_plain_loop(a - b, 500, 4)
    results = [stats.randomization_test(a, b, n_resamples=500, seed=4, batch_size=bs).p_value
               for bs in (None, 1, 7, 64, 500)]
    assert results == [ref] * len(results)
    gen = stats.randomization_test(a, b, n_resamples=500, seed=np.random.Generator(np.random.PCG64(4)))
    assert gen.p_value == ref


# --------------------------------------------------------------------------- bootstrap

def exact_bootstrap_reference(d: np.ndarray) -> float:
    """p over all n^n equally likely resamples of the shifted differences (METHODS §5.6)."""
    n = d.size
    w = d - d.mean()
    idx = np.array(list(itertools.product(range(n), repeat=n)))
    s = w[idx]
    mean, sd = s.mean(axis=1), s.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd <= 1e-12 * np.maximum(1, np.abs(mean)),
                     np.where(np.abs(mean) <= 1e-12, 0.0, np.sign(mean) * np.inf), mean / (sd / np.sqrt(n)))
    t_obs = d.mean() / (d.std(ddof=1) / np.sqrt(n))
    return float(np.mean(np.abs(t) >= abs(t_obs)))


def test_bootstrap_agrees_with_exact_enumeration():
    B = 10000
    rng = np.random.default_rng(11)
    for shift in (0.0, 0.05, 0.15):
        a = rng.random(6)
        b = a - shift - 0.1 * rng.standard_normal(6)
        exact = exact_bootstrap_reference(a - b)
        mc = stats.bootstrap_test(a, b, n_resamples=B, seed=0)
        assert abs(mc.p_value - exact) <= mc_tolerance(exact, B), (shift, mc.p_value, exact)


def bootstrap_plain_loop(d, B, seed):
    rng = np.random.Generator(np.random.PCG64(seed))
    n = d.size
    t_obs = d.mean() / (d.std(ddof=1) / np.sqrt(n))
    w = d - d.sum() / n
    hits = 0
    for _ in range(B):
        s = w[rng.integers(0, n, size=(1, n))[0]]
        sd = s.std(ddof=1)
        t = s.mean() / (sd / np.sqrt(n)) if sd > 1e-12 else (0.0 if abs(s.mean()) <= 1e-12 else np.inf)
        hits += abs(t) >= abs(t_obs)
    return hits / B


def test_bootstrap_equals_plain_loop_and_is_deterministic(dl19):
    X = dl19["AP"].values
    a, b = X[2], X[7]
    ref = bootstrap_plain_loop(a - b, 400, 9)
    runs = [stats.bootstrap_test(a, b, n_resamples=400, seed=9, batch_size=bs) for bs in (None, 1, 13, 400)]
    assert [r.p_value for r in runs] == [ref] * len(runs)
    assert len({(r.ci_low, r.ci_high) for r in runs}) == 1
    assert runs[0].statistic == pytest.approx(sps.ttest_rel(a, b).statistic, abs=TOL)
    assert runs[0].ci_low < (a - b).mean() < runs[0].ci_high
    other = stats.bootstrap_test(a, b, n_resamples=400, seed=10)
    assert other.details["count"] != runs[0].details["count"] or other.ci_low != runs[0].ci_low


# --------------------------------------------------------------------------- Tukey HSD

def tukey_plain_loop(X, B, seed):
    """Carterette's randomised Tukey HSD one resample, one topic at a time (same draws)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    m, n = X.shape
    ranges = []
    for _ in range(B):
        keys = rng.random((1, m, n))[0]
        means = [0.0] * m
        for t in range(n):
            perm = np.argsort(keys[:, t], kind="stable")
            for i in range(m):
                means[i] += X[perm[i], t]
        means = [v / n for v in means]
        ranges.append(max(means) - min(means))
    obs = X.sum(axis=1) / n
    p = np.full((m, m), np.nan)
    for i in range(m):
        for j in range(m):
            if i != j:
                D = abs(obs[i] - obs[j])
                p[i, j] = (1 + sum(r >= D - 1e-12 * max(1, D) for r in ranges)) / (1 + B)
    resid = sum((X[i, t] - X[i].mean() - X[:, t].mean() + X.mean()) ** 2 for i in range(m) for t in range(n))
    es = (obs[:, None] - obs[None, :]) / np.sqrt(resid / ((m - 1) * (n - 1)))
    return p, es


def test_tukey_equals_plain_loop_with_the_same_permutations(dl19):
    X = dl19["AP"].values[[0, 2, 5, 8, 11, 13], :9]
    p_ref, es_ref = tukey_plain_loop(X, 300, 2)
    for bs in (None, 1, 17):
        res = stats.tukey_hsd(X, n_resamples=300, seed=2, batch_size=bs)
        off = ~np.eye(6, dtype=bool)
        assert np.array_equal(res.p_value[off], p_ref[off])
        assert res.effect_size[off] == pytest.approx(es_ref[off], abs=1e-12)
    table = res.to_frame()
    assert table.height == 15 and table.columns[:3] == ["system_a", "system_b", "delta"]


def test_tukey_on_score_matrix_drops_incomplete_topics(dl19):
    ap = dl19["AP"].subset(systems=dl19["AP"].systems[:5])
    values = ap.values.copy()
    values[1, 3] = np.nan
    m = ScoreMatrix(values, ap.systems, ap.topics, "AP")
    with pytest.warns(IrstatsWarning, match="1 of 43 topics"):
        res = stats.tukey_hsd(m, n_resamples=200, seed=0)
    assert res.details["topics"] == 42 and res.systems == ap.systems
    full = stats.tukey_hsd(values[:, np.r_[0:3, 4:43]], n_resamples=200, seed=0)
    assert np.array_equal(res.p_value, full.p_value, equal_nan=True)
    # The familywise test is more conservative than the pairwise randomisation test.
    assert res.discriminative_power() <= stats.discriminative_power(
        values[:, np.r_[0:3, 4:43]], "randomization", n_resamples=200)


# --------------------------------------------------------------------------- pairwise, power

def test_pairwise_equals_single_pair_functions_even_with_missing_scores(dl19):
    ap = dl19["AP"].subset(systems=dl19["AP"].systems[:6])
    values = ap.values.copy()
    values[2, [0, 5]] = np.nan  # pairs with system 2 use 41 topics: a second resampling group
    m = ScoreMatrix(values, ap.systems, ap.topics, "AP")
    single = {"paired_t": stats.paired_t, "wilcoxon": stats.wilcoxon, "sign": stats.sign_test,
              "bootstrap": lambda a, b: stats.bootstrap_test(a, b, n_resamples=300, seed=5),
              "randomization": lambda a, b: stats.randomization_test(a, b, n_resamples=300, seed=5)}
    for test, fn in single.items():
        with pytest.warns(IrstatsWarning, match="5 of 15 system pairs"):
            res = stats.pairwise(m, test, n_resamples=300, seed=5)
        for i, j in all_pairs(values):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", IrstatsWarning)
                one = fn(values[i], values[j])
            assert res.p_value[i, j] == res.p_value[j, i]
            if test in ("bootstrap", "randomization"):
                assert res.p_value[i, j] == one.p_value
            else:
                assert res.p_value[i, j] == pytest.approx(one.p_value, abs=1e-13)
            assert res.effect_size[i, j] == pytest.approx(-res.effect_size[j, i])
            assert res.n[i, j] == one.n
    with pytest.warns(IrstatsWarning, match="2 of 43 topics lack a score"):
        assert stats.paired_t(values[2], values[3]).details["dropped"] == 2


def test_discriminative_power_counts_pairs_below_alpha(dl19):
    X = dl19["AP"].values
    expected = np.mean([sps.ttest_rel(X[i], X[j]).pvalue < 0.05 for i, j in all_pairs(X)])
    assert stats.discriminative_power(dl19["AP"]) == pytest.approx(expected, abs=1e-15)
    res = stats.pairwise(dl19["AP"], "sign")
    assert res.n_pairs == len(DL19_RUNS) * (len(DL19_RUNS) - 1) // 2
    assert res.discriminative_power(0.01) <= res.discriminative_power(0.05)


def test_same_seed_same_numbers_and_batch_independence_over_pairs(dl19):
    ap = dl19["nDCG@10"].subset(systems=dl19["nDCG@10"].systems[:8])
    for test in ("bootstrap", "randomization", "tukey"):
        first = stats.pairwise(ap, test, n_resamples=250, seed=1)
        again = stats.pairwise(ap, test, n_resamples=250, seed=1, batch_size=3)
        assert np.array_equal(first.p_value, again.p_value, equal_nan=True)
        other = stats.pairwise(ap, test, n_resamples=250, seed=2)
        assert not np.array_equal(first.p_value, other.p_value, equal_nan=True)


# --------------------------------------------------------------------------- edge cases

def test_degenerate_inputs():
    a = np.array([0.2, 0.4, 0.6])
    with pytest.warns(IrstatsWarning, match="s_d = 0"):
        same = stats.paired_t(a, a)
    assert same.p_value == 1.0 and same.statistic == 0.0
    with pytest.warns(IrstatsWarning, match="s_d = 0"):
        shifted = stats.paired_t(a + 0.1, a)
    assert shifted.p_value == 0.0 and shifted.statistic == np.inf
    assert np.isnan(stats.paired_t([0.1], [0.2]).p_value)
    assert stats.sign_test(a, a).p_value == 1.0
    assert stats.bootstrap_test(a, a, n_resamples=50).p_value == 1.0
    assert stats.bootstrap_test(a + 0.1, a, n_resamples=50).p_value == 0.0
    assert stats.randomization_test(a, a, n_resamples=50).p_value == 1.0
    with pytest.raises(InputError):
        stats.paired_t(a, a[:2])
    with pytest.raises(InputError):
        stats.randomization_test(np.zeros(30), np.ones(30), exact=True)
    with pytest.raises(InputError):
        stats.bootstrap_test(a, a, n_resamples=0)
    with pytest.raises(InputError):
        stats.pairwise(np.zeros((3, 4)), "anova")


def test_benjamini_hochberg_and_yekutieli_equal_scipy():
    """BH and BY equal scipy.stats.false_discovery_control, ties and NaN included."""
    from scipy.stats import false_discovery_control

    rng = np.random.default_rng(3)
    for size in (1, 2, 7, 50):
        p = rng.uniform(0, 1, size) ** 3
        p[: size // 3] = p[0]  # ties
        for method, ours in (("bh", stats.benjamini_hochberg), ("by", stats.benjamini_yekutieli)):
            np.testing.assert_allclose(ours(p), false_discovery_control(p, method=method), rtol=1e-14, atol=0)
            np.testing.assert_allclose(stats.adjust(p, method), false_discovery_control(p, method=method),
                                       rtol=1e-14, atol=0)
    with_nan = np.array([0.01, np.nan, 0.04, 0.03])
    got = stats.benjamini_hochberg(with_nan)
    assert np.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2, 3]], false_discovery_control([0.01, 0.04, 0.03], method="bh"))


def test_batched_rows_equal_the_single_pair_functions_and_scipy():
    """The statistics core: every row of the batched tests equals the single-pair function
    and scipy on random data (frozen row classes, not dicts)."""
    import dataclasses

    from scipy import stats as sps

    from irstats.stats.closed_form import paired_t_rows, sign_rows

    rng = np.random.default_rng(8)
    a, b = rng.beta(2, 3, (6, 25)), rng.beta(2, 3, (6, 25))
    rows = paired_t_rows(a - b)
    ref = sps.ttest_rel(a, b, axis=1)
    np.testing.assert_allclose(rows.statistic, ref.statistic, rtol=1e-12)
    np.testing.assert_allclose(rows.p_value, ref.pvalue, rtol=1e-10)
    ci = ref.confidence_interval(0.95)
    np.testing.assert_allclose(rows.ci_low, ci.low, rtol=1e-10)
    np.testing.assert_allclose(rows.ci_high, ci.high, rtol=1e-10)
    for k in range(6):
        single = stats.paired_t(a[k], b[k])
        assert single.statistic == rows.statistic[k] and single.p_value == rows.p_value[k]
    signs = sign_rows(a - b)
    for k in range(6):
        pos, neg = int((a[k] > b[k]).sum()), int((a[k] < b[k]).sum())
        assert signs.p_value[k] == pytest.approx(sps.binomtest(pos, pos + neg).pvalue, rel=1e-12)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rows.p_value = None


@pytest.mark.parametrize("delta, t, p", [(0.02, np.inf, 0.0), (-0.02, -np.inf, 0.0), (0.0, 0.0, 1.0)])
def test_one_degenerate_t_rule_from_every_entry_point(delta, t, p):
    """A constant difference gives t = ±∞, p = 0 (t = 0, p = 1 when it is 0) whichever
    function is asked (METHODS §5.6)."""
    from irstats.meta._common import significance_t
    from irstats.stats.closed_form import paired_t_rows, two_sample_t_rows
    from irstats.stats.degenerate import studentize
    from irstats.stats.resampling import t_statistics

    d = np.full(30, delta)
    rows = paired_t_rows(d[None, :])
    assert (rows.statistic[0], rows.p_value[0]) == (t, p)
    with pytest.warns(UserWarning, match="s_d = 0"):
        single = stats.paired_t(d + 0.5, np.full(30, 0.5))
    assert (single.statistic, single.p_value) == (pytest.approx(t) if t == 0 else t, p)
    assert significance_t(d) == (t, p)
    assert t_statistics(d[None, :])[0] == t
    assert studentize(delta, 0.0, 30) == t
    two = two_sample_t_rows(np.full(10, 0.3 + delta), np.full(12, 0.3))
    assert (float(two.statistic), float(two.p_value)) == (t, p)


def test_every_test_is_declared_once_and_read_from_its_declaration():
    """Issue 24 item 4: a test's label, whether it resamples, its familywise p-values and the
    fewest topics it needs are its declaration's; the sweep's batched path (tests with a
    closed form of the difference rows) equals testing depth by depth with scipy."""
    from scipy import stats as sps

    from irstats.depth.volatility import pairwise_p_values
    from irstats.stats.pairwise import PAIRWISE_TESTS, TESTS

    assert tuple(TESTS) == PAIRWISE_TESTS
    assert {t for t, spec in TESTS.items() if spec.resamples} == {"bootstrap", "randomization", "tukey"}
    assert [t for t, spec in TESTS.items() if spec.familywise] == ["tukey"]
    rng = np.random.default_rng(5)
    X = rng.random((4, 12, 3))
    p, delta = pairwise_p_values(X, "paired_t")
    i, j = np.triu_indices(4, 1)
    for d in range(3):
        expected = [sps.ttest_rel(X[a, :, d], X[b, :, d]).pvalue for a, b in zip(i, j)]
        assert p[d] == pytest.approx(expected, rel=1e-9)
        assert delta[d] == pytest.approx([(X[a, :, d] - X[b, :, d]).mean() for a, b in zip(i, j)], abs=1e-12)
    p, _ = pairwise_p_values(X, "sign")
    for d in range(3):
        for k, (a, b) in enumerate(zip(i, j)):
            diff = X[a, :, d] - X[b, :, d]
            wins = int((diff > 0).sum())
            assert p[d, k] == pytest.approx(sps.binomtest(wins, int((diff != 0).sum())).pvalue, rel=1e-9)
