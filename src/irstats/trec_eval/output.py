"""trec_eval's output, computed by irstats: the lines ``trec_eval`` prints, byte for byte.

Per topic (``-q``), in the qrels' topic order (bytewise, as trec_eval sorts them), every
requested measure in trec_eval's table order prints ``%-22s\\t%s\\t%6.4f`` (``%ld`` for the
counts); then the ``all`` lines: the mean over the evaluated topics, the sum for the counts,
``num_q``, trec_eval's geometric means (``gm_map``, ``gm_bpref``, floored at 1e-5) and
``runid``.
"""

from __future__ import annotations

import math
import warnings

from irstats.errors import InputError, IrstatsWarning
from irstats.measures.registry import TrecEvalName
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


def _line(name: str, topic: str, value, kind: str, zscores=None) -> str:
    if zscores is not None:  # every value is a z-score then, printed as a float with a Z
        return f"Z{name:<22}\t{topic}\t{_float(value)}\n"
    if kind == "long":
        return f"{name:<22}\t{topic}\t{int(value)}\n"
    return f"{name:<22}\t{topic}\t{_float(value)}\n"


def _float(value: float) -> str:
    """printf's %6.4f; a NaN is x86-64's 0.0/0.0, whose sign bit is set: glibc prints '-nan'."""
    return f"{value:6.4f}" if not math.isnan(value) else f"{'-nan':>6}"


#: The judgments each -R format gives: what a measure must read (_reads) to be calculated.
FORMAT_READS = {"trec_qrels": "qrels", "qrels_jg": "jg", "prefs": "prefs", "qrels_prefs": "prefs"}
NEEDS = {"qrels": "relevance judgments: -R trec_qrels", "jg": "judgment groups: -R qrels_jg",
         "prefs": "preferences: -R prefs or qrels_prefs"}


def _reads(measure: TrecEvalName) -> str | None:
    """What trec_eval's measure reads: qrels (form_res_rels), judgment groups
    (form_res_rels_jg: the _avgjg measures), preferences (form_prefs_counts), or nothing
    (runid, num_q)."""
    from irstats.measures import parse_measure

    if measure.kind in ("runid", "num_q"):
        return None
    if any(name is not None and parse_measure(name).definition.needs == "preferences"
           for _, name in measure.values()):
        return "prefs"
    if measure.name.endswith("_avgjg"):  # (after the preference measures: prefs_avgjg reads preferences)
        return "jg"
    return "qrels"


def _check_first_topic(collection, topic: str, marked, rel_format: str) -> None:
    """trec_eval's exit 4 at the first topic it evaluates (CannotCalculate), from the first
    measure in its table order that cannot be calculated there: one that reads other
    judgments than -R gives, or, with trec_qrels, any that ranks a topic whose grades are
    all negative. ``collection``: the trec_qrels judgments (None for the other formats)."""
    given = FORMAT_READS[rel_format]
    top = None
    if collection is not None:
        grades = collection.line_grades()[collection.line_topics() == collection.topic_keys.index(topic)]
        top = grades.max() if len(grades) else None
    for measure, _ in marked:
        reads = _reads(measure)
        if reads is None:
            continue
        if reads != given:
            raise CannotCalculate(f"Can't calculate measure '{measure.name}' (it reads {NEEDS[reads]})")
        if top is not None and top < 0:
            raise CannotCalculate(f"Can't calculate measure '{measure.name}'")


def _undefined_values(marked, scores, topics: list[str]) -> dict[str, dict[str, float]]:
    """A topic left with no document — all its retrieved documents unjudged under -J, or
    -M 0 — makes trec_eval's iprec_at_recall start from precision 0/0 and keep it at every
    recall level that rounds to 0 relevant documents (lround(r·R) = 0); 11pt_avg adds it in.
    trec_eval prints NaN there, and its mean is NaN. (A topic -c adds gets one made-up
    unjudged document, so it is empty exactly when -J or -M 0 is given too.) Returns
    {printed name: {topic: NaN}}."""
    from irstats.measures.interpolated import ELEVEN_POINTS

    levels: dict[str, tuple[float, ...]] = {}  # printed name → the recall levels its value reads
    for measure, params in marked:
        if measure.name == "iprec_at_recall":
            for (printed, _), level in zip(measure.values(params), measure.defaults if params is None else params):
                levels[printed] = (level,)
        elif measure.name == "11pt_avg":
            (printed, _), = measure.values(params)
            levels[printed] = ELEVEN_POINTS if params is None else tuple(params[1])
    if not levels:
        return {}
    retrieved, relevant = scores["NumRet"], scores["NumRel"]
    empty = [t for t in topics if retrieved.value(0, t) == 0]
    out: dict[str, dict[str, float]] = {}
    for printed, read in levels.items():
        undefined = {t: math.nan for t in empty
                     if any(_lround(r * relevant.value(0, t)) == 0 for r in read)}
        if undefined:
            out[printed] = undefined
    return out


