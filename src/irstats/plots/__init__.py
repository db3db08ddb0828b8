"""Figures: one function per figure, each drawing from stored experiment output.

Every figure function accepts ``ax=`` and returns the Axes, and takes ``size="column"``
(3.33 in wide) or ``size="page"`` (7 in); :func:`save` writes the image and, next to it, the
plotted data as CSV (METHODS.md §6). Figures are drawn and saved in :func:`style`: text of
at least 7 pt at their width, legends outside the data, no figure taller than 9 in, and
TrueType (Type 42) fonts in every PDF — never Type 3.

A result's own figures (``ConclusionAgreement.plot()``, ``ReproResult.plot_order()`` …) are drawn
here: each drawing function registers itself for its result's method
(:func:`irstats.result.provides`), and importing this package loads every one of them, so that
the result, which sits below ``plots/``, never imports it (docs/design.md's layers).
"""

from irstats.plots.common import DEFAULT_SIZE, MAX_HEIGHT, MIN_FONT_SIZE, PALETTE, SIZES, new_axes, save, style

# the modules that draw results' own figures, loaded so that their drawing functions are registered
from irstats.plots import agreement, bayes, forest, meta, repro  # noqa: F401

__all__ = ["DEFAULT_SIZE", "MAX_HEIGHT", "MIN_FONT_SIZE", "PALETTE", "SIZES", "new_axes", "save", "style"]
