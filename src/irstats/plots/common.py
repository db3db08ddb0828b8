"""Shared plotting conventions: headless backend, colour-blind-safe palette, the paper style
(column and page widths, TrueType fonts), legends outside the data, and saving.

Every figure irstats draws goes through :func:`style`, one ``matplotlib.rc_context``: a
width (``column`` 3.33 in or ``page`` 7 in), font sizes set for that width (no text below
:data:`MIN_FONT_SIZE` points), lines and markers scaled to it, and TrueType (Type 42) fonts
in PDF and PostScript — never Type 3, which ACM's and IEEE's checks reject. The figure
functions take ``size=`` and draw inside the style (:func:`figure_function`); :func:`save`
writes inside it too, so the fonts are embedded as TrueType whoever drew the figure. Nothing
is changed globally: outside these calls matplotlib keeps the user's settings.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import os
import types
from pathlib import Path

import matplotlib

if not os.environ.get("MPLBACKEND"):
    matplotlib.use("Agg")  # figures are files: no display needed, nothing to configure

import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402
from cycler import cycler  # noqa: E402 - matplotlib's own dependency

#: tab10, the colour-blind-safe default (METHODS.md §6).
PALETTE = tuple(matplotlib.color_sequences["tab10"])

#: Figure widths in inches: one column and the whole page of a two-column paper (ACM, IEEE).
SIZES = {"column": 3.33, "page": 7.0}
#: The width figures are drawn at unless ``size=`` says otherwise (what reads best on a screen
#: and in the report; ``column`` for a paper's single column).
DEFAULT_SIZE = "page"
#: No figure is taller than this (inches): a page less its margins and caption.
MAX_HEIGHT = 9.0
#: The smallest text, in points, in a figure at its own width.
MIN_FONT_SIZE = 7.0

_SIZE: contextvars.ContextVar[str | None] = contextvars.ContextVar("irstats_figure_size", default=None)

# Font sizes and line weights for each width. The smallest text is MIN_FONT_SIZE; lines,
# markers and ticks are thinner in a column so the marks keep their weight against the text.
_STYLE = {
    "column": {"font.size": 8.0, "axes.titlesize": 8.0, "axes.labelsize": 8.0, "xtick.labelsize": 7.0,
               "ytick.labelsize": 7.0, "legend.fontsize": 7.0, "legend.title_fontsize": 7.0,
               "figure.titlesize": 8.0, "figure.labelsize": 8.0, "lines.linewidth": 1.0, "lines.markersize": 3.5,
               "axes.linewidth": 0.6, "patch.linewidth": 0.5, "grid.linewidth": 0.4, "hatch.linewidth": 0.5,
               "xtick.major.width": 0.6, "ytick.major.width": 0.6, "xtick.minor.width": 0.4,
               "ytick.minor.width": 0.4, "xtick.major.size": 2.5, "ytick.major.size": 2.5, "xtick.minor.size": 1.5,
               "ytick.minor.size": 1.5, "xtick.major.pad": 2.0, "ytick.major.pad": 2.0, "axes.labelpad": 2.5,
               "axes.titlepad": 3.0, "errorbar.capsize": 1.5, "legend.handlelength": 1.6,
               "legend.handletextpad": 0.4, "legend.columnspacing": 1.0, "legend.borderpad": 0.3,
               "legend.labelspacing": 0.3},
    "page": {"font.size": 9.0, "axes.titlesize": 9.0, "axes.labelsize": 9.0, "xtick.labelsize": 8.0,
             "ytick.labelsize": 8.0, "legend.fontsize": 8.0, "legend.title_fontsize": 8.0, "figure.titlesize": 9.0,
             "figure.labelsize": 9.0, "lines.linewidth": 1.3, "lines.markersize": 4.5, "axes.linewidth": 0.8,
             "patch.linewidth": 0.6, "grid.linewidth": 0.5, "hatch.linewidth": 0.6, "xtick.major.width": 0.8,
             "ytick.major.width": 0.8, "xtick.minor.width": 0.5, "ytick.minor.width": 0.5, "xtick.major.size": 3.0,
             "ytick.major.size": 3.0, "xtick.minor.size": 1.8, "ytick.minor.size": 1.8, "xtick.major.pad": 2.5,
             "ytick.major.pad": 2.5, "axes.labelpad": 3.0, "axes.titlepad": 4.0, "errorbar.capsize": 2.0,
             "legend.handlelength": 1.8, "legend.handletextpad": 0.5, "legend.columnspacing": 1.2,
             "legend.borderpad": 0.3, "legend.labelspacing": 0.35},
}
_COMMON = {
    "pdf.fonttype": 42, "ps.fonttype": 42,  # TrueType, not Type 3 (the default)
    "svg.fonttype": "path",
    "font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"],  # matplotlib's own: every machine has it
    "mathtext.fontset": "dejavusans",
    "axes.prop_cycle": cycler(color=PALETTE),
    "legend.frameon": False,
    "figure.dpi": 100.0,
    "savefig.dpi": 150.0,
    "figure.constrained_layout.use": False,
}


def check_size(size) -> str:
    """``size`` if it is ``"column"`` or ``"page"``; otherwise an :class:`ArgumentError`."""
    if isinstance(size, str) and size in SIZES:
        return size
    from irstats.errors import ArgumentError

    raise ArgumentError(f"size: expected one of {', '.join(map(repr, SIZES))}, got {size!r}", argument="size")


def rc_params(size: str = DEFAULT_SIZE) -> dict:
    """The matplotlib settings of the paper style at ``size`` (what :func:`style` applies)."""
    return {**_COMMON, **_STYLE[check_size(size)]}


def current_size() -> str | None:
    """The size of the :func:`style` being drawn in, or None outside one."""
    return _SIZE.get()


@contextlib.contextmanager
def style(size: str | None = None):
    """Draw and save figures at ``size`` (``"column"``: 3.33 in wide, ``"page"``: 7 in).

    A ``matplotlib.rc_context``: font sizes for that width (text ≥ 7 pt), lines and markers
    scaled, TrueType (Type 42) fonts in PDF and PS. Figures made inside it by irstats'
    figure functions (or :func:`new_axes`) are that wide. ``size=None`` keeps the size of
    an enclosing style, else :data:`DEFAULT_SIZE`. Yields the width in inches::

        with plots.style("column"):
            ax = plots.meta.plot_system_means(scores["AP"])
            plots.save(ax, "means.pdf")
    """
    size = check_size(size) if size is not None else (_SIZE.get() or DEFAULT_SIZE)
    token = _SIZE.set(size)
    try:
        with matplotlib.rc_context(rc_params(size)):
            yield SIZES[size]
    finally:
        _SIZE.reset(token)


def figure_width(size: str | None = None) -> float:
    """The width in inches of a figure at ``size`` (default: the current style's)."""
    return SIZES[check_size(size) if size is not None else (_SIZE.get() or DEFAULT_SIZE)]


def figure_height(natural: float, size: str | None = None) -> float:
    """A height (inches) for a figure designed ``natural`` inches tall at 6.4 in wide, at
    ``size``: narrower figures are less tall but keep room for text; never over :data:`MAX_HEIGHT`."""
    width = figure_width(size)
    return float(min(MAX_HEIGHT, max(1.6, natural * math.sqrt(width / 6.4))))


def new_figure(nrows: int = 1, ncols: int = 1, height: float | None = None, *, layout="constrained", **kwargs):
    """A new Figure at the current style's width, ``height`` inches tall (capped at
    :data:`MAX_HEIGHT`), with its Axes as ``plt.subplots`` returns them."""
    size = _SIZE.get() or DEFAULT_SIZE
    width = SIZES[size]
    height = min(MAX_HEIGHT, height if height is not None else figure_height(4.0, size))
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), layout=layout, **kwargs)
    fig.irstats_size = size
    fig.irstats_own = True  # made here: its legends may go below it (legend_outside)
    return fig, axes


