"""Robustness of conclusions to the scale of a measure (seed 001; METHODS.md §5.7).

Robertson ("On GMAP", CIKM 2006) shows that MAP and GMAP differ only in which part of the AP
scale they emphasise: GMAP is the arithmetic mean of log(AP + ε). Which system is better —
and whether significantly — can depend on that choice, so a conclusion should be checked
"under any number of different transformations" of the per-topic scores.

For every pair of systems (a, b) and every transformation T, the paired t-test on
T(x_a) − T(x_b) over the topics gives a direction (sign of the mean difference) and whether
it is significant at α. A pair's conclusion under T is one of ``a>b*`` (significant),
``a>b``, ``=``, ``a<b``, ``a<b*``; it *changes* when it differs from the conclusion on the
raw scores. Transformations (``TRANSFORMS``):

``raw``           x (the identity: nothing changes)
``log``           log(x + ε), ε = 0.01 — the scale of GMAP (εGM)
``logit``         log((x + ε)/(1 − x + ε)), ε = 0.01 — stretches both ends of [0, 1]
``ranks``         the system's rank on each topic (average ranks for ties; 1 = lowest)
``standardized``  Φ(z) with z = (x − mean_t)/sd_t over all systems on topic t (seed 004)

Only topics scored for every system are used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import polars as pl

from irstats.result import Result, provided
from irstats.checks import names, real, score_matrix, share
from irstats.errors import ArgumentError, InputError
from irstats.scores import ScoreMatrix

DEFAULT_EPSILON = 0.01


def _log(x: np.ndarray, eps: float) -> np.ndarray:
    return np.log(x + eps)


def _logit(x: np.ndarray, eps: float) -> np.ndarray:
    return np.log(x + eps) - np.log(1.0 - x + eps)


def _ranks(x: np.ndarray, eps: float) -> np.ndarray:
    """Each system's rank on each topic (column), 1 = lowest, ties sharing their average rank
    (as ``scipy.stats.rankdata(x, axis=0)``, without importing scipy.stats)."""
    out = np.empty_like(x, dtype=np.float64)
    for j in range(x.shape[1]):
        _, inverse, counts = np.unique(x[:, j], return_inverse=True, return_counts=True)
        first = np.cumsum(counts) - counts  # how many values lie below each distinct value
        out[:, j] = (first + (counts + 1) / 2.0)[inverse]
    return out


def _standardized(x: np.ndarray, eps: float) -> np.ndarray:
    from scipy.special import ndtr

    sd = x.std(axis=0, ddof=1)
    z = np.divide(x - x.mean(axis=0), sd, out=np.zeros_like(x), where=sd > 0)
    return ndtr(z)


#: name → f(values, ε): the per-topic transformations, applied to the systems × topics matrix.
TRANSFORMS: dict[str, Callable[[np.ndarray, float], np.ndarray]] = {
    "raw": lambda x, eps: x, "log": _log, "logit": _logit, "ranks": _ranks, "standardized": _standardized,
}


def _conclusion(mean: np.ndarray, p: np.ndarray, alpha: float) -> np.ndarray:
    significant = p < alpha
    return np.select([(mean > 0) & significant, mean > 0, (mean < 0) & significant, mean < 0],
                     ["a>b*", "a>b", "a<b*", "a<b"], "=")


@dataclass(frozen=True)
class TransformRobustness(Result):
    """Conclusions on every system pair under every transformation, and how many change."""

    measure: str
    alpha: float
    epsilon: float
    transforms: tuple[str, ...]
    pairs_frame: pl.DataFrame  # measure system_a system_b transform delta t p conclusion changed

    def to_frame(self) -> pl.DataFrame:
        """Per transformation: pairs, changed, change_rate, reversed (direction flipped with
        significance on either side) and the significant pairs under it."""
        frame = self.pairs_frame
        return (frame.group_by("transform", maintain_order=True)
                .agg(pl.len().alias("pairs"), pl.col("changed").sum().alias("changed"),
                     pl.col("reversed").sum().alias("reversed"),
                     pl.col("conclusion").str.ends_with("*").sum().alias("significant"))
                .with_columns((pl.col("changed") / pl.col("pairs")).alias("change_rate"))
                .select(pl.lit(self.measure).alias("measure"), "transform", "pairs", "significant", "changed",
                        "change_rate", "reversed"))

    def summary(self) -> pl.DataFrame:
        return self.to_frame()

    def changed_pairs(self) -> pl.DataFrame:
        """The pairs whose conclusion differs from the raw scores' under some transformation."""
        return self.pairs_frame.filter(pl.col("changed"))

    @property
    def title(self) -> str:
        return (f"{self.measure}: paired t-test conclusions (α = {self.alpha:g}) under transformations of the "
                f"per-topic scores (ε = {self.epsilon:g}); changed = differs from the raw scores")

    def display_table(self, digits: int = 4):
        from irstats.render import Cell, Table

        rows = [[Cell(r["transform"]), Cell(str(r["pairs"])), Cell(str(r["significant"])), Cell(str(r["changed"])),
                 Cell(f"{100 * r['change_rate']:.1f}%", f"{100 * r['change_rate']:.1f}\\%"), Cell(str(r["reversed"]))]
                for r in self.to_frame().iter_rows(named=True)]
        return Table.of(["transform", "pairs", "significant", "changed", "rate", "reversed"], rows,
                        [False] + [True] * 5, title=self.title, label="tab:transforms")

    def plot(self, ax=None):
        """A bar per transformation: the share of system pairs whose conclusion changes
        (:func:`irstats.plots.meta.plot_transform_robustness`). Returns the Axes."""
        return provided(self, "plot", "irstats.plots")(self, ax=ax)


