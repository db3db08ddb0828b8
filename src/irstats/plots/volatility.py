"""Volatility figures F12–F14 (METHODS.md §6, *Observed Volatility* Figs 1–5).

Every function draws from a stored :class:`~irstats.depth.sweep.DepthSweep` or
:class:`~irstats.depth.volatility.Volatility` (never recomputing anything), accepts
``ax=``/``axes=`` and returns what it drew on. The numbers behind a figure are its data
frame — from the ``*_frame`` function of the same name, and attached to the drawing
(:func:`plot_data`) — for :func:`irstats.plots.save`::

    from irstats.plots import save
    from irstats.plots.volatility import plot_data, trajectory_grid
    axes = trajectory_grid(result)
    save(axes.flat[0], "trajectories.png", plot_data(axes))

F12 :func:`trajectories` (one panel) and :func:`trajectory_grid` (metrics × forms);
F13 :func:`ap_variants` (AP′ = AP@k beside AP″ = AP_pool@k); F14 :func:`volatility_summary`
(τ_ref(k) and swaps per step, one curve per metric).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import polars as pl

from irstats.depth.sweep import UNJUDGED_FORMS, DepthSweep, pool_variant
from irstats.depth.volatility import Volatility
from irstats.errors import ArgumentError
from irstats.plots.common import (DEFAULT_SIZE, MAX_HEIGHT, MIN_FONT_SIZE, PALETTE, SIZES, current_size,
                                  figure_function, figure_height, figure_width, legend_columns, legend_outside,
                                  line_width, new_axes, new_figure, text_width)

#: Quantile positions of the highlighted systems in the ordering at k_max (best first).
QUANTILES = (0.0, 0.25, 0.5, 0.75, 1.0)
_HIGHLIGHT_LABELS = {0.0: "best", 0.25: "upper quartile", 0.5: "median", 0.75: "lower quartile", 1.0: "worst"}
#: Dark, distinguishable colours for the five highlighted systems (tab10: blue, orange,
#: green, purple, brown) — red is kept for the pool depth line.
_DARK = (PALETTE[0], PALETTE[1], PALETTE[2], PALETTE[4], PALETTE[5])
_POOL_COLOUR = PALETTE[3]
_FORM_STYLE = {"judged-as-nonrel": "-", "condensed": "--"}
_FORM_TITLE = {"judged-as-nonrel": "unjudged = non-relevant", "condensed": "condensed"}


def plot_data(drawn) -> pl.DataFrame:
    """The data frame behind a figure drawn here (an Axes, or the array of Axes returned)."""
    for obj in _candidates(drawn):
        data = getattr(obj, "irstats_data", None)
        if data is not None:
            return data
    raise ArgumentError("drawn: this drawing carries no irstats data frame", argument="drawn")


def _candidates(drawn):
    if isinstance(drawn, np.ndarray):
        first = drawn.flat[0]
        return [first.figure, first]
    return [drawn, getattr(drawn, "figure", None)]


def highlighted(scores_at_kmax: np.ndarray, quantiles: Sequence[float] = QUANTILES) -> list[tuple[float, int]]:
    """(q, system row) for the systems at positions round(q·(s − 1)) of the ordering at k_max.

    The ordering is by score descending (ties by system order), so q = 0 is the best system.
    """
    scores = np.nan_to_num(np.asarray(scores_at_kmax, dtype=np.float64), nan=-np.inf)
    order = np.argsort(-scores, kind="stable")
    s = len(order)
    return [(q, int(order[round(q * (s - 1))])) for q in quantiles]


# ----------------------------------------------------------------------------- F12

def trajectory_frame(result: DepthSweep, measure: str, form: str = UNJUDGED_FORMS[0]) -> pl.DataFrame:
    """F12 data: ``system, measure, form, depth, value, highlight`` (highlight = quantile q or null)."""
    values = result.series(measure, form)
    marks = {row: q for q, row in highlighted(values[:, -1])}
    name = result._key(measure, form)[0]
    n_dep = len(result.depths)
    return pl.DataFrame({
        "system": np.repeat(np.array(result.systems, dtype=object), n_dep).astype(str),
        "measure": name, "form": form,
        "depth": np.tile(result.depths, len(result.systems)),
        "value": values.ravel(),
        "highlight": np.repeat([marks.get(i, np.nan) for i in range(len(result.systems))], n_dep),
    }).with_columns(pl.col("highlight").fill_nan(None))


@figure_function
def trajectories(result: DepthSweep, measure: str, form: str = UNJUDGED_FORMS[0], ax=None, *, legend: bool = True,
                 title: str | None = None):
    """F12, one panel: every system's mean score against depth k (log axis).

    Thin grey lines for all systems; five dark lines for the systems at positions
    round(q(s − 1)), q ∈ {0, .25, .5, .75, 1}, of the ordering at the largest k; a red
    dashed line at the pool depth d; the legend (``legend=True``) outside the data.
    Returns the Axes (its data: :func:`plot_data`).
    """
    ax = new_axes(ax, figsize=(6.4, 3.6))
    frame = trajectory_frame(result, measure, form)
    _draw_trajectories(ax, result, measure, form)
    ax.set_xlabel("evaluation depth k")
    ax.set_title(title if title is not None else f"{frame['measure'][0]} — {_FORM_TITLE.get(form, form)}")
    if legend:
        handles, labels = ax.get_legend_handles_labels()
        legend_outside(ax, handles + _key_handles(result.pool_depth),
                       labels + [h.get_label() for h in _key_handles(result.pool_depth)])
    ax.irstats_data = frame
    return ax


def _draw_trajectories(ax, result: DepthSweep, measure: str, form: str) -> None:
    """The lines of one panel, its log x axis and y label; highlighted lines labelled
    ``<position>: <system>`` (position: best, upper quartile, … of the ordering at k_max)."""
    from matplotlib.collections import LineCollection

    values = result.series(measure, form)
    depths = result.depths
    # Every system's line as one collection: one artist to lay out and draw instead of one per
    # system (the DL 2019 grid of 16 panels × 37 systems rendered ~2× slower as Line2Ds).
    ax.add_collection(LineCollection([np.column_stack((depths, row)) for row in values], colors="0.65",
                                     linewidths=line_width(0.45), alpha=0.8, zorder=1))
    ax.autoscale_view()
    for (q, row), colour in zip(highlighted(values[:, -1]), _DARK):
        ax.plot(depths, values[row], color=colour, lw=line_width(1.1), zorder=3,
                label=f"{_HIGHLIGHT_LABELS.get(q, f'q={q:g}')}: {result.systems[row]}")
    _pool_line(ax, result.pool_depth)
    _depth_axis(ax)
    ax.set_xlim(depths[0], depths[-1])
    ax.set_ylabel(f"{result._key(measure, form)[0]}@k")


def _depth_axis(ax) -> None:
    """A log depth axis labelled 1 10 100 1000 (no mathtext), without minor ticks (16 log
    panels' minor ticks were most of the figure's drawing time)."""
    from matplotlib.ticker import FuncFormatter, NullLocator

    ax.set_xscale("log")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))


def _key_handles(pool_depth: int | None) -> list:
    """Legend entries for what every panel shares: the grey lines and the pool depth."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="0.65", lw=line_width(0.45), label="other systems")]
    if pool_depth is not None:
        handles.append(Line2D([], [], color=_POOL_COLOUR, ls="--", lw=line_width(0.9),
                              label=f"pool depth d = {pool_depth}"))
    return handles


