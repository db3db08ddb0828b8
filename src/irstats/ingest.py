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

import os
from dataclasses import dataclass
from io import BufferedIOBase
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

import numpy as np

if TYPE_CHECKING:
    from irstats.collection import Collection, EvalOptions, RunSet
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure

from irstats import extension
from irstats.extension import available
from irstats.judgments import QrelsFacts
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


def qrels_table(collection: "Collection", options: "EvalOptions") -> Any:
    """The qrels as a C hash table, with the engine's grade codes (cached on the collection);
    None when the compiled path cannot take these qrels."""
    return collection.memo(("ingest_table", options.negative_rel), lambda: _build_table(collection, options))


def _build_table(collection: "Collection", options: "EvalOptions") -> Any:
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


def _rank_file(table: Any, source: str, tag: bytes, options: "EvalOptions") -> Any:
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
    table = qrels_table(collection, options)
    if table is None:
        return None
    try:
        tags = [runset.parts[i].tag.encode("latin-1") for i in systems]
    except UnicodeEncodeError:
        return None
    n_top = len(collection.topic_keys)
    def rank(k: int) -> Any:
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


# ----------------------------------------------------------------------------- a run larger than memory's comfort

#: A plain run file larger than this is read, ranked and scored a block of topics at a time
#: (:func:`streamed_judgments`): the engine then never holds its text, only a block of it.
STREAM_BYTES = 64 << 20

#: Text read and ranked at once when a run is read a block of topics at a time (larger blocks
#: cost memory and gain no speed: 1 GB of run in 4.3 s and 206 MiB with 8 MB, 6.2 s and 284 MiB
#: with 32 MB).
BLOCK_BYTES = 8 << 20

#: Most cells (topics × ranks) of the tensor of one block of topics scored at once: the
#: measures' float64 temporaries of a block are 8 bytes a cell (2^22 cells: 220 MiB more).
BLOCK_CELLS = 1 << 20

#: Set to False to read every run whole (the benchmark's in-memory path, and tests that compare
#: the two); ``IRSTATS_NO_STREAMING=1`` does so for a whole process.
STREAMING = os.environ.get("IRSTATS_NO_STREAMING", "") == ""


class Declined(Exception):
    """The compiled reader does not take this run as it is: the caller reads it whole (the
    careful reader then takes it or names the file and line of what is wrong)."""


class _NotContiguous(Exception):
    """A topic's lines come back after another topic's: the run is sorted by blocks instead."""


def streamable(collection: "Collection", runset: "RunSet", options: "EvalOptions", system: int, *,
               judged_here: bool = True) -> bool:
    """Whether run ``system`` is read a block of topics at a time: a plain file (gzip or not,
    not standard input or a pipe) of more than :data:`STREAM_BYTES` that the compiled path
    would take whole. ``judged_here=False``: the run is judged elsewhere (the client of a Dask
    cluster, cutting it into byte ranges for its workers), so the qrels' hash table is not built
    here just to see that it can be — a worker that cannot build it declines the blocks
    (:class:`Declined`) and the run is read whole, as one process reads it."""
    import stat

    from irstats.io.trec import STDIN, _read_once

    part = runset.parts[system]
    if not STREAMING or part.size <= STREAM_BYTES or not _eligible(runset, [system], options):
        return False
    if not hasattr(_ingest, "partition_lines"):  # a compiled reader built before it could read by blocks
        return False
    if part.source == STDIN or part.source in _read_once:
        return False
    try:
        regular = stat.S_ISREG(os.stat(part.source).st_mode)
    except OSError:
        return False
    return regular and (not judged_here or qrels_table(collection, options) is not None)


