"""Topic difficulty D_t (METHODS.md §5.1): Eq. 2 (max − mean)/sd, Eq. 1 1 − mean, and 1 − max."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest

from irstats.cli.main import main
from irstats.difficulty import DifficultyWarning, topic_difficulty
from irstats.errors import InputError
from irstats.scores import ScoreMatrix, write_scores

VALUES = np.array([
    [0.1, 0.5, 0.3, 0.9],
    [0.3, 0.5, 0.1, 0.6],
    [0.2, 0.5, 0.2, 0.3],
])
TOPICS = ("401", "402", "403", "404")


@pytest.fixture
def matrix() -> ScoreMatrix:
    return ScoreMatrix(VALUES, ("a", "b", "c"), TOPICS, "AP")


def test_definitions(matrix):
    with pytest.warns(DifficultyWarning, match="'402'") as record:
        d = topic_difficulty(matrix)
    assert record[0].message.topics == ("402",)
    assert d.method == "max_mean_sd" and d.topics == TOPICS and d.measure == "AP"
    for j, topic in enumerate(TOPICS):
        col = VALUES[:, j]
        sd = np.std(col, ddof=1)
        expected = 0.0 if sd == 0 else (col.max() - col.mean()) / sd
        assert d.as_dict()[topic] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert d.as_dict()["402"] == 0.0  # sd = 0 -> D = 0 with a warning
    np.testing.assert_allclose(topic_difficulty(matrix, "one_minus_mean").values, 1 - VALUES.mean(axis=0))
    np.testing.assert_allclose(topic_difficulty(matrix, "one_minus_max").values, 1 - VALUES.max(axis=0))
    assert topic_difficulty(matrix, "eq1").method == "one_minus_mean"


def test_ranked_hardest_first_ties_by_topic_id():
    m = ScoreMatrix(np.array([[0.2, 0.9, 0.2, 0.5], [0.4, 0.9, 0.4, 0.1]]), ("a", "b"), ("9", "10", "1", "5"), "AP")
    d = topic_difficulty(m, "one_minus_mean")  # D: 0.7, 0.1, 0.7, 0.7
    assert d.ranked() == ["1", "5", "9", "10"]  # ties by id, bytewise: "1" < "5" < "9"
    frame = d.to_frame()
    assert frame.columns == ["topic", "measure", "difficulty"] and frame.height == 4


def test_missing_scores_are_left_out():
    x = VALUES.copy()
    x[0, 3] = np.nan
    x[:, 0] = np.nan
    m = ScoreMatrix(x, ("a", "b", "c"), TOPICS, "AP")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        d = topic_difficulty(m)
    assert math.isnan(d.values[0])
    assert d.values[3] == pytest.approx((0.6 - 0.45) / np.std([0.6, 0.3], ddof=1))
    assert any("no scores" in str(w.message) for w in record)
    with pytest.raises(InputError, match="unknown difficulty method 'hardness'"):
        topic_difficulty(m, "hardness")


def test_cli_difficulty(matrix, tmp_path, capsys):
    path = tmp_path / "scores.tsv"
    write_scores({"AP": matrix}, path)
    code = 0
    try:
        main(["difficulty", str(path), "-m", "AP", "--method", "one_minus_max", "--sorted"])
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "topic\tmeasure\tdifficulty"
    frame = pl.read_csv(out.encode(), separator="\t", schema_overrides={"topic": pl.String})
    assert frame["topic"].to_list() == ["401", "403", "402", "404"]  # 1 − max: 0.7, 0.7 (tie: by id), 0.5, 0.1
    assert frame["difficulty"].to_list() == pytest.approx([0.7, 0.7, 0.5, 0.1])
    try:
        main(["difficulty", str(path), "--method", "nope"])
    except SystemExit as exc:
        code = exc.code
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "unknown difficulty --method 'nope'" in err
