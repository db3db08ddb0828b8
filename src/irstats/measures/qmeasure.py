"""Sakai's Q-measure (METHODS.md §2.8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irstats.measures.common import LEVEL_PARAM, depth_axis, level_of, per_topic, shown
from irstats.measures.dcg import gain_function
from irstats.measures.params import Param
from irstats.measures.registry import Family, register
from irstats.measures.ties import _positions, group_counts, group_sums

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure

BETA_PARAM = Param("beta", float, 1.0, always_shown=True, help="weight of cumulative gain in the blended ratio", low=0)
NORM_PARAM = Param("norm", str, "R", choices=("R", "min"), help="divide by R (default) or by min(k, R)")


def blended_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """The blended ratio (C(r) + β·cg(r))/(r + β·cg*(r)) at each relevant rank r, else 0."""
    beta, level = m["beta"], level_of(j, m)
    rel = j.head(j.relevant(level), width)
    cum_rel = j.head(j.cum_relevant(level), width)
    cum_gain = np.cumsum(j.head(j.positive_grades(), width), axis=2, dtype=np.float64)
    ideal_cum = np.cumsum(j.qrels.ideal_gains("lin", gain_function("lin")), axis=1)
    # cg*(r) stays at its last value for r past the ideal list's length.
    cg_star = ideal_cum[:, np.minimum(np.arange(width), ideal_cum.shape[1] - 1)]  # (T, width)
    blended = (cum_rel + beta * cum_gain) / (j.ranks[:width] + beta * cg_star[None, :, :])
    return np.where(rel, blended, 0.0)


def _normaliser(j: Judgments, m: Measure, depths: np.ndarray | None) -> np.ndarray:
    big_r = per_topic(j.num_relevant(level_of(j, m)))
    if m["norm"] != "min":
        return big_r
    # min(k, R); without a cut-off, min(n, R) with the list's own length n.
    by: np.ndarray = np.minimum(big_r, shown(j, None) if depths is None else depth_axis(depths))
    return by



def expected_blended_terms(j: Judgments, m: Measure, width: int) -> np.ndarray:
    """The Q-measure's expected terms E[b_i·(C(i) + β·cg(i))]/(i + β·cg*(i)): the denominator
    does not depend on the order; E[b_i·C(i)] is AP's, and with gains g, G above the group,
    and in it r relevant, Σg and Σb·g: E[b_i·cg(i)] = (r/n)·G + Σb·g/n + (p − 1)(r·Σg − Σb·g)/(n(n − 1))
    (i itself, then each earlier place holding another document of the group)."""
    width = min(width, j.depth)
    beta, level = m["beta"], level_of(j, m)
    rel = j.relevant(level)
    gains = j.positive_grades().astype(np.float64)
    r, c = group_counts(j, rel, width)
    gain_in, gain_above = group_sums(j, gains, width)
    both_in, _ = group_sums(j, np.where(rel, gains, 0.0), width)
    p, n = _positions(j, width)
    pairs = np.maximum(n * (n - 1), 1)
    relevant_count = r / n * (c + 1) + np.where(n > 1, (p - 1) * r * (r - 1) / pairs, 0.0)
    relevant_gain = r / n * gain_above + both_in / n + np.where(n > 1, (p - 1) * (r * gain_in - both_in) / pairs, 0.0)
    ideal_cum = np.cumsum(j.qrels.ideal_gains("lin", gain_function("lin")), axis=1)
    cg_star = ideal_cum[:, np.minimum(np.arange(width), ideal_cum.shape[1] - 1)]  # (T, width)
    terms: np.ndarray = (relevant_count + beta * relevant_gain) / (j.ranks[:width] + beta * cg_star[None, :, :])
    return terms


register(Family("Q", "Q-measure: AP with the blended ratio (C(r) + β·cg(r))/(r + β·cg*(r)).",
                (BETA_PARAM, NORM_PARAM, LEVEL_PARAM), terms=blended_terms,
                shares_terms=lambda j, m: ("blended ratio", m["beta"], level_of(j, m)), normaliser=_normaliser,
                ties="closed", expected_terms=expected_blended_terms))
