"""Printing helpers for the command line."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Sequence
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


#: How ``--format``'s help names each format; a word more where the name alone does not say it.
FORMAT_WORDS = {
    "table": "table (aligned text)", "markdown": "markdown", "latex": "latex", "tsv": "tsv", "csv": "csv",
    "json": "json", "jsonl": "jsonl (a record a line)", "parquet": "parquet (with -o)",
    "trec_eval": "trec_eval (its own layout)",
}


def format_help(formats: Sequence[str], of: str | None = None, note: str | None = None) -> str:
    """``--format``'s help, in one wording for every command: ``Output format[ of OF]: table
    (aligned text), markdown … or json[; NOTE].``"""
    words = [FORMAT_WORDS[f] for f in formats]
    listed = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
    return f"Output format{f' of {of}' if of else ''}: {listed}{f'; {note}' if note else ''}."


#: ``-o``'s help where the file holds what the command prints otherwise.
WRITE_TO_FILE = "Write to FILE, not stdout."


def output_file_option(function=None, *, help: str = WRITE_TO_FILE, required: bool = False):
    """``-o/--output FILE`` (the command receives ``output``): a file checked when the command
    line is parsed (:class:`OutputFile`); ``help`` where the file holds something else than
    the formatted result."""

    def decorate(function):
        return click.option("-o", "--output", type=OutputFile(), required=required, help=help)(function)

    return decorate if function is None else decorate(function)


def output_options(function=None, *, formats: Sequence[str] | None = None, of: str | None = None,
                   note: str | None = None, output_help: str = WRITE_TO_FILE, systems: bool = True,
                   checked_by_command: bool = False):
    """``--format`` and ``-o/--output`` (the command receives ``fmt`` and ``output``) and, where
    the formats include LaTeX, the table options (:func:`table_options`; ``systems=False``: without
    ``--systems``). ``formats``: the choices, the first the default (every result's formats by
    default); ``of``, ``note``: what is formatted and a note, in ``--format``'s help
    (:func:`format_help`); ``output_help``: ``-o``'s help where the file is not the formatted
    output; ``checked_by_command``: the command checks the format itself (``compare``: a line
    naming it), so the option takes any text."""

    def decorate(function):
        from irstats.result import FORMATS

        choices = tuple(formats or FORMATS)
        wrapped = table_options(function, systems=systems) if "latex" in choices else function
        wrapped = output_file_option(wrapped, help=output_help)
        return click.option("--format", "fmt", default=choices[0], show_default=True,
                            **({"metavar": "FORMAT"} if checked_by_command else {"type": click.Choice(choices)}),
                            help=format_help(choices, of, note))(wrapped)

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


def spare_inputs(ctx: click.Context) -> None:
    """Refuse, before the command computes anything, an output that would replace or be read
    as one of its inputs (:func:`irstats.io.output.check_outputs_spare_inputs`, by file identity).

    Run for every command by :mod:`irstats.cli.group`. The outputs are the parameters typed
    :class:`OutputFile` (a figure's data file ``.csv`` beside it included) or
    :class:`OutputFolder`, and standard output when it is a regular file (``>> q.qrels``); the
    inputs are every other parameter that names a path — a file, a folder of runs, a glob —
    whatever its name (``QRELS``, ``--runs``, ``--gold``, ``--factors``, ``--replicate``…).
    """
    import stat

    from irstats.io.output import check_outputs_spare_inputs

    outputs: list[tuple[str, str, str]] = []
    inputs: list[tuple[str, str]] = []
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if value is None or isinstance(value, bool):
            continue
        label = _label(param)
        if isinstance(param.type, OutputFile):
            outputs.append((label, value, "file"))
            if param.type.figure:
                from pathlib import Path

                outputs.append((f"{label} (its data)", str(Path(value).with_suffix(".csv")), "file"))
        elif isinstance(param.type, OutputFolder):
            outputs.append((label, value, "folder"))
        elif isinstance(param.type, (click.Path, click.types.StringParamType)):
            inputs.extend((label, text) for text in _texts(value))
    try:
        if stat.S_ISREG(os.fstat(sys.stdout.fileno()).st_mode):
            outputs.append(("standard output", "/dev/stdout", "file"))
    except (OSError, ValueError, AttributeError):  # no descriptor: captured in-process, or closed
        pass
    if outputs and inputs:
        check_outputs_spare_inputs(outputs, inputs)


def in_cli_words(error: Exception, command: click.Command) -> None:
    """Reword an irstats error raised by the API for the command line that reached it
    (:func:`cli_text`); the argument an :class:`~irstats.errors.ArgumentError` names is
    reworded wherever it stands as a word."""
    text = getattr(error, "message", None) or (str(error.args[0]) if error.args else "")
    if not text:
        return
    text = cli_text(text, command, getattr(error, "argument", None))
    if hasattr(error, "message"):
        error.message = text
    path, line = getattr(error, "path", None), getattr(error, "line", None)  # InputError's, ResourceError's
    where = ""
    if path is not None:
        where = f"{path}:{line}: " if line is not None else f"{path}: "
    error.args = (where + text,)


def cli_text(text: str, command: click.Command, argument: str | None = None) -> str:
    """A message of the API in the words of ``command``'s options: a keyword argument
    (``lam``, ``rbo_p=0.9``, ``ties='docno'``, ``complete=True``) becomes the option the user
    typed (``--lambda``, ``--rbo-p 0.9``, ``--ties docno``, ``-c/--complete``); where the
    message already gives the option in parentheses (``complete=True (-c)``), that is kept
    alone; ``argument`` (an error's keyword) is reworded wherever it stands as a word."""
    import re

    options = {param.name: param for param in command.params if isinstance(param, click.Option)}
    if "float32" in options:
        options.setdefault("score_dtype", options["float32"])
    if not options:
        return text

    def option_of(name: str) -> str:  # a flag by all its spellings (-c/--complete), a value by its long one
        param = options[name]
        longs = [o for o in param.opts if o.startswith("--")]
        return "/".join(param.opts) if param.is_flag or not longs else longs[0]

    def keyword(match: re.Match) -> str:
        name, value, given = match.group(1), match.group(2).strip("'\""), match.group(4)
        if given:
            return given
        if options[name].is_flag:
            return option_of(name) if value == "True" else f"no {option_of(name)}"
        return f"{option_of(name)} {value}"

    names = "|".join(re.escape(name) for name in options)
    text = re.sub(rf"(?<![\w-])({names})=('[^']*'|\"[^\"]*\"|[^\s,;)]+)( \((?:[^)]*?: )?(-[^)]*)\))?", keyword, text)
    if argument in options:
        text = re.sub(rf"(?<![\w-]){re.escape(argument)}(?![\w-])", option_of(argument), text)
        if "none" in (options[argument].metavar or ""):  # -M N|none: Python's None is the word none there
            text = text.replace("(or None ", "(or 'none' ")
    return text


def _label(param: click.Parameter) -> str:
    """A parameter as the user typed it: ``-o/--output``, ``QRELS``."""
    if isinstance(param, click.Option):
        return "/".join(param.opts)
    return (param.metavar or param.name.upper()).strip("[].")


def _texts(value) -> list[str]:
    """The strings of a parameter's value (one, or tuples of them for nargs and multiple)."""
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    if isinstance(value, (tuple, list)):
        return [text for item in value for text in _texts(item)]
    return []


#: The formats :func:`emit_data` writes (a command printing a frame: ``--format``'s choices).
FRAME_FORMATS = ("tsv", "csv", "json", "parquet")


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
