"""trec_eval's ``-R`` formats, a registry of readers: each :class:`JudgmentsFormat` reads its
judgments file and evaluates the run against it, giving the drop-in (:mod:`irstats.trec_eval.output`)
one :class:`Evaluated` to print. A new format is one entry of :data:`FORMATS`.

- ``trec_qrels``: the engine under trec_eval_compat, whose families hold trec_eval's quirks;
- ``qrels_jg``: each measure averaged over the judgment groups (:mod:`irstats.trec_eval.jg`);
- ``prefs`` and ``qrels_prefs``: the preference measures (measures/preferences.py) over
  preference judgments, or over a qrels file read as preferences.

Nothing heavy is imported here: the command line checks ``-R`` against :data:`FORMATS` as it
starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from irstats.errors import InputError

if TYPE_CHECKING:
    from irstats.collection import RunSet
    from irstats.measures.registry import TrecEvalName

    Marked = list[tuple[TrecEvalName, Any]]


class TrecEvalFailure(InputError):
    """Where trec_eval stops with exit 4 while evaluating a topic; ``printed``: what it has
    printed to standard output by then (the -q lines of the topics before)."""

    printed = ""


class TopicWithoutResults(TrecEvalFailure):
    """A qrels topic has no results and -c was not given."""


@dataclass
class Evaluated:
    """One run evaluated as -R asks: the scores by measure, the judged topics in trec_eval's
    order, the topics evaluated and, for trec_qrels, what the printing needs of the judgments
    (so that the files are read once)."""

    scores: dict[str, Any]
    qrels_topics: list[str]
    evaluated: set[str]
    graded_lines: int = 0  # qrels lines graded above 0 (TrecEvalName.graded_lines_with_c)
    top_grade: float | None = None  # the first judged topic's highest grade (output._check_first_topic)
    texts: dict[str, dict[str, str]] = field(default_factory=dict)  # printed name → topic → text (relstring)
    made_up: dict[str, int] = field(default_factory=dict)  # topic -c adds → its R (TrecEvalName.made_up)


#: ``evaluate(path, runset, wanted, marked, invocation)``: the judgments of ``path``, the run
#: evaluated on the irstats measures ``wanted`` (``marked``: :func:`irstats.trec_eval.table.requested`'s list).
Evaluate = Callable[[Any, "RunSet", list[str], "Marked", Any], Evaluated]


@dataclass(frozen=True)
class JudgmentsFormat:
    """One ``-R`` format: its name, the judgments it gives (what a measure must read to be
    calculated, ``TrecEvalName.reads``; ``judgments``: those in words), how it evaluates a run,
    and whether the measures it serves are keyed by their canonical names (the preference
    measures keep their own)."""

    name: str
    reads: str
    judgments: str
    evaluate: Evaluate
    canonical_names: bool = True

    def needs(self) -> str:
        """What a measure reading this format's judgments needs, in words: ``preferences: -R prefs or qrels_prefs``."""
        formats = " or ".join(f.name for f in FORMATS.values() if f.reads == self.reads)
        return f"{self.judgments}: -R {formats}"


def _evaluate_qrels(qrels: Any, runset: RunSet, wanted: list[str], marked: Marked, run: Any) -> Evaluated:
    """-R trec_qrels: the engine under trec_eval_compat; the run read once, a block of topics at
    a time for a large file (:meth:`~irstats.evaluate.Evaluator.blocks`), each block's judgments
    giving its topics' scores, the texts printed per topic and the topics -c adds."""
    import numpy as np

    from irstats.evaluate import Evaluator
    from irstats.judgments import NoTopicInCommon
    from irstats.measures import parse_measure
    from irstats.measures.common import widest_first
    from irstats.scores import ScoreMatrix
    from irstats.trec_eval.kinds import kind_of

    # trec_eval's grades: atol of the text (2.5 → 2). Ids stay the bytes read, to the output.
    evaluator = Evaluator(qrels, trec_eval_compat=True, labels="atol", byte_ids=True, **run.engine_options())
    collection = evaluator.collection
    grades = collection.line_grades()
    first = grades[collection.line_topics() == 0]
    parsed = [parse_measure(name) for name in wanted]
    n_topics = len(collection.topics)
    values = {str(m): np.full((1, n_topics), np.nan) for m in parsed}
    present = np.zeros((1, n_topics), dtype=bool)
    made_up: dict[str, int] = {}
    texts: dict[str, dict[str, str]] = {}
    try:
        # a block of topics at a time, as irstats eval reads a large run (Evaluator.blocks): only the
        # scores of every topic are kept, never the whole run's judgments
        for _, topics, judgments in evaluator.blocks(runset):
            cells = slice(None) if topics is None else topics
            present[0, cells] = judgments.present[0]
            for m in widest_first(parsed):
                values[str(m)][0, cells] = m.definition.evaluate(judgments, m)[0]
            if run.complete and not run.judged_only and run.depth != 0:
                # a topic the run lacks gets trec_eval's made-up document (-J, -M 0 take it away again)
                added = judgments.present[0] & (judgments.n_ret[0] == 0)
                relevant = judgments.num_relevant()
                made_up.update({t: int(r) for t, a, r in zip(judgments.topics, added.tolist(), relevant.tolist())
                                if a})
            if run.per_topic:
                for measure, params in marked:
                    found = kind_of(measure).judged_texts(measure, params, judgments)
                    if found:
                        texts.setdefault(measure.values(params)[0][0], {}).update(found)
            del judgments
    except NoTopicInCommon:  # no qrels topic is answered, so trec_eval stops at the first
        # (with -c the engine scores every topic as failed)
        raise TopicWithoutResults(f"result qid '{collection.topic_keys[0]}' not found in qrels") from None
    keep = present[0]
    topics_kept = tuple(t for t, k in zip(collection.topics, keep.tolist()) if k)
    scores = {}
    for m in parsed:
        v = values.pop(str(m))
        v[~present] = np.nan
        scores[str(m)] = ScoreMatrix(v[:, keep], runset.names, topics_kept, str(m), evaluator.options.as_dict(),
                                     m.definition.over_topics)
    return Evaluated(scores, list(collection.topic_keys), set(topics_kept), int((grades > 0).sum()),
                     first.max() if len(first) else None, texts, made_up)