def _rndcg_undefined(marked, scores, collection, topics: list[str]) -> dict[str, dict[str, float]]:
    """Rndcg divides 0 by 0 (trec_eval prints -nan) on a topic with a relevant document at -l
    (-l 0, say) but no positive gain in its ideal ranking (irstats' RnDCG gives 0)."""
    import numpy as np

    from irstats.judgments import trec_eval_ideal_gains

    chosen = [(m, p) for m, p in marked if m.name == "Rndcg"]
    if not chosen or "NumRel" not in scores:
        return {}
    relevant = scores["NumRel"]
    order = {t: i for i, t in enumerate(topics)}
    # each qrels line's topic as its position in `topics` (-1: not printed), grades >= 0 only
    position = np.array([order.get(key, -1) for key in collection.topic_keys], dtype=np.int64)
    line_position, line_grades = position[collection.line_topics()], collection.line_grades()
    keep = (line_position >= 0) & (line_grades >= 0)
    index = line_position[keep]
    grades = line_grades[keep].astype(np.int64)
    out: dict[str, dict[str, float]] = {}
    for measure, params in chosen:
        (printed, _), = measure.values(params)
        gain_map = None if params is None else params[1]
        if gain_map:
            positive = (trec_eval_ideal_gains(index, grades, len(topics), gain_map) > 0).any(axis=1)
        else:
            positive = np.bincount(index[grades > 0], minlength=len(topics)) > 0
        undefined = {t: math.nan for t in topics
                     if not positive[order[t]] and relevant.value(0, t) > 0}
        if undefined:
            out[printed] = undefined
    return out


def _last_tag(results) -> str:
    """The run tag trec_eval prints: that of the results file's last line (each line's tag
    overwrites the one before), as the bytes read."""
    from irstats.io.trec import as_text, read_bytes

    part = results.parts[0]
    if part.source == "DataFrame":
        return part.tag
    lines = as_text(read_bytes(part.source), part.source).rstrip().rsplit(b"\n", 1)
    fields = lines[-1].split()
    return fields[5].decode("utf-8") if len(fields) >= 6 else part.tag


def _run_topics(results) -> set[str]:
    return set(results.parts[0].lazy().select("topic").unique().collect()
               .get_column("topic").cast(str).to_list())


def _made_up_document_values(marked, scores, made_up: list[str], num_docs: int) -> dict[str, dict[str, float]]:
    """trec_eval ranks one made-up document ("ceci_nest_pas_un_docno", not in the qrels) for a
    topic -c adds, then sets utility, rbp_resid, relstring, num_ret and unj* back to 0 — by
    their plain names only. With parameters (utility_2,-1,0,0, rbp_resid_p=0.5) they keep the
    made-up document's value."""
    if not made_up:
        return {}
    relevant = scores["NumRel"] if "NumRel" in scores else None
    out: dict[str, dict[str, float]] = {}
    for measure, params in marked:
        if params is None or measure.name not in ("utility", "rbp_resid"):
            continue
        (printed, _), = measure.values(params)
        if measure.name == "rbp_resid":  # one unjudged document: cur_p = p, sum = 1
            p = params[1][0]
            value = 1.0 * p + (1 - p) * 1.0
            out[printed] = {t: value for t in made_up}
        elif relevant is not None:  # num_ret 1, num_rel_ret 0, as m_utility.c adds them up
            a, b, c, d = params[1]
            out[printed] = {t: a * 0 + b * 1 + c * r + d * (num_docs + 0 - 1 - r) for t in made_up
                            for r in [int(relevant.value(0, t))]}
    return out


