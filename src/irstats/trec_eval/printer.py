"""trec_eval's line layout, in one place: ``%-22s\\t%s\\t%6.4f`` (``%ld`` for the counts), as
both the drop-in (:mod:`irstats.trec_eval.output`) and ``irstats eval --format trec_eval``
(:func:`format_scores`) print it.

Per-topic lines are laid out a block at a time, a column of values at once
(:func:`block_texts`, :func:`lines`): each value's text is its output kind's
(:mod:`irstats.trec_eval.kinds`: numpy rounds a whole column to four decimals and polars writes
the lines, with no Python call per line). :func:`line` is the layout of one line: the
drop-in's few ``all`` lines.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Iterator, Sequence

from irstats.trec_eval.kinds import KINDS, OutputKind, TopicColumn

if TYPE_CHECKING:
    import numpy as np
    import polars as pl


def block_texts(columns: Sequence[TopicColumn], n_rows: int) -> pl.Series:
    """The texts of a block of columns (each :class:`~irstats.trec_eval.kinds.TopicColumn` of
    ``n_rows`` values, printed by its kind) as one series in row-major order (row r, column k
    at ``r * len(columns) + k``): the columns of one kind printed in one call
    (:meth:`~irstats.trec_eval.kinds.OutputKind.block_column`)."""
    import numpy as np
    import polars as pl

    by_kind: dict[OutputKind, list[int]] = {}
    for k, column in enumerate(columns):
        by_kind.setdefault(column.kind, []).append(k)
    if len(by_kind) == 1:  # one kind: already in row-major order
        [(kind, _)] = by_kind.items()
        return kind.block_column([column.values for column in columns])
    parts, where = [], np.empty((n_rows, len(columns)), dtype=np.int64)
    offset = 0
    for kind, chosen in by_kind.items():
        parts.append(kind.block_column([columns[k].values for k in chosen]))
        where[:, chosen] = offset + np.arange(n_rows * len(chosen)).reshape(n_rows, len(chosen))
        offset += n_rows * len(chosen)
    return pl.concat(parts).gather(where.ravel()) if parts else pl.Series([], dtype=pl.String)


def lines(names: Sequence[str], topics: Sequence[str], texts: pl.Series, keep: np.ndarray | None = None) -> str:
    """The per-topic lines of a block of topics, topic after topic and each topic's values in
    the order of ``names``: ``texts[t * len(names) + k]`` is name k's value text on topic t
    (already printed: :func:`block_texts`, or a relstring's quoted text). ``names`` are the
    measure fields as :func:`head` pads them, tab excluded; ``keep`` (topics × names, optional)
    leaves lines out. Laid out by polars' CSV writer: tabs between the fields, nothing quoted."""
    import numpy as np

    n_topics, n_names = len(topics), len(names)
    cell = np.arange(n_topics * n_names, dtype=np.int64)
    if keep is not None:
        cell = cell[np.asarray(keep, dtype=bool).ravel()]
    return _write(names, topics, cell % n_names, cell // n_names, texts.gather(cell))


def _write(names: Sequence[str], topics: Sequence[str], name: np.ndarray, topic: np.ndarray,
           texts: pl.Series) -> str:
    """Lines ``names[name[r]] TAB topics[topic[r]] TAB texts[r]`` by polars' CSV writer."""
    import polars as pl

    if not len(texts):
        return ""
    frame = pl.DataFrame({
        "name": pl.Series(list(names), dtype=pl.String).gather(name),
        "topic": pl.Series(list(topics), dtype=pl.String).gather(topic),
        "value": texts,
    })
    return frame.write_csv(include_header=False, separator="\t", quote_style="never", line_terminator="\n")


def head(name: str, zscored: bool = False) -> str:
    """A line's measure field and tab: the name padded to 22 (``Z`` before it under -Z)."""
    return f"Z{name:<22}\t" if zscored else f"{name:<22}\t"


def line(name: str, topic: str, text: str, zscored: bool = False) -> str:
    """One line, newline included: a value's text (its kind's) under a name (``Z`` before it
    under -Z)."""
    return f"{head(name, zscored)}{topic}\t{text}\n"


@lru_cache(maxsize=256)
def printed_names(measures: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[OutputKind, ...]]:
    """trec_eval's printed name (the canonical name where trec_eval lacks the measure) and output
    kind (a count for the measures summed over topics: registry.SUMMARY_KINDS) of each measure:
    parsed once per set of measures, however many systems and blocks are printed."""
    from irstats.measures import parse_measure
    from irstats.measures.registry import SUMMARY_KINDS

    parsed = [parse_measure(name) for name in measures]
    return (tuple(m.trec_eval_name or name for m, name in zip(parsed, measures)),
            tuple(KINDS[SUMMARY_KINDS[m.definition.over_topics]] for m in parsed))


#: Per-topic lines laid out at once by :func:`score_chunks` (those of several systems with few
#: topics; a block of the topics of one system with many).
BLOCK_LINES = 1 << 15

#: Up to this many lines, a block is laid out a line at a time by :func:`line`'s layout (a few
#: milliseconds) rather than a column at a time through polars, whose import alone (0.15 s)
#: would double the start-up of a short command, such as the drop-in on one small run. Either
#: way the bytes are the same (tests/test_columnar_output.py holds both to the reference).
SMALL_LINES = 4096


def small_lines(fields: Sequence[str], topics: Sequence[str], cells: Sequence[tuple[int, int, str]]) -> str:
    """The lines ``fields[k] TAB topics[t] TAB text`` of ``cells`` (k, t, text), one at a time:
    the layout of a block of at most :data:`SMALL_LINES` lines."""
    return "".join(f"{fields[k]}\t{topics[t]}\t{text}\n" for k, t, text in cells)


def score_chunks(matrices, per_topic: bool = False, *, block_lines: int | None = None) -> Iterator[str]:
    """:func:`format_scores` in pieces of about ``block_lines`` (default :data:`BLOCK_LINES`)
    lines: systems with their per-topic lines (with ``per_topic``) and their ``all`` lines, a
    system's per-topic lines split into blocks of topics when it has more. The matrices share one topic axis, as
    :func:`irstats.evaluate` makes them (topic j is column j of each)."""
    import numpy as np

    items = list(matrices.values()) if hasattr(matrices, "values") else list(matrices)
    if not items:
        return
    block_lines = block_lines or BLOCK_LINES
    names, kinds = printed_names(tuple(m.measure for m in items))
    n_measures = len(items)
    fields = [head(name)[:-1] for name in (*names, "runid", "num_q")]
    summaries = np.stack([m.summaries() for m in items], axis=1)  # systems × measures
    summaries = np.stack([printed_as.whole(summaries[:, k]) for k, printed_as in enumerate(kinds)], axis=1)
    num_q = items[0].num_topics()
    systems, topics = items[0].systems, items[0].topics
    topics = topics if per_topic else ()
    n_topics = len(topics)
    step = max(block_lines // max(n_measures, 1), 1)  # topics in a block
    units = [(i, start, min(start + step, n_topics)) for i in range(len(systems))
             for start in range(0, max(n_topics, 1), step)]  # a system's last block ends in its all lines
    group: list[tuple[int, int, int]] = []
    size = 0
    for k, unit in enumerate(units):
        group.append(unit)
        size += (unit[2] - unit[1]) * n_measures + n_measures + 2
        if size >= block_lines or k == len(units) - 1:
            yield _units_text(items, kinds, fields, topics, systems, summaries, num_q, group)
            group, size = [], 0


def _units_text(items, kinds, fields, topics, systems, summaries, num_q, units) -> str:
    """The lines of ``units`` (system, first topic, end topic): each unit's per-topic lines (the
    topics a system was not evaluated on left out), and after a system's last unit its ``all``
    lines, laid out by one call of polars' CSV writer (a line at a time up to :data:`SMALL_LINES`)."""
    import numpy as np

    n_measures, n_topics = len(items), len(topics)
    stacked = [np.stack([m.values[i, start:stop] for m in items], axis=1) for i, start, stop in units]
    block = np.concatenate(stacked) if stacked else np.empty((0, n_measures))
    keep = ~np.isnan(block)
    block = np.where(keep, block, 0.0)
    for k, printed_as in enumerate(kinds):  # counts summed in floating point: the whole number each stands for
        block[:, k] = printed_as.whole(block[:, k])
    closing = [i for i, start, stop in units if stop >= n_topics]  # systems whose all lines end here
    if block.size + len(closing) * (n_measures + 2) <= SMALL_LINES:
        return _small_units_text(block, keep, kinds, fields, (*topics, "all"), systems, summaries, num_q, units)
    import polars as pl

    slot = {i: s for s, i in enumerate(closing)}
    texts = [_kinds_texts(block, kinds), _kinds_texts(summaries[closing], kinds),
             pl.Series([systems[i] for i in closing], dtype=pl.String),
             pl.Series(num_q[closing].astype(np.int64)).cast(pl.String)]
    base = np.cumsum([0] + [len(t) for t in texts])
    name_parts, topic_parts, text_parts = [], [], []
    row = 0
    for i, start, stop in units:
        cells = np.arange(row * n_measures, (row + stop - start) * n_measures)
        cells = cells[keep[row:row + stop - start].ravel()]
        name_parts.append(cells % n_measures)
        topic_parts.append(start + cells // n_measures - row)
        text_parts.append(cells)
        row += stop - start
        if stop >= n_topics:  # runid, num_q, then each measure's summary
            s = slot[i]
            name_parts.append(np.array([n_measures, n_measures + 1, *range(n_measures)]))
            topic_parts.append(np.full(n_measures + 2, n_topics))
            text_parts.append(np.array([base[2] + s, base[3] + s, *(base[1] + s * n_measures + np.arange(n_measures))]))
    text = pl.concat(texts).gather(np.concatenate(text_parts))
    return _write(fields, (*topics, "all"), np.concatenate(name_parts), np.concatenate(topic_parts), text)


def _small_units_text(block, keep, kinds, fields, topics, systems, summaries, num_q, units) -> str:
    """:func:`_units_text`'s lines of a small block, a line at a time (``topics`` ends in ``all``)."""
    n_measures = len(kinds)
    n_topics = len(topics) - 1
    cells: list[tuple[int, int, str]] = []
    row = 0
    for i, start, stop in units:
        values, kept = block[row:row + stop - start].tolist(), keep[row:row + stop - start].tolist()
        cells += [(k, start + t, kinds[k].text(v)) for t, (vs, ks) in enumerate(zip(values, kept))
                  for k, (v, kk) in enumerate(zip(vs, ks)) if kk]
        row += stop - start
        if stop >= n_topics:  # runid, num_q, then each measure's summary
            cells += [(n_measures, n_topics, systems[i]), (n_measures + 1, n_topics, str(int(num_q[i])))]
            cells += [(k, n_topics, kinds[k].text(v)) for k, v in enumerate(summaries[i].tolist())]
    return small_lines(fields, topics, cells)


def _kinds_texts(block: np.ndarray, kinds: Sequence[OutputKind]) -> pl.Series:
    """:func:`block_texts` of a block of values (rows × columns), column k printed by ``kinds[k]``."""
    return block_texts([TopicColumn("", False, printed_as, block[:, k]) for k, printed_as in enumerate(kinds)],
                       len(block))


def format_scores(matrices, per_topic: bool = False) -> str:
    """Scores (a dict or list of :class:`~irstats.scores.ScoreMatrix`) in trec_eval's layout,
    run after run, for drop-in use: per-topic lines first (with ``per_topic``), then the
    ``all`` lines — ``runid``, ``num_q`` and each measure's summary. Measures trec_eval lacks
    are printed under their canonical names; counts (measures summed over topics) as ``%ld``.
    """
    return "".join(score_chunks(matrices, per_topic))


__all__ = ["BLOCK_LINES", "SMALL_LINES", "block_texts", "format_scores", "head", "line", "lines", "printed_names",
           "score_chunks"]