#: The measure the engine is asked for to learn which topics it evaluated: NumQ is 1 on each.
_TOPICS_EVALUATED = "NumQ"


def _evaluate_judgment_groups(qrels: Any, runset: RunSet, wanted: list[str], marked: Marked, run: Any) -> Evaluated:
    """-R qrels_jg: each measure averaged over the judgment groups (irstats.trec_eval.jg)."""
    from irstats.ids import bytewise_sorted
    from irstats.judgments import NoTopicInCommon
    from irstats.trec_eval.jg import averaged_over_groups, read_qrels_jg

    groups = read_qrels_jg(qrels)
    qrels_topics = bytewise_sorted({t for f in groups.values() for t in f.get_column("topic").to_list()})
    graded_lines = sum(int((f.get_column("rel") > 0).sum()) for f in groups.values())
    asked = [*wanted, _TOPICS_EVALUATED]
    try:
        scores = averaged_over_groups(groups, runset, asked, **run.engine_options())
        evaluated = set(scores.pop(_TOPICS_EVALUATED).topics)
    except NoTopicInCommon:  # a judgment group whose topics the run does not answer: score
        # every topic as -c would, then stop where trec_eval stops (output._output)
        scores = averaged_over_groups(groups, runset, asked, **{**run.engine_options(), "complete": True})
        evaluated = set(scores.pop(_TOPICS_EVALUATED).topics) & _run_topics(runset)
    return Evaluated(scores, list(qrels_topics), evaluated, graded_lines)


def _run_topics(runset: RunSet) -> set[str]:
    return set(runset.parts[0].lazy().select("topic").unique().collect()
               .get_column("topic").cast(str).to_list())


def _preferences(from_qrels: bool) -> Evaluate:
    def evaluate(prefs: Any, runset: RunSet, wanted: list[str], marked: Marked, run: Any) -> Evaluated:
        """-R prefs | qrels_prefs: the preference measures (measures/preferences.py) over the
        judged documents, ids kept as the bytes read."""
        import numpy as np

        from irstats.collection import EvalOptions
        from irstats.evaluate import Evaluator
        from irstats.preference_judgments import PreferenceJudgments

        judged = PreferenceJudgments(prefs, from_qrels=from_qrels)
        options = EvalOptions(trec_eval_compat=True, depth=run.depth, complete=run.complete)
        evaluator = Evaluator(judged.collection(byte_ids=True), options, preferences=judged)
        # (with none asked for, one all the same: the topics evaluated)
        scores = evaluator.score(runset, wanted or ["NumPrefsPoss"])
        any_matrix = next(iter(scores.values()))
        topics = {t for t, e in zip(any_matrix.topics, ~np.isnan(any_matrix.values[0])) if e}
        return Evaluated(scores, list(judged.topic_keys), topics)

    return evaluate


#: trec_eval's -R formats by name.
FORMATS: dict[str, JudgmentsFormat] = {f.name: f for f in (
    JudgmentsFormat("trec_qrels", "qrels", "relevance judgments", _evaluate_qrels),
    JudgmentsFormat("qrels_jg", "jg", "judgment groups", _evaluate_judgment_groups),
    JudgmentsFormat("prefs", "prefs", "preferences", _preferences(from_qrels=False), canonical_names=False),
    JudgmentsFormat("qrels_prefs", "prefs", "preferences", _preferences(from_qrels=True), canonical_names=False),
)}


def judgments_format(name: str) -> JudgmentsFormat:
    """The -R format of that name; an InputError naming those there are."""
    found = FORMATS.get(name)
    if found is None:
        raise InputError(f"input format {name!r} (-R) is not read by irstats trec_eval; -R takes "
                         f"{', '.join(FORMATS)}")
    return found


__all__ = ["FORMATS", "Evaluated", "JudgmentsFormat", "TopicWithoutResults", "TrecEvalFailure", "judgments_format"]
