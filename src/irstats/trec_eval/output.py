"""trec_eval's output, computed by irstats: the lines ``trec_eval`` prints, byte for byte.

Per topic (``-q``), in the qrels' topic order (bytewise, as trec_eval sorts them), every
requested measure in trec_eval's table order prints ``%-22s\\t%s\\t%6.4f`` (``%ld`` for the
counts); then the ``all`` lines: the mean over the evaluated topics, the sum for the counts,
``num_q``, trec_eval's geometric means (``gm_map``, ``gm_bpref``, floored at 1e-5) and
``runid``.

Where trec_eval's behaviour lives, each in one place: its measures' quirks in the families,
behind ``trec_eval_compat`` (the -nan of iprec_at_recall on an empty list and of Rndcg
without ideal gain among them); what trec_eval does around its measures by their names — the
made-up document of a topic -c adds, num_rel's total under -c, what each measure reads — in
the measures' :class:`~irstats.measures.registry.TrecEvalName` declarations; the line layout
in :mod:`irstats.trec_eval.printer`. This module reads the files once, evaluates, and prints.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace

from irstats.errors import InputError, IrstatsWarning
from irstats.measures.registry import TrecEvalName
from irstats.trec_eval.printer import SMALL_LINES, block_texts, head, line, lines, small_lines, value_text
from irstats.trec_eval.table import MIN_GEO_MEAN, requested


#: trec_eval's -R formats of preference judgments
PREFERENCE_FORMATS = ("prefs", "qrels_prefs")


class TrecEvalFailure(InputError):
    """Where trec_eval stops with exit 4 while evaluating a topic; ``printed``: what it has
    printed to standard output by then (the -q lines of the topics before)."""

    printed = ""


class TopicWithoutResults(TrecEvalFailure):
    """A qrels topic has no results and -c was not given."""


class CannotCalculate(TrecEvalFailure):
    """trec_eval 10 cannot rank the first topic it evaluates when all of that topic's grades
    are negative: sizing its grade counts at max grade + 1 ≤ 0 gets no memory (form_res_rels),
    and the first requested measure that needs them fails. A later such topic finds the
    counts already allocated and is evaluated (with no relevant document)."""


#: trec_eval's MISSING_ZSCORE_VALUE: a value -Z has no mean and sd for.
MISSING_ZSCORE = -1000000.0


#: The judgments each -R format gives: what a measure must read (_reads) to be calculated.
FORMAT_READS = {"trec_qrels": "qrels", "qrels_jg": "jg", "prefs": "prefs", "qrels_prefs": "prefs"}
NEEDS = {"qrels": "relevance judgments: -R trec_qrels", "jg": "judgment groups: -R qrels_jg",
         "prefs": "preferences: -R prefs or qrels_prefs"}


def _reads(measure: TrecEvalName) -> str | None:
    """What trec_eval's measure reads (TrecEvalName.reads), or nothing (runid, num_q)."""
    return None if measure.kind in ("runid", "num_q") else measure.reads


def _check_first_topic(top_grade, marked, rel_format: str) -> None:
    """trec_eval's exit 4 at the first topic it evaluates (CannotCalculate), from the first
    measure in its table order that cannot be calculated there: one that reads other
    judgments than -R gives, or, with trec_qrels, any that ranks a topic whose grades are
    all negative. ``top_grade``: the first topic's highest grade (None: not trec_qrels)."""
    given = FORMAT_READS[rel_format]
    for measure, _ in marked:
        reads = _reads(measure)
        if reads is None:
            continue
        if reads != given:
            raise CannotCalculate(f"Can't calculate measure '{measure.name}' (it reads {NEEDS[reads]})")
        if top_grade is not None and top_grade < 0:
            raise CannotCalculate(f"Can't calculate measure '{measure.name}'")


def _run_topics(runset) -> set[str]:
    return set(runset.parts[0].lazy().select("topic").unique().collect()
               .get_column("topic").cast(str).to_list())


def read_zscores(path) -> dict[tuple[str, str], tuple[float, float]]:
    """trec_eval's -Z file: ``qid measure mean stddev`` per line → {(qid, measure): (mean, sd)}."""
    from irstats.io.trec import read_lines

    out = {}
    for number, text in enumerate(read_lines(path).to_list(), start=1):
        fields = (text or "").split()
        if not fields:
            continue
        try:
            if len(fields) != 4:
                raise ValueError
            out[(fields[0], fields[1])] = (float(fields[2]), float(fields[3]))
        except ValueError:
            raise InputError("expected 'qid measure mean stddev'", path=str(path), line=number) from None
    return out


