"""Meta-analysis of one improvement measured on several test collections (Soboroff, CIKM 2018;
issue 38): does it hold across collections?

Per collection, one effect of a system over a baseline on the topics both have, from the
per-topic differences d = system − baseline (n topics):

- ``effect="md"``: the mean difference d̄, variance s_d²/n (s_d with ddof 1);
- ``effect="dz"``: the standardized mean difference d_z = d̄/s_d, variance 1/n + d_z²/(2n).

The effects y_i with variances v_i are pooled by inverse-variance weights:

- ``fixed``: w_i = 1/v_i, μ̂ = Σ w_i y_i / Σ w_i, standard error 1/√Σw_i, a normal interval;
- ``dl`` (DerSimonian–Laird) and ``pm`` (Paule–Mandel): random effects, w_i = 1/(v_i + τ²), with
  τ² = max(0, (Q − (k − 1)) / (Σw − Σw²/Σw)) (DL) or the root of Σ w_i(τ²)(y_i − μ̂(τ²))² = k − 1
  (PM, 0 when the left side is below k − 1 at τ² = 0);
- ``dl_hk``, ``pm_hk`` (``hartung_knapp=True``): the same estimates with the Hartung–Knapp
  interval, μ̂ ± t_{k−1} √(Σ w_i (y_i − μ̂)² / ((k − 1) Σ w_i)).

Q = Σ (1/v_i)(y_i − μ̂_fixed)², its p-value from χ² with k − 1 degrees of freedom, and
I² = max(0, (Q − (k − 1))/Q). The numbers equal ``statsmodels.stats.meta_analysis.
combine_effects`` (``method_re="chi2"`` for DL, ``"iterated"`` for PM) except that τ² is
truncated at 0, as the estimators define it (statsmodels' chi2 leaves a negative τ² when
Q < k − 1; then the random-effects estimate is the fixed one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

from irstats.checks import kind_of, share
from irstats.errors import ArgumentError, ArgumentTypeError, some, warn
from irstats.result import Result, provided
from irstats.scores import ScoreMatrix, score_matrices

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from irstats.render import Table

#: The effects one collection can contribute (``effect=``, ``--effect``).
EFFECTS = {"md": "mean difference (system − baseline), variance s_d²/n",
           "dz": "standardized mean difference d_z = d̄/s_d, variance 1/n + d_z²/(2n)"}
#: The pooled rows, in order; the Hartung–Knapp rows only when asked for.
METHODS = ("fixed", "dl", "pm")
HK_METHODS = ("dl_hk", "pm_hk")
METHOD_LABELS = {"fixed": "fixed effect (inverse variance)", "dl": "random effects, DerSimonian–Laird τ²",
                 "pm": "random effects, Paule–Mandel τ²", "dl_hk": "DerSimonian–Laird with the Hartung–Knapp interval",
                 "pm_hk": "Paule–Mandel with the Hartung–Knapp interval"}
#: The label of a collection's own row in the ``method`` column.
COLLECTION_ROW = "collection"


@dataclass(frozen=True)
class Pooled:
    """The pooled estimates of one set of effects: per method (``fixed``, ``dl``, ``pm``,
    ``dl_hk``, ``pm_hk``) its effect, interval and τ²; Q, its p-value and I² (one each)."""

    effect: dict[str, float]
    ci_low: dict[str, float]
    ci_high: dict[str, float]
    tau2: dict[str, float]
    q: float
    q_p: float
    i2: float
    weights: dict[str, np.ndarray]  # relative weights of the collections, per method


def paule_mandel_tau2(effects: np.ndarray, variances: np.ndarray) -> float:
    """Paule–Mandel's τ²: the root of the generalised Q = k − 1 (0 when Q(0) <= k − 1),
    found to full precision by Brent's method."""
    from scipy.optimize import brentq

    k = effects.size

    def excess(tau2: float) -> float:
        w = 1.0 / (variances + tau2)
        mean = w @ effects / w.sum()
        return float(w @ (effects - mean) ** 2) - (k - 1)

    if excess(0.0) <= 0:
        return 0.0
    high = max(float(np.var(effects, ddof=1)), float(variances.max()), 1e-300)
    while excess(high) > 0:
        high *= 2.0
    return float(brentq(excess, 0.0, high, xtol=1e-300, rtol=1e-15, maxiter=500))


