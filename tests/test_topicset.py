"""Topic-set-size design (Sakai 2016; METHODS.md §5.7) against statsmodels' power solvers,
statsmodels' two-way ANOVA, direct computations and, for the CI-based designs, the sizes that
jerome-white/sakai-book's reproductions of Sakai's Excel tools (samplesizeCI2.py and
samplesize2SAMPLECI.py, chapter 6) print."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from scipy import special, stats
from statsmodels.stats.power import FTestAnovaPower, TTestIndPower, TTestPower

from irstats.cli.main import cli
from irstats.errors import InputError
from irstats.stats.topicset import (
    design_topic_set,
    expected_ci_width,
    min_detectable_difference,
    power,
    residual_variance,
    topics_needed,
)
from tests.conftest import run_cli

CASES = [(0.05, 0.0479, 0.05, 0.2), (0.1, 0.02, 0.05, 0.2), (0.03, 0.01, 0.01, 0.1), (0.2, 0.09, 0.05, 0.5)]


@pytest.mark.parametrize("min_diff, variance, alpha, beta", CASES)
def test_paired_and_two_sample_sizes_equal_statsmodels_rounded_up(min_diff, variance, alpha, beta):
    effect = min_diff / math.sqrt(variance)
    paired = TTestPower().solve_power(effect_size=effect, alpha=alpha, power=1 - beta, alternative="two-sided")
    assert topics_needed(min_diff, variance, "paired_t", alpha, beta) == max(2, math.ceil(paired))
    two = TTestIndPower().solve_power(effect_size=effect, alpha=alpha, power=1 - beta, ratio=1.0)
    assert topics_needed(min_diff, variance, "two_sample_t", alpha, beta) == max(2, math.ceil(two))


@pytest.mark.parametrize("min_diff, variance, alpha, beta", CASES)
@pytest.mark.parametrize("m", [3, 5, 20])
def test_anova_size_equals_statsmodels(min_diff, variance, alpha, beta, m):
    """statsmodels' f² = λ/N with N = m·n; ours λ = n·(δ²/2)/V, so f² = δ²/(2mV)."""
    total = FTestAnovaPower().solve_power(effect_size=math.sqrt(min_diff ** 2 / (2 * m * variance)), alpha=alpha,
                                          power=1 - beta, k_groups=m)
    assert topics_needed(min_diff, variance, "anova", alpha, beta, n_systems=m) == max(2, math.ceil(total / m))


@pytest.mark.parametrize("n", [5, 30, 150])
def test_power_equals_statsmodels(n):
    effect = 0.05 / math.sqrt(0.03)
    assert power(n, 0.05, 0.03, "paired_t") == pytest.approx(
        TTestPower().power(effect_size=effect, nobs=n, alpha=0.05, alternative="two-sided"), abs=1e-10)
    assert power(n, 0.05, 0.03, "two_sample_t") == pytest.approx(
        TTestIndPower().power(effect_size=effect, nobs1=n, alpha=0.05, ratio=1.0), abs=1e-10)
    assert power(n, 0.05, 0.03, "anova", n_systems=4) == pytest.approx(
        FTestAnovaPower().power(effect_size=math.sqrt(0.05 ** 2 / (2 * 4 * 0.03)), nobs=4 * n, alpha=0.05,
                                k_groups=4), abs=1e-10)
    assert power(n, 0.0, 0.03, "paired_t") == pytest.approx(0.05, abs=1e-12)  # no difference: power = α


@pytest.mark.parametrize("design", ["paired_t", "two_sample_t", "anova"])
def test_min_detectable_difference_inverts_power(design):
    delta = min_detectable_difference(50, 0.04, design, 0.05, 0.2, n_systems=6)
    assert power(50, delta, 0.04, design, 0.05, n_systems=6) == pytest.approx(0.8, abs=1e-9)


