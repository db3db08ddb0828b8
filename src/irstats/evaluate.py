"""``irstats.evaluate``: qrels and runs to one ScoreMatrix per measure."""

from __future__ import annotations

import functools

from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

import numpy as np

from irstats.collection import Collection, EvalOptions, RunSet
from irstats.errors import InputError
from irstats.judgments import PADDING, Judgments, build_judgments, qrels_index, stack_runs
from irstats.measures import Measure, parse_measure
from irstats.measures.common import widest_first
from irstats.scores import ScoreMatrix

if TYPE_CHECKING:
    from concurrent.futures import Future

    from irstats.beyond import AxisFacts
    from irstats.evaluation import Evaluation

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)", "Rprec", "Bpref", "R@1000")


class Evaluator:
    """Qrels and evaluation options, read once; runs judged and scored against them.

    The one way into the engine: :func:`evaluate`, the report, the depth code and the
    meta-evaluation all go through it. Runs are read in batches of about ``BATCH_BYTES``
    of text (the next batch is read while the previous one is scored), so memory stays
    bounded however many runs come, and results do not depend on the batching.

    >>> ev = Evaluator("qrels.txt", rel_level=2)                # doctest: +SKIP
    >>> ev.num_relevant()["401"]                                # doctest: +SKIP
    >>> scores = ev.score("runs/", ["AP", "nDCG@10"])           # doctest: +SKIP
    >>> judgments = ev.judgments("runs/")                       # doctest: +SKIP
    """

    def __init__(self, qrels, options: EvalOptions | None = None, *, subtopic_qrels=None, preferences=None,
                 labels: str = "real", byte_ids: bool = False, **fields):
        """``qrels``: a path, paths, a DataFrame or a loaded Collection; the options as an
        :class:`EvalOptions` or as its fields (``rel_level=2, depth=100`` …);
        ``subtopic_qrels``: subtopic judgments for the diversity measures (a file
        ``topic subtopic docno grade``, a frame or an :class:`irstats.subtopics.SubtopicQrels`);
        ``preferences``: preference judgments for the prefs_* measures (a file
        ``topic jg jsg docno level``, a frame or an
        :class:`irstats.preference_judgments.PreferenceJudgments`); ``labels`` and ``byte_ids``:
        how qrels not yet loaded are read (:meth:`Collection.load`: the drop-in reads grades as
        trec_eval does, ``"atol"``, and shows ids as the bytes read)."""
        if options is not None and fields:
            raise InputError("give the options as an EvalOptions or as keywords, not both")
        self.options = options if options is not None else EvalOptions(**fields)
        self.collection = (qrels if isinstance(qrels, Collection)
                           else Collection.load(qrels, qrels_duplicate=self.options.qrels_duplicate, labels=labels,
                                                byte_ids=byte_ids))
        # judgments beyond the qrels (measures.registry.NEEDS) over the qrels' topics, carried by
        # every batch's tensor in the field of that name
        self.beyond: dict[str, AxisFacts] = {}
        if subtopic_qrels is not None:
            from irstats.subtopics import subtopic_qrels as read

            self.beyond["subtopics"] = self._on_qrels_topics(read(subtopic_qrels), subtopic_qrels,
                                                             "the subtopic judgments")
        if preferences is not None:
            from irstats.preference_judgments import preference_judgments

            self.beyond["preferences"] = self._on_qrels_topics(preference_judgments(preferences), preferences,
                                                               "the preference judgments")

    def _on_qrels_topics(self, judged, source, what: str):
        """Judgments beyond the qrels over the qrels' topics; an InputError naming their file
        when they judge none of those topics (every measure reading them would be undefined)."""
        import os

        if not set(judged.topic_keys) & set(self.collection.topic_keys):
            path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
            count = len(judged.topic_keys)
            raise InputError(f"{what} share no topic with the qrels ({count} topic{'s' if count != 1 else ''} "
                             "judged, none of the qrels'); the measures that read them are computed over the "
                             "qrels' topics", path=path)
        return judged.on(self.collection.topic_keys)

    def num_relevant(self, level: int | None = None) -> dict[str, int]:
        """R per qrels topic: judged documents with grade >= ``level`` (default: the options' ℓ)."""
        index = qrels_index(self.collection, self.options)
        counts = index.facts.num_relevant(self.options.rel_level if level is None else level)
        return dict(zip(self.collection.topics, counts.tolist()))

    def batches(self, runs, systems: Sequence[int] | None = None,
                outside: dict[str, int] | None = None) -> Iterator[tuple[list[int], Judgments]]:
        """``(batch, judgments)`` for consecutive batches of the runs (``systems``: a subset,
        by position). ``runs`` is anything :meth:`RunSet.load` takes, or a RunSet. Runs with
        topics the qrels lack are warned of once, after the last batch (or counted into
        ``outside``, run → topics, for a caller that warns of several calls at once)."""
        from irstats.judgments import warn_topics_outside_qrels

        from irstats.errors import some
        from irstats.judgments import NoTopicInCommon

        report = outside is None
        outside = {} if outside is None else outside
        runset = runs if isinstance(runs, RunSet) else RunSet.load(runs)
        try:
            for batch, judgments in self._batches(runset, systems, outside):
                for facts in self.beyond.values():
                    judgments = facts.attach(judgments, self.collection, runset, batch, self.options)
                yield batch, judgments
        except NoTopicInCommon as exc:  # name the qrels too: either file may be the wrong one
            qrels = f"the qrels {self.collection.source}" if self.collection.source else "the qrels"
            raise NoTopicInCommon(f"{exc.message}; {qrels} judge topics "
                                  f"{some(self.collection.topics, limit=3)}", path=exc.path) from None
        if report:
            warn_topics_outside_qrels(outside)

    def _batches(self, runs, systems: Sequence[int] | None,
                 outside: dict[str, int]) -> Iterator[tuple[list[int], Judgments]]:
        from irstats.ingest import compiled_batches, compiled_judgments

        runset = runs if isinstance(runs, RunSet) else RunSet.load(runs)
        chosen = None if systems is None else set(systems)

        def keep(groups: list[list[int]]) -> list[list[int]]:
            groups = [[i for i in g if chosen is None or i in chosen] for g in groups]
            return [g for g in groups if g]

        groups = keep(compiled_batches(runset))
        if not groups:
            return
        first = compiled_judgments(self.collection, runset, self.options, groups[0], outside)
        if first is not None:
            yield from self._compiled_batches(runset, groups, first, outside)
            return
        from concurrent.futures import ThreadPoolExecutor

        groups = keep(runset.batches(BATCH_BYTES))
        topics = self.collection.topic_keys
        with ThreadPoolExecutor(max_workers=1) as pool:
            # Reading (polars, which releases the GIL) overlaps with judging and scoring the batch
            # before it (numpy), so the two cores stay busy; at most two batches are in memory.
            pending = pool.submit(stack_runs, runset, groups[0], topics, self.options, outside)
            for i, batch in enumerate(groups):
                stacked = pending.result()
                if i + 1 < len(groups):
                    pending = pool.submit(stack_runs, runset, groups[i + 1], topics, self.options, outside)
                yield batch, build_judgments(self.collection, runset, self.options, systems=batch, stacked=stacked)
                del stacked

    def _compiled_batches(self, runset: RunSet, groups: list[list[int]],
                          first: Judgments, outside: dict[str, int]) -> Iterator[tuple[list[int], Judgments]]:
        """The compiled path's batches: the next batch is ranked in C (no GIL) while this one
        is scored (numpy); a batch the C code declines is read by the Python readers."""
        from irstats.ingest import compiled_judgments

        def judged(batch: list[int]) -> Judgments:
            result = compiled_judgments(self.collection, runset, self.options, batch, outside)
            return result if result is not None else build_judgments(self.collection, runset, self.options,
                                                                     systems=batch, outside=outside)

        if len(groups) == 1:  # nothing to read ahead (and no thread pool to import and start)
            yield groups[0], first
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=1) as pool:
            pending: Future[Judgments] | None = pool.submit(judged, groups[1])
            yield groups[0], first
            for i, batch in enumerate(groups[1:], start=1):
                assert pending is not None  # submitted for every batch after the first
                current = pending.result()
                pending = pool.submit(judged, groups[i + 1]) if i + 1 < len(groups) else None
                yield batch, current
                del current

    def blocks(self, runs, outside: dict[str, int] | None = None
               ) -> Iterator[tuple[list[int], np.ndarray | None, Judgments]]:
        """``(batch, topics, judgments)``: the tensor of the runs ``batch`` over the qrels topics at
        positions ``topics`` — None for all of them, as :meth:`batches` gives every batch. A run
        file too large to hold comfortably (:func:`irstats.ingest.streamable`) is read, ranked
        and scored a block of its topics at a time instead (:func:`irstats.ingest.streamed_judgments`),
        so its size never sets the memory peak. ``outside`` as for :meth:`batches`."""
        from irstats.ingest import Declined, streamable, streamed_judgments
        from irstats.judgments import warn_topics_outside_qrels

        runset = runs if isinstance(runs, RunSet) else RunSet.load(runs)
        found: dict[str, int] = {}
        streamed = [] if self.beyond else [i for i in range(len(runset.parts))
                                           if streamable(self.collection, runset, self.options, i)]
        rest = sorted(set(range(len(runset.parts))) - set(streamed))
        if rest:
            for batch, judgments in self.batches(runset, None if not streamed else rest, outside=found):
                yield batch, None, judgments
        for i in streamed:
            try:
                for topics, judgments in streamed_judgments(self.collection, runset, self.options, i, found):
                    yield [i], topics, judgments
            except Declined:  # read whole: the compiled path as one batch, or the careful reader
                for batch, judgments in self.batches(runset, [i], outside=found):
                    yield batch, None, judgments
        found = {name: found[name] for name in runset.names if name in found}  # in the runs' order, as ever
        if outside is None:
            warn_topics_outside_qrels(found)
        else:
            outside.update(found)

    def judgments(self, runs, systems: Sequence[int] | None = None) -> Judgments:
        """The judgments tensor of all the runs (or of ``systems``, in that order)."""
        runset = runs if isinstance(runs, RunSet) else RunSet.load(runs)
        wanted = list(range(len(runset.parts))) if systems is None else list(systems)
        parts = list(self.batches(runset, wanted))
        if len(parts) == 1 and parts[0][0] == wanted:
            return parts[0][1]
        order = [i for batch, _ in parts for i in batch]
        tensors = [j for _, j in parts]
        width = max(j.grades.shape[2] for j in tensors)
        dtype = np.result_type(*(j.grades.dtype for j in tensors))
        grades = np.concatenate([np.pad(j.grades.astype(dtype, copy=False),
                                        ((0, 0), (0, 0), (0, width - j.grades.shape[2])), constant_values=PADDING)
                                 for j in tensors], axis=0)
        n_ret = np.concatenate([j.n_ret for j in tensors], axis=0)
        present = np.concatenate([j.present for j in tensors], axis=0)
        tie_start: np.ndarray | None = None
        tie_size: np.ndarray | None = None
        ties = [(j.tie_start, j.tie_size) for j in tensors if j.tie_start is not None and j.tie_size is not None]
        if self.options.ties == "expected" and len(ties) == len(tensors):
            # padding positions are groups of one starting where they stand
            tie_start = np.concatenate([_widen(start, width, np.arange(width)) for start, _ in ties], axis=0)
            tie_size = np.concatenate([_widen(size, width, 1) for _, size in ties], axis=0)
        if order != wanted:  # put the system axis in the order asked for
            where = {s: k for k, s in enumerate(order)}
            pick = [where[s] for s in wanted]
            grades, n_ret, present = grades[pick], n_ret[pick], present[pick]
            if tie_start is not None:
                assert tie_size is not None  # made with tie_start
                tie_start, tie_size = tie_start[pick], tie_size[pick]
        first = tensors[0]
        return first.variant(grades=grades, n_ret=n_ret, present=present, systems=tuple(runset.names[i] for i in wanted),
                             tie_start=tie_start, tie_size=tie_size,
                             **{need: getattr(first, need).for_systems(wanted) for need in self.beyond})

    def score(self, runs, measures: Iterable[str | Measure] | str = DEFAULT_MEASURES, *,
              client=None, print_as: str | None = None) -> "Evaluation":
        """One ScoreMatrix per measure (systems × topics), as :func:`evaluate` describes;
        with ``client``, the batches are judged and scored on its Dask cluster, and with
        ``print_as`` too (a format of :data:`irstats.scores.BATCH_FORMATS`) the workers lay out
        their batches' per-topic output: :attr:`Evaluation.printed`."""
        parsed = _parse_all(measures)
        if any(m.definition.needs for m in parsed):  # judgments beyond the qrels: given? (before any run is read)
            from irstats.measures.registry import check_needs

            check_needs(parsed, self.beyond, client)
        runset = runs if isinstance(runs, RunSet) else RunSet.load(runs)
        n_sys, n_top = len(runset.names), len(self.collection.topics)
        values = {str(m): np.empty((n_sys, n_top)) for m in parsed}
        present = np.zeros((n_sys, n_top), dtype=bool)
        printed: list | None = None
        if client is None:
            r_zero = judge_and_score(self, runset, parsed, values, present)
        else:  # the same batches on a Dask cluster, each by judge_and_score (irstats.distributed)
            from irstats.distributed import score_batches

            printed = [] if print_as is not None else None
            printer = None if print_as is None else functools.partial(print_batch, fmt=print_as)
            r_zero = score_batches(client, self, runset, parsed, values, present, judge_and_score,
                                   printer=printer, printed=printed)
        if not self.options.complete:
            warn_partial_runs(runset.names, present.sum(axis=1), n_top)
        keep = present.any(axis=0)
        if self.options.drop_r0:
            keep &= ~r_zero
        qrels_topics = self.collection.topics
        topics = tuple(qrels_topics[i] for i in np.flatnonzero(keep))
        matrices = {}
        for m in parsed:  # in place, a measure at a time: at most one more systems × topics array
            v = values.pop(str(m))
            v[~present] = np.nan
            matrices[str(m)] = ScoreMatrix(v if keep.all() else v[:, keep], runset.names, topics, str(m),
                                           self.options.as_dict(), m.definition.over_topics)
        from irstats.evaluation import Evaluation, PrintedScores

        evaluation = Evaluation(matrices)
        if printed:
            assert print_as is not None  # the workers print only when asked to
            evaluation.printed = PrintedScores(print_as, printed)
        return evaluation

    def score_judgments(self, judgments: Judgments, measures) -> dict[str, ScoreMatrix]:
        """Score a judgments tensor made by :meth:`judgments` (one tensor, many measures)."""
        return score_judgments(judgments, measures, self.options)