def new_axes(ax=None, figsize=(6.4, 4.0), *, height: float | None = None):
    """The given Axes, or a new Figure's single Axes.

    The new Figure is as wide as the current :func:`style` (page width outside one);
    ``height`` in inches, or ``figsize``'s height (meant for 6.4 in wide) scaled to that
    width (:func:`figure_height`), never taller than :data:`MAX_HEIGHT`.
    """
    if ax is not None:
        return ax
    if height is None:
        height = figure_height(figsize[1])
    _, ax = new_figure(height=height)
    return ax


def line_width(factor: float = 1.0) -> float:
    """``factor`` × the style's line width (1 pt in a column, 1.3 pt on a page): explicit
    widths scale with the figure's size."""
    return factor * matplotlib.rcParams["lines.linewidth"]


def marker_size(factor: float = 1.0) -> float:
    """``factor`` × the style's marker size (3.5 pt in a column, 4.5 pt on a page)."""
    return factor * matplotlib.rcParams["lines.markersize"]


def figure_function(draw):
    """Make ``draw`` a figure function of the paper style: it takes ``size=`` (``"column"``
    or ``"page"``; default: the enclosing :func:`style`'s, else :data:`DEFAULT_SIZE`), draws
    inside :func:`style` and leaves no text below :data:`MIN_FONT_SIZE` (:func:`finish`)."""
    import inspect

    @functools.wraps(draw)
    def wrapper(*args, size: str | None = None, **kwargs):
        with style(size):
            drawn = draw(*args, **kwargs)
            finish(drawn)
        return drawn

    signature = inspect.signature(draw)
    wrapper.__signature__ = signature.replace(parameters=[
        *signature.parameters.values(),
        inspect.Parameter("size", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="str | None")])
    return wrapper