def pool(effects: npt.ArrayLike, variances: npt.ArrayLike, confidence: float = 0.95,
         hartung_knapp: bool = False) -> Pooled:
    """Fixed- and random-effects estimates of effects ``effects`` with variances
    ``variances`` (one per collection; see the module's docstring)."""
    from scipy import stats

    from irstats.checks import numbers

    y, v = numbers(effects, "effects").astype(float), numbers(variances, "variances").astype(float)
    if y.ndim != 1 or y.shape != v.shape or y.size < 2:
        raise ArgumentError(f"pooling needs at least two effects with one variance each; got {y.size} effect(s) "
                            f"and {v.size} variance(s)", argument="effects")
    if not (np.isfinite(v).all() and (v > 0).all()):
        raise ArgumentError("every variance must be a finite number above 0 (an inverse-variance weight is 1/v)",
                            argument="variances")
    share(confidence, "confidence")
    k = y.size
    alpha = 1 - confidence
    z = stats.norm.isf(alpha / 2)
    w_fixed = 1 / v
    total = w_fixed.sum()
    mean_fixed = (w_fixed / total * y).sum()
    q = float((w_fixed * y**2).sum() - (w_fixed * y).sum() ** 2 / total)
    c = total - (w_fixed**2).sum() / total
    tau2 = {"fixed": 0.0, "dl": max(0.0, (q - (k - 1)) / c), "pm": paule_mandel_tau2(y, v)}
    out = Pooled({}, {}, {}, {}, q, float(stats.chi2.sf(q, k - 1)), max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0,
                 {})
    t_crit = stats.t.isf(alpha / 2, k - 1)
    for method in METHODS:
        w = 1 / (v + tau2[method])
        relative = w / w.sum()
        mean = mean_fixed if method == "fixed" else (relative * y).sum()
        se = np.sqrt(1 / w.sum()) if method != "fixed" else np.sqrt(1 / total)
        out.effect[method], out.tau2[method], out.weights[method] = float(mean), tau2[method], relative
        out.ci_low[method], out.ci_high[method] = float(mean - z * se), float(mean + z * se)
        if hartung_knapp and method != "fixed":
            hk = f"{method}_hk"
            se_hk = np.sqrt((relative * (y - mean) ** 2).sum() / (k - 1))
            out.effect[hk], out.tau2[hk], out.weights[hk] = float(mean), tau2[method], relative
            out.ci_low[hk], out.ci_high[hk] = float(mean - t_crit * se_hk), float(mean + t_crit * se_hk)
    return out


def collection_effect(matrix: ScoreMatrix, system: str, baseline: str, effect: str = "md",
                      collection: str = "the collection") -> tuple[float, float, int]:
    """One collection's effect of ``system`` over ``baseline`` on the topics both have: (effect,
    its variance, the number of topics); an error for what has none (see :data:`EFFECTS`)."""
    for role, name in (("system", system), ("baseline", baseline)):
        if name not in matrix.systems:
            raise ArgumentError(f"unknown {role} {name!r} in {collection} (systems: "
                                f"{some(matrix.systems, limit=8, quote=False)}); name it per collection with "
                                f"--{role} {collection}=RUN ({role}={{'{collection}': RUN}})", argument=role)
    if system == baseline:
        raise ArgumentError(f"{collection}: system and baseline are both {system!r}; an effect needs two systems "
                            "(a collection with one system has no comparison to pool)", argument="system")
    d = matrix.system(system) - matrix.system(baseline)
    d = d[~np.isnan(d)]
    n = d.size
    if n < 2:
        shared = "no topics" if n == 0 else "one topic"
        raise ArgumentError(f"{collection}: {system} and {baseline} share {shared} under {matrix.measure}; an effect's "
                            "variance needs at least two topics both were evaluated on: evaluate both on the same "
                            "topics (irstats eval -c scores a topic a run lacks as 0)", argument="collections")
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    from irstats.stats.degenerate import zero_spread

    if zero_spread(sd, mean):
        raise ArgumentError(f"{collection}: {system} − {baseline} is {mean:g} on every one of its {n} topics under "
                            f"{matrix.measure} (variance 0), so its inverse-variance weight is infinite; report that "
                            "collection's difference on its own and pool the others, or check that the two runs differ",
                            argument="collections")
    if effect == "md":
        return mean, sd**2 / n, n
    dz = mean / sd
    return dz, 1 / n + dz**2 / (2 * n), n


