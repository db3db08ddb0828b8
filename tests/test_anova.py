"""ANOVA (Sakai 2018; METHODS.md §5.7) against the values Sakai's book prints for its Table 5.1
data (as elinor's tests reproduce them), statsmodels' anova_lm (two-way with replication: the
OLS model with interaction) and a direct studentized-range computation of the classic Tukey
HSD; its simultaneous intervals against scipy's ``tukey_hsd`` (one-way) and statsmodels'
``tukeyhsd`` with the ANOVA's residual variance and df (two-way, with and without replication)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from irstats.errors import InputError
from irstats.scores import ScoreMatrix
from irstats.stats.anova import anova, anova_with_replication
from tests.conftest import run_cli

# Sakai's Table 5.1: three systems on 20 topics.
TABLE_5_1 = np.array([
    [0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30, 0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20,
     0.10],
    [0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30, 0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60, 0.30,
     0.20],
    [0.00, 0.00, 0.20, 0.10, 0.30, 0.30, 0.10, 0.20, 0.40, 0.40, 0.40, 0.30, 0.30, 0.20, 0.20, 0.20, 0.10, 0.50, 0.40,
     0.30],
])


def _matrix(values, measure="AP"):
    values = np.asarray(values, dtype=float)
    return ScoreMatrix(values, tuple(f"s{i}" for i in range(values.shape[0])),
                       tuple(str(j + 1) for j in range(values.shape[1])), measure)


def test_two_way_anova_matches_sakai_table_5_1():
    result = anova(_matrix(TABLE_5_1))
    frame = {r["source"]: r for r in result.to_frame().iter_rows(named=True)}
    assert frame["systems"]["variation"] == pytest.approx(0.1083, abs=1e-4)
    assert frame["topics"]["variation"] == pytest.approx(1.0293, abs=1e-4)
    assert frame["residual"]["variation"] == pytest.approx(0.8317, abs=1e-4)
    assert frame["total"]["variation"] == pytest.approx(1.9693, abs=1e-4)
    assert frame["systems"]["variance"] == pytest.approx(0.0542, abs=1e-4)
    assert frame["topics"]["variance"] == pytest.approx(0.0542, abs=1e-4)
    assert frame["residual"]["variance"] == pytest.approx(0.0219, abs=1e-4)
    assert frame["systems"]["F"] == pytest.approx(2.475, abs=1e-3)
    assert frame["systems"]["p"] == pytest.approx(0.098, abs=1e-3)
    assert frame["topics"]["p"] == pytest.approx(0.009, abs=1e-3)


@pytest.fixture(scope="module")
def dl19_ap(reference_data):
    import irstats

    d = reference_data / "trec-dl-2019-passage"
    return irstats.evaluate(d / "qrels.dl19-passage.txt", d / "runs", ["AP"])["AP"]


@pytest.mark.parametrize("design, formula", [("two-way", "score ~ C(system) + C(topic)"),
                                             ("one-way", "score ~ C(system)")])
def test_anova_equals_statsmodels_on_dl19(dl19_ap, design, formula):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    m = dl19_ap
    data = pl.DataFrame({"system": np.repeat(m.systems, len(m.topics)), "topic": np.tile(m.topics, len(m.systems)),
                         "score": m.values.ravel()}).to_pandas()
    table = anova_lm(smf.ols(formula, data=data).fit())
    ours = {r["source"]: r for r in anova(m, design).to_frame().iter_rows(named=True)}
    for source, label in (("systems", "C(system)"), ("topics", "C(topic)"), ("residual", "Residual")):
        if label not in table.index:
            continue
        assert ours[source]["variation"] == pytest.approx(table.loc[label, "sum_sq"], rel=1e-9)
        assert ours[source]["df"] == table.loc[label, "df"]
        assert ours[source]["variance"] == pytest.approx(table.loc[label, "mean_sq"], rel=1e-9)
        if source != "residual":
            assert ours[source]["F"] == pytest.approx(table.loc[label, "F"], rel=1e-9)
            assert ours[source]["p"] == pytest.approx(table.loc[label, "PR(>F)"], rel=1e-7, abs=1e-300)


def test_omega_squared_and_margin_of_error_from_their_definitions():
    x = TABLE_5_1
    m, n = x.shape
    grand = x.mean()
    s_t = ((x - grand) ** 2).sum()
    s_a = n * ((x.mean(axis=1) - grand) ** 2).sum()
    s_b = m * ((x.mean(axis=0) - grand) ** 2).sum()
    v_e = (s_t - s_a - s_b) / ((m - 1) * (n - 1))
    result = anova(_matrix(x))
    assert result.omega_squared == pytest.approx((s_a - (m - 1) * v_e) / (s_t + v_e), rel=1e-12)
    moe = stats.t.ppf(0.975, (m - 1) * (n - 1)) * np.sqrt(v_e / n)
    assert result.margin_of_error == pytest.approx(moe, rel=1e-12)
    frame = result.system_frame()
    np.testing.assert_allclose(frame["ci_high"] - frame["ci_low"], 2 * moe, rtol=1e-12)


def test_classic_tukey_equals_a_direct_studentized_range_computation():
    x = TABLE_5_1
    m, n = x.shape
    result = anova(_matrix(x))
    v_e = result.residual_variance
    for row in result.tukey().iter_rows(named=True):
        i, j = int(row["system_a"][1]), int(row["system_b"][1])
        delta = x[i].mean() - x[j].mean()
        q = abs(delta) / np.sqrt(v_e / n)
        assert row["q"] == pytest.approx(q, rel=1e-12)
        assert row["p"] == pytest.approx(stats.studentized_range.sf(q, m, (m - 1) * (n - 1)), rel=1e-9)
        assert row["es_e"] == pytest.approx(delta / np.sqrt(v_e), rel=1e-12)


def test_errors():
    with pytest.raises(InputError, match="design"):
        anova(_matrix(TABLE_5_1), "three-way")
    with pytest.raises(InputError, match="at least 2 systems"):
        anova(_matrix(TABLE_5_1[:1]))


def test_cli(tmp_path, capsys):
    path = tmp_path / "scores.tsv"
    lines = ["system\ttopic\tmeasure\tvalue"]
    lines += [f"s{i}\t{j + 1}\tAP\t{TABLE_5_1[i, j]}" for i in range(3) for j in range(20)]
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(["anova", str(path), "--format", "tsv"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t")
    assert frame.columns == ["measure", "source", "variation", "df", "variance", "F", "p"]
    assert float(frame.filter(pl.col("source") == "systems")["F"][0]) == pytest.approx(2.475, abs=1e-3)
    code, out, err = run_cli(["anova", str(path), "--tukey", "--format", "tsv"], capsys)
    assert code == 0, err
    assert out.splitlines()[0].split("\t") == ["measure", "system_a", "system_b", "delta", "ci_low", "ci_high", "q",
                                               "p", "es_e"]
    assert "simultaneous" in err  # the legend, on stderr with a data format
    code, out, err = run_cli(["anova", str(path), "--tukey", "--confidence", "0.9"], capsys)
    assert code == 0, err
    assert out == anova(_matrix(TABLE_5_1), confidence=0.9).tukey_view().to_text()
    assert "90% simultaneous intervals" in out


# ----------------------------------------------------------------------------- Tukey's intervals

@pytest.mark.parametrize("confidence", [0.95, 0.9, 0.99])
def test_tukey_intervals_one_way_equal_scipy_and_statsmodels(confidence):
    """One-way: scipy's tukey_hsd and statsmodels' pairwise_tukeyhsd on the systems as groups."""
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    frame = anova(_matrix(TABLE_5_1), "one-way", confidence).tukey()
    ci = stats.tukey_hsd(*TABLE_5_1).confidence_interval(confidence)
    m, n = TABLE_5_1.shape
    sm = pairwise_tukeyhsd(TABLE_5_1.ravel(), np.repeat([f"s{i}" for i in range(m)], n), alpha=1 - confidence)
    for k, row in enumerate(frame.iter_rows(named=True)):
        i, j = int(row["system_a"][1]), int(row["system_b"][1])
        assert row["ci_low"] == pytest.approx(ci.low[i, j], rel=1e-10)
        assert row["ci_high"] == pytest.approx(ci.high[i, j], rel=1e-10)
        # statsmodels writes mean_b − mean_a
        assert row["ci_low"] == pytest.approx(-sm.confint[k, 1], rel=1e-10)
        assert row["ci_high"] == pytest.approx(-sm.confint[k, 0], rel=1e-10)
        assert (row["ci_low"] > 0 or row["ci_high"] < 0) == (row["p"] < 1 - confidence)


def _statsmodels_tukey(means, variance, per_mean, df, confidence):
    from statsmodels.sandbox.stats.multicomp import tukeyhsd

    m = len(means)
    # balanced: one nobs and one variance; df per group, summing to the residual df
    return tukeyhsd(means, per_mean, variance, df=np.full(m, df / m), alpha=1 - confidence)[4]


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_tukey_intervals_two_way_equal_statsmodels(dl19_ap, confidence):
    m = dl19_ap.subset(dl19_ap.systems[:6])
    result = anova(m, "two-way", confidence)
    frame = result.tukey()
    confint = _statsmodels_tukey(result.means, result.residual_variance, len(result.topics), result.residual_df,
                                 confidence)
    np.testing.assert_allclose(frame["ci_low"], -confint[:, 1], rtol=1e-10)
    np.testing.assert_allclose(frame["ci_high"], -confint[:, 0], rtol=1e-10)
    half = (frame["ci_high"] - frame["ci_low"]) / 2
    q = stats.studentized_range.ppf(confidence, 6, result.residual_df)
    np.testing.assert_allclose(half, q * np.sqrt(result.residual_variance / len(result.topics)), rtol=1e-12)


# ----------------------------------------------------------------------------- with replication

def _replicates(r=3, m=4, n=6, seed=0, interaction=0.0):
    rng = np.random.default_rng(seed)
    base = rng.random((m, n)) + np.arange(m)[:, None] * 0.05 + rng.normal(0, interaction, (m, n))
    cube = base[None] + rng.normal(0, 0.1, (r, m, n))
    systems = tuple(f"s{i}" for i in range(m))
    topics = tuple(f"t{j}" for j in range(n))
    return cube, [ScoreMatrix(cube[k], systems, topics, "AP") for k in range(r)]


def _statsmodels_replicated(cube):
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    r, m, n = cube.shape
    data = pd.DataFrame([(f"s{i}", f"t{j}", cube[k, i, j]) for k in range(r) for i in range(m) for j in range(n)],
                        columns=["system", "topic", "score"])
    return anova_lm(smf.ols("score ~ C(system) * C(topic)", data=data).fit())


@pytest.mark.parametrize("r, m, n, seed, interaction", [(3, 4, 6, 0, 0.0), (2, 3, 10, 1, 0.2), (5, 6, 4, 2, 0.1)])
def test_anova_with_replication_equals_statsmodels(r, m, n, seed, interaction):
    cube, reps = _replicates(r, m, n, seed, interaction)
    table = _statsmodels_replicated(cube)
    ours = {row["source"]: row for row in anova_with_replication(reps).to_frame().iter_rows(named=True)}
    for source, label in (("systems", "C(system)"), ("topics", "C(topic)"), ("interaction", "C(system):C(topic)"),
                          ("residual", "Residual")):
        assert ours[source]["variation"] == pytest.approx(table.loc[label, "sum_sq"], rel=1e-9)
        assert ours[source]["df"] == table.loc[label, "df"]
        assert ours[source]["variance"] == pytest.approx(table.loc[label, "mean_sq"], rel=1e-9)
        if source != "residual":
            assert ours[source]["F"] == pytest.approx(table.loc[label, "F"], rel=1e-9)
            assert ours[source]["p"] == pytest.approx(table.loc[label, "PR(>F)"], rel=1e-7, abs=1e-300)
    assert ours["total"]["variation"] == pytest.approx(((cube - cube.mean()) ** 2).sum(), rel=1e-12)
    assert ours["total"]["df"] == r * m * n - 1


def test_replication_means_intervals_and_tukey():
    cube, reps = _replicates(4, 5, 8, seed=3)
    result = anova_with_replication(reps)
    r, m, n = cube.shape
    assert result.replicates == 4 and result.per_mean == n * r
    np.testing.assert_allclose(result.means, cube.mean(axis=(0, 2)), rtol=1e-12)
    v_e = ((cube - cube.mean(axis=0)) ** 2).sum() / (m * n * (r - 1))
    assert result.residual_variance == pytest.approx(v_e, rel=1e-12)
    assert result.margin_of_error == pytest.approx(stats.t.ppf(0.975, m * n * (r - 1)) * np.sqrt(v_e / (n * r)),
                                                   rel=1e-12)
    s_a = n * r * ((cube.mean(axis=(0, 2)) - cube.mean()) ** 2).sum()
    s_t = ((cube - cube.mean()) ** 2).sum()
    assert result.omega_squared == pytest.approx((s_a - (m - 1) * v_e) / (s_t + v_e), rel=1e-12)
    frame = result.tukey()
    confint = _statsmodels_tukey(result.means, v_e, n * r, m * n * (r - 1), 0.95)
    np.testing.assert_allclose(frame["ci_low"], -confint[:, 1], rtol=1e-10)
    q = np.abs(frame["delta"].to_numpy()) / np.sqrt(v_e / (n * r))
    np.testing.assert_allclose(frame["q"], q, rtol=1e-12)
    np.testing.assert_allclose(frame["p"], stats.studentized_range.sf(q, m, m * n * (r - 1)), rtol=1e-9)
    assert "× 4 replicates" in result.title and result.design == "two-way with replication"


def test_replicates_are_matched_by_system_name_and_complete_topics():
    cube, reps = _replicates(3, 4, 6, seed=4)
    shuffled = reps[1].subset(reps[1].systems[::-1], reps[1].topics[::-1])
    expected = anova_with_replication(reps).to_frame()
    assert anova_with_replication([reps[0], shuffled, reps[2]]).to_frame().equals(expected)
    holed = reps[2].values.copy()
    holed[1, 2] = np.nan
    with pytest.warns(UserWarning, match="1 of 6 topics"):
        result = anova_with_replication([reps[0], reps[1], ScoreMatrix(holed, reps[2].systems, reps[2].topics, "AP")])
    assert len(result.topics) == 5 and "t2" not in result.topics


@pytest.mark.parametrize("replicates, message", [
    (lambda reps: reps[0], "list of ScoreMatrix"),
    (lambda reps: reps[:1], "at least 2 replicates"),
    (lambda reps: [reps[0], reps[1].subset(reps[1].systems[:3])], "same systems"),
    (lambda reps: [reps[0], ScoreMatrix(reps[1].values, reps[1].systems, reps[1].topics, "P@10")], "one measure"),
    (lambda reps: [reps[0], reps[1].subset(None, reps[1].topics[:1])], "at least 2 systems and 2 topics"),
    (lambda reps: [reps[0], "x"], "replicates\\[1\\]"),
])
def test_replication_errors(replicates, message):
    _, reps = _replicates()
    with pytest.raises(InputError, match=message):
        with pytest.warns(UserWarning) if "2 topics" in message else _no_warning():
            anova_with_replication(replicates(reps))


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_cli_with_replicates(tmp_path, capsys):
    cube, reps = _replicates(3, 4, 6, seed=6)
    paths = []
    for k, matrix in enumerate(reps):
        path = tmp_path / f"seed{k}.tsv"
        lines = ["system\ttopic\tmeasure\tvalue"]
        lines += [f"{s}\t{t}\tAP\t{float(matrix.values[i, j])!r}" for i, s in enumerate(matrix.systems)
                  for j, t in enumerate(matrix.topics)]
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    code, out, err = run_cli(["anova", paths[0], "--replicate", paths[1], "--replicate", paths[2]], capsys)
    assert code == 0, err
    assert out == anova_with_replication(reps).to_text()
    code, out, err = run_cli(["anova", paths[0], "--replicate", paths[1], "--replicate", paths[2], "--tukey",
                              "--format", "markdown"], capsys)
    assert code == 0, err
    assert out == anova_with_replication(reps).tukey_view().to_markdown()
    code, out, err = run_cli(["anova", paths[0], "--replicate", paths[1], "--one-way"], capsys)
    assert code == 2 and "--one-way" in err
