"""Robustness of conclusions to transformations of the scale (seed 001; METHODS.md §5.7),
against a plain loop: transform, then scipy's paired t-test, pair by pair."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

from irstats.errors import InputError
from irstats.meta.transforms import transform_robustness
from irstats.scores import ScoreMatrix
from tests.conftest import DL19_RUNS, run_cli


@pytest.fixture(scope="module")
def dl19_ap(reference_data):
    import irstats

    d = reference_data / "trec-dl-2019-passage"
    return irstats.evaluate(d / "qrels.dl19-passage.txt", d / "runs", ["AP"])["AP"]


def _plain_conclusions(matrix, transform, alpha=0.05, eps=0.01):
    """{(a, b): conclusion} by a loop over pairs with scipy.stats.ttest_rel."""
    out = {}
    m = len(matrix.systems)
    for i in range(m):
        for j in range(i + 1, m):
            xa, xb = matrix.values[i], matrix.values[j]
            if transform == "log":
                ya, yb = [math.log(v + eps) for v in xa], [math.log(v + eps) for v in xb]
            elif transform == "logit":
                ya = [math.log((v + eps) / (1 - v + eps)) for v in xa]
                yb = [math.log((v + eps) / (1 - v + eps)) for v in xb]
            else:
                ya, yb = list(xa), list(xb)
            diff = np.subtract(ya, yb)
            mean = diff.mean()
            if np.ptp(diff) == 0:
                p = 1.0 if mean == 0 else 0.0
            else:
                p = stats.ttest_rel(ya, yb).pvalue
            sign = ">" if mean > 0 else "<" if mean < 0 else "="
            out[(matrix.systems[i], matrix.systems[j])] = "=" if sign == "=" else f"a{sign}b" + ("*" if p < alpha
                                                                                               else "")
    return out


@pytest.mark.parametrize("transform", ["log", "logit"])
def test_log_and_logit_conclusions_equal_a_plain_scipy_loop(dl19_ap, transform):
    result = transform_robustness(dl19_ap, ("raw", transform))
    raw = _plain_conclusions(dl19_ap, "raw")
    expected = _plain_conclusions(dl19_ap, transform)
    got = {(r["system_a"], r["system_b"]): r for r in
           result.pairs_frame.filter(pl.col("transform") == transform).iter_rows(named=True)}
    assert {k: v["conclusion"] for k, v in got.items()} == expected
    changed = {k for k in expected if expected[k] != raw[k]}
    assert {k for k, v in got.items() if v["changed"]} == changed
    summary = result.to_frame().filter(pl.col("transform") == transform).row(0, named=True)
    assert summary["changed"] == len(changed) and summary["pairs"] == len(expected)


def test_identity_changes_nothing(dl19_ap):
    result = transform_robustness(dl19_ap, ("raw",))
    row = result.to_frame().row(0, named=True)
    assert row["changed"] == 0 and row["reversed"] == 0 and row["pairs"] == len(DL19_RUNS) * (len(DL19_RUNS) - 1) // 2


def test_a_reversal_under_log():
    """A system with a disaster topic wins on the mean but loses on log(x + ε) (GMAP's scale)."""
    m = ScoreMatrix(np.array([[0.9, 0.8, 0.0, 0.7, 0.9, 0.8], [0.5, 0.4, 0.3, 0.4, 0.5, 0.4]]), ("a", "b"),
                    tuple("123456"), "AP")
    frame = transform_robustness(m, ("raw", "log")).pairs_frame
    assert frame["conclusion"].to_list()[0].startswith("a>b")
    assert frame["conclusion"].to_list()[1].startswith("a<b")
    assert frame["changed"].to_list() == [False, True]


def test_errors():
    m = ScoreMatrix(np.array([[0.9, 1.8], [0.5, 0.4]]), ("a", "b"), ("1", "2"), "DCG")
    with pytest.raises(InputError, match="logit"):
        transform_robustness(m, ("raw", "logit"))
    with pytest.raises(InputError, match="unknown transformation"):
        transform_robustness(m, ("cube",))


def test_cli(tmp_path, capsys):
    path = tmp_path / "scores.tsv"
    rng = np.random.default_rng(1)
    values = rng.beta(1, 3, size=(5, 20))
    lines = ["system\ttopic\tmeasure\tvalue"]
    lines += [f"s{i}\t{j + 1}\tAP\t{values[i, j]:.4f}" for i in range(5) for j in range(20)]
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(["transforms", str(path), "--format", "tsv", "--plot", tmp_path / "t.png"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t")
    assert frame.columns == ["measure", "transform", "pairs", "significant", "changed", "change_rate", "reversed"]
    assert frame["transform"].to_list() == ["raw", "log", "logit", "ranks", "standardized"]
    assert (tmp_path / "t.png").stat().st_size > 0 and (tmp_path / "t.csv").exists()


def test_ranks_equal_scipy_rankdata():
    from irstats.meta.transforms import TRANSFORMS

    rng = np.random.default_rng(5)
    x = np.round(rng.random((9, 12)), 1)  # many ties
    np.testing.assert_array_equal(TRANSFORMS["ranks"](x, 0.01), stats.rankdata(x, axis=0))
