"""A display table too long to hold as cells, laid out a block of rows at a time.

:class:`irstats.render.Table` holds every row as :class:`~irstats.render.Cell` objects: for
the per-topic scores of 10^5 topics × 95 measures that is ten million cells, gigabytes
before a line is printed. :class:`StreamedTable` is the same table given as a function that
makes its rows block by block (called again for each pass over them); its printers yield the
text of :meth:`Table.text`, :meth:`Table.markdown` and :meth:`Table.latex` in pieces, byte for
byte the same (tests/test_streaming.py holds them equal), with at most one block of cells in
memory. Aligned text needs every column's width before its first row: it makes the rows twice,
once to measure them.

A table with many rows can give its blocks as columns too (``columns``: for a format, blocks of
one polars String series per column, each cell's text already written and escaped for that
format): the printers then lay a block out a column at a time (padding, separators, the
LaTeX row ends) with no Python call per row; the text is the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence, cast

from irstats.render import COLUMN_GAP_CHARACTERS, LATEX_NEEDS, LATEX_ROWS, Cell, latex_float, markdown_escape

if TYPE_CHECKING:
    import polars as pl

#: One block of a streamed table: rows of cells.
Block = Sequence[Sequence[Cell]]

#: One block of a streamed table as columns: a polars String series per column, of one length.
ColumnBlock = Sequence["pl.Series"]


@dataclass(frozen=True)
class StreamedTable:
    """A display table whose rows come from ``blocks()``, a block at a time (``n_rows`` of them
    in all: a LaTeX table is split into floats of :data:`~irstats.render.LATEX_ROWS` rows, each
    captioned "part k of n"). ``columns``, optional: the same blocks as columns, ``columns(fmt)``
    for ``fmt`` in ``text``, ``markdown`` and ``latex`` (the cells' text, Markdown and LaTeX).
    The other fields are :class:`~irstats.render.Table`'s."""

    header: tuple[str, ...]
    right: tuple[bool, ...]
    blocks: Callable[[], Iterable[Block]]
    n_rows: int
    title: str | None = None
    legend: tuple[str, ...] = ()
    header_latex: tuple[str, ...] | None = None
    label: str = "tab:irstats"
    columns: Callable[[str], Iterable[ColumnBlock]] | None = None

    def format(self, fmt: str) -> Iterator[str]:
        """The pieces of ``fmt`` (``table``, ``markdown`` or ``latex``)."""
        printers = {"table": self.text, "markdown": self.markdown, "latex": self.latex}
        return printers[fmt]()

    def widths(self) -> list[int]:
        """Each column's width in aligned text: its longest cell or header (one pass over the rows)."""
        widths = [len(h) for h in self.header]
        if self.columns is not None:
            for block in self.columns("text"):
                # polars types a Series' max as any value it may hold; a length's is an int (None: empty)
                widths = [max(w, cast(int, c.str.len_chars().max()) or 0) for w, c in zip(widths, block)]
            return widths
        for cell_block in self.blocks():
            for row in cell_block:
                for c, cell in enumerate(row):
                    if len(cell.text) > widths[c]:
                        widths[c] = len(cell.text)
        return widths

    def text(self) -> Iterator[str]:
        """:meth:`Table.text` in pieces: the title, the header, a rule, the rows, the legend."""
        widths = self.widths()
        right = self.right

        def line(texts: Sequence[str]) -> str:
            return "  ".join(t.rjust(w) if a else t.ljust(w) for t, w, a in zip(texts, widths, right)).rstrip()

        yield "".join(f"{part}\n" for part in ([self.title] if self.title else []) + [
            line(self.header), "  ".join("-" * w for w in widths)])
        if self.columns is not None:
            for block in self.columns("text"):
                yield _rows(block, "  ", end="\n", padding=list(zip(widths, right))).str.join("").item()
        else:
            yield from self._text_rows(line)
        if self.legend:
            yield "\n" + "\n".join(self.legend) + "\n"

    def _text_rows(self, line: Callable[[Sequence[str]], str]) -> Iterator[str]:
        for block in self.blocks():
            yield "".join(line([c.text for c in row]) + "\n" for row in block)

    def markdown(self) -> Iterator[str]:
        """:meth:`Table.markdown` in pieces."""
        head = [f"**{markdown_escape(self.title)}**", ""] if self.title else []
        head += ["| " + " | ".join(markdown_escape(h) for h in self.header) + " |",
                 "|" + "|".join("---:" if a else ":---" for a in self.right) + "|"]
        # Table.markdown joins its lines with newlines and strips the end: rows and the header end
        # in "|", so only the legend's trailing blanks are stripped
        yield "\n".join(head)
        if self.columns is not None:
            for block in self.columns("markdown"):
                yield _rows(block, " | ", "\n| ", " |").str.join("").item()
        else:
            yield from self._markdown_rows()
        tail = "\n" + "\n".join(["", *(markdown_escape(line) + "  " for line in self.legend)]) if self.legend else ""
        yield tail.rstrip() + "\n"

    def _markdown_rows(self) -> Iterator[str]:
        for block in self.blocks():
            yield "".join("\n| " + " | ".join(c.as_markdown() for c in row) + " |" for row in block)

    def latex(self, *, caption: str | None = None, label: str | None = None, wide: bool | None = None) -> Iterator[str]:
        """:meth:`Table.latex` in pieces: a float of at most LATEX_ROWS rows at a time."""
        n_parts = max(-(-self.n_rows // LATEX_ROWS), 1)
        # the whole table's width decides every float's text size, as for a Table (one pass of its text)
        characters = sum(self.widths()) + COLUMN_GAP_CHARACTERS * len(self.header)

        def part(k: int, rows: list) -> str:
            return latex_float(self, rows, k, n_parts, caption=caption, label=label, wide=wide, characters=characters)

        yield LATEX_NEEDS
        k = 1
        rows: list[Any] = []  # LaTeX lines (from column blocks) or rows of cells
        if self.columns is not None:  # each row's LaTeX line made a block at a time, the floats cut from them
            for block in self.columns("latex"):
                lines = _rows(block, " & ", end=r" \\").to_list()
                pieces = []
                while len(rows) + len(lines) >= LATEX_ROWS:
                    cut = LATEX_ROWS - len(rows)
                    pieces.append(part(k, rows + lines[:cut]))
                    k, rows, lines = k + 1, [], lines[cut:]
                rows += lines
                if pieces:
                    yield "".join(pieces)
            blocks: Iterable = ()
        else:
            blocks = self.blocks()
        for block in blocks:
            pieces = []
            for row in block:
                rows.append(row)
                if len(rows) == LATEX_ROWS:
                    pieces.append(part(k, rows))
                    k, rows = k + 1, []
            if pieces:
                yield "".join(pieces)
        if rows or k == 1:  # the last, shorter float; an empty table is one float with no row
            yield part(k, rows)


def _rows(block: ColumnBlock, separator: str, start: str = "", end: str = "", padding=None) -> pl.Series:
    """Each row of a block of columns as ``start`` + its cells joined by ``separator`` + ``end``;
    ``padding``: each column's (width, right-aligned), and the row's trailing blanks stripped,
    as :meth:`StreamedTable.text` lays out a line."""
    import polars as pl

    if padding is not None:
        block = [c.str.pad_start(w) if right else c.str.pad_end(w) for c, (w, right) in zip(block, padding)]
    row = pl.concat_str(pl.all(), separator=separator)
    if padding is not None:
        row = row.str.strip_chars_end()
    return pl.DataFrame({str(k): c for k, c in enumerate(block)}).select(
        pl.concat_str([pl.lit(start), row, pl.lit(end)]).alias("row")).to_series()


__all__ = ["Block", "ColumnBlock", "StreamedTable"]
