"""Diversity measures over subtopic judgments, as TREC's ndeval (and pyndeval, ir_measures'
provider of them) computes them: α-DCG@k, α-nDCG@k, ERR-IA@k, nERR-IA@k, NRBP, nNRBP, P-IA@k
and StRecall@k.

They read the subtopic judgments the tensor carries (``Judgments.subtopics``,
:mod:`irstats.subtopics`; ``needs="subtopics"``): a document is relevant to a subtopic when its
grade there is ≥ ℓ (``rel=``, else the evaluation's level). With c_s(r) the number of
documents above rank r relevant to subtopic s, the gain at rank r is
Σ_s J(r, s)·(1 − α)^{c_s(r)}; S is the number of the topic's subtopics with a relevant
document; then, as ndeval:

- α-DCG@k = Σ_{r≤k} gain(r)/log2(r + 1), divided (for k ≥ 2) by the "ideal ideal"
  Σ_{r≤k} S·(1 − α)^{r−1}/log2(r + 1); α-nDCG@k = α-DCG@k of the run over that of the ideal
  ranking (greedy: at each rank the document with the largest gain, ties to the larger docno),
  0 when the run's is 0;
- ERR-IA@k and nERR-IA@k: the same with the discount 1/r;
- NRBP = (1 − (1 − α)β)/S · Σ_r gain(r)·β^{r−1} over the whole list; nNRBP over the ideal's;
- P-IA@k = Σ_{r≤k} Σ_s J(r, s)/(k·S); StRecall@k = subtopics covered in the top k / S.

A topic without a relevant document (S = 0, also a topic the subtopic qrels do not judge)
scores 0. Each is a kernel over the whole tensor: the relevance of every ranked document to
every subtopic is one gather from the subtopic rows, the gains one running count along the
rank axis. Over tied orderings (``ties="expected"``) every distinct arrangement of the tied
documents' subtopic rows is evaluated and averaged (the enumeration of measures/ties.py, refused
past its limit): exact, as every tie expectation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from irstats.errors import MeasureError
from irstats.measures.common import LEVEL_PARAM, level_of, rank_sum
from irstats.measures.params import Param
from irstats.measures.registry import Family, IrMeasuresName, register

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure
    from irstats.subtopics import SubtopicFacts

#: A diversity family's computation on the ranked subtopic rows: ``compute(ranked, measure)`` → (S, T).
Compute = Callable[["_Ranked", "Measure"], np.ndarray]
#: A family's kernel on a tensor: ``kernel(judgments, measure)`` → (S, T).
Kernel = Callable[["Judgments", "Measure"], np.ndarray]

ALPHA_PARAM = Param("alpha", float, 0.5, help="redundancy intolerance α (ndeval)", low=0, high=1)
BETA_PARAM = Param("beta", float, 0.5, help="persistence β of NRBP (ndeval)", low=0, high=1)


def _facts(j: Judgments) -> SubtopicFacts:
    if j.subtopics is None:
        raise MeasureError("the diversity measures need subtopic qrels ('topic subtopic docno grade'): give "
                           "subtopic_qrels= (irstats eval --subtopic-qrels FILE)")
    return j.subtopics.facts


def _rows(j: Judgments) -> np.ndarray:
    """The subtopic row of every ranked document, (S, T, K) as the tensor's grades."""
    def compute() -> np.ndarray:
        facts = _facts(j)
        assert j.subtopics is not None  # _facts refused a tensor without them
        rows, n_ret = j.subtopics.ranked
        if rows.shape[:2] != j.grades.shape[:2] or not np.array_equal(n_ret, j.n_ret):
            raise RuntimeError("the subtopic judgments were ranked otherwise than the tensor (a bug: please report)")
        out = np.full(j.grades.shape, facts.none, dtype=np.int64)
        width = min(rows.shape[2], j.depth)
        out[:, :, :width] = rows[:, :, :width]
        return out

    rows: np.ndarray = j.memo(("subtopic rows",), compute)
    return rows


def _cutoff(m: Measure) -> int:
    """The cut-off k of a family that requires one."""
    assert m.cutoff is not None  # the family is declared with cutoff="required"
    return int(m.cutoff)


def _width(j: Judgments, m: Measure) -> int:
    return j.depth if m.cutoff is None else min(int(m.cutoff), j.depth)


