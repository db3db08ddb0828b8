"""Figure of :mod:`irstats.stats.meta_analysis`: the forest plot."""

from __future__ import annotations

import numpy as np
import polars as pl

from irstats.errors import NotFoundError, some
from irstats.plots.common import PALETTE, figure_function, line_width, marker_size, new_axes
from irstats.result import provides


@provides("irstats.stats.meta_analysis.MetaAnalysis", "plot")
@figure_function
def plot_forest(result, measure: str | None = None, ax=None):
    """Forest plot of one measure (default: the first) of a
    :class:`~irstats.stats.meta_analysis.MetaAnalysis`: each collection's effect with its
    interval (a square sized by its random-effects weight, Paule–Mandel), then the pooled
    estimates as diamonds spanning their intervals; a vertical line at no effect. The data
    (each row's label, effect and interval) is attached to the Axes for :func:`irstats.plots.save`.
    Returns the Axes."""
    measure = measure if measure is not None else result.measures[0]
    own = result.collections.filter(pl.col("measure") == measure)
    pooled = result.frame.filter(pl.col("measure") == measure)
    if own.height == 0:
        raise NotFoundError(f"no effects for measure {measure!r}; the result holds {some(result.measures)}",
                            argument="measure")
    labels = [f"{r['collection']}: {r['system']} − {r['baseline']}" for r in own.iter_rows(named=True)]
    labels += [str(m) for m in pooled["method"]]
    n = len(labels)
    ax = new_axes(ax, height=max(2.2, 0.28 * n + 1.2))
    y = np.arange(n)[::-1].astype(float)
    weights = own["weight_pm"].to_numpy()
    for i, row in enumerate(own.iter_rows(named=True)):
        ax.plot([row["ci_low"], row["ci_high"]], [y[i], y[i]], color="#404040", lw=line_width(0.8))
        ax.plot(row["effect"], y[i], marker="s", linestyle="none", color=PALETTE[0],
                ms=marker_size(0.7 + 1.6 * np.sqrt(weights[i] / weights.max())))
    for j, row in enumerate(pooled.iter_rows(named=True)):
        k = own.height + j
        half = 0.3
        ax.fill([row["ci_low"], row["effect"], row["ci_high"], row["effect"]],
                [y[k], y[k] + half, y[k], y[k] - half], color=PALETTE[1 + j % (len(PALETTE) - 1)], lw=0)
    ax.axvline(0.0, color="#808080", lw=line_width(0.6), ls="--")
    ax.axhline(y[own.height - 1] - 0.5, color="#c0c0c0", lw=line_width(0.5))
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, n - 0.3)
    kind = "mean difference" if result.effect == "md" else "d_z"
    ax.set_xlabel(f"{kind} in {measure} ({result.confidence:.0%} intervals)")
    ax.set_title(f"{measure}: effect per collection and pooled (I² = {pooled['i2'][0]:.0%}, "
                 f"τ²(PM) = {pooled.filter(pl.col('method') == 'pm')['tau2'][0]:.2g})")
    ax.irstats_data = pl.DataFrame({"label": labels,
                                    "effect": [*own["effect"], *pooled["effect"]],
                                    "ci_low": [*own["ci_low"], *pooled["ci_low"]],
                                    "ci_high": [*own["ci_high"], *pooled["ci_high"]]})
    return ax


__all__ = ["plot_forest"]
