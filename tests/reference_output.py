"""Plain-Python reference of trec_eval's output layout: a line at a time, as irstats printed it
before its printers laid out columns (issue 36). Slow and literal, for the tests only; it never
imports ``irstats``.

``%-22s\\t%s\\t%6.4f`` per line (``%ld`` for the counts, ``-nan`` for a NaN), per system: every
topic's lines (measures in order, the topics a system was not evaluated on left out), then
``runid``, ``num_q`` and each measure's summary on the ``all`` lines.
"""

from __future__ import annotations

import math


def value_text(value: float, kind: str = "float") -> str:
    """printf's ``%ld`` or ``%6.4f``; a NaN prints as glibc prints x86-64's 0.0/0.0."""
    if kind == "long":
        return str(int(value))
    return f"{value:6.4f}" if value == value else f"{'-nan':>6}"


def line(name: str, topic: str, value, kind: str = "float") -> str:
    text = value if kind == "text" else value_text(value, kind)
    return f"{name:<22}\t{topic}\t{text}\n"


def trec_eval_layout(systems, topics, columns, per_topic: bool) -> str:
    """``columns``: (printed name, kind, values as a list per system of a list per topic).
    A count's per-topic value and sum are rounded to whole numbers (Python's round)."""
    out = []
    for i, system in enumerate(systems):
        if per_topic:
            for j, topic in enumerate(topics):
                for name, kind, values in columns:
                    v = values[i][j]
                    if v == v:
                        out.append(line(name, topic, round(v) if kind == "long" else v, kind))
        out.append(line("runid", "all", system, "text"))
        counted = [j for j in range(len(topics)) if any(values[i][j] == values[i][j] for _, _, values in columns[:1])]
        out.append(line("num_q", "all", len(counted), "long"))
        for name, kind, values in columns:
            present = [v for v in values[i] if v == v]
            if kind == "long":
                out.append(line(name, "all", round(math.fsum(present)) if present else 0, kind))
            else:
                mean = sum(present) / len(present) if present else float("nan")
                out.append(line(name, "all", mean, kind))
    return "".join(out)
