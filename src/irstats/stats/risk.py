"""Risk-sensitive evaluation (METHODS.md §5.7): how often, and how badly, a system does worse
than a baseline on a topic, rather than how well it does on average.

Against one baseline b (Dinçer, Macdonald & Ounis, SIGIR 2014): per topic δ_i = x_i − b_i,
with losses weighted by 1 + α: δ′_i = δ_i if δ_i ≥ 0 else (1 + α)·δ_i.

- URisk(α) = mean(δ′) — α = 0 is the plain mean difference; larger α punishes losses more.
- TRisk(α) = URisk / (sd(δ′)/√n), ddof = 1: URisk in standard errors, a paired t on δ′.
  TRisk < −2 says the system is significantly riskier than the baseline, > 2 significantly
  safer. A constant δ′ follows the one degenerate-t rule (:mod:`irstats.stats.degenerate`).

Against a set of systems (Dinçer, Macdonald & Ounis, SIGIR 2016): the system × topic
matrix X (m systems, c topics) is read as a contingency table. With row totals S_i, column
totals T_j and grand total N, the expected score is e_ij = S_i·T_j/N and
z_ij = (x_ij − e_ij)/√e_ij (0 where e_ij = 0, which for non-negative scores means the whole
topic scored 0).

- ZRisk_i(α) = Σ_{j: x_ij ≥ e_ij} z_ij + (1 + α)·Σ_{j: x_ij < e_ij} z_ij.
- GeoRisk_i(α) = √( (S_i/c) · Φ(ZRisk_i(α)/c) ): the geometric mean of the system's mean
  score and its (normal-CDF-mapped) risk, so a system needs both to rank high.

Both need non-negative scores (e_ij is a product of totals); a negative score is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.checks import kind_of, numbers, real, score_matrix
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, some
from irstats.scores import ScoreMatrix
from irstats.stats.degenerate import degenerate_t, zero_spread
from irstats.stats.resampling import warn_dropped_topics

if TYPE_CHECKING:  # pragma: no cover
    from irstats.render import Table


def weighted_losses(delta: np.ndarray, alpha: float) -> np.ndarray:
    """δ′: wins as they are, losses multiplied by 1 + α."""
    delta = numbers(delta, "delta")
    alpha = real(alpha, "alpha", low=0.0)
    return np.where(delta >= 0, delta, (1.0 + alpha) * delta)


def urisk(delta: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """URisk(α) = mean(δ′) along the last axis (topics)."""
    mean: np.ndarray = weighted_losses(delta, alpha).mean(axis=-1)
    return mean


def trisk(delta: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """TRisk(α) = URisk/(sd(δ′)/√n) along the last axis; fewer than two topics give NaN."""
    weighted = weighted_losses(delta, alpha)
    n = weighted.shape[-1]
    if n < 2:
        return np.full(weighted.shape[:-1], np.nan)
    mean = weighted.mean(axis=-1)
    sd = weighted.std(axis=-1, ddof=1)
    flat = zero_spread(sd, mean)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    return np.where(flat, degenerate_t(mean)[0], t)


def _systems_by_topics(matrix: ScoreMatrix | np.ndarray) -> np.ndarray:
    x = numbers(matrix.values if isinstance(matrix, ScoreMatrix) else matrix, "matrix")
    if x.ndim != 2:
        raise ArgumentError(f"matrix must be systems × topics, got an array of shape {x.shape}", argument="matrix")
    return x


def zrisk(matrix: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """ZRisk_i(α) of every system (row) of a complete, non-negative system × topic matrix."""
    x = _systems_by_topics(matrix)
    alpha = real(alpha, "alpha", low=0.0)
    expected = _expected(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(expected > 0, (x - expected) / np.sqrt(expected), 0.0)
    weighted: np.ndarray = np.where(x >= expected, z, (1.0 + alpha) * z).sum(axis=1)
    return weighted


def georisk(matrix: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """GeoRisk_i(α) = √((S_i/c)·Φ(ZRisk_i(α)/c)) of every system (row)."""
    from scipy.special import ndtr  # Φ; scipy.special loads in milliseconds, scipy.stats does not

    x = _systems_by_topics(matrix)
    c = x.shape[1]
    risk: np.ndarray = np.sqrt(x.mean(axis=1) * ndtr(zrisk(x, alpha) / c))
    return risk


def _expected(x: np.ndarray) -> np.ndarray:
    """e_ij = S_i·T_j/N, the score a system would get on a topic if scores were independent."""
    total = x.sum()
    if total == 0:
        return np.zeros_like(x)
    expected: np.ndarray = np.outer(x.sum(axis=1), x.sum(axis=0)) / total
    return expected


@dataclass(frozen=True)
class RiskResult(Result):
    """Risk of every system of one measure against a baseline, and within the set.

    ``frame()`` rows: measure, system, baseline, alpha, urisk, trisk, zrisk, georisk (the
    baseline's own URisk is 0 and its TRisk 0; ZRisk and GeoRisk are over all systems).
    """

    measure: str
    baseline: str
    alpha: float
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    urisk: np.ndarray
    trisk: np.ndarray
    zrisk: np.ndarray
    georisk: np.ndarray

    def to_frame(self) -> pl.DataFrame:
        n = len(self.systems)
        return pl.DataFrame({
            "measure": [self.measure] * n, "system": list(self.systems), "baseline": [self.baseline] * n,
            "alpha": [float(self.alpha)] * n, "urisk": self.urisk, "trisk": self.trisk,
            "zrisk": self.zrisk, "georisk": self.georisk,
        })

    @property
    def title(self) -> str:
        return f"{self.measure}: risk against {self.baseline} (α = {self.alpha:g}, {len(self.topics)} topics)"

    def legend(self) -> list[str]:
        """What URisk and TRisk are, and the threshold at which TRisk is significant."""
        return [f"URisk = mean per-topic difference to the baseline {self.baseline}, a loss counting "
                f"1 + α = {1 + self.alpha:g} times",
                "TRisk = URisk in standard errors: below −2 significantly riskier than the baseline, above 2 "
                "significantly safer (|TRisk| > 2, about p < 0.05, two-sided)",
                "ZRisk and GeoRisk: risk within the set of all systems"]

    def display_table(self, digits: int = 4) -> Table:
        """A row per system other than the baseline, the safest first (URisk descending)."""
        from irstats.render import Cell, Table, number_cell

        order = [k for k in np.argsort(-np.nan_to_num(self.urisk, nan=-np.inf), kind="stable")
                 if self.systems[k] != self.baseline]
        rows = [[Cell(self.systems[k]), number_cell(self.urisk[k], digits, sign=True),
                 number_cell(self.trisk[k], 2, sign=True), number_cell(self.zrisk[k], 2, sign=True),
                 number_cell(self.georisk[k], digits)] for k in order]
        return Table.of(["system", "URisk", "TRisk", "ZRisk", "GeoRisk"], rows, [False, True, True, True, True],
                        title=self.title, legend=self.legend(), label="tab:risk",
                        groups=["system", "urisk", "trisk", "zrisk", "georisk"])


def risk(matrix: ScoreMatrix, baseline: str, alpha: float = 1.0) -> RiskResult:
    """URisk, TRisk (against ``baseline``), ZRisk and GeoRisk (over all systems) of one measure.

    Only topics every system was scored on count (the same topics for every statistic);
    ``alpha`` ≥ 0 is the extra weight of a loss.

    >>> m = ScoreMatrix(np.array([[0.5, 0.2, 0.4], [0.3, 0.3, 0.3]]), ("a", "b"), ("1", "2", "3"), "AP")
    >>> r = risk(m, baseline="b", alpha=1)
    >>> [round(float(v), 4) for v in r.urisk]          # a: (0.2 − 2·0.1 + 0.1)/3
    [0.0333, 0.0]
    """
    score_matrix(matrix)
    real(alpha, "alpha", low=0.0)
    if not isinstance(baseline, str):
        raise ArgumentTypeError(f"baseline must be a system name; got {kind_of(baseline)}", argument="baseline")
    if baseline not in matrix.systems:
        raise ArgumentError(f"baseline {baseline!r} is not one of the systems of {matrix.measure}: "
                            f"{some(matrix.systems)}", argument="baseline")
    complete = ~np.isnan(matrix.values).any(axis=0)
    warn_dropped_topics(int((~complete).sum()), len(complete), f"the risk of {matrix.measure}")
    if complete.sum() < 1:
        raise InputError(f"{matrix.measure}: no topic is scored for every system")
    x = matrix.values[:, complete]
    if (x < 0).any():
        raise InputError(f"{matrix.measure}: ZRisk and GeoRisk need scores >= 0 (a negative score was found)")
    delta = x - x[matrix.systems.index(baseline)][None, :]
    topics = tuple(t for t, keep in zip(matrix.topics, complete) if keep)
    return RiskResult(matrix.measure, baseline, float(alpha), tuple(matrix.systems), topics,
                      urisk(delta, alpha), trisk(delta, alpha), zrisk(x, alpha), georisk(x, alpha))


__all__ = ["RiskResult", "georisk", "risk", "trisk", "urisk", "weighted_losses", "zrisk"]