@dataclass(frozen=True)
class MetaAnalysis(Result):
    """One effect pooled over collections, per measure.

    ``frame``: the pooled rows — ``measure, system, baseline, method, effect, ci_low, ci_high,
    tau2, i2, q, q_p, collection`` — one per method (``fixed``, ``dl``, ``pm`` and, with the
    Hartung–Knapp option, ``dl_hk``, ``pm_hk``; ``collection``: the pooled collections' names
    joined by ``+``; ``system`` and ``baseline``: the run's name, or ``NAME=RUN; …`` when the
    collections name different runs). ``collections``: each
    collection's own row (``method`` = ``collection``, the effect's normal interval, its
    ``variance``, ``n_topics`` and its relative ``weight_fixed``, ``weight_dl``, ``weight_pm``).
    :meth:`to_frame` is the pooled rows, followed by the collections' when ``per_collection``.
    """

    frame: pl.DataFrame
    collections: pl.DataFrame
    effect: str
    confidence: float
    hartung_knapp: bool
    per_collection: bool
    measures: tuple[str, ...]

    @property
    def title(self) -> str:
        what = "mean difference" if self.effect == "md" else "standardized mean difference d_z"
        return f"Meta-analysis over {self.collections['collection'].n_unique()} collections: pooled {what}"

    def legend(self) -> list[str]:
        lines = [f"effect: {EFFECTS[self.effect]}; {self.confidence:.0%} intervals (normal; t with k − 1 df for the "
                 "Hartung–Knapp rows)",
                 "methods: " + "; ".join(f"{m}: {METHOD_LABELS[m]}" for m in self._methods()),
                 "τ² truncated at 0 (then the random-effects estimate is the fixed one); I² = max(0, (Q − (k−1))/Q); "
                 "q_p: χ² test of homogeneity with k − 1 df"]
        return lines

    def _methods(self) -> tuple[str, ...]:
        return METHODS + (HK_METHODS if self.hartung_knapp else ())

    def to_frame(self) -> pl.DataFrame:
        if not self.per_collection:
            return self.frame
        rows = self.collections.select(*_COLUMNS[:4], "effect", "ci_low", "ci_high", pl.lit(None, pl.Float64).alias(
            "tau2"), pl.lit(None, pl.Float64).alias("i2"), pl.lit(None, pl.Float64).alias("q"),
            pl.lit(None, pl.Float64).alias("q_p"), "collection")
        return pl.concat([self.frame, rows])

    def display_table(self, digits: int = 4) -> Table:
        from irstats.render import table_of_frame

        return table_of_frame(self.to_frame(), title=self.title, legend=self.legend(), digits=digits,
                              label="tab:meta-analysis")

    def plot(self, measure: str | None = None, ax: Axes | None = None, size: str | None = None) -> Any:
        """The forest plot of one measure (:func:`irstats.plots.forest.plot_forest`)."""
        return provided(self, "plot", "irstats.plots")(self, measure, ax=ax, size=size)


_COLUMNS = ("measure", "system", "baseline", "method", "effect", "ci_low", "ci_high", "tau2", "i2", "q", "q_p",
            "collection")


def _per_collection(value: object, role: str, names: tuple[str, ...]) -> dict[str, str]:
    """``system``/``baseline``: one run name for every collection, or a mapping by collection."""
    if isinstance(value, str):
        return {c: value for c in names}
    if isinstance(value, Mapping):
        unknown = [c for c in value if c not in names]
        missing = [c for c in names if c not in value]
        if unknown or missing:
            problem = f"names no collection {some(unknown)}" if unknown else f"has no run for {some(missing)}"
            raise ArgumentError(f"{role} {problem}; the collections are {some(names)}", argument=role)
        return {c: value[c] for c in names}
    raise ArgumentTypeError(f"{role} must be a run name or a mapping of collection name to run name; got "
                            f"{kind_of(value)}", argument=role)


