"""A synthetic test collection for the demo and for examples.

Topics have a hidden set of graded relevant documents (how many varies by topic, so topics
differ in difficulty); runs are rankers of different quality (each document's score mixes
its true grade, weighted by the run's skill on that topic, with noise); the qrels come from
depth-limited pooling of the runs, as at TREC, so documents below the pool depth are often
unjudged.

The collection is written like a report folder (:class:`irstats.io.output.OutputFolder`):
into a new or empty folder, or one an earlier demo made — never over a user's files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import polars as pl


@dataclass
class DemoCollection:
    """Where the demo collection was written."""

    qrels: Path
    runs: list[Path]
    pool_depth: int
    #: Per-topic scores (``measures=`` given): the matrices and the score file ``scores.tsv``.
    scores: dict | None = None
    scores_path: Path | None = None


def make_demo_collection(out_dir: str | Path, *, seed: int = 0, n_topics: int = 50, n_runs: int = 30,
                         n_docs: int = 2000, run_depth: int = 1000, pool_depth: int = 20,
                         measures: Sequence[str] | None = None) -> DemoCollection:
    """Write ``qrels.txt`` and ``runs/*.run`` for a synthetic collection into ``out_dir``.

    Everything is drawn from ``Generator(PCG64(seed))`` (:func:`irstats.random.generator`, the
    seed rule of every experiment): the same seed gives the same files. Half the runs (the
    "contributing" runs) are pooled to ``pool_depth``. With ``measures``, the runs are also
    evaluated and the per-topic scores written as ``scores.tsv``. ``out_dir`` must be new, empty or made by irstats (checked before
    anything is generated); the files appear together when all are written.
    """
    from irstats.checks import names, whole
    from irstats.io.output import OutputFolder
    from irstats.random import check_seed

    check_seed(seed)  # every argument is checked before the folder is touched
    for name, value in (("n_topics", n_topics), ("n_runs", n_runs), ("n_docs", n_docs), ("run_depth", run_depth),
                        ("pool_depth", pool_depth)):
        whole(value, name, minimum=1)
    if measures is not None:
        measures = names(measures, "measures", what="measure names")
    folder = OutputFolder(out_dir, kind="demo")
    with folder as scratch:
        made = _write_collection(scratch, seed, n_topics, n_runs, n_docs, run_depth, pool_depth)
        scores = None
        if measures:
            from irstats.evaluate import evaluate
            from irstats.scores import write_scores

            scores = evaluate(made.qrels, made.runs, list(measures))
            write_scores(scores, scratch / "scores.tsv", "tsv")
    out = Path(out_dir)
    return DemoCollection(out / "qrels.txt", [out / "runs" / p.name for p in made.runs], pool_depth, scores,
                          out / "scores.tsv" if measures else None)


def _write_collection(out: Path, seed, n_topics, n_runs, n_docs, run_depth, pool_depth) -> DemoCollection:
    from irstats.io.output import write_text

    from irstats.random import generator

    rng = generator(seed)  # the same Generator(PCG64(seed)) as numpy.random.default_rng(seed) for a whole number
    (out / "runs").mkdir(parents=True, exist_ok=True)
    topics = np.array([f"{401 + t}" for t in range(n_topics)])
    docnos = np.array([f"DOC-{d:05d}" for d in range(n_docs)])

    # Hidden grades: a topic-specific share of relevant documents, grades 1-3 skewed low.
    share = rng.beta(1.2, 12.0, size=n_topics)[:, None]
    is_rel = rng.random((n_topics, n_docs)) < share
    grade = np.where(is_rel, rng.choice([1, 2, 3], p=[0.55, 0.3, 0.15], size=(n_topics, n_docs)), 0)

    # Runs: an overall skill, a per-topic wobble, and some re-rankers that return fewer docs.
    skill = np.sort(rng.uniform(0.05, 1.6, size=n_runs))[::-1]
    depth = np.where(rng.random(n_runs) < 0.2, 100, run_depth)
    names = [f"run{r + 1:02d}" for r in range(n_runs)]
    ranked_docs = []
    for r in range(n_runs):
        topic_skill = np.clip(skill[r] + rng.normal(0, 0.35, size=(n_topics, 1)), 0.0, None)
        score = topic_skill * grade + rng.normal(0, 1.0, size=(n_topics, n_docs))
        top = np.argsort(-score, axis=1)[:, : depth[r]]
        ranked_docs.append(top)
        top_scores = np.take_along_axis(score, top, axis=1)
        frame = pl.DataFrame({
            "topic": np.repeat(topics, depth[r]),
            "q0": "Q0",
            "docno": docnos[top.ravel()],
            "rank": np.tile(np.arange(1, depth[r] + 1), n_topics),
            "score": np.round(top_scores.ravel(), 6),
            "tag": names[r],
        })
        write_text(out / "runs" / f"{names[r]}.run", frame.write_csv(separator=" ", include_header=False),
                   fsync=False)

    # Pool: the top pool_depth documents of every other run, judged with their hidden grade.
    pooled = np.zeros((n_topics, n_docs), dtype=bool)
    for r in range(0, n_runs, 2):
        np.put_along_axis(pooled, ranked_docs[r][:, :pool_depth], True, axis=1)
    t_idx, d_idx = np.nonzero(pooled)
    qrels = pl.DataFrame({"topic": topics[t_idx], "iter": "0", "docno": docnos[d_idx], "rel": grade[t_idx, d_idx]})
    qrels_path = out / "qrels.txt"
    write_text(qrels_path, qrels.write_csv(separator=" ", include_header=False), fsync=False)
    return DemoCollection(qrels_path, [out / "runs" / f"{n}.run" for n in names], pool_depth)
