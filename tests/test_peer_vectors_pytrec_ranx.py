"""The expected values of pytrec_eval's and ranx's own unit tests, reproduced by irstats.

The inputs and expected values below are transcribed (they are test vectors, not code) from:

- cvangysel/pytrec_eval at commit 0d8571efc2dea5a792358410d5affbe0ad383602 (MIT licence):
  tests/pytrec_eval_tests.py, ``test_ndcg`` and ``test_ndcg_cut`` (trec_eval's ``ndcg`` and
  ``ndcg_cut``), checked as that test does with ``assertAlmostEqual`` (7 places). Its other
  unit tests check measure names or empty inputs, and its integration test reads trec_eval's
  own test files (held to irstats in tests/test_conformance_trec_eval.py).
- AmenRa/ranx at commit 2cae52f00c2c15136a07d573027744109792604d (MIT licence):
  tests/unit/ranx/metrics_test.py and tests/unit/ranx/meta/evaluate_test.py (the same vectors
  through ``ranx.metrics`` and ``ranx.evaluate``), tests/unit/ranx/metrics/bpref_test.py,
  f1_test.py, rank_biased_precision_test.py and zero_division_error_test.py, each with the
  tolerance that test uses (``np.allclose``, ``math.isclose``, ``==``, ``round(x, 4)``).
  The expected values are the peers' literal numbers or the literal expressions they wrote
  (``2 / 3``, ``5 / np.log2(3) + ...``), never values computed by irstats.

How ranx's names map to irstats' (definitions checked in ranx/metrics/*.py at that commit):
``hit_rate@k`` → ``Success@k``; ``precision@k`` → ``P@k`` (hits / k); ``recall@k`` → ``R@k``;
``mrr@k`` → ``RR@k``; ``r-precision`` → ``Rprec``; ``map@k`` → ``AP@k`` (divided by all the
relevant documents, as trec_eval's map_cut); ``dcg@k``/``ndcg@k`` (Järvelin: gain = grade,
discount log2(rank + 1), ideal from every judged document) → ``DCG@k``/``nDCG@k``;
``dcg_burges``/``ndcg_burges`` (gain 2^g − 1) → ``DCG(gain=exp)@k``/``nDCG(gain=exp)@k``;
``bpref`` → ``Bpref`` (trec_eval's: 1 − min(n, R)/min(R, N), unjudged documents skipped);
``rank_biased_precision`` on 0/1 labels → ``RBP(p=…)``; ``precision``/``recall``/``f1`` without
k (the whole retrieved list) → ``SetP``/``SetR``/``SetF(beta=1)``, with ``complete=True`` where a
query retrieved nothing (ranx still averages over it, as trec_eval -c).

ranx's low-level functions (``ranx.metrics.*`` and ``ranx.evaluate`` on numpy arrays) read each
``y_pred`` array as an already ranked list: every score there is 1 and the array order is the
ranking. The runs below give those lists strictly decreasing scores in that order, so no two
documents tie and irstats reads the same ranking. The dict-based ranx tests have no tied
scores within a query. Left out: ranx's ``hits@k`` (irstats' NumRelRet has no cut-off), and
ranx's precision / average_precision "parallel" tests and the first three f1 values, whose
expected values are computed by ranx itself rather than written down.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import irstats

PYTREC = "pytrec_eval tests/pytrec_eval_tests.py"
RANX_METRICS = "ranx tests/unit/ranx/metrics_test.py"
RANX_META = "ranx tests/unit/ranx/meta/evaluate_test.py"
RANX_DIR = "ranx tests/unit/ranx/metrics/"

# tolerances, as each peer test checks
ASSERT_ALMOST_EQUAL = {"abs": 5e-8}  # unittest assertAlmostEqual: round(a - b, 7) == 0
ALLCLOSE = {"rel": 1e-5, "abs": 1e-8}  # np.allclose defaults
ISCLOSE = {"rel": 1e-9, "abs": 0.0}  # math.isclose defaults
ROUND4 = {"abs": 0.5e-4}  # round(x, 4) == expected
EXACT = None  # ==


def ranked(*docs) -> dict[str, float]:
    """A ranked list as a run: the first document gets the highest score, no ties."""
    return {str(d): float(len(docs) - i) for i, d in enumerate(docs)}


def labels(*pairs) -> dict[str, int]:
    """ranx's ``y_true`` array ``[[id, grade], ...]`` as pytrec_eval-style qrels of one query."""
    return {str(d): g for d, g in pairs}


