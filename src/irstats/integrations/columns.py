"""Qrels and runs held as Python columns — ids as ``str``, grades and scores as numbers, the
shapes ir_measures, pytrec_eval and PyTerrier pass around — straight to the engine's
:class:`~irstats.collection.Collection` and :class:`~irstats.judgments.Judgments`, with
dict look-ups and numpy: no frame library, no text to write and parse again.

Why a path of its own: through ir_measures a run arrives as Python objects, once per call.
Turning them into a pandas frame, then a polars frame, then joining, cost ~10 ms per DL 2019
run (a third of it in pandas' Arrow strings) — more than pytrec_eval's whole evaluation. Here
a run costs a few passes of C-level iteration over its lists (``map`` over a dict's ``get``)
and one numpy sort, skipped when the run is written in ranking order, as runs nearly always are.

A run is first offered to the compiled ranker (:func:`compiled_ranking`: the C code that ranks
run files, fed the Python objects themselves — a few tens of ns a line instead of ~175 in
Python); what it declines goes the Python way below, which is also the reference it is tested
against, with the general path.

Like the compiled reader (:mod:`irstats.ingest`) it is only a fast path, and it takes only
what it is sure of. It returns None — and the caller goes the general way, through a frame
and :class:`irstats.evaluate.Evaluator`, which applies every rule and names whatever is
wrong — for ids that are not text (numbers are turned into text there), qrels ids outside
ASCII or holding a newline or NUL, grades that are not whole numbers, a (topic, docno) judged
twice, a document twice in one topic of a run, a NaN or −0 score, and options other than
trec_eval's ordering (``order="score"``, ``ties="docno"``, ``on_duplicate="error"``).
tests/test_ir_measures_provider.py holds the two paths equal, tensor for tensor.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate, chain, groupby, repeat
from operator import attrgetter
from typing import Any, Sequence

import numpy as np

from irstats.collection import Collection, EvalOptions
from irstats.judgments import PADDING, POOL_UNJUDGED, UNJUDGED, Judgments, grade_codes, grade_dtype, qrels_facts
from irstats.qrels_arrays import QrelsArrays


def qrels_collection(topics: Sequence[str], docnos: Sequence[str], grades) -> Collection | None:
    """The Collection of qrels given line by line (``topics[i]`` judges ``docnos[i]`` with
    ``grades[i]``), as :meth:`Collection.load` would make it from the same lines; None when
    this path does not take them (see the module). At least one line is expected."""
    n = len(topics)
    if n == 0 or len(docnos) != n or len(grades) != n:
        return None
    try:
        topic_text, docno_text = "\n".join(topics), "\n".join(docnos)
    except TypeError:  # a number among the ids: the frame path turns it into text
        return None
    # Ids in the byte-for-byte form of files (io.trec.id_of) need ASCII; a newline would split
    # the docno blob, and numpy's strings drop trailing NULs (the sort below)
    if not (topic_text.isascii() and docno_text.isascii()) or "\x00" in topic_text or "\x00" in docno_text \
            or docno_text.count("\n") != n - 1 or topic_text.count("\n") != n - 1:
        return None
    rel = np.asarray(grades)
    if rel.dtype.kind not in "iu" or (rel.dtype == np.uint64 and rel.max() > np.iinfo(np.int64).max):
        return None  # real-valued labels, text, booleans, huge numbers: the frame path decides
    rel = rel.astype(np.int64)
    if len(set(zip(topics, docnos))) != n:
        return None  # a pair judged twice: the frame path names it
    keys = tuple(sorted(set(topics)))  # code-point order: for ASCII, the bytewise order of files
    order = np.lexsort((np.array(docnos), np.array(topics)))
    position = {topic: i for i, topic in enumerate(keys)}
    line_topic = np.fromiter(map(position.__getitem__, topics), np.int64, n)[order]
    blob = "\n".join([docnos[i] for i in order.tolist()]).encode("ascii")
    return Collection(None, keys, arrays=QrelsArrays(keys, line_topic, blob, rel[order]))


@dataclass(frozen=True)
class RunLines:
    """One run as parallel columns, its lines in blocks of one topic each (a run is nearly
    always written topic by topic, so a block is usually a whole topic and the work per line
    is a dict look-up in that topic's judgments)."""

    topics: list  # each block's topic
    bounds: list[int]  # block k is lines bounds[k]:bounds[k + 1]
    docnos: list
    scores: np.ndarray  # per line
    distinct: bool = False  # the shape rules out a docno twice in a topic (a dict of dicts)

    @classmethod
    def of_lines(cls, topics: Sequence, docnos: Sequence, scores: np.ndarray) -> "RunLines":
        """From one topic per line: consecutive lines of the same topic form a block."""
        blocks = [(topic, len(list(lines))) for topic, lines in groupby(topics)]
        bounds = [0, *accumulate(n for _, n in blocks)]
        return cls([topic for topic, _ in blocks], bounds, docnos if isinstance(docnos, list) else list(docnos),
                   scores)

    @classmethod
    def of_dicts(cls, run: dict) -> "RunLines | None":
        """From pytrec_eval's shape, ``{topic: {docno: score}}``; None if it is not that shape
        or a score is not a number."""
        docnos: list = []
        bounds = [0]
        for docs in run.values():
            if not isinstance(docs, dict):
                return None
            docnos += docs
            bounds.append(len(docnos))
        scores = np.asarray(list(chain.from_iterable(docs.values() for docs in run.values())))
        if scores.dtype.kind not in "fiu":  # text, None, objects: the frame path reads or refuses them
            return None
        return cls(list(run), bounds, docnos, scores, distinct=True)


def _codes_by_topic(collection: Collection, options: EvalOptions) -> dict[str, dict[str, int]] | None:
    """Per topic, docno → the grade code the tensor holds for that document under ``options``
    (a negative grade: POOL_UNJUDGED, or 0 with ``negative_rel="nonrel"``), kept on the
    collection; None when its ids are not plain ASCII or its labels real-valued (then the
    frame path compares bytes and codes labels)."""
    def compute():
        if collection.labels is not None:
            return None
        try:
            docnos = collection.docno_blob().decode("ascii").split("\n")
        except (UnicodeEncodeError, UnicodeDecodeError):
            return None
        if not all(t.isascii() for t in collection.topic_keys) or len(docnos) != collection.num_lines:
            return None
        rel = grade_codes(collection)
        codes = np.maximum(rel, 0) if options.negative_rel == "nonrel" else np.where(rel < 0, POOL_UNJUDGED, rel)
        by_topic: dict[str, dict[str, int]] = {topic: {} for topic in collection.topic_keys}
        for t, docno, code in zip(collection.line_topics().tolist(), docnos, codes.tolist()):
            by_topic[collection.topic_keys[t]][docno] = code
        return by_topic

    return collection.memo(("codes by topic", options.negative_rel), compute)


#: Blocks shorter than this on average are looked up line by line (one dict of pairs), not
#: block by block: a Python loop per block would cost more than it saves (10^5 topics × 1).
SHORT_BLOCKS = 8


def run_judgments(collection: Collection, lines: RunLines, options: EvalOptions,
                  name: str = "run") -> tuple[Judgments, np.ndarray] | None:
    """One run judged against the collection as :meth:`irstats.evaluate.Evaluator.judgments`
    judges it — score descending, then docno descending; depth, ``judged_only``, ``complete``
    and ``score_dtype`` as the options say; lines of topics the qrels lack dropped — and the
    number of lines per qrels topic (before the depth cut). None when this path does not take
    the run (see the module)."""
    if options.order != "score" or options.ties != "docno" or options.on_duplicate != "error":
        return None
    by_topic = _codes_by_topic(collection, options)
    if by_topic is None:
        return None
    index = collection.memo("topic positions", lambda: {t: i for i, t in enumerate(collection.topic_keys)})
    block_tidx = [index.get(topic, -1) for topic in lines.topics]
    if -1 in block_tidx:  # lines of topics the qrels lack: dropped
        inside = _inside(lines, block_tidx)
        if inside is None:
            return None
        lines, block_tidx = inside
    docnos, bounds = lines.docnos, lines.bounds
    try:
        docno_text = "".join(docnos)
    except TypeError:  # a number among the docnos: the frame path turns it into text
        return None
    scores = np.asarray(lines.scores, dtype=np.float64)
    if np.isnan(scores).any() or (np.signbit(scores) & (scores == 0)).any() or "\x00" in docno_text:
        return None  # NaN is an error there; −0 and NUL bytes are the frame path's to order
    tidx = np.repeat(np.asarray(block_tidx, dtype=np.int64), np.diff(bounds))
    contiguous = len(set(block_tidx)) == len(block_tidx)  # each topic's lines together
    spans = list(zip(bounds[:-1], bounds[1:]))
    if not lines.distinct and (any(len(set(docnos[a:b])) != b - a for a, b in spans) if contiguous
                               else len(set(zip(tidx.tolist(), docnos))) != len(docnos)):
        return None  # a document twice in a topic: an error, which the frame path names
    if options.score_dtype == "float32":  # trec_eval <= 9 and pytrec_eval store scores as C floats
        scores = scores.astype(np.float32).astype(np.float64)
    if contiguous and len(docnos) >= SHORT_BLOCKS * len(block_tidx):
        codes = np.empty(len(docnos), dtype=np.int64)
        for t, (a, b) in zip(block_tidx, spans):
            judged = by_topic[collection.topic_keys[t]]
            codes[a:b] = np.fromiter(map(judged.get, docnos[a:b], repeat(UNJUDGED)), np.int64, b - a)
    else:
        pairs = collection.memo(("codes by pair", options.negative_rel), lambda: {
            (topic, docno): code for topic, codes in by_topic.items() for docno, code in codes.items()})
        line_topics = [collection.topic_keys[t] for t in tidx.tolist()]
        codes = np.fromiter(map(pairs.get, zip(line_topics, docnos), repeat(UNJUDGED)), np.int64, len(docnos))
    order = _ranking_order(tidx, scores, docnos, contiguous)
    if order is not None:
        tidx, codes = tidx[order], codes[order]
    return _tensor(collection, tidx, codes, options, name)


def compiled_ranking(collection: Collection, run, options: EvalOptions) -> tuple[np.ndarray, np.ndarray] | None:
    """The lines of ``run`` — ir_measures' shape: a list of namedtuples (query_id, doc_id,
    score), a dict of dicts or a DataFrame — of qrels topics in trec_eval's ranking order, as
    ``(topic index, grade code)`` per line, ranked by the compiled ranker straight from the
    Python objects (``irstats._ingest``: ``QrelsTable.rank_objects``), with nothing cut; give
    them to :func:`ranked_judgments`. None when that ranker is not there or does not take the
    run (ids that are not text, a NaN or −0 score, a document twice in a topic, rows of mixed
    types …) or the options: :func:`run_judgments` then decides, as before.

    Why: through ir_measures a run's lines are Python objects, and looking each up and ordering
    it in Python cost ~175 ns a line — most of a call. In C the same work is a few tens of ns."""
    from irstats.ingest import qrels_table

    if options.order != "score" or options.ties != "docno" or options.on_duplicate != "error" \
            or collection.labels is not None:
        return None
    table = qrels_table(collection, options)
    if table is None or not hasattr(table, "rank_objects"):  # a compiled reader built before it
        return None
    float32 = options.score_dtype == "float32"  # trec_eval <= 9 and pytrec_eval store scores as C floats
    if isinstance(run, list):
        fields = getattr(type(run[0]), "_fields", ()) if run else ()
        if not {"query_id", "doc_id", "score"} <= set(fields):
            return None
        at = (fields.index("query_id"), fields.index("doc_id"), fields.index("score"))
        ranked = table.rank_objects(run, at, None, None, None, float32)
    elif isinstance(run, dict):  # pytrec_eval's shape, read in C as it stands
        ranked = table.rank_objects(run, (0, 0, 0), None, None, None, float32)
    else:
        columns = object_columns(run, "score")
        if columns is None:
            return None
        topics, docnos, scores = columns
        scores = scores.tolist() if isinstance(scores, np.ndarray) else scores  # a frame's column
        ranked = table.rank_objects(None, (0, 0, 0), topics, docnos, scores, float32)
    if ranked is None:
        return None
    n_lines = np.frombuffer(ranked[0], dtype=np.int64)
    tidx = np.repeat(np.arange(len(n_lines), dtype=np.int64), n_lines)
    return tidx, np.frombuffer(ranked[2], dtype=np.int64)


def object_columns(data, value: str = "score") -> tuple[list, list, Any] | None:
    """``(query ids, doc ids, values)`` of ir_measures' shapes — a dict of dicts, a DataFrame
    (columns query_id, doc_id, ``value``) or a list of namedtuples — one item a line; None for
    another shape or a malformed one."""
    try:
        if isinstance(data, dict):
            topics: list = []
            docnos: list = []
            values: list = []
            for topic, docs in data.items():
                if not isinstance(docs, dict):
                    return None
                topics += repeat(topic, len(docs))
                docnos += docs
                values += docs.values()
            return topics, docnos, values
        if hasattr(data, "itertuples"):  # a pandas DataFrame
            return data["query_id"].tolist(), data["doc_id"].tolist(), data[value].to_numpy()
        if isinstance(data, list):
            return (list(map(attrgetter("query_id"), data)), list(map(attrgetter("doc_id"), data)),
                    list(map(attrgetter(value), data)))
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    return None


def ranked_judgments(collection: Collection, ranked: tuple[np.ndarray, np.ndarray], options: EvalOptions,
                     name: str = "run") -> tuple[Judgments, np.ndarray]:
    """:func:`run_judgments`' result from :func:`compiled_ranking`'s lines: the tensor, cut at
    the depth and condensed as ``options`` say, and the lines per qrels topic."""
    return _tensor(collection, *ranked, options, name)


def _inside(lines: RunLines, block_tidx: list[int]) -> tuple[RunLines, list[int]] | None:
    """The run without its blocks of topics the qrels lack (``block_tidx`` −1), or None when
    such a topic is not text (a number would be text, and maybe a qrels topic, on the frame path)."""
    try:
        "".join(topic for topic, t in zip(lines.topics, block_tidx) if t < 0)
    except TypeError:
        return None
    kept = [k for k, t in enumerate(block_tidx) if t >= 0]
    spans = [(lines.bounds[k], lines.bounds[k + 1]) for k in kept]
    docnos = list(chain.from_iterable(lines.docnos[a:b] for a, b in spans))
    scores = np.concatenate([lines.scores[a:b] for a, b in spans]) if spans else lines.scores[:0]
    bounds = [0, *accumulate(b - a for a, b in spans)]
    return RunLines([lines.topics[k] for k in kept], bounds, docnos, scores, lines.distinct), \
        [block_tidx[k] for k in kept]


def _tensor(collection: Collection, tidx: np.ndarray, codes: np.ndarray, options: EvalOptions,
            name: str) -> tuple[Judgments, np.ndarray]:
    """The judgments tensor of one run's lines in ranking order (topic by topic), cut at the
    depth and condensed under ``judged_only``, and the lines per qrels topic before the cut."""
    n_top = len(collection.topic_keys)
    n_lines = np.bincount(tidx, minlength=n_top)
    position = _positions(tidx)
    if options.depth is not None:
        keep = position < options.depth
        tidx, codes, position = tidx[keep], codes[keep], position[keep]
    if options.judged_only:  # condensed lists: unjudged documents dropped after the depth cut
        keep = codes >= 0
        tidx, codes = tidx[keep], codes[keep]
        position = _positions(tidx)
    n_ret = np.bincount(tidx, minlength=n_top)
    grades = np.full((1, n_top, max(int(n_ret.max(initial=0)), 1)), PADDING, dtype=grade_dtype(collection.max_code))
    grades[0, tidx, position] = codes
    present = np.ones(n_top, dtype=bool) if options.complete else n_lines > 0
    judgments = Judgments.of(grades, n_ret[None], present[None], (name,), collection.topics,
                             qrels_facts(collection, options), options)
    return judgments, n_lines


def _block_starts(tidx: np.ndarray) -> np.ndarray:
    """Where each run of lines of one topic starts."""
    return np.concatenate(([0], np.flatnonzero(tidx[1:] != tidx[:-1]) + 1)) if len(tidx) else tidx


def _ranking_order(tidx: np.ndarray, scores: np.ndarray, docnos: Sequence[str],
                   contiguous: bool) -> np.ndarray | None:
    """The permutation putting the lines topic by topic in trec_eval's order (score
    descending, then docno descending), or None when they are in it already (``contiguous``:
    each topic's lines are together). A run written in ranking order costs two comparisons
    per line; otherwise one numpy sort; then only the lines of tied scores are ordered by
    docno (``docnos`` are distinct within a topic)."""
    n = len(tidx)
    if n < 2:
        return None
    boundary = tidx[1:] != tidx[:-1]
    order = None
    if not (contiguous and np.all((scores[:-1] >= scores[1:]) | boundary)):
        order = np.lexsort((-scores, tidx))  # stable: ties stay in line order until below
        tidx, scores = tidx[order], scores[order]
        boundary = tidx[1:] != tidx[:-1]
    tie = np.flatnonzero((scores[:-1] == scores[1:]) & ~boundary)
    if len(tie) == 0:
        return order
    rows = np.unique(np.concatenate((tie, tie + 1)))  # positions (in the current order) of tied lines
    lines = rows if order is None else order[rows]
    block = np.concatenate(([0], np.cumsum(boundary)))[rows]  # blocks in the current order, not topic numbers
    _, docno_rank = np.unique(np.array([docnos[i] for i in lines.tolist()]), return_inverse=True)
    # within each run of tied scores (same block, same score), docno descending; the runs keep their slots
    reordered = rows[np.lexsort((-docno_rank.ravel(), -scores[rows], block))]
    permutation = np.arange(n) if order is None else order
    permutation[rows] = permutation[reordered]
    return permutation


def _positions(tidx: np.ndarray) -> np.ndarray:
    """0-based position of each line within its topic (lines grouped by topic)."""
    n = len(tidx)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = _block_starts(tidx)
    return np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))


__all__ = ["RunLines", "compiled_ranking", "object_columns", "qrels_collection", "ranked_judgments", "run_judgments"]