def _lround(x: float) -> int:
    """C's lround: halves away from zero (Python's round takes them to even)."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)



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


def trec_eval_output(qrels, results, measures: list[str], *, per_topic: bool = False, summary: bool = True,
                     complete: bool = False, rel_level: int = 1, depth: int | None = None,
                     judged_only: bool = False, num_docs: int = 0, zscores=None,
                     rel_format: str = "trec_qrels") -> str:
    """What ``trec_eval [-q] [-n] [-c] [-l L] [-M M] [-J] [-N N] -m … qrels results`` prints
    (``num_docs``: -N, the collection's size, which only utility's d term uses; ``zscores``:
    -Z, a file of per-topic means and sds turning every value into a z-score)."""
    out: list[str] = []
    try:
        for chunk in trec_eval_chunks(qrels, results, measures, per_topic=per_topic, summary=summary,
                                      complete=complete, rel_level=rel_level, depth=depth, judged_only=judged_only,
                                      num_docs=num_docs, zscores=zscores, rel_format=rel_format):
            out.append(chunk)
    except TrecEvalFailure as exc:
        exc.printed = "".join(out)
        raise
    return "".join(out)


def trec_eval_chunks(qrels, results, measures: list[str], *, per_topic: bool = False, summary: bool = True,
                     complete: bool = False, rel_level: int = 1, depth: int | None = None,
                     judged_only: bool = False, num_docs: int = 0, zscores=None,
                     rel_format: str = "trec_qrels"):
    """:func:`trec_eval_output` as consecutive pieces of text, a block of topics at a time, so
    that 10^5 topics × 100 measures are printed without being held at once; a
    :class:`TrecEvalFailure` after the pieces trec_eval prints before it stops."""
    with warnings.catch_warnings():
        # topics outside the qrels and the like: trec_eval says nothing about them either
        warnings.simplefilter("ignore", IrstatsWarning)
        yield from _output(qrels, results, measures, per_topic, summary, complete, rel_level, depth, judged_only,
                           num_docs, zscores, rel_format)


#: Topics whose -q lines are made and handed on at once.
TOPIC_BLOCK = 2000


def _output(qrels, results, measures, per_topic, summary, complete, rel_level, depth, judged_only, num_docs,
            zscores, rel_format):
    if zscores is not None and not isinstance(zscores, dict):
        zscores = read_zscores(zscores)
    import irstats
    from irstats.collection import Collection, RunSet
    from irstats.judgments import NoTopicInCommon
    from irstats.ids import bytewise_sorted

    marked = requested(measures, num_docs)
    preferences = rel_format in PREFERENCE_FORMATS
    wanted: dict[str, None] = {}
    for measure, params in marked:
        if _reads(measure) not in (None, FORMAT_READS[rel_format]):
            continue  # trec_eval cannot calculate it from these judgments (_check_first_topic)
        for printed, name in measure.values(params):
            if name is None and measure.kind not in ("runid", "string"):
                raise InputError(f"trec_eval measure '{measure.name}' is not computed by irstats yet")
            if name is not None:
                wanted[name if preferences else irstats.canonical_name(name)] = None
    wanted.setdefault("NumQ", None)
    may_be_empty = (judged_only or depth == 0) and rel_format == "trec_qrels"
    if rel_format == "trec_qrels" and any(m.name in ("Rndcg", "utility") for m, _ in marked):
        wanted.setdefault("NumRel", None)  # (_rndcg_undefined, _made_up_document_values)
    if complete and rel_format == "trec_qrels" and any(
            m.name in ("utility", "rbp_resid", "relstring") and p is not None for m, p in marked):
        wanted.setdefault("NumRet", None)  # tells the topics -c adds (made_up, below)
    if may_be_empty:  # a topic may be left with no document (_undefined_values)
        wanted.setdefault("NumRet", None)
        wanted.setdefault("NumRel", None)
    options = dict(depth=depth, rel_level=rel_level, complete=complete, judged_only=judged_only)
    if not preferences:  # read once, for the scores, the relstrings and the topics answered
        results = RunSet.load(results)
    answered_only: set[str] | None = None  # set when the topics scored include unanswered ones
    if preferences:
        scores, qrels_topics = _preference_scores(qrels, results, [m for m in wanted if m != "NumQ"], rel_format,
                                                  depth, complete)
    elif rel_format == "qrels_jg":
        from irstats.trec_eval.jg import averaged_over_groups, read_qrels_jg

        groups = read_qrels_jg(qrels)
        qrels_topics = bytewise_sorted({t for f in groups.values() for t in f.get_column("topic").to_list()})
        graded_lines = sum(int((f.get_column("rel") > 0).sum()) for f in groups.values())
        try:
            scores = averaged_over_groups(groups, results, list(wanted), **options)
        except NoTopicInCommon:  # a judgment group whose topics the run does not answer: score
            # every topic as -c would, then stop where trec_eval stops (below)
            scores = averaged_over_groups(groups, results, list(wanted), **{**options, "complete": True})
            answered_only = _run_topics(results)
    else:
        # trec_eval's grades: atol of the text (2.5 → 2). Ids stay the bytes read, to the output.
        collection = Collection.load(qrels, labels="atol", byte_ids=True)
        graded_lines = int((collection.line_grades() > 0).sum())
        qrels_topics = list(collection.topic_keys)
        try:
            scores = irstats.evaluate(collection, results, list(wanted), trec_eval_compat=True, **options)
        except NoTopicInCommon:  # no qrels topic is answered, so trec_eval stops at the first
            # (with -c the engine scores every topic as failed)
            raise TopicWithoutResults(f"result qid '{qrels_topics[0]}' not found in qrels") from None
    any_matrix = scores["NumQ"]
    if len(any_matrix.systems) != 1:
        raise InputError("a trec_eval results file holds one run")
    # the tag as the bytes read (the systems' names are decoded for people)
    run_tag = _last_tag(results if not preferences else RunSet.load(results)) if any(
        m.kind == "runid" for m, _ in marked) else ""
    evaluated = set(any_matrix.topics)
    if answered_only is not None:
        evaluated &= answered_only
    missing = [t for t in qrels_topics if t not in evaluated]
    if qrels_topics[0] in evaluated:  # (else trec_eval stops at it, not found)
        _check_first_topic(collection if rel_format == "trec_qrels" else None, qrels_topics[0], marked, rel_format)
    topics = [t for t in qrels_topics if t in evaluated]
    stop = None
    if missing and not complete:  # trec_eval stops there, after printing the topics before it
        stop = TopicWithoutResults(f"result qid '{missing[0]}' not found in qrels")
        topics = topics[:qrels_topics.index(missing[0])]
    overrides = _undefined_values(marked, scores, topics) if may_be_empty else {}
    made_up: list[str] = []  # topics -c adds, which trec_eval ranks one made-up document for
    if rel_format == "trec_qrels":
        for printed, values in _rndcg_undefined(marked, scores, collection, topics).items():
            overrides.setdefault(printed, {}).update(values)
        if complete and not judged_only and depth != 0:
            # (without -J and with a depth, a topic the results answer keeps a document)
            retrieved = scores.get("NumRet")
            made_up = [] if retrieved is None else [t for t in topics
                                                    if retrieved.value(0, t) == 0]
            for printed, values in _made_up_document_values(marked, scores, made_up, num_docs).items():
                overrides.setdefault(printed, {}).update(values)
    judged_by = collection if rel_format == "trec_qrels" else qrels
    strings = _relstrings(judged_by, results, marked, dict(depth=depth, rel_level=rel_level, complete=complete,
                                                           judged_only=judged_only)) if per_topic else {}
    if any(m.name == "relstring" and p is not None for m, p in marked):
        strings.update({t: "-" for t in made_up})  # relstring_N keeps the made-up document, not in the qrels
    columns = _Columns(scores, topics, overrides, zscores)
    if per_topic:
        for start in range(0, len(topics), TOPIC_BLOCK):
            yield "".join(_per_topic_lines(marked, columns, strings, start, start + TOPIC_BLOCK))
    if stop is not None:
        raise stop
    out: list[str] = []
    if summary:
        for measure, params in marked:
            if measure.name == "num_rel" and complete and rel_format in ("trec_qrels", "qrels_jg"):
                # with -c, m_num_rel.c's average counts the qrels lines with grade > 0 over every
                # topic, whatever -l is
                out.append(_line("num_rel", "all", graded_lines, "long", zscores))
                continue
            out.extend(_summary_lines(measure, params, columns, run_tag))
    yield "".join(out)


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


def _per_topic_lines(marked, columns: _Columns, strings: dict[str, str], start: int, stop: int) -> list[str]:
    """The -q lines of the topics from ``start`` to ``stop``, each topic's measures in table
    order. Built a measure at a time as columns of lines, then interleaved topic by topic."""
    import itertools

    topics = columns.topics[start:stop]
    line_columns: list[list[str]] = []
    for measure, params in marked:
        if measure.kind == "string":
            printed = measure.name if params is None else measure.printed(params[0])
            line_columns.append([f"{printed:<22}\t{t}\t'{strings[t]}'\n" for t in topics])
            continue
        if measure.kind not in ("float", "long"):
            continue
        for printed, name in measure.values(params):
            kind = "float" if columns.zscores is not None else measure.kind
            head = f"Z{printed:<22}\t" if columns.zscores is not None else f"{printed:<22}\t"
            text = _texts(columns.values(printed, name)[start:stop].tolist(), kind)
            line_columns.append([f"{head}{t}\t{v}\n" for t, v in zip(topics, text)])
    return list(itertools.chain.from_iterable(zip(*line_columns)))


def _texts(values: list[float], kind: str) -> list[str]:
    """printf's %ld or %6.4f of each value (see :func:`_float`)."""
    if kind == "long":
        return [str(int(v)) for v in values]
    return [f"{v:6.4f}" if v == v else f"{'-nan':>6}" for v in values]