def _figure_of(drawn):
    import numpy as np

    if isinstance(drawn, np.ndarray):
        drawn = drawn.flat[0]
    return getattr(drawn, "figure", drawn)


def finish(drawn) -> None:
    """Raise every text of the figure below :data:`MIN_FONT_SIZE` to it — tick labels that
    are made when the figure is drawn too — and remember the figure's size for :func:`save`."""
    from matplotlib.text import Text

    fig = _figure_of(drawn)
    if not hasattr(fig, "irstats_size"):
        fig.irstats_size = _SIZE.get() or DEFAULT_SIZE
    for text in fig.findobj(Text):
        if text.get_fontsize() < MIN_FONT_SIZE:
            text.set_fontsize(MIN_FONT_SIZE)
    for ax in fig.axes:
        labels = (ax.xaxis.label, ax.yaxis.label) if ax.get_label() != "<colorbar>" else ()
        for title in (ax.title, ax._left_title, ax._right_title, *labels):
            title.set_wrap(True)  # a long title or axis label breaks into lines within the figure instead of leaving it
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            for which, labels in (("major", axis.get_majorticklabels()), ("minor", axis.get_minorticklabels())):
                if labels:
                    size = labels[0].get_fontsize()
                else:
                    from matplotlib.font_manager import FontProperties

                    default = matplotlib.rcParams["xtick.labelsize" if name == "x" else "ytick.labelsize"]
                    size = FontProperties(size=default).get_size_in_points()
                ax.tick_params(axis=name, which=which, labelsize=max(MIN_FONT_SIZE, size))
    if fig.get_layout_engine() is not None and any(a.get_label() == "<colorbar>" for a in fig.axes):
        # a colorbar's tick labels take their final text only once drawn; the constrained layout of
        # the first drawing places its label from the text before, one tick label's width too far
        # right (off the canvas of a column-wide figure). One layout pass now settles them.
        fig.draw_without_rendering()


