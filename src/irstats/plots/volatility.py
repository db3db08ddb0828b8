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

from typing import Sequence

import numpy as np
import polars as pl

from irstats.depth.sweep import UNJUDGED_FORMS, DepthSweep
from irstats.depth.volatility import Volatility
from irstats.errors import ArgumentError
from irstats.plots.common import PALETTE, new_axes

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


def trajectories(result: DepthSweep, measure: str, form: str = UNJUDGED_FORMS[0], ax=None, *, legend: bool = True,
                 title: str | None = None):
    """F12, one panel: every system's mean score against depth k (log axis).

    Thin grey lines for all systems; five dark lines for the systems at positions
    round(q(s − 1)), q ∈ {0, .25, .5, .75, 1}, of the ordering at the largest k; a red
    dashed line at the pool depth d. Returns the Axes (its data: :func:`plot_data`).
    """
    ax = new_axes(ax)
    frame = trajectory_frame(result, measure, form)
    values = result.series(measure, form)
    depths = result.depths
    from matplotlib.collections import LineCollection

    # Every system's line as one collection: one artist to lay out and draw instead of one per
    # system (the DL 2019 grid of 16 panels × 37 systems rendered ~2× slower as Line2Ds).
    ax.add_collection(LineCollection([np.column_stack((depths, row)) for row in values], colors="0.65",
                                     linewidths=0.6, alpha=0.8, zorder=1))
    ax.autoscale_view()
    for (q, row), colour in zip(highlighted(values[:, -1]), _DARK):
        ax.plot(depths, values[row], color=colour, lw=1.6, zorder=3,
                label=f"{_HIGHLIGHT_LABELS.get(q, f'q={q:g}')}: {result.systems[row]}")
    _pool_line(ax, result.pool_depth)
    ax.set_xscale("log")
    # no minor ticks: 16 log panels' minor ticks were most of the figure's drawing time
    from matplotlib.ticker import FuncFormatter, NullLocator

    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))  # 1 10 100: no mathtext
    ax.set_xlim(depths[0], depths[-1])
    ax.set_xlabel("evaluation depth k")
    ax.set_ylabel(f"{frame['measure'][0]}@k")
    ax.set_title(title if title is not None else f"{frame['measure'][0]} — {_FORM_TITLE.get(form, form)}",
                 fontsize="medium")
    if legend:
        ax.legend(fontsize="x-small", loc="best", frameon=False)
    ax.irstats_data = frame
    return ax


def _pool_line(ax, pool_depth: int | None, label: bool = False) -> None:
    if pool_depth is not None:
        ax.axvline(pool_depth, color=_POOL_COLOUR, ls="--", lw=1.2, zorder=2,
                   label=f"pool depth d = {pool_depth}" if label else None)


def trajectory_grid_frame(result: DepthSweep, measures: Sequence[str] | None = None,
                          forms: Sequence[str] | None = None) -> pl.DataFrame:
    """F12 grid data: the :func:`trajectory_frame` of every panel, stacked."""
    measures = list(measures or result.measures)
    forms = list(forms or result.forms)
    return pl.concat([trajectory_frame(result, m, f) for m in measures for f in forms])


def trajectory_grid(result: DepthSweep, measures: Sequence[str] | None = None, forms: Sequence[str] | None = None,
                    axes=None, *, panel_size: tuple[float, float] = (4.2, 2.9)) -> np.ndarray:
    """F12 as in *Observed Volatility* Figs 1–4: panels = metrics (rows) × forms (columns).

    ``axes`` is an array of at least that shape to draw on (default: a new figure). Returns
    the 2-D array of Axes; the stacked data frame is attached to the figure (:func:`plot_data`).
    """
    measures = list(measures or result.measures)
    forms = list(forms or result.forms)
    if axes is None:
        import matplotlib.pyplot as plt

        # A fixed grid, not the constrained layout engine: laying out 16 log-scaled panels
        # drew every tick and label several times and was most of the report's figure time.
        fig, axes = plt.subplots(len(measures), len(forms), squeeze=False,
                                 figsize=(panel_size[0] * len(forms), panel_size[1] * len(measures)))
        height = panel_size[1] * len(measures)
        fig.subplots_adjust(left=0.09, right=0.98, top=1 - 0.45 / height, bottom=0.55 / height, wspace=0.28,
                            hspace=0.55)
    axes = np.asarray(axes, dtype=object).reshape(len(measures), len(forms))
    for r, measure in enumerate(measures):
        for c, form in enumerate(forms):
            trajectories(result, measure, form, ax=axes[r, c])
        _same_ylim([result.series(measure, f) for f in forms], axes[r, : len(forms)])
    axes.flat[0].figure.irstats_data = trajectory_grid_frame(result, measures, forms)
    return axes


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
    return pl.concat([trajectory_frame(result, "AP", form), trajectory_frame(result, "AP_pool", form)])


