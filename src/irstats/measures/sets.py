"""trec_eval's set and count measures, and its other rank-cut measures (METHODS.md §2; trec_eval
10's m_set_P.c, m_set_recall.c, m_set_rel_P.c, m_set_map.c, m_set_F.c, m_num_q.c,
m_num_nonrel_judged_ret.c, m_rel_P.c, m_unjudged.c).

Set measures look at the whole retrieved list as a set (n documents, C of them relevant, R
relevant in the qrels); every undefined ratio (n = 0, R = 0) is 0, as in trec_eval.

- SetP = C/n (set_P), SetR = C/R (set_recall), SetRelP = C/min(n, R) (set_relative_P),
  SetAP = C²/(n·R) (set_map), SetF(beta) = (β + 1)·P·R/(β·P + R) with P = C/n, R = C/R —
  trec_eval's β weights precision linearly, not as β² (set_F; 0 when C = 0);
- NumQ = 1 per evaluated topic, summed (num_q); NumNonrelJudgedRet = judged non-relevant
  documents retrieved, summed (num_nonrel_judged_ret);
- RelP@k = C(k)/min(k, R) (relative_P_k; 0 when R = 0); Unj@k = unjudged documents in the
  top k, divided by k — ranks past the list count as judged (unj_k).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from irstats.measures.binary import relevant_terms
from irstats.measures.common import LEVEL_PARAM, accumulate, depth_axis, level_of, per_topic, safe_divide
from irstats.measures.params import Param
from irstats.measures.registry import (EVERY_NICKNAME, TREC_CUTS, Family, IrMeasuresName, TrecEvalName,
                                      register)
from irstats.measures.ties import group_counts

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure

BETA_PARAM = Param("beta", float, 1.0, always_shown=True, help="weight of precision against recall (trec_eval: not squared)",
                   low=0)


def _retrieved_relevant(j: Judgments, m: Measure) -> np.ndarray:
    """C over the whole list, (S, T)."""
    return accumulate(j, ("relevant", level_of(j, m)), lambda width: relevant_terms(j, m, width), None)[:, :, 0]


def _sizes(j: Judgments, m: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """C, n and R, each broadcast to (S, T)."""
    c = _retrieved_relevant(j, m)
    n = j.n_ret.astype(np.float64)
    r = np.broadcast_to(j.num_relevant(level_of(j, m))[None, :].astype(np.float64), c.shape)
    return c, n, r


def set_precision(j: Judgments, m: Measure) -> np.ndarray:
    c, n, _ = _sizes(j, m)
    return safe_divide(c, n)


def set_recall(j: Judgments, m: Measure) -> np.ndarray:
    c, _, r = _sizes(j, m)
    return safe_divide(c, r)


def set_relative_precision(j: Judgments, m: Measure) -> np.ndarray:
    c, n, r = _sizes(j, m)
    return safe_divide(c, np.minimum(n, r))


def set_average_precision(j: Judgments, m: Measure) -> np.ndarray:
    c, n, r = _sizes(j, m)
    return safe_divide(c * c, n * r)


def set_f(j: Judgments, m: Measure) -> np.ndarray:
    c, n, r = _sizes(j, m)
    p, rec, beta = safe_divide(c, n), safe_divide(c, r), m["beta"]
    return np.where(c > 0, safe_divide((beta + 1.0) * p * rec, beta * p + rec), 0.0)


def num_q(j: Judgments, m: Measure) -> np.ndarray:
    return np.ones(j.n_ret.shape)


def judged_nonrelevant_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    judged_nonrelevant: np.ndarray = j.head(j.judged, width) & ~j.head(j.relevant(level_of(j, m)), width)
    return judged_nonrelevant


def unjudged_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    return j.head(j.unjudged, width)


def _by_min_k_r(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    assert depths is not None  # RelP's cut-off is required
    by: np.ndarray = np.minimum(depth_axis(depths), per_topic(j.num_relevant(level_of(j, m))))
    return by


def _by_k(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    assert depths is not None  # Unj's cut-off is required
    return depth_axis(depths)


#: trec_eval's set measures: in -m all_trec and -m set.
_SET = ("all_trec", "set")


def _set(name: str, description: str, kernel: Callable[[Judgments, Measure], np.ndarray], trec: str, order: int,
         ir_measures: IrMeasuresName, params: tuple[Param, ...] = (LEVEL_PARAM,)) -> None:
    register(Family(name, description, params, kernel=kernel, cutoff="none", ties="order_free",
                    trec_eval=(TrecEvalName(trec, name, order, nicknames=_SET),), ir_measures=ir_measures))


_set("SetP", "Set precision: relevant retrieved / retrieved (trec_eval set_P).", set_precision, "set_P", 28,
     IrMeasuresName("SetP", only={"relative": False}))
_set("SetR", "Set recall: relevant retrieved / relevant (trec_eval set_recall).", set_recall, "set_recall", 30,
     IrMeasuresName("SetR"))
_set("SetRelP", "Relative set precision: relevant retrieved / min(retrieved, relevant) (set_relative_P).",
     set_relative_precision, "set_relative_P", 29, IrMeasuresName("SetP", only={"relative": True}))
_set("SetAP", "Set AP: (relevant retrieved)² / (retrieved · relevant) (trec_eval set_map).", set_average_precision,
     "set_map", 31, IrMeasuresName("SetAP"))

def expected_bin_g_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """binG's expected terms: b_i/log2(2 + non-relevant documents above i). In i's group (n
    documents, r relevant, q = n − r not, a non-relevant above the group), i is relevant with
    chance r/n and then the non-relevant among the p − 1 places before it are hypergeometric
    (q of the other n − 1 documents, p − 1 drawn)."""
    from scipy.stats import hypergeom


    assert j.tie_start is not None and j.tie_size is not None  # tie groups: only tied lists get here
    width = min(width, j.depth)
    start = j.tie_start[:, :, :width]
    single = j.tie_size[:, :, :width] == 1
    out = np.where(single, bin_g_terms(j, m, width), 0.0)
    relevant, above = group_counts(j, j.relevant(level_of(j, m)), width)
    for s, t, first in zip(*np.nonzero(~single & (start == np.arange(width)))):
        n, r = int(j.tie_size[s, t, first]), int(relevant[s, t, first])
        if r == 0:
            continue
        q, nonrelevant_above = n - r, first - int(above[s, t, first])
        places = np.arange(min(n, width - first))  # p − 1 for each place p
        drawn = np.arange(q + 1)
        chance = hypergeom.pmf(drawn[None, :], n - 1, q, places[:, None])
        credit = 1.0 / np.log2(2.0 + nonrelevant_above + drawn)
        out[s, t, first:first + len(places)] = (r / n) * (chance * credit[None, :]).sum(axis=1)
    return out


register(Family("SetF", "Set F: (β + 1)·P·R/(β·P + R) over the retrieved set (trec_eval set_F, β not squared).",
                (BETA_PARAM, LEVEL_PARAM), kernel=set_f, cutoff="none", ties="order_free",
                ir_measures=IrMeasuresName("SetF"), trec_eval=(TrecEvalName("set_F", "SetF(beta={:g})", 32, "float", (1.0,), nicknames=_SET),)))
register(Family("NumQ", "Number of topics evaluated (1 per topic, summed: trec_eval num_q).", kernel=num_q,
                cutoff="none", ties="order_free", over_topics="sum", bounded=False, ir_measures=IrMeasuresName("NumQ"),
                trec_eval=(TrecEvalName("num_q", "NumQ", 1, kind="num_q", nicknames=EVERY_NICKNAME),)))
register(Family("NumNonrelJudgedRet", "Judged non-relevant documents retrieved (trec_eval num_nonrel_judged_ret).",
                (LEVEL_PARAM,), terms=judged_nonrelevant_terms, cutoff="none", ties="pointwise", over_topics="sum", bounded=False,
                trec_eval=(TrecEvalName("num_nonrel_judged_ret", "NumNonrelJudgedRet", 33),)))
register(Family("RelP", "Relative precision at k: relevant in the top k / min(k, R) (trec_eval relative_P_k).",
                (LEVEL_PARAM,), terms=relevant_terms, shares_terms=lambda j, m: ("relevant", level_of(j, m)),
                normaliser=_by_min_k_r, cutoff="required", ties="pointwise",
                trec_eval=(TrecEvalName("relative_P", "RelP@{}", 26, "longs", TREC_CUTS),)))
register(Family("Unj", "Unjudged at k: unjudged documents in the top k / k; ranks past the list count as judged "
                "(trec_eval unj_k).", terms=unjudged_terms, shares_terms=lambda j, m: "unjudged",
                normaliser=_by_k, cutoff="required", ties="pointwise",
                trec_eval=(TrecEvalName("unj", "Unj@{}", 53, "longs", (5, 10, 20)),)))


def bin_g_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """1/log2(2 + non-relevant documents ranked above) at each relevant rank, else 0 (binG)."""
    level = level_of(j, m)
    rel = j.head(j.relevant(level), width)
    nonrel_above = j.ranks[:width] - j.head(j.cum_relevant(level), width)  # i − C(i): non-relevant in ranks ≤ i
    return np.where(rel, 1.0 / np.log2(2.0 + nonrel_above), 0.0)


def _by_num_relevant(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    return per_topic(j.num_relevant(level_of(j, m)))


register(Family("binG", "Binary G: relevant documents' 1/log2(2 + non-relevant ranked above), summed and divided "
                "by R (trec_eval binG, experimental).", (LEVEL_PARAM,), terms=bin_g_terms,
                normaliser=_by_num_relevant, ties="closed", expected_terms=expected_bin_g_terms,
                trec_eval=(TrecEvalName("binG", "binG", 19),)), aliases=("BinG",))


def utility(j: Judgments, m: Measure) -> np.ndarray:
    """a·C + b·(n − C) + c·(R − C) + d·(N + C − n − R): the relevant retrieved, non-relevant
    retrieved, relevant missed and non-relevant not retrieved, weighted (trec_eval utility;
    N = ``docs``, the collection's size, trec_eval's -N)."""
    c, n, r = _sizes(j, m)
    weighted: np.ndarray = m["a"] * c + m["b"] * (n - c) + m["c"] * (r - c) + m["d"] * (m["docs"] + c - n - r)
    return weighted


def _made_up_utility(weights: tuple[float, float, float, float], num_rel: int, num_docs: int) -> float:
    """trec_eval's utility of its made-up ranking for a topic -c adds (TrecEvalName.made_up):
    one document retrieved, not relevant — n = 1, C = 0 — added up as m_utility.c does."""
    a, b, c, d = weights
    return a * 0 + b * 1 + c * num_rel + d * (num_docs + 0 - 1 - num_rel)


register(Family("Utility", "Linear utility a·C + b·(n − C) + c·(R − C) + d·(N + C − n − R) of the retrieved set "
                "(trec_eval utility; N = docs, its -N).",
                (Param("a", float, 1.0, always_shown=True, help="weight of a relevant document retrieved"),
                 Param("b", float, -1.0, always_shown=True, help="weight of a non-relevant document retrieved"),
                 Param("c", float, 0.0, always_shown=True, help="weight of a relevant document missed"),
                 Param("d", float, 0.0, always_shown=True, help="weight of a non-relevant document not retrieved"),
                 Param("docs", int, 0, help="the number of documents in the collection (trec_eval -N)", low=0),
                 LEVEL_PARAM),
                kernel=utility, cutoff="none", bounded=False, ties="order_free",
                trec_eval=(TrecEvalName("utility", "Utility(a={:g},b={:g},c={:g},d={:g})", 17, "floats_one",
                                        (1.0, -1.0, 0.0, 0.0), nicknames=_SET, made_up=_made_up_utility),)))
