"""irstats as an ir_measures provider, so ``ir_measures.calc_aggregate``, ``iter_calc`` and
PyTerrier's ``pt.Experiment`` can evaluate with irstats' engine.

    pip install "irstats[ir_measures]"

    import ir_measures
    import irstats.integrations.ir_measures as irstats_provider

    irstats_provider.register()              # ir_measures.irstats, and first in the default pipeline
    ir_measures.calc_aggregate([ir_measures.AP, ir_measures.nDCG@10], qrels, run)
    ir_measures.irstats.calc_aggregate([ir_measures.P@10], qrels, run)   # this provider only

Supported: every ir_measures measure a family declares it computes the same way
(``Family(..., ir_measures=IrMeasuresName(...))``, irstats.measures.registry) — today P, R,
AP, nDCG (log2 discount, the qrels' grades as gains), RR, Rprec, Bpref, Success, SetP (also
``relative=True``), SetR, SetF, SetAP, infAP, IPrec, NumRet (with ``rel``: relevant
retrieved), NumRel, NumQ, Judged, Accuracy, the C/W/L measures (INST, INSQ, SDCG, BPM,
NERR8–11), Compat and the diversity measures (alpha_DCG, alpha_nDCG, ERR_IA, nERR_IA, NRBP,
nNRBP, P_IA, StRecall: the qrels' iteration field is the subtopic, as pyndeval reads it) — with their cut-off, ``rel`` (the relevance level), ``judged_only``
(condensed lists, trec_eval -J) and family parameters (:func:`ir_measures_names`). Anything
else is declined, and ir_measures' pipeline hands it to the next provider.

Like pytrec_eval (ir_measures' default provider), the whole ranking is evaluated (no -M
1000 cut) by default; give ``depth=1000`` for trec_eval's default, ``score_dtype="float32"``
to break score ties exactly as pytrec_eval does.

Inside ir_measures the provider keeps ir_measures' conventions (its tests/test_providers.py
``test_empty``), not irstats' own checks: a run with no line gives every qrels topic the
measure's ``DEFAULT`` (0); qrels with no judgment give no value (aggregates are NaN); run
topics the qrels do not judge are dropped silently, as every provider drops them (irstats
warns of them); a measure irstats does not compute is a ``ValueError`` naming it and the
provider the default pipeline computes it with. ``irstats.evaluate`` and the command line
keep their errors and warnings.

Speed (issue 25): ir_measures builds an evaluator per call and hands runs over as Python
objects, so the provider takes its lists, dicts of dicts and DataFrames straight to the
judgments tensor (:mod:`irstats.integrations.columns`: a dict look-up per line, one numpy
sort only for a run not written in ranking order; no pandas or polars on the way) and keeps
the qrels' collection between calls (the very same rows, or equal columns: never a stale
one). What that path declines (ids that are not text, real-valued labels, a document twice,
the diversity measures' subtopic qrels …) goes through a frame and
:class:`irstats.evaluate.Evaluator`, with the same values. bench/bench_ir_measures.py
measures it against the pytrec_eval provider.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import lru_cache, partial
from operator import is_
from typing import TYPE_CHECKING, Any, Iterator, cast

try:
    import ir_measures
    from ir_measures import Metric, providers
    from ir_measures.util import CalcResults
except ImportError as exc:  # pragma: no cover - the optional extra is missing
    raise ImportError("the ir_measures provider needs ir_measures: pip install \"irstats[ir_measures]\"") from exc

from irstats.errors import InputError, IrstatsWarning, MeasureError

if TYPE_CHECKING:
    import numpy as np

    from irstats.collection import EvalOptions
    from irstats.judgments import Judgments

NAME = "irstats"


def ir_measures_names() -> set[str]:
    """The ir_measures measure names some irstats family declares (``Family.ir_measures``)."""
    from irstats.measures import FAMILIES

    return {f.ir_measures.name for f in FAMILIES.values() if f.ir_measures is not None}


def irstats_name(measure) -> str | None:
    """The irstats measure that computes this ir_measures measure, or None: the first family
    whose :class:`~irstats.measures.registry.IrMeasuresName` accepts it (see there), with
    ir_measures' parameters as the family's and its cut-off (``AT_PARAM``) as ``@k``.

    ``judged_only`` is not part of the name: it is an evaluation option (trec_eval -J).
    """
    # Kept per measure as written (ir_measures asks for every measure of every call), keyed by
    # the parameters given and their types: ir_measures counts Accuracy(rel=1) equal to
    # Accuracy (a default given), but irstats names them apart, and 1 and True print otherwise.
    try:
        key = (type(measure), measure.NAME, tuple((k, type(v), v) for k, v in sorted(measure.params.items())))
        return _NAMES[key]
    except TypeError:  # an unhashable parameter (a dict of gains): computed each time
        return _irstats_name(measure)
    except KeyError:
        found = _NAMES[key] = _irstats_name(measure)
        return found


#: irstats_name's answers, by the measure's type, name and parameters as given.
_NAMES: dict[tuple, str | None] = {}


def _irstats_name(measure) -> str | None:
    """:func:`irstats_name`, computed."""
    from irstats.measures import FAMILIES, parse_measure

    given = dict(measure.params)
    given.pop("judged_only", None)
    cutoff = given.pop(measure.AT_PARAM, None)

    def value_of(name):
        return measure[name] if name in measure.SUPPORTED_PARAMS else given.get(name)

    for family in FAMILIES.values():
        declared = family.ir_measures
        if declared is None or declared.name != measure.NAME or not declared.accepts(given, value_of):
            continue
        own = {p.name for p in family.params}
        checked = {name for name, _ in cast("tuple[tuple[str, Any], ...]", declared.only)}  # pairs since __post_init__
        if any(key not in own and key not in checked for key in given):
            continue  # a parameter the family does not take: declined
        text = ",".join(f"{key}={_text(value)}" for key, value in sorted(given.items()) if key in own)
        full = family.name + (f"({text})" if text else "") + ("" if cutoff is None else f"@{_text(cutoff)}")
        try:
            return str(parse_measure(full))  # canonical, as the ScoreMatrix is named
        except MeasureError:
            continue
    return None


#: ``register(iprec_round=…)``: how IPrec@r turns r into a number of relevant documents —
#: trec_eval 10's ``lround(r·R)`` (irstats' own, the default) or ``"trec_eval_9"``,
#: ``(long)(r·R + 0.9)``, the cut of trec_eval 9 and so of pytrec_eval, ir_measures' default
#: provider (irstats.measures.interpolated). They differ where r·R has a fractional part in
#: [0.1, 0.5): on DL 2019, 444 of 6,880 (run, topic, level) values of 10 runs at 16 levels.
IPREC_ROUNDS = ("lround", "trec_eval_9")


def _supported_name(measure) -> str:
    """:func:`irstats_name` of a measure irstats computes, and :func:`_unsupported`'s error for
    another (the provider declines those before it builds an :class:`IrstatsEvaluator`)."""
    name = irstats_name(measure)
    if name is None:
        raise _unsupported([measure], None)
    return name


def _rounded(name: str, iprec_round: str) -> str:
    """An irstats IPrec name with the provider's ``iprec_round``; any other name as it is."""
    if iprec_round == "lround":
        return name
    from dataclasses import replace

    from irstats.measures import parse_measure
    from irstats.measures.interpolated import ROUND_PARAM

    measure = parse_measure(name)
    if ROUND_PARAM.name not in dict(measure.params):  # a family without the recall cut (all but IPrec's)
        return name
    return str(replace(measure, params=tuple((k, iprec_round if k == ROUND_PARAM.name else v)
                                             for k, v in measure.params)))


