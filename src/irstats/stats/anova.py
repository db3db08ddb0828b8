"""Analysis of variance of a system × topic score matrix, as in Sakai's *Laboratory
Experiments in Information Retrieval* (2018, ch. 3–5) — METHODS.md §5.6, §5.7.

With m systems, n topics (every system scored on every topic), x̄ the grand mean, x̄_i· the
system means and x̄_·j the topic means:

- total variation S_T = Σ(x_ij − x̄)², φ_T = mn − 1;
- between systems S_A = n·Σ_i(x̄_i· − x̄)², φ_A = m − 1;
- **one-way** (topics ignored): residual S_E1 = S_T − S_A, φ_E1 = m(n − 1);
- **two-way without replication** (topics as a second factor): between topics
  S_B = m·Σ_j(x̄_·j − x̄)², φ_B = n − 1, residual S_E2 = S_T − S_A − S_B, φ_E2 = (m − 1)(n − 1).

Variance V = S/φ; F = V_factor/V_E with p from the F distribution; the effect size
ω²_A = (S_A − φ_A·V_E)/(S_T + V_E); the margin of error of every system mean
MOE = t_{1−α/2, φ_E}·√(V_E/n) (a common half-width, from the pooled residual variance).

The classic Tukey HSD (:meth:`AnovaResult.tukey`) compares every pair with
q = |x̄_i· − x̄_j·|/√(V_E/n) against the studentized range distribution with m and φ_E
degrees of freedom; its effect size is Sakai's ES_E = (x̄_i· − x̄_j·)/√V_E.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.checks import score_matrix, share
from irstats.errors import ArgumentError, ArgumentTypeError, InputError
from irstats.scores import ScoreMatrix
from irstats.stats.resampling import warn_dropped_topics

DESIGNS = ("two-way", "one-way")


@dataclass(frozen=True)
class AnovaResult(Result):
    """One ANOVA table of one measure, with what follows from it (intervals, Tukey HSD)."""

    measure: str
    design: str
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    means: np.ndarray  # per system
    sources: tuple[str, ...]  # "systems", ("topics",) "residual", "total"
    variation: np.ndarray  # sums of squares S
    df: np.ndarray  # degrees of freedom φ
    omega_squared: float  # ω² of the system factor
    confidence: float = 0.95

    @property
    def residual_variance(self) -> float:
        """V_E: the residual mean square."""
        i = self.sources.index("residual")
        return float(self.variation[i] / self.df[i])

    @property
    def residual_df(self) -> int:
        return int(self.df[self.sources.index("residual")])

    def _f_and_p(self) -> tuple[np.ndarray, np.ndarray]:
        from scipy.special import fdtrc  # the F tail without importing scipy.stats

        variance = self.variation / self.df
        f = np.full(len(self.sources), np.nan)
        p = np.full(len(self.sources), np.nan)
        for i, source in enumerate(self.sources):
            if source in ("systems", "topics"):
                f[i] = variance[i] / self.residual_variance if self.residual_variance > 0 else np.inf
                p[i] = fdtrc(self.df[i], self.residual_df, f[i])
        return f, p

    def to_frame(self) -> pl.DataFrame:
        """The ANOVA table: measure, source, variation, df, variance, F, p."""
        f, p = self._f_and_p()
        n = len(self.sources)
        variance = np.where(self.sources_mask("total"), np.nan, self.variation / self.df)
        return pl.DataFrame({"measure": [self.measure] * n, "source": list(self.sources),
                             "variation": self.variation, "df": self.df.astype(np.int64), "variance": variance,
                             "F": f, "p": p})

    def sources_mask(self, name: str) -> np.ndarray:
        return np.array([s == name for s in self.sources])

    @property
    def margin_of_error(self) -> float:
        """t_{1−α/2, φ_E}·√(V_E/n): the half-width of every system mean's interval."""
        from scipy.special import stdtrit

        t = stdtrit(self.residual_df, 1 - (1 - self.confidence) / 2)
        return float(t * np.sqrt(self.residual_variance / len(self.topics)))

    def system_frame(self) -> pl.DataFrame:
        """measure, system, mean, ci_low, ci_high: means with the ANOVA-based intervals."""
        moe = self.margin_of_error
        return pl.DataFrame({"measure": [self.measure] * len(self.systems), "system": list(self.systems),
                             "mean": self.means, "ci_low": self.means - moe, "ci_high": self.means + moe})

    def tukey(self) -> pl.DataFrame:
        """Classic Tukey HSD over all pairs: measure, system_a, system_b, delta, q, p, es_e."""
        from scipy.stats import studentized_range

        m, n = len(self.systems), len(self.topics)
        scale = np.sqrt(self.residual_variance / n)
        rows = []
        for i, j in combinations(range(m), 2):
            delta = float(self.means[i] - self.means[j])
            q = abs(delta) / scale if scale > 0 else (0.0 if delta == 0 else np.inf)
            p = float(studentized_range.sf(q, m, self.residual_df)) if np.isfinite(q) else 0.0
            es = delta / np.sqrt(self.residual_variance) if self.residual_variance > 0 else np.nan
            rows.append({"measure": self.measure, "system_a": self.systems[i], "system_b": self.systems[j],
                         "delta": delta, "q": q, "p": min(1.0, p), "es_e": es})
        return pl.DataFrame(rows, schema={"measure": pl.String, "system_a": pl.String, "system_b": pl.String,
                                          "delta": pl.Float64, "q": pl.Float64, "p": pl.Float64,
                                          "es_e": pl.Float64})

    def summary(self) -> pl.DataFrame:
        return self.to_frame()

    @property
    def title(self) -> str:
        return (f"{self.measure}: {self.design} ANOVA ({len(self.systems)} systems × {len(self.topics)} topics); "
                f"ω² = {self.omega_squared:.4f}; {100 * self.confidence:g}% margin of error of a system mean "
                f"± {self.margin_of_error:.4f}")

    def display_table(self, digits: int = 4):
        from irstats.render import Cell, Table, number_cell

        rows = [[Cell(r["source"]), number_cell(r["variation"], digits), Cell(str(r["df"])),
                 number_cell(r["variance"], digits), number_cell(r["F"], 3),
                 Cell("" if r["p"] != r["p"] else f"{r['p']:.4g}")]
                for r in self.to_frame().iter_rows(named=True)]
        return Table.of(["source", "variation", "df", "variance", "F", "p"], rows, [False] + [True] * 5,
                        title=self.title, label="tab:anova")


