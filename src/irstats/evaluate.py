"""``irstats.evaluate``: qrels and runs to one ScoreMatrix per measure."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Iterable

import numpy as np

from irstats.collection import Collection, EvalOptions, RunSet
from irstats.judgments import Judgments, build_judgments, stack_runs
from irstats.measures import Measure, parse_measure
from irstats.scores import ScoreMatrix

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)", "Rprec", "Bpref", "R@1000")


def evaluate(qrels, runs, measures: Iterable[str | Measure] | str = DEFAULT_MEASURES, **options) -> dict[str, ScoreMatrix]:
    """Evaluate runs against qrels, as trec_eval does, for every measure at once.

    Parameters
    ----------
    qrels:
        A qrels file (plain or gzip), several files, or a DataFrame with ``topic, docno, rel``.
    runs:
        Run files, a directory, a glob, a DataFrame with ``system, topic, docno, score``
        [``rank``], or a ``{name: DataFrame}`` dict.
    measures:
        Measure names, canonical (``AP``, ``nDCG@10``, ``RBP(p=0.8)``) or trec_eval's
        (``map``, ``ndcg_cut_10``).
    **options:
        The fields of :class:`irstats.collection.EvalOptions`: ``rel_level``, ``complete``,
        ``depth``, ``judged_only``, ``order``, ``score_dtype``, ``on_duplicate`` …

    Returns
    -------
    dict mapping each canonical measure name to its ScoreMatrix (systems × topics).

    Examples
    --------
    >>> scores = evaluate("qrels.txt", "runs/", ["AP", "nDCG@10"])  # doctest: +SKIP
    >>> scores["AP"].means()                                          # doctest: +SKIP
    """
    opts = EvalOptions(**options)
    parsed = _parse_all(measures)
    collection = Collection.load(qrels, qrels_duplicate=opts.qrels_duplicate)
    runset = RunSet.load(runs)
    # Runs are judged and scored in batches, so memory stays bounded however many runs come.
    n_sys, n_top = len(runset.names), len(collection.topics)
    values = {str(m): np.empty((n_sys, n_top)) for m in parsed}
    present = np.zeros((n_sys, n_top), dtype=bool)
    r_zero = None
    for batch, stacked in _read_ahead(runset, collection.topic_keys, opts):
        judgments = build_judgments(collection, runset, opts, systems=batch, stacked=stacked)
        present[batch] = judgments.present
        r_zero = judgments.num_relevant() == 0
        for m in parsed:
            values[str(m)][batch] = m.definition.kernel(judgments, m)
        del judgments
    keep = present.any(axis=0)
    if opts.drop_r0:
        keep &= ~r_zero
    topics = tuple(t for t, k in zip(collection.topics, keep) if k)
    return {
        name: ScoreMatrix(np.where(present, v, np.nan)[:, keep], runset.names, topics, name, opts.as_dict(),
                          m.definition.summary)
        for (name, v), m in zip(values.items(), parsed)
    }


#: Text per batch of runs: small enough to bound memory, large enough to keep both cores busy.
BATCH_BYTES = 32 << 20


def _read_ahead(runset: RunSet, topics, options: EvalOptions):
    """Yield (batch, stacked runs) while the next batch is read in a background thread.

    Reading (polars, which releases the GIL) overlaps with judging and scoring the batch
    before it (numpy), so the two cores stay busy; at most two batches are in memory.
    """
    batches = runset.batches(BATCH_BYTES)
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(stack_runs, runset, batches[0], topics, options)
        for i, batch in enumerate(batches):
            stacked = pending.result()
            if i + 1 < len(batches):
                pending = pool.submit(stack_runs, runset, batches[i + 1], topics, options)
            yield batch, stacked
            del stacked


def _parse_all(measures) -> list[Measure]:
    if isinstance(measures, (str, Measure)):
        measures = [measures]
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
    topics = tuple(t for t, k in zip(judgments.topics, keep) if k)
    out: dict[str, ScoreMatrix] = {}
    for m in parsed:
        values = np.asarray(m.definition.kernel(judgments, m), dtype=np.float64)
        values = np.where(present, values, np.nan)[:, keep]
        out[str(m)] = ScoreMatrix(values, judgments.systems, topics, str(m), options.as_dict(), m.definition.summary)
    return out