def _z(zscores, topic: str, name: str, value: float) -> float:
    """trec_eval's te_convert_to_zscore: (v − mean)/sd; 0 for v = mean when sd = 0; else missing."""
    found = zscores.get((topic, name))
    if found is None:
        return MISSING_ZSCORE
    mean, sd = found
    if sd:
        return (value - mean) / sd
    return 0.0 if value == mean else MISSING_ZSCORE


@dataclass(frozen=True)
class Invocation:
    """What trec_eval's command line sets besides the files and the measures: -q, -n, -c, -l,
    -M, -J, -N (``num_docs``: the collection's size, which only utility's d term uses), -Z
    (``zscores``: per-topic means and sds turning every value into a z-score; a file or
    what :func:`read_zscores` gives) and -R."""

    per_topic: bool = False
    summary_lines: bool = True
    complete: bool = False
    rel_level: int = 1
    depth: int | None = None
    judged_only: bool = False
    num_docs: int = 0
    zscores: object = None
    rel_format: str = "trec_qrels"

    def engine_options(self) -> dict:
        """The :class:`~irstats.collection.EvalOptions` fields these set."""
        return dict(depth=self.depth, rel_level=self.rel_level, complete=self.complete, judged_only=self.judged_only)


def trec_eval_output(qrels, results, measures: list[str], **invocation) -> str:
    """What ``trec_eval [-q] [-n] [-c] [-l L] [-M M] [-J] [-N N] [-Z F] [-R F] -m … qrels
    results`` prints; ``invocation``: the fields of :class:`Invocation` (``per_topic=True`` …)."""
    out: list[str] = []
    try:
        for chunk in trec_eval_chunks(qrels, results, measures, **invocation):
            out.append(chunk)
    except TrecEvalFailure as exc:
        exc.printed = "".join(out)
        raise
    return "".join(out)


def trec_eval_chunks(qrels, results, measures: list[str], **invocation):
    """:func:`trec_eval_output` as consecutive pieces of text, a block of topics at a time, so
    that 10^5 topics × 100 measures are printed without being held at once; a
    :class:`TrecEvalFailure` after the pieces trec_eval prints before it stops."""
    run = Invocation(**invocation)
    if run.zscores is not None and not isinstance(run.zscores, dict):
        run = replace(run, zscores=read_zscores(run.zscores))
    with warnings.catch_warnings():
        # topics outside the qrels and the like: trec_eval says nothing about them either
        warnings.simplefilter("ignore", IrstatsWarning)
        yield from _output(qrels, results, measures, run)


#: Topics whose -q lines are made and handed on at once.
TOPIC_BLOCK = 2000


@dataclass
class _Evaluated:
    """One run evaluated as -R asks: the scores by measure (NumQ among them: 1 on every
    evaluated topic), the judged topics in trec_eval's order and, for trec_qrels, what the
    printing needs of the judgments (so that the files are read once)."""

    scores: dict
    qrels_topics: list[str]
    evaluated: set[str]
    graded_lines: int = 0  # qrels lines graded above 0 (TrecEvalName.graded_lines_with_c)
    top_grade: float | None = None  # the first judged topic's highest grade (_check_first_topic)
    strings: dict[str, str] = field(default_factory=dict)  # relstring per topic
    made_up: dict[str, int] = field(default_factory=dict)  # topic -c adds → its R (TrecEvalName.made_up)


def _wanted(marked, run: Invocation) -> list[str]:
    """The irstats measures behind the printed values trec_eval can calculate from -R's
    judgments (the others stop it at the first topic: _check_first_topic)."""
    import irstats

    preferences = run.rel_format in PREFERENCE_FORMATS
    wanted: dict[str, None] = {}
    for measure, params in marked:
        if _reads(measure) not in (None, FORMAT_READS[run.rel_format]) or measure.kind == "num_q":
            continue  # (num_q: counted from the evaluated topics, NUM_Q)
        for printed, name in measure.values(params):
            if name is None and measure.kind not in ("runid", "string"):
                raise InputError(f"trec_eval measure '{measure.name}' is not computed by irstats yet")
            if name is not None:
                wanted[name if preferences else irstats.canonical_name(name)] = None
    return list(wanted)


