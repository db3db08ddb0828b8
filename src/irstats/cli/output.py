"""Printing helpers for the command line."""

from __future__ import annotations

import sys
import click
import numpy as np


def emit_text(text: str, output: str | None) -> None:
    """Write text to a file (atomically: see :mod:`irstats.io.output`), or to stdout."""
    if output:
        from irstats.io.output import write_text

        write_text(output, text)
    else:
        sys.stdout.write(text)


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


def format_means_table(scores) -> str:
    """Systems × measures table of means, sorted by the first measure, best first."""
    items = list(scores.values())
    systems = items[0].systems
    means = np.column_stack([m.means() for m in items])
    order = np.argsort(-np.nan_to_num(means[:, 0], nan=-np.inf), kind="stable")
    header = ["system", *(m.measure for m in items)]
    rows = []
    for i in order:
        cells = [systems[i]]
        for m, value in zip(items, means[i]):
            cells.append(f"{value:.0f}" if m.summary == "sum" else f"{value:.4f}")
        rows.append(cells)
    lines = _aligned(header, rows, left=1)
    n_topics = items[0].num_topics()
    lines.append(f"\n{len(systems)} systems; topics per system: {int(n_topics.min())}"
                 + (f"–{int(n_topics.max())}" if n_topics.max() != n_topics.min() else ""))
    return "\n".join(lines) + "\n"


def format_per_topic_table(scores) -> str:
    """Systems × topics rows with one column per measure (``eval -q`` in the table format)."""
    items = list(scores.values())
    header = ["system", "topic", *(m.measure for m in items)]
    rows = []
    for i, system in enumerate(items[0].systems):
        for j, topic in enumerate(items[0].topics):
            values = [m.values[i, j] for m in items]
            if all(np.isnan(v) for v in values):
                continue  # topic not evaluated for this system
            rows.append([system, topic, *(_cell(m, v) for m, v in zip(items, values))])
    return "\n".join(_aligned(header, rows, left=2)) + "\n"


def _cell(matrix, value: float) -> str:
    if np.isnan(value):
        return "-"
    return f"{value:.0f}" if matrix.summary == "sum" else f"{value:.4f}"


def _aligned(header: list[str], rows: list[list[str]], left: int) -> list[str]:
    """Columns padded to a common width: the first ``left`` to the left, numbers to the right."""
    widths = [max(len(str(r[c])) for r in [header, *rows]) for c in range(len(header))]

    def line(cells):
        return "  ".join(v.ljust(w) if c < left else v.rjust(w) for c, (v, w) in enumerate(zip(cells, widths)))

    return [line(header), "  ".join("-" * w for w in widths), *(line(r) for r in rows)]