def meta_analysis(collections: Mapping[str, Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix] | ScoreMatrix],
                  system: str | Mapping[str, str], baseline: str | Mapping[str, str],
                  measures: str | Sequence[str] | None = None, *,
                  effect: str = "md", confidence: float = 0.95, hartung_knapp: bool = False,
                  per_collection: bool = False) -> MetaAnalysis:
    """Pool the effect of ``system`` over ``baseline`` across ``collections`` (name → the
    collection's score matrices), per measure, with fixed and random effects.

    ``system`` and ``baseline``: a run name for every collection, or a mapping by collection
    (each track's best run against its median one). ``measures``: those to pool (default: every
    measure all collections have). ``effect``: ``"md"`` or ``"dz"`` (:data:`EFFECTS`).
    ``hartung_knapp``: add the Hartung–Knapp rows. ``per_collection``: :meth:`MetaAnalysis.to_frame`
    shows each collection's row too. See the module's docstring for the estimators.
    """
    from irstats.checks import names as name_list, one_of

    one_of(effect, "effect", EFFECTS)
    share(confidence, "confidence")
    if not isinstance(collections, Mapping):
        raise ArgumentTypeError(f"collections must be a mapping of collection name to scores; got "
                                f"{kind_of(collections)}", argument="collections")
    matrices: dict[str, dict[str, ScoreMatrix]] = {}
    for name, scores in collections.items():
        items = score_matrices(scores)
        matrices[str(name)] = dict(zip(scores, items)) if isinstance(scores, Mapping) else {
            m.measure: m for m in items}
    names = tuple(matrices)
    if len(names) < 2:
        raise ArgumentError(f"a meta-analysis pools at least two collections; got {len(names)}: give one --collection "
                            "NAME=SCORES per collection", argument="collections")
    for name, scores in matrices.items():
        few = [m for m, matrix in scores.items() if len(matrix.systems) < 2]
        if few:
            raise ArgumentError(f"collection {name} has one system ({some(scores[few[0]].systems)}); an effect compares "
                                "a system with a baseline: give that collection's scores of both", argument="collections")
    systems, baselines = _per_collection(system, "system", names), _per_collection(baseline, "baseline", names)
    shared = [m for m in matrices[names[0]] if all(m in matrices[c] for c in names)]
    if measures is None:
        chosen = tuple(shared)
        if not chosen:
            raise ArgumentError(f"the collections share no measure ({'; '.join(f'{c}: {some(s)}' for c, s in matrices.items())}); "
                                "give -m (measures=) names every collection has", argument="measures")
    else:
        chosen = name_list(measures, "measures", what="measure names")
        for m in chosen:
            lacking = [c for c in names if m not in matrices[c]]
            if lacking:
                raise ArgumentError(f"measure {m!r} is not in the scores of {some(lacking)}", argument="measures")
    pooled_rows, collection_rows = [], []
    same = len(set(systems.values())) == 1 and len(set(baselines.values())) == 1
    label_system = systems[names[0]] if same else "; ".join(f"{c}={systems[c]}" for c in names)
    label_baseline = baselines[names[0]] if same else "; ".join(f"{c}={baselines[c]}" for c in names)
    for measure in chosen:
        found = [collection_effect(matrices[c][measure], systems[c], baselines[c], effect, c) for c in names]
        y = np.array([f[0] for f in found])
        v = np.array([f[1] for f in found])
        result = pool(y, v, confidence, hartung_knapp)
        for method in METHODS + (HK_METHODS if hartung_knapp else ()):
            pooled_rows.append((measure, label_system, label_baseline, method, result.effect[method],
                                result.ci_low[method], result.ci_high[method], result.tau2[method], result.i2,
                                result.q, result.q_p, "+".join(names)))
        from scipy import stats

        z = stats.norm.isf((1 - confidence) / 2)
        for i, c in enumerate(names):
            collection_rows.append((measure, systems[c], baselines[c], COLLECTION_ROW, float(y[i]),
                                    float(y[i] - z * np.sqrt(v[i])), float(y[i] + z * np.sqrt(v[i])), c, float(v[i]),
                                    found[i][2], *(float(result.weights[m][i]) for m in METHODS)))
        if result.i2 > 0.75:
            warn(f"{measure}: I² = {result.i2:.0%}: the effect differs much between the collections (Q = "
                 f"{result.q:.3g}, p = {result.q_p:.2g}); read the random-effects rows and each collection's effect "
                 "(--per-collection), not the fixed-effect one")
    frame = pl.DataFrame(pooled_rows, schema={**{c: pl.String for c in _COLUMNS[:4]},
                                              **{c: pl.Float64 for c in _COLUMNS[4:11]}, "collection": pl.String},
                         orient="row")
    per = pl.DataFrame(collection_rows, schema={**{c: pl.String for c in _COLUMNS[:4]}, "effect": pl.Float64,
                                                "ci_low": pl.Float64, "ci_high": pl.Float64, "collection": pl.String,
                                                "variance": pl.Float64, "n_topics": pl.Int64,
                                                "weight_fixed": pl.Float64, "weight_dl": pl.Float64,
                                                "weight_pm": pl.Float64}, orient="row")
    return MetaAnalysis(frame, per, effect, float(confidence), bool(hartung_knapp), bool(per_collection), chosen)


__all__ = ["EFFECTS", "HK_METHODS", "METHODS", "MetaAnalysis", "Pooled", "collection_effect", "meta_analysis",
           "paule_mandel_tau2", "pool"]
