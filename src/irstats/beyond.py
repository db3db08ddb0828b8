"""Judgments beyond the qrels, carried by the judgments tensor: what subtopic qrels
(:mod:`irstats.subtopics`) and preference judgments (:mod:`irstats.preference_judgments`) share.

Each kind is read once (a :class:`Read`: the judgments as a frame, and their facts over each
topic axis an evaluation asks for, :meth:`Read.on`); its facts (an :class:`AxisFacts`) number
the judged documents by row and put, on every batch's tensor, a :class:`RankedRuns` in the
field the families read (``Judgments.subtopics``, ``Judgments.preferences``: the facts'
``tensor_field``). The rows of the ranked documents are found by the engine itself, when a
kernel first asks: the runs ranked against qrels whose grades are the row numbers
(:meth:`AxisFacts.rank_numbered`), as the pool simulation numbers its qrels lines, so reading,
order, depth and duplicates are the engine's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar, Protocol

import numpy as np

if TYPE_CHECKING:
    import polars as pl

    from irstats.collection import Collection, EvalOptions, RunSet
    from irstats.judgments import Judgments


class _FactsType(Protocol):
    """A facts class: built from the judgments as read, over a topic axis."""

    def build(self, frame: pl.DataFrame, topic_keys: tuple[str, ...]) -> AxisFacts: ...


class Read:
    """Judgments as read (``frame``), with their facts over each topic axis (``facts_type``)."""

    facts_type: ClassVar[_FactsType]

    def __init__(self, frame: pl.DataFrame):
        self.frame = frame
        self._facts: dict[tuple[str, ...], AxisFacts] = {}

    @cached_property
    def topic_keys(self) -> tuple[str, ...]:
        """Every judged topic, sorted bytewise (the ids' form keeps that order)."""
        return tuple(sorted(self.frame.get_column("topic").unique().to_list()))

    def on(self, topic_keys: tuple[str, ...]) -> "AxisFacts":
        """The facts over this topic axis (kept: an evaluator asks once per batch)."""
        topic_keys = tuple(topic_keys)
        if topic_keys not in self._facts:
            self._facts[topic_keys] = self.facts_type.build(self.frame, topic_keys)
        return self._facts[topic_keys]


class AxisFacts:
    """Judgments over an evaluation's topic axis, their documents numbered by row (``none``:
    the row of a document they do not judge). A dataclass with ``_cache`` (a dict) mixes it in;
    ``tensor_field`` names the tensor's field, ``handle`` the :class:`RankedRuns` put there."""

    tensor_field: ClassVar[str]
    handle: ClassVar[type]
    topic_keys: tuple[str, ...]
    topic_of_row: np.ndarray  # (D,) each row's topic, a position on the axis
    _cache: dict

    @property
    def none(self) -> int:
        """The row of a document these judgments do not judge (and of the padding past a list)."""
        return len(self.topic_of_row)

    @property
    def n_topics(self) -> int:
        return len(self.topic_keys)

    def attach(self, judgments: "Judgments", collection: "Collection", runset: "RunSet", systems,
               options: "EvalOptions") -> "Judgments":
        """``judgments`` (of the runs ``systems`` of ``runset``, ranked under ``options``)
        carrying these judgments (ranked when first read)."""
        handle = self.handle(self, collection, runset, tuple(systems), options)
        return judgments.variant(**{self.tensor_field: handle})

    def numbered_collection(self, collection: "Collection", docs: pl.DataFrame, key) -> "Collection":
        """``docs`` (``topic, docno, rel``: rel the row) as qrels over ``collection``'s topics,
        kept under ``key`` for this collection."""
        key = ("numbered", id(collection), key)
        kept = self._cache.get(key)
        if kept is not None and kept[0] is collection:
            return kept[1]
        from irstats.collection import Collection

        numbered = Collection(docs.sort("topic", "docno"), collection.topic_keys, collection.source)
        self._cache[key] = (collection, numbered)
        return numbered

    def rank_numbered(self, numbered: "Collection", runset: "RunSet", systems, options: "EvalOptions"):
        """The engine's tensor of the runs ``systems`` against ``numbered`` (its grades the rows)
        and those grades as rows ((S, T, K) int64, :attr:`none` for unjudged documents and past
        the end of a list); the warnings the evaluation gave already are not given again."""
        import warnings

        from irstats.errors import IrstatsWarning
        from irstats.ingest import compiled_judgments
        from irstats.judgments import build_judgments

        options = replace(options, negative_rel="unjudged", g_max=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IrstatsWarning)
            ranked = compiled_judgments(numbered, runset, options, list(systems), outside={})
            if ranked is None:
                ranked = build_judgments(numbered, runset, options, systems=list(systems), outside={})
        codes = ranked.grades.astype(np.int64)
        return ranked, np.where(codes >= 0, codes, self.none)


@dataclass(frozen=True, eq=False)
class RankedRuns:
    """What a tensor carries of judgments beyond the qrels: their facts and, made on first use,
    :attr:`ranked` — the facts' ``ranked(collection, runset, systems, options)`` of the same runs."""

    facts: AxisFacts
    collection: "Collection"
    runset: "RunSet"
    systems: tuple[int, ...]
    options: "EvalOptions"

    def for_systems(self, systems) -> "RankedRuns":
        """The same for other runs of the run set (a tensor made of several batches)."""
        return replace(self, systems=tuple(systems))

    @cached_property
    def ranked(self):
        return self.facts.ranked(self.collection, self.runset, list(self.systems), self.options)


__all__ = ["AxisFacts", "RankedRuns", "Read"]
