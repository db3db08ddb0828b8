"""``irstats.experiment``: a whole comparison in one call, as PyTerrier's ``pt.Experiment``
gives one labelled frame — evaluate the runs, test every system against a baseline with a
correction, and return the result that prints itself (text, Markdown, the paper's LaTeX
table, a notebook table) and holds the labelled frame.

>>> result = irstats.experiment("qrels.txt", "runs/", ["AP", "nDCG@10"], baseline="bm25",
...                             test="paired_t", correction="holm")       # doctest: +SKIP
>>> result.to_pandas()              # measure, system, mean, delta, p_value, p_adjusted, …  # doctest: +SKIP
>>> print(result.to_latex())        # doctest: +SKIP
"""

from __future__ import annotations

from typing import Iterable

from irstats.evaluate import DEFAULT_MEASURES, evaluate
from irstats.random import Seed


def experiment(qrels, runs, measures: Iterable[str] | str = DEFAULT_MEASURES, *, baseline: str | None = None,
               test: str = "paired_t", correction: str | None = None, alpha: float = 0.05,
               n_resamples: int = 10000, seed: Seed = 0, interval: str = "t", confidence: float = 0.95,
               tie_tolerance: float = 0.0, **options):
    """Evaluate ``runs`` against ``qrels`` (``options``: those of :func:`irstats.evaluate`,
    e.g. ``rel_level=2``) and compare every system with ``baseline`` (default: the best by the
    first measure) per measure: :func:`irstats.stats.compare`'s
    :class:`~irstats.stats.compare.Comparison`, one row per measure and system in
    ``to_frame()``/``to_pandas()`` (with ``wins``, ``ties`` and ``losses``: the topics where the
    system scores above, within ``tie_tolerance`` of, or below the baseline, as ``pt.Experiment``'s
    ``+``/``−`` counts), the paper table in ``to_latex()``. The command line's equivalent:
    ``irstats compare --qrels QRELS --runs RUN... -m MEASURE --baseline NAME``."""
    from irstats.stats.compare import compare

    scores = evaluate(qrels, runs, measures, **options)
    return compare(scores, baseline=baseline, test=test, correction=correction, alpha=alpha,
                   n_resamples=n_resamples, seed=seed, interval=interval, confidence=confidence,
                   tie_tolerance=tie_tolerance)


__all__ = ["experiment"]
