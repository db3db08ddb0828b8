"""ScoreMatrix: tidy frame, TSV/CSV/JSON/Parquet round trips, and reading trec_eval -q output."""

from __future__ import annotations

import gzip

import numpy as np
import polars as pl
import pytest

import irstats
from irstats.errors import InputError
from irstats.trec_eval.read import read_trec_eval
from irstats.trec_eval.printer import format_scores
from irstats.scores import ScoreMatrix, read_scores, scores_to_frame, write_scores
from tests.conftest import require_path


@pytest.fixture(scope="module")
def trec_test_scores(reference_data):
    base = reference_data / "conformance" / "trec_eval-test"
    return irstats.evaluate(base / "qrels.test", base / "results.test", ["AP", "P@10", "nDCG@10", "NumRet"])


def test_matrix_shape_and_means():
    m = ScoreMatrix(np.array([[0.5, np.nan, 1.0], [0.0, 0.2, 0.4]]), ("a", "b"), ("1", "2", "3"), "AP")
    assert m.shape == (2, 3)
    np.testing.assert_allclose(m.means(), [0.75, 0.2])  # NaN = not evaluated, not zero
    counts = ScoreMatrix(np.array([[3.0, np.nan, 5.0]]), ("a",), ("1", "2", "3"), "NumRet", over_topics="sum")
    assert counts.means().tolist() == [4.0]  # a mean is a mean, counts too
    assert counts.summaries().tolist() == [8.0]  # trec_eval's "all" line sums the counts
    assert list(m.num_topics()) == [2, 3]
    with pytest.raises(ValueError):
        ScoreMatrix(np.zeros((2, 2)), ("a",), ("1", "2"), "AP")


@pytest.mark.parametrize("fmt", ["tsv", "csv", "json", "parquet"])
def test_round_trip_every_format(trec_test_scores, tmp_path, fmt):
    path = tmp_path / f"scores.{fmt}"
    write_scores(trec_test_scores, path, fmt)
    back = read_scores(path)
    assert set(back) == set(trec_test_scores)
    for name, original in trec_test_scores.items():
        assert back[name].systems == original.systems
        assert back[name].topics == original.topics
        np.testing.assert_array_equal(back[name].values, original.values)  # exact: %r-precision floats
    assert back["NumRet"].over_topics == "sum"


def test_tidy_frame_columns(trec_test_scores):
    frame = scores_to_frame(trec_test_scores)
    assert frame.columns == ["system", "topic", "measure", "value"]
    assert frame.height == 4 * 3
    summary = scores_to_frame(trec_test_scores, per_topic=False)
    assert summary.columns == ["system", "measure", "value"]
    ap = summary.filter(pl.col("measure") == "AP")["value"][0]
    assert ap == pytest.approx(0.1785, abs=5e-5)  # out.test's map


def test_from_frame_missing_pairs_are_nan():
    frame = pl.DataFrame({"system": ["a", "a", "b"], "topic": ["1", "2", "1"], "measure": "AP",
                          "value": [0.1, 0.2, 0.3]})
    m = ScoreMatrix.from_frame(frame)
    assert m.systems == ("a", "b") and m.topics == ("1", "2")
    assert np.isnan(m.values[1, 1])


def test_duplicate_scores_rejected(tmp_path):
    path = tmp_path / "dup.tsv"
    path.write_text("system\ttopic\tmeasure\tvalue\na\t1\tAP\t0.1\na\t1\tAP\t0.2\n")
    with pytest.raises(InputError, match="given twice"):
        read_scores(path)


def test_non_numeric_value_names_line(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("system\ttopic\tmeasure\tvalue\na\t1\tAP\t0.1\na\t2\tAP\tx\n")
    with pytest.raises(InputError) as err:
        read_scores(path)
    assert err.value.line == 3 and str(path) in str(err.value)


def test_trec_eval_output_reads_back(trec_test_scores, tmp_path):
    """irstats' trec_eval layout, read back by the trec_eval -q reader, gives the same scores."""
    path = tmp_path / "run.eval"
    path.write_text(format_scores(trec_test_scores, per_topic=True))
    back = read_trec_eval(path)
    for name in ("AP", "P@10", "nDCG@10", "NumRet"):
        np.testing.assert_allclose(back[name].values, trec_test_scores[name].values, atol=5e-5)
        assert back[name].systems == ("STANDARD",)


def test_expected_trec_eval_output_file(reference_data):
    """trec_eval's own out.test.aq, read as a score file, holds the per-topic values it prints."""
    back = read_trec_eval(reference_data / "conformance" / "trec_eval-test" / "out.test.aq")
    assert back["AP"].topics == ("301", "302", "303")
    np.testing.assert_allclose(back["AP"].values, [[0.0324, 0.4175, 0.0858]])
    np.testing.assert_allclose(back["IPrec@0.1"].values, [[0.2098, 0.8421, 0.1136]])  # iprec_at_recall_0.10
    assert "infAP" in back  # names irstats does not know are kept


def test_confint_score_matrices(reference_data):
    """Robust 2004: 83 runs × 100 topics; Robust 2005 means equal trec_eval's own `all` rows."""
    robust04 = read_trec_eval(require_path(reference_data / "confint-score-matrices" / "robust04"))
    ap = robust04["AP"]
    assert ap.shape == (83, 100)
    assert ap.topics[0] == "351" and ap.topics[-1] == "450"
    assert {"P@10", "Rprec", "nDCG@10", "R@1000", "NumRel"} <= set(robust04)
    assert robust04["NumRel"].values.sum() / 83 == pytest.approx(9402)  # README: Σ num_rel

    folder = reference_data / "confint-score-matrices" / "robust05"
    robust05 = read_trec_eval(folder)
    checked = 0
    for path in sorted(folder.glob("*.eval.gz")):
        system = path.name.removesuffix(".eval.gz")
        for line in gzip.open(path, "rt"):
            name, topic, value = line.split()
            if topic != "all" or name not in ("map", "P10", "R-prec", "bpref"):
                continue
            canonical = irstats.canonical_name(name)
            got = robust05[canonical].means()[robust05[canonical].systems.index(system)]
            assert got == pytest.approx(float(value), abs=5e-5 + 1e-4 / 2), (system, name)
            checked += 1
    assert checked == 74 * 4