def anova(matrix: ScoreMatrix, design: str = "two-way", confidence: float = 0.95) -> AnovaResult:
    """One-way or two-way (without replication) ANOVA of a score matrix's systems.

    Only topics every system was scored on are used (with a warning when some are left out).

    >>> x = ScoreMatrix(np.array([[0.5, 0.2, 0.4], [0.3, 0.3, 0.3]]), ("a", "b"), ("1", "2", "3"), "AP")
    >>> anova(x).to_frame()["df"].to_list()
    [1, 2, 2, 5]
    """
    score_matrix(matrix)
    if not (isinstance(design, str) and design in DESIGNS):
        raise (ArgumentError if isinstance(design, str) else ArgumentTypeError)(
            f"unknown ANOVA design {design!r}; expected one of {', '.join(DESIGNS)}", argument="design")
    share(confidence, "confidence")
    complete = ~np.isnan(matrix.values).any(axis=0)
    warn_dropped_topics(int((~complete).sum()), len(complete), f"the ANOVA of {matrix.measure}")
    x = matrix.values[:, complete]
    m, n = x.shape
    if m < 2 or n < 2:
        raise InputError(f"{matrix.measure}: an ANOVA needs at least 2 systems and 2 topics scored for every "
                         f"system; got {m} × {n}")
    grand = x.mean()
    means = x.mean(axis=1)
    total = float(((x - grand) ** 2).sum())
    between_systems = float(n * ((means - grand) ** 2).sum())
    if design == "one-way":
        residual = total - between_systems
        sources, variation, df = ("systems", "residual", "total"), [between_systems, residual, total], \
            [m - 1, m * (n - 1), m * n - 1]
    else:
        between_topics = float(m * ((x.mean(axis=0) - grand) ** 2).sum())
        # The residual from its definition, not as a difference: no cancellation error when it is small.
        residual = float(((x - means[:, None] - x.mean(axis=0)[None, :] + grand) ** 2).sum())
        sources = ("systems", "topics", "residual", "total")
        variation, df = [between_systems, between_topics, residual, total], [m - 1, n - 1, (m - 1) * (n - 1), m * n - 1]
    variation, df = np.array(variation), np.array(df, dtype=np.float64)
    v_e = variation[sources.index("residual")] / df[sources.index("residual")]
    omega = float((between_systems - (m - 1) * v_e) / (total + v_e)) if total + v_e > 0 else float("nan")
    topics = tuple(t for t, keep in zip(matrix.topics, complete) if keep)
    return AnovaResult(matrix.measure, design, tuple(matrix.systems), topics, means, sources, variation, df, omega,
                       confidence)


__all__ = ["AnovaResult", "DESIGNS", "anova"]