def _pool_line(ax, pool_depth: int | None, label: bool = False) -> None:
    if pool_depth is not None:
        ax.axvline(pool_depth, color=_POOL_COLOUR, ls="--", lw=line_width(0.9), zorder=2,
                   label=f"pool depth d = {pool_depth}" if label else None)


def trajectory_grid_frame(result: DepthSweep, measures: Sequence[str] | None = None,
                          forms: Sequence[str] | None = None) -> pl.DataFrame:
    """F12 grid data: the :func:`trajectory_frame` of every panel, stacked."""
    measures = list(measures or result.measures)
    forms = list(forms or result.forms)
    return pl.concat([trajectory_frame(result, m, f) for m in measures for f in forms])


@figure_function
def trajectory_grid(result: DepthSweep, measures: Sequence[str] | None = None, forms: Sequence[str] | None = None,
                    axes=None, *, panel_size: tuple[float, float] = (4.2, 2.9)) -> np.ndarray:
    """F12 as in *Observed Volatility* Figs 1–4: panels = metrics (rows) × forms (columns).

    ``axes`` is an array of at least that shape to draw on (default: a new figure, as wide
    as ``size`` and at most :data:`~irstats.plots.common.MAX_HEIGHT` tall: panels are
    shorter than ``panel_size[1]`` when the rows need it). A row's panels share one y range.
    At page width each row's highlighted systems are named in a legend right of the row; in
    a column one legend below the grid says what the colours mark (the systems are in the
    data). Returns the 2-D array of Axes; the stacked data frame is attached to the figure
    (:func:`plot_data`).
    """
    measures = list(measures or result.measures)
    forms = list(forms or result.forms)
    own = axes is None
    if own:
        axes = _grid_axes(result, measures, forms, panel_size)
    axes = np.asarray(axes, dtype=object).reshape(len(measures), len(forms))
    fig = axes.flat[0].figure
    named = own and figure_width() >= SIZES["page"]
    for r, measure in enumerate(measures):
        for c, form in enumerate(forms):
            ax = axes[r, c]
            _draw_trajectories(ax, result, measure, form)
            if own:
                ax.set_xlabel("evaluation depth k" if r == len(measures) - 1 else "")
                if r == 0:
                    ax.set_title(_FORM_TITLE.get(form, form))
                if c > 0:  # one y range per row: the scale is read off the left panel
                    ax.set_ylabel("")
                    ax.tick_params(labelleft=False)
            else:
                ax.set_xlabel("evaluation depth k")
                ax.set_title(f"{measure} — {_FORM_TITLE.get(form, form)}")
        _same_ylim([result.series(measure, f) for f in forms], axes[r, : len(forms)])
        if named:
            _row_legend(result, measure, forms, axes[r, -1])
    if own:
        handles = _quantile_handles() if not named else []
        handles += _key_handles(result.pool_depth)
        labels = [h.get_label() for h in handles]
        fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0), borderaxespad=0.2,
                   ncols=legend_columns(fig, labels, fig.get_figwidth() * 72 - 12))
    else:
        for ax in axes.flat:
            legend_outside(ax, where="right")
    fig.irstats_data = trajectory_grid_frame(result, measures, forms)
    return axes