def legend_outside(ax, handles=None, labels=None, *, title: str | None = None, ncols: int | None = None,
                   where: str | None = None):
    """A legend outside the data, never over curves: below the figure's Axes when irstats
    made the figure for this one Axes (a figure legend in the constrained layout), right of
    the Axes otherwise (``where="right"``). Columns are as many as fit the width. Returns the Legend."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    elif labels is None:
        labels = [h.get_label() for h in handles]
    if not handles:
        return None
    fig = ax.figure
    own = getattr(fig, "irstats_own", False) and len([a for a in fig.axes if a.get_label() != "<colorbar>"]) == 1
    if where is None:
        where = "below" if own else "right"
    if where == "below":
        if ncols is None:
            ncols = legend_columns(fig, labels, fig.get_figwidth() * 72 - 12)
        return fig.legend(handles, labels, loc="outside lower center", ncols=ncols, title=title)
    return ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                     ncols=ncols or 1, title=title)


def legend_columns(fig, labels, width_pt: float, fontsize: float | None = None) -> int:
    """How many columns a legend of ``labels`` can have within ``width_pt`` points (at least 1)."""
    from matplotlib.font_manager import FontProperties

    fontsize = fontsize or FontProperties(size=matplotlib.rcParams["legend.fontsize"]).get_size_in_points()
    widths = [text_width(label, fontsize) for label in labels]
    handle = (matplotlib.rcParams["legend.handlelength"] + matplotlib.rcParams["legend.handletextpad"]) * fontsize
    gap = matplotlib.rcParams["legend.columnspacing"] * fontsize
    import numpy as np

    for ncols in range(min(len(labels), 6), 1, -1):
        # matplotlib fills the columns as np.array_split does
        columns = [max(part, default=0.0) for part in np.array_split(np.array(widths), ncols)]
        if sum(columns) + ncols * handle + (ncols - 1) * gap + 2 * fontsize <= width_pt:
            return ncols
    return 1


def text_width(text: str, fontsize: float) -> float:
    """The width in points of ``text`` (its longest line) in the style's font at ``fontsize``."""
    from matplotlib.font_manager import FontProperties

    props = FontProperties(size=fontsize)
    widest = 0.0
    for line in str(text).split("\n"):
        width, _, _ = _text_measure().get_text_width_height_descent(line, props, ismath=False)
        widest = max(widest, width)
    return widest


_TEXT = None


def _text_measure():
    global _TEXT
    if _TEXT is None:
        from matplotlib.textpath import TextToPath

        _TEXT = TextToPath()
    return _TEXT


