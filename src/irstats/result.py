"""The one shape of an experiment's result (issue 11, item 3; docs/design.md "Experiments").

Every experiment returns a frozen dataclass that mixes in :class:`Result`. The class writes
``to_frame()`` — its main table as a polars DataFrame — and, where the headline numbers are a
smaller table, ``summary()``; everything else derives from those two:

- ``to_pandas()`` — ``to_frame()`` as a pandas DataFrame (pandas is imported only here);
- ``to_markdown()`` / ``to_latex()`` — ``summary()`` as a GitHub-flavoured Markdown or a
  booktabs LaTeX table (:mod:`irstats.render`);
- ``str(result)`` — a title line and ``summary()`` as an aligned text table;
- in Jupyter, the title and ``summary()`` as an HTML table (``_repr_html_``).

A result is frozen: what an experiment returned cannot be changed afterwards by mistake.
"""

from __future__ import annotations

import polars as pl


class Result:
    """Mixin of the shared methods; a subclass defines ``to_frame()`` (and may define
    ``summary()`` and ``title``)."""

    def to_frame(self) -> pl.DataFrame:  # pragma: no cover - every result defines it
        raise NotImplementedError

    def summary(self) -> pl.DataFrame:
        """The headline numbers (by default the whole :meth:`to_frame`)."""
        return self.to_frame()

    @property
    def title(self) -> str:
        """A one-line caption for printed tables."""
        return type(self).__name__

    def to_pandas(self):
        """:meth:`to_frame` as a pandas DataFrame."""
        try:
            import pandas  # noqa: F401  (only to give a clear message when it is missing)
        except ImportError:  # pragma: no cover - pandas comes with the test extra
            raise ImportError("to_pandas() needs pandas and pyarrow: pip install pandas pyarrow") from None
        return self.to_frame().to_pandas()

    def to_markdown(self, digits: int = 4) -> str:
        """:meth:`summary` as a Markdown table with the title in bold above it."""
        from irstats.render import render

        return render(self.summary(), "markdown", title=self.title, digits=digits)

    def to_latex(self, digits: int = 4) -> str:
        """:meth:`summary` as a booktabs LaTeX ``tabular`` (needs ``\\usepackage{booktabs}``)."""
        from irstats.render import render

        return render(self.summary(), "latex", digits=digits)

    def __str__(self) -> str:
        from irstats.render import render

        return render(self.summary(), "table", title=self.title)

    def _repr_html_(self) -> str:
        """Jupyter shows a result as its title and :meth:`summary` as an HTML table."""
        import html

        return f"<div><p><b>{html.escape(self.title)}</b></p>{self.summary()._repr_html_()}</div>"


__all__ = ["Result"]