def streamed_judgments(collection: "Collection", runset: "RunSet", options: "EvalOptions", system: int,
                       outside: dict[str, int]) -> Iterator[tuple[np.ndarray, "Judgments"]]:
    """The judgments of run ``system`` (:func:`streamable`) a block of topics at a time:
    ``(topics, judgments)``, ``topics`` the positions of the block's qrels topics. A run of
    several GB is so held a block of :data:`BLOCK_BYTES` at a time, however many topics it has.

    Two passes. The first reads the file in blocks cut between topics and ranks each in C as a
    run of its own — each topic is ranked, cut at the depth and checked for repeated documents
    within its own lines, so its grades are the whole file's — and writes the grades to a file
    in a temporary folder (``TMPDIR``; a byte or two a document). That needs each topic's lines in one block: when
    a topic comes back after another, the file is sorted by blocks instead (its lines dealt into
    parts by a hash of their topic, every line of a topic in the same part and in file order, in
    a temporary folder; :func:`_sorted_by_blocks`) and each part is ranked. The second pass
    reads the grades back and yields the tensors of blocks of at most :data:`BLOCK_CELLS` cells,
    as wide as the run's longest list (a score does not depend on the width: every sum along
    the ranks adds them in rank order, so a Dask worker scoring a block alone at the width of its
    own longest list gets the same bits, :func:`score_text`). With ``complete``, the qrels
    topics the run lacks come last, as empty lists.

    Topics outside the qrels are counted into ``outside`` (run name → topics). Raises
    :class:`Declined`, before anything is yielded, when the compiled reader does not take a block
    as it is or the run has no qrels topic at all: the caller reads the run whole, as before."""
    import tempfile

    part = runset.parts[system]
    with tempfile.TemporaryDirectory(prefix="irstats-run-") as folder:
        grades = os.path.join(folder, "grades")
        try:
            try:
                plan = _rank_blocks(collection, runset, options, system, _file_blocks(part.source), grades)
            except _NotContiguous:
                parts = _sorted_by_blocks(part.source, part.size, os.path.join(folder, "parts"))
                plan = _rank_blocks(collection, runset, options, system, parts, grades, contiguous=False)
        except OSError as exc:  # no room in the temporary folder (TMPDIR): read the run whole
            raise Declined from exc
        if plan.outside:
            outside[runset.names[system]] = plan.outside
        yield from _score_blocks(collection, runset, options, system, plan, grades)


@dataclass
class _Ranked:
    """What the first pass over a streamed run found: its topics (positions, in the order their
    grades were written), the grades kept per topic, the longest list, every topic it answers
    and how many topics outside the qrels it has."""

    topics: np.ndarray
    kept: np.ndarray
    width: int
    seen: np.ndarray
    outside: int


def _rank_blocks(collection: "Collection", runset: "RunSet", options: "EvalOptions", system: int,
                 blocks: Iterator[bytes], grades: str, contiguous: bool = True) -> _Ranked:
    """Rank each block of text (the next one in a background thread, without the GIL, while this
    one's grades are written to the file ``grades``); raises :class:`_NotContiguous` when a topic
    comes back in a later block (``contiguous``: blocks cut from the file, not sorted ones) and
    :class:`Declined` as :func:`streamed_judgments` says."""
    import zlib
    from concurrent.futures import ThreadPoolExecutor

    from irstats.judgments import grade_dtype

    table = qrels_table(collection, options)
    try:
        tag = runset.parts[system].tag.encode("latin-1")
    except UnicodeEncodeError:
        raise Declined from None
    depth = -1 if options.depth is None else int(options.depth)
    dtype = grade_dtype(collection.max_code)

    def rank_next() -> Any:
        data = next(blocks, None)
        if data is None:
            return None
        ranked = table.rank(data, tag, depth, bool(options.judged_only), options.score_dtype == "float32", True)
        if ranked is None:
            raise Declined
        return ranked

    seen = np.zeros(len(collection.topic_keys), dtype=bool)
    extra: set[bytes] = set()
    topics, kept = [], []
    with open(grades, "wb") as out, ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(rank_next)
        while True:
            try:
                ranked = pending.result()
            except (OSError, EOFError, zlib.error, OverflowError, ValueError) as exc:
                # unreadable, a corrupt gzip stream, no room for the parts, a docno of 2 GiB:
                # the whole-file path reads it or says what is wrong
                raise Declined from exc
            if ranked is None:
                break
            pending = pool.submit(rank_next)
            block = np.flatnonzero(np.frombuffer(ranked[0], dtype=np.int64))
            if contiguous and seen[block].any():
                raise _NotContiguous
            seen[block] = True
            extra.update(ranked[3])
            topics.append(block)
            kept.append(np.frombuffer(ranked[1], dtype=np.int64)[block])
            out.write(np.frombuffer(ranked[2], dtype=np.int64).astype(dtype).tobytes())
    if not seen.any():  # no line of a qrels topic: the careful reader names the run and the qrels
        raise Declined
    kept_all = np.concatenate(kept)
    return _Ranked(np.concatenate(topics), kept_all, max(int(kept_all.max(initial=0)), 1), seen, len(extra))


