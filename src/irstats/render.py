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
from dataclasses import dataclass, replace
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
    """A frame as TSV/CSV text: floats in full precision, NaN as ``nan``, a missing value (null)
    as an empty field — never the text ``None``, which a run or topic could be named."""
    cells = []
    for name in frame.columns:
        series = frame.get_column(name)
        write = format_number if series.dtype.is_float() else str
        cells.append(["" if v is None else write(v) for v in series.to_list()])
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
    return Cell(text + marker, latex + marker_latex(marker))


#: The significance markers as LaTeX superscripts: one style in every table irstats writes.
MARKER_LATEX = {"*": r"$^{*}$", "†": r"$^{\dagger}$", "‡": r"$^{\ddagger}$"}


def marker_latex(marker: str) -> str:
    """A significance marker (``*``, ``†``, ``‡`` or several) as one LaTeX superscript each, never nested.

    >>> print(marker_latex("†"))
    $^{\\dagger}$
    """
    return "".join(MARKER_LATEX.get(ch, latex_escape(ch)) for ch in marker)


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
                label: str | None = None, wide: bool | None = None, legend: bool = True,
                characters: int | None = None) -> str:
    """Part ``k`` of ``n_parts`` of a table's LaTeX (:meth:`Table.latex`): one float of
    ``rows``, its lines each ending in a newline. ``table``: a :class:`Table` or anything with
    its header, alignment, title, legend, LaTeX header and label (a streamed table). ``rows``
    may be the rows' LaTeX lines already laid out instead (``a & b \\\\``, strings).
    ``characters``: the whole table's width in characters of text (:func:`estimated_characters`),
    which decides its text size and, unless ``wide`` is given, ``table`` or ``table*``: every part
    of a table the same."""
    if characters is None:
        characters = estimated_characters(table.header, rows)
    # page-wide only when the table does not fit a column even at 8 pt (7 in, 3.33 in: FITTED_CHARACTERS)
    wide = characters > COLUMN_AT_8PT if wide is None else wide
    spec = "".join("r" if a else "l" for a in table.right)
    head = table.header_latex if table.header_latex is not None else tuple(latex_header(h) for h in table.header)
    text = caption_text(table.title, table.legend if legend else (), caption)
    env = "table*" if wide else "table"
    label = check_label(label) if label is not None else table.label
    out = [rf"\begin{{{env}}}[t]", r"\centering", *latex_text_size(characters, "page" if wide else "column")]
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


def latex_text_size(characters: int, width: str) -> list[str]:
    """The text size of a float: ``\\small`` (9 pt) when a table ``characters`` wide (its widest
    cells: :func:`estimated_characters`) fits ``width`` at that size, else ``\\footnotesize`` (8 pt) with narrower gaps between columns — so that a table
    is never shrunk by adjustbox below 8 pt where it can be helped (it still scales one that
    is wider than that)."""
    if characters <= FITTED_CHARACTERS[width]:
        return [r"\small"]
    return [r"\footnotesize", r"\setlength{\tabcolsep}{4pt}"]


