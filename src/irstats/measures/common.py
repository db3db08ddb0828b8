"""Small helpers shared by the measure kernels."""

from __future__ import annotations

import numpy as np

from irstats.measures.registry import Param

#: ``rel=L``: the relevance level of one binary measure, overriding the evaluation's ℓ.
LEVEL_PARAM = Param("rel", int, None, help="relevance level for this measure (default: the evaluation's -l)")


def safe_divide(numerator, denominator) -> np.ndarray:
    """numerator / denominator, and 0 where the denominator is 0 (trec_eval's convention)."""
    numerator, denominator = np.broadcast_arrays(np.asarray(numerator, float), np.asarray(denominator, float))
    out = np.zeros(numerator.shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


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
