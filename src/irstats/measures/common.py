"""Small helpers shared by the measure kernels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Hashable, Sequence

import numpy as np
import numpy.typing as npt

from irstats.measures.params import Param

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure

#: ``rel=L``: the relevance level of one binary measure, overriding the evaluation's ℓ.
LEVEL_PARAM = Param("rel", float, None, help="relevance level for this measure (default: the evaluation's -l; "
                   "a real number with real-valued labels)", low=0)


def safe_divide(numerator: npt.ArrayLike, denominator: npt.ArrayLike) -> np.ndarray:
    """numerator / denominator, and 0 where the denominator is 0 (trec_eval's convention)."""
    top, bottom = np.broadcast_arrays(np.asarray(numerator, float), np.asarray(denominator, float))
    out = np.zeros(top.shape)
    np.divide(top, bottom, out=out, where=bottom != 0)
    return out


def rank_sum(values: np.ndarray) -> np.ndarray:
    """Sum along the rank axis, adding ranks strictly in order.

    A running sum is used instead of numpy's pairwise summation so that the result does
    not depend on how much padding follows the list: the tensor's width varies with the
    batch of runs, and scores must not (DESIGN.md: results independent of batch sizes).
    """
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1])
    sums: np.ndarray = np.cumsum(values, axis=-1, dtype=np.float64)[..., -1]
    return sums


def accumulate(judgments: Judgments, key: Hashable, terms: Callable[[int], np.ndarray],
               depths: np.ndarray | None) -> np.ndarray:
    """Sums of per-rank terms over ranks 1..min(k, n), for every depth k: (S, T, D).

    ``terms(width)`` gives the terms of the first ``width`` ranks; ``depths`` None means the
    whole list (D = 1). The running sum is kept on the judgments under ``key`` (as wide as the
    widest request so far), so measures that share terms, and every depth of a sweep, are
    summed once; a running sum read at rank k equals summing the first k terms in order, so
    the value does not depend on which depths were asked for together.
    """
    width = judgments.depth if depths is None else min(int(np.max(depths)), judgments.depth)
    cumulative: np.ndarray | None = judgments.memo(("cumulative", key), None)
    if cumulative is None or cumulative.shape[2] < width:
        summed = np.cumsum(terms(width), axis=2, dtype=np.float64)
        judgments.memo(("cumulative", key), lambda: summed, replace=True)
        cumulative = summed
    shape = cumulative.shape[:2]
    if width == 0:
        return np.zeros(shape + (1 if depths is None else len(depths),))
    if depths is None:
        return cumulative[:, :, width - 1: width]
    at_depths: np.ndarray = np.take(cumulative, np.clip(depths, 1, width) - 1, axis=2)
    return at_depths


def widest_first(measures: Sequence[Measure]) -> list[Measure]:
    """Measures in the order that sums their terms once: no cut-off first, then the deepest.

    Measures sharing terms (P@5 … P@1000, R@k; AP, AP@k, SP) read one running sum, kept as
    wide as the widest request so far (:func:`accumulate`).
    """
    return sorted(measures, key=lambda m: -(m.cutoff if m.cutoff is not None else float("inf")))


def per_topic(values: npt.ArrayLike) -> np.ndarray:
    """A per-topic (T,) or per-topic-and-depth (T, D) array shaped to broadcast against (S, T, D)."""
    array = np.asarray(values, dtype=np.float64)
    return array[None, :, None] if array.ndim == 1 else array[None, :, :]


def depth_axis(depths: np.ndarray) -> np.ndarray:
    """The depths k as floats shaped (1, 1, D), to broadcast against (S, T, D)."""
    return np.asarray(depths, dtype=np.float64)[None, None, :]


def shown(judgments: Judgments, depths: np.ndarray | None) -> np.ndarray:
    """min(k, n): the documents of each list inside depth k, (S, T, D) (n itself when None)."""
    n_ret: np.ndarray = judgments.n_ret[:, :, None]
    return n_ret if depths is None else np.minimum(n_ret, np.asarray(depths)[None, None, :])


def level_of(judgments: Judgments, measure: Measure) -> int | float:
    """The relevance level ℓ of a measure: its ``rel=`` parameter, else the evaluation's."""
    level = measure.get("rel")
    return judgments.rel_level if level is None else level_number(level)


def level_number(level: Any) -> int | float:
    """A relevance level as a number: whole levels as int (as they always were), others float."""
    number = float(level)
    return int(number) if number.is_integer() else number
