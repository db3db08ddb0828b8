"""trec_eval's output kinds: how each measure of its table is printed, declared once per kind, as
trec_eval's own ``TREC_MEAS`` declares with a measure its ``print_single_meas`` (the ``-q`` line
of a topic) and its ``print_final_and_cleanup_meas`` (the ``all`` line).

A :class:`~irstats.measures.registry.TrecEvalName` names its kind (``kind``); a family's entries
take theirs from how the family summarises a topic's values (``over_topics``: a count, summed,
prints as ``%ld``), so a count is declared a count once. :data:`KINDS` holds every kind by that
name: a new kind is one class here and its entry there. Each kind says

- :meth:`OutputKind.text` and :meth:`OutputKind.column`: printf's text of one value, and of a
  column of values at once (``%6.4f``, ``%ld``, the text as it is);
- :meth:`OutputKind.topic_columns`: the ``-q`` columns of a block of topics (none for what
  trec_eval prints in the summary only);
- :meth:`OutputKind.summary_lines`: the ``all`` lines;
- whether its values are the engine's (``scored``) and whether it reads the judgments at all
  (``reads_judgments``: not the run's tag, not the number of topics).

What a kind prints from comes from :class:`Printing`: the drop-in's values of one run
(:class:`irstats.trec_eval.output._Columns`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Sequence

if TYPE_CHECKING:
    import numpy as np
    import polars as pl

    from irstats.judgments import Judgments
    from irstats.measures.registry import TrecEvalName

#: trec_eval's MIN_GEO_MEAN: the floor of gm_map and gm_bpref.
MIN_GEO_MEAN = 1e-5


class Printing(Protocol):
    """One run's printed values, as the kinds read them: the topics printed, in order, and
    whether -Z turns the values into z-scores."""

    topics: list[str]
    zscored: bool

    def values(self, printed: str, name: str | None, zscored: bool = True) -> np.ndarray:
        """A printed value's numbers over the topics (z-scores under -Z, unless ``zscored`` is False)."""

    def zscores(self, printed: str, values: list[float]) -> list[float]:
        """``values`` (one per topic) as -Z's z-scores."""

    def texts(self, printed: str) -> list[str]:
        """A printed text's value on each topic (relstring)."""

    def run_tag(self) -> str:
        """The run's tag, as trec_eval prints it."""


@dataclass(frozen=True)
class TopicColumn:
    """One printed value's ``-q`` column over a block of topics: its name (``Z`` before it
    under -Z), the kind that prints it and its values (numbers, or texts)."""

    name: str
    zscored: bool
    kind: OutputKind
    values: Any


@dataclass(frozen=True)
class SummaryLine:
    """One ``all`` line: the printed name (``Z`` before it under -Z) and the value's text."""

    name: str
    zscored: bool
    text: str