def _check_options(options: dict) -> None:
    """The provider's options checked at once (``register(bogus=1)`` would fail at the next
    ir_measures call otherwise): each an :class:`irstats.collection.EvalOptions` field, each
    value one it takes — errors name the keyword, with a "did you mean"."""
    import dataclasses

    from irstats.collection import EvalOptions
    from irstats.errors import ArgumentError, did_you_mean

    fields = [f.name for f in dataclasses.fields(EvalOptions)] + ["iprec_round"]
    for key in options:
        if key not in fields:
            raise ArgumentError(f"unknown option {key!r} of the irstats provider (it takes {', '.join(fields)})"
                                f"{did_you_mean(key, fields)}", argument=key)
    EvalOptions(**options)


def _need_subtopics(measures) -> bool:
    """Whether a measure's family reads subtopic judgments (the diversity measures)."""
    return any(_needs(irstats_name(m)) for m in measures)


@lru_cache(maxsize=1024)
def _needs(name: str) -> bool:
    """Whether the irstats measure ``name`` needs judgments beyond the qrels (kept per name)."""
    from irstats.measures import parse_measure

    return bool(parse_measure(name).definition.needs)


def _text(value) -> str:
    """A parameter value as irstats' names write it (ir_measures' booleans as true/false)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)


class UnsupportedMeasureError(MeasureError, ValueError):
    """An ir_measures measure this provider does not compute (a ValueError, as ir_measures'
    providers raise for an unsupported measure)."""


def _unsupported(measures, provider) -> UnsupportedMeasureError:
    """The error for measures irstats does not compute: which ones, and which provider ir_measures'
    default pipeline computes each with instead (the first available one that supports it)."""
    routes: dict[str | None, list[str]] = {}
    for measure in measures:
        other = next((p.NAME for p in ir_measures.DefaultPipeline.providers
                      if p is not provider and getattr(p, "NAME", None) != NAME and _supported_by(p, measure)), None)
        routes.setdefault(other, []).append(str(measure))
    names = ", ".join(str(m) for m in measures)
    noun = "measure" if len(measures) == 1 else "measures"
    parts = [f"{' and '.join(shown)} with {other}" for other, shown in routes.items() if other is not None]
    message = f"irstats does not compute the ir_measures {noun} {names}"
    if parts:
        message += ("; ir_measures' default pipeline (ir_measures.calc_aggregate, ir_measures.iter_calc) "
                    "computes " + "; ".join(parts))
    if None in routes:
        message += f"; no other installed ir_measures provider computes {' and '.join(routes[None])}"
    return UnsupportedMeasureError(message)


def _supported_by(provider, measure) -> bool:
    try:
        return provider.is_available() and provider.supports(measure)
    except Exception:  # a provider's own check failing is not this error's business
        return False


class IrstatsProvider(providers.Provider):
    """irstats' evaluation engine (trec_eval 10's rules) behind ir_measures' interface."""

    NAME = NAME
    SUPPORTED_MEASURES: list = []  # supports() decides by irstats' own parser

    #: Qrels kept, by content, between calls (ir_measures' one-call functions build an
    #: evaluator per run, and PyTerrier one per system, on the same qrels).
    KEPT_QRELS = 4

    def __init__(self, iprec_round: str = "lround", **options: Any):
        super().__init__()
        self.options = {"depth": None, **options}
        _check_options(self.options)
        if iprec_round not in IPREC_ROUNDS:
            from irstats.errors import ArgumentError, did_you_mean

            raise ArgumentError(f"iprec_round must be one of {', '.join(IPREC_ROUNDS)}; got {iprec_round!r}"
                                f"{did_you_mean(iprec_round, IPREC_ROUNDS)}", argument="iprec_round")
        self.iprec_round = iprec_round
        self._kept: list[tuple] = []  # (shape, snapshot, Collection or None), the newest last

    def supports(self, measure) -> bool:
        measure.validate_params()
        return irstats_name(measure) is not None

    def initialize(self) -> None:
        import irstats  # noqa: F401 - always available: this module is part of irstats

    def _evaluator(self, measures, qrels):
        measures = list(measures)
        unsupported = [m for m in measures if irstats_name(m) is None]
        if unsupported:
            raise _unsupported(unsupported, self)
        qrels = _materialized(qrels)
        if not _need_subtopics(measures):
            collection = self._collection(qrels)
            if collection is not None:
                return IrstatsEvaluator(measures, collection, self.options, set(collection.topics), direct=True,
                                        iprec_round=self.iprec_round)
        return self._general_evaluator(measures, qrels)

    def _collection(self, qrels):
        """The Collection of these qrels (:func:`irstats.integrations.columns.qrels_collection`),
        or None when the direct path does not take them (or their shape, or no judgment);
        kept for the next calls. A list of rows is the one kept when it holds the very same row
        objects (namedtuples do not change); a dict or a frame, which can change in place, when
        its columns are equal."""
        import numpy as np

        from irstats.integrations.columns import qrels_collection

        columns = None
        if isinstance(qrels, list):
            snapshot: tuple = tuple(qrels)

            def same(kept: tuple) -> bool:
                return len(kept) == len(snapshot) and all(map(is_, kept, snapshot))
        else:
            columns = _qrels_columns(qrels)
            if columns is None:
                return None
            topics, docnos, grades = columns
            # the grades' types too: 1 == 1.0 == True, but a real-valued label is read otherwise
            kinds = grades.dtype.str if isinstance(grades, np.ndarray) else frozenset(map(type, grades))
            snapshot = (topics, docnos, kinds, grades.tolist() if isinstance(grades, np.ndarray) else grades)

            def same(kept: tuple) -> bool:
                return kept == snapshot
        for shape, kept, collection in self._kept:
            if shape is type(qrels) and same(kept):
                return collection
        columns = columns or _qrels_columns(qrels)
        collection = qrels_collection(*columns) if columns is not None else None
        self._kept = [*self._kept[-(self.KEPT_QRELS - 1):], (type(qrels), snapshot, collection)]
        return collection

    def _general_evaluator(self, measures: list, qrels) -> "IrstatsEvaluator":
        """Qrels the direct path does not take (numbers as ids, real-valued labels, a pair
        judged twice …) or the diversity measures' subtopic qrels: through a frame and
        irstats' readers, which apply every rule and name what is wrong."""
        from irstats.collection import Collection

        frame = ir_measures.util.QrelsConverter(qrels).as_pd_dataframe()
        if len(frame) == 0:  # ir_measures: no qrels topic, so no value (irstats: an InputError)
            return IrstatsEvaluator(measures, None, self.options, iprec_round=self.iprec_round)
        if not _need_subtopics(measures):
            collection = Collection.load(frame[["query_id", "doc_id", "relevance"]])
            return IrstatsEvaluator(measures, collection, self.options, set(frame["query_id"]),
                                    iprec_round=self.iprec_round)
        # diversity measures: the qrels' iteration is the subtopic, as pyndeval reads it; the
        # other measures see each document at its largest grade (TREC's ad hoc qrels)
        from irstats.subtopics import SubtopicQrels

        subtopics = SubtopicQrels(frame.assign(subtopic=frame["iteration"].astype(str) if "iteration" in frame
                                               else "0").rename(columns={"query_id": "topic", "doc_id": "docno",
                                                                         "relevance": "grade"}))
        collection = subtopics.collection()
        return IrstatsEvaluator(measures, collection, self.options, set(frame["query_id"]), subtopics,
                                iprec_round=self.iprec_round)