def judge_and_score(evaluator: Evaluator, runset: RunSet, measures: list[Measure], values: dict[str, np.ndarray],
                    present: np.ndarray, outside: dict[str, int] | None = None):
    """:meth:`Evaluator.score`'s loop: every batch of ``runset`` (or block of a large run's
    topics, :meth:`Evaluator.blocks`) judged and scored into ``values[measure]`` and ``present``
    at its runs and topics (``outside``: as for :meth:`Evaluator.batches`); returns R = 0 per
    topic (None without runs). On a Dask cluster each worker runs it on one batch of runs."""
    from irstats.judgments import qrels_facts

    scored = False
    for batch, topics, judgments in evaluator.blocks(runset, outside=outside):
        # numpy's stubs take only arrays in ix_; it takes any sequence of whole numbers
        cells = batch if topics is None else np.ix_(batch, topics)  # type: ignore[arg-type]
        present[cells] = judgments.present
        for m in widest_first(measures):
            values[str(m)][cells] = m.definition.evaluate(judgments, m)
        scored = True
        del judgments
    if not scored:
        return None
    return qrels_facts(evaluator.collection, evaluator.options).num_relevant(evaluator.options.rel_level) == 0


def print_batch(collection, options, names: tuple[str, ...], measures: list[str], values: dict[str, np.ndarray],
                present: np.ndarray, r_zero, fmt: str) -> list[str]:
    """A batch's per-topic output (:func:`irstats.scores.batch_pieces`) from its scores, on the
    worker that scored it (:func:`irstats.distributed.score_batches` calls it, bound to ``fmt``):
    its matrices over the qrels' topics, NaN where :meth:`Evaluator.score` leaves a topic out for
    these runs (not answered; R = 0 under ``drop_r0``) — the lines of the topics it keeps, since no
    line is printed for a NaN."""
    from irstats.scores import batch_pieces

    dropped = ~present
    if options.drop_r0 and r_zero is not None:
        dropped = dropped | r_zero
    matrices = {}
    for m in measures:
        v = values[m].copy()
        v[dropped] = np.nan
        matrices[m] = ScoreMatrix(v, names, collection.topics, m, options.as_dict(),
                                  parse_measure(m).definition.over_topics)
    return batch_pieces(matrices, fmt)


