"""Accuracy: the share of (relevant, non-relevant) pairs of retrieved documents ranked in that
order, as ir_measures' ``Accuracy`` (its ``accuracy`` provider) computes it.

In the top min(k, n) documents, with K relevant, N non-relevant (unjudged documents count as
non-relevant, as a grade below the relevance level) and M pairs where the non-relevant
document is ranked above the relevant one:

    Accuracy@k = 1 − M/(K·N)

It only considers the documents retrieved (a diagnosis of a ranker, not a measure of the
collection's R). It is undefined when no pair exists (K = 0 or N = 0): NaN, so that the topic
counts in no mean — ir_measures' provider leaves out the topics with K = 0 and divides by zero
on those with N = 0. ir_measures' ``rel=0`` counts unjudged documents as relevant, which irstats
never does: such a measure is left to ir_measures' provider.

Tied scores (``ties="expected"``): K, N and M are counts, so without a cut-off (or when no tie
group crosses rank k) only M depends on the order, and E[M] counts a pair inside one tie group
as ½. A group crossing rank k puts X of its r relevant documents inside, X hypergeometric, and
then K, N and M are linear in X: E[Accuracy] = Σ_x P(X = x)·(1 − E[M | x]/(K_x·N_x)), NaN when
some ordering leaves no pair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irstats.measures.common import LEVEL_PARAM, level_of
from irstats.measures.registry import Family, IrMeasuresName, register

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure


def _split(j: Judgments, m: Measure) -> tuple[np.ndarray, np.ndarray, int]:
    """Relevant and non-relevant masks over the ranks 1..min(k, K) inside each list (S, T, K),
    and the evaluated width min(k, K)."""
    width = j.depth if m.cutoff is None else min(int(m.cutoff), j.depth)
    inside = np.arange(j.depth)[None, None, :] < j.n_ret[:, :, None]
    relevant = j.relevant(level_of(j, m)) & inside
    return relevant, inside & ~relevant, width


def _before(mask: np.ndarray) -> np.ndarray:
    """Running sums of ``mask`` before each position 0..K: (S, T, K + 1), starting at 0."""
    out = np.zeros(mask.shape[:2] + (mask.shape[2] + 1,), dtype=np.float64 if np.issubdtype(mask.dtype, np.floating) else np.int64)
    np.cumsum(mask, axis=2, out=out[:, :, 1:])
    return out


def _at(running: np.ndarray, place: np.ndarray) -> np.ndarray:
    return np.take_along_axis(running, place[:, :, None], axis=2)[:, :, 0]


def _share(misordered: np.ndarray, relevant: np.ndarray, nonrelevant: np.ndarray) -> np.ndarray:
    """1 − M/(K·N), as ir_measures writes it; NaN where K·N = 0."""
    pairs = relevant * nonrelevant
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, 1.0 - misordered / np.where(pairs > 0, pairs, 1.0), np.nan)


def accuracy(j: Judgments, m: Measure) -> np.ndarray:
    relevant, nonrelevant, width = _split(j, m)
    relevant, nonrelevant = relevant[:, :, :width], nonrelevant[:, :, :width]
    above = np.cumsum(nonrelevant, axis=2, dtype=np.int64) - nonrelevant
    misordered = np.where(relevant, above, 0).sum(axis=2)
    return _share(misordered, relevant.sum(axis=2), nonrelevant.sum(axis=2).astype(np.float64))


def expected_accuracy(j: Judgments, m: Measure) -> np.ndarray:
    """E[Accuracy] over every ordering of the tied documents (see the module's docstring)."""
    from scipy.special import gammaln

    from irstats.measures.ties import group_counts

    relevant, nonrelevant, width = _split(j, m)
    assert j.tie_start is not None and j.tie_size is not None  # tie groups: only tied lists get here
    shown = np.minimum(j.n_ret, width)  # the places evaluated, (S, T)
    last = np.maximum(shown - 1, 0)
    start, size = _at(j.tie_start, last), _at(j.tie_size, last)
    crossing = (shown > 0) & (start + size > shown)  # a tie group runs past rank k
    top = np.where(crossing, start, shown)  # places above that group (all of them when none)
    places = shown - top  # the group's places inside k
    rel_before, non_before = _before(relevant), _before(nonrelevant)
    k0, n0 = _at(rel_before, top), _at(non_before, top)
    group = np.where(crossing, size, 0)
    r = _at(rel_before, top + group) - k0
    # E[M] above the group: each relevant document's non-relevant ones above its group, and half its group's
    inside, above = group_counts(j, nonrelevant, j.depth)
    m0 = _at(_before(np.where(relevant, above + inside / 2.0, 0.0)), top)

    def log_comb(n: np.ndarray, k: np.ndarray) -> np.ndarray:
        log_count: np.ndarray = gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)
        return log_count

    out = np.zeros(shown.shape)
    undefined = np.zeros(shown.shape, dtype=bool)
    for x in range(int(r.max(initial=0)) + 1):
        possible = (x <= r) & (x <= places) & (places - x <= group - r)
        drawn = log_comb(r, np.minimum(x, r)) + log_comb(group - r, np.clip(places - x, 0, None))
        chance = np.where(possible, np.exp(drawn - log_comb(group, places)), 0.0)
        k, n = k0 + x, n0 + places - x
        misordered = m0 + x * n0 + x * (places - x) / 2.0
        value = _share(misordered, k, n.astype(np.float64))
        undefined |= possible & np.isnan(value)
        out += np.where(possible & ~np.isnan(value), chance * value, 0.0)
    return np.where(undefined, np.nan, out)


register(Family("Accuracy", "Share of the (relevant, non-relevant) pairs of retrieved documents in the top k ranked "
                "in that order, 1 − M/(K·N); NaN without such a pair (ir_measures' Accuracy).", (LEVEL_PARAM,),
                kernel=accuracy, ties="closed", expected_kernel=expected_accuracy,
                ir_measures=IrMeasuresName("Accuracy", only={"rel": lambda rel: rel >= 1})))
