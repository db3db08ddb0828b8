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
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl
    from irstats.render import Table, TableOptions

_F = TypeVar("_F", bound=Callable[..., Any])

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
        """Lines explaining the table (tests, corrections, markers); none by default. In a LaTeX
        caption they become one sentence."""
        return []

    def remarks(self) -> list[str]:
        """Remarks beside the table that are not part of its caption (discriminative power, why a
        value is blank): under the table in text and Markdown, on stderr beside LaTeX or data."""
        return []

    def display_table(self, digits: int = 4) -> "Table":
        """The display table every format of people is laid out from."""
        from irstats.render import table_of_frame

        return table_of_frame(self.summary(), title=self.title, legend=self.legend(), digits=digits)

    #: True when :meth:`display_table` takes ``markers=`` (where a comparison's significance
    #: markers go: :data:`irstats.render.MARKER_PLACES`).
    MARKERS = False

    def paper_table(self, digits: int | None = None, options: "TableOptions | None" = None, *,
              latex: bool = False) -> "Table":
        """The display table cut and named as ``options`` say (:class:`irstats.render.TableOptions`):
        these systems, these columns, display names, markers where asked."""
        from irstats.render import TableOptions

        options = options or TableOptions()
        digits = self.DIGITS if digits is None else digits
        # MARKERS: the subclass's display_table takes markers= (stats.compare.Comparison)
        table = (self.display_table(digits, markers=options.markers)  # type: ignore[call-arg]
                 if self.MARKERS else self.display_table(digits))
        if options.names and table.keys is not None:
            known = [k for k in dict.fromkeys((*table.keys, *self._systems())) if k is not None]
            unknown = [n for n in options.names if n not in known]
            if unknown:
                from irstats.errors import ArgumentError, did_you_mean, some

                raise ArgumentError(f"names: unknown system {unknown[0]!r}; the table has "
                                    f"{some(known, limit=8, quote=False)}{did_you_mean(unknown[0], known)}",
                                    argument="names")
        return options.apply(table, latex=latex)

    def _systems(self) -> list[str]:
        """Every system this result is about (its ``systems``), shown in its table or not."""
        systems = getattr(self, "systems", None)
        if isinstance(systems, tuple) and all(isinstance(s, str) for s in systems):
            return list(systems)
        return []

    def latex_label(self, table: "Table") -> str:
        """The ``\\label`` of this result's LaTeX when none is given: the table's kind, then the
        measure(s) and the baseline (or the title's first words) — unique within a paper that
        prints one table per measure set and baseline, and the same at every run."""
        from irstats.render import label_slug

        measures = getattr(self, "measures", None) or [getattr(self, "measure", None)]
        baselines = getattr(self, "baselines", None) or [getattr(self, "baseline", None)]
        parts = [str(p) for p in (*measures, *baselines) if isinstance(p, str) and p]
        words = label_slug(*parts) if parts else label_slug(*(self.title or "").split()[:6])
        return f"{table.label}-{words}"[:80].rstrip("-") if words else table.label

    # --------------------------------------------------------------------- for people

    def to_text(self, digits: int | None = None, **options) -> str:
        """An aligned text table: the title, the table, the legend (``options``: ``systems``,
        ``names``, ``columns``, ``markers``, as for :meth:`to_latex`)."""
        return self.paper_table(digits, _options(options)).text()

    def __str__(self) -> str:
        return self.to_text()

    def to_markdown(self, digits: int | None = None, **options) -> str:
        """A GitHub-flavoured Markdown table with the title in bold above it and the legend below
        (``options`` as for :meth:`to_text`)."""
        return self.paper_table(digits, _options(options)).markdown()

    def to_latex(self, digits: int | None = None, *, caption: str | None = None, label: str | None = None,
                 wide: bool | None = None, columns=None, systems=None, names=None, legend: bool = True,
                 markers: str = "mean") -> str:
        """A ``table`` float (``table*`` when ``wide``) with caption and label around a booktabs
        ``tabular`` (needs ``\\usepackage{booktabs}`` and ``\\usepackage{adjustbox}``).

        ``caption`` replaces the title and keeps the legend (``legend=False`` drops it); ``label``
        (default: :meth:`latex_label`); ``columns``: only these columns, by header or kind (e.g.
        ``"means"``: no Δ or p); ``systems``: these systems' rows in this order (names, or a file
        of names); ``names``: display names, a dict or a file of ``run_id<TAB>name`` lines;
        ``markers``: ``mean`` (default), ``delta`` or ``both`` — where significance markers go."""
        options = _options(dict(caption=caption, label=label, columns=columns, systems=systems, names=names,
                                legend=legend, markers=markers))
        table = self.paper_table(digits, options, latex=True)
        return table.latex(caption=options.caption, label=options.label or self.latex_label(table), wide=wide,
                           legend=options.legend)

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

    def format(self, fmt: str, digits: int | None = None, **options) -> str:
        """The result in format ``fmt`` (one of :data:`FORMATS`): what ``--format`` prints.
        ``options``: those of :meth:`to_latex` (caption and label only matter in LaTeX; the data
        formats hold the whole frame, or the rows of ``systems``)."""
        if digits is None and not isinstance(self, (FrameResult, Results)):  # (those resolve their parts')
            digits = self.DIGITS
        people = {k: v for k, v in options.items() if k not in ("caption", "label", "legend")}
        if fmt == "table":
            return self.to_text(digits, **people)
        if fmt == "markdown":
            return self.to_markdown(digits, **people)
        if fmt == "latex":
            return self.to_latex(digits, **options)
        if fmt in DATA_FORMATS:
            systems = _options(people).systems
            if systems is not None:
                return _data_of(self.to_frame(), systems, fmt)
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

    def latex_label(self, table: "Table") -> str:
        return table.label

    def to_text(self, digits: int | None = None, **options) -> str:
        return "\n".join([super().to_text(digits, **options), *(m.to_text(digits) for m in self.more)])

    def to_markdown(self, digits: int | None = None, **options) -> str:
        return "\n".join([super().to_markdown(digits, **options), *(m.to_markdown(digits) for m in self.more)])

    def to_latex(self, digits: int | None = None, *, wide: bool | None = None, **options) -> str:
        return "\n".join([super().to_latex(digits, wide=wide, **options),
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

    def remarks(self) -> list[str]:
        return list(dict.fromkeys(line for r in self for line in r.remarks()))

    def to_text(self, digits: int | None = None, **options) -> str:
        return "\n".join(r.to_text(digits, **options) for r in self)

    def to_markdown(self, digits: int | None = None, **options) -> str:
        return "\n".join(r.to_markdown(digits, **options) for r in self)

    def to_latex(self, digits: int | None = None, *, label: str | None = None, **options) -> str:
        """Each result's float, one after another; a ``label`` given is numbered ``LABEL-1``,
        ``LABEL-2`` … (one result: ``LABEL`` itself)."""
        if label is not None and len(self) == 1:
            return self[0].to_latex(digits, label=label, **options)
        return "\n".join(r.to_latex(digits, label=None if label is None else f"{label}-{k}", **options)
                         for k, r in enumerate(self, start=1))

    def _repr_html_(self) -> str:
        return "".join(r._repr_html_() for r in self)


def _options(options: dict) -> "TableOptions":
    """The keywords of a printer as :class:`irstats.render.TableOptions` (a names file read)."""
    import os

    from irstats.render import TableOptions, read_names, read_systems

    given = {k: v for k, v in options.items() if v is not None}
    unknown = set(given) - {"caption", "label", "columns", "systems", "names", "legend", "markers"}
    if unknown:
        from irstats.errors import ArgumentTypeError

        raise ArgumentTypeError(f"unexpected keyword {sorted(unknown)[0]!r}; a table takes caption, label, columns, "
                                "systems, names, legend and markers", argument=sorted(unknown)[0])
    if isinstance(given.get("names"), (str, os.PathLike)):
        given["names"] = read_names(os.fspath(given["names"]))
    if "systems" in given and not isinstance(given["systems"], str):
        given["systems"] = read_systems([os.fspath(v) for v in given["systems"]])
    elif isinstance(given.get("systems"), str):
        given["systems"] = read_systems(given["systems"])
    return TableOptions(**given)


def _data_of(frame: "pl.DataFrame", systems, fmt: str) -> str:
    """The rows of ``systems`` of a result's frame in a data format (every row if it has no
    ``system`` column to choose by)."""
    import polars as pl

    from irstats.render import delimited, render

    if "system" in frame.columns:
        known = list(dict.fromkeys(frame["system"].to_list()))
        missing = [s for s in systems if s not in known]
        if missing:
            from irstats.errors import ArgumentError, did_you_mean

            raise ArgumentError(f"unknown system {missing[0]!r}{did_you_mean(missing[0], known)}", argument="systems")
        frame = frame.filter(pl.col("system").is_in(list(systems)))
    if fmt in ("tsv", "csv"):
        return delimited(frame, "\t" if fmt == "tsv" else ",")
    return render(frame, "json")


# ----------------------------------------------------------------------------- from a layer above

#: What a result does through a layer above its own: (its class, by dotted name; the method) →
#: the function doing it, registered by that layer with :func:`provides`. A result sits below
#: ``stats/`` and ``plots/`` (docs/design.md's layers: an import only points down), so a method
#: such as ``plot()`` looks its function up here (:func:`provided`) instead of importing it.
_PROVIDED: dict[tuple[str, str], Callable[..., Any]] = {}


def provides(result_type: str, method: str) -> Callable[[_F], _F]:
    """Register the decorated function as what ``result_type``'s ``method`` calls (``result_type``:
    the class's dotted name, ``"irstats.agreement.ConclusionAgreement"``, so that registering it
    imports no result module)."""
    def register(function: _F) -> _F:
        _PROVIDED[(result_type, method)] = function
        return function

    return register


def provided(result: object, method: str, layer: str) -> Callable[..., Any]:
    """The function registered for ``result``'s ``method``, importing ``layer`` (the package that
    registers it: ``"irstats.plots"``, ``"irstats.stats"``) the first time it is asked for."""
    function = _registered(type(result), method)
    if function is None:
        import importlib

        importlib.import_module(layer)
        function = _registered(type(result), method)
    if function is None:  # a slip of irstats, not of its user
        raise LookupError(f"{layer} registers no {method}() for {type(result).__qualname__}")
    return function


def _registered(kind: type, method: str) -> Callable[..., Any] | None:
    for cls in kind.__mro__:  # a subclass does as its parent unless it registers its own
        function = _PROVIDED.get((f"{cls.__module__}.{cls.__qualname__}", method))
        if function is not None:
            return function
    return None


__all__ = ["DATA_FORMATS", "DISPLAY_FORMATS", "FORMATS", "FrameResult", "Result", "Results", "provided", "provides"]