class OutputKind:
    """A value printed as ``%6.4f`` on each topic (``-q``) and as the mean over the topics in
    the summary: most of trec_eval's measures (te_print_single_meas_a_cut,
    te_calc_avg_meas_a_cut)."""

    name = "float"
    #: the engine computes its values, one irstats measure per printed value
    scored = True
    #: trec_eval reads the judgments for it (TrecEvalName.reads): not for the run's tag or the topics' number
    reads_judgments = True

    def __repr__(self) -> str:
        return f"<trec_eval output kind {self.name}>"

    def text(self, value: Any) -> str:
        """printf's ``%6.4f``. A NaN prints as x86-64's 0.0/0.0, whose sign bit is set: glibc
        prints ``-nan``."""
        return f"{value:6.4f}" if value == value else f"{'-nan':>6}"

    def column(self, values: Any) -> pl.Series:
        """:meth:`text` of every value of a column, as a polars String series, without a Python
        call per value: four decimals as :func:`irstats.render.fixed_column` writes them (never
        narrower than six characters), NaN and the infinities by :meth:`text`."""
        import numpy as np

        from irstats.render import fixed_column

        values = np.asarray(values, dtype=np.float64)
        return self._patched(fixed_column(values, 4), values)

    def _patched(self, texts: pl.Series, values: np.ndarray) -> pl.Series:
        """``texts`` with the values that are not finite printed one by one by :meth:`text`."""
        import numpy as np

        at = np.flatnonzero(~np.isfinite(values))
        if len(at):
            texts = texts.scatter(at, [self.text(v) for v in values[at].tolist()])
        return texts

    def block_column(self, columns: Sequence[Any]) -> pl.Series:
        """:meth:`column` of several columns of one block of topics, row after row."""
        import numpy as np

        return self.column(np.stack([np.asarray(c, dtype=np.float64) for c in columns], axis=1).ravel())

    def whole(self, values: np.ndarray) -> np.ndarray:
        """The values as printed are meant: a count summed in floating point is the whole number it stands for."""
        return values

    def shown(self, zscored: bool) -> OutputKind:
        """The kind a value of this kind prints as: under -Z every value is a z-score, a float."""
        return FLOAT if zscored else self

    def summary(self, total: float, n_topics: int) -> float:
        """The ``all`` value from the sum of the per-topic values."""
        return total / n_topics

    def topic_columns(self, entry: TrecEvalName, params: Any, printing: Printing, start: int,
                      stop: int) -> list[TopicColumn]:
        """The ``-q`` columns of the topics from ``start`` to ``stop``: one per printed value."""
        shown = self.shown(printing.zscored)
        return [TopicColumn(printed, printing.zscored, shown, printing.values(printed, name)[start:stop])
                for printed, name in entry.values(params)]

    def summary_lines(self, entry: TrecEvalName, params: Any, printing: Printing) -> list[SummaryLine]:
        """The ``all`` lines: per printed value, the per-topic values added in topic order, as
        trec_eval accumulates them (a cumulative sum adds one by one; numpy's sum would add
        pairwise, and a last bit can change the 4th decimal)."""
        import numpy as np

        lines = []
        for printed, name in entry.values(params):
            values = self.summed_values(printing, printed, name)
            total = float(np.cumsum(values)[-1]) if len(values) else 0.0
            value = self.summary(total, len(printing.topics))
            lines.append(SummaryLine(printed, printing.zscored, self.shown(printing.zscored).text(value)))
        return lines

    def summed_values(self, printing: Printing, printed: str, name: str | None) -> Any:
        """What the summary adds up: the printed per-topic values."""
        return printing.values(printed, name)

    def judged_texts(self, entry: TrecEvalName, params: Any, judgments: Judgments) -> dict[str, str]:
        """The texts it prints per topic that only the judgments give (relstring's), by topic."""
        return {}


class Count(OutputKind):
    """A count, ``%ld`` on each topic and summed in the summary (te_print_single_meas_s_long,
    te_calc_sum_meas_s_long): a family whose values are summed over topics (``over_topics="sum"``)."""

    name = "long"

    def text(self, value: Any) -> str:
        return str(int(value))

    def column(self, values: Any) -> pl.Series:
        """``%ld`` of every value as polars writes integers."""
        import numpy as np
        import polars as pl

        values = np.asarray(values, dtype=np.float64)
        texts = pl.Series(np.where(np.isfinite(values), values, 0).astype(np.int64)).cast(pl.String)
        return self._patched(texts, values)

    def whole(self, values: np.ndarray) -> np.ndarray:
        import numpy as np

        return np.rint(values)

    def summary(self, total: float, n_topics: int) -> float:
        return total


class GeometricMean(OutputKind):
    """trec_eval's geometric mean of the per-topic values, floored at :data:`MIN_GEO_MEAN`, in
    the summary only (gm_map, gm_bpref): each topic's value is log(max(v, 1e-5)), with C's log,
    and -Z z-scores that."""

    name = "gm"

    def topic_columns(self, entry: TrecEvalName, params: Any, printing: Printing, start: int,
                      stop: int) -> list[TopicColumn]:
        return []

    def summed_values(self, printing: Printing, printed: str, name: str | None) -> Any:
        values = [math.log(max(v, MIN_GEO_MEAN)) for v in printing.values(printed, name, zscored=False).tolist()]
        return printing.zscores(printed, values) if printing.zscored else values

    def summary(self, total: float, n_topics: int) -> float:
        return math.exp(total / n_topics)