def _materialized(data):
    """ir_measures' qrels or run as given, an iterator read into a list (so that the general
    path can read what the direct path declined)."""
    if isinstance(data, (dict, list)) or hasattr(data, "itertuples") or not hasattr(data, "__iter__"):
        return data
    return list(data)


def _qrels_columns(qrels) -> tuple[list, list, Any] | None:
    """ir_measures' qrels (a dict of dicts, a DataFrame or a list of namedtuples) as columns
    ``(topics, docnos, grades)``, or None for anything else (ir_measures' converter then
    decides what it is)."""
    from irstats.integrations.columns import object_columns

    return object_columns(qrels, "relevance")


def _run_lines(run):
    """ir_measures' run (a dict of dicts, a DataFrame or a list of namedtuples) as
    :class:`irstats.integrations.columns.RunLines`, or None for anything else or scores that
    are not numbers (the frame path reads or refuses them)."""
    import numpy as np

    from irstats.integrations.columns import RunLines, object_columns

    if isinstance(run, dict):
        return RunLines.of_dicts(run)
    columns = object_columns(run, "score")
    if columns is None:
        return None
    topics, docnos, scores = columns
    scores = np.asarray(scores)
    if scores.dtype.kind not in "fiu":
        return None
    return RunLines.of_lines(topics, docnos, scores)