def test_ci_design_from_the_definition():
    """2·t_{.975,n−1}·c₄(n)·√(V/n) with c₄ = √(2/(n−1))·Γ(n/2)/Γ((n−1)/2), by scipy directly."""
    v = 0.03
    for n in (2, 10, 100):
        c4 = math.sqrt(2 / (n - 1)) * special.gamma(n / 2) / special.gamma((n - 1) / 2)
        assert expected_ci_width(n, v) == pytest.approx(2 * stats.t.ppf(0.975, n - 1) * c4 * math.sqrt(v / n),
                                                        rel=1e-12)
    n = topics_needed(0.05, v, "ci")
    assert expected_ci_width(n, v) <= 0.05 < expected_ci_width(n - 1, v)


# (α, δ, σ²) → n as sakai-book's samplesizeCI2.py --use-gamma (paired) and samplesize2SAMPLECI.py
# (two samples: its c₄ ≈ 1 − 1/(4φ) form, and its Γ form where math.gamma does not overflow: the
# same n) print them; (0.05, 0.02, 0.0479): the two-sample script only (Γ overflows past n ≈ 170).
SAKAI_BOOK_CI = [
    (0.05, 0.1, 0.1, 156, 309), (0.05, 0.05, 0.05, 310, 616), (0.01, 0.1, 0.02, 57, 108),
    (0.05, 0.2, 0.3, 118, 232), (0.1, 0.05, 0.01, 45, 88), (0.05, 0.02, 0.0479, None, 3682),
    (0.05, 0.5, 0.1, None, 14), (0.05, 0.3, 0.05, None, 19), (0.05, 1.0, 0.2, None, 8), (0.05, 0.4, 0.2, None, 40),
]


@pytest.mark.parametrize("alpha, delta, variance, paired, two_sample", SAKAI_BOOK_CI)
def test_ci_designs_equal_sakai_books_tools(alpha, delta, variance, paired, two_sample):
    if paired is not None:
        assert topics_needed(delta, variance, "ci", alpha) == paired
    assert topics_needed(delta, variance, "two_sample_ci", alpha) == two_sample


def test_two_sample_ci_from_the_definition():
    """2·t_{.975,2n−2}·c₄(2n − 2)·√(2V/n), c₄(φ) = √(2/φ)·Γ((φ+1)/2)/Γ(φ/2): the expected width
    of the pooled interval of x̄ − ȳ with n topics per system; Sakai's condition
    t·Γ((φ+1)/2)/(√(nφ)·Γ(φ/2)) ≤ δ/(4√V) at the n found and not at n − 1."""
    v = 0.04
    for n in (2, 10, 80):
        df = 2 * n - 2
        c4 = math.sqrt(2 / df) * special.gamma((df + 1) / 2) / special.gamma(df / 2)
        assert expected_ci_width(n, v, design="two_sample_ci") == pytest.approx(
            2 * stats.t.ppf(0.975, df) * c4 * math.sqrt(2 * v / n), rel=1e-12)

    def sakai(n, delta=0.1):
        phi = 2 * n - 2
        left = stats.t.ppf(0.975, phi) * special.gamma((phi + 1) / 2) / (math.sqrt(n * phi) * special.gamma(phi / 2))
        return left <= delta / (4 * math.sqrt(v))

    n = topics_needed(0.1, v, "two_sample_ci")
    assert sakai(n) and not sakai(n - 1)
    assert expected_ci_width(n, v, design="two_sample_ci") <= 0.1 < expected_ci_width(n - 1, v, design="two_sample_ci")
    # x̄ − ȳ has the variance 2V/n of a paired mean with V_d = 2V: the same n but for the df
    # (2n − 2 against n − 1), which narrow the two-sample interval a little
    paired = topics_needed(0.1, 2 * v, "ci")
    assert paired - 1 <= n <= paired
    with pytest.raises(InputError, match="design"):
        expected_ci_width(10, v, design="paired_t")