def _matrix(scores: dict, name: str):
    """The ScoreMatrix of one printed value (preference measures are keyed by their own names)."""
    import irstats

    return scores[name] if name in scores else scores[irstats.canonical_name(name)]


def _preference_scores(prefs, results, names: list[str], rel_format: str, depth, complete):
    """-R prefs | qrels_prefs: the preference measures, plus NumQ (1 on every evaluated
    topic), and the judged topics in trec_eval's order."""
    import numpy as np

    from irstats.preference_judgments import PreferenceJudgments
    from irstats.preferences import evaluate_preferences
    from irstats.scores import ScoreMatrix

    judged = PreferenceJudgments(prefs, qrels=rel_format == "qrels_prefs")
    scores = evaluate_preferences(judged, results, names or ["NumPrefsPoss"], depth=depth, complete=complete)
    any_matrix = next(iter(scores.values()))
    evaluated = ~np.isnan(any_matrix.values[0])
    topics = tuple(t for t, e in zip(any_matrix.topics, evaluated) if e)
    scores["NumQ"] = ScoreMatrix(np.ones((1, len(topics))), any_matrix.systems, topics, "NumQ")
    return scores, list(judged.topic_keys)


def _relstrings(qrels, results, marked, options) -> dict[str, str]:
    """trec_eval's relstring per topic: the raw grade of each of the first N documents ('>' above
    9), '-' for a document not in the qrels and '.' for one in the pool but unjudged."""
    chosen = [params for measure, params in marked if measure.kind == "string"]
    if not chosen:
        return {}
    length = (chosen[0] or (10,))[0]
    from irstats.evaluate import Evaluator
    from irstats.judgments import POOL_UNJUDGED, UNJUDGED

    judgments = Evaluator(qrels, **options).judgments(results)
    out = {}
    for t, topic in enumerate(judgments.topics):
        n = min(int(judgments.n_ret[0, t]), int(length))
        chars = []
        for grade in judgments.grades[0, t, :n].tolist():
            chars.append(">" if grade > 9 else str(grade) if grade >= 0 else
                         "-" if grade == UNJUDGED else "." if grade == POOL_UNJUDGED else "<")
        out[topic] = "".join(chars)
    return out


