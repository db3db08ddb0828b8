"""Analysis of variance of a system × topic score matrix, as in Sakai's *Laboratory
Experiments in Information Retrieval* (2018, ch. 3–5) — METHODS.md §5.6, §5.7.

With m systems, n topics (every system scored on every topic), x̄ the grand mean, x̄_i· the
system means and x̄_·j the topic means:

- total variation S_T = Σ(x_ij − x̄)², φ_T = mn − 1;
- between systems S_A = n·Σ_i(x̄_i· − x̄)², φ_A = m − 1;
- **one-way** (topics ignored): residual S_E1 = S_T − S_A, φ_E1 = m(n − 1);
- **two-way without replication** (topics as a second factor): between topics
  S_B = m·Σ_j(x̄_·j − x̄)², φ_B = n − 1, residual S_E2 = S_T − S_A − S_B, φ_E2 = (m − 1)(n − 1).
- **two-way with replication** (:func:`anova_with_replication`; Sakai 2018, ch. 3, the
  fixed-effects model of statsmodels' ``anova_lm`` on ``score ~ C(system) * C(topic)``): r
  scores per system and topic (r runs of a stochastic system, r assessors' qrels …), given as
  r score matrices of the same systems and topics. With x̄_ij· the cell means,
  S_A = nr·Σ_i(x̄_i·· − x̄)², S_B = mr·Σ_j(x̄_·j· − x̄)², the interaction
  S_AB = r·Σ_ij(x̄_ij· − x̄_i·· − x̄_·j· + x̄)², φ_AB = (m − 1)(n − 1), and the residual within
  the cells S_E = Σ_ijk(x_ijk − x̄_ij·)², φ_E = mn(r − 1); F = V/V_E for A, B and AB.

Variance V = S/φ; F = V_factor/V_E with p from the F distribution; the effect size
ω²_A = (S_A − φ_A·V_E)/(S_T + V_E); the margin of error of every system mean
MOE = t_{1−α/2, φ_E}·√(V_E/(nr)) (a common half-width, from the pooled residual variance;
r = 1 without replication).

The classic Tukey HSD (:meth:`AnovaResult.tukey`) compares every pair with
q = |x̄_i· − x̄_j·|/√(V_E/(nr)) against the studentized range distribution with m and φ_E
degrees of freedom; its effect size is Sakai's ES_E = (x̄_i· − x̄_j·)/√V_E. Its simultaneous
1 − α intervals of the differences (Tukey 1953; Sakai 2018, ch. 4, as jerome-white/sakai-book's
``Tukey`` and scipy's ``tukey_hsd(...).confidence_interval()`` write them) are
x̄_i· − x̄_j· ± q_{1−α; m, φ_E}·√(V_E/(nr)): all of them cover the true differences together
with probability 1 − α.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from irstats.result import FrameResult, Result
from irstats.checks import kind_of, score_matrix, share
from irstats.errors import ArgumentError, ArgumentTypeError, InputError
from irstats.scores import ScoreMatrix
from irstats.stats.resampling import warn_dropped_topics

if TYPE_CHECKING:  # pragma: no cover
    from irstats.render import Table

DESIGNS = ("two-way", "one-way")
#: The design of :func:`anova_with_replication`'s table.
REPLICATED = "two-way with replication"
#: The sources whose F is tested against the residual.
EFFECTS = ("systems", "topics", "interaction")


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
    replicates: int = 1  # r: scores per system and topic (two-way with replication)

    @property
    def per_mean(self) -> int:
        """How many scores each system mean averages: n topics × r replicates."""
        return len(self.topics) * self.replicates

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
            if source in EFFECTS:
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

    def f_statistic(self, source: str = "systems") -> float:
        """F = V_source/V_E of ``source`` (systems, topics or interaction)."""
        if source not in self.sources or source not in EFFECTS:
            raise ArgumentError(f"no F for {source!r} in this {self.design} ANOVA; it tests "
                                f"{', '.join(s for s in self.sources if s in EFFECTS)}", argument="source")
        return float(self._f_and_p()[0][self.sources.index(source)])

    def df_of(self, source: str) -> int:
        """φ of ``source`` (systems, topics, interaction, residual or total)."""
        if source not in self.sources:
            raise ArgumentError(f"no source {source!r} in this {self.design} ANOVA", argument="source")
        return int(self.df[self.sources.index(source)])

    @property
    def margin_of_error(self) -> float:
        """t_{1−α/2, φ_E}·√(V_E/(nr)): the half-width of every system mean's interval."""
        from scipy.special import stdtrit

        t = stdtrit(self.residual_df, 1 - (1 - self.confidence) / 2)
        return float(t * np.sqrt(self.residual_variance / self.per_mean))

    @property
    def tukey_critical_value(self) -> float:
        """q_{1−α; m, φ_E}: the studentized range quantile of the simultaneous intervals."""
        from scipy.stats import studentized_range

        return float(studentized_range.ppf(self.confidence, len(self.systems), self.residual_df))

    def system_frame(self) -> pl.DataFrame:
        """measure, system, mean, ci_low, ci_high: means with the ANOVA-based intervals."""
        moe = self.margin_of_error
        return pl.DataFrame({"measure": [self.measure] * len(self.systems), "system": list(self.systems),
                             "mean": self.means, "ci_low": self.means - moe, "ci_high": self.means + moe})

    def tukey(self) -> pl.DataFrame:
        """Classic Tukey HSD over all pairs: measure, system_a, system_b, delta, ci_low,
        ci_high (the simultaneous ``confidence`` intervals of delta = x̄_a − x̄_b), q, p, es_e."""
        from scipy.stats import studentized_range

        m = len(self.systems)
        scale = np.sqrt(self.residual_variance / self.per_mean)
        half = self.tukey_critical_value * scale
        rows = []
        for i, j in combinations(range(m), 2):
            delta = float(self.means[i] - self.means[j])
            q = abs(delta) / scale if scale > 0 else (0.0 if delta == 0 else np.inf)
            p = float(studentized_range.sf(q, m, self.residual_df)) if np.isfinite(q) else 0.0
            es = delta / np.sqrt(self.residual_variance) if self.residual_variance > 0 else np.nan
            rows.append({"measure": self.measure, "system_a": self.systems[i], "system_b": self.systems[j],
                         "delta": delta, "ci_low": delta - half, "ci_high": delta + half, "q": q,
                         "p": min(1.0, p), "es_e": es})
        return pl.DataFrame(rows, schema={"measure": pl.String, "system_a": pl.String, "system_b": pl.String,
                                          "delta": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
                                          "q": pl.Float64, "p": pl.Float64, "es_e": pl.Float64})

    def tukey_view(self) -> FrameResult:
        """:meth:`tukey` as a result that prints itself (what ``irstats anova --tukey`` shows)."""
        level = f"{100 * self.confidence:g}%"
        return FrameResult(self.tukey(), f"{self.measure}: classic Tukey HSD of every pair with {level} "
                                         f"simultaneous intervals ({self._shape()})",
                           notes=(f"ci_low, ci_high: {level} simultaneous intervals delta ± "
                                  f"q·√(V_E/{self._per_mean_symbol()}), q = {self.tukey_critical_value:.4f} the "
                                  f"{level} point of the studentized range (m = {len(self.systems)}, φ_E = "
                                  f"{self.residual_df}): together they cover every true difference with "
                                  f"probability {self.confidence:g}",
                                  "q: |delta|/√(V_E/" + self._per_mean_symbol() + "); p: its studentized-range tail; "
                                  "es_e: delta/√V_E (Sakai 2018)"),
                           summary_columns=True, label="tab:tukey-hsd")

    def means_view(self) -> FrameResult:
        """:meth:`system_frame` as a result that prints itself (``irstats anova --means``)."""
        return FrameResult(self.system_frame(), f"{self.measure}: system means with their "
                                                f"{100 * self.confidence:g}% ANOVA-based intervals ({self._shape()})",
                           notes=(f"mean ± t·√(V_E/{self._per_mean_symbol()}) = ± {self.margin_of_error:.4f}, "
                                  f"t with φ_E = {self.residual_df} ({self.design} ANOVA)",),
                           label="tab:anova-means")

    def _per_mean_symbol(self) -> str:
        return "nr" if self.replicates > 1 else "n"

    def _shape(self) -> str:
        shape = f"{len(self.systems)} systems × {len(self.topics)} topics"
        return shape + (f" × {self.replicates} replicates" if self.replicates > 1 else "")

    def summary(self) -> pl.DataFrame:
        return self.to_frame()

    @property
    def title(self) -> str:
        return (f"{self.measure}: {self.design} ANOVA ({self._shape()}); "
                f"ω² = {self.omega_squared:.4f}; {100 * self.confidence:g}% margin of error of a system mean "
                f"± {self.margin_of_error:.4f}")

    def display_table(self, digits: int = 4) -> Table:
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
    sources: tuple[str, ...]
    if design == "one-way":
        residual = total - between_systems
        sources, sums, dfs = ("systems", "residual", "total"), [between_systems, residual, total], \
            [m - 1, m * (n - 1), m * n - 1]
    else:
        between_topics = float(m * ((x.mean(axis=0) - grand) ** 2).sum())
        # The residual from its definition, not as a difference: no cancellation error when it is small.
        residual = float(((x - means[:, None] - x.mean(axis=0)[None, :] + grand) ** 2).sum())
        sources = ("systems", "topics", "residual", "total")
        sums, dfs = [between_systems, between_topics, residual, total], [m - 1, n - 1, (m - 1) * (n - 1), m * n - 1]
    variation, df = np.array(sums), np.array(dfs, dtype=np.float64)
    v_e = variation[sources.index("residual")] / df[sources.index("residual")]
    omega = float((between_systems - (m - 1) * v_e) / (total + v_e)) if total + v_e > 0 else float("nan")
    topics = tuple(t for t, keep in zip(matrix.topics, complete) if keep)
    return AnovaResult(matrix.measure, design, tuple(matrix.systems), topics, means, sources, variation, df, omega,
                       confidence)


