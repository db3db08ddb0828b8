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
the measures' :class:`~irstats.measures.registry.TrecEvalName` declarations; how each measure
prints in its output kind (:mod:`irstats.trec_eval.kinds`); how each ``-R`` format is read
and evaluated in :mod:`irstats.trec_eval.formats`; the line layout in
:mod:`irstats.trec_eval.printer`. This module reads the files once, evaluates, and prints.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

from irstats.errors import InputError, IrstatsWarning
from irstats.measures.registry import TrecEvalName
from irstats.trec_eval.formats import Evaluated, JudgmentsFormat, TopicWithoutResults, TrecEvalFailure, judgments_format
from irstats.trec_eval.kinds import SummaryLine, kind_of
from irstats.trec_eval.printer import SMALL_LINES, block_texts, head, line, lines, small_lines
from irstats.trec_eval.table import requested


class CannotCalculate(TrecEvalFailure):
    """trec_eval 10 cannot rank the first topic it evaluates when all of that topic's grades
    are negative: sizing its grade counts at max grade + 1 ≤ 0 gets no memory (form_res_rels),
    and the first requested measure that needs them fails. A later such topic finds the
    counts already allocated and is evaluated (with no relevant document)."""


#: trec_eval's MISSING_ZSCORE_VALUE: a value -Z has no mean and sd for.
MISSING_ZSCORE = -1000000.0


def _reads(measure: TrecEvalName) -> str | None:
    """What trec_eval's measure reads (TrecEvalName.reads), or nothing (runid, num_q)."""
    return measure.reads if kind_of(measure).reads_judgments else None