# --- pytrec_eval ---------------------------------------------------------------------------
PT_QRELS = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
PT_D2_THIRD = {"d1": 1.0, "d2": 0.0, "d3": 1.5}   # d2 at rank 3
PT_D2_FIRST = {"d1": 1.0, "d2": 2.0, "d3": 1.5}   # d2 at rank 1
PT_D2_SECOND = {"d1": 4.0, "d2": 2.0, "d3": 1.5}  # d2 at rank 2

#: (test, run, trec_eval measure name, expected value of q1)
PYTREC_CASES = [
    ("test_ndcg#1", {"q1": PT_D2_THIRD, "q2": {}}, "ndcg", 0.5),
    ("test_ndcg#2", {"q1": PT_D2_FIRST, "q2": {}}, "ndcg", 1.0),
    ("test_ndcg#3", {"q1": PT_D2_FIRST, "q2": {}}, "ndcg", 1.0),
    ("test_ndcg#4", {"q1": PT_D2_SECOND, "q2": {}}, "ndcg", 0.6309297535714575),
    ("test_ndcg#5", {"q1": PT_D2_FIRST}, "ndcg", 1.0),
    ("test_ndcg#6", {"q1": PT_D2_SECOND, "q2": {}}, "ndcg", 0.6309297535714575),
    ("test_ndcg_cut#1", {"q1": PT_D2_THIRD, "q2": {}}, "ndcg_cut.3", 0.5),
    ("test_ndcg_cut#2", {"q1": PT_D2_FIRST, "q2": {}}, "ndcg_cut.1", 1.0),
    ("test_ndcg_cut#3", {"q1": PT_D2_THIRD, "q2": {}}, "ndcg_cut.3", 0.5),
    ("test_ndcg_cut#4", {"q1": PT_D2_THIRD, "q2": {}}, "ndcg_cut.2", 0.0),
    ("test_ndcg_cut#5", {"q1": PT_D2_THIRD, "q2": {}}, "ndcg_cut.1", 0.0),
    ("test_ndcg_cut#6", {"q1": PT_D2_THIRD, "q2": {}}, "ndcg_cut.1000", 0.5),
]


@pytest.mark.parametrize("test, run, measure, expected", PYTREC_CASES,
                         ids=[c[0] for c in PYTREC_CASES])
def test_pytrec_eval_vectors(test, run, measure, expected):
    scores = irstats.evaluate(PT_QRELS, run, [measure], score_dtype="float32")
    (matrix,) = scores.values()
    value = matrix.values[0][matrix.topics.index("q1")]
    assert value == pytest.approx(expected, **ASSERT_ALMOST_EQUAL), (test, measure)


# --- ranx: ranked numpy lists (metrics_test.py and meta/evaluate_test.py) ------------------
# the graded example shared by the DCG / nDCG tests: y_true = [[2, 5], [4, 4], [5, 3], [10, 2]]
GRADED = labels((2, 5), (4, 4), (5, 3), (10, 2))
PRED_1 = ranked(1, 2, 3, 4, 5)    # rel = 0, 5, 0, 4, 3
PRED_2 = ranked(10, 5, 2, 4, 3)   # rel = 2, 3, 5, 4, 0
PRED_3 = ranked(1, 3, 6, 7, 8)    # rel = 0, 0, 0, 0, 0
log2 = math.log2
IDCG_J = 5 / log2(2) + 4 / log2(3) + 3 / log2(4) + 2 / log2(5)
IDCG_B = (2**5 - 1) / log2(2) + (2**4 - 1) / log2(3) + (2**3 - 1) / log2(4) + (2**2 - 1) / log2(5)
DCG_J_1 = 5 / log2(3) + 4 / log2(5) + 3 / log2(6)
DCG_J_2 = 2 / log2(2) + 3 / log2(3) + 5 / log2(4) + 4 / log2(5)
DCG_B_1 = (2**5 - 1) / log2(3) + (2**4 - 1) / log2(5) + (2**3 - 1) / log2(6)
DCG_B_2 = (2**2 - 1) / log2(2) + (2**3 - 1) / log2(3) + (2**5 - 1) / log2(4) + (2**4 - 1) / log2(5)