def _output(qrels, results, measures, run: Invocation):
    from irstats.collection import RunSet

    marked = requested(measures, run.num_docs)
    runset = RunSet.load(results)  # read by the engine once; only its last line is looked at again
    wanted = _wanted(marked, run)
    if run.rel_format in PREFERENCE_FORMATS:
        done = _evaluate_preferences(qrels, runset, wanted, run)
    elif run.rel_format == "qrels_jg":
        done = _evaluate_judgment_groups(qrels, runset, [*wanted, NUM_Q], run)
    else:
        done = _evaluate_qrels(qrels, runset, [*wanted, NUM_Q], marked, run)
    if len(done.scores[NUM_Q].systems) != 1:
        raise InputError("a trec_eval results file holds one run")
    qrels_topics = done.qrels_topics
    missing = [t for t in qrels_topics if t not in done.evaluated]
    if qrels_topics[0] in done.evaluated:  # (else trec_eval stops at it, not found)
        _check_first_topic(done.top_grade, marked, run.rel_format)
    topics = [t for t in qrels_topics if t in done.evaluated]
    stop = None
    if missing and not run.complete:  # trec_eval stops there, after printing the topics before it
        stop = TopicWithoutResults(f"result qid '{missing[0]}' not found in qrels")
        topics = topics[:qrels_topics.index(missing[0])]
    overrides = _made_up_values(marked, done, run.num_docs)
    strings = {**done.strings, **overrides.pop(_RELSTRING, {})}
    columns = _Columns(done.scores, topics, overrides, run.zscores)
    if run.per_topic:
        for start in range(0, len(topics), TOPIC_BLOCK):
            yield _per_topic_lines(marked, columns, strings, start, start + TOPIC_BLOCK)
    if stop is not None:
        raise stop
    if run.summary_lines:
        run_tag = _run_tag(runset) if any(m.kind == "runid" for m, _ in marked) else ""
        out: list[str] = []
        for measure, params in marked:
            if measure.graded_lines_with_c and run.complete:
                out.append(line(measure.name, "all", done.graded_lines, "long", run.zscores is not None))
            else:
                out.extend(_summary_lines(measure, params, columns, run_tag))
        yield "".join(out)


#: The printed values' keys: NumQ marks every evaluated topic; relstring's overrides are text.
NUM_Q = "NumQ"
_RELSTRING = "relstring"


def _evaluate_qrels(qrels, runset, wanted: list[str], marked, run: Invocation) -> _Evaluated:
    """-R trec_qrels: the engine under trec_eval_compat, whose families hold trec_eval's
    quirks; the run read once, a block of topics at a time for a large file
    (:meth:`~irstats.evaluate.Evaluator.blocks`), each block's judgments giving its topics'
    scores, relstrings and the topics -c adds."""
    import numpy as np

    from irstats.collection import Collection
    from irstats.evaluate import Evaluator
    from irstats.judgments import NoTopicInCommon
    from irstats.measures import parse_measure
    from irstats.measures.common import widest_first
    from irstats.scores import ScoreMatrix

    # trec_eval's grades: atol of the text (2.5 → 2). Ids stay the bytes read, to the output.
    collection = Collection.load(qrels, labels="atol", byte_ids=True)
    grades = collection.line_grades()
    first = grades[collection.line_topics() == 0]
    evaluator = Evaluator(collection, trec_eval_compat=True, **run.engine_options())
    parsed = [parse_measure(name) for name in wanted]
    n_topics = len(collection.topics)
    values = {str(m): np.full((1, n_topics), np.nan) for m in parsed}
    present = np.zeros((1, n_topics), dtype=bool)
    made_up: dict[str, int] = {}
    strings: dict[str, str] = {}
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
                strings.update(_relstrings(judgments, marked))
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
    return _Evaluated(scores, list(collection.topic_keys), set(topics_kept), int((grades > 0).sum()),
                      first.max() if len(first) else None, strings, made_up)


def _evaluate_judgment_groups(qrels, runset, wanted: list[str], run: Invocation) -> _Evaluated:
    """-R qrels_jg: each measure averaged over the judgment groups (irstats.trec_eval.jg)."""
    from irstats.ids import bytewise_sorted
    from irstats.judgments import NoTopicInCommon
    from irstats.trec_eval.jg import averaged_over_groups, read_qrels_jg

    groups = read_qrels_jg(qrels)
    qrels_topics = bytewise_sorted({t for f in groups.values() for t in f.get_column("topic").to_list()})
    graded_lines = sum(int((f.get_column("rel") > 0).sum()) for f in groups.values())
    try:
        scores = averaged_over_groups(groups, runset, wanted, **run.engine_options())
        evaluated = set(scores[NUM_Q].topics)
    except NoTopicInCommon:  # a judgment group whose topics the run does not answer: score
        # every topic as -c would, then stop where trec_eval stops (_output)
        scores = averaged_over_groups(groups, runset, wanted, **{**run.engine_options(), "complete": True})
        evaluated = set(scores[NUM_Q].topics) & _run_topics(runset)
    return _Evaluated(scores, list(qrels_topics), evaluated, graded_lines)