def _score_blocks(collection: "Collection", runset: "RunSet", options: "EvalOptions", system: int,
                  ranked: _Ranked, grades: str) -> Iterator[tuple[np.ndarray, "Judgments"]]:
    """The second pass: the grades read back, a block of at most :data:`BLOCK_CELLS` cells at a
    time, as tensors of the run's width; then, with ``complete``, the topics it lacks."""
    from irstats.judgments import grade_dtype

    dtype = grade_dtype(collection.max_code)
    lines = _QrelsLines.of(collection, options)
    step = max(BLOCK_CELLS // ranked.width, 1)
    with open(grades, "rb") as fh:
        for start in range(0, len(ranked.topics), step):
            topics, kept = ranked.topics[start:start + step], ranked.kept[start:start + step]
            codes = np.fromfile(fh, dtype=dtype, count=int(kept.sum()))
            yield topics, _block_judgments(collection, runset, options, system, lines, topics, kept, codes,
                                           ranked.width)
    if options.complete:  # the topics the run lacks, as empty lists (-c)
        missing = np.flatnonzero(~ranked.seen)
        for start in range(0, len(missing), step):
            topics = missing[start:start + step]
            yield topics, _block_judgments(collection, runset, options, system, lines, topics,
                                           np.zeros(len(topics), dtype=np.int64), np.zeros(0, dtype=dtype),
                                           ranked.width)


def _open_text(source: str) -> BufferedIOBase:
    """The run file for reading a block at a time (decompressed as it is read, if gzip)."""
    import gzip

    fh = open(source, "rb")
    if fh.read(2) == b"\x1f\x8b":
        fh.close()
        return gzip.open(source, "rb")
    fh.seek(0)
    return fh


def _file_blocks(source: str, block_bytes: int | None = None) -> Iterator[bytes]:
    """The run's text in blocks of about ``block_bytes`` (:data:`BLOCK_BYTES`), each cut after
    a line and between two topics: the lines of the topic a block ends with (and an unfinished
    line) go to the next block, which grows past ``block_bytes`` only while one topic does."""
    block_bytes = BLOCK_BYTES if block_bytes is None else block_bytes
    with _open_text(source) as fh:
        carry = b""
        while True:
            data = fh.read(block_bytes)
            if not data:
                if carry:
                    yield carry
                return
            data = carry + data if carry else data
            cut = _last_topic_start(data)
            carry = data[cut:]
            if cut:
                yield data[:cut]


def _last_topic_start(data: bytes) -> int:
    """Where the lines of the topic of ``data``'s last whole line begin (0 when every whole
    line is that topic's or there is none): the end of the lines a block can take."""
    end = data.rfind(b"\n") + 1
    if end == 0:
        return 0
    topic = None
    position = end
    while position > 0:
        start = data.rfind(b"\n", 0, position - 1) + 1
        fields = data[start:position].split(None, 1)  # ASCII whitespace, as the C reader splits
        if fields:
            if topic is None:
                topic = fields[0]
            elif fields[0] != topic:
                return position
        position = start
    return 0


def topic_ranges(source: str, size: int, block_bytes: int | None = None) -> list[tuple[int, int]] | None:
    """The byte ranges ``[start, end)`` of a plain run file of ``size`` bytes that a Dask worker
    reads and scores on its own (:mod:`irstats.distributed`): about ``block_bytes``
    (:data:`BLOCK_BYTES`) each, every one cut where a line of another topic begins, found by
    reading from the file a little after each ``block_bytes`` (never the whole file). A topic's
    lines are all in one range if the run is written topic by topic; the workers' results tell
    (the caller checks). None for a gzip file, whose bytes cannot be read from the middle."""
    block_bytes = BLOCK_BYTES if block_bytes is None else block_bytes
    cuts = [0]
    with open(source, "rb") as fh:
        if fh.read(2) == b"\x1f\x8b":
            return None
        while cuts[-1] + block_bytes < size:
            cut = _next_topic_start(fh, cuts[-1] + block_bytes)
            if cut is None or cut >= size:
                break
            cuts.append(cut)
    cuts.append(size)
    return list(zip(cuts[:-1], cuts[1:]))


def _next_topic_start(fh: BufferedIOBase, position: int) -> int | None:
    """Where, after ``position``, the first line of a topic begins whose previous line is another
    topic's (blank lines skipped, fields split at ASCII whitespace as the C reader splits); None
    when the file ends first."""
    fh.seek(position)
    fh.readline()  # the rest of the line that holds position
    offset = fh.tell()
    topic = None
    for line in iter(fh.readline, b""):
        fields = line.split(None, 1)
        if fields:
            if topic is None:
                topic = fields[0]
            elif fields[0] != topic:
                return offset
        offset += len(line)
    return None


def split_topics(source: str, ranges: list[tuple[int, int]], window: int = 1 << 16) -> bool:
    """Whether a topic of the run at ``source`` has lines in two of its byte ranges
    (:func:`topic_ranges`), seen in the first ``window`` bytes of each range only: True is
    certain (the run is not written topic by topic: sort it by blocks); False is what every run
    written topic by topic gives, and what the workers' results then confirm. A shuffled run
    is told at once — a few hundred topics in each window — for a read of ``window`` bytes a block."""
    seen: dict[bytes, int] = {}
    with open(source, "rb") as fh:
        for k, (start, end) in enumerate(ranges):
            fh.seek(start)
            lines = fh.read(min(window, end - start)).split(b"\n")
            if start + window < end:
                lines.pop()  # a line cut by the window
            for line in lines:
                fields = line.split(None, 1)
                if fields and seen.setdefault(fields[0], k) != k:
                    return True
    return False


def score_text(collection: "Collection", runset: "RunSet", options: "EvalOptions", system: int, data: bytes,
               measures: list[Measure],
               cells: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray], set[bytes]]:
    """Rank and score ``data``, lines of run ``system`` holding every line of their topics (a
    byte range of :func:`topic_ranges`, or a part of the run sorted by blocks), as the engine
    scores a block of a streamed run: ``(topics, {measure: values}, topics outside the qrels)``,
    ``topics`` the positions of the block's qrels topics, tensors of at most ``cells``
    (:data:`BLOCK_CELLS`) cells at a time, each as wide as its longest list (a score does not
    depend on the width). Raises :class:`Declined` when the compiled reader does not take the
    text as it is (the caller reads the run whole, as one process does)."""
    from irstats.measures.common import widest_first
    from irstats.judgments import grade_dtype

    table = qrels_table(collection, options)
    if table is None:
        raise Declined
    try:
        tag = runset.parts[system].tag.encode("latin-1")
    except UnicodeEncodeError:
        raise Declined from None
    depth = -1 if options.depth is None else int(options.depth)
    try:
        ranked = table.rank(data, tag, depth, bool(options.judged_only), options.score_dtype == "float32", True)
    except (OverflowError, ValueError) as exc:
        raise Declined from exc
    if ranked is None:
        raise Declined
    topics = np.flatnonzero(np.frombuffer(ranked[0], dtype=np.int64))
    kept = np.frombuffer(ranked[1], dtype=np.int64)[topics]
    codes = np.frombuffer(ranked[2], dtype=np.int64).astype(grade_dtype(collection.max_code))
    ends = np.cumsum(kept)
    lines = _QrelsLines.of(collection, options)
    values = {str(m): np.empty(len(topics)) for m in measures}
    cells = BLOCK_CELLS if cells is None else cells
    start = 0
    while start < len(topics):
        # as many topics as fit in ``cells`` at the width of their longest list
        width = np.maximum.accumulate(np.maximum(kept[start:], 1))
        stop = start + max(int(np.searchsorted(width * np.arange(1, len(width) + 1), cells, side="right")), 1)
        first = int(ends[start - 1]) if start else 0
        judgments = _block_judgments(collection, runset, options, system, lines, topics[start:stop],
                                     kept[start:stop], codes[first:int(ends[stop - 1])],
                                     int(width[stop - start - 1]))
        for m in widest_first(measures):
            values[str(m)][start:stop] = m.definition.evaluate(judgments, m)
        del judgments
        start = stop
    return topics, values, set(ranked[3])