def ap_variants(result: DepthSweep, form: str = UNJUDGED_FORMS[0], axes=None) -> np.ndarray:
    """F13 (*Observed Volatility* Fig. 5): AP′ = AP@k (1/R) beside AP″ = AP_pool@k (1/R_k).

    Two panels on one y scale; the same five systems (those of the ordering at k_max, where
    AP′ = AP″) are highlighted in both. Returns the two Axes.
    """
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(9.0, 3.4), layout="constrained")
    axes = np.asarray(axes, dtype=object).ravel()[:2]
    trajectories(result, "AP", form, ax=axes[0], title=f"AP′ = AP@k (÷R) — {_FORM_TITLE.get(form, form)}")
    trajectories(result, "AP_pool", form, ax=axes[1], title=f"AP″ = AP_pool@k (÷R_k) — {_FORM_TITLE.get(form, form)}")
    _same_ylim([result.series("AP", form), result.series("AP_pool", form)], axes)
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


def volatility_summary(stats: Volatility, measures: Sequence[str] | None = None, forms: Sequence[str] | None = None,
                       axes=None, *, fraction: bool = False) -> np.ndarray:
    """F14: τ_ref(k) (left) and swaps per step (right) against depth k, one curve per metric.

    Colours tell the metrics apart, line styles the forms (solid: unjudged = non-relevant;
    dashed: condensed). The swaps at k are those between the previous grid depth and k
    (``fraction=True`` plots their share of all pairs). Returns the two Axes.
    """
    frame = volatility_summary_frame(stats, measures, forms)
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(10.0, 3.8), layout="constrained")
    axes = np.asarray(axes, dtype=object).ravel()[:2]
    names = frame.get_column("measure").unique(maintain_order=True).to_list()
    colours = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(names)}
    for (measure, form), part in frame.group_by(["measure", "form"], maintain_order=True):
        style = dict(color=colours[measure], ls=_FORM_STYLE.get(form, ":"), lw=1.3)
        label = measure if form == UNJUDGED_FORMS[0] or len(frame.get_column("form").unique()) == 1 else None
        axes[0].plot(part["depth"], part["tau_ref"], label=label, **style)
        swaps = part["swap_fraction"] if fraction else part["swaps"]
        axes[1].plot(part["depth"][1:], swaps[1:], **style)
    for ax in axes:
        _pool_line(ax, stats.pool_depth, label=ax is axes[1])
        ax.set_xscale("log")
        ax.set_xlabel("evaluation depth k")
    axes[0].set_ylabel(f"τ_b with the ordering at k = {stats.max_depth}")
    axes[0].set_title("τ_ref(k)", fontsize="medium")
    axes[1].set_ylabel("share of pairs swapped" if fraction else "pairs swapped since previous k")
    axes[1].set_title("swaps per step", fontsize="medium")
    axes[0].legend(fontsize="x-small", frameon=False, loc="lower right")
    forms_drawn = frame.get_column("form").unique(maintain_order=True).to_list()
    if len(forms_drawn) > 1:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color="0.3", ls=_FORM_STYLE.get(f, ":"), label=_FORM_TITLE.get(f, f))
                   for f in forms_drawn]
        handles += [h for h in axes[1].get_legend_handles_labels()[0]]
        axes[1].legend(handles=handles, fontsize="x-small", frameon=False, loc="upper right")
    else:
        axes[1].legend(fontsize="x-small", frameon=False, loc="upper right")
    axes[0].figure.irstats_data = frame
    return axes