def test_two_sample_ci_from_a_matrix(dl19_ap):
    result = design_topic_set(dl19_ap, min_diff=0.05, design="two_sample_ci")
    assert result.variance == pytest.approx(residual_variance(dl19_ap))
    assert result.n_topics == topics_needed(0.05, residual_variance(dl19_ap), "two_sample_ci")
    assert result.current_power is None
    assert result.current_min_diff == pytest.approx(
        expected_ci_width(result.current_topics, result.variance, design="two_sample_ci"))
    assert "topics per system for an expected interval width" in result.to_text()
    with pytest.raises(InputError, match="no power"):
        power(20, 0.1, 0.04, "two_sample_ci")


def test_residual_variance_equals_statsmodels_anova(dl19_ap):
    """V_E is the residual mean square of a two-way ANOVA without replication (system + topic)."""
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    matrix = dl19_ap
    frame = pl.DataFrame({"system": np.repeat(matrix.systems, len(matrix.topics)),
                          "topic": np.tile(matrix.topics, len(matrix.systems)),
                          "score": matrix.values.ravel()}).to_pandas()
    table = anova_lm(smf.ols("score ~ C(system) + C(topic)", data=frame).fit())
    expected = table.loc["Residual", "sum_sq"] / table.loc["Residual", "df"]
    assert residual_variance(matrix) == pytest.approx(expected, rel=1e-10)


@pytest.fixture(scope="module")
def dl19_ap(reference_data):
    import irstats

    d = reference_data / "trec-dl-2019-passage"
    return irstats.evaluate(d / "qrels.dl19-passage.txt", d / "runs", ["AP"])["AP"]


def test_design_from_a_matrix_reports_the_collection_at_hand(dl19_ap):
    result = design_topic_set(dl19_ap, min_diff=0.05)
    assert result.variance == pytest.approx(2 * residual_variance(dl19_ap))
    assert result.current_topics == len(dl19_ap.topics)
    assert power(result.current_topics, result.current_min_diff, result.variance) == pytest.approx(0.8, abs=1e-9)
    assert result.to_frame().columns == ["measure", "design", "alpha", "beta", "min_diff", "variance", "n_topics"]


@pytest.mark.parametrize("kwargs, message", [
    (dict(design="nope"), "unknown design"), (dict(alpha=1.5), "alpha"), (dict(beta=0), "beta"),
    (dict(min_diff=-0.1), "min_diff"), (dict(variance=0), "variance"),
])
def test_bad_arguments(kwargs, message):
    args = dict(min_diff=0.05, variance=0.04, design="paired_t", alpha=0.05, beta=0.2) | kwargs
    with pytest.raises(InputError, match=message):
        topics_needed(**args)


def test_cli_tsv():
    result = CliRunner().invoke(cli, ["topicset", "--variance", "0.0479", "--design", "paired_t", "--alpha", "0.05",
                                      "--beta", "0.2", "--min-diff", "0.05", "--format", "tsv"])
    assert result.exit_code == 0, result.output
    frame = pl.read_csv(result.output.encode(), separator="\t")
    assert frame.columns == ["measure", "design", "alpha", "beta", "min_diff", "variance", "n_topics"]
    expected = TTestPower().solve_power(effect_size=0.05 / math.sqrt(0.0479), alpha=0.05, power=0.8)
    assert frame["n_topics"][0] == math.ceil(expected)


def test_cli_two_sample_ci(capsys):
    code, out, err = run_cli(["topicset", "--variance", "0.1", "--design", "two_sample_ci", "--min-diff", "0.1",
                              "--format", "tsv"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t")
    assert frame["design"][0] == "two_sample_ci" and frame["n_topics"][0] == 309


def test_cli_needs_a_variance_or_scores(capsys):
    code, out, err = run_cli(["topicset", "--min-diff", "0.05"], capsys)
    assert code == 2 and "--variance" in err and "Traceback" not in err
