"""Printing helpers for the command line."""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING

import click

from irstats.render import MARKER_PLACES, delimited

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl


def emit_text(text: str, output: str | None) -> None:
    """Write text to a file (atomically: see :mod:`irstats.io.output`), or to stdout."""
    if output:
        from irstats.io.output import write_text

        write_text(output, text)
    else:
        sys.stdout.write(text)


def emit_result(result, fmt: str, output: str | None) -> None:
    """Write a result as ``--format fmt`` asks: its own printer (:meth:`irstats.result.Result.format`),
    cut and captioned as the command's table options say (:func:`table_options`). A data format
    holds the data only; the legend then goes to stderr, one note a line, and so do the notes
    that a LaTeX caption leaves out (discriminative power, blank values)."""
    from irstats.result import DATA_FORMATS

    options = dict(given_table_options())
    if fmt == "latex" and options.get("label") is None and output:
        options["label"] = derived_label(output)
    text = result.format(fmt, **options)
    emit_text(text, output)
    notes = [*result.legend(), *result.remarks()] if fmt in DATA_FORMATS else result.remarks() if fmt == "latex" else []
    for line in notes:
        click.echo(f"irstats: note: {line}", err=True)


def derived_label(output: str) -> str:
    """The LaTeX label of a table written to ``output`` when ``--label`` is not given: ``tab:``
    and the file's stem (``tables/main-results.tex`` → ``tab:main-results``), so that each table
    of a paper has its own."""
    from pathlib import Path

    from irstats.render import label_slug

    return f"tab:{label_slug(Path(output).stem) or 'irstats'}"


#: The click context's key for the table options of the command being run.
_TABLE_OPTIONS = "irstats.table_options"


def given_table_options() -> dict:
    ctx = click.get_current_context(silent=True)
    return dict(ctx.meta.get(_TABLE_OPTIONS, {})) if ctx is not None else {}


def _check_label(ctx, param, value):
    if value is not None:
        from irstats.render import check_label

        check_label(value)
    return value


def _read_names(ctx, param, value):
    if value is None:
        return None
    from irstats.render import read_names

    return read_names(value)


def _read_systems(ctx, param, value):
    if not value:
        return None
    from irstats.render import read_systems

    return read_systems(list(value))