def _quantile_handles() -> list:
    from matplotlib.lines import Line2D

    return [Line2D([], [], color=colour, lw=line_width(1.1), label=_HIGHLIGHT_LABELS[q] + (" at largest k" if q == 0
                                                                                           else ""))
            for q, colour in zip(QUANTILES, _DARK)]


def _row_legend(result: DepthSweep, measure: str, forms: Sequence[str], ax) -> None:
    """The row's highlighted systems, right of its last panel: one name per position when
    every form picks the same system, else the left panel's over the right one's."""
    from matplotlib.lines import Line2D

    picks = [highlighted(result.series(measure, f)[:, -1]) for f in forms]
    handles = []
    for i, ((q, _), colour) in enumerate(zip(picks[0], _DARK)):
        names = list(dict.fromkeys(result.systems[p[i][1]] for p in picks))
        handles.append(Line2D([], [], color=colour, lw=line_width(1.1), label="\n".join(names)))
    different = any(len(str(h.get_label()).split("\n")) > 1 for h in handles)
    title = "best → worst" + ("\n(left, right panel)" if different else "")
    import matplotlib

    tick = _font_points(matplotlib.rcParams["xtick.labelsize"])
    beside = (text_width("1000", tick) / 2 + 4) / 72 / (ax.get_position().width * ax.figure.get_figwidth())
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1 + beside, 0.5), borderaxespad=0.0,
              fontsize=MIN_FONT_SIZE, title=title, title_fontsize=MIN_FONT_SIZE, handlelength=1.2,
              alignment="left")