def score_lists(collection: "Collection", runset: "RunSet", options: "EvalOptions", system: int,
                topics: np.ndarray, measures: list[Measure]) -> dict[str, np.ndarray]:
    """The scores of empty lists of run ``system`` on the qrels topics at ``topics``: what
    ``complete`` (-c) gives the topics a run lacks, a block of :data:`BLOCK_CELLS` at a time."""
    from irstats.measures.common import widest_first
    from irstats.judgments import grade_dtype

    lines = _QrelsLines.of(collection, options)
    values = {str(m): np.empty(len(topics)) for m in measures}
    for start in range(0, len(topics), BLOCK_CELLS):
        block = topics[start:start + BLOCK_CELLS]
        judgments = _block_judgments(collection, runset, options, system, lines, block,
                                     np.zeros(len(block), dtype=np.int64),
                                     np.zeros(0, dtype=grade_dtype(collection.max_code)), 1)
        for m in widest_first(measures):
            values[str(m)][start:start + len(block)] = m.definition.evaluate(judgments, m)
    return values


#: A part of a run sorted by blocks larger than this many blocks is dealt again.
PART_BLOCKS = 2

#: Most parts a run is dealt into at once (files open at once): larger parts are dealt again.
MAX_PARTS = 256


def _sorted_by_blocks(source: str, size: int, folder: str) -> Iterator[bytes]:
    """The lines of a run whose topics are not contiguous (about ``size`` bytes of text), as
    parts of about :data:`BLOCK_BYTES` in each of which are all the lines of its topics: an
    external sort by blocks (:func:`sorted_parts`), each part read and deleted in turn."""
    for path in sorted_parts(source, size, folder):
        with open(path, "rb") as fh:
            data = fh.read()
        os.unlink(path)  # before the part is ranked: the folder holds what is left to read
        yield data