def _summary_lines(measure: TrecEvalName, params, columns: _Columns, run_id: str) -> list[str]:
    topics, zscores = columns.topics, columns.zscores
    num_queries = len(topics)
    if measure.kind == "runid":
        return [f"{'runid':<22}\tall\t{run_id}\n"]
    if measure.kind == "string":
        return []  # trec_eval prints relstring for single topics only
    if measure.kind == "num_q":
        return [_line("num_q", "all", len(topics), "long", zscores)]
    import numpy as np

    lines = []
    for printed, name in measure.values(params):
        values = columns.values(printed, name, zscored=measure.kind != "gm")
        if measure.kind == "gm":  # trec_eval's per-topic gm value is log(max(v, 1e-5)), with C's log
            values = [math.log(max(v, MIN_GEO_MEAN)) for v in values.tolist()]
            if zscores is not None:
                values = [_z(zscores, t, printed, v) for t, v in zip(topics, values)]
        # added in topic order, as trec_eval accumulates: a cumulative sum adds one by one
        # (numpy's sum would add pairwise, and a last bit can change the 4th decimal)
        total = float(np.cumsum(values)[-1]) if len(values) else 0.0
        if measure.kind == "gm":
            value = math.exp(total / num_queries)
        elif measure.kind == "long":
            value = total
        else:
            value = total / num_queries
        lines.append(_line(printed, "all", value, measure.kind, zscores))
    return lines


__all__ = ["TopicWithoutResults", "trec_eval_output"]
