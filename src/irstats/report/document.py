"""The report as a document: sections of paragraphs, lists, tables and figures, rendered twice.

The same blocks render to Markdown (figures as PNG files beside it) and to one
self-contained HTML page (figures embedded as data URIs, styles inline, no scripts, no
network). Every table is also written as TSV and as a LaTeX float, linked next to the table
in both, so each number can be checked or reused. Every table is laid out by one printer,
:func:`display` (an :class:`irstats.render.Table`), in all three formats.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field, replace
from pathlib import Path

import polars as pl


@dataclass
class Text:
    """A paragraph (plain text; ``code`` spans in backticks are kept as code)."""

    text: str


@dataclass
class Items:
    """A bulleted list of short paragraphs (e.g. the findings, one sentence each)."""

    items: list[str]


@dataclass
class Note:
    """A warning the reader should not miss: it names the measure, the systems or topics, and
    what to do."""

    text: str


@dataclass
class Table:
    """A table: written to ``tables/<name>.tsv`` and ``tables/<name>.tex`` and shown with
    numbers rounded to ``digits``.

    ``display`` is what the page shows when it differs from the data (e.g. "mean [low, high]"
    text cells); the TSV always holds ``frame``. With ``markers``, a text cell ``value^m``
    shows ``m`` as a superscript (HTML ``<sup>``, LaTeX ``$^{m}$``). ``fold=False`` keeps a
    long table open on the page.

    Counts print as whole numbers: a number column whose every value is whole (one above 1)
    is shown without decimals (decided from the data, see :func:`whole_columns`); ``counts`` names
    further columns, or rows by the label in their first column (a long table of
    statistics), that hold counts (shown rounded to whole numbers: e.g. the shared pairs of
    an agreement table and their interval). ``columns`` gives a column a display header and a
    cell writer (as :data:`irstats.render.SUMMARY_COLUMNS`); ``blank_nan`` shows an
    undefined number as an empty cell (e.g. ε of a method that has none).
    """

    name: str
    frame: pl.DataFrame
    caption: str = ""
    digits: int = 4
    display: pl.DataFrame | None = None
    markers: bool = False
    fold: bool = True
    counts: tuple[str, ...] = ()
    columns: dict | None = None
    blank_nan: bool = False
    paper: pl.DataFrame | None = None  # the page-wide LaTeX's cells, when they differ from ``display``
    paper_caption: str | None = None
    column: pl.DataFrame | None = None  # a one-column version, written as ``<name>-column.tex``
    column_caption: str | None = None

    @property
    def shown(self) -> pl.DataFrame:
        return self.frame if self.display is None else self.display


@dataclass
class Figure:
    """A figure already saved as PNG at ``path`` (with its data as CSV beside it)."""

    name: str
    path: Path
    caption: str = ""

    @property
    def pdf(self) -> Path:
        """The same figure as PDF (vector, for a paper), written beside the PNG."""
        return self.path.with_suffix(".pdf")


@dataclass
class Section:
    title: str
    anchor: str
    blocks: list = field(default_factory=list)

    def add(self, *blocks) -> "Section":
        """Append ``blocks``; a None (a figure this report does not draw) is left out."""
        self.blocks.extend(block for block in blocks if block is not None)
        return self


def drop_repeated_notes(sections: list[Section]) -> None:
    """Keep each warning once, in the first section that raised it (a later section that
    meets the same thing, e.g. the same zero-variance topic, does not repeat it)."""
    seen: set[str] = set()
    for section in sections:
        kept = []
        for block in section.blocks:
            if isinstance(block, Note):
                if block.text in seen:
                    continue
                seen.add(block.text)
            kept.append(block)
        section.blocks = kept


def numbered(sections: list[Section]) -> list[tuple[str, Section]]:
    """Each section with its heading, numbered in document order ("1. The collection")."""
    return [(f"{i}. {section.title}", section) for i, section in enumerate(sections, start=1)]


def write_tables(sections: list[Section], out_dir: Path) -> None:
    """Write every table of the document as ``tables/<name>.tsv`` and ``tables/<name>.tex``."""
    from irstats.io.output import write_text

    (out_dir / "tables").mkdir(parents=True, exist_ok=True)
    for section in sections:
        for block in section.blocks:
            if isinstance(block, Table):
                write_text(out_dir / "tables" / f"{block.name}.tsv", block.frame.write_csv(separator="\t"),
                           fsync=False)
                write_text(out_dir / "tables" / f"{block.name}.tex", latex_table(block), fsync=False)
                if block.column is not None:
                    write_text(out_dir / "tables" / f"{block.name}-column.tex", latex_column_table(block),
                               fsync=False)


def whole_columns(frame: pl.DataFrame) -> set[str]:
    """The float columns of counts: every defined value a whole number, and one above 1 (a
    column of only 0 and 1 may be shares). Printed without decimals. Decided from the data,
    so a column of averages that are not all whole keeps its decimals."""
    import numpy as np

    whole = set()
    for name, dtype in frame.schema.items():
        if not dtype.is_float():
            continue
        values = frame.get_column(name).drop_nulls().to_numpy()
        values = values[np.isfinite(values)]
        if values.size and bool(np.all(values == np.round(values))) and np.abs(values).max() > 1:
            whole.add(name)
    return whole


def _whole_cell(value: float):
    """A count as a cell: rounded to a whole number, never ``-0``."""
    from irstats.render import number_cell

    return number_cell(float(round(value)) + 0.0, whole=True)


def display(table: Table):
    """The report table as a display table (:class:`irstats.render.Table`): the one printer of
    every table the report writes, in HTML, Markdown and LaTeX. p-value columns in the one
    notation, counts as whole numbers (:func:`whole_columns`, ``counts``), markers
    (``value^m``) as superscripts, snake_case headers with spaces (LaTeX: display names)."""
    import math

    from irstats.render import (MARKER_LATEX, Cell, Table as DisplayTable, latex_escape, latex_header, marker_latex,
                                number_cell, p_cell)

    frame = table.shown
    styles = dict(table.columns or {})
    whole = whole_columns(frame) | {c for c in table.counts if c in frame.columns}
    label_column = frame.columns[0] if frame.width and frame.schema[frame.columns[0]] == pl.String else None
    count_rows = {c for c in table.counts if c not in frame.columns}
    rows = []
    for row in frame.iter_rows():
        count_row = label_column is not None and row[0] in count_rows
        cells = []
        for name, value in zip(frame.columns, row):
            writer = styles.get(name, (name, None))[1]
            if isinstance(value, float) and math.isnan(value):
                cells.append(Cell("" if table.blank_nan else "nan"))
            elif writer is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
                cells.append(writer(value))
            elif isinstance(value, float) and (name == "p" or name.startswith("p_")):
                cells.append(p_cell(value))
            elif isinstance(value, float) and math.isinf(value):
                cells.append(number_cell(value, table.digits))
            elif isinstance(value, float) and (name in whole or count_row):
                cells.append(_whole_cell(value))
            elif isinstance(value, float):
                cells.append(number_cell(value, table.digits))
            elif table.markers and isinstance(value, str) and "^" in value:
                body, _, tail = value.partition("^")
                mark = tail[:1] if tail[:1] in MARKER_LATEX else ""
                rest = tail[len(mark):]
                cells.append(Cell(value, latex_escape(body) + (marker_latex(mark) if mark else latex_escape("^"))
                                  + latex_escape(rest)))
            else:
                cells.append(Cell("" if value is None else str(value)))
        rows.append(cells)
    header = [styles[c][0] if c in styles else c.replace("_", " ") for c in frame.columns]
    right = [d.is_numeric() or (table.markers and k > 0 and d == pl.String) for k, d in enumerate(frame.dtypes)]
    return DisplayTable.of(header, rows, right, title=table.caption,
                           header_latex=[latex_header(c) for c in frame.columns],
                           label=f"tab:{table.name.replace('_', '-')}")


def latex_table(table: Table) -> str:
    """The table as paper-ready LaTeX (:meth:`irstats.render.Table.latex`); a table with a
    ``paper`` form: page-wide floats that fit 7 in unshrunk (:meth:`irstats.render.Table.latex_fitted`)."""
    if table.paper is not None:
        paper = replace(table, display=table.paper, caption=table.paper_caption or table.caption)
        return display(paper).latex_fitted("page")
    return display(table).latex()


def latex_column_table(table: Table) -> str:
    """The ``column`` form of a table as floats that fit a 3.33 in column unshrunk."""
    column = replace(table, display=table.column, caption=table.column_caption or table.caption)
    return display(column).latex_fitted("column", label=f"tab:{table.name.replace('_', '-')}-column")


def render_markdown(title: str, sections: list[Section], out_dir: Path) -> str:
    """The document as Markdown; figure paths are relative to ``out_dir``."""
    lines = [f"# {title}", ""]
    lines += [f"- [{heading}](#{s.anchor})" for heading, s in numbered(sections)] + [""]
    for heading, section in numbered(sections):
        lines += [f'<a id="{section.anchor}"></a>', "", f"## {heading}", ""]
        for block in section.blocks:
            if isinstance(block, Text):
                lines += [block.text, ""]
            elif isinstance(block, Items):
                lines += [f"- {item}" for item in block.items] + [""]
            elif isinstance(block, Note):
                lines += [f"> **Warning.** {block.text}", ""]
            elif isinstance(block, Table):
                files = f"[TSV]({table_file(block, 'tsv')}) · [LaTeX]({table_file(block, 'tex')})"
                lines += [f"*{block.caption}* ({files})" if block.caption else f"({files})", ""]
                lines += [*_markdown_table(block), ""]
            elif isinstance(block, Figure):
                rel = block.path.relative_to(out_dir)
                lines += [f"![{block.caption or block.name}]({rel.as_posix()})", ""]
                if block.caption:
                    lines += [f"*{block.caption}* (data: `{rel.with_suffix('.csv').as_posix()}`, "
                              f"PDF: `{rel.with_suffix('.pdf').as_posix()}`)", ""]
    return "\n".join(lines)


def table_file(table: Table, suffix: str) -> str:
    """Where the table's TSV (``tsv``) or LaTeX (``tex``) is, relative to the report folder."""
    return f"tables/{table.name}.{suffix}"


