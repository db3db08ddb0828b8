"""Power analysis from an observed statistic (Sakai 2018, ch. 7; irstats.stats.power) against
statsmodels' power classes — TTestPower, TTestIndPower, FTestAnovaPower and FTestPowerF2 (R's
pwr.t.test, pwr.t2n.test, pwr.anova.test and pwr.f2.test) — and against the statistics Sakai's
book prints for its Table 5.1 data (paired t 2.116 and effect size 0.473 for A vs B; two-way
F 2.475 for the systems).

jerome-white/sakai-book's chapter 7 scripts (statsmodels reproductions of Sakai's R scripts)
print for ``pairedt.py --tstat 2.116 --n 20``: effect size 0.47315, power 0.51941, size 38 —
the values checked below. Its one-way ANOVA script's f̂ = √(F(m − 1)/(m(n − 1))) is ours
(0.29469 for F = 2.475, m = 3, n = 20); its power passes n as statsmodels' total nobs, so the
power here is statsmodels' with nobs = m·n.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from statsmodels.stats.power import FTestAnovaPower, FTestPowerF2, TTestIndPower, TTestPower

from irstats.errors import InputError
from irstats.scores import ScoreMatrix
from irstats.stats.power import (
    PowerAnalysis,
    achieved_power,
    future_sample_size,
    power_analysis,
    power_from_scores,
)
from tests.conftest import run_cli
from tests.test_anova import TABLE_5_1

ALPHAS_BETAS = [(0.05, 0.2), (0.01, 0.1), (0.1, 0.5)]


def _ceil(x: float) -> int:
    return max(2, math.ceil(x - 1e-9))  # a solver's 38.0000000001 is 38


@pytest.mark.parametrize("alpha, beta", ALPHAS_BETAS)
@pytest.mark.parametrize("t, n", [(2.116, 20), (-3.4, 50), (1.2, 10), (5.0, 8)])
def test_paired_t_equals_statsmodels(t, n, alpha, beta):
    result = power_analysis(t, "paired_t", n=n, alpha=alpha, beta=beta)
    d = abs(t) / math.sqrt(n)
    assert result.effect_size == pytest.approx(d, rel=1e-12)
    assert result.noncentrality == pytest.approx(abs(t), rel=1e-12)
    assert result.power == pytest.approx(TTestPower().power(d, n, alpha, alternative="two-sided"), abs=1e-10)
    needed = TTestPower().solve_power(d, power=1 - beta, alpha=alpha, alternative="two-sided")
    assert result.sample_size == _ceil(needed)


@pytest.mark.parametrize("alpha, beta", ALPHAS_BETAS)
@pytest.mark.parametrize("t, n1, n2", [(2.0, 20, 30), (2.0, 20, 20), (-2.8, 15, 40), (1.5, 50, 12)])
def test_two_sample_t_equals_statsmodels(t, n1, n2, alpha, beta):
    result = power_analysis(t, "two_sample_t", n=n1, n2=n2, alpha=alpha, beta=beta)
    d = abs(t) * math.sqrt(1 / n1 + 1 / n2)
    assert result.effect_size == pytest.approx(d, rel=1e-12)
    assert result.df1 == n1 + n2 - 2
    assert result.power == pytest.approx(TTestIndPower().power(d, n1, alpha, ratio=n2 / n1), abs=1e-10)
    needed = TTestIndPower().solve_power(d, power=1 - beta, alpha=alpha, ratio=1.0)
    assert result.sample_size == _ceil(needed)


@pytest.mark.parametrize("alpha, beta", ALPHAS_BETAS)
@pytest.mark.parametrize("f, m, n", [(2.475, 3, 20), (4.1, 5, 30), (1.3, 20, 50), (8.0, 2, 6)])
def test_one_way_anova_equals_statsmodels(f, m, n, alpha, beta):
    """Cohen's f̂² = φ_A·F/φ_E; power of pwr.anova.test(k = m, n, f̂) = FTestAnovaPower with
    nobs = m·n; the topics needed per system = its total nobs / m, rounded up."""
    result = power_analysis(f, "one_way_anova", n=n, n_systems=m, alpha=alpha, beta=beta)
    fhat = math.sqrt((m - 1) * f / (m * (n - 1)))
    assert result.effect_size == pytest.approx(fhat, rel=1e-12)
    assert result.power == pytest.approx(FTestAnovaPower().power(fhat, m * n, alpha, k_groups=m), abs=1e-10)
    total = FTestAnovaPower().solve_power(fhat, alpha=alpha, power=1 - beta, k_groups=m)
    assert result.sample_size == _ceil(total / m)


@pytest.mark.parametrize("alpha, beta", ALPHAS_BETAS)
@pytest.mark.parametrize("f, m, n", [(2.475, 3, 20), (4.1, 5, 30), (1.3, 20, 50), (8.0, 2, 6)])
def test_two_way_anova_equals_statsmodels(f, m, n, alpha, beta):
    """f̂² = φ_A·F/φ_E with φ_E = (m − 1)(n − 1); power of pwr.f2.test(u = φ_A, v = φ_E, f̂²)
    (FTestPowerF2, λ = f̂²(u + v + 1)) and of FTestAnovaPower with Cohen's n′ (nobs = φ_E + m);
    the topics needed: the v that gives the power, as n′ = v/(m − 1) + 1 rounded up."""
    result = power_analysis(f, "two_way_anova", n=n, n_systems=m, alpha=alpha, beta=beta)
    u, v = m - 1, (m - 1) * (n - 1)
    f2 = u * f / v
    assert result.effect_size == pytest.approx(math.sqrt(f2), rel=1e-12)
    expected = FTestPowerF2().power(f2, df_num=u, df_denom=v, alpha=alpha, ncc=1)
    assert result.power == pytest.approx(expected, abs=1e-10)
    assert result.power == pytest.approx(FTestAnovaPower().power(math.sqrt(f2), v + m, alpha, k_groups=m), abs=1e-10)
    v_needed = FTestPowerF2().solve_power(f2, df_num=u, df_denom=None, alpha=alpha, power=1 - beta, ncc=1)
    assert result.sample_size == max(2, math.ceil(v_needed / u - 1e-9) + 1)


@pytest.mark.parametrize("effect", ["systems", "topics", "interaction"])
@pytest.mark.parametrize("f, m, n, r", [(2.1, 4, 6, 3), (1.4, 3, 10, 2), (3.0, 5, 4, 4)])
def test_two_way_anova_replicated_equals_cohens_method(effect, f, m, n, r):
    """Cohen's method as sakai-book's 2wayanova.py applies it: n′ = φ_E/(φ + 1) + 1 and
    pwr.anova.test(k = φ + 1, n′, f̂) — FTestAnovaPower with nobs = (φ + 1)·n′; the replicates
    needed per cell from the n′ that gives the power: (n′ − 1)(φ + 1)/(mn) + 1, rounded up."""
    result = power_analysis(f, "two_way_anova_replicated", n=r, n_systems=m, n_topics=n, effect=effect)
    phi = {"systems": m - 1, "topics": n - 1, "interaction": (m - 1) * (n - 1)}[effect]
    phi_e = m * n * (r - 1)
    fhat = math.sqrt(phi * f / phi_e)
    assert (result.df1, result.df2) == (phi, phi_e)
    assert result.effect_size == pytest.approx(fhat, rel=1e-12)
    n_prime = phi_e / (phi + 1) + 1
    assert result.power == pytest.approx(FTestAnovaPower().power(fhat, (phi + 1) * n_prime, 0.05, k_groups=phi + 1),
                                         abs=1e-10)
    total = FTestAnovaPower().solve_power(fhat, alpha=0.05, power=0.8, k_groups=phi + 1)
    per_cell = (total / (phi + 1) - 1) * (phi + 1) / (m * n) + 1
    assert result.sample_size == _ceil(per_cell)
    assert result.unit == "replicates per cell"


def test_sakai_table_5_1_from_scores_and_as_printed():
    """A vs B: the book's paired t = 2.116 and effect size 0.473; the same analysis from
    the printed t (sakai-book's pairedt.py: 0.47315, 0.51941, 38)."""
    matrix = ScoreMatrix(TABLE_5_1, ("A", "B", "C"), tuple(str(j) for j in range(20)), "AP")
    result = power_from_scores(matrix, "paired_t", ("A", "B"))
    assert result.statistic == pytest.approx(2.116, abs=1e-3)
    assert result.effect_size == pytest.approx(0.473, abs=1e-3)
    printed = power_analysis(2.116, "paired_t", n=20)
    assert printed.effect_size == pytest.approx(0.47315, abs=1e-5)
    assert printed.power == pytest.approx(0.51941, abs=1e-5)
    assert printed.sample_size == 38 == result.sample_size
    assert result.compared == ("A", "B") and result.measure == "AP"
    # the book's two-way ANOVA: F = 2.475 for the systems, φ = 2, φ_E = 38
    two_way = power_from_scores(matrix, "two_way_anova")
    assert two_way.statistic == pytest.approx(2.475, abs=1e-3)
    assert (two_way.df1, two_way.df2) == (2, 38)
    assert two_way.power == pytest.approx(power_analysis(two_way.statistic, "two_way_anova", n=20,
                                                         n_systems=3).power, rel=1e-12)


def test_from_scores_runs_the_test_it_names():
    from scipy import stats

    matrix = ScoreMatrix(TABLE_5_1, ("A", "B", "C"), tuple(str(j) for j in range(20)), "AP")
    student = stats.ttest_ind(TABLE_5_1[0], TABLE_5_1[2], equal_var=True).statistic
    result = power_from_scores(matrix, "two_sample_t", ["A", "C"])
    assert result.statistic == pytest.approx(abs(student), rel=1e-12)
    assert (result.n, result.n2) == (20, 20)
    one_way = power_from_scores(matrix, "one_way_anova")
    assert one_way.statistic == pytest.approx(stats.f_oneway(*TABLE_5_1).statistic, rel=1e-12)
    assert (one_way.df1, one_way.df2) == (2, 57)
    rng = np.random.default_rng(5)
    reps = [ScoreMatrix(TABLE_5_1 + rng.normal(0, 0.05, TABLE_5_1.shape), ("A", "B", "C"),
                        tuple(str(j) for j in range(20)), "AP") for _ in range(3)]
    from irstats.stats.anova import anova_with_replication

    table = anova_with_replication(reps)
    for effect in ("systems", "topics", "interaction"):
        result = power_from_scores(reps, "two_way_anova_replicated", effect=effect)
        assert result.statistic == pytest.approx(table.f_statistic(effect), rel=1e-12)
        assert (result.df1, result.df2) == (table.df_of(effect), table.residual_df)
        assert (result.n, result.n_topics, result.n_systems) == (3, 20, 3)


def test_no_effect_has_power_alpha_and_no_sample_size():
    for test, kwargs in [("paired_t", {}), ("two_way_anova", {"n_systems": 4})]:
        result = power_analysis(0.0, test, n=30, **kwargs)
        assert result.power == pytest.approx(0.05, abs=1e-12)
        assert result.sample_size is None
        assert "no sample size" in result.title
    tiny = power_analysis(0.001, "paired_t", n=30)  # would need ~10^10 topics
    assert tiny.sample_size is None and "more than 1,000,000" in tiny.title


def test_wrappers_and_power_grows_with_the_statistic():
    assert achieved_power(2.116, "paired_t", n=20) == power_analysis(2.116, n=20).power
    assert future_sample_size(2.116, "paired_t", n=20) == 38
    powers = [achieved_power(f, "one_way_anova", n=20, n_systems=4) for f in (0.5, 1.0, 2.0, 4.0, 8.0)]
    assert powers == sorted(powers) and powers[-1] > 0.99
    sizes = [future_sample_size(t, "paired_t", n=20) for t in (1.0, 2.0, 4.0)]
    assert sizes == sorted(sizes, reverse=True)


@pytest.mark.parametrize("call, message", [
    (lambda: power_analysis(2.0, "z_test", n=20), "unknown test"),
    (lambda: power_analysis(2.0, "one_way_anova", n=20), "n_systems"),
    (lambda: power_analysis(2.0, "paired_t", n=20, n2=10), "n2"),
    (lambda: power_analysis(-1.0, "two_way_anova", n=20, n_systems=3), "statistic"),
    (lambda: power_analysis(2.0, "two_way_anova", n=20, n_systems=3, effect="topics"), "effect"),
    (lambda: power_analysis(2.0, "two_way_anova_replicated", n=2, n_systems=3), "n_topics"),
    (lambda: power_analysis(2.0, "paired_t", n=1), "n"),
    (lambda: power_analysis(float("nan"), "paired_t", n=10), "statistic"),
    (lambda: power_analysis(2.0, "paired_t", n=10, alpha=1.5), "alpha"),
])
def test_bad_arguments(call, message):
    with pytest.raises(InputError, match=message):
        call()


def test_bad_scores():
    matrix = ScoreMatrix(TABLE_5_1, ("A", "B", "C"), tuple(str(j) for j in range(20)), "AP")
    with pytest.raises(InputError, match="two systems"):
        power_from_scores(matrix, "paired_t")
    with pytest.raises(InputError, match="list of score matrices"):
        power_from_scores(matrix, "two_way_anova_replicated")
    flat = ScoreMatrix(np.vstack([TABLE_5_1[0], TABLE_5_1[0] + 0.1]), ("A", "B"), matrix.topics, "AP")
    with pytest.warns(UserWarning), pytest.raises(InputError, match="no power"):
        power_from_scores(flat, "paired_t")


def test_result_prints_itself():
    result = power_analysis(2.475, "two_way_anova", n=20, n_systems=3, measure="AP")
    assert isinstance(result, PowerAnalysis)
    assert result.to_frame().columns == ["measure", "test", "compared", "effect", "statistic", "df1", "df2",
                                         "effect_size", "noncentrality", "alpha", "power", "beta", "n", "n2",
                                         "sample_size", "unit"]
    text = result.to_text()
    assert text.startswith("AP: two-way ANOVA without replication, F = 2.475 with 3 systems × 20 topics")
    assert "39 topics for power 0.8" in text and "Cohen's f" in text
    assert "| AP | two_way_anova |" in result.to_markdown()
    latex = result.to_latex()
    assert "\\begin{table" in latex and "\\label{tab:power-" in latex and "\\toprule" in latex
    frame = pl.read_csv(result.to_tsv().encode(), separator="\t")
    assert frame["sample_size"][0] == 39 and frame["power"][0] == pytest.approx(result.power, rel=1e-15)
    assert result.format("json").lstrip().startswith("[")


# ----------------------------------------------------------------------------- command line

def _scores_file(tmp_path, values, name="scores.tsv"):
    path = tmp_path / name
    lines = ["system\ttopic\tmeasure\tvalue"]
    lines += [f"{'ABC'[i]}\t{j + 1}\tAP\t{float(values[i, j])!r}" for i in range(values.shape[0])
              for j in range(values.shape[1])]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("args, expected", [
    (["--test", "paired_t", "--t", "2.116", "--n", "20"], lambda: power_analysis(2.116, "paired_t", n=20)),
    (["--test", "two_sample_t", "--t", "2.0", "--n", "20", "--n2", "30"],
     lambda: power_analysis(2.0, "two_sample_t", n=20, n2=30)),
    (["--test", "one_way_anova", "--f", "2.475", "--m", "3", "--n", "20", "--alpha", "0.01", "--beta", "0.1"],
     lambda: power_analysis(2.475, "one_way_anova", n=20, n_systems=3, alpha=0.01, beta=0.1)),
    (["--test", "two_way_anova_replicated", "--f", "1.9", "--m", "4", "--n", "6", "--replicates", "3", "--effect",
      "interaction"],
     lambda: power_analysis(1.9, "two_way_anova_replicated", n=3, n_topics=6, n_systems=4, effect="interaction")),
])
@pytest.mark.parametrize("fmt", ["table", "tsv", "latex"])
def test_cli_from_a_statistic_prints_the_result(args, expected, fmt, capsys):
    code, out, err = run_cli(["power", *args, "--format", fmt], capsys)
    assert code == 0, err
    assert out == expected().format(fmt)


def test_cli_from_scores(tmp_path, capsys):
    path = _scores_file(tmp_path, TABLE_5_1)
    code, out, err = run_cli(["power", path, "-m", "AP", "--test", "paired_t", "--systems", "A", "B", "--format",
                              "tsv"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t")
    assert frame["compared"][0] == "A vs B" and frame["statistic"][0] == pytest.approx(2.116, abs=1e-3)
    assert frame["sample_size"][0] == 38
    code, out, err = run_cli(["power", path, "--test", "two_way_anova"], capsys)
    assert code == 0, err
    assert out.startswith("AP: two-way ANOVA without replication, F = 2.475 with 3 systems × 20 topics")
    rng = np.random.default_rng(1)
    other = _scores_file(tmp_path, TABLE_5_1 + rng.normal(0, 0.05, TABLE_5_1.shape), "again.tsv")
    code, out, err = run_cli(["power", path, "--replicate", other, "--test", "two_way_anova_replicated", "--effect",
                              "topics", "--format", "tsv"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t")
    assert frame["effect"][0] == "topics" and frame["unit"][0] == "replicates per cell"
    assert (frame["df1"][0], frame["df2"][0]) == (19, 60)


@pytest.mark.parametrize("args, message", [
    (["--test", "paired_t", "--n", "20"], "--t"),
    (["--test", "paired_t", "--t", "2", "--f", "3", "--n", "20"], "not F"),
    (["--test", "one_way_anova", "--f", "2", "--n", "20"], "--m"),
    (["--test", "paired_t", "--t", "2"], "--n"),
    (["--test", "two_way_anova_replicated", "--f", "2", "--n", "20", "--m", "3"], "--replicates"),
])
def test_cli_errors_in_one_line(args, message, capsys):
    code, out, err = run_cli(["power", *args], capsys)
    assert code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_help_has_examples(capsys):
    code, out, err = run_cli(["power", "--help"], capsys)
    assert code == 0 and "Examples:" in out and "irstats power --test paired_t --t 2.116 --n 20" in out
