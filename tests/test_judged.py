"""Judged@k divides by min(k, n) (METHODS §2.10), as ir_measures does since 0.3.1.

The case and its expected values are ir_measures' own test of the measure (its
tests/test_judged.py: Judged@1000 gives 1.0 on topic 0 and 1/4 on topic 1).
"""

from __future__ import annotations

import warnings

import pytest

import irstats

QRELS = "0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 0 D5 2\n"
RUN = ("0 0 D0 1 0.8 run\n0 0 D2 2 0.7 run\n0 0 D1 3 0.3 run\n0 0 D3 4 0.4 run\n0 0 D4 5 0.1 run\n"
       "1 0 D1 1 0.8 run\n1 0 D3 2 0.7 run\n1 0 D4 3 0.3 run\n1 0 D2 4 0.4 run\n")


@pytest.fixture
def scores(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return irstats.evaluate(str(tmp_path / "qrels"), str(tmp_path / "run"),
                                ["Judged@1000", "Judged@10", "Judged@2", "Judged@1"])


def test_short_run_divides_by_its_length(scores):
    assert scores["Judged@1000"].values.tolist() == [[1.0, 0.25]]
    assert scores["Judged@10"].values.tolist() == [[1.0, 0.25]]


def test_cut_off_shorter_than_the_run(scores):
    # topic 1 by score: D1 (unjudged), D3 (judged), D2, D4
    assert scores["Judged@2"].values.tolist() == [[1.0, 0.5]]
    assert scores["Judged@1"].values.tolist() == [[1.0, 0.0]]
