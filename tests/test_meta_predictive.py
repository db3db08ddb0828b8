"""Predictive power φ (METHODS.md §5.2): against a plain loop, symmetry, determinism,
the top-75% system filter, the subset-size curve, the CLI contract and figures F5/F6."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from irstats.aggregate import aggregate
from irstats.errors import InputError
from irstats.trec_eval.read import read_trec_eval
from irstats.meta.correlation import snap_ties
from irstats.meta.predictive import predictive_curve, predictive_power, top_systems
from irstats.scores import ScoreMatrix, write_scores
from tests.conftest import run_cli

MEASURES = ["P@10", "RR", "AP", "nDCG"]


@pytest.fixture(scope="module")
def robust04(reference_data: Path) -> dict[str, ScoreMatrix]:
    scores = read_trec_eval(reference_data / "confint-score-matrices" / "robust04")
    return {m: scores[m] for m in MEASURES}


def loop_phi(matrices: dict[str, ScoreMatrix], splits, pairs, method: str = "am") -> np.ndarray:
    """Plain loop: per split and pair, ½[τ(A on set 1, B on set 2) + τ(B on set 1, A on set 2)]."""
    out = np.empty((len(splits), len(pairs)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for b in range(len(splits)):
            h1, h2 = np.sort(splits.first[b]), np.sort(splits.second[b])
            agg1 = {m: snap_ties(aggregate(x.values[:, h1], method).values, 1e-12) for m, x in matrices.items()}
            agg2 = {m: snap_ties(aggregate(x.values[:, h2], method).values, 1e-12) for m, x in matrices.items()}
            for k, (a, c) in enumerate(pairs):
                out[b, k] = (sps.kendalltau(agg1[a], agg2[c]).statistic + sps.kendalltau(agg1[c], agg2[a]).statistic) / 2
    return out


def test_phi_equals_plain_loop_and_is_symmetric(robust04):
    result = predictive_power(robust04, n_splits=20, seed=3)
    kept = {m: x.subset(systems=result.systems) for m, x in robust04.items()}
    pairs = [(a, b) for a in MEASURES for b in MEASURES]
    ref = loop_phi(kept, result.splits, pairs)
    np.testing.assert_allclose(result.values.reshape(20, -1), ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.phi.ravel(), ref.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(result.phi, result.phi.T)  # exactly symmetric
    assert result["AP", "RR"] == result["RR", "AP"]
    assert np.all(result.n == 20)
    frame = result.to_frame()
    assert frame.columns[:3] == ["measure_a", "measure_b", "phi"] and frame.height == len(MEASURES) ** 2


def test_same_seed_and_batches_give_identical_phi(robust04):
    a = predictive_power(robust04, n_splits=30, seed=8)
    b = predictive_power(robust04, n_splits=30, seed=8, batch_size=4)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.phi, b.phi)
    c = predictive_power(robust04, n_splits=30, seed=9)
    assert not np.array_equal(a.phi, c.phi)


def test_top_share_of_systems(robust04):
    ap = robust04["AP"]
    kept = top_systems(ap, 0.75)
    assert len(kept) == math.ceil(0.75 * 83) == 63
    means = dict(zip(ap.systems, ap.means()))
    threshold = min(means[s] for s in kept)
    assert all(means[s] <= threshold for s in set(ap.systems) - set(kept))
    assert len(top_systems(ap, 0.5)) == 42  # ⌈41.5⌉
    tied = ScoreMatrix(np.array([[0.5], [0.5], [0.2], [0.5]]), ("d", "b", "c", "a"), ("1",), "AP")
    assert top_systems(tied, 0.5) == ("a", "b")  # ties by system id, bytewise
    everyone = predictive_power(robust04, n_splits=3, top=1)
    assert len(everyone.systems) == 83 and everyone.by is None
    with pytest.raises(InputError, match="--all-systems"):
        predictive_power({m: robust04[m] for m in ("P@10", "RR")}, n_splits=3)
    with pytest.raises(InputError, match="share"):
        top_systems(ap, 1.5)


def test_subset_curve(robust04):
    curve = predictive_curve(robust04, sizes=(5, 10), n_splits=12, seed=2)
    assert curve.pairs == (("nDCG", "nDCG"), ("P@10", "P@10"), ("nDCG", "P@10"))
    from irstats.meta.splits import random_subsets
    draws = random_subsets(robust04["AP"].topics, (5, 10), 12, 2)
    kept = {m: x.subset(systems=curve.systems) for m, x in robust04.items()}
    for k, n in enumerate((5, 10)):
        split = draws[n]
        assert not set(split.first[0]) & set(split.second[0])
        ref = loop_phi(kept, split, list(curve.pairs))
        np.testing.assert_allclose(curve.values[k], ref, rtol=0, atol=1e-12)
    frame = curve.to_frame()
    assert frame.columns[:4] == ["n_topics", "measure_a", "measure_b", "phi"] and frame.height == 6
    with pytest.raises(InputError, match="does not fit"):
        predictive_curve(robust04, sizes=(51,), n_splits=2)



def test_cli_contract_and_figures(tmp_path, robust04, capsys):
    path = tmp_path / "scores.tsv"
    write_scores(robust04, path)
    args = ["predictive", path, "-m", "P@10", "-m", "RR", "-m", "AP", "--top", "0.75", "--by", "AP", "-n", "15",
            "--seed", "4", "--format", "tsv", "--plot", tmp_path / "phi.png", "-q"]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t")
    assert frame.columns[:3] == ["measure_a", "measure_b", "phi"]
    assert frame.height == 9 and list(zip(frame["measure_a"], frame["measure_b"]))[:3] == [
        ("P@10", "P@10"), ("P@10", "RR"), ("P@10", "AP")]
    api = predictive_power({m: robust04[m] for m in ("P@10", "RR", "AP")}, n_splits=15, seed=4)
    np.testing.assert_allclose(frame.get_column("phi").to_numpy(), api.phi.ravel(), rtol=1e-15)
    assert (tmp_path / "phi.png").stat().st_size > 1000
    assert pl.read_csv(tmp_path / "phi.csv").height == 9
    code, out, err = run_cli(["predictive", path, "-m", "P@10", "-m", "nDCG", "-m", "AP", "--curve", "--sizes",
                              "5,10", "-n", "6", "--plot", tmp_path / "curve.svg"], capsys)
    assert code == 0, err
    assert "nDCG" in out and (tmp_path / "curve.svg").exists()
    assert pl.read_csv(tmp_path / "curve.csv").height == 6
    code, out, err = run_cli(["predictive", path, "-m", "P@10", "-m", "RR", "-n", "5"], capsys)
    assert code == 2 and "irstats: error:" in err and "--by" in err
