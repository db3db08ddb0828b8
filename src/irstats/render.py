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

import math
from dataclasses import dataclass
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


#: The symbols irstats' tables and captions use that pdflatex's text fonts lack, as math.
_LATEX_SYMBOLS = {
    "Δ": r"$\Delta$", "†": r"$^{\dagger}$", "‡": r"$^{\ddagger}$", "*": r"$^{*}$", "α": r"$\alpha$",
    "β": r"$\beta$", "γ": r"$\gamma$", "ε": r"$\varepsilon$", "κ": r"$\kappa$", "λ": r"$\lambda$",
    "μ": r"$\mu$", "π": r"$\pi$", "ρ": r"$\rho$", "σ": r"$\sigma$", "τ": r"$\tau$", "φ": r"$\phi$",
    "χ": r"$\chi$", "ω": r"$\omega$", "Φ": r"$\Phi$", "θ": r"$\theta$", "²": r"$^{2}$", "±": r"$\pm$",
    "×": r"$\times$", "≥": r"$\geq$", "≤": r"$\leq$", "≈": r"$\approx$", "→": r"$\rightarrow$",
    "∞": r"$\infty$", "·": r"$\cdot$", "√": r"$\surd$", "−": "--", "–": "--", "—": "---", "…": r"\dots",
    "<": "$<$", ">": "$>$", "|": r"$|$", "₁": r"$_{1}$", "₂": r"$_{2}$", "′": r"$'$", "″": r"$''$",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters; Greek letters and math symbols become math."""
    return "".join(_LATEX_SPECIAL.get(ch) or _LATEX_SYMBOLS.get(ch, ch) for ch in str(text))


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


# ----------------------------------------------------------------------------- display tables

@dataclass(frozen=True)
class Cell:
    """One cell of a display table: its text (aligned text, Markdown, HTML), its LaTeX (None:
    the text escaped), and whether it is the best of its column (bold where that is the
    convention)."""

    text: str
    latex: str | None = None
    bold: bool = False

    def as_latex(self) -> str:
        body = self.latex if self.latex is not None else latex_escape(self.text)
        return rf"\textbf{{{body}}}" if self.bold and body else body

    def as_markdown(self) -> str:
        body = markdown_escape(self.text)
        return f"**{body}**" if self.bold and body else body


def number_cell(value, digits: int = 4, *, sign: bool = False, marker: str = "", whole: bool = False) -> Cell:
    """A number as a cell: fixed decimals (``whole``: no decimals), a typeset minus sign in
    LaTeX, ``sign`` for an explicit + on differences, ``marker`` (*, †) as a superscript."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return Cell("")
    text = f"{value:+.{digits}f}" if sign else f"{value:.0f}" if whole else f"{value:.{digits}f}"
    latex = text.replace("-", "$-$", 1) if text.startswith("-") else text
    sup = {"*": r"$^{*}$", "†": r"$^{\dagger}$"}
    return Cell(text + marker, latex + "".join(sup.get(ch, latex_escape(ch)) for ch in marker))


def fixed_column(values, digits: int = 4) -> pl.Series:
    """``f"{v:.{digits}f}"`` of every value of a column (:func:`number_cell`'s text; ``digits=0``
    for the whole numbers), as a polars String series, without a Python call per value: numpy
    rounds each value times 10^digits to a whole number (ties to even, as printf and Python)
    and polars writes it as ``[-]units.decimals``. That product is rounded once in float64;
    where the rounding could put it on the other side of a half (within a few units of its last
    place of one), and for NaN, infinities and huge values, the value is printed by Python
    instead, whose decimal rounding is exact."""
    import numpy as np
    import polars as pl

    values = np.asarray(values, dtype=np.float64)
    scale = 10 ** digits
    scaled = values * scale
    with np.errstate(invalid="ignore"):
        doubtful = ~(np.abs(scaled) < 2.0 ** 40) | (
            np.abs(scaled - np.floor(scaled) - 0.5) <= np.abs(scaled) * 2.0 ** -50)
        whole = np.where(doubtful, 0, np.abs(np.rint(scaled))).astype(np.int64)
    frame = pl.DataFrame({"whole": whole, "negative": np.signbit(values)})
    sign = pl.when(pl.col("negative")).then(pl.lit("-")).otherwise(pl.lit(""))
    if digits:
        parts = [sign, (pl.col("whole") // scale).cast(pl.String), pl.lit("."),
                 (pl.col("whole") % scale).cast(pl.String).str.zfill(digits)]
    else:
        parts = [sign, pl.col("whole").cast(pl.String)]
    texts = frame.select(pl.concat_str(parts)).to_series()
    at = np.flatnonzero(doubtful)
    if len(at):
        texts = texts.scatter(at, [f"{v:.{digits}f}" for v in values[at].tolist()])
    return texts


def p_cell(p) -> Cell:
    """A p-value in one notation everywhere: three decimals, ``< 0.001`` below; blank if undefined."""
    if p is None or not math.isfinite(p):
        return Cell("")
    if p < 0.001:
        return Cell("< 0.001", r"$<$\,0.001")
    return Cell(f"{p:.3f}")


#: The first line of every LaTeX table irstats writes.
LATEX_NEEDS = "% needs \\usepackage{booktabs} and \\usepackage{adjustbox}\n"


def latex_float(table, rows: Sequence[Sequence[Cell]], k: int, n_parts: int, *, caption: str | None = None,
                label: str | None = None, wide: bool | None = None) -> str:
    """Part ``k`` of ``n_parts`` of a table's LaTeX (:meth:`Table.latex`): one float of
    ``rows``, its lines each ending in a newline. ``table``: a :class:`Table` or anything with
    its header, alignment, title, legend, LaTeX header and label (a streamed table). ``rows``
    may be the rows' LaTeX lines already laid out instead (``a & b \\\\``, strings)."""
    wide = len(table.header) > 7 if wide is None else wide
    spec = "".join("r" if a else "l" for a in table.right)
    head = table.header_latex if table.header_latex is not None else tuple(latex_header(h) for h in table.header)
    text = caption if caption is not None else " ".join(
        _sentence(line) for line in (table.title or "", *table.legend) if line)
    env = "table*" if wide else "table"
    label = label or table.label
    out = [rf"\begin{{{env}}}[t]", r"\centering", r"\small"]
    more = f" (part {k} of {n_parts})" if n_parts > 1 else ""
    if text:
        out.append(rf"\caption{{{latex_escape(text)}{more}}}")
    out.append(rf"\label{{{label}{f'-{k}' if k > 1 else ''}}}")
    out += [r"\begin{adjustbox}{max width=\linewidth}", rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
            " & ".join(head) + r" \\", r"\midrule"]
    if rows and isinstance(rows[0], str):  # lines already laid out (a streamed table's columns)
        out += rows
    else:
        out += [" & ".join(c.as_latex() for c in r) + r" \\" for r in rows]
    out += [r"\bottomrule", r"\end{tabular}", r"\end{adjustbox}", rf"\end{{{env}}}"]
    return "".join(f"{line}\n" for line in out)


@dataclass(frozen=True)
class Table:
    """A table for people: header, rows of cells, alignment, title and legend, laid out in
    every format by one method each. Results build one (:meth:`irstats.result.Result.table`);
    machine formats (TSV, CSV, JSON) are written from the result's frame instead."""

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    right: tuple[bool, ...]
    title: str | None = None
    legend: tuple[str, ...] = ()
    header_latex: tuple[str, ...] | None = None
    label: str = "tab:irstats"

    @classmethod
    def of(cls, header: Sequence[str], rows: Sequence[Sequence[Cell | str]], right: Sequence[bool], *,
           title: str | None = None, legend: Sequence[str] = (), header_latex: Sequence[str] | None = None,
           label: str = "tab:irstats") -> "Table":
        def cell(v) -> Cell:
            return v if isinstance(v, Cell) else Cell(str(v))

        return cls(tuple(header), tuple(tuple(cell(v) for v in r) for r in rows), tuple(right), title,
                   tuple(legend), None if header_latex is None else tuple(header_latex), label)

    def select(self, columns: Sequence[str] | None) -> "Table":
        """The table with only ``columns`` (by header, in the order given); None: all of them.
        A paper table without, say, its p-values or intervals."""
        if columns is None:
            return self
        missing = [c for c in columns if c not in self.header]
        if missing:
            from irstats.errors import ArgumentError

            raise ArgumentError(f"no column {missing[0]!r} in this table; it has {', '.join(self.header)}",
                                argument="columns")
        keep = [self.header.index(c) for c in columns]
        head = None if self.header_latex is None else tuple(self.header_latex[k] for k in keep)
        return Table(tuple(self.header[k] for k in keep), tuple(tuple(r[k] for k in keep) for r in self.rows),
                     tuple(self.right[k] for k in keep), self.title, self.legend, head, self.label)

    def text(self) -> str:
        """Aligned text: the title, the table, the legend underneath."""
        table = text_table(self.header, [[c.text for c in r] for r in self.rows], right=self.right, title=self.title)
        return table + ("\n" + "\n".join(self.legend) + "\n" if self.legend else "")

    def markdown(self) -> str:
        """GitHub-flavoured Markdown: the title in bold, the table, the legend as lines."""
        align = _alignment(len(self.header), None, self.right)
        out = [f"**{markdown_escape(self.title)}**", ""] if self.title else []
        out += ["| " + " | ".join(markdown_escape(h) for h in self.header) + " |",
                "|" + "|".join("---:" if a else ":---" for a in align) + "|"]
        out += ["| " + " | ".join(c.as_markdown() for c in r) + " |" for r in self.rows]
        if self.legend:
            out += [""] + [markdown_escape(line) + "  " for line in self.legend]
        return "\n".join(out).rstrip() + "\n"

    def latex(self, *, caption: str | None = None, label: str | None = None, wide: bool | None = None) -> str:
        """A paper-ready float: ``table`` (``table*`` when ``wide``; by default when the table
        has more than 7 columns) with the caption (title, then the legend) and a label above a
        booktabs ``tabular`` with right-aligned numbers, scaled down only if it is wider than
        the column (adjustbox's ``max width``). Needs booktabs and adjustbox."""
        # a table longer than a page is split into floats of LATEX_ROWS rows, each its own part
        parts = [self.rows[k:k + LATEX_ROWS] for k in range(0, max(len(self.rows), 1), LATEX_ROWS)]
        return LATEX_NEEDS + "".join(latex_float(self, rows, k, len(parts), caption=caption, label=label, wide=wide)
                                     for k, rows in enumerate(parts, start=1))

    def html(self) -> str:
        """For notebooks: the title, the table as HTML (numbers right-aligned, best in bold),
        the legend in small print."""
        import html

        def td(cell: Cell, right: bool) -> str:
            body = html.escape(cell.text)
            body = f"<b>{body}</b>" if cell.bold and body else body
            return f'<td style="text-align:{"right" if right else "left"}">{body}</td>'

        head = "".join(f'<th style="text-align:{"right" if a else "left"}">{html.escape(h)}</th>'
                       for h, a in zip(self.header, self.right))
        body = "".join("<tr>" + "".join(td(c, a) for c, a in zip(r, self.right)) + "</tr>" for r in self.rows)
        title = f"<p><b>{html.escape(self.title)}</b></p>" if self.title else ""
        legend = "".join(f"<br>{html.escape(line)}" for line in self.legend)
        return (f"<div>{title}<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
                + (f"<small>{legend[4:]}</small>" if legend else "") + "</div>")


#: Most rows of one LaTeX float: longer tables are split so that each part fits a page.
LATEX_ROWS = 40

#: Display names of the column and method names irstats writes in snake case.
DISPLAY_NAMES = {
    "am": "AM", "gm": "GM", "egm": r"$\varepsilon$GM", "gm_trec_eval": "GM (trec\\_eval)", "hm": "HM",
    "ehm": r"$\varepsilon$HM", "al": "AL", "logit": "logit", "median": "median", "std_am": "std AM",
    "p_value": "$p$", "p_adjusted": "adj. $p$", "p": "$p$", "ci_low": "CI low", "ci_high": "CI high",
    "delta": r"$\Delta$", "n": "$n$", "sd": "sd", "tau": r"$\tau$", "phi": r"$\phi$", "epsilon": r"$\varepsilon$",
}


def latex_header(name: str) -> str:
    """A column name as a paper prints it: known names by :data:`DISPLAY_NAMES` (also after a
    ``measure:`` prefix), other snake_case names with spaces."""
    if name in DISPLAY_NAMES:
        return DISPLAY_NAMES[name]
    if ":" in name:
        measure, _, method = name.rpartition(":")
        return f"{latex_escape(measure)} {latex_header(method)}"
    if "@" in name or "(" in name or any(ch.isupper() for ch in name):  # a measure: its own name
        return latex_escape(name)
    return latex_escape(name.replace("_", " "))


def _sentence(line: str) -> str:
    """A caption's piece ending as a sentence does."""
    line = line.strip()
    return line if line.endswith((".", "!", "?", ":")) else line + "."


#: How the summary tables of the experiments name and write their usual columns: (header,
#: writer). Columns not listed: their own name, numbers with the table's decimals.
SUMMARY_COLUMNS: dict[str, tuple[str, Callable[[float], Cell]]] = {
    "epsilon": ("ε", lambda v: Cell(f"{v:g}")),
    "epsilon_a": ("epsilon_a", lambda v: Cell(f"{v:g}")),
    "epsilon_b": ("epsilon_b", lambda v: Cell(f"{v:g}")),
    "pct_zero": ("%zero", lambda v: number_cell(v, 1)),
    "pct_low": ("%low", lambda v: number_cell(v, 1)),
    "p": ("p", lambda v: p_cell(v)),
    "t": ("t", lambda v: number_cell(v, 2)),
    "hard_easy": ("hard/easy", None), "middle_rest": ("middle/rest", None), "mean_delta": ("mean Δ", None),
    "share_positive": ("Δ>0", None), "share_negative": ("Δ<0", None),
}


def table_of_frame(frame: pl.DataFrame, *, title: str | None = None, legend: Sequence[str] = (),
                   formats: Mapping[str, Callable[[object], str]] | None = None, digits: int = 4,
                   columns: Mapping[str, tuple[str, Callable | None]] | None = None, blank_nan: bool = False,
                   label: str = "tab:irstats") -> Table:
    """A display table of a plain frame: numbers with ``digits`` decimals (typeset minus signs
    in LaTeX), other values as text. ``columns``: a header and a cell writer per column name
    (e.g. :data:`SUMMARY_COLUMNS`); ``blank_nan``: an undefined number is an empty cell, not
    ``nan``."""
    formats = dict(formats or {})
    styles = dict(columns or {})
    names = frame.columns
    header = [styles.get(c, (c, None))[0] for c in names]
    right = [frame.schema[c].is_numeric() for c in names]
    rows = []
    for row in frame.iter_rows():
        cells_ = []
        for name, value in zip(names, row):
            writer = styles.get(name, (name, None))[1]
            if name in formats:
                cells_.append(Cell(formats[name](value)))
            elif isinstance(value, float) and math.isnan(value):
                cells_.append(Cell("" if blank_nan else "nan"))
            elif writer is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
                cells_.append(writer(value))
            elif isinstance(value, float):
                cells_.append(number_cell(value, digits))
            else:
                cells_.append(Cell("" if value is None else str(value)))
        rows.append(cells_)
    return Table.of(header, rows, right, title=title, legend=legend, label=label)


def render(frame: pl.DataFrame, fmt: str = "table", *, title: str | None = None,
           formats: Mapping[str, Callable[[object], str]] | None = None, digits: int = 4) -> str:
    """``frame`` in the format ``fmt`` (one of :data:`FORMATS`); TSV/CSV/JSON in full precision."""
    if fmt in ("tsv", "csv"):
        return delimited(frame, "\t" if fmt == "tsv" else ",")
    if fmt == "json":
        rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                for r in frame.to_dicts()]
        import json  # here: the start-up of every command that prints text imports render

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
