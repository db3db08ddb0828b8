"""The one shape of an experiment's result, and the one printer of each (issues 11 and 24;
docs/design.md "Results print themselves").

Every experiment returns a frozen dataclass that mixes in :class:`Result`. The class writes
``to_frame()`` — its data as a polars DataFrame — and may write ``summary()`` (the headline
numbers as a smaller frame), ``title``, ``legend()`` (the lines that explain the table) or,
for a table laid out otherwise than its summary, ``display_table()``. Everything else derives from
those:

- ``display_table()`` — the display table (:class:`irstats.render.Table`): the summary's columns,
  numbers with fixed decimals, the title and the legend;
- ``to_text()`` / ``str(result)``, ``to_markdown()``, ``to_latex()`` (a paper-ready float
  with caption and label), ``_repr_html_()`` in Jupyter — that table in each format;
- ``to_tsv()``, ``to_csv()``, ``to_json()`` — the data of ``to_frame()`` and nothing else
  (full precision; the legend is not data: the command line prints it on stderr);
- ``format(fmt)`` — any of those by name: what a command prints for ``--format fmt``.

A result is frozen: what an experiment returned cannot be changed afterwards by mistake.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl
    from irstats.render import Table

#: The formats every result prints itself in: for people, then for machines.
DISPLAY_FORMATS = ("table", "markdown", "latex")
DATA_FORMATS = ("tsv", "csv", "json")
FORMATS = DISPLAY_FORMATS + DATA_FORMATS


class Result:
    """Mixin of the shared methods; a subclass defines ``to_frame()`` (and may define
    ``summary()``, ``title``, ``legend()`` and ``display_table()``; ``DIGITS``: the decimals
    its numbers are printed with unless a caller asks for others)."""

    DIGITS = 4

    def to_frame(self) -> pl.DataFrame:  # pragma: no cover - every result defines it
        raise NotImplementedError

    def summary(self) -> pl.DataFrame:
        """The headline numbers (by default the whole :meth:`to_frame`)."""
        return self.to_frame()

    @property
    def title(self) -> str:
        """A one-line caption for printed tables."""
        return type(self).__name__

    def legend(self) -> list[str]:
        """Lines explaining the table (tests, corrections, markers, notes); none by default."""
        return []

    def display_table(self, digits: int = 4) -> "Table":
        """The display table every format of people is laid out from."""
        from irstats.render import table_of_frame

        return table_of_frame(self.summary(), title=self.title, legend=self.legend(), digits=digits)

    # --------------------------------------------------------------------- for people

    def to_text(self, digits: int | None = None) -> str:
        """An aligned text table: the title, the table, the legend."""
        return self.display_table(self.DIGITS if digits is None else digits).text()

    def __str__(self) -> str:
        return self.to_text()

    def to_markdown(self, digits: int | None = None) -> str:
        """A GitHub-flavoured Markdown table with the title in bold above it and the legend below."""
        return self.display_table(self.DIGITS if digits is None else digits).markdown()

    def to_latex(self, digits: int | None = None, *, caption: str | None = None, label: str | None = None,
                 wide: bool | None = None, columns=None) -> str:
        """A ``table`` float (``table*`` when ``wide``) with caption and label around a booktabs
        ``tabular`` (needs ``\\usepackage{booktabs}`` and ``\\usepackage{adjustbox}``);
        ``columns``: only these columns of the printed table, by header (e.g. without p-values)."""
        table = self.display_table(self.DIGITS if digits is None else digits).select(columns)
        return table.latex(caption=caption, label=label, wide=wide)

    def _repr_html_(self) -> str:
        """Jupyter shows a result as its display table."""
        return self.display_table(self.DIGITS).html()

    # --------------------------------------------------------------------- for machines

    def to_pandas(self):
        """:meth:`to_frame` as a pandas DataFrame."""
        try:
            import pandas  # noqa: F401  (only to give a clear message when it is missing)
        except ImportError:  # pragma: no cover - pandas comes with the test extra
            raise ImportError("to_pandas() needs pandas and pyarrow: pip install pandas pyarrow") from None
        return self.to_frame().to_pandas()

    def to_tsv(self) -> str:
        """:meth:`to_frame` as TSV: the data only, floats in full precision, NaN as ``nan``."""
        from irstats.render import delimited

        return delimited(self.to_frame(), "\t")

    def to_csv(self) -> str:
        """:meth:`to_frame` as CSV (see :meth:`to_tsv`)."""
        from irstats.render import delimited

        return delimited(self.to_frame(), ",")

    def to_json(self) -> str:
        """:meth:`to_frame` as JSON records (NaN as null)."""
        from irstats.render import render

        return render(self.to_frame(), "json")

    def format(self, fmt: str, digits: int | None = None) -> str:
        """The result in format ``fmt`` (one of :data:`FORMATS`): what ``--format`` prints."""
        if digits is None and not isinstance(self, (FrameResult, Results)):  # (those resolve their parts')
            digits = self.DIGITS
        if fmt == "table":
            return self.to_text(digits)
        if fmt == "markdown":
            return self.to_markdown(digits)
        if fmt == "latex":
            return self.to_latex(digits)
        if fmt in DATA_FORMATS:
            return getattr(self, f"to_{fmt}")()
        from irstats.errors import ArgumentError

        raise ArgumentError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}", argument="fmt")


@dataclass(frozen=True)
class FrameResult(Result):
    """A frame with a title, printed like every result: a view of a result that is a plain
    table (a Tukey HSD's pairs, a confusion matrix, the summary of an experiment).

    ``summary_columns``: name and write the experiments' usual columns as their tables do
    (:data:`irstats.render.SUMMARY_COLUMNS`: ε, %low, p, t …; an undefined number blank).
    ``more``: further tables shown after this one in the formats for people (the data
    formats hold this frame only)."""

    frame: pl.DataFrame
    caption: str = ""
    notes: tuple[str, ...] = ()
    summary_columns: bool = False
    more: tuple["FrameResult", ...] = ()
    label: str = "tab:irstats"
    digits: int | None = None  # decimals of its numbers (None: the caller's, 4 by default)

    @property
    def title(self) -> str:
        return self.caption

    def to_frame(self) -> pl.DataFrame:
        return self.frame

    def legend(self) -> list[str]:
        return list(self.notes)

    def display_table(self, digits: int = 4) -> "Table":
        from irstats.render import SUMMARY_COLUMNS, table_of_frame

        return table_of_frame(self.frame, title=self.title, legend=self.legend(),
                              digits=digits if self.digits is None else self.digits,
                              columns=SUMMARY_COLUMNS if self.summary_columns else None,
                              blank_nan=self.summary_columns, label=self.label)

    def to_text(self, digits: int | None = None) -> str:
        return "\n".join([super().to_text(digits), *(m.to_text(digits) for m in self.more)])

    def to_markdown(self, digits: int | None = None) -> str:
        return "\n".join([super().to_markdown(digits), *(m.to_markdown(digits) for m in self.more)])

    def to_latex(self, digits: int | None = None, *, caption: str | None = None, label: str | None = None,
                 wide: bool | None = None) -> str:
        return "\n".join([super().to_latex(digits, caption=caption, label=label, wide=wide),
                          *(m.to_latex(digits, wide=wide) for m in self.more)])


class Results(tuple, Result):
    """Several results printed as one (a command's result per measure): the tables one after
    another in the formats for people, the frames stacked in the data formats.

    >>> Results([a, b]).format("tsv")        # doctest: +SKIP
    """

    @property
    def title(self) -> str:
        return "; ".join(r.title for r in self)

    def to_frame(self) -> pl.DataFrame:
        import polars as pl

        return pl.concat([r.to_frame() for r in self], how="diagonal_relaxed")

    def legend(self) -> list[str]:
        return list(dict.fromkeys(line for r in self for line in r.legend()))

    def to_text(self, digits: int | None = None) -> str:
        return "\n".join(r.to_text(digits) for r in self)

    def to_markdown(self, digits: int | None = None) -> str:
        return "\n".join(r.to_markdown(digits) for r in self)

    def to_latex(self, digits: int | None = None, *, caption: str | None = None, label: str | None = None,
                 wide: bool | None = None) -> str:
        return "\n".join(r.to_latex(digits, caption=caption, label=None if label is None else f"{label}-{k}",
                                     wide=wide) for k, r in enumerate(self, start=1))

    def _repr_html_(self) -> str:
        return "".join(r._repr_html_() for r in self)


__all__ = ["DATA_FORMATS", "DISPLAY_FORMATS", "FORMATS", "FrameResult", "Result", "Results"]