def transform_robustness(matrix: ScoreMatrix, transforms=tuple(TRANSFORMS), alpha: float = 0.05,
                         epsilon: float = DEFAULT_EPSILON) -> TransformRobustness:
    """Direction and significance of every system pair under each transformation (seed 001).

    >>> m = ScoreMatrix(np.array([[0.9, 0.8, 0.0, 0.7], [0.5, 0.4, 0.3, 0.4]]), ("a", "b"),
    ...                 ("1", "2", "3", "4"), "AP")
    >>> transform_robustness(m).pairs_frame.select("transform", "conclusion").rows()[:2]
    [('raw', 'a>b'), ('log', 'a<b')]
    """
    from irstats.stats.closed_form import paired_t_rows

    score_matrix(matrix)
    transforms = names(transforms, "transforms", what="transformations", text=True)
    unknown = [t for t in transforms if t not in TRANSFORMS]
    if unknown:
        raise ArgumentError(f"unknown transformation {unknown[0]!r}; expected one of {', '.join(TRANSFORMS)}",
                            argument="transforms")
    share(alpha, "alpha")
    epsilon = real(epsilon, "epsilon", low=0.0)
    complete = ~np.isnan(matrix.values).any(axis=0)
    from irstats.stats.resampling import warn_dropped_topics

    warn_dropped_topics(int((~complete).sum()), len(complete), f"the transformations of {matrix.measure}")
    x = matrix.values[:, complete]
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise InputError(f"{matrix.measure}: needs at least 2 systems and 2 topics scored for every system")
    needs_unit = {"logit"} & set(transforms)
    if needs_unit and ((x < 0) | (x > 1)).any():
        raise InputError(f"{matrix.measure}: the logit transformation needs scores in [0, 1]")
    if "log" in transforms and (x + epsilon <= 0).any():
        raise InputError(f"{matrix.measure}: log(x + ε) needs x + ε > 0 (ε = {epsilon:g})")
    a, b = np.triu_indices(x.shape[0], k=1)
    ordered = ("raw",) + tuple(t for t in transforms if t != "raw")
    frames, raw = [], None
    for name in ordered:
        y = TRANSFORMS[name](x, epsilon)
        rows = paired_t_rows(y[a] - y[b])
        mean, t, p = rows.mean, rows.statistic, rows.p_value
        conclusion = _conclusion(mean, p, alpha)
        if raw is None:  # "raw" comes first: every other conclusion is compared with it
            raw = (mean, conclusion)
        significant_somewhere = np.char.endswith(conclusion, "*") | np.char.endswith(raw[1], "*")
        frames.append(pl.DataFrame({
            "measure": [matrix.measure] * len(a), "system_a": [matrix.systems[i] for i in a],
            "system_b": [matrix.systems[j] for j in b], "transform": [name] * len(a), "delta": mean,
            "t": t, "p": p, "conclusion": conclusion.tolist(), "changed": conclusion != raw[1],
            "reversed": (np.sign(mean) * np.sign(raw[0]) < 0) & significant_somewhere}))
    frame = pl.concat(frames)
    if "raw" not in transforms:
        frame = frame.filter(pl.col("transform") != "raw")
    return TransformRobustness(matrix.measure, float(alpha), float(epsilon), ordered if "raw" in transforms
                               else tuple(t for t in ordered if t != "raw"), frame)


__all__ = ["DEFAULT_EPSILON", "TRANSFORMS", "TransformRobustness", "transform_robustness"]
