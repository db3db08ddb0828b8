"""Brute-force reference for tie-aware measures: every ordering of the tied documents, averaged.

Deliberately literal: the documents of one topic are put in score order, cut into groups of
equal score (equal rank under rank order), and every ordering — ``itertools.permutations``
inside each group, all combinations across groups, repeats included — is scored by a
per-ranking scorer and the scores are averaged. It knows nothing of closed forms; it must
never import ``irstats``'s tie code.
"""

from __future__ import annotations

import itertools
from typing import Callable, Iterator, Sequence

from reference import _grade, _id_bytes, topic_score


def tie_groups(lines: Sequence[tuple], order: str = "score") -> list[list[str]]:
    """One topic's run lines ``(topic, docno, rank, score)`` as groups of tied docnos, best first.

    Score order: score descending (docno descending inside a group, which the averaging
    ignores); rank order: rank ascending, file order inside a group."""
    if order == "score":
        ordered = sorted(lines, key=lambda line: (line[3], _id_bytes(line[1])), reverse=True)
        key = lambda line: line[3]  # noqa: E731
    elif order == "rank":
        ordered = sorted(lines, key=lambda line: int(line[2]))
        key = lambda line: int(line[2])  # noqa: E731
    else:
        raise ValueError(f"no ties under order {order!r}")
    return [[line[1] for line in group] for _, group in itertools.groupby(ordered, key=key)]


def every_ordering(groups: list[list[str]]) -> Iterator[list[str]]:
    """Every ranking that keeps the groups in place and orders each group's documents any way."""
    for choice in itertools.product(*(itertools.permutations(group) for group in groups)):
        yield [docno for group in choice for docno in group]


def expected_score(lines: Sequence[tuple], qrels_topic: dict, measure: str, *, order: str = "score",
                   rel_level: int = 1, g_max: int | None = None, judged_only: bool = False,
                   scorer: Callable[[list[str]], float] | None = None) -> float:
    """The mean of ``measure`` over every ordering of one topic's tied documents.

    ``scorer(ranked)`` scores one ranked list (default: :func:`reference.topic_score`);
    ``judged_only`` drops unjudged documents from each ordering first (trec_eval -J)."""
    if scorer is None:
        def scorer(ranked):
            return topic_score(ranked, qrels_topic, measure, rel_level=rel_level, g_max=g_max)
    total, count = 0.0, 0
    for ranked in every_ordering(tie_groups(lines, order)):
        if judged_only:
            ranked = [d for d in ranked if _grade(qrels_topic, d) is not None]
        total += scorer(ranked)
        count += 1
    return total / count