class _Ranked:
    """What a kernel reads: the tensor ``j`` (depth, memo), the subtopic row of each ranked
    document (``rows``, (S, T, K)), the facts, and the tensor's topics as positions on the
    facts' axis (``topics``: every topic, or the one an arranged tensor holds)."""

    def __init__(self, j: Judgments, rows: np.ndarray, topics: slice | list[int]) -> None:
        self.j, self.rows, self.topics, self.facts = j, rows, topics, _facts(j)

    def relevance(self, m: Measure, width: int) -> np.ndarray:
        """``[s, t, r, q]``: the document at rank r relevant to subtopic q, ranks 1..width: (S, T, width, Q)."""
        level = level_of(self.j, m)
        relevance: np.ndarray = self.j.memo(("subtopic relevance", level, width),
                                            lambda: self.facts.relevant(level)[self.rows[:, :, :width]])
        return relevance

    def gains(self, m: Measure, width: int) -> np.ndarray:
        """gain(r) = Σ_s J(r, s)·(1 − α)^{c_s(r)} at ranks 1..width: (S, T, width)."""
        level, alpha = level_of(self.j, m), m["alpha"]

        def compute() -> np.ndarray:
            relevant = self.relevance(m, width)
            before = np.cumsum(relevant, axis=2, dtype=np.int64) - relevant
            powers = (1.0 - alpha) ** np.arange(width + 1, dtype=np.float64)
            novel: np.ndarray = (relevant * powers[before]).sum(axis=3)
            return novel

        gains: np.ndarray = self.j.memo(("alpha gains", alpha, level, width), compute)
        return gains

    def subtopics(self, m: Measure) -> np.ndarray:
        """ndeval's S per topic: (T,)."""
        per_topic: np.ndarray = self.facts.num_subtopics(level_of(self.j, m))[self.topics]
        return per_topic

    def ideal(self, m: Measure, width: int | None) -> np.ndarray:
        """The greedy ideal ranking's gains per topic: (T, width)."""
        gains: np.ndarray = self.facts.ideal_gains(m["alpha"], level_of(self.j, m), width)[self.topics]
        return gains


def _per_topic(values: np.ndarray, subtopics: np.ndarray) -> np.ndarray:
    """Values of topics without a relevant subtopic document are 0."""
    return np.where(subtopics[None, :] > 0, values, 0.0)


def _log_discount(n: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(1, n + 1, dtype=np.float64) + 1.0)


def _rank_discount(n: int) -> np.ndarray:
    return 1.0 / np.arange(1, n + 1, dtype=np.float64)


def _cascade(discount: Callable[[int], np.ndarray], normalised: bool) -> Compute:
    """α-DCG, α-nDCG (``discount`` log2), ERR-IA, nERR-IA (1/r) at the cut-off k."""
    def compute(ranked: _Ranked, m: Measure) -> np.ndarray:
        k, width, alpha = _cutoff(m), _width(ranked.j, m), m["alpha"]
        subtopics = ranked.subtopics(m)
        run = rank_sum(ranked.gains(m, width) * discount(width))
        if normalised:
            best = (ranked.ideal(m, k) * discount(k)).sum(axis=1)[None, :]
            with np.errstate(invalid="ignore", divide="ignore"):
                out = np.where((run != 0) & (best != 0), run / np.where(best != 0, best, 1.0), 0.0)
        elif k > 1:
            # the "ideal ideal": every subtopic covered at every rank, summed rank by rank as ndeval
            terms = subtopics[:, None] * (1.0 - alpha) ** np.arange(k, dtype=np.float64) * discount(k)
            bound = np.cumsum(terms, axis=1)[:, -1][None, :]
            with np.errstate(invalid="ignore", divide="ignore"):
                out = run / np.where(bound != 0, bound, 1.0)
        else:
            out = run
        return _per_topic(out, subtopics)

    return compute


def _nrbp(normalised: bool) -> Compute:
    def compute(ranked: _Ranked, m: Measure) -> np.ndarray:
        alpha, beta, depth = m["alpha"], m["beta"], ranked.j.depth
        subtopics = ranked.subtopics(m)
        decay = beta ** np.arange(depth, dtype=np.float64)
        scale = (1.0 - (1.0 - alpha) * beta) / np.where(subtopics > 0, subtopics, 1)
        run = scale[None, :] * rank_sum(ranked.gains(m, depth) * decay)
        if normalised:
            ideal = ranked.ideal(m, None)
            best = (scale * (ideal * beta ** np.arange(ideal.shape[1], dtype=np.float64)).sum(axis=1))[None, :]
            with np.errstate(invalid="ignore", divide="ignore"):
                run = np.where(best != 0, run / np.where(best != 0, best, 1.0), 0.0)
        return _per_topic(run, subtopics)

    return compute