def _evaluate_preferences(prefs, runset, wanted: list[str], run: Invocation) -> _Evaluated:
    """-R prefs | qrels_prefs: the preference measures (measures/preferences.py) over the
    judged documents, ids kept as the bytes read; NumQ 1 on every evaluated topic."""
    import numpy as np

    from irstats.collection import EvalOptions
    from irstats.evaluate import Evaluator
    from irstats.preference_judgments import PreferenceJudgments
    from irstats.scores import ScoreMatrix

    judged = PreferenceJudgments(prefs, from_qrels=run.rel_format == "qrels_prefs")
    options = EvalOptions(trec_eval_compat=True, depth=run.depth, complete=run.complete)
    evaluator = Evaluator(judged.collection(byte_ids=True), options, preferences=judged)
    # (with none asked for, one all the same: the topics evaluated)
    scores = evaluator.score(runset, wanted or ["NumPrefsPoss"])
    any_matrix = next(iter(scores.values()))
    topics = tuple(t for t, e in zip(any_matrix.topics, ~np.isnan(any_matrix.values[0])) if e)
    scores[NUM_Q] = ScoreMatrix(np.ones((1, len(topics))), any_matrix.systems, topics, NUM_Q)
    return _Evaluated(scores, list(judged.topic_keys), set(topics))


def _made_up_values(marked, done: _Evaluated, num_docs: int) -> dict[str, dict[str, object]]:
    """{printed name: {topic: value}} on the topics -c adds, for the measures asked for with
    parameters that declare the made-up document's value (TrecEvalName.made_up): by their
    plain names trec_eval sets them back to 0, which is the engine's value of an empty list."""
    out: dict[str, dict[str, object]] = {}
    if not done.made_up:
        return out
    for measure, params in marked:
        if params is None or measure.made_up is None:
            continue
        value = params if measure.listed else params[1]
        printed = _RELSTRING if measure.kind == "string" else measure.values(params)[0][0]
        out[printed] = {t: measure.made_up(value, r, num_docs) for t, r in done.made_up.items()}
    return out


def _run_tag(runset) -> str:
    """The run tag trec_eval prints: that of the results file's last line, as the bytes read."""
    from irstats.io.trec import last_line_tag

    part = runset.parts[0]
    if part.source == "DataFrame":
        return part.tag
    tag = last_line_tag(part.source)
    return part.tag if tag is None else tag


class _Columns:
    """The value of each printed measure on every printed topic, in topic order: one array per
    printed name, taken from its ScoreMatrix once (a lookup per line made 10^5 topics slow),
    with the output layer's overrides and -Z's z-scores applied."""

    def __init__(self, scores: dict, topics: list[str], overrides: dict[str, dict[str, float]], zscores):
        self.scores, self.topics, self.overrides, self.zscores = scores, topics, overrides, zscores
        self._cache: dict = {}
        self._places: dict = {}  # a matrix's topic axis → the positions of the printed topics
        self._order = {t: i for i, t in enumerate(topics)}

    def values(self, printed: str, name: str, zscored: bool = True):
        """The values as a float64 array over the printed topics (8 bytes a value)."""
        key = (printed, zscored)
        if key not in self._cache:
            import numpy as np

            matrix = _matrix(self.scores, name)
            places = self._places.get(matrix.topics)
            if places is None:
                positions = matrix.topic_positions()
                places = self._places[matrix.topics] = np.fromiter((positions[t] for t in self.topics),
                                                                    dtype=np.int64, count=len(self.topics))
            values = matrix.values[0, places]
            for t, v in (self.overrides.get(printed) or {}).items():
                if t in self._order:
                    values[self._order[t]] = v
            if zscored and self.zscores is not None:
                values = np.array([_z(self.zscores, t, printed, v) for t, v in zip(self.topics, values.tolist())])
            self._cache[key] = values
        return self._cache[key]


