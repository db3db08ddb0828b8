"""What :func:`irstats.evaluate` returns: the scores of every measure, as a result that
shows itself (issue 23, "one result object for an evaluation").

An :class:`Evaluation` is a dict of canonical measure name → :class:`~irstats.scores.ScoreMatrix`
(so ``scores["AP"]`` keeps working) and a :class:`~irstats.result.Result`: printed, in a
notebook or with ``to_latex()``, it is the table of system means by measure.

>>> scores = irstats.evaluate("qrels.txt", "runs/", ["AP", "nDCG@10"])   # doctest: +SKIP
>>> scores                                     # in Jupyter: the styled table of means   # doctest: +SKIP
>>> scores.means()                             # system × measure, labelled               # doctest: +SKIP
>>> scores.compare(baseline="bm25", test="randomization", correction="holm")          # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import numpy as np

from irstats.result import DISPLAY_FORMATS, Result, provided

if TYPE_CHECKING:
    import polars as pl


class Evaluation(dict, Result):
    """Canonical measure name → ScoreMatrix (systems × topics), in the order asked for.
    ``printed``: the per-topic output the workers of a Dask cluster laid out
    (:class:`PrintedScores`; ``evaluate(..., client=…, print_as=…)``), else None."""

    printed: "PrintedScores | None" = None

    def __missing__(self, key):
        """``scores['ap']`` where the key is ``'AP'``: a :class:`~irstats.errors.NotFoundError`
        saying which key holds it (keys are canonical measure names), or the likely one."""
        from irstats.errors import NotFoundError, did_you_mean

        try:
            from irstats.measures import canonical_name

            canonical = canonical_name(key)
        except Exception:  # noqa: BLE001 - a key that names no measure at all
            canonical = None
        hint = (f"; the keys are canonical measure names: scores[{canonical!r}]" if canonical in self
                else did_you_mean(key, self))
        raise NotFoundError(f"no scores for measure {key!r} (the measures are {', '.join(map(repr, self))}){hint}",
                            argument="measure")

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(self)

    @property
    def systems(self) -> tuple[str, ...]:
        return next(iter(self.values())).systems if self else ()

    @property
    def title(self) -> str:
        first = next(iter(self.values()), None)
        topics = "" if first is None else self._topics_note(first)
        n = len(self.systems)
        return f"System means by measure ({n} system{'' if n == 1 else 's'}; {topics})"

    @staticmethod
    def _topics_note(matrix) -> str:
        counts = matrix.num_topics()
        if len(counts) == 0:
            return "no topics"
        low, high = int(counts.min()), int(counts.max())
        return f"topics per system: {low}" + (f"–{high}" if high != low else "")

    def means(self) -> pl.DataFrame:
        """A row per system (best first by the first measure), a column per measure: each
        system's mean over its topics (trec_eval's sum for the counts NumRet, NumRel, NumRelRet)."""
        import polars as pl

        if not self:
            return pl.DataFrame({"system": []}, schema={"system": pl.String})
        systems, values = self._mean_rows()
        return pl.DataFrame({"system": systems, **{name: values[:, k] for k, name in enumerate(self)}})

    def _mean_rows(self) -> tuple[list[str], np.ndarray]:
        """:meth:`means` as the systems in its order and a systems × measures array (no frame:
        printing the means imports no frame library)."""
        values = np.column_stack([m.summaries() for m in self.values()])
        order = np.argsort(-np.nan_to_num(values[:, 0], nan=-np.inf), kind="stable")
        return [self.systems[i] for i in order], values[order]

    def per_topic(self) -> pl.DataFrame:
        """The tidy per-topic frame: ``system, topic, measure, value`` (the score file)."""
        from irstats.scores import scores_to_frame

        return scores_to_frame(self, per_topic=True)

    def to_frame(self) -> pl.DataFrame:
        """The tidy summary frame: ``system, measure, value`` (``eval --format tsv``)."""
        from irstats.scores import scores_to_frame

        return scores_to_frame(self, per_topic=False)

    def to_polars(self) -> pl.DataFrame:
        """:meth:`means` (a polars frame)."""
        return self.means()

    def to_pandas(self):
        """:meth:`means` as a pandas DataFrame indexed by system."""
        return self.means().to_pandas().set_index("system")

    def summary(self) -> pl.DataFrame:
        return self.means()

    def display_table(self, digits: int = 4):
        """The means table: the best value of each measure in bold, counts without decimals."""
        from irstats.render import Cell, Table, latex_escape, number_cell

        sums = {name: m.over_topics == "sum" for name, m in self.items()}
        systems, values = self._mean_rows() if self else ([], np.empty((0, 0)))
        best = {name: np.nanmax(values[:, k]) if len(systems) and not np.isnan(values[:, k]).all() else None
                for k, name in enumerate(self)}
        rows = []
        for i, system in enumerate(systems):
            cells = [Cell(system)]
            for k, name in enumerate(self):
                value = float(values[i, k])
                cell = number_cell(value, digits, whole=sums[name])
                cells.append(Cell(cell.text, cell.latex, bold=not sums[name] and value == best[name]))
            rows.append(cells)
        return Table.of(["system", *self], rows, [False] + [True] * len(self), title=self.title,
                        header_latex=["System", *(latex_escape(m) for m in self)], label="tab:means")

    def latex_label(self, table) -> str:
        """The table's kind (``tab:means``, ``tab:per-topic``) and the measures: two tables of a
        paper differ."""
        from irstats.render import label_slug

        return f"{table.label}-{label_slug(*self)}".rstrip("-")

    def compare(self, baseline: str | None = None, measures=None, **options):
        """Every system against ``baseline`` per measure (:func:`irstats.stats.compare`:
        ``test=``, ``correction=``, ``alpha=``, ``n_resamples=``, ``seed=`` …). An evaluation
        sits below ``stats/`` (it is what the engine returns), so the comparison is the one
        ``irstats.stats`` registers for it (:func:`irstats.result.provided`)."""
        chosen = self if measures is None else {m: self[m] for m in measures}
        return provided(self, "compare", "irstats.stats")(chosen, baseline=baseline, **options)

    def per_topic_result(self) -> "PerTopicScores":
        """The per-topic scores as a result: printed a row per system and topic (a column per
        measure), its data the tidy per-topic frame (``eval -q``)."""
        return PerTopicScores(self)

    def view(self, per_topic: bool = False) -> Result:
        """What ``eval`` (and ``diversity``, ``preferences``) print: the means, or with
        ``per_topic`` every system's score on every topic."""
        return self.per_topic_result() if per_topic else self

    def format_chunks(self, fmt: str, digits: int | None = None) -> Iterator[str]:
        """:meth:`format` in pieces, as :meth:`PerTopicScores.format_chunks` (the means are one)."""
        yield self.format(fmt, digits)

    def part(self, systems: slice = slice(None), topics: slice = slice(None)) -> "Evaluation":
        """The evaluation of a range of systems and of topics, by position (:meth:`ScoreMatrix.part`);
        its matrices share one topic axis, as :func:`irstats.evaluate` makes them."""
        return Evaluation({name: m.part(systems, topics) for name, m in self.items()})

    def aligned(self) -> bool:
        """Whether every matrix has the same systems and topics, in the same order (so a block
        of positions is the same block in each)."""
        first = next(iter(self.values()), None)
        if first is None:  # no matrix: all of none
            return True
        return all(m.systems == first.systems and m.topics == first.topics for m in self.values())

    def __repr__(self) -> str:
        return f"Evaluation({len(self.systems)} systems × {list(self)})"


