"""Figure of :mod:`irstats.agreement`: which systems gain or lose most under a second qrels."""

from __future__ import annotations

import numpy as np
import polars as pl

from irstats.plots.common import (MAX_HEIGHT, MIN_FONT_SIZE, PALETTE, figure_function, line_width, marker_size,
                                  new_axes)
from irstats.result import provides

#: Movers labelled by name on each side of the slope chart (the rest stay grey and unnamed).
LABELLED = 5
_GAIN, _LOSS, _STILL = PALETTE[2], PALETTE[3], "#b0b0b0"


@provides("irstats.agreement.ConclusionAgreement", "plot")
@figure_function
def plot_rank_changes(gains: pl.DataFrame, ax=None, labels: tuple[str, str] = ("A", "B"),
                      labelled: int = LABELLED):
    """Slope chart: each system's rank under A (left) and B (right), 1 at the top; green
    lines rise under B, red ones fall, the ``labelled`` largest gains and losses are named.

    ``gains`` is :meth:`ConclusionAgreement.gains` for one measure. The data behind the
    figure (the same frame) is attached to the Axes for :func:`irstats.plots.save`.
    """
    # a rank per 1.4 lines of the smallest text, so that neighbouring names do not overlap
    ax = new_axes(ax, height=min(MAX_HEIGHT, max(2.5, 1.4 * MIN_FONT_SIZE / 72.0 * gains.height + 1.2)))
    gain = gains.get_column("rank_gain").to_numpy()
    order = np.argsort(-np.abs(gain), kind="stable")
    named = set(order[:labelled * 2][np.abs(gain[order[:labelled * 2]]) > 0].tolist())
    for i, row in enumerate(gains.iter_rows(named=True)):
        colour = _GAIN if row["rank_gain"] > 0 else _LOSS if row["rank_gain"] < 0 else _STILL
        width = line_width(1.2 if i in named else 0.55)
        ax.plot([0, 1], [row["rank_a"], row["rank_b"]], color=colour, lw=width, alpha=0.9 if i in named else 0.5,
                marker="o", ms=marker_size(0.6))
        if i in named:
            ax.annotate(f"{row['system']} ({row['rank_gain']:+d})", (1, row["rank_b"]), xytext=(6, 0),
                        textcoords="offset points", va="center", fontsize=MIN_FONT_SIZE, color=colour)
    n = int(gains.select("rank_a", "rank_b").to_numpy().max())  # the lowest rank on either side
    ax.set_ylim(n + 0.5, 0.5)
    ax.set_xlim(-0.15, 1.6)
    ax.set_xticks([0, 1], [f"rank under {labels[0]}", f"rank under {labels[1]}"])
    ax.set_ylabel("rank (1 = best)")
    measure = gains["measure"][0] if gains.height else ""
    ax.set_title(f"{measure}: systems that gain (green) or lose (red) under {labels[1]}")
    ax.irstats_data = gains
    return ax