def _check_first_topic(top_grade, marked, given: JudgmentsFormat) -> None:
    """trec_eval's exit 4 at the first topic it evaluates (CannotCalculate), from the first
    measure in its table order that cannot be calculated there: one that reads other
    judgments than -R gives, or, with trec_qrels, any that ranks a topic whose grades are
    all negative. ``top_grade``: the first topic's highest grade (None: not trec_qrels)."""
    from irstats.trec_eval.formats import FORMATS

    for measure, _ in marked:
        reads = _reads(measure)
        if reads is None:
            continue
        if reads != given.reads:
            needed = next(f for f in FORMATS.values() if f.reads == reads)
            raise CannotCalculate(f"Can't calculate measure '{measure.name}' (it reads {needed.needs()})")
        if top_grade is not None and top_grade < 0:
            raise CannotCalculate(f"Can't calculate measure '{measure.name}'")


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
    what :func:`read_zscores` gives) and -R (``rel_format``: a name of
    :data:`irstats.trec_eval.formats.FORMATS`)."""

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


def _wanted(marked, given: JudgmentsFormat) -> list[str]:
    """The irstats measures behind the printed values trec_eval can calculate from -R's
    judgments (the others stop it at the first topic: _check_first_topic)."""
    import irstats

    wanted: dict[str, None] = {}
    for measure, params in marked:
        if _reads(measure) not in (None, given.reads) or not kind_of(measure).scored:
            continue  # (num_q: counted from the evaluated topics; runid, relstring: not the engine's)
        for _, name in measure.values(params):
            if name is None:
                raise InputError(f"trec_eval measure '{measure.name}' is not computed by irstats yet")
            wanted[irstats.canonical_name(name) if given.canonical_names else name] = None
    return list(wanted)


def _output(qrels, results, measures, run: Invocation):
    from irstats.collection import RunSet

    given = judgments_format(run.rel_format)
    marked = requested(measures, run.num_docs)
    runset = RunSet.load(results)  # read by the engine once; only its last line is looked at again
    done = given.evaluate(qrels, runset, _wanted(marked, given), marked, run)
    if len(runset.names) != 1:
        raise InputError("a trec_eval results file holds one run")
    qrels_topics = done.qrels_topics
    missing = [t for t in qrels_topics if t not in done.evaluated]
    if qrels_topics[0] in done.evaluated:  # (else trec_eval stops at it, not found)
        _check_first_topic(done.top_grade, marked, given)
    topics = [t for t in qrels_topics if t in done.evaluated]
    stop = None
    if missing and not run.complete:  # trec_eval stops there, after printing the topics before it
        stop = TopicWithoutResults(f"result qid '{missing[0]}' not found in qrels")
        topics = topics[:qrels_topics.index(missing[0])]
    columns = _Columns(done, topics, _made_up_values(marked, done, run.num_docs), run.zscores, runset)
    if run.per_topic:
        for start in range(0, len(topics), TOPIC_BLOCK):
            yield _per_topic_lines(marked, columns, start, start + TOPIC_BLOCK)
    if stop is not None:
        raise stop
    if run.summary_lines:
        out: list[SummaryLine] = []
        for measure, params in marked:
            if measure.graded_lines_with_c and run.complete:
                text = kind_of(measure).shown(columns.zscored).text(done.graded_lines)
                out.append(SummaryLine(measure.name, columns.zscored, text))
            else:
                out.extend(kind_of(measure).summary_lines(measure, params, columns))
        yield "".join(line(summary.name, "all", summary.text, summary.zscored) for summary in out)


def _made_up_values(marked, done: Evaluated, num_docs: int) -> dict[str, dict[str, object]]:
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
        printed = measure.values(params)[0][0]
        out[printed] = {t: measure.made_up(value, r, num_docs) for t, r in done.made_up.items()}
    return out


class _Columns:
    """The value of each printed measure on every printed topic, in topic order, as the output
    kinds read them (:class:`irstats.trec_eval.kinds.Printing`): one array per printed name,
    taken from its ScoreMatrix once (a lookup per line made 10^5 topics slow), with the values
    of the topics -c adds (``overrides``) and -Z's z-scores applied."""

    def __init__(self, done: Evaluated, topics: list[str], overrides: dict[str, dict[str, object]], zscores,
                 runset):
        self.scores, self.judged_texts, self.topics = done.scores, done.texts, topics
        self.overrides, self.zscored, self._zscores, self._runset = overrides, zscores is not None, zscores, runset
        self._cache: dict = {}
        self._places: dict = {}  # a matrix's topic axis → the positions of the printed topics
        self._order = {t: i for i, t in enumerate(topics)}

    def values(self, printed: str, name: str | None, zscored: bool = True):
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
            if zscored and self.zscored:
                values = np.array(self.zscores(printed, values.tolist()))
            self._cache[key] = values
        return self._cache[key]

    def zscores(self, printed: str, values: list[float]) -> list[float]:
        return [_z(self._zscores, t, printed, v) for t, v in zip(self.topics, values)]

    def texts(self, printed: str) -> list[str]:
        judged, overrides = self.judged_texts.get(printed, {}), self.overrides.get(printed) or {}
        return [str(overrides[t]) if t in overrides else judged[t] for t in self.topics]

    def run_tag(self) -> str:
        """The run tag trec_eval prints: that of the results file's last line, as the bytes read."""
        from irstats.io.trec import last_line_tag

        part = self._runset.parts[0]
        if part.source == "DataFrame":
            return part.tag
        tag = last_line_tag(part.source)
        return part.tag if tag is None else tag


def _per_topic_lines(marked, columns: _Columns, start: int, stop: int) -> str:
    """The -q lines of the topics from ``start`` to ``stop``, each topic's measures in table
    order: the columns of the block, each printed by its output kind, laid out a column at a
    time (:func:`irstats.trec_eval.printer.block_texts`)."""
    topics = columns.topics[start:stop]
    block = [c for measure, params in marked for c in kind_of(measure).topic_columns(measure, params, columns,
                                                                                         start, stop)]
    fields = [head(c.name, c.zscored)[:-1] for c in block]
    n_topics, n_fields = len(topics), len(fields)
    if not n_topics or not n_fields:
        return ""
    if n_topics * n_fields <= SMALL_LINES:  # a line at a time: no frame library for a short command
        values = [list(c.values) for c in block]
        cells = [(k, t, block[k].kind.text(values[k][t])) for t in range(n_topics) for k in range(n_fields)]
        return small_lines(fields, topics, cells)
    return lines(fields, topics, block_texts(block, n_topics))


def _matrix(scores: dict, name: str | None):
    """The ScoreMatrix of one printed value (preference measures are keyed by their own names)."""
    import irstats

    return scores[name] if name in scores else scores[irstats.canonical_name(name)]


__all__ = ["CannotCalculate", "Invocation", "TopicWithoutResults", "TrecEvalFailure", "trec_eval_chunks",
           "trec_eval_output"]