@dataclass(frozen=True)
class PrintedScores:
    """An evaluation's per-topic output in format ``fmt``, laid out on a Dask cluster a batch of
    runs per worker (:func:`irstats.scores.batch_pieces`): ``pieces``, per batch in the runs'
    order. :meth:`chunks` is the text one process prints, in pieces, for the client to write."""

    fmt: str
    pieces: list

    def chunks(self) -> Iterator[str]:
        from irstats.scores import pieces_in_order

        return pieces_in_order(self.pieces, self.fmt)


class PerTopicScores(Result):
    """An evaluation's scores per system and topic (:meth:`Evaluation.per_topic_result`).

    Printed a block of :data:`COLUMN_ROWS` rows at a time (:meth:`format_chunks`): the
    per-topic scores of 10^5 topics × 95 measures are ten million cells, which as one
    :class:`~irstats.render.Table` took gigabytes."""

    #: (system, topic) rows made as cells at once (:meth:`display_table`).
    ROWS_PER_BLOCK = 2000
    #: (system, topic) rows laid out at once a column at a time (the printed formats), at most
    #: COLUMN_CELLS cells.
    COLUMN_ROWS = 1 << 15
    COLUMN_CELLS = 1 << 18
    #: Up to this many cells a table is laid out a row at a time (irstats.trec_eval.printer.SMALL_LINES).
    SMALL_CELLS = 4096

    def __init__(self, evaluation: Evaluation):
        self.evaluation = evaluation

    @property
    def title(self) -> str:
        return f"Scores per system and topic ({', '.join(self.evaluation)})"

    def to_frame(self) -> pl.DataFrame:
        return self.evaluation.per_topic()

    def display_table(self, digits: int = 4):
        """A row per system and evaluated topic, a column per measure (``-`` where a measure
        has no score)."""
        from irstats.render import Table

        table = self.streamed_table(digits)
        return Table.of(table.header, [row for block in table.blocks() for row in block], table.right,
                        title=table.title, label=table.label)

    def streamed_table(self, digits: int = 4):
        """:meth:`display_table` as an :class:`irstats.render_stream.StreamedTable`: its rows
        made a block at a time, each time they are printed."""
        from irstats.render_stream import StreamedTable

        items = list(self.evaluation.values())
        if not items:
            return StreamedTable(("system", "topic"), (False, False), lambda: (), 0, title=self.title)
        evaluated = np.zeros(items[0].shape, dtype=bool)  # (system, topic) pairs with a score: the rows
        for m in items:
            evaluated |= ~np.isnan(m.values)
        n_rows = int(evaluated.sum())
        # a small table is laid out a row of cells at a time: no frame library for a short command
        small = n_rows * len(items) <= self.SMALL_CELLS
        return StreamedTable(("system", "topic", *self.evaluation), (False, False) + (True,) * len(items),
                             lambda: self._row_blocks(items, evaluated, digits), n_rows,
                             title=self.title, label="tab:per-topic",
                             columns=None if small else lambda fmt: self._column_blocks(items, evaluated, digits, fmt))

    def _row_blocks(self, items: list, evaluated: np.ndarray, digits: int):
        """The table's rows, :data:`ROWS_PER_BLOCK` topics of one system at a time."""
        from irstats.render import Cell, number_cell

        whole = [m.over_topics == "sum" for m in items]
        dash = Cell("-")
        topics = items[0].topics
        for i, system in enumerate(items[0].systems):
            name = Cell(system)
            for start in range(0, len(topics), self.ROWS_PER_BLOCK):
                stop = min(start + self.ROWS_PER_BLOCK, len(topics))
                values = np.stack([m.values[i, start:stop] for m in items], axis=1)  # topics × measures
                bits = values.view(np.int64).tolist()
                # scores repeat (0, 1, the same fractions): one cell per value and measure, kept
                # for the block; keyed by the bits, so that -0.0 is not 0.0
                kept: list[dict] = [{} for _ in items]
                block = []
                for j, row_values, row_bits in zip(range(start, stop), values.tolist(), bits):
                    if not evaluated[i, j]:
                        continue  # topic not evaluated for this system
                    cells = [name, Cell(topics[j])]
                    for k, (v, b) in enumerate(zip(row_values, row_bits)):
                        cell = kept[k].get(b)
                        if cell is None:
                            cell = kept[k][b] = dash if v != v else number_cell(v, digits, whole=whole[k])
                        cells.append(cell)
                    block.append(cells)
                yield block

    def _column_blocks(self, items: list, evaluated: np.ndarray, digits: int, fmt: str):
        """The table's rows as columns (:class:`irstats.render_stream.StreamedTable`'s ``columns``):
        :data:`COLUMN_ROWS` (system, topic) rows at a time (fewer for many measures: at most
        :data:`COLUMN_CELLS` cells), in the systems' then the topics'
        order, each cell's text written for ``fmt`` (``text``, ``markdown`` or ``latex``). A block's
        numbers are written by :func:`irstats.render.fixed_column`, a call per kind of number."""
        import polars as pl

        from irstats.render import fixed_column, latex_escape, markdown_escape

        def escaped(names: pl.Series) -> pl.Series:  # the names' cells as the format writes them
            if fmt == "markdown":
                return names.str.replace_all("|", "\\|", literal=True).str.replace_all("*", "\\*", literal=True)
            if fmt == "latex":  # letters, digits and plain punctuation stay; the rest one by one
                odd = np.flatnonzero(~names.str.contains(r"^[A-Za-z0-9 .,:;!?()+=/'@-]*$").to_numpy())
                if len(odd):
                    names = names.scatter(odd, [latex_escape(v) for v in names.gather(odd).to_list()])
            return names

        whole = np.array([m.over_topics == "sum" for m in items], dtype=bool)
        n_topics = len(items[0].topics)
        systems = pl.Series(items[0].systems, dtype=pl.String)
        topics = pl.Series(items[0].topics, dtype=pl.String)
        dash = {"text": "-", "markdown": markdown_escape("-"), "latex": latex_escape("-")}[fmt]
        pairs = np.flatnonzero(evaluated.ravel())  # the rows: (system, topic) pairs with a score
        flat = [m.values.ravel() for m in items]
        step = max(1, min(self.COLUMN_ROWS, self.COLUMN_CELLS // len(items)))
        for start in range(0, len(pairs), step):
            rows = pairs[start:start + step]
            values = np.stack([v[rows] for v in flat])  # measures × rows
            texts: list = [None] * len(items)
            for kind, places in ((0, np.flatnonzero(whole)), (digits, np.flatnonzero(~whole))):
                if not len(places):
                    continue
                chosen = values[places]
                written = fixed_column(np.where(np.isnan(chosen), 0.0, chosen).ravel(), kind)  # (NaN: a dash)
                for n, place in enumerate(places):
                    texts[place] = written.slice(n * len(rows), len(rows))
            columns = [escaped(systems.gather(rows // n_topics)), escaped(topics.gather(rows % n_topics))]
            for k, text in enumerate(texts):
                if fmt == "latex":  # a typeset minus sign
                    text = text.str.replace(r"^-", "$$-$$")
                missing = np.isnan(values[k])
                if missing.any():
                    text = text.scatter(np.flatnonzero(missing), dash)
                columns.append(text)
            yield columns

    def format_chunks(self, fmt: str, digits: int | None = None) -> Iterator[str]:
        """:meth:`format` in pieces: the formats for people a block of rows at a time."""
        if fmt == "latex":
            table = self.streamed_table(self.DIGITS if digits is None else digits)
            yield from table.latex(label=self.latex_label(table))
        elif fmt in DISPLAY_FORMATS:
            yield from self.streamed_table(self.DIGITS if digits is None else digits).format(fmt)
        else:
            yield self.format(fmt, digits)

    def to_text(self, digits: int | None = None, **options) -> str:
        if any(v is not None for v in options.values()):  # some systems or columns: the table of cells, cut
            return super().to_text(digits, **options)
        return "".join(self.format_chunks("table", digits))

    def to_markdown(self, digits: int | None = None, **options) -> str:
        if any(v is not None for v in options.values()):
            return super().to_markdown(digits, **options)
        return "".join(self.format_chunks("markdown", digits))

    def to_latex(self, digits: int | None = None, *, caption: str | None = None, label: str | None = None,
                 wide: bool | None = None, columns=None, systems=None, names=None, legend: bool = True,
                 markers: str = "mean") -> str:
        if columns is not None or systems is not None or names is not None:  # the table of cells, cut
            return super().to_latex(digits, caption=caption, label=label, wide=wide, columns=columns,
                                    systems=systems, names=names, legend=legend, markers=markers)
        if label is not None:
            from irstats.render import check_label

            check_label(label)
        table = self.streamed_table(self.DIGITS if digits is None else digits)
        return "".join(table.latex(caption=caption, label=label if label is not None else self.latex_label(table),
                                   wide=wide))

    def latex_label(self, table) -> str:
        return self.evaluation.latex_label(table)  # the per-topic table's kind, then the same measures


def read_scores(path, fmt: str | None = None) -> Evaluation:
    """A score file (TSV, CSV, JSON or Parquet written by irstats; :func:`irstats.scores.read_scores`)
    as an :class:`Evaluation`, as :func:`irstats.evaluate` returns one."""
    from irstats.scores import read_scores as read

    return Evaluation(read(path, fmt))


__all__ = ["Evaluation", "PerTopicScores", "PrintedScores", "read_scores"]