def estimated_characters(header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> int:
    """The width of a table in characters of its text: each column's widest cell (markers as
    half a character: they are superscripts) and the gap to the next."""
    def chars(text: str) -> float:
        return len(text) - sum(0.5 for ch in text if ch in MARKER_LATEX)

    widths = [chars(str(h)) for h in header]
    for row in rows:
        widths = [max(w, chars(c.text)) for w, c in zip(widths, row)]
    return int(sum(widths) + COLUMN_GAP_CHARACTERS * len(widths) + 0.5)


def caption_text(title: str | None, legend: Sequence[str], caption: str | None = None) -> str:
    """A caption as papers write one: the title (or the ``caption`` the user gave in its place)
    as one sentence, then the legend's lines as one more sentence.

    >>> caption_text("Systems against bm25", ["test: paired t-test.", "* p < 0.05"])
    'Systems against bm25. Test: paired t-test; * p < 0.05.'
    >>> caption_text("Systems against bm25", ["* p < 0.05"], caption="Main results.")
    'Main results. * p < 0.05.'
    """
    head = caption if caption is not None else (title or "")
    parts = [line.strip().rstrip(".;") for line in legend if line.strip()]
    tail = "; ".join(parts)
    tail = tail[:1].upper() + tail[1:] if tail else ""
    return " ".join(_sentence(piece) for piece in (head, tail) if piece.strip())


#: The characters a LaTeX label may hold here (safe with babel, hyperref and cleveref).
LABEL_CHARACTERS = "letters, digits and : . _ - / +"


def check_label(label: str) -> str:
    """``label`` if LaTeX can take it as a ``\\label`` key; an ArgumentError naming it otherwise.

    >>> check_label("tab:main-results")
    'tab:main-results'
    """
    import re

    if not isinstance(label, str) or not re.fullmatch(r"[A-Za-z0-9:._/+-]+", label):
        from irstats.errors import ArgumentError

        bad = "".join(dict.fromkeys(ch for ch in str(label) if not re.fullmatch(r"[A-Za-z0-9:._/+-]", ch)))
        what = f"characters LaTeX cannot take in a label ({bad!r})" if bad else "nothing in it"
        raise ArgumentError(f"label {label!r} has {what}; use {LABEL_CHARACTERS}", argument="label")
    return label


def label_slug(*parts: str) -> str:
    """A label key from words: lower case, every run of other characters one ``-``.

    >>> label_slug("compare", "nDCG@10", "AP", "bm25base_p")
    'compare-ndcg-10-ap-bm25base-p'
    """
    import re

    return "-".join(p for p in (re.sub(r"[^a-z0-9]+", "-", str(part).lower()).strip("-") for part in parts) if p)


@dataclass(frozen=True)
class Table:
    """A table for people: header, rows of cells, alignment, title and legend, laid out in
    every format by one method each. Results build one (:meth:`irstats.result.Result.table`);
    machine formats (TSV, CSV, JSON) are written from the result's frame instead.

    ``legend``: what a reader needs to read the table (the test, the correction, what the
    markers mean) — printed under the table and, as one sentence, in a LaTeX caption.
    ``remarks``: further notes (discriminative power, undefined values) — printed under the
    table in text, Markdown and HTML, never in a caption (the command line prints them on stderr
    beside LaTeX). ``keys``: the system each row is about (None: a row of no system), which
    :meth:`for_systems` and :meth:`renamed` use; ``groups``: the kind of each column
    (``system``, ``mean``, ``delta``, ``p``, ``wins`` …), by which :meth:`select` also picks
    columns; ``latex_optional``: groups a LaTeX table leaves out unless they are asked for.
    """

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    right: tuple[bool, ...]
    title: str | None = None
    legend: tuple[str, ...] = ()
    header_latex: tuple[str, ...] | None = None
    label: str = "tab:irstats"
    remarks: tuple[str, ...] = ()
    keys: tuple[str | None, ...] | None = None
    groups: tuple[str, ...] | None = None
    latex_optional: frozenset[str] = frozenset()
    legend_groups: tuple[str | None, ...] | None = None

    @classmethod
    def of(cls, header: Sequence[str], rows: Sequence[Sequence[Cell | str]], right: Sequence[bool], *,
           title: str | None = None, legend: Sequence[str] = (), header_latex: Sequence[str] | None = None,
           label: str = "tab:irstats", remarks: Sequence[str] = (), keys: Sequence[str | None] | None = None,
           groups: Sequence[str] | None = None, latex_optional: Sequence[str] = (),
           legend_groups: Sequence[str | None] | None = None) -> "Table":
        def cell(v) -> Cell:
            return v if isinstance(v, Cell) else Cell(str(v))

        if keys is None and header and header[0] == "system":  # a row per system: its first cell names it
            keys = [r[0].text if isinstance(r[0], Cell) else str(r[0]) for r in rows]
        return cls(tuple(header), tuple(tuple(cell(v) for v in r) for r in rows), tuple(right), title,
                   tuple(legend), None if header_latex is None else tuple(header_latex), label, tuple(remarks),
                   None if keys is None else tuple(keys), None if groups is None else tuple(groups),
                   frozenset(latex_optional), None if legend_groups is None else tuple(legend_groups))

    def _groups(self) -> tuple[str, ...]:
        if self.groups is not None:
            return self.groups
        return tuple("system" if k == 0 and self.keys is not None else h for k, h in enumerate(self.header))

    def _keep(self, keep: Sequence[int]) -> "Table":
        head = None if self.header_latex is None else tuple(self.header_latex[k] for k in keep)
        groups = None if self.groups is None else tuple(self.groups[k] for k in keep)
        legend, legend_groups = self.legend, self.legend_groups
        if legend_groups is not None:  # a legend line about a kind of column goes with the last such column
            shown = set(groups or ())
            kept = [(line, g) for line, g in zip(legend, legend_groups) if g is None or g in shown]
            legend, legend_groups = tuple(line for line, _ in kept), tuple(g for _, g in kept)
        return replace(self, header=tuple(self.header[k] for k in keep),
                       rows=tuple(tuple(r[k] for k in keep) for r in self.rows),
                       right=tuple(self.right[k] for k in keep), header_latex=head, groups=groups,
                       legend=legend, legend_groups=legend_groups)

    def select(self, columns: Sequence[str] | str | None, *, latex: bool = False) -> "Table":
        """The table with only ``columns``: each a header (``AP``, ``p(AP)``), in the order given,
        or a kind of column (``means``, ``delta``, ``p``, ``wins`` …: every column of that kind, in
        the table's order, so that a measure's columns stay side by side).
        The column naming the system stays first. None: every column (in LaTeX, less the
        ``latex_optional`` kinds). A paper table without, say, its p-values or intervals."""
        groups = self._groups()
        if columns is None:
            if not latex or not self.latex_optional:
                return self
            return self._keep([k for k, g in enumerate(groups) if g not in self.latex_optional])
        if isinstance(columns, str):
            columns = [c.strip() for c in columns.split(",") if c.strip()]
        keep: list[int] = []
        for name in columns:
            found = [self.header.index(name)] if name in self.header else [
                k for k, g in enumerate(groups) if g in (name, name.rstrip("s"), name + "s") and g != "system"]
            if not found:
                from irstats.errors import ArgumentError, did_you_mean

                kinds = [g for g in dict.fromkeys(groups) if g not in self.header and g != "system"]
                raise ArgumentError(f"no column {name!r} in this table; it has {', '.join(self.header)}"
                                    + (f" (kinds: {', '.join(kinds)})" if kinds else "")
                                    + did_you_mean(name, [*self.header, *kinds]), argument="columns")
            keep += [k for k in found if k not in keep]
        if not any(name in self.header for name in columns):
            keep.sort()  # kinds only: each measure's columns stay together, in the table's order
        key = groups.index("system") if "system" in groups else None
        if key is not None and key not in keep:
            keep.insert(0, key)
        return self._keep(keep)

    def for_systems(self, systems: Sequence[str] | None) -> "Table":
        """Only the rows of ``systems``, in the order given (None: every row). A system the table
        does not have is an error naming it and the systems it has."""
        if systems is None:
            return self
        if self.keys is None:
            from irstats.errors import ArgumentError

            raise ArgumentError("this table has no row per system to choose from", argument="systems")
        known = [k for k in dict.fromkeys(self.keys) if k is not None]
        for name in systems:
            if name not in known:
                from irstats.errors import ArgumentError, did_you_mean, some

                raise ArgumentError(f"unknown system {name!r}; the table has {some(known, limit=8, quote=False)}"
                                    f"{did_you_mean(name, known)}", argument="systems")
        rows = [(key, row) for key, row in zip(self.keys, self.rows)]
        picked = [(key, row) for name in dict.fromkeys(systems) for key, row in rows if key == name]
        return replace(self, rows=tuple(r for _, r in picked), keys=tuple(k for k, _ in picked))

    def renamed(self, names: Mapping[str, str] | None) -> "Table":
        """The table with each system shown by its display name (``names``: run id → name as
        printed in the paper); systems not in ``names`` keep their id."""
        if not names or self.keys is None:
            return self
        groups = self._groups()
        key = groups.index("system") if "system" in groups else 0

        def shown(row, system):
            if system not in names:
                return row
            cell = row[key]
            return (*row[:key], replace(cell, text=names[system], latex=None), *row[key + 1:])

        import re

        pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(k)}(?![\w-])"
                                      for k in sorted(names, key=len, reverse=True) if len(k) > 1) or "(?!)")

        def words(text: str) -> str:  # the title and legend name a baseline by its id, too
            return pattern.sub(lambda m: names[m.group(0)], text)

        return replace(self, rows=tuple(shown(r, s) for r, s in zip(self.rows, self.keys)),
                       title=None if self.title is None else words(self.title),
                       legend=tuple(words(line) for line in self.legend))

    def text(self) -> str:
        """Aligned text: the title, the table, the legend underneath."""
        table = text_table(self.header, [[c.text for c in r] for r in self.rows], right=self.right, title=self.title)
        below = (*self.legend, *self.remarks)
        return table + ("\n" + "\n".join(below) + "\n" if below else "")

    def markdown(self) -> str:
        """GitHub-flavoured Markdown: the title in bold, the table, the legend as lines."""
        align = _alignment(len(self.header), None, self.right)
        out = [f"**{markdown_escape(self.title)}**", ""] if self.title else []
        out += ["| " + " | ".join(markdown_escape(h) for h in self.header) + " |",
                "|" + "|".join("---:" if a else ":---" for a in align) + "|"]
        out += ["| " + " | ".join(c.as_markdown() for c in r) + " |" for r in self.rows]
        if self.legend or self.remarks:
            out += [""] + [markdown_escape(line) + "  " for line in (*self.legend, *self.remarks)]
        return "\n".join(out).rstrip() + "\n"

    def latex(self, *, caption: str | None = None, label: str | None = None, wide: bool | None = None,
              legend: bool = True) -> str:
        """A paper-ready float: ``table`` (``table*`` when ``wide``; by default when the table
        does not fit a 3.33 in column at 8 pt) with the caption and a label above a booktabs ``tabular`` with
        right-aligned numbers, scaled down only if it is wider than the column (adjustbox's
        ``max width``). Needs booktabs and adjustbox. The caption is the title as a sentence and
        the legend as another; ``caption`` replaces the title and keeps the legend (``legend=False``
        drops it). ``label``: the ``\\label`` key (checked: letters, digits and ``:._-/+``). A table
        longer than :data:`LATEX_ROWS` rows is split into parts, labelled ``LABEL``, ``LABEL-2`` …"""
        # a table longer than a page is split into floats of LATEX_ROWS rows, each its own part
        parts = [self.rows[k:k + LATEX_ROWS] for k in range(0, max(len(self.rows), 1), LATEX_ROWS)]
        characters = estimated_characters(self.header, self.rows)
        return LATEX_NEEDS + "".join(latex_float(self, rows, k, len(parts), caption=caption, label=label, wide=wide,
                                                 legend=legend, characters=characters)
                                     for k, rows in enumerate(parts, start=1))

    def latex_fitted(self, width: str = "page", *, caption: str | None = None, label: str | None = None,
                     legend: bool = True) -> str:
        """The table as floats that fit ``width`` (``page``: 7 in, ``table*``; ``column``: 3.33 in,
        ``table``) at the float's own text size, never shrunk: the columns after the system's are
        split into as many floats as the width needs (the system column repeated in each), and the
        rows into floats of :data:`LATEX_ROWS`; the floats are labelled ``LABEL``, ``LABEL-2`` …"""
        budget = FITTED_CHARACTERS[width]
        groups = self._groups()
        key = [groups.index("system")] if "system" in groups else [0]

        def chars(k: int) -> int:  # the widest text of a column, and the space between columns
            return estimated_characters([self.header[k]], [(r[k],) for r in self.rows])

        parts: list[list[int]] = [[]]
        used = sum(chars(k) for k in key)
        for k in range(len(self.header)):
            if k in key:
                continue
            if parts[-1] and used + chars(k) > budget:
                parts.append([])
                used = sum(chars(k) for k in key)
            parts[-1].append(k)
            used += chars(k)
        floats = []
        for part in parts:
            table = self._keep(key + part)
            floats += [(table, table.rows[r:r + LATEX_ROWS]) for r in range(0, max(len(table.rows), 1), LATEX_ROWS)]
        return LATEX_NEEDS + "".join(latex_float(table, rows, n, len(floats), caption=caption, label=label,
                                                 wide=width == "page", legend=legend,
                                                 characters=estimated_characters(table.header, table.rows))
                                     for n, (table, rows) in enumerate(floats, start=1))

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
        legend = "".join(f"<br>{html.escape(line)}" for line in (*self.legend, *self.remarks))
        return (f"<div>{title}<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
                + (f"<small>{legend[4:]}</small>" if legend else "") + "</div>")


