"""trec_eval's judgment-group qrels (``-R qrels_jg``: ``qid jg docno rel``, one set of
judgments per group, e.g. per assessor) and its ``*_avgjg`` measures: a measure computed
against each group's judgments on its own, then averaged over the groups that judged the
topic (m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c).
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl

from irstats.errors import InputError, IrstatsWarning


def read_qrels_jg(path) -> dict[str, pl.DataFrame]:
    """Judgment group → its qrels (``topic, docno, rel``), from a ``qid jg docno rel`` file."""
    from irstats.io.trec import _atol, read_columns

    name = str(path)
    frame = read_columns(path, ("topic", "jg", "docno", "rel_text"), "'qid jg docno rel'")
    frame = frame.with_columns(_atol(frame.get_column("rel_text")).alias("rel"))  # trec_eval's atol
    bad = frame.get_column("rel").is_null()
    if bad.any():
        raise InputError("expected an integer relevance grade", path=name, line=int(frame.filter(bad)["line"][0]))
    twice = frame.select(pl.struct("topic", "jg", "docno").is_duplicated()).to_series()
    if twice.any():
        row = frame.filter(twice).row(0, named=True)
        raise InputError(f"topic {row['topic']!r}, group {row['jg']!r}: document {row['docno']!r} is judged twice",
                         path=name, line=row["line"])
    return {jg: frame.filter(pl.col("jg") == jg).select("topic", "docno", "rel")
            for jg in frame.get_column("jg").unique(maintain_order=True).to_list()}


def averaged_over_groups(groups: dict[str, pl.DataFrame], results, measures: list[str], **options) -> dict:
    """Per measure, a one-run ScoreMatrix whose value on a topic is the mean of the measure
    over the judgment groups that judged that topic."""
    import irstats
    from irstats.collection import Collection
    from irstats.ids import bytewise_sorted
    from irstats.scores import ScoreMatrix

    per_group = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrstatsWarning)
        for frame in groups.values():
            # the ids stay the bytes read (Collection.with_byte_ids), as the drop-in prints them
            per_group.append(irstats.evaluate(Collection.with_byte_ids(frame.sort("topic", "docno")), results,
                                              measures, trec_eval_compat=True, **options))
    topics = list(bytewise_sorted({t for scores in per_group for t in next(iter(scores.values())).topics}))
    out = {}
    for name in per_group[0]:
        total, count = np.zeros(len(topics)), np.zeros(len(topics))
        system = per_group[0][name].systems
        for scores in per_group:
            matrix = scores[name]
            for j, topic in enumerate(topics):
                if topic in matrix.topic_positions():
                    value = matrix.value(0, topic)
                    if not np.isnan(value):
                        total[j] += value
                        count[j] += 1
        values = np.where(count > 0, total / np.maximum(count, 1), np.nan)[None, :]
        out[name] = ScoreMatrix(values, system, tuple(topics), name, {}, per_group[0][name].over_topics)
    return out


__all__ = ["averaged_over_groups", "read_qrels_jg"]
