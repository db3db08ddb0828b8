"""Figures: one function per figure, each drawing from stored experiment output.

Every figure function accepts ``ax=`` and returns the Axes; :func:`save` writes the image
and, next to it, the plotted data as CSV (METHODS.md §6).
"""

from irstats.plots.common import PALETTE, new_axes, save

__all__ = ["PALETTE", "new_axes", "save"]