class IrstatsEvaluator(providers.Evaluator):
    """Per topic, the values irstats computes, then (as ir_measures' ``Evaluator.iter_calc``
    does) the measure's DEFAULT for each qrels topic the run does not answer. A measure
    undefined on a topic (irstats' NaN there, e.g. a measure of pairs on a list without a
    relevant and a non-relevant document, or on an empty ranking, a topic the run does not
    answer) is not reported, as ir_measures' own providers of such measures leave those
    topics out.

    A run goes the direct way (:mod:`irstats.integrations.columns`: its lists straight to
    the judgments tensor) when that path takes it, else through a frame and
    :class:`irstats.evaluate.Evaluator`; the values are the same. ``iter_calc``,
    ``calc_aggregate`` and ``calc`` keep ir_measures' results and order but track measures
    by position: an ir_measures measure hashes by its ``repr``, which cost more than
    evaluating a run when done four times per value."""

    def __init__(self, measures, collection, options: dict, qrels_ids: set | None = None, subtopics=None,
                 direct: bool = False, iprec_round: str = "lround"):
        super().__init__(measures, set(collection.topics) if collection is not None else set())
        self.collection = collection
        self.subtopics = subtopics  # irstats.subtopics.SubtopicQrels, for the diversity measures
        # runs may go the direct way: the qrels did (their ids are the collection's topics as
        # given; qrels read through a frame may have had numbers for ids, which a run must match)
        self.direct = direct
        self.options = options
        self.qrels_ids = qrels_ids or set()  # the qrels' query ids as ir_measures gave them
        self.distinct = list(dict.fromkeys(measures))  # each measure once, in the order given
        self.names = [_rounded(_supported_name(m), iprec_round) for m in self.distinct]
        self.by_mode: dict[bool, list[int]] = {}  # positions in distinct, by judged_only (-J): one tensor each
        for position, measure in enumerate(self.distinct):
            self.by_mode.setdefault(bool(measure.params.get("judged_only", False)), []).append(position)
        self._options: dict[bool, Any] = {}  # EvalOptions by judged_only, made on first use

    def iter_calc(self, run) -> Iterator[Metric]:
        for _, metric in self._metrics(run):
            yield metric

    def calc_aggregate(self, run) -> dict:
        aggregators = [m.aggregator() for m in self.distinct]
        for position, metric in self._metrics(run):
            aggregators[position].add(metric.value)
        return {m: agg.result() for m, agg in zip(self.distinct, aggregators)}

    def calc(self, run) -> CalcResults:
        aggregators = [m.aggregator() for m in self.distinct]
        metrics = []
        for position, metric in self._metrics(run):
            aggregators[position].add(metric.value)
            metrics.append(metric)
        return CalcResults({m: agg.result() for m, agg in zip(self.distinct, aggregators)}, metrics)

    def _metrics(self, run) -> Iterator[tuple[int, Metric]]:
        """Each metric with its measure's position: every computed value, then each measure's
        DEFAULT for the qrels topics it has no value on, by (measure name, topic) as
        ir_measures orders them — none where the measure is undefined."""
        settled: list[set] = [set() for _ in self.distinct]  # topics with a value, or undefined
        for position, topic, value in self._values(run):
            settled[position].add(topic)
            if value is not None:
                yield position, Metric(query_id=topic, measure=self.distinct[position], value=value)
        missing = sorted((str(measure), topic, position) for position, measure in enumerate(self.distinct)
                         for topic in self.qrel_qids if topic not in settled[position])
        for _, topic, position in missing:
            measure = self.distinct[position]
            yield position, Metric(query_id=topic, measure=measure, value=measure.DEFAULT)

    def _values(self, run) -> Iterator[tuple[int, str, float | None]]:
        """``(measure position, topic, value)`` for what irstats computes on the run; value
        None where the measure is undefined (NaN)."""
        import math

        if self.collection is None:
            return
        run = _materialized(run)
        computed = self._direct_scores(run) if self.direct else None
        if computed is None:
            computed = self._general_scores(run)
        scores, answered = computed
        # Every qrels topic is scored, those the run does not answer as empty rankings (complete):
        # where a measure is undefined on an empty ranking, such a topic gets no DEFAULT either.
        # (as text, as the collection names topics: qrels read through a frame may have had numbers for ids)
        reported = {str(t) for t in self.qrels_ids} if self.options.get("complete") else answered
        for positions, matrices in scores:
            for position in positions:
                matrix = matrices[self.names[position]]
                for topic, value in zip(matrix.topics, matrix.values[0].tolist()):
                    if math.isnan(value):
                        yield position, topic, None
                    elif topic in reported:
                        yield position, topic, value

    def options_for(self, judged_only: bool):
        """The EvalOptions of one mode: the provider's, every qrels topic scored (``complete``)."""
        if judged_only not in self._options:
            from irstats.collection import EvalOptions

            self._options[judged_only] = EvalOptions(**{**self.options, "judged_only": judged_only, "complete": True})
        return self._options[judged_only]

    def _direct_scores(self, run) -> tuple[list, set] | None:
        """The run's ScoreMatrix per measure, by mode, and the qrels topics it answers, by the
        direct path; None when that path does not take the run."""
        from irstats.evaluate import score_judgments
        from irstats.integrations.columns import compiled_ranking, ranked_judgments, run_judgments

        # the modes differ in judged_only alone, which the tensor applies after the ranking
        ranked = compiled_ranking(self.collection, run, self.options_for(False))
        judge: Callable[[EvalOptions], tuple[Judgments, np.ndarray] | None]
        if ranked is not None:
            judge = partial(ranked_judgments, self.collection, ranked)
        else:
            lines = _run_lines(run)
            if lines is None:
                return None
            judge = partial(run_judgments, self.collection, lines)
        scores = []
        answered: set = set()
        for judged_only, positions in self.by_mode.items():
            options = self.options_for(judged_only)
            made = judge(options)
            if made is None:
                return None
            judgments, per_topic = made
            if not per_topic.any():  # no ranking for any qrels topic: each topic gets its DEFAULT
                return [], set()
            answered = {topic for topic, n in zip(self.collection.topics, per_topic.tolist()) if n}
            with warnings.catch_warnings():  # ir_measures' conventions: no provider warns
                warnings.simplefilter("ignore", IrstatsWarning)
                scores.append((positions, score_judgments(judgments, sorted({self.names[p] for p in positions}),
                                                          options)))
        return scores, answered

    def _general_scores(self, run) -> tuple[list, set]:
        """:meth:`_direct_scores` through a frame and :class:`irstats.evaluate.Evaluator`."""
        from irstats.evaluate import Evaluator

        frame = ir_measures.util.RunConverter(run).as_pd_dataframe()[["query_id", "doc_id", "score"]]
        # Topics the qrels do not judge count for no provider: drop them here, so irstats does
        # not warn of them (nor stop on a run with no qrels topic at all).
        frame = frame[frame["query_id"].isin(self.qrels_ids)]
        if len(frame) == 0:  # no ranking for any qrels topic: each topic gets its DEFAULT
            return [], set()
        answered = {str(topic) for topic in frame["query_id"].unique()}
        scores = []
        for judged_only, positions in self.by_mode.items():
            options = self.options_for(judged_only)
            evaluator = Evaluator(self.collection, options, subtopic_qrels=self.subtopics)
            with warnings.catch_warnings():  # ir_measures' conventions: no provider warns
                warnings.simplefilter("ignore", IrstatsWarning)
                names = sorted({self.names[p] for p in positions})
                try:
                    scores.append((positions, evaluator.score({"run": frame}, names)))
                except InputError as error:
                    raise _in_ir_measures_words(error, frame) from None
        return scores, answered


