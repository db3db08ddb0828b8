"""Compatibility (Clarke, Vtyurina & Smucker, TOIS 2021), as ir_measures' ``compat`` provider
computes it.

The ideal ranking lists the relevant documents (grade > 0) by grade, descending; within a
grade, retrieved documents first, in the run's order, then the others. Compat is the
rank-biased overlap of the run with that ideal ranking,

    RBO = Σ_{i<D} p^i·|R_{i+1} ∩ I_{i+1}|/(i + 1) / Σ_{i<D} p^i,   D = max(n, R),

with R_k and I_k the first k documents of the run and of the ideal ranking; normalised (the
default) by the RBO of the ideal ranking with itself. A relevant document at run rank b and
ideal rank a is in both prefixes from depth max(a, b) on, so the overlap is a count of
those depths — one cumulative sum per topic, no per-document sets.

[CHOICE] Equally relevant retrieved documents come before unretrieved ones and keep the
run's order (the paper's tie rule). ir_measures' implementation sorts them by run score with
0.0 for unretrieved documents, so it differs on topics where a relevant document has a score
≤ 0 or two equally relevant ones share a score (its ideal then follows the qrels' order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irstats.measures.common import rank_sum
from irstats.measures.params import Param
from irstats.measures.registry import Family, IrMeasuresName, register

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure

P_PARAM = Param("p", float, 0.95, always_shown=True, help="persistence of the rank-biased overlap", low=0, high=1,
                open_low=True, open_high=True)
NORMALIZE_PARAM = Param("normalize", str, "true", choices=("true", "false"),
                        help="divide by the ideal ranking's own overlap")


def _grades_above(j: Judgments) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per topic: the distinct positive grades (G,) and, for each, how many qrels documents
    have a higher grade (T, G); also the number of relevant documents R per topic."""
    rel = np.asarray(j.qrels.rel)
    topic = np.asarray(j.qrels.topic_index)
    positive = rel > 0
    levels = np.unique(rel[positive])
    above = np.zeros((j.qrels.n_topics, len(levels)), dtype=np.int64)
    for k, g in enumerate(levels):
        above[:, k] = np.bincount(topic[rel > g], minlength=j.qrels.n_topics)
    n_rel = np.bincount(topic[positive], minlength=j.qrels.n_topics)
    return levels, above, n_rel


def compat(j: Judgments, m: Measure) -> np.ndarray:
    p = float(m["p"])
    grades = j.grades.astype(np.int64)
    n_sys, n_top, width = grades.shape
    levels, above, n_rel = _grades_above(j)
    n_ret = j.n_ret
    depth = np.maximum(n_ret, n_rel[None, :])  # D per (system, topic)
    top = int(max(depth.max(initial=0), 1))
    i = np.arange(top, dtype=np.float64)
    # before[x] = Σ_{i<x} p^i/(i + 1), added from i = 0 on: before[x] does not depend on the
    # longest list of the batch (top), so neither does a topic's score (a sum from the far end,
    # Σ_{i≥x}, would start at a term that depends on it)
    before = np.concatenate(([0.0], np.cumsum(p ** i / (i + 1.0))))
    at_depth = before[depth]  # (S, T)
    ranks = np.arange(1, width + 1, dtype=np.int64)
    score = np.zeros((n_sys, n_top))
    for k, g in enumerate(levels):
        is_g = grades == g
        ideal = above[None, :, k, None] + np.cumsum(is_g, axis=2)  # a: the ideal rank of this document
        first = np.maximum(ideal, ranks)  # in both prefixes from here on (1-based), first ≤ D
        contribution = np.where(is_g, at_depth[:, :, None] - before[np.minimum(first - 1, top)], 0.0)
        score += rank_sum(contribution)  # in rank order: the same whatever the tensor's width
    normaliser = np.where(depth > 0, (1.0 - p ** depth) / (1.0 - p), np.nan)
    rbo = np.where(depth > 0, score / np.where(depth > 0, normaliser, 1.0), 0.0)
    if m["normalize"] == "false":
        return rbo
    # the ideal ranking with itself: every relevant document in both prefixes from its own rank a,
    # Σ_{a=1}^{R} (before[D] − before[a − 1]) = R·before[D] − Σ_{a<R} before[a]
    cum = np.concatenate(([0.0], np.cumsum(before[:top])))  # cum[r] = Σ_{a<r} before[a]
    best_score = n_rel[None, :] * at_depth - cum[np.minimum(n_rel, top)][None, :]
    best = np.where(depth > 0, best_score / np.where(depth > 0, normaliser, 1.0), 0.0)
    return np.where(best > 0, rbo / np.where(best > 0, best, 1.0), rbo)


register(Family("Compat", "Compatibility (Clarke et al. 2021): rank-biased overlap with the ideal ranking, "
                "normalised; as ir_measures' compat provider.", (P_PARAM, NORMALIZE_PARAM), kernel=compat,
                cutoff="none", ir_measures=IrMeasuresName("Compat")))
