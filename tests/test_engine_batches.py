"""The engine's batching and read-ahead change nothing in the results."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import irstats
from irstats.collection import Collection, EvalOptions, RunSet
from irstats.evaluate import score_judgments
from irstats.judgments import build_judgments

engine = importlib.import_module("irstats.evaluate")  # the module; irstats.evaluate is the function

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)", "RBPresid(p=0.8)", "Bpref", "ERR@20", "Q(beta=1)",
            "Judged@10", "NumRet"]


@pytest.fixture(scope="module")
def dl19(shared_data):
    base = shared_data / "trec-dl-2019-passage"
    return base / "qrels.dl19-passage.txt", sorted((base / "runs").glob("*.run.gz"))


@pytest.fixture(scope="module")
def one_tensor(dl19):
    """The scores of the 37 runs from one judgments tensor, no batching: what every batch size must give."""
    qrels, runs = dl19
    return score_judgments(build_judgments(Collection.load(qrels), RunSet.load(runs), EvalOptions()), MEASURES)


@pytest.mark.parametrize("batch_bytes", [1, 3 << 20, 1 << 40])
def test_batch_size_does_not_change_scores(dl19, one_tensor, monkeypatch, batch_bytes):
    qrels, runs = dl19
    reference = one_tensor
    monkeypatch.setattr(engine, "BATCH_BYTES", batch_bytes)
    scores = irstats.evaluate(qrels, runs, MEASURES)
    for name in MEASURES:
        canonical = irstats.canonical_name(name)
        assert scores[canonical].systems == reference[canonical].systems
        assert scores[canonical].topics == reference[canonical].topics
        np.testing.assert_array_equal(scores[canonical].values, reference[canonical].values)


def test_batches_cover_every_run_once(dl19):
    runset = RunSet.load(dl19[1])
    for size in (1, 10 << 20, 1 << 40):
        batches = runset.batches(size)
        assert sum(batches, []) == list(range(len(runset.parts)))
        assert all(batches)
