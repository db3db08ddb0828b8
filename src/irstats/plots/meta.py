"""Figures of the meta-evaluation experiments (METHODS.md §6: F1–F6, F10, F11).

Every function draws from stored results (it never re-runs an experiment), accepts
``ax=`` and returns the Axes. The numbers behind the picture are a polars frame: each
figure has a ``*_data`` function that computes it, and the plotting function attaches it to
the Axes (:func:`figure_data`), so that saving writes it as CSV next to the image::

    from irstats import plots
    ax = plots.meta.plot_tau_density(result)
    plots.save(ax, "fig1.png", plots.meta.figure_data(ax))

========  =====================================  =========================================
figure    function                               draws from
========  =====================================  =========================================
F1        :func:`plot_tau_density`               :class:`~irstats.meta.splithalf.SplitHalfResult`
F2        :func:`plot_epsilon_sweep`             a SplitHalfResult of :func:`~irstats.meta.splithalf.epsilon_sweep`
F3        :func:`plot_score_density`             score matrices (raw and standardized)
F4        :func:`plot_delta_low`                 SplitHalfResults, one per collection
F5        :func:`plot_phi_heatmap`               :class:`~irstats.meta.predictive.PredictiveResult`
F6        :func:`plot_phi_curve`                 :class:`~irstats.meta.predictive.SubsetCurveResult`
F10       :func:`plot_score_heatmap`             a :class:`~irstats.scores.ScoreMatrix`
F11       :func:`plot_system_means`              a ScoreMatrix
—         :func:`plot_transform_robustness`      :class:`~irstats.meta.transforms.TransformRobustness`
========  =====================================  =========================================
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

import numpy as np
import polars as pl

from irstats.errors import ArgumentError
from irstats.plots.common import (LABEL_CHARACTERS, MIN_FONT_SIZE, PALETTE, figure_function, figure_height,
                                  figure_width, index_ticks, legend_outside, line_width, marker_size, new_axes,
                                  rows_fit, rows_height, short_label)
from irstats.result import provides
from irstats.scores import ScoreMatrix

#: How aggregation methods are written in figures (*Score Aggregation* notation).
METHOD_NAMES = {"am": "AM", "gm": "GM", "egm": "εGM", "gm_trec_eval": "GM_trec_eval", "hm": "HM", "ehm": "εHM",
                "median": "MD", "al": "AL", "logit": "LM"}

_LINESTYLES = ("-", "--", "-.", ":")


def figure_data(ax) -> pl.DataFrame:
    """The frame of plotted numbers that a figure function attached to ``ax``."""
    data = getattr(ax, "irstats_data", None)
    if data is None:
        raise ArgumentError("ax: this Axes was not drawn by an irstats figure function", argument="ax")
    return data


def _attach(ax, frame: pl.DataFrame):
    ax.irstats_data = frame
    return ax


def variant_name(variant) -> str:
    """E.g. ``εGM-AP (ε=0.01)``, ``AM-std(AP)``."""
    name = METHOD_NAMES.get(variant.method, variant.method)
    eps = "" if variant.epsilon is None else f" (ε={variant.epsilon:g})"
    return f"{name}-{variant.measure}{eps}"


def _kde(values: np.ndarray, grid: np.ndarray, low: float | None = None, high: float | None = None) -> np.ndarray:
    """Gaussian KDE with Scott's bandwidth on ``grid``; NaN when the values are (nearly) constant.

    The same density as ``scipy.stats.gaussian_kde(values, bw_method="scott")(grid)`` — a
    Gaussian of variance h² = var(values, ddof=1)·n^(−2/5) at each value — computed with
    numpy, so that drawing a figure does not import scipy.stats (half a second). With
    bounds (a measure in [0, 1], τ in [−1, 1]) the kernel mass that would fall outside is
    reflected back in (f(x) + f(2·low − x) + f(2·high − x)), so the curve integrates to 1
    over the measure's range instead of showing impossible values past its ends.
    """
    values = values[np.isfinite(values)]
    n = values.size
    if n < 2 or np.ptp(values) == 0:
        return np.full(grid.shape, np.nan)
    h2 = values.var(ddof=1) * n ** (-2.0 / 5.0)
    if not h2 > 0:
        return np.full(grid.shape, np.nan)
    points = [grid] + ([2.0 * low - grid] if low is not None else []) + ([2.0 * high - grid] if high is not None else [])
    out = np.zeros(grid.shape)
    for x in points:
        for start in range(0, grid.size, 64):  # 64 grid points × n values at a time
            d = x[start:start + 64, None] - values[None, :]
            out[start:start + 64] += np.exp(-0.5 * d * d / h2).sum(axis=1)
    return out / (n * np.sqrt(2.0 * np.pi * h2))


def _grid(values: Iterable[np.ndarray], points: int, low: float | None = None, high: float | None = None):
    data = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.zeros(0)
    if data.size == 0:
        return np.linspace(0.0, 1.0, points)
    lo, hi = float(data.min()), float(data.max())
    pad = max((hi - lo) * 0.15, 1e-3)
    lo, hi = lo - pad, hi + pad
    if low is not None:
        lo = max(lo, low)
    if high is not None:
        hi = min(hi, high)
    return np.linspace(lo, hi, points)


# --- F1: τ (or r) density per aggregation method ---------------------------------------------------


def tau_density_data(result, variants: Sequence | None = None, points: int = 256) -> pl.DataFrame:
    """F1 data: ``variant measure method epsilon value density mean`` on a common grid."""
    idx = list(range(len(result.variants))) if variants is None else [result.index(v) for v in variants]
    grid = _grid([result.values[i] for i in idx], points, -1.0, 1.0)
    means = result.mean()
    frames = []
    for i in idx:
        v = result.variants[i]
        frames.append(pl.DataFrame({
            "variant": [variant_name(v)] * points, "measure": [v.measure] * points, "method": [v.method] * points,
            "epsilon": [np.nan if v.epsilon is None else v.epsilon] * points, "value": grid,
            "density": _kde(result.values[i], grid, -1.0, 1.0), "mean": [float(means[i])] * points,
        }))
    return pl.concat(frames) if frames else pl.DataFrame()


@figure_function
def plot_tau_density(result, variants: Sequence | None = None, ax=None, points: int = 256):
    """F1: Gaussian KDE (Scott) of the per-split τ (or r) of each variant; dotted line at each mean."""
    ax = new_axes(ax)
    data = tau_density_data(result, variants, points)
    for k, (name, part) in enumerate(data.group_by("variant", maintain_order=True)):
        colour = PALETTE[k % len(PALETTE)]
        label = name[0] if isinstance(name, tuple) else name
        density = part.get_column("density").to_numpy()
        if np.isfinite(density).any():
            ax.plot(part.get_column("value").to_numpy(), density, color=colour, label=label)
        ax.axvline(part.get_column("mean")[0], color=colour, linestyle=":", linewidth=line_width(0.8),
                   label=None if np.isfinite(density).any() else label)
    symbol = "Pearson's r" if getattr(result, "correlation", "kendall") == "pearson" else "Kendall's τ"
    ax.set_xlabel(f"{symbol} between the halves ({result.n_splits} random halvings)")
    ax.set_ylabel("density")
    legend_outside(ax)
    return _attach(ax, data)


# --- F2: mean τ against ε ------------------------------------------------------------------------


def epsilon_sweep_data(result, measures: Sequence[str] | None = None) -> pl.DataFrame:
    """F2 data: ``measure method epsilon mean sd n`` (the asymptote's ε is NaN)."""
    frame = result.summary().select("measure", "method", "epsilon", "mean", "sd", "n")
    if measures is not None:
        frame = frame.filter(pl.col("measure").is_in(list(measures)))
    return frame


@figure_function
def plot_epsilon_sweep(result, measures: Sequence[str] | None = None, asymptote: str = "am", ax=None):
    """F2: mean τ of εGM and εHM against ε (log axis); the asymptote (AM) as a horizontal line."""
    ax = new_axes(ax)
    data = epsilon_sweep_data(result, measures)
    for k, measure in enumerate(dict.fromkeys(data.get_column("measure").to_list())):
        colour = PALETTE[k % len(PALETTE)]
        part = data.filter(pl.col("measure") == measure)
        style = 0
        for method in dict.fromkeys(part.get_column("method").to_list()):
            rows = part.filter(pl.col("method") == method)
            if method == asymptote or rows.get_column("epsilon").is_nan().all():
                ax.axhline(rows.get_column("mean")[0], color=colour, linestyle=":", linewidth=line_width(0.8),
                           label=f"{METHOD_NAMES.get(method, method)}-{measure} (ε → ∞)")
                continue
            rows = rows.sort("epsilon")
            ax.plot(rows.get_column("epsilon").to_numpy(), rows.get_column("mean").to_numpy(),
                    color=colour, linestyle=_LINESTYLES[style % len(_LINESTYLES)], marker="o",
                    markersize=marker_size(0.6),
                    label=f"{METHOD_NAMES.get(method, method)}-{measure}")
            style += 1
    ax.set_xscale("log")
    ax.set_xlabel("ε")
    symbol = "r" if getattr(result, "correlation", "kendall") == "pearson" else "τ"
    ax.set_ylabel(f"mean {symbol} over {result.n_splits} halvings")
    legend_outside(ax)
    return _attach(ax, data)


# --- F3: per-topic score density -----------------------------------------------------------------


def _labelled(matrices) -> list[tuple[str, ScoreMatrix]]:
    if isinstance(matrices, ScoreMatrix):
        return [(matrices.measure, matrices)]
    if isinstance(matrices, Mapping):
        return [(str(k), m) for k, m in matrices.items()]
    return [(m.measure, m) for m in matrices]


def score_density_data(matrices: Mapping[str, ScoreMatrix] | Sequence[ScoreMatrix] | ScoreMatrix,
                       points: int = 256) -> pl.DataFrame:
    """F3 data: ``series score density`` — KDE of every (system, topic) score of each matrix."""
    items = _labelled(matrices)
    values = [m.values[~np.isnan(m.values)].ravel() for _, m in items]
    unit = all(_in_unit_interval(m) for _, m in items)
    low, high = (0.0, 1.0) if unit else (None, None)
    grid = _grid(values, points, low, high)
    frames = [pl.DataFrame({"series": [label] * points, "score": grid, "density": _kde(v, grid, low, high)})
              for (label, _), v in zip(items, values)]
    return pl.concat(frames) if frames else pl.DataFrame()


def _in_unit_interval(matrix: ScoreMatrix) -> bool:
    """Whether the matrix's measure is declared to lie in [0, 1] (standardized scores Φ(z) do too)."""
    from irstats.errors import MeasureError
    from irstats.measures import parse_measure

    name = matrix.measure
    if name.startswith("std(") and name.endswith(")"):  # standardized: Φ(z)
        name = name[4:-1]
        if not name:
            return False
    try:
        bounded = parse_measure(name).definition.bounded
    except MeasureError:
        return False
    values = matrix.values[np.isfinite(matrix.values)]
    return bool(bounded and ((values >= 0) & (values <= 1)).all())


@figure_function
def plot_score_density(matrices, ax=None, points: int = 256):
    """F3: density of the per-topic scores, one curve per matrix (e.g. AP and std(AP))."""
    ax = new_axes(ax)
    data = score_density_data(matrices, points)
    for k, (name, part) in enumerate(data.group_by("series", maintain_order=True)):
        label = name[0] if isinstance(name, tuple) else name
        ax.plot(part.get_column("score").to_numpy(), part.get_column("density").to_numpy(),
                color=PALETTE[k % len(PALETTE)], label=label)
    ax.set_xlabel("per-topic score")
    ax.set_ylabel("density")
    legend_outside(ax)
    return _attach(ax, data)


# --- F4: Δτ against the share of low scores -------------------------------------------------------


def delta_low_data(results, method: str = "egm", baseline: str = "am") -> pl.DataFrame:
    """F4 data: ``collection measure pct_low pct_zero delta`` with Δ = mean τ(method) − mean τ(baseline).

    ``results`` maps a collection label to a SplitHalfResult (or is one result).
    """
    if not isinstance(results, Mapping):
        results = {"": results}
    rows = []
    for collection, result in results.items():
        means = result.mean()
        for measure in result.measures:
            try:
                a = result.index((measure, method))
                b = result.index((measure, baseline))
            except KeyError:
                continue
            low = result.low.get(measure)
            rows.append({"collection": str(collection), "measure": measure,
                         "pct_low": math.nan if low is None else low.pct_low,
                         "pct_zero": math.nan if low is None else low.pct_zero,
                         "delta": float(means[a] - means[b])})
    schema = {"collection": pl.String, "measure": pl.String, "pct_low": pl.Float64, "pct_zero": pl.Float64,
              "delta": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


@figure_function
def plot_delta_low(results, method: str = "egm", baseline: str = "am", ax=None):
    """F4: τ(method) − τ(baseline) against %low, one labelled point per (collection, measure)."""
    ax = new_axes(ax)
    data = delta_low_data(results, method, baseline)
    collections = list(dict.fromkeys(data.get_column("collection").to_list()))
    for row in data.iter_rows(named=True):
        colour = PALETTE[collections.index(row["collection"]) % len(PALETTE)]
        ax.scatter([row["pct_low"]], [row["delta"]], color=colour)
        label = f"{row['collection']}/{row['measure']}" if row["collection"] else row["measure"]
        ax.annotate(label, (row["pct_low"], row["delta"]), textcoords="offset points", xytext=(4, 4),
                    fontsize=MIN_FONT_SIZE)
    ax.axhline(0.0, color="black", linewidth=line_width(0.5))
    ax.margins(x=0.2, y=0.12)  # room for the labels beside the points
    ax.set_xlabel("% of scores below 0.1")
    ax.set_ylabel(f"mean τ({METHOD_NAMES.get(method, method)}) − mean τ({METHOD_NAMES.get(baseline, baseline)})")
    return _attach(ax, data)


# --- F5, F6: predictive power --------------------------------------------------------------------


def phi_heatmap_data(result) -> pl.DataFrame:
    """F5 data: ``measure_a measure_b phi sd n`` (A on H₁ predicts B on H₂)."""
    return result.to_frame()


@figure_function
def plot_phi_heatmap(result, ax=None, cmap: str = "viridis"):
    """F5: φ matrix as an annotated heatmap; rows = predictor (H₁), columns = predicted (H₂)."""
    ax = new_axes(ax, figsize=(5.0, 4.2))
    phi = np.asarray(result.phi, dtype=float)
    image = ax.imshow(phi, cmap=cmap, vmin=np.nanmin(phi) if np.isfinite(phi).any() else 0,
                      vmax=np.nanmax(phi) if np.isfinite(phi).any() else 1)
    m = len(result.measures)
    ax.set_xticks(range(m), result.measures, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(m), result.measures)
    middle = (np.nanmin(phi) + np.nanmax(phi)) / 2 if np.isfinite(phi).any() else 0.5
    # a value in every cell while cells are wide enough for "0.00" (the Axes is ~60% of the figure)
    annotate = 0.6 * ax.figure.get_figwidth() * 72.0 / max(m, 1) >= 3.0 * MIN_FONT_SIZE
    for i in range(m):
        for j in range(m):
            if annotate and np.isfinite(phi[i, j]):
                ax.text(j, i, f"{phi[i, j]:.2f}", ha="center", va="center", fontsize=MIN_FONT_SIZE,
                        color="black" if phi[i, j] > middle else "white")
    ax.set_xlabel("predicted measure (H₂)")
    ax.set_ylabel("predictor measure (H₁)")
    ax.figure.colorbar(image, ax=ax, label="φ")
    return _attach(ax, phi_heatmap_data(result))


def phi_curve_data(result) -> pl.DataFrame:
    """F6 data: ``n_topics measure_a measure_b phi sd n``."""
    return result.to_frame()


@figure_function
def plot_phi_curve(result, ax=None):
    """F6: φ against topics per subset, one line per pair (e.g. nDCG→P@10)."""
    ax = new_axes(ax)
    data = phi_curve_data(result)
    for k, (a, b) in enumerate(result.pairs):
        part = data.filter((pl.col("measure_a") == a) & (pl.col("measure_b") == b))
        ax.plot(part.get_column("n_topics").to_numpy(), part.get_column("phi").to_numpy(), marker="o",
                color=PALETTE[k % len(PALETTE)], label=f"{a}→{b}")
    ax.set_xlabel("topics per subset")
    ax.set_ylabel("predictive power φ")
    ax.set_xticks(list(result.sizes))
    legend_outside(ax)
    return _attach(ax, data)


# --- F10, F11: a score matrix --------------------------------------------------------------------


def score_heatmap_data(matrix: ScoreMatrix) -> pl.DataFrame:
    """F10 data: ``system topic value`` (NaN: not evaluated), systems and topics in id order."""
    from irstats.ids import bytewise_sorted

    m = matrix.subset(bytewise_sorted(matrix.systems), bytewise_sorted(matrix.topics))
    s, t = m.shape
    return pl.DataFrame({"system": np.repeat(np.array(m.systems, dtype=object), t).astype(str).tolist(),
                         "topic": list(m.topics) * s, "value": m.values.ravel()})


@figure_function
def plot_score_heatmap(matrix: ScoreMatrix, ax=None):
    """F10: systems × topics heatmap in grayscale (lighter = higher), both in id order."""
    from irstats.ids import bytewise_sorted

    systems, topics = bytewise_sorted(matrix.systems), bytewise_sorted(matrix.topics)
    m = matrix.subset(systems, topics)
    # every system gets a row its name fits (up to MAX_HEIGHT, beyond which every k-th is named)
    every = rows_fit(len(systems), extra=1.8)
    ax = new_axes(ax, height=max(figure_height(max(4.0, 0.08 * len(systems) + 1.5)), rows_height(len(systems), 1.8)))
    import matplotlib

    cmap = matplotlib.colormaps["gray"].with_extremes(bad=PALETTE[3])  # not evaluated: red
    finite = m.values[np.isfinite(m.values)]
    image = ax.imshow(np.ma.masked_invalid(m.values), cmap=cmap, aspect="auto", interpolation="nearest",
                      vmin=float(finite.min()) if finite.size else 0.0,
                      vmax=float(finite.max()) if finite.size else 1.0)
    ax.set_xlabel(f"topics (id order, {len(topics)})")
    ax.set_ylabel(f"systems (name order, {len(systems)})")
    index_ticks(ax, "x", topics, rotation=90)  # as many as fit without overlapping, at any size
    limit = LABEL_CHARACTERS["column" if figure_width() < 6 else "page"]
    index_ticks(ax, "y", [short_label(s, limit) for s in systems], every=every)
    ax.tick_params(labelsize=MIN_FONT_SIZE)
    ax.figure.colorbar(image, ax=ax, label=m.measure)
    return _attach(ax, score_heatmap_data(m))


def system_means_data(matrix: ScoreMatrix, confidence: float = 0.95) -> pl.DataFrame:
    """F11 data: ``rank system mean low high n``, best first, with the t-interval of each mean."""
    from irstats.stats import t_interval

    rows = []
    for i, system in enumerate(matrix.systems):
        x = matrix.values[i]
        x = x[~np.isnan(x)]
        low, high = t_interval(x, confidence) if x.size else (math.nan, math.nan)
        rows.append((system, float(x.mean()) if x.size else math.nan, low, high, int(x.size)))
    rows.sort(key=lambda r: (-r[1] if not math.isnan(r[1]) else math.inf, r[0].encode("utf8")))
    return pl.DataFrame({"rank": list(range(1, len(rows) + 1)), "system": [r[0] for r in rows],
                         "mean": [r[1] for r in rows], "low": [r[2] for r in rows], "high": [r[3] for r in rows],
                         "n": [r[4] for r in rows]})


@figure_function
def plot_system_means(matrix: ScoreMatrix, confidence: float = 0.95, ax=None):
    """F11: each system's mean score with its t confidence interval, systems sorted by mean, the
    best at the top. One row per system, each named (the figure grows in height up to
    :data:`~irstats.plots.common.MAX_HEIGHT`; names longer than the width allows are shortened,
    the full names are in the figure's CSV)."""
    data = system_means_data(matrix, confidence)
    n = data.height
    every = rows_fit(n)
    ax = new_axes(ax, height=max(figure_height(4.0), rows_height(n)))
    y = np.arange(n)[::-1]  # the best at the top
    mean = data.get_column("mean").to_numpy()
    err = np.vstack([mean - data.get_column("low").to_numpy(), data.get_column("high").to_numpy() - mean])
    ax.errorbar(mean, y, xerr=err, fmt="o", markersize=marker_size(0.6), color=PALETTE[0], ecolor=PALETTE[0],
                elinewidth=line_width(0.7))
    limit = LABEL_CHARACTERS["column" if figure_width() < 6 else "page"]
    names = [short_label(s, limit) for s in data.get_column("system").to_list()]
    index_ticks(ax, "y", names[::-1], every=every)
    ax.tick_params(axis="y", labelsize=MIN_FONT_SIZE)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_ylabel("systems, by mean")
    ax.set_xlabel(f"mean {matrix.measure}, {confidence:.0%} t-interval")
    return _attach(ax, data)



@provides("irstats.meta.transforms.TransformRobustness", "plot")
def plot_transform_robustness(result, ax=None):
    """A bar per transformation of a :class:`~irstats.meta.transforms.TransformRobustness`: the
    share of system pairs whose conclusion changes (``result.plot()``). Returns the Axes."""
    ax = new_axes(ax, figsize=(5.5, 3.2))
    frame = result.to_frame().filter(pl.col("transform") != "raw")
    ax.bar(frame["transform"].to_list(), (100 * frame["change_rate"]).to_list(), color="0.45")
    ax.set_ylabel("pairs whose conclusion changes (%)")
    ax.set_title(f"{result.measure}: conclusions under transformed scores", fontsize="medium")
    ax.irstats_data = frame
    return ax

__all__ = ["METHOD_NAMES", "delta_low_data", "epsilon_sweep_data", "figure_data", "phi_curve_data",
           "phi_heatmap_data", "plot_delta_low", "plot_epsilon_sweep", "plot_phi_curve", "plot_phi_heatmap",
           "plot_score_density", "plot_score_heatmap", "plot_system_means", "plot_tau_density",
           "plot_transform_robustness",
           "score_density_data", "score_heatmap_data", "system_means_data", "tau_density_data", "variant_name"]
