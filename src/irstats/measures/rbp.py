"""Rank-biased precision and its residual (Moffat & Zobel; METHODS.md §2.6)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irstats.measures.common import LEVEL_PARAM, accumulate, shown
from irstats.measures.params import Param
from irstats.measures.registry import Family, RNormalisation, TrecEvalName, register

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure

P_PARAM = Param("p", float, 0.8, always_shown=True, help="persistence, the probability of going on to the next rank",
                low=0, high=1, open_low=True, open_high=True)


def _weights(p: float, width: int) -> np.ndarray:
    """(1 − p)·p^(i−1) for ranks 1..width."""
    return (1.0 - p) * np.power(p, np.arange(width, dtype=np.float64))


def _trec_eval_powers(p: float, width: int) -> np.ndarray:
    """p^0 .. p^width as trec_eval's loop makes them (cur_p = cur_p * p): in trec_eval_compat
    mode rbp and rbp_resid repeat its arithmetic operation for operation, since the last bit
    of a mean can decide the 4th printed decimal."""
    return np.cumprod(np.concatenate(([1.0], np.full(width, p))))


SCALE_PARAM = Param("scale", str, "collection", choices=("collection", "topic"),
                    help="graded gains as grade/g_max with the collection's top grade, or with each topic's "
                         "(trec_eval's rbp)")


def _topic_top_grades(j: Judgments) -> np.ndarray:
    """Each topic's top qrels grade (0 when none is positive), shaped (1, T, 1)."""
    def compute() -> np.ndarray:
        top = np.zeros(j.qrels.n_topics)
        np.maximum.at(top, j.qrels.topic_index, np.maximum(j.qrels.values(j.qrels.rel), 0))
        return top[None, :, None]

    top_grades: np.ndarray = j.memo("topic top grades", compute)
    return top_grades


def rbp_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    if m["rel"] is None and m["scale"] == "topic":
        # trec_eval's rbp: each topic's gains divided by its own top grade when that is above 1
        gains = np.maximum(j.values(j.head(j.grades, width)), 0) / np.maximum(_topic_top_grades(j), 1.0)
    elif m["rel"] is None:
        # Graded: clip(grade, 0, g_max)/g_max with the collection-wide g_max.
        g_max = j.qrels.gain_top
        gains = np.clip(j.values(j.head(j.grades, width)), 0, g_max) / g_max
    else:
        gains = j.head(j.relevant(m["rel"]), width)
    terms: np.ndarray
    if _as_trec_eval(j, m):  # Σ gain·p^(i−1), times (1 − p) at the end (_rbp_finish)
        terms = gains * _trec_eval_powers(m["p"], width)[:width]
    else:
        terms = gains * _weights(m["p"], width)
    return terms


def _as_trec_eval(j: Judgments, m: Measure) -> bool:
    return j.trec_eval_compat and m["rel"] is None and m["scale"] == "topic" and not j.tied


def _rbp_finish(j: Judgments, m: Measure, inside: np.ndarray, depths: np.ndarray | None) -> np.ndarray:
    finished: np.ndarray = (1.0 - m["p"]) * inside if _as_trec_eval(j, m) else inside
    return finished


def _unjudged(j: Judgments, width: int) -> np.ndarray:
    return j.head(j.unjudged, width)


def residual_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """The weight of every unjudged document inside the list (trec_eval_compat: p^(i−1) as
    trec_eval sums them; its (1 − p) comes in :func:`_add_tail`)."""
    terms: np.ndarray
    if j.trec_eval_compat:
        terms = _unjudged(j, width) * _trec_eval_powers(m["p"], width)[:width]
    else:
        terms = _unjudged(j, width) * _weights(m["p"], width)
    return terms


def _add_tail(j: Judgments, m: Measure, inside: np.ndarray, depths: np.ndarray | None) -> np.ndarray:
    """Add p^min(k, n), the weight of every rank past the list (or past k)."""
    n = shown(j, depths)
    if not j.trec_eval_compat:
        with_tail: np.ndarray = inside + np.power(m["p"], n)
        return with_tail
    # trec_eval's rbp_resid, operation for operation: p^n (by repeated products) + (1 − p)·Σ;
    # 0 (the tail dropped) when no retrieved document is unjudged
    seen = accumulate(j, "unjudged", lambda width: _unjudged(j, width), depths) > 0
    powers = _trec_eval_powers(m["p"], int(n.max(initial=0)))
    return np.where(seen, powers[n] + (1.0 - m["p"]) * inside, 0.0)


def _ideal_rbp(raw: Measure, r: np.ndarray, depth: int | None) -> np.ndarray:
    """1 − p^min(R, m): RBP of a ranking with every relevant document first, to depth m."""
    limit = raw.cutoff if raw.cutoff is not None else depth
    ideal: np.ndarray = 1.0 - np.power(raw["p"], r if limit is None else np.minimum(r, limit))
    return ideal


def _graded(raw: Measure) -> str | None:
    if raw["rel"] is None:
        return (f"R-normalisation of graded {raw} is not defined (METHODS.md §4.7 covers binary RBP); "
                "use RBP(p=…,rel=1)")
    return None


register(Family("RBP", "Rank-biased precision (1−p)Σ g_i p^(i−1); graded gain grade/g_max unless rel= is given.",
                (P_PARAM, LEVEL_PARAM, SCALE_PARAM), terms=rbp_terms, finish=_rbp_finish,
                # trec_eval's rbp divides graded gains by each topic's top grade: scale=topic
                trec_eval=(TrecEvalName("rbp", "RBP(p={:g},scale=topic)", 51, "p_pairs_without_gains", (0.9,)),),
                residual="RBPresid", ties="pointwise",
                r_normalisation=RNormalisation("nRBP", ideal=_ideal_rbp, objection=_graded)))
def _made_up_residual(p: tuple[float], num_rel: int, num_docs: int) -> float:
    """trec_eval's rbp_resid of its made-up ranking for a topic -c adds (TrecEvalName.made_up):
    one unjudged document, so cur_p = p and the residual sum is 1."""
    return 1.0 * p[0] + (1 - p[0]) * 1.0


register(Family("RBPresid", "RBP residual: the most RBP could rise if every unjudged document and every rank "
                "past the list were relevant.", (P_PARAM,), terms=residual_terms, finish=_add_tail,
                # trec_eval_compat drops the tail when nothing is unjudged: not linear, so enumerated
                ties=lambda j, m: "enumerate" if j.trec_eval_compat else "pointwise",
                trec_eval=(TrecEvalName("rbp_resid", "RBPresid(p={:g})", 52, "p_pairs", (0.9,),
                                        made_up=_made_up_residual),)),
         aliases=("RBP_resid",))