#: Where a comparison's significance markers go: on the system's mean, on its difference to
#: the baseline, or both.
MARKER_PLACES = ("mean", "delta", "both")


@dataclass(frozen=True)
class TableOptions:
    """How a table for people is cut and captioned for a paper: the keywords of every
    result's ``to_latex()`` (and of ``to_text()``/``to_markdown()``, less caption and label) and
    the options ``--caption``, ``--label``, ``--columns``, ``--systems``, ``--names``,
    ``--markers`` and ``--no-legend`` of every command that writes LaTeX.

    ``caption`` replaces the title (the legend stays unless ``legend=False``); ``label`` is the
    ``\\label`` key (default: derived from the output file's name, or from the result);
    ``columns``: headers or kinds of column (``means``, ``delta``, ``p``, ``wins``), in order;
    ``systems``: these systems' rows, in this order; ``names``: run id → the name printed;
    ``markers``: where significance markers go (:data:`MARKER_PLACES`).
    """

    caption: str | None = None
    label: str | None = None
    columns: tuple[str, ...] | None = None
    systems: tuple[str, ...] | None = None
    names: Mapping[str, str] | None = None
    legend: bool = True
    markers: str = "mean"

    def __post_init__(self) -> None:
        from irstats.errors import ArgumentError, ArgumentTypeError, did_you_mean

        if self.markers not in MARKER_PLACES:
            raise ArgumentError(f"markers {self.markers!r}: expected one of {', '.join(MARKER_PLACES)}"
                                f"{did_you_mean(self.markers, MARKER_PLACES)}", argument="markers")
        if self.label is not None:
            check_label(self.label)
        if self.caption is not None and not isinstance(self.caption, str):
            raise ArgumentTypeError(f"caption must be text; got {type(self.caption).__name__}", argument="caption")
        for name in ("columns", "systems"):
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, tuple(v.strip() for v in value.split(",") if v.strip()))
            elif value is not None:
                object.__setattr__(self, name, tuple(str(v) for v in value))

    def apply(self, table: "Table", *, latex: bool = False) -> "Table":
        """``table`` cut to these systems and columns, systems shown by their names."""
        return table.for_systems(self.systems).renamed(self.names).select(self.columns, latex=latex)