def _in_ir_measures_words(error: InputError, frame) -> InputError:
    """An error about the run as irstats read it (a frame of ir_measures' RunConverter: "row 9",
    "DataFrame:54001") in ir_measures' words: the query_id and doc_id of the scored document."""
    import re

    from irstats.errors import ArgumentError

    text = str(error)
    row = re.search(r"column '(\w+)' must hold numbers[^;]*; row (\d+) \(counting from 1\) has (.+)$", text)
    if row:
        at = frame.iloc[int(row[2]) - 1]
        value = at[row[1]]
        value = value.item() if hasattr(value, "item") else value  # numpy's nan as Python's
        return ArgumentError(f"run: the {row[1]} of query_id {at['query_id']!r}, doc_id {at['doc_id']!r} is "
                             f"{value!r}; every ScoredDoc needs a number", argument="run")
    twice = re.search(r"document (.+) appears twice for topic (.+) \(first on line \d+\)", text)
    if twice:
        return InputError(f"run: doc_id {twice[1]} appears twice for query_id {twice[2]}; give each document one "
                          f"score per query")
    return error


def register(default: bool = True, **options: Any) -> IrstatsProvider:
    """Register irstats with ir_measures: as ``ir_measures.irstats`` (and in
    ``ir_measures.providers.registry``) and, with ``default``, first in ir_measures' default
    pipeline, so ``ir_measures.calc_aggregate`` (and PyTerrier) use it for every measure it
    supports. ``options`` are :class:`irstats.collection.EvalOptions` fields. Calling it
    again replaces the earlier registration."""
    provider = IrstatsProvider(**options)
    providers.register(provider)
    setattr(ir_measures, "irstats", provider)  # a name ir_measures does not declare, so set as data
    pipeline = ir_measures.DefaultPipeline.providers
    pipeline[:] = [p for p in pipeline if getattr(p, "NAME", None) != NAME]
    if default:
        pipeline.insert(0, provider)
    return provider


__all__ = ["IrstatsProvider", "UnsupportedMeasureError", "ir_measures_names", "irstats_name", "register"]
