"""The compiled fast path from run files to the judgments tensor.

:func:`compiled_judgments` hands each run file's bytes to ``irstats._ingest`` (C, built by
pip from ``src/irstats/_ingest.c``), which parses, looks up grades in a hash table of the
qrels and sorts each topic in trec_eval's order, without the GIL, so two runs are read on
two cores and no run is ever held as a DataFrame. The result is the same tensor
:func:`irstats.judgments.build_judgments` makes (the tests hold the two equal).

It is only a fast path. It returns None — and the engine reads the batch with the
polars/careful readers, which apply every rule and name the file and line of any problem —
whenever the extension is missing, an option asks for something other than trec_eval's
defaults (rank or file order, keeping the first of repeated documents), a run is not a
plain file, or the C code meets anything it does not take as it is (comments, a wrong
field count, a tag that changes, a score that is not a plain decimal, a repeated
document, no topic in common with the qrels ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from irstats.collection import Collection, EvalOptions, RunSet
    from irstats.judgments import Judgments

from irstats import extension
from irstats.extension import available
from irstats.qrels_arrays import QrelsArrays, read_qrels_arrays  # noqa: F401 - the qrels' compiled path

_ingest = extension.module  # the compiled reader, or None (irstats.extension)

#: Run text per batch on the compiled path: the tensor and the kernels' temporaries of a
#: batch are what the memory peak is made of, and below this size batching costs no speed.
COMPILED_BATCH_BYTES = 8 << 20

#: Runs ranked at once: one per core.
PARALLEL_RUNS = 2


def compiled_batches(runset: "RunSet", max_bytes: int = COMPILED_BATCH_BYTES) -> list[list[int]]:
    """Consecutive groups of runs for the compiled path: about ``max_bytes`` of text, and at
    least :data:`PARALLEL_RUNS` runs each (so that both cores rank one, however big the runs)."""
    groups: list[list[int]] = [[]]
    total = 0
    for i, part in enumerate(runset.parts):
        if len(groups[-1]) >= PARALLEL_RUNS and total + part.size > max_bytes:
            groups.append([])
            total = 0
        groups[-1].append(i)
        total += part.size
    return groups


def _eligible(runset: "RunSet", systems: list[int], options: "EvalOptions") -> bool:
    if not available() or options.order != "score" or options.ties != "docno" \
            or options.on_duplicate != "error":
        return False
    # plain files only: DataFrames and files already re-read carefully keep their path
    return all(runset.parts[i].frame is None and runset.parts[i].separator is not None for i in systems)


def _table(collection: "Collection", options: "EvalOptions"):
    """The qrels as a C hash table, with the engine's grade codes (cached on the collection);
    None when the compiled path cannot take these qrels."""
    return collection.memo(("ingest_table", options.negative_rel), lambda: _build_table(collection, options))


def _build_table(collection: "Collection", options: "EvalOptions"):
    from irstats.judgments import POOL_UNJUDGED, _qrels_columns

    try:
        topics = [t.encode("latin-1") for t in collection.topic_keys]
        # one '\n'-joined blob (ids hold no whitespace): no Python object per qrels line
        docnos = collection.docno_blob()
    except UnicodeEncodeError:  # ids from a DataFrame that no file byte can match: the Python path
        return None
    tidx, rel = _qrels_columns(collection, options)  # rel already as the options read it
    line_topic = np.ascontiguousarray(tidx, dtype=np.int64)
    codes = np.ascontiguousarray(np.where(rel < 0, POOL_UNJUDGED, rel), dtype=np.int64)
    try:
        return _ingest.QrelsTable(topics, line_topic, docnos, codes)
    except (ValueError, OverflowError):  # a pair judged twice, 2**31 topics: the Python path resolves or reports it
        return None


def _rank_file(table, source: str, tag: bytes, options: "EvalOptions"):
    from irstats.io.trec import read_bytes

    depth = -1 if options.depth is None else int(options.depth)
    try:
        return table.rank(read_bytes(source), tag, depth, bool(options.judged_only), options.score_dtype == "float32")
    except OverflowError:  # past the C reader's int32 fields (a docno of 2 GiB): the careful reader takes the file
        return None


def compiled_judgments(collection: "Collection", runset: "RunSet", options: "EvalOptions",
                       systems: list[int], outside: dict[str, int] | None = None) -> "Judgments | None":
    """The judgments tensor of the runs ``systems`` by the compiled path, or None (see the module).
    Topics outside the qrels are counted per run into ``outside`` when given, else warned of."""
    from irstats.judgments import PADDING, Judgments, grade_dtype, qrels_facts, warn_topics_outside_qrels

    if not _eligible(runset, systems, options):
        return None
    table = _table(collection, options)
    if table is None:
        return None
    try:
        tags = [runset.parts[i].tag.encode("latin-1") for i in systems]
    except UnicodeEncodeError:
        return None
    n_top = len(collection.topic_keys)
    def rank(k: int):
        return _rank_file(table, runset.parts[systems[k]].source, tags[k], options)

    if len(systems) == 1:  # one run: no thread pool to import and start
        ranked = [rank(0)]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=PARALLEL_RUNS) as pool:
            ranked = list(pool.map(rank, range(len(systems))))
    if any(r is None for r in ranked):
        return None
    n_sys = len(systems)
    n_lines = np.stack([np.frombuffer(r[0], dtype=np.int64) for r in ranked]).reshape(n_sys, n_top)
    n_ret = np.stack([np.frombuffer(r[1], dtype=np.int64) for r in ranked]).reshape(n_sys, n_top)
    width = max(int(n_ret.max(initial=0)), 1)
    grades = np.full((n_sys, n_top, width), PADDING, dtype=grade_dtype(collection.max_code))
    outside_topics: dict[str, int] = {} if outside is None else outside
    for s, (_, _, codes, extra_topics) in enumerate(ranked):
        kept = n_ret[s]
        if kept.sum():
            topic = np.repeat(np.arange(n_top), kept)
            starts = np.cumsum(kept) - kept
            position = np.arange(int(kept.sum())) - np.repeat(starts, kept)
            grades[s, topic, position] = np.frombuffer(codes, dtype=np.int64)
        if extra_topics:
            outside_topics[runset.names[systems[s]]] = len(extra_topics)
    if outside is None:
        warn_topics_outside_qrels(outside_topics)
    present = np.ones((n_sys, n_top), dtype=bool) if options.complete else n_lines > 0
    facts = qrels_facts(collection, options)
    return Judgments.of(grades, n_ret, present, (runset.names[i] for i in systems), collection.topics, facts,
                        options)
