"""The engine's batching and read-ahead change nothing in the results."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import irstats
from irstats.collection import Collection, EvalOptions, RunSet
from irstats.evaluate import score_judgments
from irstats.judgments import build_judgments
from irstats.measures.registry import all_trec

engine = importlib.import_module("irstats.evaluate")  # the module; irstats.evaluate is the function

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)", "RBPresid(p=0.8)", "Bpref", "ERR@20", "Q(beta=1)",
            "Judged@10", "NumRet"]


@pytest.fixture(scope="module")
def dl19(reference_data):
    base = reference_data / "trec-dl-2019-passage"
    return base / "qrels.dl19-passage.txt", sorted((base / "runs").glob("*.run.gz"))


@pytest.fixture(scope="module")
def one_tensor(dl19):
    """The scores of the DL 2019 runs from one judgments tensor, no batching: what every batch size must give."""
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


# ----------------------------------------------------------------------------- the tensor's width

#: Every family with its trec_eval defaults or cut-offs reaching deep into the lists (a cut-off
#: of 1,000 sums as many ranks as the tensor is wide), beyond those of all_trec.
WIDE_MEASURES = (
    "infAP", "binG", "G", "nDCG_rel", "RnDCG", "nDCG_rel(gain=exp)", "IPrecAvg", "SetP", "SetR", "SetF(beta=1)",
    "SetAP", "SetRelP", "Utility(a=1,b=-1,c=0,d=0)", "NumQ", "NumNonrelJudgedRet", "Q(beta=1)",
    "Q(beta=1,norm=min)", "INST", "INSQ", "SDCG@1000", "BPM(T=2)@1000", "NERR8@1000", "NERR9@1000",
    "NERR10(p=0.9)", "NERR11(T=1)", "Compat(p=0.95)", "Compat(p=0.8,normalize=false)", "Accuracy",
    "Accuracy@1000", "ERR", "ERR@1000", "RBP(p=0.99)", "RBPresid(p=0.99)", "AP_min@1000", "SP", "DCG", "nDCG",
    "nDCG(gain=exp)", "DCG@1000", "P@1000", "R@1000", "RR@1000", "Success@1000", "Unj@1000", "Judged@1000",
    "RelP@1000", "IPrec@0.5", "Rprec(mult=2)",
)
#: The diversity families, with subtopic judgments.
WIDE_SUBTOPIC_MEASURES = ("alpha_DCG@1000", "alpha_nDCG@1000", "ERR_IA@1000", "nERR_IA@1000", "NRBP",
                          "nNRBP(alpha=0.2)", "P_IA@1000", "StRecall@1000")


@pytest.fixture(scope="module")
def short_and_long(tmp_path_factory):
    """Graded qrels (with subtopics) over 60 topics; a run of 150-300 documents a topic, mostly
    judged ones (many relevant documents, long sums), and one of 3,000 a topic (a tensor 1,000
    ranks wide, trec_eval's depth)."""
    folder = tmp_path_factory.mktemp("width")
    rng = np.random.default_rng(26)
    topics = [str(300 + t) for t in range(60)]
    with open(folder / "qrels", "w") as qrels, open(folder / "subtopics", "w") as subtopics:
        for topic in topics:
            for doc in range(400):
                qrels.write(f"{topic} 0 D{doc} {rng.choice([-1, 0, 1, 1, 2, 3])}\n")
                for subtopic in range(3):
                    if rng.random() < 0.3:
                        subtopics.write(f"{topic} {subtopic} D{doc} {rng.integers(0, 3)}\n")
    for name, pool, low, high in (("short", 500, 150, 300), ("long", 5000, 3000, 3001)):
        with open(folder / name, "w") as run:
            for topic in topics:
                docs = rng.permutation(pool)[:rng.integers(low, high)]
                for rank, doc in enumerate(docs, start=1):
                    # a few ties in the short run (each tie rule sums its own terms; few enough
                    # for the families that average every ordering); none in the long one, which
                    # the depth of 1,000 cuts (ties=expected refuses a tie across the cut)
                    score = rank - 1 if name == "short" and rank % 40 == 0 else rank
                    run.write(f"{topic} Q0 D{doc} {rank} {-score} {name}\n")
    return folder


def test_every_family_is_checked_for_width():
    """WIDE_MEASURES and WIDE_SUBTOPIC_MEASURES cover every family but the preference ones
    (pair counts: integers, no sum of floats along the ranks)."""
    from irstats.measures.registry import FAMILIES

    checked = {irstats.parse_measure(m).family for m in (*all_trec(), *WIDE_MEASURES, *WIDE_SUBTOPIC_MEASURES)}
    assert {name for name, family in FAMILIES.items() if family.needs != "preferences"} - checked == set()


@pytest.mark.parametrize("ties", ["docno", "expected"])
def test_scores_do_not_depend_on_the_tensor_width(short_and_long, ties):
    """A run scored alone (a tensor as wide as its longest list, ≤ 300) and beside a run of 3,000
    documents a topic (1,000 wide) gets the same scores to the last bit for every measure of
    all_trec and every family: each sum along the ranks adds them in rank order, so the padding
    after a list changes nothing (numpy's pairwise sum, say, groups the terms by the width)."""
    folder = short_and_long
    measures = list(dict.fromkeys((*all_trec(), *WIDE_MEASURES)))
    cases = [(measures, {}), (list(WIDE_SUBTOPIC_MEASURES), {"subtopic_qrels": folder / "subtopics"})]
    for names, extra in cases:
        alone = irstats.evaluate(folder / "qrels", [folder / "short"], names, ties=ties, **extra)
        beside = irstats.evaluate(folder / "qrels", [folder / "short", folder / "long"], names, ties=ties, **extra)
        differ = [name for name in alone
                  if not np.array_equal(alone[name].values[0], beside[name].values[0], equal_nan=True)]
        assert differ == [], f"scores that change with the tensor's width: {differ}"
        if "NumRet" in alone:  # the widths: at most 300 alone, 1,000 beside the long run
            assert alone["NumRet"].values.max() < 300 and beside["NumRet"].values[1].min() == 1000