def _grid_axes(result: DepthSweep, measures: list[str], forms: list[str], panel_size) -> np.ndarray:
    """A new figure of len(measures) × len(forms) panels placed by hand, at the style's
    width and at most MAX_HEIGHT tall. (A fixed grid, not the constrained layout engine:
    laying out 16 log-scaled panels drew every tick and label several times and was most of
    the report's figure time.)"""
    import matplotlib
    import matplotlib.pyplot as plt

    rc = matplotlib.rcParams
    width = figure_width()
    named = width >= SIZES["page"]
    points = lambda key: _font_points(rc[key])  # noqa: E731
    tick, label, title = points("xtick.labelsize"), points("axes.labelsize"), points("axes.titlesize")
    # left: y tick labels ("0.00"), the y label, pads
    left = (text_width("0.00", tick) + rc["ytick.major.size"] + rc["ytick.major.pad"] + rc["axes.labelpad"]
            + 1.3 * label + 4) / 72
    band = (1.2 * tick + rc["xtick.major.size"] + rc["xtick.major.pad"] + 2) / 72  # x tick labels under a row
    head = (1.5 * title + rc["axes.titlepad"]) / 72  # the forms' names over the first row
    foot = (1.25 * label + rc["axes.labelpad"] + 2) / 72  # the x label under the last row
    gap = 0.1  # between rows, under their tick labels
    # the depth labels at the panels' ends ("1000" | "1") must not meet
    spacing = (text_width("1000", tick) / 2 + text_width("1", tick) / 2 + 0.8 * tick) / 72
    right = text_width("1000", tick) / 2 / 72 + 0.04
    if named:
        widest = max(text_width(str(s), MIN_FONT_SIZE) for s in result.systems)
        legend = (max(widest, text_width("(left, right panel)", MIN_FONT_SIZE))
                  + (1.2 + rc["legend.handletextpad"] + 1.0) * MIN_FONT_SIZE) / 72 + 0.12
        labels = [h.get_label() for h in _key_handles(result.pool_depth)]
    else:
        legend = 0.0
        labels = [h.get_label() for h in _quantile_handles() + _key_handles(result.pool_depth)]
    # the legend under the grid: its rows of entries, pads
    size = points("legend.fontsize")
    key = (math.ceil(len(labels) / legend_columns(None, labels, width * 72 - 12)) * (1 + rc["legend.labelspacing"])
           * size + (2 * rc["legend.borderpad"] + 0.4) * size + 2) / 72
    rows, cols = len(measures), len(forms)
    panel_w = (width - left - right - legend - spacing * (cols - 1)) / cols
    fixed = head + rows * band + (rows - 1) * gap + foot + key + 0.03
    # as tall as ``panel_size`` says, scaled to the width, but not much taller than wide, and
    # every row within MAX_HEIGHT
    natural = min(figure_height(panel_size[1]) - band - gap, 0.95 * panel_w)
    panel_h = max(0.5, min(natural, (MAX_HEIGHT - fixed) / rows))
    height = min(MAX_HEIGHT, fixed + rows * panel_h)
    fig: Any = plt.figure(figsize=(width, height))  # Any: it carries irstats' own irstats_size
    fig.irstats_size = current_size() or DEFAULT_SIZE
    axes = np.empty((rows, cols), dtype=object)
    for r in range(rows):
        top = height - head - r * (panel_h + band + gap)
        for c in range(cols):
            x = left + c * (panel_w + spacing)
            axes[r, c] = fig.add_axes((x / width, (top - panel_h) / height, panel_w / width, panel_h / height))
    return axes


def _font_points(size) -> float:
    from matplotlib.font_manager import FontProperties

    return FontProperties(size=size).get_size_in_points()


def _same_ylim(series: list[np.ndarray], axes) -> None:
    """One y range for panels meant to be compared (a metric's two forms; AP′ and AP″)."""
    finite = np.concatenate([v[np.isfinite(v)] for v in series]) if series else np.array([])
    if finite.size == 0:
        return
    lo, hi = float(finite.min()), float(finite.max())
    pad = 0.04 * (hi - lo) if hi > lo else 0.05
    for ax in axes:
        ax.set_ylim(lo - pad, hi + pad)


# ----------------------------------------------------------------------------- F13

def ap_variants_frame(result: DepthSweep, form: str = UNJUDGED_FORMS[0]) -> pl.DataFrame:
    """F13 data: the :func:`trajectory_frame` of AP (AP′) and AP_pool (AP″)."""
    return pl.concat([trajectory_frame(result, name, form) for name in pool_variant()])