REL_123 = labels((1, 1), (2, 1), (3, 1))
PRED_2431567 = ranked(2, 4, 3, 1, 5, 6, 7)

#: (source and test, qrels, run, irstats measure, "mean" or "per-topic", expected, tolerance)
RANX_LIST_CASES = [
    (f"{RANX_META}::test_hit_rate_single", {"q1": REL_123 | labels((4, 1))},
     {"q1": ranked(1, 2, 4, 3, 5, 7)}, "Success@5", "mean", 1, EXACT),
    (f"{RANX_METRICS}::test_hit_rate, {RANX_META}::test_hit_rate_parallel",
     # y_true [[9, 1], [6, 1], [8, 1], [6, 1]]: the repeated 6 is one judgment in a dict
     {"q1": labels((9, 1), (6, 1), (8, 1)), "q2": labels((1, 1), (2, 1), (4, 1))},
     {"q1": ranked(1, 2, 3, 4, 5, 7), "q2": ranked(1, 2, 4, 3, 5, 7)}, "Success@5", "mean", 0.5, EXACT),
    (f"{RANX_META}::test_precision_single", {"q1": labels((1, 1), (4, 1), (5, 1), (6, 1))},
     {"q1": ranked(1, 2, 3, 4, 5, 7)}, "P@5", "mean", 3 / 5, EXACT),
    (f"{RANX_META}::test_average_precision (map@6)", {"q1": labels((1, 1), (4, 1), (5, 1), (6, 1))},
     {"q1": ranked(1, 2, 3, 4, 5, 7)}, "AP@6", "mean", 0.525, ALLCLOSE),
    (f"{RANX_METRICS}::test_reciprocal_rank_single, {RANX_META}::test_reciprocal_rank_single",
     {"q1": labels((3, 1))}, {"q1": ranked(2, 3, 1, 4, 5)}, "RR@5", "mean", 0.5, ALLCLOSE),
    (f"{RANX_METRICS}::test_reciprocal_rank_single_no_match, {RANX_META}::test_reciprocal_rank_single_no_match",
     {"q1": labels((3, 1))}, {"q1": ranked(2, 1, 4, 5)}, "RR@5", "mean", 0.0, ALLCLOSE),
    (f"{RANX_METRICS}::test_reciprocal_rank, {RANX_META}::test_reciprocal_rank_parallel",
     {"q1": labels((3, 1)), "q2": labels((1, 1)), "q3": labels((3, 1))},
     # q3's y_pred [1, 1, 1, 4, 5] repeats document 1; a dict keeps it once (3 is absent either way)
     {"q1": ranked(2, 3, 1, 4, 5), "q2": ranked(1, 2, 3, 4, 5), "q3": ranked(1, 4, 5)},
     "RR@5", "mean", 0.5, ALLCLOSE),
    (f"{RANX_METRICS}::test_r_precision_single, {RANX_META}::test_r_precision_single",
     {"q1": REL_123}, {"q1": PRED_2431567}, "Rprec", "mean", 2 / 3, ALLCLOSE),
    (f"{RANX_METRICS}::test_r_precision, {RANX_META}::test_r_precision_parallel",
     {"q1": REL_123, "q2": labels((1, 1), (2, 1))}, {"q1": PRED_2431567, "q2": PRED_2431567},
     "Rprec", "mean", (2 / 3 + 1 / 2) / 2, ALLCLOSE),
    (f"{RANX_METRICS}::test_recall_single, {RANX_META}::test_recall_single",
     {"q1": REL_123}, {"q1": PRED_2431567}, "R@2", "mean", 1 / 3, ALLCLOSE),
    (f"{RANX_METRICS}::test_recall, {RANX_META}::test_recall_parallel",
     {"q1": REL_123, "q2": labels((1, 1), (2, 1))}, {"q1": PRED_2431567, "q2": PRED_2431567},
     "R@2", "mean", (1 / 3 + 1 / 2) / 2, ALLCLOSE),
]
for _test, _measure, _cases in [
    ("test_dcg_jarvelin", "DCG@10", [(PRED_1, DCG_J_1), (PRED_2, DCG_J_2), (PRED_3, 0.0)]),
    ("test_ndcg_jarvelin", "nDCG@10", [(PRED_1, DCG_J_1 / IDCG_J), (PRED_2, DCG_J_2 / IDCG_J), (PRED_3, 0.0)]),
    ("test_dcg_burges", "DCG(gain=exp)@10", [(PRED_1, DCG_B_1), (PRED_2, DCG_B_2), (PRED_3, 0.0)]),
    ("test_ndcg_burges", "nDCG(gain=exp)@10",
     [(PRED_1, DCG_B_1 / IDCG_B), (PRED_2, DCG_B_2 / IDCG_B), (PRED_3, 0.0)]),
]:
    for _i, (_pred, _expected) in enumerate(_cases, 1):
        # metrics_test.py's burges tests check y_pred_3 with rm.dcg / rm.ndcg (Järvelin), its
        # meta twin with dcg_burges / ndcg_burges: 0.0 either way, checked here under both
        _also = f"{RANX_METRICS}::{_test}#{_i}, " if not (_i == 3 and "burges" in _test) else ""
        RANX_LIST_CASES.append((f"{_also}{RANX_META}::{_test}#{_i}", {"q1": GRADED}, {"q1": _pred},
                                _measure, "mean", _expected, ALLCLOSE))
        if _i == 3 and "burges" in _test:
            RANX_LIST_CASES.append((f"{RANX_METRICS}::{_test}#3 (rm.{'n' if 'ndcg' in _test else ''}dcg)",
                                    {"q1": GRADED}, {"q1": _pred}, _measure.replace("(gain=exp)", ""),
                                    "mean", _expected, ALLCLOSE))

