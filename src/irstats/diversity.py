"""``irstats diversity``: the diversity measures with subtopic qrels alone, as TREC's ndeval
(and pyndeval) computes them — a shortcut of :func:`irstats.evaluate` with ``subtopic_qrels``.

The measures are registered families (measures/diversity.py: α-DCG@k, α-nDCG@k, ERR-IA@k,
nERR-IA@k, NRBP, nNRBP, P-IA@k, StRecall@k), so ``irstats eval QRELS RUNS --subtopic-qrels
FILE -m alpha_nDCG@20`` computes the same values next to any other measure. Here the subtopic
qrels are the only judgments: the runs are ranked against the ordinary qrels they imply (each
judged document at its largest grade, as TREC derives its ad hoc qrels), over their topics,
with no depth limit unless ``depth`` is given (as ndeval), in trec_eval's order (score
descending, docno descending — ndeval's too).
"""

from __future__ import annotations

from irstats.checks import names, real, whole
from irstats.errors import MeasureError
from irstats.subtopics import SubtopicQrels, read_subtopic_qrels

#: What ``irstats diversity`` computes when no measure is named.
DEFAULT_MEASURES = ("alpha_nDCG@20", "ERR_IA@20", "NRBP", "P_IA@20", "StRecall@20")


def diversity_measures() -> tuple[str, ...]:
    """The families that read subtopic judgments (``needs="subtopics"``), in registration order."""
    from irstats.measures import FAMILIES
    from irstats.subtopics import NEED

    return tuple(name for name, family in FAMILIES.items() if family.needs == NEED)


def _diversity_measure(text: str, rel: int, alpha: float, beta: float):
    """``(name as asked, measure)``: ``text`` parsed, with ``alpha``, ``beta`` and ``rel`` for the
    parameters its name leaves at their defaults."""
    from irstats.measures import Measure, parse_measure
    from irstats.subtopics import NEED

    try:
        measure = parse_measure(text)
    except MeasureError as exc:
        if "unknown measure" not in str(exc):
            raise
        measure = None
    if measure is None or measure.definition.needs != NEED:
        raise MeasureError(f"unknown diversity measure {text!r}; expected one of {', '.join(diversity_measures())} "
                           "(with @k where it takes a cut-off)")
    given = dict(measure.params)
    for param in measure.definition.params:
        if given[param.name] == param.default:
            given[param.name] = {"alpha": alpha, "beta": beta, "rel": rel}[param.name]
    return str(measure), parse_measure(str(Measure(measure.family, tuple(given.items()), measure.cutoff)))


def evaluate_diversity(qrels, runs, measures=DEFAULT_MEASURES, *, rel: int = 1, alpha: float = 0.5,
                       beta: float = 0.5, **options):
    """Evaluate runs against subtopic qrels: one ScoreMatrix per measure (systems × topics),
    keyed and named as asked (``alpha_nDCG@20``).

    ``qrels``: a subtopic qrels file or frame (:func:`read_subtopic_qrels`); ``runs``: what
    :func:`irstats.evaluate` takes; ``rel``: the grade from which a document is relevant to a
    subtopic; ``alpha``, ``beta``: ndeval's redundancy and persistence parameters (0.5, 0.5),
    for every measure whose name does not set them (``alpha_nDCG(alpha=0.2)@20``);
    ``options``: :class:`~irstats.collection.EvalOptions` fields (the ranking order, ``depth``
    — None by default, as ndeval —, …). The same as ``irstats.evaluate(qrels derived from
    them, runs, measures, subtopic_qrels=qrels, depth=None)``.
    """
    from dataclasses import replace

    from irstats.collection import EvalOptions
    from irstats.evaluate import Evaluator

    for name, value in (("alpha", alpha), ("beta", beta)):
        real(value, name, low=0.0, high=1.0)
    whole(rel, "rel", minimum=0)
    asked = dict(_diversity_measure(m, rel, alpha, beta)
                 for m in names(measures, "measures", what="diversity measure names", text=True))
    opts = EvalOptions(**{"depth": None, **options})  # the options are checked before any file is read
    judged = SubtopicQrels(qrels)
    scores = Evaluator(judged.collection(), opts, subtopic_qrels=judged).score(runs, list(asked.values()))
    return {name: replace(scores[str(measure)], measure=name) for name, measure in asked.items()}


__all__ = ["DEFAULT_MEASURES", "diversity_measures", "evaluate_diversity", "read_subtopic_qrels"]
