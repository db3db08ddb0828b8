"""``irstats preferences``: trec_eval's preference measures with preference judgments alone —
a shortcut of :func:`irstats.evaluate` with ``preferences``.

The measures are registered families (measures/preferences.py: ``NumPrefsPoss``,
``NumPrefsFul``, ``NumPrefsFulRet``, ``PrefsSimp``, ``PrefsPair``, ``PrefsAvgJG``,
``PrefsAvgJGRnonrel`` and the last four with ``Ret`` or ``Imp``; trec_eval's names —
``prefs_simp`` … — are theirs too), so ``irstats eval QRELS RUNS --prefs FILE -m PrefsSimp``
computes the same values next to any other measure, and ``irstats trec_eval -R prefs`` prints
them. Here the preferences are the only judgments: the runs are ranked against the documents
they judge, over their topics, with no depth limit unless ``depth`` is given. The judgments,
their reading and their checks are :mod:`irstats.preference_judgments`'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irstats.errors import MeasureError
from irstats.preference_judgments import NEED, PreferenceError, PreferenceJudgments, read_prefs

if TYPE_CHECKING:
    from irstats.scores import ScoreMatrix


def _families():
    from irstats.measures import FAMILIES

    return sorted((f for f in FAMILIES.values() if f.needs == NEED), key=lambda f: f.trec_eval[0].order)


def __getattr__(name: str):
    """``MEASURES`` (irstats name → trec_eval name, in trec_eval's print order) and ``COUNTS``
    (the measures summed over topics), read from the families' declarations."""
    if name == "MEASURES":
        return {f.name: f.trec_eval[0].name for f in _families()}
    if name == "COUNTS":
        return tuple(f.name for f in _families() if f.over_topics == "sum")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def measure_name(name: str) -> str:
    """The irstats name of a preference measure given by either name (``PrefsSimp`` or
    ``prefs_simp``)."""
    from irstats.measures import parse_measure

    if not isinstance(name, str):
        from irstats.checks import kind_of
        from irstats.errors import ArgumentTypeError

        raise ArgumentTypeError(f"a preference measure name must be text (e.g. PrefsSimp); got {kind_of(name)}",
                                argument="name")
    try:
        measure = parse_measure(name)
    except MeasureError:
        measure = None
    if measure is None or measure.definition.needs != NEED:
        raise MeasureError(f"unknown preference measure {name!r}; expected one of "
                           f"{', '.join(f.name for f in _families())}")
    return str(measure)


def evaluate_preferences(prefs, runs, measures=None, *, from_qrels: bool = False, depth: int | None = None,
                         complete: bool = False, **options) -> dict[str, ScoreMatrix]:
    """Evaluate runs against preference judgments: one ScoreMatrix per measure (systems ×
    topics), with trec_eval's preference rules.

    ``prefs``: a prefs file or frame (:func:`read_prefs`; ``from_qrels=True`` reads a qrels file as
    trec_eval's ``-R qrels_prefs``), or :class:`~irstats.preference_judgments.PreferenceJudgments`;
    ``runs``: what :func:`irstats.evaluate` takes; ``measures``: irstats or trec_eval names
    (default: all 14); ``depth``: only the first ``depth`` documents of each ranking (trec_eval's
    -M); ``complete``: every judged topic, a topic a run did not answer scoring as an empty
    ranking (-c). Otherwise a run is scored on the judged topics it answers (NaN elsewhere).
    ``options``: other :class:`~irstats.collection.EvalOptions` fields. The same as
    ``irstats.evaluate(the judged documents, runs, measures, preferences=prefs, depth=depth)``.

    >>> import polars as pl
    >>> prefs = pl.DataFrame({"topic": ["q"] * 3, "jg": ["u"] * 3, "jsg": ["s"] * 3,
    ...                       "docno": ["a", "b", "c"], "level": [2.0, 1.0, 0.0]})
    >>> run = pl.DataFrame({"topic": ["q"] * 3, "docno": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
    >>> scores = evaluate_preferences(prefs, {"r": run}, ["PrefsSimp", "NumPrefsPoss"])
    >>> float(scores["PrefsSimp"].values[0, 0]), float(scores["NumPrefsPoss"].values[0, 0])
    (0.6666666666666666, 3.0)
    """
    from irstats.checks import names as name_list, optional_whole
    from irstats.collection import EvalOptions
    from irstats.evaluate import Evaluator

    wanted = ([f.name for f in _families()] if measures is None else
              [measure_name(m) for m in name_list(measures, "measures", what="measure names")])
    optional_whole(depth, "depth", minimum=1)
    # trec_eval's rules, with -c a run answering no judged topic too (every topic as empty)
    opts = EvalOptions(**{"trec_eval_compat": True, **options, "depth": depth, "complete": complete})
    judged = prefs if isinstance(prefs, PreferenceJudgments) else PreferenceJudgments(prefs, from_qrels=from_qrels)
    scores = Evaluator(judged.collection(), opts, preferences=judged).score(runs, wanted)
    return {name: _every_topic(matrix, judged.topic_keys) for name, matrix in scores.items()}


def _every_topic(matrix: ScoreMatrix, topics: tuple[str, ...]) -> ScoreMatrix:
    """``matrix`` over every judged topic, NaN on those no run answers (which the engine
    leaves out)."""
    import dataclasses

    import numpy as np

    from irstats.io.trec import shown

    topics = tuple(shown(t) for t in topics)
    if matrix.topics == topics:
        return matrix
    values = np.full((len(matrix.systems), len(topics)), np.nan)
    values[:, [topics.index(t) for t in matrix.topics]] = matrix.values
    return dataclasses.replace(matrix, values=values, topics=topics)


__all__ = ["COUNTS", "MEASURES", "PreferenceError", "PreferenceJudgments", "evaluate_preferences", "measure_name",
           "read_prefs"]