def _replicates(replicates: object) -> tuple[ScoreMatrix, ...]:
    if isinstance(replicates, ScoreMatrix) or isinstance(replicates, (str, bytes)) or \
            not isinstance(replicates, Sequence):
        raise ArgumentTypeError(f"replicates must be a list of ScoreMatrix (one per replicate); got "
                                f"{kind_of(replicates)}", argument="replicates")
    for k, matrix in enumerate(replicates):
        score_matrix(matrix, f"replicates[{k}]")
    if len(replicates) < 2:
        raise ArgumentError(f"a two-way ANOVA with replication needs at least 2 replicates (score matrices); got "
                            f"{len(replicates)}", argument="replicates")
    return tuple(replicates)


def anova_with_replication(replicates: Sequence[ScoreMatrix], confidence: float = 0.95) -> AnovaResult:
    """Two-way ANOVA with replication: systems × topics with r scores per cell.

    ``replicates`` is one :class:`~irstats.scores.ScoreMatrix` per replicate (r ≥ 2): the same
    measure, systems and topics scored r times — r runs of a system with random seeds, or the
    runs evaluated against r assessors' qrels. Systems are matched by name (every replicate
    must have the same ones); only topics every system is scored on in every replicate are
    used (with a warning when some are left out). The table has the sources systems, topics,
    interaction, residual and total (METHODS.md §5.7; Sakai 2018, ch. 3; equal to statsmodels'
    ``anova_lm`` of ``ols("score ~ C(system) * C(topic)")`` on balanced data). The system means,
    their margin of error and the Tukey HSD average over topics and replicates (nr scores).

    >>> a = ScoreMatrix(np.array([[0.5, 0.2], [0.3, 0.3]]), ("a", "b"), ("1", "2"), "AP")
    >>> b = ScoreMatrix(np.array([[0.4, 0.3], [0.3, 0.1]]), ("a", "b"), ("1", "2"), "AP")
    >>> anova_with_replication([a, b]).to_frame()["df"].to_list()
    [1, 1, 1, 4, 7]
    """
    replicates = _replicates(replicates)
    share(confidence, "confidence")
    first = replicates[0]
    for k, other in enumerate(replicates[1:], start=1):
        if other.measure != first.measure:
            raise InputError(f"replicate {k + 1} scores {other.measure}, replicate 1 {first.measure}: an ANOVA "
                             f"with replication needs one measure")
        if set(other.systems) != set(first.systems):
            missing = sorted(set(first.systems) ^ set(other.systems))
            raise InputError(f"replicates 1 and {k + 1} do not have the same systems ({', '.join(missing[:5])}"
                             f"{' …' if len(missing) > 5 else ''} in only one of them)")
    shared = [t for t in first.topics if all(t in r.topic_positions() for r in replicates[1:])]
    cube = np.stack([r.subset(first.systems, shared).values for r in replicates])  # r × m × n
    complete = ~np.isnan(cube).any(axis=(0, 1))
    union = set().union(*(r.topics for r in replicates))
    warn_dropped_topics(len(union) - int(complete.sum()), len(union),
                        f"the ANOVA with replication of {first.measure}")
    x = cube[:, :, complete]
    r, m, n = x.shape
    if m < 2 or n < 2:
        raise InputError(f"{first.measure}: an ANOVA needs at least 2 systems and 2 topics scored for every "
                         f"system in every replicate; got {m} × {n}")
    grand = x.mean()
    means = x.mean(axis=(0, 2))
    topic_means = x.mean(axis=(0, 1))
    cells = x.mean(axis=0)  # m × n
    total = float(((x - grand) ** 2).sum())
    between_systems = float(n * r * ((means - grand) ** 2).sum())
    between_topics = float(m * r * ((topic_means - grand) ** 2).sum())
    interaction = float(r * ((cells - means[:, None] - topic_means[None, :] + grand) ** 2).sum())
    residual = float(((x - cells[None]) ** 2).sum())  # within the cells, from its definition
    sources = ("systems", "topics", "interaction", "residual", "total")
    variation = np.array([between_systems, between_topics, interaction, residual, total])
    df = np.array([m - 1, n - 1, (m - 1) * (n - 1), m * n * (r - 1), m * n * r - 1], dtype=np.float64)
    v_e = residual / df[3]
    omega = float((between_systems - (m - 1) * v_e) / (total + v_e)) if total + v_e > 0 else float("nan")
    topics = tuple(t for t, keep in zip(shared, complete) if keep)
    return AnovaResult(first.measure, REPLICATED, tuple(first.systems), topics, means, sources, variation, df, omega,
                       confidence, r)


__all__ = ["AnovaResult", "DESIGNS", "EFFECTS", "REPLICATED", "anova", "anova_with_replication"]