def sorted_parts(source: str, size: int, folder: str) -> Iterator[str]:
    """The files of a run sorted by blocks, in ``folder``: the file is read a block at a time and
    its lines dealt by a hash of their topic into part files (``_ingest.partition_lines``: in
    file order within a part); a part larger than :data:`PART_BLOCKS` blocks is dealt again with
    another hash. Every line of a topic ends in one part."""
    os.makedirs(folder, exist_ok=True)
    yield from _deal(lambda: _file_blocks(source), size, folder, seed=0)


def _deal(blocks: Callable[[], Iterable[bytes]], size: int, folder: str, seed: int) -> Iterator[str]:
    """Deal the lines of ``blocks()`` (about ``size`` bytes) into parts by a hash of their topic
    and ``seed``, and yield each part's path; a part larger than :data:`PART_BLOCKS` blocks is
    dealt again (``seed + 1``, into a folder beside it) unless it holds every line dealt (one
    topic, or topics that hash alike); empty parts are deleted."""
    n_parts = min(max(-(-size // BLOCK_BYTES), 2), MAX_PARTS)
    paths = [os.path.join(folder, f"{seed}-{k}") for k in range(n_parts)]
    files = [open(path, "wb") for path in paths]
    try:
        for block in blocks():
            for fh, part in zip(files, _ingest.partition_lines(block, n_parts, seed)):
                fh.write(part)
    finally:
        for fh in files:
            fh.close()
    sizes = [os.path.getsize(path) for path in paths]
    for path, part_size in zip(paths, sizes):
        if PART_BLOCKS * BLOCK_BYTES < part_size < sum(sizes):
            # in a folder of its own: the parts of two parts dealt again never share a name
            os.makedirs(path + ".d")
            yield from _deal(lambda: _file_blocks(path), part_size, path + ".d", seed + 1)
        elif part_size:
            yield path
            continue
        os.unlink(path)


def _block_judgments(collection: "Collection", runset: "RunSet", options: "EvalOptions", system: int,
                     lines: "_QrelsLines", topics: np.ndarray, kept: np.ndarray, codes: np.ndarray,
                     width: int) -> "Judgments":
    """The tensor of one run over the qrels topics at ``topics``, ``width`` ranks wide: ``kept``
    grades per topic, ``codes`` those grades one topic after another."""
    from irstats.judgments import PADDING, Judgments, grade_dtype

    grades = np.full((1, len(topics), width), PADDING, dtype=grade_dtype(collection.max_code))
    if kept.sum():
        starts = np.cumsum(kept) - kept
        grades[0, np.repeat(np.arange(len(topics)), kept), np.arange(int(kept.sum())) - np.repeat(starts, kept)] = codes
    present = np.ones((1, len(topics)), dtype=bool)  # a topic with lines, or one -c adds
    names = [collection.topics[t] for t in topics]
    return Judgments.of(grades, kept[None, :].copy(), present, [runset.names[system]], names, lines.facts(topics),
                        options)


class _QrelsLines:
    """The qrels lines grouped by topic (kept per collection and options), to make the facts of
    a block of topics without a pass over every line."""

    def __init__(self, whole: QrelsFacts) -> None:
        self.whole = whole
        self.order = np.argsort(whole.topic_index, kind="stable")
        self.start = np.concatenate(([0], np.cumsum(np.bincount(whole.topic_index, minlength=whole.n_topics))))

    @classmethod
    def of(cls, collection: "Collection", options: "EvalOptions") -> "_QrelsLines":
        from irstats.judgments import qrels_facts

        whole = qrels_facts(collection, options)
        return collection.memo(("qrels lines by topic", id(whole)), lambda: cls(whole))

    def facts(self, topics: np.ndarray) -> _BlockFacts:
        """The facts of the topics at ``topics``, numbered 0 … len(topics) − 1 in that order."""
        counts = self.start[topics + 1] - self.start[topics]
        total = int(counts.sum())
        first = np.repeat(self.start[topics] - (np.cumsum(counts) - counts), counts)
        rows = self.order[first + np.arange(total)]
        return _BlockFacts(np.repeat(np.arange(len(topics)), counts), self.whole.rel[rows], len(topics),
                           self.whole.g_max, self.whole.labels, whole=self.whole)


@dataclass
class _BlockFacts(QrelsFacts):
    """The qrels facts of a block of topics; what is checked over the whole qrels (the outlying
    top grade's warning, once) is asked of the whole qrels' facts."""

    whole: QrelsFacts | None = None

    @property
    def gain_top(self) -> int | float:
        assert self.whole is not None  # always given: the default only follows the inherited fields
        return self.whole.gain_top
