"""One renderer for every table irstats prints: aligned text, Markdown, LaTeX (booktabs),
TSV/CSV and JSON.

Commands and result objects *shape* a table (which columns, how each number is written)
and hand the header and the rows of text cells to this module, which only lays them out:

>>> print(text_table(["system", "AP"], [["bm25", "0.2500"], ["dense", "0.3125"]]), end="")
system      AP
------  ------
bm25    0.2500
dense   0.3125
>>> print(markdown_table(["system", "AP"], [["bm25", "0.2500"]]), end="")
| system | AP |
|:---|---:|
| bm25 | 0.2500 |
>>> print(latex_table(["system", "AP"], [["bm_25", "0.2500"]]), end="")
\\begin{tabular}{lr}
\\toprule
system & AP \\\\
\\midrule
bm\\_25 & 0.2500 \\\\
\\bottomrule
\\end{tabular}

:func:`render` does the shaping for a plain frame (numbers with fixed decimals, NaN as
``nan``) and dispatches on the format name.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl

#: Every format :func:`render` knows.
FORMATS = ("table", "markdown", "latex", "tsv", "csv", "json")


def _alignment(n_columns: int, left: int | None, right: Sequence[bool] | None) -> list[bool]:
    """Per column: True = right-aligned. ``right`` wins; else the first ``left`` are left-aligned."""
    if right is not None:
        return list(right)
    return [c >= (1 if left is None else left) for c in range(n_columns)]


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int | None = 1,
               right: Sequence[bool] | None = None, title: str | None = None) -> str:
    """An aligned plain-text table: a header, a rule of dashes, the rows (trailing blanks cut)."""
    align = _alignment(len(header), left, right)
    widths = [max(len(str(r[c])) for r in [header, *rows]) for c in range(len(header))]

    def line(cells):
        return "  ".join(str(v).rjust(w) if a else str(v).ljust(w)
                         for v, w, a in zip(cells, widths, align)).rstrip()

    out = ([title] if title else []) + [line(header), "  ".join("-" * w for w in widths), *(line(r) for r in rows)]
    return "\n".join(out) + "\n"


def markdown_escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("*", "\\*")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int | None = 1,
                   right: Sequence[bool] | None = None) -> str:
    """A GitHub-flavoured Markdown table (``|`` and ``*`` escaped)."""
    align = _alignment(len(header), left, right)
    out = ["| " + " | ".join(markdown_escape(h) for h in header) + " |",
           "|" + "|".join("---:" if a else ":---" for a in align) + "|"]
    out += ["| " + " | ".join(markdown_escape(v) for v in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters; Δ, *, † and α become math."""
    out = "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))
    return (out.replace("Δ", r"$\Delta$").replace("†", r"$^{\dagger}$").replace("*", r"$^{*}$")
            .replace("α", r"$\alpha$").replace("−", "--").replace("…", r"\dots").replace("<", "$<$")
            .replace(">", "$>$"))


def latex_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int | None = 1,
                right: Sequence[bool] | None = None, escape_header: bool = True,
                cell: Callable[[str], str] = latex_escape) -> str:
    """A booktabs ``tabular`` (needs ``\\usepackage{booktabs}``)."""
    align = _alignment(len(header), left, right)
    spec = "".join("r" if a else "l" for a in align)
    head = [latex_escape(h) for h in header] if escape_header else list(header)
    out = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(head) + r" \\", r"\midrule"]
    out += [" & ".join(cell(v) for v in r) + r" \\" for r in rows]
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"


def format_number(value: float) -> str:
    """Shortest round-trip text of a float; ``nan`` for an undefined value."""
    value = float(value)
    return "nan" if math.isnan(value) else repr(value)


def delimited(frame: pl.DataFrame, separator: str) -> str:
    """A frame as TSV/CSV text: floats in full precision, NaN as ``nan``."""
    cells = []
    for name in frame.columns:
        series = frame.get_column(name)
        if series.dtype.is_float():
            cells.append([format_number(v) for v in series.fill_null(math.nan).to_list()])
        else:
            cells.append([str(v) for v in series.to_list()])
    lines = [separator.join(frame.columns)]
    lines.extend(separator.join(row) for row in zip(*cells))
    return "\n".join(lines) + "\n"


def cells(frame: pl.DataFrame, formats: Mapping[str, Callable[[object], str]] | None = None,
          digits: int = 4) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, text rows and right-alignment of a frame: floats with ``digits`` decimals (NaN
    as ``nan``), other values as text; ``formats`` overrides a column's writing."""
    formats = dict(formats or {})
    columns = frame.columns

    def default(value) -> str:
        if isinstance(value, float):
            return "nan" if math.isnan(value) else f"{value:.{digits}f}"
        return "" if value is None else str(value)

    writers = [formats.get(c, default) for c in columns]
    rows = [[w(v) for w, v in zip(writers, row)] for row in frame.iter_rows()]
    right = [frame.schema[c].is_numeric() for c in columns]
    return list(columns), rows, right


def render(frame: pl.DataFrame, fmt: str = "table", *, title: str | None = None,
           formats: Mapping[str, Callable[[object], str]] | None = None, digits: int = 4) -> str:
    """``frame`` in the format ``fmt`` (one of :data:`FORMATS`); TSV/CSV/JSON in full precision."""
    if fmt in ("tsv", "csv"):
        return delimited(frame, "\t" if fmt == "tsv" else ",")
    if fmt == "json":
        rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                for r in frame.to_dicts()]
        return json.dumps(rows, indent=1, default=str) + "\n"
    header, rows, right = cells(frame, formats, digits)
    if fmt == "table":
        return text_table(header, rows, right=right, title=title)
    if fmt == "markdown":
        return (f"**{markdown_escape(title)}**\n\n" if title else "") + markdown_table(header, rows, right=right)
    if fmt == "latex":
        return latex_table(header, rows, right=right)
    from irstats.errors import InputError

    raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