# --- ranx: dict-based tests (tests/unit/ranx/metrics/) --------------------------------------
RANX_BPREF_QRELS = {
    "q1": {"d2": 1, "d5": 1, "d1": 0, "d4": 0},
    "q2": {"d2": 1, "d5": 1, "d1": 0, "d6": 0},
    "q3": {"d2": 1, "d5": 1, "d7": 1, "d1": 0, "d6": 0, "d8": 0},
    "q4": {"d2": 1, "d4": 1, "d6": 1, "d9": 1, "d1": 0, "d3": 0, "d7": 0, "d8": 0},
}
RANX_BPREF_RUN = {
    "q1": {"d1": 10, "d2": 9, "d3": 8, "d4": 7},
    "q2": {"d1": 10, "d2": 9, "d3": 8, "d4": 7, "d5": 6, "d6": 5},
    "q3": {"d1": 10, "d2": 9, "d3": 8, "d4": 7, "d5": 6, "d6": 5, "d7": 4, "d8": 3},
    "q4": {"d1": 10, "d2": 9, "d3": 8, "d4": 7, "d6": 5, "d7": 4, "d8": 3},
}
# f1_test.py: the same qrels and q1-q3 of the run; q4 retrieves no relevant document
RANX_F1_RUN = dict(RANX_BPREF_RUN, q4={"d1": 10, "d12": 9, "d3": 8, "d14": 7, "d16": 5, "d7": 4, "d8": 3})
RANX_RBP_QRELS = {"q1": {"d1": 1, "d2": 1, "d6": 1, "d11": 1, "d17": 1}}
RANX_RBP_RUN = {"q1": {f"d{i}": 21 - i for i in range(1, 21)}}
RANX_ZERO_QRELS = {"q_1": {"doc_a": 1}, "q_2": {"doc_b": 1}, "q_3": {"doc_c": 1}, "q_4": {"doc_d": 1}}
RANX_ZERO_RUN = {"q_1": {"doc_a": 1.0}, "q_2": {"doc_b": 1.0}, "q_3": {}, "q_4": {"doc_d": 1.0}}

