"""ANOVA (Sakai 2018; METHODS.md §5.7) against the values Sakai's book prints for its Table 5.1
data (as elinor's tests reproduce them), statsmodels' anova_lm and a direct studentized-range
computation of the classic Tukey HSD."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from irstats.errors import InputError
from irstats.scores import ScoreMatrix
from irstats.stats.anova import anova
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
def dl19_ap(shared_data):
    import irstats

    d = shared_data / "trec-dl-2019-passage"
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
    assert out.splitlines()[0].split("\t") == ["measure", "system_a", "system_b", "delta", "q", "p", "es_e"]
