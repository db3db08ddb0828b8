"""A display table too long to hold as cells, laid out a block of rows at a time.

:class:`irstats.render.Table` holds every row as :class:`~irstats.render.Cell` objects: for
the per-topic scores of 10^5 topics × 95 measures that is ten million cells, gigabytes
before a line is printed. :class:`StreamedTable` is the same table given as a function that
makes its rows block by block (called again for each pass over them); its printers yield the
text of :meth:`Table.text`, :meth:`Table.markdown` and :meth:`Table.latex` in pieces, byte for
byte the same (tests/test_streaming.py holds them equal), with at most one block of cells in
memory. Aligned text needs every column's width before its first row: it makes the rows twice,
once to measure them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from irstats.render import LATEX_NEEDS, LATEX_ROWS, Cell, latex_float, markdown_escape

#: One block of a streamed table: rows of cells.
Block = Sequence[Sequence[Cell]]


@dataclass(frozen=True)
class StreamedTable:
    """A display table whose rows come from ``blocks()``, a block at a time (``n_rows`` of them
    in all: a LaTeX table is split into floats of :data:`~irstats.render.LATEX_ROWS` rows, each
    captioned "part k of n"). The other fields are :class:`~irstats.render.Table`'s."""

    header: tuple[str, ...]
    right: tuple[bool, ...]
    blocks: Callable[[], Iterable[Block]]
    n_rows: int
    title: str | None = None
    legend: tuple[str, ...] = ()
    header_latex: tuple[str, ...] | None = None
    label: str = "tab:irstats"

    def format(self, fmt: str) -> Iterator[str]:
        """The pieces of ``fmt`` (``table``, ``markdown`` or ``latex``)."""
        printers = {"table": self.text, "markdown": self.markdown, "latex": self.latex}
        return printers[fmt]()

    def widths(self) -> list[int]:
        """Each column's width in aligned text: its longest cell or header (one pass over the rows)."""
        widths = [len(h) for h in self.header]
        for block in self.blocks():
            for row in block:
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
        for block in self.blocks():
            yield "".join(line([c.text for c in row]) + "\n" for row in block)
        if self.legend:
            yield "\n" + "\n".join(self.legend) + "\n"

    def markdown(self) -> Iterator[str]:
        """:meth:`Table.markdown` in pieces."""
        head = [f"**{markdown_escape(self.title)}**", ""] if self.title else []
        head += ["| " + " | ".join(markdown_escape(h) for h in self.header) + " |",
                 "|" + "|".join("---:" if a else ":---" for a in self.right) + "|"]
        # Table.markdown joins its lines with newlines and strips the end: rows and the header end
        # in "|", so only the legend's trailing blanks are stripped
        yield "\n".join(head)
        for block in self.blocks():
            yield "".join("\n| " + " | ".join(c.as_markdown() for c in row) + " |" for row in block)
        tail = "\n" + "\n".join(["", *(markdown_escape(line) + "  " for line in self.legend)]) if self.legend else ""
        yield tail.rstrip() + "\n"

    def latex(self, *, caption: str | None = None, label: str | None = None, wide: bool | None = None) -> Iterator[str]:
        """:meth:`Table.latex` in pieces: a float of at most LATEX_ROWS rows at a time."""
        n_parts = max(-(-self.n_rows // LATEX_ROWS), 1)

        def part(k: int, rows: list[Sequence[Cell]]) -> str:
            return latex_float(self, rows, k, n_parts, caption=caption, label=label, wide=wide)

        yield LATEX_NEEDS
        k, rows = 1, []
        for block in self.blocks():
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


__all__ = ["Block", "StreamedTable"]
