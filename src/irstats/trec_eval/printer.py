"""trec_eval's line layout, in one place: ``%-22s\\t%s\\t%6.4f`` (``%ld`` for the counts), as
both the drop-in (:mod:`irstats.trec_eval.output`) and ``irstats eval --format trec_eval``
(:func:`format_scores`) print it.
"""

from __future__ import annotations


def value_text(value: float, kind: str = "float") -> str:
    """printf's ``%ld`` (``kind="long"``) or ``%6.4f`` of one value. A NaN prints as x86-64's
    0.0/0.0, whose sign bit is set: glibc prints ``-nan``."""
    if kind == "long":
        return str(int(value))
    return f"{value:6.4f}" if value == value else f"{'-nan':>6}"


def value_texts(values: list[float], kind: str = "float") -> list[str]:
    """:func:`value_text` of each value (a column at a time: the drop-in's -q lines)."""
    if kind == "long":
        return [str(int(v)) for v in values]
    return [f"{v:6.4f}" if v == v else f"{'-nan':>6}" for v in values]


def head(name: str, zscored: bool = False) -> str:
    """A line's measure field and tab: the name padded to 22 (``Z`` before it under -Z)."""
    return f"Z{name:<22}\t" if zscored else f"{name:<22}\t"


def line(name: str, topic: str, value, kind: str = "float", zscored: bool = False) -> str:
    """One line, newline included. Under -Z every value is a z-score: printed as a float."""
    if kind == "text":
        return f"{head(name)}{topic}\t{value}\n"
    return f"{head(name, zscored)}{topic}\t{value_text(value, 'float' if zscored else kind)}\n"


def format_scores(matrices, per_topic: bool = False) -> str:
    """Scores (a dict or list of :class:`~irstats.scores.ScoreMatrix`) in trec_eval's layout,
    run after run, for drop-in use: per-topic lines first (with ``per_topic``), then the
    ``all`` lines — ``runid``, ``num_q`` and each measure's summary. Measures trec_eval lacks
    are printed under their canonical names; counts (measures summed over topics) as ``%ld``.
    """
    from irstats.measures import parse_measure

    items = list(matrices.values()) if hasattr(matrices, "values") else list(matrices)
    if not items:
        return ""
    names, kinds = [], []
    for matrix in items:
        measure = parse_measure(matrix.measure)
        names.append(measure.trec_eval_name or matrix.measure)
        kinds.append("long" if measure.definition.over_topics == "sum" else "float")
    out: list[str] = []
    for i, system in enumerate(items[0].systems):
        if per_topic:
            for j, topic in enumerate(items[0].topics):
                out.extend(line(name, topic, _whole(m.values[i, j], kind), kind)
                           for m, name, kind in zip(items, names, kinds) if m.values[i, j] == m.values[i, j])
        out.append(line("runid", "all", system, "text"))
        out.append(line("num_q", "all", int(items[0].num_topics()[i]), "long"))
        out.extend(line(name, "all", _whole(m.summaries()[i], kind), kind) for m, name, kind in zip(items, names, kinds))
    return "".join(out)


def _whole(value: float, kind: str) -> float:
    """A count summed in floating point, rounded to the whole number it stands for."""
    return round(value) if kind == "long" else value


__all__ = ["format_scores", "head", "line", "value_text", "value_texts"]