def warn_partial_runs(names: Sequence[str], answered: np.ndarray, n_topics: int) -> None:
    """One warning for the runs that answer only some of the qrels' topics: their means are
    over the topics they answer (trec_eval's rule, kept), which flatters a run that skips hard
    topics; ``complete=True`` (-c) scores the others as 0. (A run answering none is an error
    elsewhere.)"""
    from irstats.errors import some, warn

    partial = {name: int(a) for name, a in zip(names, answered) if 0 < a < n_topics}
    if len(partial) == 1:
        (name, count), = partial.items()
        warn(f"run {name!r} answers {count} of the qrels' {n_topics} topics: its means are over those {count} "
             f"(trec_eval's rule); complete=True (-c) scores the other {n_topics - count} as 0")
    elif partial:
        counts = sorted(set(partial.values()))
        answered_text = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        warn(f"{len(partial)} runs ({some(partial, limit=3)}) answer {answered_text} of the qrels' {n_topics} topics: "
             f"their means are over the topics each answers (trec_eval's rule); complete=True (-c) scores "
             f"the others as 0")


def evaluate(qrels, runs, measures: Iterable[str | Measure] | str = DEFAULT_MEASURES, *, client=None,
             subtopic_qrels=None, preferences=None, print_as: str | None = None, **options) -> "Evaluation":
    """Evaluate runs against qrels, as trec_eval does, for every measure at once.

    Parameters
    ----------
    qrels:
        A qrels file (plain or gzip; ``-`` is standard input), several files, or a DataFrame
        with ``topic, docno, rel``.
    runs:
        Run files, a directory, a glob, a DataFrame with ``system, topic, docno, score``
        [``rank``], or a ``{name: DataFrame}`` dict.
    measures:
        Measure names, canonical (``AP``, ``nDCG@10``, ``RBP(p=0.8)``) or trec_eval's
        (``map``, ``ndcg_cut_10``).
    **options:
        The fields of :class:`irstats.collection.EvalOptions`: ``rel_level``, ``complete``,
        ``depth``, ``judged_only``, ``order``, ``ties`` (``"docno"``, ``"file"`` or
        ``"expected"``: each measure's expected value over every ordering of tied documents,
        docs/ties.md), ``score_dtype``, ``on_duplicate`` …
    client:
        A ``distributed.Client`` (``irstats[dask]``): the batches of runs are judged and
        scored on its Dask cluster, with the same scores to the last bit
        (:mod:`irstats.distributed`); None (the default) evaluates here.
    print_as:
        With ``client``: a per-topic format (``trec_eval``, ``tsv``, ``csv``, ``jsonl`` or
        ``json``) that the workers lay out too, each for its batch of runs, so that the client
        only writes the pieces (``.printed.chunks()``: the text ``irstats eval -q --format FMT``
        prints, byte for byte).
    subtopic_qrels:
        Subtopic judgments ``topic subtopic docno grade`` (a file or a frame) for the
        diversity measures (``alpha_nDCG@20``, ``ERR_IA@20``, ``NRBP``, ``P_IA@20``,
        ``StRecall@20`` …, as ndeval computes them: measures/diversity.py), over the qrels'
        topics; the runs are ranked as for every other measure.
    preferences:
        Preference judgments ``topic jg jsg docno level`` (a file, a frame, or
        ``irstats.preference_judgments.PreferenceJudgments(qrels_file, from_qrels=True)`` for
        trec_eval's -R qrels_prefs) for trec_eval's preference measures (``PrefsSimp``,
        ``PrefsAvgJG``, ``NumPrefsFul`` …, or ``prefs_simp`` …: measures/preferences.py).

    Returns
    -------
    An :class:`~irstats.evaluation.Evaluation`: a dict of each canonical measure name to its
    ScoreMatrix (systems × topics) that prints, and shows in Jupyter, as the table of system
    means by measure; ``.means()``, ``.per_topic()``, ``.compare(baseline=…)``, ``.to_latex()``.

    Examples
    --------
    >>> scores = evaluate("qrels.txt", "runs/", ["AP", "nDCG@10"])  # doctest: +SKIP
    >>> scores["AP"].means()                                          # doctest: +SKIP
    >>> scores.means()                   # system × measure, labelled  # doctest: +SKIP
    """
    return Evaluator(qrels, subtopic_qrels=subtopic_qrels, preferences=preferences, **options).score(
        runs, measures, client=client, print_as=print_as)