class _OfTheRun(OutputKind):
    """A line of the run as a whole, in the summary only: no score, no judgments read."""

    scored = False
    reads_judgments = False

    def topic_columns(self, entry: TrecEvalName, params: Any, printing: Printing, start: int,
                      stop: int) -> list[TopicColumn]:
        return []


class TopicCount(_OfTheRun):
    """``num_q``: the number of topics evaluated, in the summary only, ``%ld``."""

    name = "num_q"

    def summary_lines(self, entry: TrecEvalName, params: Any, printing: Printing) -> list[SummaryLine]:
        return [SummaryLine(entry.name, printing.zscored, COUNT.shown(printing.zscored).text(len(printing.topics)))]


class RunTag(_OfTheRun):
    """``runid``: the run's tag, as text, in the summary only; never a z-score."""

    name = "runid"

    def summary_lines(self, entry: TrecEvalName, params: Any, printing: Printing) -> list[SummaryLine]:
        return [SummaryLine(entry.name, False, printing.run_tag())]


class RankText(OutputKind):
    """``relstring``: a text per topic, quoted, on the ``-q`` lines only (trec_eval prints no
    summary of it): the raw grade of each of the first N documents ('>' above 9), '-' for a
    document not in the qrels and '.' for one in the pool but unjudged; never a z-score."""

    name = "string"
    scored = False

    def text(self, value: Any) -> str:
        return f"'{value}'"

    def column(self, values: Any) -> pl.Series:
        import polars as pl

        return pl.Series([self.text(v) for v in values], dtype=pl.String)

    def block_column(self, columns: Sequence[Any]) -> pl.Series:
        return self.column([value for row in zip(*columns) for value in row])

    def topic_columns(self, entry: TrecEvalName, params: Any, printing: Printing, start: int,
                      stop: int) -> list[TopicColumn]:
        [(printed, _)] = entry.values(params)
        return [TopicColumn(printed, False, self, printing.texts(printed)[start:stop])]

    def summary_lines(self, entry: TrecEvalName, params: Any, printing: Printing) -> list[SummaryLine]:
        return []

    def judged_texts(self, entry: TrecEvalName, params: Any, judgments: Judgments) -> dict[str, str]:
        from irstats.judgments import POOL_UNJUDGED, UNJUDGED

        length = params[1][0] if params else entry.defaults[0]  # relstring.L: C's (long) L, at most num_ret; ≤ 0: ''
        length = int(max(min(length, 2.0**62), -1.0))
        out = {}
        for t, topic in enumerate(judgments.topics):
            n = max(0, min(int(judgments.n_ret[0, t]), length))
            out[topic] = "".join(">" if grade > 9 else str(grade) if grade >= 0 else
                                 "-" if grade == UNJUDGED else "." if grade == POOL_UNJUDGED else "<"
                                 for grade in judgments.grades[0, t, :n].tolist())
        return out


FLOAT = OutputKind()
COUNT = Count()

#: Every output kind, by the name a TrecEvalName gives (its ``kind``).
KINDS: dict[str, OutputKind] = {each.name: each for each in (FLOAT, COUNT, GeometricMean(), TopicCount(), RunTag(),
                                                              RankText())}


def kind_of(entry: TrecEvalName) -> OutputKind:
    """The output kind of a measure of trec_eval's table."""
    kind = KINDS.get(entry.kind or "")
    if kind is None:
        raise ValueError(f"trec_eval measure {entry.name}: unknown output kind {entry.kind!r} "
                         f"(one of {', '.join(KINDS)})")
    return kind


__all__ = ["COUNT", "FLOAT", "KINDS", "MIN_GEO_MEAN", "OutputKind", "Printing", "SummaryLine", "TopicColumn",
           "kind_of"]