def _per_topic_lines(marked, columns: _Columns, strings: dict[str, str], start: int, stop: int) -> str:
    """The -q lines of the topics from ``start`` to ``stop``, each topic's measures in table
    order: the values of the block as one topics × values array, printed a column at once
    (:func:`irstats.trec_eval.printer.block_texts`), a relstring as its quoted text."""
    import numpy as np

    topics = columns.topics[start:stop]
    zscored = columns.zscores is not None
    fields: list[str] = []
    numbers: list[np.ndarray] = []  # the numeric columns, and their kinds
    kinds: list[str] = []
    quoted: dict[int, list[str]] = {}  # column → the texts of a relstring column
    for measure, params in marked:
        if measure.kind == "string":
            quoted[len(fields)] = [f"'{strings[t]}'" for t in topics]
            fields.append(head(measure.name if params is None else measure.printed(params[0]))[:-1])
            continue
        if measure.kind not in ("float", "long"):
            continue
        for printed, name in measure.values(params):
            numbers.append(columns.values(printed, name)[start:stop])
            kinds.append("float" if zscored else measure.kind)
            fields.append(head(printed, zscored)[:-1])
    n_topics, n_fields = len(topics), len(fields)
    if not n_topics or not n_fields:
        return ""
    if n_topics * n_fields <= SMALL_LINES:  # a line at a time: no frame library for a short command
        column_of = {k: i for i, k in enumerate(k for k in range(n_fields) if k not in quoted)}  # field → number
        rows = [list(r) for r in zip(*(column.tolist() for column in numbers))] if numbers else [[]] * n_topics
        cells = [(k, t, quoted[k][t] if k in quoted else value_text(rows[t][column_of[k]], kinds[column_of[k]]))
                 for t in range(n_topics) for k in range(n_fields)]
        return small_lines(fields, topics, cells)
    import polars as pl

    texts = block_texts(np.stack(numbers, axis=1) if numbers else np.empty((n_topics, 0)), kinds)
    if quoted:  # the relstring columns' texts after the numbers', each cell taking its own
        where = np.empty((n_topics, n_fields), dtype=np.int64)
        numeric = [k for k in range(n_fields) if k not in quoted]
        where[:, numeric] = np.arange(n_topics * len(numeric)).reshape(n_topics, len(numeric))
        offset = n_topics * len(numeric)
        for k, column in quoted.items():
            where[:, k] = offset + np.arange(n_topics)
            offset += n_topics
        texts = pl.concat([texts, *(pl.Series(c, dtype=pl.String) for c in quoted.values())]).gather(where.ravel())
    return lines(fields, topics, texts)


def _matrix(scores: dict, name: str):
    """The ScoreMatrix of one printed value (preference measures are keyed by their own names)."""
    import irstats

    return scores[name] if name in scores else scores[irstats.canonical_name(name)]


def _relstrings(judgments, marked) -> dict[str, str]:
    """trec_eval's relstring per topic: the raw grade of each of the first N documents ('>' above
    9), '-' for a document not in the qrels and '.' for one in the pool but unjudged."""
    from irstats.judgments import POOL_UNJUDGED, UNJUDGED

    chosen = [params for measure, params in marked if measure.kind == "string"]
    if not chosen:
        return {}
    length = chosen[0][1][0] if chosen[0] else 10  # relstring.L: C's (long) L, at most num_ret; ≤ 0: ''
    length = int(max(min(length, 2.0**62), -1.0))
    out = {}
    for t, topic in enumerate(judgments.topics):
        n = max(0, min(int(judgments.n_ret[0, t]), length))
        out[topic] = "".join(">" if grade > 9 else str(grade) if grade >= 0 else
                             "-" if grade == UNJUDGED else "." if grade == POOL_UNJUDGED else "<"
                             for grade in judgments.grades[0, t, :n].tolist())
    return out


def _summary_lines(measure: TrecEvalName, params, columns: _Columns, run_id: str) -> list[str]:
    topics, zscored = columns.topics, columns.zscores is not None
    if measure.kind == "runid":
        return [line("runid", "all", run_id, "text")]
    if measure.kind == "string":
        return []  # trec_eval prints relstring for single topics only
    if measure.kind == "num_q":
        return [line("num_q", "all", len(topics), "long", zscored)]
    import numpy as np

    lines = []
    for printed, name in measure.values(params):
        values = columns.values(printed, name, zscored=measure.kind != "gm")
        if measure.kind == "gm":  # trec_eval's per-topic gm value is log(max(v, 1e-5)), with C's log
            values = [math.log(max(v, MIN_GEO_MEAN)) for v in values.tolist()]
            if zscored:
                values = [_z(columns.zscores, t, printed, v) for t, v in zip(topics, values)]
        # added in topic order, as trec_eval accumulates: a cumulative sum adds one by one
        # (numpy's sum would add pairwise, and a last bit can change the 4th decimal)
        total = float(np.cumsum(values)[-1]) if len(values) else 0.0
        if measure.kind == "gm":
            value = math.exp(total / len(topics))
        elif measure.kind == "long":
            value = total
        else:
            value = total / len(topics)
        lines.append(line(printed, "all", value, measure.kind, zscored))
    return lines


__all__ = ["CannotCalculate", "Invocation", "TopicWithoutResults", "TrecEvalFailure", "trec_eval_chunks",
           "trec_eval_output"]