#: (source and test, qrels, run, irstats measure, "mean" or topic, expected, tolerance, options)
RANX_DICT_CASES = [
    (f"{RANX_DIR}bpref_test.py::test_bpref[0]", RANX_BPREF_QRELS, RANX_BPREF_RUN, "Bpref", "q1",
     1 / 2 * (1 - (1 / 2)), ISCLOSE, {}),
    (f"{RANX_DIR}bpref_test.py::test_bpref[1]", RANX_BPREF_QRELS, RANX_BPREF_RUN, "Bpref", "q2",
     1 / 2 * ((1 - (1 / 2)) + (1 - (1 / 2))), ISCLOSE, {}),
    (f"{RANX_DIR}bpref_test.py::test_bpref[2]", RANX_BPREF_QRELS, RANX_BPREF_RUN, "Bpref", "q3",
     1 / 3 * ((1 - (1 / 3)) + (1 - (1 / 3)) + (1 - (2 / 3))), ISCLOSE, {}),
    (f"{RANX_DIR}bpref_test.py::test_bpref[3]", RANX_BPREF_QRELS, RANX_BPREF_RUN, "Bpref", "q4",
     1 / 4 * ((1 - (1 / 4)) + (1 - (2 / 4)) + (1 - (2 / 4))), ISCLOSE, {}),
    (f"{RANX_DIR}f1_test.py::test_f1[3]", RANX_BPREF_QRELS, RANX_F1_RUN, "SetF(beta=1)", "q4",
     0.0, ISCLOSE, {}),
    (f"{RANX_DIR}rank_biased_precision_test.py::test_rank_biased_precision (p=0.5)",
     RANX_RBP_QRELS, RANX_RBP_RUN, "RBP(p=0.5)", "q1", 0.7661, ROUND4, {}),
    (f"{RANX_DIR}rank_biased_precision_test.py::test_rank_biased_precision (p=0.8)",
     RANX_RBP_QRELS, RANX_RBP_RUN, "RBP(p=0.8)", "q1", 0.4526, ROUND4, {}),
    (f"{RANX_DIR}rank_biased_precision_test.py::test_rank_biased_precision (p=0.95)",
     RANX_RBP_QRELS, RANX_RBP_RUN, "RBP(p=0.95)", "q1", 0.1881, ROUND4, {}),
    (f"{RANX_DIR}zero_division_error_test.py::test_precision", RANX_ZERO_QRELS, RANX_ZERO_RUN,
     "SetP", "mean", 0.75, EXACT, {"complete": True}),
    (f"{RANX_DIR}zero_division_error_test.py::test_recall", RANX_ZERO_QRELS, RANX_ZERO_RUN,
     "SetR", "mean", 0.75, EXACT, {"complete": True}),
    (f"{RANX_DIR}zero_division_error_test.py::test_f1", RANX_ZERO_QRELS, RANX_ZERO_RUN,
     "SetF(beta=1)", "mean", 0.75, EXACT, {"complete": True}),
]

RANX_CASES = [(*c, {}) for c in RANX_LIST_CASES] + RANX_DICT_CASES


def check(value, expected, tolerance, label):
    if tolerance is EXACT:
        assert value == expected, label
    else:
        assert value == pytest.approx(expected, **tolerance), label


@pytest.mark.parametrize("source, qrels, run, measure, where, expected, tolerance, options", RANX_CASES,
                         ids=[f"{c[3]}-{c[0].split('::')[-1]}" for c in RANX_CASES])
def test_ranx_vectors(source, qrels, run, measure, where, expected, tolerance, options):
    scores = irstats.evaluate(qrels, run, [measure], **options)
    matrix = scores[measure]
    assert matrix.topics == tuple(sorted(run)) or set(matrix.topics) == set(run), source
    if where == "mean":  # ranx averages over every query of the run
        assert len(matrix.topics) == len(run), source
        value = float(np.mean(matrix.values[0]))
    else:
        value = float(matrix.values[0][matrix.topics.index(where)])
    check(value, expected, tolerance, (source, measure, where))