def read_systems(value: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``--systems``: a file of system names (one a line, ``#`` comments) when ``value`` is an
    existing file, else names separated by commas; repeated options add up."""
    import os

    if value is None:
        return None
    values = [value] if isinstance(value, str) else list(value)
    found: list[str] = []
    for item in values:
        if os.path.isfile(item):
            found += [line.strip() for line in _text_lines(item) if line.strip() and not line.startswith("#")]
        else:
            found += [v.strip() for v in str(item).split(",") if v.strip()]
    return tuple(dict.fromkeys(found)) or None


def _text_lines(path: str) -> list[str]:
    """The lines of a small UTF-8 text file the user named; one line of error otherwise."""
    from irstats.errors import InputError

    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from None


def read_names(path: str) -> dict[str, str]:
    """``--names FILE``: display names, a line ``run_id<TAB>Paper Name`` each (``#`` comments and
    blank lines skipped). A line without a tab, or a run id twice, is an error naming the line."""
    from irstats.errors import InputError

    names: dict[str, str] = {}
    for number, line in enumerate(_text_lines(path), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        run, sep, name = line.rstrip("\r\n").partition("\t")
        if not sep or not run.strip() or not name.strip():
            raise InputError("expected 'run_id<TAB>display name'", path=str(path), line=number)
        if run.strip() in names:
            raise InputError(f"run id {run.strip()!r} is named twice", path=str(path), line=number)
        names[run.strip()] = name.strip()
    return names


#: Most rows of one LaTeX float: longer tables are split so that each part fits a page.
LATEX_ROWS = 40

#: The characters of \\small text (9 pt, about 4.5 pt a character) that fit a page (7 in) and a
#: column (3.33 in), and what the space between two columns costs (2 × \\tabcolsep).
FITTED_CHARACTERS = {"page": 104, "column": 48}
COLUMN_GAP_CHARACTERS = 3
#: The characters that fit a column at \\footnotesize (8 pt) with 4 pt between columns.
COLUMN_AT_8PT = 60

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
SUMMARY_COLUMNS: dict[str, tuple[str, Callable[[float], Cell] | None]] = {
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
        records = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                   for r in frame.to_dicts()]
        import json  # here: the start-up of every command that prints text imports render

        return json.dumps(records, indent=1, default=str) + "\n"
    header, rows, right = cells(frame, formats, digits)
    if fmt == "table":
        return text_table(header, rows, right=right, title=title)
    if fmt == "markdown":
        return (f"**{markdown_escape(title)}**\n\n" if title else "") + markdown_table(header, rows, right=right)
    if fmt == "latex":
        return latex_table(header, rows, right=right)
    from irstats.errors import InputError

    raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
