"""Figures of :mod:`irstats.repro`, the two that repro_eval's papers show: KTU and RBO per
topic, and the effect ratio against ΔRI."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import polars as pl

from irstats.plots.common import (MIN_FONT_SIZE, PALETTE, figure_function, index_ticks, legend_outside, line_width,
                                  marker_size, new_axes)
from irstats.result import provides

#: Points of the ER–ΔRI plane named beside them, at most.
LABELLED = 12


@provides("irstats.repro.ReproResult", "plot_order")
@figure_function
def plot_order(result, ax=None, statistics: Sequence[str] = ("ktu", "rbo")):
    """KTU (filled circles) and RBO (open squares) of every topic, baseline in blue and
    advanced in orange, with their means over the topics (repro_eval's ARP) as lines.

    ``result``: a :class:`~irstats.repro.ReproResult` of a reproduction. The data (``topic
    run ktu rbo``) is attached to the Axes for :func:`irstats.plots.save`. Returns the Axes.
    """
    data = result.per_topic()
    topics = list(result.order_topics)
    ax = new_axes(ax, figsize=(6.4, 4.0))
    where = {t: i for i, t in enumerate(topics)}
    markers = {"ktu": ("o", "full", "KTU"), "rbo": ("s", "none", "RBO")}
    for r, run in enumerate(result.runs):
        rows = data.filter(pl.col("run") == run)
        x = np.array([where[t] for t in rows["topic"]])
        for statistic in statistics:
            marker, fill, name = markers[statistic]
            values = rows[statistic].to_numpy()
            ax.plot(x, values, linestyle="none", marker=marker, fillstyle=fill, ms=marker_size(0.8), color=PALETTE[r],
                    label=f"{name}, {run} ({result.original[r]})")
            finite = values[~np.isnan(values)]
            if finite.size:
                ax.axhline(finite.mean(), color=PALETTE[r], lw=line_width(0.6), ls="-" if statistic == "ktu" else "--",
                           alpha=0.7)
    ax.axhline(0.0, color="#b0b0b0", lw=line_width(0.45))
    index_ticks(ax, "x", topics, rotation=90)  # every k-th topic when they do not all fit
    ax.tick_params(axis="x", labelsize=MIN_FONT_SIZE)
    ax.set_xlim(-0.7, len(topics) - 0.3)
    ax.set_ylim(min(-0.05, float(np.nanmin(data.select(list(statistics)).to_numpy(), initial=0.0)) - 0.05), 1.05)
    ax.set_xlabel("topic")
    ax.set_ylabel("ranking similarity")
    ax.set_title(f"Order of documents, original vs reproduced (top {result.order_depth}; lines: means)")
    legend_outside(ax)
    ax.irstats_data = data
    return ax


@provides("irstats.repro.ReproResult", "plot_effects")
@figure_function
def plot_effects(results, ax=None, measures: Sequence[str] | None = None, labels: Sequence[str] | None = None):
    """Effect ratio (x) against ΔRI (y), one point per measure and reproduction; the grey
    lines cross at (1, 0), a perfect reproduction of the effect. Right of 1: a larger effect
    than the original's; below 0: a larger relative improvement.

    ``results``: one :class:`~irstats.repro.ReproResult` with an advanced run, or several
    (e.g. reproductions with different settings), named by ``labels`` (default: the
    reproduced runs). The data (``reproduction measure er dri``) is attached to the Axes for
    :func:`irstats.plots.save`. Returns the Axes.
    """
    results = [results] if not isinstance(results, (list, tuple)) else list(results)
    labels = list(labels) if labels is not None else [" / ".join(r.other) for r in results]
    frames = []
    for label, result in zip(labels, results):
        effects = result.effects()
        if measures is not None:
            effects = effects.filter(pl.col("measure").is_in(list(measures)))
        frames.append(effects.select(pl.lit(label).alias("reproduction"), "measure", "er", "dri"))
    data = pl.concat(frames)
    ax = new_axes(ax, figsize=(5.2, 4.4))
    ax.axvline(1.0, color="#b0b0b0", lw=line_width(0.6))
    ax.axhline(0.0, color="#b0b0b0", lw=line_width(0.6))
    named = data.height <= LABELLED
    for k, label in enumerate(labels):
        rows = data.filter(pl.col("reproduction") == label)
        ax.plot(rows["er"].to_numpy(), rows["dri"].to_numpy(), linestyle="none", marker="o", ms=marker_size(0.8),
                color=PALETTE[k % len(PALETTE)], label=label)
        if named:
            for row in rows.iter_rows(named=True):
                if np.isfinite(row["er"]) and np.isfinite(row["dri"]):
                    ax.annotate(row["measure"], (row["er"], row["dri"]), xytext=(4, 3), textcoords="offset points",
                                fontsize=MIN_FONT_SIZE)
    ax.margins(0.15)  # room for the measures' names
    ax.set_xlabel("effect ratio (ER)")
    ax.set_ylabel("delta relative improvement (ΔRI)")
    ax.set_title("Overall effect: reproduced vs original (best at ER 1, ΔRI 0)")
    if len(labels) > 1:
        legend_outside(ax)
    ax.irstats_data = data
    return ax


__all__ = ["plot_effects", "plot_order"]
