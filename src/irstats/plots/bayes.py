"""Figures of :mod:`irstats.stats.bayes`: one pair's posterior of the mean difference with the
ROPE shaded, and the simplex of the three probabilities of many pairs."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from irstats.errors import NotFoundError, some
from irstats.plots.common import (MIN_FONT_SIZE, PALETTE, figure_function, legend_outside, line_width, marker_size,
                                  new_axes)
from irstats.result import provides

#: Pairs named beside their point in the simplex, at most (the least decided ones, apart).
LABELLED = 8
#: The least distance (in the simplex's units: its side is 1) between two named points.
LABEL_GAP = 0.08
_ROPE_COLOUR = "#b0b0b0"


def _pair(result, measure, system, baseline) -> dict:
    """The row of ``result.frame`` for the pair asked for (default: the first row matching)."""
    rows = result.frame
    for column, value in (("measure", measure), ("system", system), ("baseline", baseline)):
        if value is not None:
            rows = rows.filter(pl.col(column) == value)
    if rows.height == 0:
        asked = ", ".join(f"{k}={v!r}" for k, v in (("measure", measure), ("system", system), ("baseline", baseline))
                          if v is not None)
        raise NotFoundError(f"no compared pair with {asked}; the result holds {some(result.frame['system'].unique())}",
                            argument="system" if system is not None else "measure")
    return rows.row(0, named=True)


@provides("irstats.stats.bayes.BayesComparison", "plot_posterior")
@figure_function
def plot_posterior(result, measure: str | None = None, system: str | None = None, baseline: str | None = None,
                   ax=None):
    """The posterior density of the mean difference system − baseline of one pair of a
    :class:`~irstats.stats.bayes.BayesComparison` (default: its first row), the ROPE [−r, r]
    shaded grey, the posterior interval marked below the curve and the three probabilities in
    the title. The data (``difference density``) is attached to the Axes for
    :func:`irstats.plots.save`. Returns the Axes."""
    row = _pair(result, measure, system, baseline)
    data = result.densities.filter((pl.col("measure") == row["measure"]) & (pl.col("system") == row["system"])
                                   & (pl.col("baseline") == row["baseline"]))
    rope = result.ropes[row["measure"]]
    ax = new_axes(ax, figsize=(6.4, 3.4))
    x, y = data["difference"].to_numpy(), data["density"].to_numpy()
    if np.isfinite(y).any():
        ax.plot(x, y, color=PALETTE[0], lw=line_width())
        ax.fill_between(x, 0, y, color=PALETTE[0], alpha=0.25, lw=0)
    else:  # every difference the same: the posterior is a point
        ax.axvline(row["interval_low"], color=PALETTE[0], lw=line_width())
    ax.axvspan(-rope, rope, color=_ROPE_COLOUR, alpha=0.45, lw=0, label=f"ROPE ±{rope:g}")
    ax.axvline(0.0, color="#606060", lw=line_width(0.5))
    ax.plot([row["interval_low"], row["interval_high"]], [0, 0], color=PALETTE[3], lw=line_width(2.2),
            solid_capstyle="butt", label=f"{result.level:.0%} interval", clip_on=False)
    ax.set_ylim(bottom=0)
    ax.set_xlabel(f"mean difference in {row['measure']}: {row['system']} − {row['baseline']}")
    ax.set_ylabel("posterior density")
    ax.set_title(f"P({row['baseline']} better) = {row['p_baseline_better']:.3f}, P(ROPE) = {row['p_rope']:.3f}, "
                 f"P({row['system']} better) = {row['p_system_better']:.3f}")
    legend_outside(ax)
    ax.irstats_data = data.select("difference", "density")
    return ax


def _project(p_baseline: np.ndarray, p_rope: np.ndarray, p_system: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Barycentric coordinates to the plane: baseline better at (0, 0), system better at
    (1, 0), ROPE at the top (1/2, √3/2)."""
    return p_system + 0.5 * p_rope, p_rope * math.sqrt(3) / 2


@provides("irstats.stats.bayes.BayesComparison", "plot_simplex")
@figure_function
def plot_simplex(result, measure: str | None = None, ax=None, labelled: int = LABELLED):
    """Every compared pair of one measure (default: the first) as a point of the probability
    simplex: the corner where the baseline is better (left), where the system is (right) and
    the ROPE (top); the closer a point to a corner, the surer the posterior. Up to ``labelled``
    of the least decided pairs are named (none beside another named one). The data (the frame's rows) is attached to the Axes for
    :func:`irstats.plots.save`. Returns the Axes."""
    measure = measure if measure is not None else result.measures[0]
    data = result.frame.filter(pl.col("measure") == measure)
    if data.height == 0:
        raise NotFoundError(f"no pairs for measure {measure!r}; the result holds {some(result.measures)}",
                            argument="measure")
    ax = new_axes(ax, figsize=(5.0, 4.6))
    corners_x, corners_y = _project(np.array([1.0, 0.0, 0.0, 1.0]), np.array([0.0, 0.0, 1.0, 0.0]),
                                    np.array([0.0, 1.0, 0.0, 0.0]))
    ax.plot(corners_x, corners_y, color="#606060", lw=line_width(0.6))
    centre = _project(np.array([1 / 3]), np.array([1 / 3]), np.array([1 / 3]))
    for mid in ([0.5, 0.0, 0.5], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5]):  # where each probability is largest
        mx, my = _project(*(np.array([v]) for v in mid))
        ax.plot([centre[0][0], mx[0]], [centre[1][0], my[0]], color=_ROPE_COLOUR, lw=line_width(0.5))
    px, py = _project(data["p_baseline_better"].to_numpy(), data["p_rope"].to_numpy(),
                      data["p_system_better"].to_numpy())
    ax.plot(px, py, linestyle="none", marker="o", ms=marker_size(0.8), color=PALETTE[0], alpha=0.7)
    decided = np.max(data.select("p_baseline_better", "p_rope", "p_system_better").to_numpy(), axis=1)
    named: list[int] = []
    for i in np.argsort(decided, kind="stable"):  # the least decided first; none beside one named already
        if len(named) == labelled:
            break
        if all(np.hypot(px[i] - px[j], py[i] - py[j]) > LABEL_GAP for j in named):
            named.append(int(i))
            row = data.row(int(i), named=True)
            ax.annotate(f"{row['system']}–{row['baseline']}", (px[i], py[i]), xytext=(4, 3),
                        textcoords="offset points", fontsize=MIN_FONT_SIZE)
    baseline = result.baseline if result.baseline is not None else "baseline"
    ax.annotate(f"{baseline} better", (0, 0), xytext=(0, -10), textcoords="offset points", ha="center", va="top")
    ax.annotate("system better", (1, 0), xytext=(0, -10), textcoords="offset points", ha="center", va="top")
    ax.annotate(f"ROPE ±{result.ropes[measure]:g}", (0.5, math.sqrt(3) / 2), xytext=(0, 6),
                textcoords="offset points", ha="center", va="bottom")
    ax.set_aspect("equal")
    ax.set_xlim(-0.12, 1.12)
    ax.set_ylim(-0.14, math.sqrt(3) / 2 + 0.1)
    ax.axis("off")
    ax.set_title(f"{measure}: posterior probabilities of {data.height} pair(s)")
    ax.irstats_data = data
    return ax


__all__ = ["plot_posterior", "plot_simplex"]
