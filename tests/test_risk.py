"""Risk-sensitive evaluation (METHODS.md §5.7) against plain per-topic loops written from the
papers' definitions (Dinçer, Macdonald & Ounis, SIGIR 2014 and 2016), and by hand."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from irstats.cli.main import cli
from irstats.errors import InputError
from irstats.scores import ScoreMatrix
from irstats.stats.risk import risk
from tests.conftest import examples


def loop_urisk_trisk(x, b, alpha):
    deltas = []
    for xi, bi in zip(x, b):
        d = xi - bi
        deltas.append(d if d >= 0 else (1 + alpha) * d)
    n = len(deltas)
    mean = sum(deltas) / n
    var = sum((d - mean) ** 2 for d in deltas) / (n - 1)
    return mean, mean / math.sqrt(var / n)


def loop_zrisk_georisk(rows, alpha):
    m, c = len(rows), len(rows[0])
    row_totals = [sum(r) for r in rows]
    col_totals = [sum(rows[i][j] for i in range(m)) for j in range(c)]
    total = sum(row_totals)
    out = []
    for i in range(m):
        z_risk = 0.0
        for j in range(c):
            e = row_totals[i] * col_totals[j] / total
            z = (rows[i][j] - e) / math.sqrt(e) if e > 0 else 0.0
            z_risk += z if rows[i][j] >= e else (1 + alpha) * z
        phi = 0.5 * (1 + math.erf(z_risk / c / math.sqrt(2)))
        out.append((z_risk, math.sqrt(row_totals[i] / c * phi)))
    return out


def _matrix(values):
    values = np.asarray(values, dtype=float)
    return ScoreMatrix(values, tuple(f"s{i}" for i in range(values.shape[0])),
                       tuple(str(400 + j) for j in range(values.shape[1])), "AP")


def test_trisk_by_hand():
    """x − b = (0.2, −0.1, 0.1), α = 1: δ′ = (0.2, −0.2, 0.1), mean 1/30, sd² = 0.0433…,
    SE = √(0.043333/3) = 0.120185, TRisk = 0.27735."""
    result = risk(_matrix([[0.5, 0.2, 0.4], [0.3, 0.3, 0.3]]), "s1", alpha=1)
    assert result.urisk[0] == pytest.approx(1 / 30, abs=1e-15)
    sd = math.sqrt(((0.2 - 1 / 30) ** 2 + (-0.2 - 1 / 30) ** 2 + (0.1 - 1 / 30) ** 2) / 2)
    assert sd / math.sqrt(3) == pytest.approx(0.120185, abs=1e-6)
    assert result.trisk[0] == pytest.approx(0.27735, abs=1e-5)
    assert result.urisk[1] == 0 and result.trisk[1] == 0  # the baseline against itself


@settings(max_examples=examples(60), deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(2, 12)),
              elements=st.floats(0, 1, allow_nan=False)), st.sampled_from([0.0, 1.0, 2.5, 5.0]))
def test_risk_equals_plain_loops(values, alpha):
    result = risk(_matrix(values), "s0", alpha=alpha)
    rows = values.tolist()
    for i, row in enumerate(rows):
        deltas = [a - b for a, b in zip(row, rows[0])]
        weighted = [d if d >= 0 else (1 + alpha) * d for d in deltas]
        mean = sum(weighted) / len(weighted)
        assert result.urisk[i] == pytest.approx(mean, abs=1e-12)
        if max(weighted) - min(weighted) > 1e-9:
            assert result.trisk[i] == pytest.approx(loop_urisk_trisk(row, rows[0], alpha)[1], rel=1e-9, abs=1e-9)
    if values.sum() > 0:
        for i, (z_risk, geo) in enumerate(loop_zrisk_georisk(rows, alpha)):
            assert result.zrisk[i] == pytest.approx(z_risk, rel=1e-9, abs=1e-9)
            assert result.georisk[i] == pytest.approx(geo, rel=1e-9, abs=1e-12)


def test_zrisk_of_independent_scores_is_zero():
    """A matrix whose scores are exactly row total × column total / N has every z_ij = 0."""
    rows, cols = np.array([0.2, 0.5, 0.3]), np.array([0.1, 0.4, 0.2, 0.3])
    result = risk(_matrix(np.outer(rows, cols)), "s0", alpha=3)
    np.testing.assert_allclose(result.zrisk, 0, atol=1e-12)
    np.testing.assert_allclose(result.georisk, np.sqrt(np.outer(rows, cols).mean(axis=1) * 0.5), rtol=1e-12)


def test_topics_missing_for_a_system_are_left_out_with_a_warning():
    values = np.array([[0.5, np.nan, 0.4, 0.1], [0.3, 0.3, 0.3, 0.2]])
    with pytest.warns(UserWarning, match="1 of 4 topics"):
        result = risk(_matrix(values), "s1")
    assert result.topics == ("400", "402", "403")
    assert result.urisk[0] == pytest.approx(loop_urisk_trisk([0.5, 0.4, 0.1], [0.3, 0.3, 0.2], 1.0)[0])


@pytest.mark.parametrize("kwargs, message", [({"baseline": "nope"}, "not one of the systems"),
                                             ({"baseline": "s0", "alpha": -1}, "alpha must be")])
def test_bad_arguments(kwargs, message):
    with pytest.raises(InputError, match=message):
        risk(_matrix([[0.1, 0.2], [0.3, 0.4]]), **kwargs)


def test_negative_scores_are_refused():
    with pytest.raises(InputError, match=">= 0"):
        risk(_matrix([[0.1, -0.2], [0.3, 0.4]]), "s0")


def test_cli_tsv(tmp_path):
    path = tmp_path / "scores.tsv"
    lines = ["system\ttopic\tmeasure\tvalue"]
    values = {"bm25": [0.3, 0.5, 0.1], "neural": [0.6, 0.2, 0.4]}
    for system, row in values.items():
        lines += [f"{system}\t{401 + j}\tAP\t{v}" for j, v in enumerate(row)]
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(cli, ["risk", str(path), "--baseline", "bm25", "-m", "AP", "--alpha", "1",
                                      "--format", "tsv"])
    assert result.exit_code == 0, result.output
    frame = pl.read_csv(result.stdout.encode(), separator="\t")  # (the legend goes to stderr)
    assert frame.columns == ["measure", "system", "baseline", "alpha", "urisk", "trisk", "zrisk", "georisk"]
    neural = frame.filter(pl.col("system") == "neural").row(0, named=True)
    assert neural["urisk"] == pytest.approx(loop_urisk_trisk([0.6, 0.2, 0.4], [0.3, 0.5, 0.1], 1.0)[0])
    z, geo = loop_zrisk_georisk([values["bm25"], values["neural"]], 1.0)[1]
    assert neural["zrisk"] == pytest.approx(z) and neural["georisk"] == pytest.approx(geo)
