"""Small helpers shared by the measure kernels."""

from __future__ import annotations

import numpy as np

from irstats.measures.registry import Param

#: ``rel=L``: the relevance level of one binary measure, overriding the evaluation's ℓ.
LEVEL_PARAM = Param("rel", int, None, help="relevance level for this measure (default: the evaluation's -l)", low=0)


def safe_divide(numerator, denominator) -> np.ndarray:
    """numerator / denominator, and 0 where the denominator is 0 (trec_eval's convention)."""
    numerator, denominator = np.broadcast_arrays(np.asarray(numerator, float), np.asarray(denominator, float))
    out = np.zeros(numerator.shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def rank_sum(values: np.ndarray) -> np.ndarray:
    """Sum along the rank axis, adding ranks strictly in order.

    A running sum is used instead of numpy's pairwise summation so that the result does
    not depend on how much padding follows the list: the tensor's width varies with the
    batch of runs, and scores must not (DESIGN.md: results independent of batch sizes).
    """
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1])
    return np.cumsum(values, axis=-1, dtype=np.float64)[..., -1]


def level_of(judgments, measure) -> int:
    """The relevance level ℓ of a measure: its ``rel=`` parameter, else the evaluation's."""
    level = measure.get("rel")
    return judgments.rel_level if level is None else int(level)


def trec_cut(base: str, measure, default: str | None = None) -> str | None:
    """trec_eval's name ``base_k`` for a cut-off measure evaluated at the default level."""
    if measure.get("rel") is not None:
        return None
    if measure.cutoff is None:
        return default
    return f"{base}_{measure.cutoff}"
