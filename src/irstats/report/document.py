"""The report as a document: sections of paragraphs, tables and figures, rendered twice.

The same blocks render to Markdown (figures as PNG files beside it) and to one
self-contained HTML page (figures embedded as data URIs, styles inline, no scripts, no
network). Every table is also written as TSV, so each number can be checked or reused.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl


@dataclass
class Text:
    """A paragraph (plain text; ``code`` spans in backticks are kept as code)."""

    text: str


@dataclass
class Note:
    """A warning the reader should not miss."""

    text: str


@dataclass
class Table:
    """A table: written to ``tables/<name>.tsv`` and ``tables/<name>.tex`` and shown with
    numbers rounded to ``digits``.

    ``display`` is what the page shows when it differs from the data (e.g. "mean [low, high]"
    text cells); the TSV always holds ``frame``. With ``markers``, a text cell ``value^m``
    shows ``m`` as a superscript (HTML ``<sup>``, LaTeX ``$^{m}$``). ``fold=False`` keeps a
    long table open on the page.
    """

    name: str
    frame: pl.DataFrame
    caption: str = ""
    digits: int = 4
    display: pl.DataFrame | None = None
    markers: bool = False
    fold: bool = True

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
        self.blocks.extend(blocks)
        return self


def _cell(value, digits: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if value != value:
            return "nan"
        return f"{value:.{digits}f}"
    return str(value)


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


def display(table: Table):
    """The report table as a display table (:class:`irstats.render.Table`): the one printer of
    every table irstats writes. p-value columns in the one notation, markers (``value^m``) as
    superscripts."""
    import math

    from irstats.render import Cell, Table as DisplayTable, latex_escape, number_cell, p_cell

    frame = table.shown
    rows = []
    for row in frame.iter_rows():
        cells = []
        for name, value in zip(frame.columns, row):
            if isinstance(value, float) and (name == "p" or name.startswith("p_")) and not math.isnan(value):
                cells.append(p_cell(value))
            elif isinstance(value, float):
                cells.append(Cell("nan") if math.isnan(value) else number_cell(value, table.digits))
            elif table.markers and isinstance(value, str) and "^" in value:
                body, mark = value.rsplit("^", 1)
                cells.append(Cell(value, f"{latex_escape(body)}$^{{{latex_escape(mark).strip('$')}}}$"))
            else:
                cells.append(Cell("" if value is None else str(value)))
        rows.append(cells)
    return DisplayTable.of(list(frame.columns), rows, [d.is_numeric() for d in frame.dtypes], title=table.caption,
                           label=f"tab:{table.name.replace('_', '-')}")


def latex_table(table: Table) -> str:
    """The table as paper-ready LaTeX (:meth:`irstats.render.Table.latex`)."""
    return display(table).latex()


def render_markdown(title: str, sections: list[Section], out_dir: Path) -> str:
    """The document as Markdown; figure paths are relative to ``out_dir``."""
    lines = [f"# {title}", ""]
    lines += [f"- [{heading}](#{s.anchor})" for heading, s in numbered(sections)] + [""]
    for heading, section in numbered(sections):
        lines += [f'<a id="{section.anchor}"></a>', "", f"## {heading}", ""]
        for block in section.blocks:
            if isinstance(block, Text):
                lines += [block.text, ""]
            elif isinstance(block, Note):
                lines += [f"> **Warning.** {block.text}", ""]
            elif isinstance(block, Table):
                if block.caption:
                    lines += [f"*{block.caption}* (`tables/{block.name}.tsv`)", ""]
                lines += [*_markdown_table(block), ""]
            elif isinstance(block, Figure):
                rel = block.path.relative_to(out_dir)
                lines += [f"![{block.caption or block.name}]({rel.as_posix()})", ""]
                if block.caption:
                    lines += [f"*{block.caption}* (data: `{rel.with_suffix('.csv').as_posix()}`, "
                              f"PDF: `{rel.with_suffix('.pdf').as_posix()}`)", ""]
    return "\n".join(lines)


def _markdown_table(table: Table) -> list[str]:
    frame = table.shown
    header = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(_marked(_cell(v, table.digits).replace("|", "\\|"), table, str)
                              for v in row) + " |"
            for row in frame.iter_rows()]
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
th,td{border:1px solid #d0d7de;padding:.25rem .55rem;text-align:right}th{background:#eef1f4}
td:first-child,th:first-child{text-align:left}
.caption{font-size:.85rem;color:#57606a;margin:.2rem 0 .2rem}
.note{background:#fff8c5;border-left:4px solid #d4a72c;padding:.5rem .8rem;margin:.8rem 0}
figure{margin:1rem 0 1.5rem;background:#fff;border:1px solid #d0d7de;padding:.5rem}
figure img{max-width:100%;height:auto;display:block}figcaption{font-size:.85rem;color:#57606a}
.scroll{overflow-x:auto;max-width:100%}code{background:#eef1f4;padding:0 .2rem;border-radius:3px}sup{line-height:0}
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
    """Escape text; render `code` spans."""
    pieces = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(pieces))


def _html_table(table: Table) -> str:
    frame = table.shown
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{_marked(_cell(v, table.digits), table, html.escape)}</td>" for v in row)
                   + "</tr>" for row in frame.iter_rows())
    caption = (f'{_inline(table.caption)} (<code>tables/{html.escape(table.name)}.tsv</code>)'
               if table.caption else f"<code>tables/{html.escape(table.name)}.tsv</code>")
    grid = (f'<div class="scroll"><table data-name="{html.escape(table.name)}"><thead><tr>{head}</tr>'
            f"</thead><tbody>{body}</tbody></table></div>")
    if table.fold and frame.height > LONG_TABLE:  # long tables fold away (no script: <details>)
        return f"<details><summary>{caption}, {frame.height} rows</summary>{grid}</details>"
    return f'<p class="caption">{caption}</p>{grid}'


#: Tables with more rows than this are folded in the HTML page (shown in full in Markdown).
LONG_TABLE = 40