def _markdown_table(table: Table) -> list[str]:
    shown = display(table)

    def escape(text: str) -> str:
        return text.replace("|", "\\|")

    header = "| " + " | ".join(escape(h) for h in shown.header) + " |"
    rule = "|" + "|".join("---:" if right else "---" for right in shown.right) + "|"
    rows = ["| " + " | ".join(_marked(cell.text, table, escape) for cell in row) + " |" for row in shown.rows]
    return [header, rule, *rows]


def _marked(text: str, table: Table, escape) -> str:
    """``value^m`` as ``value<sup>m</sup>`` in a table with markers; other text escaped as given."""
    if table.markers and "^" in text:
        body, mark = text.rsplit("^", 1)
        return f"{escape(body)}<sup>{escape(mark)}</sup>"
    return escape(text)


_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2329;background:#fafbfc}
main{max-width:1100px;margin:0 auto;padding:1.5rem 2rem 4rem}
h1{font-size:1.8rem;margin-bottom:.2rem}h2{margin-top:2.5rem;border-bottom:2px solid #d0d7de;padding-bottom:.3rem}
nav ul{columns:2;padding-left:1.2rem}details{margin:.3rem 0 1rem}summary{cursor:pointer;color:#0b5cad}nav a{color:#0b5cad;text-decoration:none}
table{border-collapse:collapse;margin:.5rem 0 1.2rem;font-size:.85rem;background:#fff}
th,td{border:1px solid #d0d7de;padding:.25rem .45rem;text-align:right}th{background:#eef1f4}
td:first-child,th:first-child{text-align:left}
table.wide{font-size:.78rem}table.wide th,table.wide td{padding:.2rem .3rem}
.caption{font-size:.85rem;color:#57606a;margin:.2rem 0 .2rem}
.note{background:#fff8c5;border-left:4px solid #d4a72c;padding:.5rem .8rem;margin:.8rem 0}
figure{margin:1rem 0 1.5rem;background:#fff;border:1px solid #d0d7de;padding:.5rem}
figure img{max-width:100%;height:auto;display:block}figcaption{font-size:.85rem;color:#57606a}
.scroll{overflow-x:auto;max-width:100%}code{background:#eef1f4;padding:0 .2rem;border-radius:3px}sup{line-height:0}
.files{font-size:.8rem;margin-left:.3rem;white-space:nowrap}.files a,section a{color:#0b5cad}
section li{margin:.25rem 0}
"""


def render_html(title: str, subtitle: str, sections: list[Section]) -> str:
    """The document as one self-contained HTML page (figures embedded, no external links)."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body><main>",
             f"<h1>{html.escape(title)}</h1><p class=\"caption\">{html.escape(subtitle)}</p>",
             "<nav><ul>" + "".join(f'<li><a href="#{s.anchor}">{html.escape(heading)}</a></li>'
                                   for heading, s in numbered(sections))
             + "</ul></nav>"]
    for heading, section in numbered(sections):
        parts.append(f'<section id="{section.anchor}"><h2>{html.escape(heading)}</h2>')
        for block in section.blocks:
            if isinstance(block, Text):
                parts.append(f"<p>{_inline(block.text)}</p>")
            elif isinstance(block, Items):
                parts.append("<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in block.items) + "</ul>")
            elif isinstance(block, Note):
                parts.append(f'<div class="note"><strong>Warning.</strong> {_inline(block.text)}</div>')
            elif isinstance(block, Table):
                parts.append(_html_table(block))
            elif isinstance(block, Figure):
                data = base64.b64encode(block.path.read_bytes()).decode("ascii")
                parts.append(f'<figure data-name="{html.escape(block.name)}"><img alt="{html.escape(block.caption)}" '
                             f'src="data:image/png;base64,{data}"><figcaption>{_inline(block.caption)}</figcaption>'
                             "</figure>")
        parts.append("</section>")
    parts.append("</main></body></html>")
    return "\n".join(parts)


def _inline(text: str) -> str:
    """Escape text; render `code` spans and links within the page, ``[text](#anchor)`` (as
    Markdown writes them)."""
    import re

    pieces = html.escape(text, quote=False).split("`")
    out = "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(pieces))
    return re.sub(r"\[([^\]]+)\]\((#[\w-]+)\)", r'<a href="\2">\1</a>', out)


def _html_table(table: Table) -> str:
    shown = display(table)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in shown.header)
    body = "".join("<tr>" + "".join(f"<td>{_marked(cell.text, table, html.escape)}</td>" for cell in row)
                   + "</tr>" for row in shown.rows)
    name = html.escape(table.name)
    files = (f'<span class="files" data-table="{name}"><a href="{html.escape(table_file(table, "tsv"))}">TSV</a> · '
             f'<a href="{html.escape(table_file(table, "tex"))}">LaTeX</a></span>')
    caption = _inline(table.caption)
    wide = ' class="wide"' if len(shown.header) > WIDE_TABLE else ""
    grid = (f'<div class="scroll"><table data-name="{name}"{wide}><thead><tr>{head}</tr>'
            f"</thead><tbody>{body}</tbody></table></div>")
    if table.fold and len(shown.rows) > LONG_TABLE:  # long tables fold away (no script: <details>)
        return f"<details><summary>{caption}, {len(shown.rows)} rows {files}</summary>{grid}</details>"
    return f'<p class="caption">{caption} {files}</p>{grid}'


#: Tables with more rows than this are folded in the HTML page (shown in full in Markdown).
LONG_TABLE = 40
#: Tables with more columns than this are set tighter in the HTML page, so that they fit it.
WIDE_TABLE = 12