def index_ticks(ax, axis: str, labels, *, rotation: float = 0.0, spacing: float = 1.3, every: bool = False):
    """Label positions 0, 1, … of ``axis`` ("x" or "y") with ``labels``, as many as fit:
    every k-th, k chosen when the figure is drawn so that neighbouring labels keep
    ``spacing`` × their font size apart at the Axes' drawn length (none overlap, at any size).
    ``every``: each position labelled (system names: the figure was made tall enough for them,
    :func:`rows_height`)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter

    labels = [str(label) for label in labels]
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(FixedLocator(range(len(labels))) if every else _ThinnedIndexLocator(len(labels), spacing))
    target.set_major_formatter(FuncFormatter(lambda value, _: _label_at(labels, value)))
    ax.tick_params(axis=axis, which="minor", bottom=False, left=False)
    if rotation:
        ax.tick_params(axis=axis, labelrotation=rotation)


#: The room a row of text takes, as a multiple of its font size (a label and the gap to the next).
ROW_SPACING = 1.3


def rows_height(n: int, extra: float = 1.2, fontsize: float = MIN_FONT_SIZE) -> float:
    """The height (inches) of a figure whose y axis names ``n`` rows, one label each at
    ``fontsize`` with :data:`ROW_SPACING`, plus ``extra`` inches for the axis label, ticks and
    title; capped at :data:`MAX_HEIGHT`."""
    return min(MAX_HEIGHT, n * ROW_SPACING * fontsize / 72.0 + extra)


def rows_fit(n: int, extra: float = 1.2, fontsize: float = MIN_FONT_SIZE) -> bool:
    """Whether ``n`` row labels fit a figure of at most :data:`MAX_HEIGHT` (else they are thinned)."""
    return n * ROW_SPACING * fontsize / 72.0 + extra <= MAX_HEIGHT


def short_label(label: str, limit: int) -> str:
    """``label`` cut to ``limit`` characters with an ellipsis (the full name is in the figure's CSV).

    >>> short_label("a_very_long_run_name_from_a_track", 16)
    'a_very_long_run…'
    """
    label = str(label)
    return label if len(label) <= limit else label[:max(1, limit - 1)] + "…"


#: The longest tick label, in characters, at each width; longer names are shortened (full in the CSV).
LABEL_CHARACTERS = {"column": 24, "page": 40}


@functools.cache
def _lean_embedded_fonts() -> None:
    """Embed fonts in PDF and PostScript without their OpenType layout tables.

    A figure's PDF embeds a subset of each font it uses (TrueType, :data:`_COMMON`), which
    matplotlib makes with fontTools; most of that time (a third of writing a report figure's
    PDF) goes to subsetting the GSUB, GPOS and GDEF tables, which no PDF or PostScript reader
    uses: the text is placed glyph by glyph, matplotlib having done the layout already. So they
    are dropped, for matplotlib's subsetting only (fontTools' own ``Options`` elsewhere are
    untouched), and the files are smaller too. Should a later matplotlib make its subsets
    another way, this does nothing and the fonts are embedded as before."""
    try:
        from fontTools import subset
        from matplotlib.backends import _backend_pdf_ps
    except ImportError:
        return
    if getattr(_backend_pdf_ps, "subset", None) is not subset:
        return

    class _LeanOptions(subset.Options):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.drop_tables = [*self.drop_tables, "GSUB", "GPOS", "GDEF"]

    lean = types.ModuleType("irstats_lean_subset", subset.__doc__)  # fontTools.subset with the options above
    lean.__dict__.update({k: v for k, v in vars(subset).items() if not k.startswith("__")}, Options=_LeanOptions)
    _backend_pdf_ps.subset = lean


def _keep_layout(fig) -> None:
    """Freeze the layout the figure was just drawn with, so that the next format (the
    report's PDF beside its PNG) is the same drawing and its constrained layout — most of a
    figure's drawing time after the fonts — is not computed again. Positions are kept as
    fractions of the figure and text sizes in points, so they hold at any resolution. Only
    :func:`save` calls it, on a figure nobody draws on any more (it closes it)."""
    fig.set_layout_engine("none")  # a placeholder keeping the colorbars' layout where there are some
    fig.irstats_laid_out = True


def _label_at(labels, value) -> str:
    i = int(round(value))
    return labels[i] if 0 <= i < len(labels) and abs(value - i) < 1e-6 else ""


class _ThinnedIndexLocator(matplotlib.ticker.Locator):
    """Every k-th of the positions 0..n−1, k the smallest that leaves each label room for
    ``spacing`` × its font size along the axis as drawn."""

    def __init__(self, n: int, spacing: float):
        self.n, self.spacing = n, spacing

    def __call__(self):
        import numpy as np

        if self.n == 0:
            return np.array([])
        axis = self.axis
        ax = axis.axes
        length = (ax.bbox.width if axis is ax.xaxis else ax.bbox.height) * 72.0 / ax.figure.dpi
        fontsize = axis.majorTicks[0].label1.get_fontsize()  # (the tick labels' own size; making them calls us)
        span = abs(np.diff(axis.get_view_interval())[0]) or self.n
        per_label = length * 1.0 / span  # points per position
        step = max(1, math.ceil(self.spacing * fontsize / per_label)) if per_label > 0 else 1
        return np.arange(0, self.n, step)

    def tick_values(self, vmin, vmax):
        import numpy as np

        return np.arange(0, self.n)


def save(ax_or_fig, path: str | os.PathLike, data: pl.DataFrame | None = None, dpi: int = 150,
         also: tuple[str, ...] = ()) -> Path:
    """Write the figure to ``path`` (PNG, SVG, PDF or (E)PS by suffix) and ``data`` as CSV beside it.

    The CSV has the image's name with ``.csv``: the numbers behind the picture, so a figure
    can be re-drawn or checked without re-running the experiment. ``also`` names more
    suffixes to write the same figure to (the report writes ``(".pdf",)`` beside each PNG).
    The figure is written in :func:`style` (of the size it was drawn at), so PDF and PS embed
    TrueType fonts, never Type 3, and no text is below 7 pt.
    """
    import io

    from irstats.io.output import figure_format, write_bytes, write_text

    fig = getattr(ax_or_fig, "figure", ax_or_fig)
    path = Path(path)
    _lean_embedded_fonts()
    try:
        with style(getattr(fig, "irstats_size", None)):
            if not getattr(fig, "irstats_laid_out", False):
                finish(fig)
            for target in (path, *(path.with_suffix(suffix) for suffix in also)):
                fmt = figure_format(target)
                buffer = io.BytesIO()  # rendered in memory, then written atomically: a failure leaves no partial file
                fig.savefig(buffer, dpi=dpi, format=fmt)
                write_bytes(target, buffer.getvalue())
                _keep_layout(fig)
        if data is not None:
            write_text(path.with_suffix(".csv"), data.write_csv())
    finally:
        plt.close(fig)
    return path