def _intent_aware_precision(ranked: _Ranked, m: Measure) -> np.ndarray:
    """P-IA@k: the (document, subtopic) relevances in the top k over k·S."""
    k, subtopics = _cutoff(m), ranked.subtopics(m)
    hits = ranked.relevance(m, _width(ranked.j, m)).sum(axis=(2, 3))
    return _per_topic(hits / (k * np.where(subtopics > 0, subtopics, 1))[None, :], subtopics)


def _subtopic_recall(ranked: _Ranked, m: Measure) -> np.ndarray:
    """StRecall@k: the subtopics with a relevant document in the top k over S."""
    subtopics = ranked.subtopics(m)
    covered = ranked.relevance(m, _width(ranked.j, m)).any(axis=2).sum(axis=2)
    return _per_topic(covered / np.where(subtopics > 0, subtopics, 1)[None, :], subtopics)


def _kernels(compute: Compute) -> tuple[Kernel, Kernel]:
    """The family's kernel on the tensor's ranking, and its expectation over tied orderings:
    the subtopic rows put in place of the grades, so that the enumeration arranges the tied
    documents themselves (a document is its row; documents judged for no subtopic are alike)."""
    def kernel(j: Judgments, m: Measure) -> np.ndarray:
        return compute(_Ranked(j, _rows(j), slice(None)), m)

    def expected(j: Judgments, m: Measure) -> np.ndarray:
        from irstats.measures.ties import enumerated

        position = {topic: t for t, topic in enumerate(j.topics)}

        def arranged(tensor: Judgments) -> np.ndarray:  # one topic's arranged lists, their rows as the grades
            return compute(_Ranked(tensor, tensor.grades, [position[tensor.topics[0]]]), m)

        limit = None if m.cutoff is None else int(m.cutoff)
        return enumerated(j.variant(grades=_rows(j)), m, arranged, limit)

    return kernel, expected


def _diversity(name: str, description: str, compute: Compute, params: tuple[Param, ...] = (ALPHA_PARAM, LEVEL_PARAM),
               cutoff: str = "required",
               bounded: bool = True) -> Family:
    kernel, expected = _kernels(compute)
    return register(Family(name, description, params, kernel=kernel, cutoff=cutoff, bounded=bounded,
                           ties="closed", expected_kernel=expected, needs="subtopics",
                           ir_measures=IrMeasuresName(name)))


_diversity("alpha_DCG", "α-DCG@k (ndeval): novelty-discounted gains Σ_s J·(1 − α)^{c_s} over log2(r + 1), divided "
           "for k ≥ 2 by the ideal ideal (every subtopic covered at every rank).", _cascade(_log_discount, False),
           bounded=False)
_diversity("alpha_nDCG", "α-nDCG@k (ndeval): α-DCG@k over that of the greedy ideal ranking.",
           _cascade(_log_discount, True))
_diversity("ERR_IA", "ERR-IA@k (ndeval): novelty-discounted gains over the rank r, divided for k ≥ 2 by the ideal "
           "ideal.", _cascade(_rank_discount, False), bounded=False)
_diversity("nERR_IA", "nERR-IA@k (ndeval): ERR-IA@k over that of the greedy ideal ranking.",
           _cascade(_rank_discount, True))
_diversity("NRBP", "Novelty- and rank-biased precision (ndeval): (1 − (1 − α)β)/S · Σ_r gain(r)·β^{r−1} over the "
           "whole list.", _nrbp(False), params=(ALPHA_PARAM, BETA_PARAM, LEVEL_PARAM), cutoff="none")
_diversity("nNRBP", "NRBP over that of the greedy ideal ranking (ndeval).", _nrbp(True),
           params=(ALPHA_PARAM, BETA_PARAM, LEVEL_PARAM), cutoff="none")
_diversity("P_IA", "Intent-aware precision@k (ndeval): the (document, subtopic) relevances in the top k over k·S.",
           _intent_aware_precision, params=(LEVEL_PARAM,))
_diversity("StRecall", "Subtopic recall@k (ndeval): the subtopics with a relevant document in the top k over S.",
           _subtopic_recall, params=(LEVEL_PARAM,))
