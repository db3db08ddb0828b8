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
"""

from __future__ import annotations

import warnings
from typing import Any, Iterator

try:
    import ir_measures
    from ir_measures import Metric, providers
except ImportError as exc:  # pragma: no cover - the optional extra is missing
    raise ImportError("the ir_measures provider needs ir_measures: pip install \"irstats[ir_measures]\"") from exc

from irstats.errors import IrstatsWarning, MeasureError

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
        checked = {name for name, _ in declared.only}
        if any(key not in own and key not in checked for key in given):
            continue  # a parameter the family does not take: declined
        text = ",".join(f"{key}={_text(value)}" for key, value in sorted(given.items()) if key in own)
        full = family.name + (f"({text})" if text else "") + ("" if cutoff is None else f"@{_text(cutoff)}")
        try:
            return str(parse_measure(full))  # canonical, as the ScoreMatrix is named
        except MeasureError:
            continue
    return None


def _need_subtopics(measures) -> bool:
    """Whether a measure's family reads subtopic judgments (the diversity measures)."""
    from irstats.measures import parse_measure

    return any(parse_measure(irstats_name(m)).definition.needs for m in measures)


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

    def __init__(self, **options: Any):
        super().__init__()
        self.options = {"depth": None, **options}

    def supports(self, measure) -> bool:
        measure.validate_params()
        return irstats_name(measure) is not None

    def initialize(self) -> None:
        import irstats  # noqa: F401 - always available: this module is part of irstats

    def _evaluator(self, measures, qrels):
        from irstats.collection import Collection

        measures = list(measures)
        unsupported = [m for m in measures if irstats_name(m) is None]
        if unsupported:
            raise _unsupported(unsupported, self)
        frame = ir_measures.util.QrelsConverter(qrels).as_pd_dataframe()
        if len(frame) == 0:  # ir_measures: no qrels topic, so no value (irstats: an InputError)
            return IrstatsEvaluator(measures, None, self.options)
        if not _need_subtopics(measures):
            collection = Collection.load(frame[["query_id", "doc_id", "relevance"]])
            return IrstatsEvaluator(measures, collection, self.options, set(frame["query_id"]))
        # diversity measures: the qrels' iteration is the subtopic, as pyndeval reads it; the
        # other measures see each document at its largest grade (TREC's ad hoc qrels)
        from irstats.subtopics import SubtopicQrels

        subtopics = SubtopicQrels(frame.assign(subtopic=frame["iteration"].astype(str) if "iteration" in frame
                                               else "0").rename(columns={"query_id": "topic", "doc_id": "docno",
                                                                         "relevance": "grade"}))
        collection = subtopics.collection()
        return IrstatsEvaluator(measures, collection, self.options, set(frame["query_id"]), subtopics)


class IrstatsEvaluator(providers.Evaluator):
    """Per topic, the values irstats computes; ir_measures' ``Evaluator.iter_calc`` gives the
    measure's DEFAULT to the qrels topics the run does not answer. A measure undefined on a
    topic (irstats' NaN there, e.g. a measure of pairs on a list without a relevant and a
    non-relevant document, or on an empty ranking, a topic the run does not answer) is not
    reported, as ir_measures' own providers of such measures leave those topics out."""

    def __init__(self, measures, collection, options: dict, qrels_ids: set | None = None, subtopics=None):
        super().__init__(measures, set(collection.topics) if collection is not None else set())
        self.collection = collection
        self.subtopics = subtopics  # irstats.subtopics.SubtopicQrels, for the diversity measures
        self.options = options
        self.qrels_ids = qrels_ids or set()  # the qrels' query ids as ir_measures gave them
        self.names = {m: irstats_name(m) for m in measures}
        self._undefined: set = set()  # (measure, topic): evaluated, and undefined there

    def iter_calc(self, run) -> Iterator[Metric]:
        self._undefined = set()
        for metric in super().iter_calc(run):  # (its DEFAULTs come after every computed value)
            if (metric.measure, metric.query_id) not in self._undefined:
                yield metric

    def _iter_calc(self, run) -> Iterator[Metric]:
        import numpy as np

        from irstats.evaluate import Evaluator

        frame = ir_measures.util.RunConverter(run).as_pd_dataframe()[["query_id", "doc_id", "score"]]
        if self.collection is None:
            return
        # Topics the qrels do not judge count for no provider: drop them here, so irstats does
        # not warn of them (nor stop on a run with no qrels topic at all).
        frame = frame[frame["query_id"].isin(self.qrels_ids)]
        if len(frame) == 0:  # no ranking for any qrels topic: iter_calc gives each its DEFAULT
            return
        answered = set(frame["query_id"])
        by_mode: dict[bool, list] = {}
        for measure in self.measures:
            by_mode.setdefault(bool(measure.params.get("judged_only", False)), []).append(measure)
        # Every qrels topic is scored, those the run does not answer as empty rankings (complete):
        # where a measure is undefined on an empty ranking, such a topic gets no DEFAULT either.
        reported = set(self.qrels_ids) if self.options.get("complete") else answered
        for judged_only, measures in by_mode.items():
            evaluator = Evaluator(self.collection, subtopic_qrels=self.subtopics, judged_only=judged_only,
                                  **{**self.options, "complete": True})
            with warnings.catch_warnings():  # ir_measures' conventions: no provider warns
                warnings.simplefilter("ignore", IrstatsWarning)
                scores = evaluator.score({"run": frame}, sorted({self.names[m] for m in measures}))
            for measure in measures:
                matrix = scores[self.names[measure]]
                values = matrix.values[0]
                for topic, value in zip(matrix.topics, values):
                    if np.isnan(value):
                        self._undefined.add((measure, topic))
                    elif topic in reported:
                        yield Metric(query_id=topic, measure=measure, value=float(value))


def register(default: bool = True, **options: Any) -> IrstatsProvider:
    """Register irstats with ir_measures: as ``ir_measures.irstats`` (and in
    ``ir_measures.providers.registry``) and, with ``default``, first in ir_measures' default
    pipeline, so ``ir_measures.calc_aggregate`` (and PyTerrier) use it for every measure it
    supports. ``options`` are :class:`irstats.collection.EvalOptions` fields. Calling it
    again replaces the earlier registration."""
    provider = IrstatsProvider(**options)
    providers.register(provider)
    ir_measures.irstats = provider
    pipeline = ir_measures.DefaultPipeline.providers
    pipeline[:] = [p for p in pipeline if getattr(p, "NAME", None) != NAME]
    if default:
        pipeline.insert(0, provider)
    return provider


__all__ = ["IrstatsProvider", "UnsupportedMeasureError", "ir_measures_names", "irstats_name", "register"]