@figure_function
def ap_variants(result: DepthSweep, form: str = UNJUDGED_FORMS[0], axes=None) -> np.ndarray:
    """F13 (*Observed Volatility* Fig. 5): AP′ = AP@k (1/R) beside AP″ = AP_pool@k (1/R_k).

    Two panels on one y scale; the same five systems (those of the ordering at k_max, where
    AP′ = AP″) are highlighted in both, named in one legend below them. Returns the two Axes.
    """
    own = axes is None
    if own:
        _, axes = new_figure(1, 2, height=figure_height(3.4) + 0.45)
    axes = np.asarray(axes, dtype=object).ravel()[:2]
    family, variant = pool_variant()  # AP, AP_pool
    _draw_trajectories(axes[0], result, family, form)
    _draw_trajectories(axes[1], result, variant, form)
    axes[0].set_title(f"{family}′ = {family}@k (÷R)")
    axes[1].set_title(f"{family}″ = {variant}@k (÷R_k)")
    for ax in axes:
        ax.set_xlabel("evaluation depth k")
    if own:
        axes[0].figure.suptitle(_FORM_TITLE.get(form, form))
    _same_ylim([result.series(family, form), result.series(variant, form)], axes)
    handles, labels = axes[0].get_legend_handles_labels()
    handles += _key_handles(result.pool_depth)
    labels += [h.get_label() for h in _key_handles(result.pool_depth)]
    _figure_legend(axes, handles, labels, own)
    axes[0].figure.irstats_data = ap_variants_frame(result, form)
    return axes


# ----------------------------------------------------------------------------- F14

def volatility_summary_frame(stats: Volatility, measures: Sequence[str] | None = None,
                             forms: Sequence[str] | None = None) -> pl.DataFrame:
    """F14 data: ``measure, form, depth, tau_ref, swaps, swap_fraction`` from ``stats.by_depth``."""
    frame = stats.by_depth.select("measure", "form", "depth", "tau_ref", "swaps", "swap_fraction")
    if measures is not None:
        frame = frame.filter(pl.col("measure").is_in(list(measures)))
    if forms is not None:
        frame = frame.filter(pl.col("form").is_in(list(forms)))
    return frame


@figure_function
def volatility_summary(stats: Volatility, measures: Sequence[str] | None = None, forms: Sequence[str] | None = None,
                       axes=None, *, fraction: bool = False) -> np.ndarray:
    """F14: τ_ref(k) (left) and swaps per step (right) against depth k, one curve per metric.

    Colours tell the metrics apart, line styles the forms (solid: unjudged = non-relevant;
    dashed: condensed), in one legend below the panels. The swaps at k are those between
    the previous grid depth and k (``fraction=True`` plots their share of all pairs).
    Returns the two Axes.
    """
    from matplotlib.lines import Line2D

    frame = volatility_summary_frame(stats, measures, forms)
    own = axes is None
    if own:
        _, axes = new_figure(1, 2, height=figure_height(3.4) + 0.45)
    axes = np.asarray(axes, dtype=object).ravel()[:2]
    names = frame.get_column("measure").unique(maintain_order=True).to_list()
    colours = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(names)}
    for (measure, form), part in frame.group_by(["measure", "form"], maintain_order=True):
        style = dict(color=colours[measure], ls=_FORM_STYLE.get(form, ":"), lw=line_width(1.0))
        axes[0].plot(part["depth"], part["tau_ref"], **style)
        swaps = part["swap_fraction"] if fraction else part["swaps"]
        axes[1].plot(part["depth"][1:], swaps[1:], **style)
    for ax in axes:
        _pool_line(ax, stats.pool_depth)
        _depth_axis(ax)
        ax.set_xlabel("evaluation depth k")
    axes[0].set_ylabel(f"τ_b with the order at k = {stats.max_depth}")
    axes[0].set_title("τ_ref(k)")
    axes[1].set_ylabel("share of pairs swapped" if fraction else "pairs swapped since previous k")
    axes[1].set_title("swaps per step")
    handles = [Line2D([], [], color=colours[m], lw=line_width(1.0), label=m) for m in names]
    forms_drawn = frame.get_column("form").unique(maintain_order=True).to_list()
    if len(forms_drawn) > 1:
        handles += [Line2D([], [], color="0.3", ls=_FORM_STYLE.get(f, ":"), lw=line_width(1.0),
                           label=_FORM_TITLE.get(f, f)) for f in forms_drawn]
    handles += _key_handles(stats.pool_depth)[1:]
    labels = [h.get_label() for h in handles]
    _figure_legend(axes, handles, labels, own)
    axes[0].figure.irstats_data = frame
    return axes


def _figure_legend(axes, handles, labels, own: bool) -> None:
    """The legend of a pair of panels: below the figure when irstats made it, else right of
    the caller's second axes (never over the data)."""
    fig = axes[0].figure
    if own:
        fig.legend(handles, labels, loc="outside lower center",
                   ncols=legend_columns(fig, labels, fig.get_figwidth() * 72 - 12))
    else:
        legend_outside(axes[1], handles, labels, where="right")