def table_options(function=None, *, systems: bool = True):
    """The options of every command that prints a table for people, for a paper's LaTeX
    (:class:`irstats.render.TableOptions`): ``--caption``, ``--label``, ``--columns``, ``--systems``,
    ``--names``, ``--markers`` and ``--no-legend``. :func:`emit_result` applies them; the command
    itself receives none of them. ``systems=False``: a command whose ``--systems`` means something
    else (its tables have no row per system) gets no ``--systems``."""
    if function is None:
        return functools.partial(table_options, systems=systems)

    @functools.wraps(function)
    def wrapper(*args, caption, label, columns, names, markers, no_legend, **kwargs):
        chosen = kwargs.pop("table_systems", None)
        ctx = click.get_current_context()
        ctx.meta[_TABLE_OPTIONS] = dict(caption=caption, label=label, columns=columns, systems=chosen, names=names,
                                        markers=markers, legend=not no_legend)
        return function(*args, **kwargs)

    options = [
        click.option("--caption", default=None, metavar="TEXT",
                     help="LaTeX: the caption's title sentence (the legend follows it unless --no-legend)."),
        click.option("--label", default=None, metavar="KEY", callback=_check_label,
                     help="LaTeX: the \\label key (default: tab: and the -o file's name, or the kind of table with "
                          "its measures and baseline)."),
        click.option("--columns", default=None, metavar="LIST",
                     help="Only these columns, comma-separated: headers (AP, p(AP)) or kinds (means, delta, p, "
                          "wins)."),
        *([] if not systems else [click.option("--systems", "table_systems", multiple=True, metavar="NAMES|FILE", callback=_read_systems,
                     help="Only these systems' rows, in this order: names separated by commas, or a file of names "
                          "(one a line).")]),
        click.option("--names", default=None, metavar="FILE", callback=_read_names,
                     help="Display names: a file of 'run_id<TAB>Paper Name' lines."),
        click.option("--markers", type=click.Choice(MARKER_PLACES), default="mean", show_default=True,
                     help="Where significance markers (* †) go: on the mean, on Δ, or both."),
        click.option("--no-legend", is_flag=True, help="LaTeX: the caption without its legend sentence."),
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def output_options(function=None, *, formats=None, help: str | None = None, systems: bool = True):
    """``--format`` and ``-o/--output`` (the command receives ``fmt`` and ``output``) and, where
    the formats include LaTeX, the table options (:func:`table_options`; ``systems=False``: without
    ``--systems``). ``formats``: the choices, the first the default (every result's formats by
    default); ``help``: ``--format``'s help."""

    def decorate(function):
        from irstats.result import FORMATS

        choices = tuple(formats or FORMATS)
        wrapped = table_options(function, systems=systems) if "latex" in choices else function
        wrapped = click.option("-o", "--output", type=OutputFile(), help="Write to FILE, not stdout.")(wrapped)
        return click.option("--format", "fmt", default=choices[0], show_default=True, type=click.Choice(choices),
                            help=help or "table (aligned text), markdown, latex, tsv, csv or json.")(wrapped)

    return decorate if function is None else decorate(function)


#: ``--plot-size``: the figure widths of :func:`irstats.plots.style` (not imported here: parsing
#: the command line imports no matplotlib).
PLOT_SIZES = ("column", "page")


def plot_size_option(function):
    """``--plot-size column|page`` for a command that draws figures (``--plot``): the width
    they are drawn at (:func:`irstats.plots.style`); the command receives ``plot_size``."""
    return click.option("--plot-size", "plot_size", type=click.Choice(PLOT_SIZES), default="page", show_default=True,
                        help="Figure width: column (3.33 in) or page (7 in), text at least 7 pt, TrueType fonts in "
                             "PDF.")(function)


class OutputFile(click.ParamType):
    """A file the command will write (``-o``, ``--plot``): checked when the command line is
    parsed, before anything is computed — its folder must exist and be writable, and a
    figure's suffix must be a format matplotlib writes (:func:`irstats.io.output.check_output_file`).
    The value stays a ``str``.
    """

    name = "file"

    def __init__(self, figure: bool = False):
        self.figure = figure

    def convert(self, value, param, ctx):
        from irstats.io.output import check_output_file

        check_output_file(value, figure=self.figure)
        return value


class OutputFolder(click.ParamType):
    """A folder the command writes as a whole (``report -o``, ``demo --out``): checked when
    the command line is parsed — it must be new, empty or made by irstats
    (:func:`irstats.io.output.check_output_folder`). The value stays a ``str``.
    """

    name = "folder"

    def convert(self, value, param, ctx):
        from irstats.io.output import check_output_folder

        check_output_folder(value)
        return value


def emit_data(frame: pl.DataFrame, fmt: str, output: str | None) -> None:
    """A data frame as TSV/CSV (full precision, NaN as ``nan``), JSON records or Parquet
    (which needs ``-o FILE``), to ``output`` or stdout."""
    if fmt in ("tsv", "csv"):
        emit_text(delimited(frame, "\t" if fmt == "tsv" else ","), output)
        return
    from irstats.scores import write_frame

    text = write_frame(frame, output, fmt)
    if text is not None:
        sys.stdout.write(text)


def seed_option(what: str = "numbers"):
    """``--seed`` (a whole number, default 0) of a command that draws at random: the same seed,
    the same ``what``. The command receives ``seed``."""
    return click.option("--seed", default=0, show_default=True, type=int,
                        help=f"Random seed (PCG64): the same seed, the same {what}.")
