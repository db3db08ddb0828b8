"""Shared plotting conventions: headless backend, colour-blind-safe palette, saving."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

if not os.environ.get("MPLBACKEND"):
    matplotlib.use("Agg")  # figures are files: no display needed, nothing to configure

import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

#: tab10, the colour-blind-safe default (METHODS.md §6).
PALETTE = tuple(plt.get_cmap("tab10").colors)


def new_axes(ax=None, figsize=(6.4, 4.0)):
    """The given Axes, or a new Figure's single Axes."""
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def save(ax_or_fig, path: str | os.PathLike, data: pl.DataFrame | None = None, dpi: int = 150,
         also: tuple[str, ...] = ()) -> Path:
    """Write the figure to ``path`` (PNG, SVG or PDF by suffix) and ``data`` as CSV beside it.

    The CSV has the image's name with ``.csv``: the numbers behind the picture, so a figure
    can be re-drawn or checked without re-running the experiment. ``also`` names more
    suffixes to write the same figure to (the report writes ``(".pdf",)`` beside each PNG).
    """
    import io

    from irstats.io.output import figure_format, write_bytes, write_text

    fig = getattr(ax_or_fig, "figure", ax_or_fig)
    path = Path(path)
    try:
        for target in (path, *(path.with_suffix(suffix) for suffix in also)):
            fmt = figure_format(target)
            buffer = io.BytesIO()  # rendered in memory, then written atomically: a failure leaves no partial file
            fig.savefig(buffer, dpi=dpi, format=fmt)
            write_bytes(target, buffer.getvalue())
        if data is not None:
            write_text(path.with_suffix(".csv"), data.write_csv())
    finally:
        plt.close(fig)
    return path