#: Text per batch of runs: small enough to bound memory, large enough to keep both cores busy.
BATCH_BYTES = 32 << 20


def _widen(array: np.ndarray, width: int, fill) -> np.ndarray:
    """An (S, T, K) tie array widened to ``width`` positions; ``fill`` broadcasts along the new ones."""
    out = np.empty(array.shape[:2] + (width,), dtype=array.dtype)
    out[...] = fill
    out[:, :, :array.shape[2]] = array
    return out


def _parse_all(measures) -> list[Measure]:
    from irstats.checks import names
    from irstats.errors import ArgumentError

    measures = [measures] if isinstance(measures, Measure) else names(measures, "measures", what="measure names")
    if not measures:
        raise ArgumentError("measures: give at least one measure name (e.g. 'AP')", argument="measures")
    parsed: dict[str, Measure] = {}
    for name in measures:
        m = parse_measure(name)
        parsed.setdefault(str(m), m)
    return list(parsed.values())


def score_judgments(judgments: Judgments, measures: list[Measure] | list[str],
                    options: EvalOptions | None = None) -> dict[str, ScoreMatrix]:
    """Run each measure's kernel on a judgments tensor and label the results.

    For callers that build :class:`~irstats.judgments.Judgments` themselves (e.g. to reuse
    one tensor for many measures or depths).
    """
    options = options or EvalOptions()
    parsed = _parse_all(measures)
    present = judgments.present
    keep = present.any(axis=0)
    if options.drop_r0:
        keep &= judgments.num_relevant() > 0
    topics = tuple(judgments.topics[i] for i in np.flatnonzero(keep))
    computed = {str(m): m.definition.evaluate(judgments, m) for m in widest_first(parsed)}
    out: dict[str, ScoreMatrix] = {}
    for m in parsed:
        values = np.asarray(computed[str(m)], dtype=np.float64)
        values = np.where(present, values, np.nan)[:, keep]
        out[str(m)] = ScoreMatrix(values, judgments.systems, topics, str(m), options.as_dict(), m.definition.over_topics)
    return out
