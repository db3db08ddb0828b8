#!/usr/bin/env python3
"""Deterministic synthetic TREC workloads for benchmarking the evaluation engine.

Writes, for each workload, ``<out>/<name>/qrels.txt`` and ``<out>/<name>/runs/<tag>.run``
(plus ``manifest.json``).  Everything is generated with numpy from a fixed seed and written
with polars, so the same command always produces byte-identical files.

Workloads
---------
``wide``  100 runs x    50 topics x 1,000 docs per topic  (5,000,000 run lines)
``tall``   20 runs x 5,000 topics x   100 docs per topic  (10,000,000 run lines)
``marco``   1 run  x 6,980 topics x 1,000 docs per topic  (6,980,000 run lines: MS MARCO dev)

The model
---------
* Each topic has a candidate universe of documents (2x the retrieval depth for ``wide``,
  3x for ``tall``) with realistic docnos (``doc0012345``, unique across the collection) and
  a latent relevance z ~ N(0, 1).
* Each run has a quality a_r (spread from near-random to good) and belongs to one of a
  few "families" that share part of their noise (as real TREC submissions from the same
  group do).  Its score for a document is ``a_r * z + noise``; it retrieves the top
  ``docs`` candidates per topic, written with rank 1..docs and the score as a decimal.
* Qrels by pooling: the union of every run's top-``pool_depth`` (100) documents per topic is
  judged.  A pooled document is relevant with probability sigmoid(2.5 (z - c_t)), c_t
  being the topic's difficulty; a relevant document gets grade 1, 2 or 3 according to
  how far z is above c_t.  Retrieved documents outside the pool stay unjudged.

Usage::

    python bench/make_workload.py                      # every workload -> bench/workloads/
    python bench/make_workload.py /tmp/wl --workloads wide --seed 7
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import polars as pl

DEFAULT_OUT = Path(__file__).resolve().parent / "workloads"
DEFAULT_SEED = 20190101


@dataclass(frozen=True)
class Spec:
    name: str
    runs: int
    topics: int
    docs: int  # documents retrieved per topic by every run
    universe_factor: int  # candidate docs per topic = docs * universe_factor
    pool_depth: int = 100
    families: int = 10
    first_topic: int = 1


WORKLOADS = {
    "wide": Spec("wide", runs=100, topics=50, docs=1000, universe_factor=2, first_topic=401),
    "tall": Spec("tall", runs=20, topics=5000, docs=100, universe_factor=3, first_topic=100001),
    # one run at the MS MARCO dev scale (6,980 queries, 1,000 passages each)
    "marco": Spec("marco", runs=1, topics=6980, docs=1000, universe_factor=2, first_topic=1000001),
}


def _run_tag(i: int) -> str:
    return f"sys{i:03d}"


def generate(spec: Spec, out_dir: Path, seed: int) -> dict:
    t0 = time.perf_counter()
    # one independent stream per workload, so generating one does not change the other
    rng = np.random.default_rng([seed, list(WORKLOADS).index(spec.name)])
    T, D = spec.topics, spec.docs
    U = D * spec.universe_factor

    wl_dir = out_dir / spec.name
    run_dir = wl_dir / "runs"
    run_dir.mkdir(parents=True, exist_ok=True)
    for old in run_dir.glob("*.run"):
        old.unlink()

    # ---- collection: docnos unique across the whole collection, latent relevance ----
    population = 10_000_000 if T * U <= 5_000_000 else 100_000_000  # marco: 14 M candidates
    docids = rng.choice(population, size=T * U, replace=False).reshape(T, U).astype(np.int64)
    z = rng.standard_normal((T, U)).astype(np.float32)
    difficulty = rng.normal(2.0, 0.5, size=T).astype(np.float32)  # c_t: higher = fewer relevant

    # ---- runs: quality, families with shared noise ----------------------------------
    quality = np.sort(rng.uniform(0.05, 2.2, size=spec.runs))[rng.permutation(spec.runs)]
    family = rng.integers(0, spec.families, size=spec.runs)
    family_noise = rng.standard_normal((spec.families, T, U)).astype(np.float32)
    rho = 0.5  # share of a run's noise variance common to its family
    offsets = rng.uniform(5.0, 30.0, size=spec.runs)  # score scales differ between systems
    scales = rng.uniform(0.5, 3.0, size=spec.runs)

    topic_ids = np.arange(spec.first_topic, spec.first_topic + T)
    topic_col = np.repeat(topic_ids, D)
    rank_col = np.tile(np.arange(1, D + 1, dtype=np.int32), T)
    pooled = np.zeros((T, U), dtype=bool)
    rows_t = np.arange(T)[:, None]

    run_lines = 0
    run_bytes = 0
    for r in range(spec.runs):
        noise = np.sqrt(rho) * family_noise[family[r]] + np.sqrt(1.0 - rho) * rng.standard_normal(
            (T, U), dtype=np.float32
        )
        s = quality[r] * z + noise
        # top-D per topic, best first
        top = np.argpartition(-s, D - 1, axis=1)[:, :D]
        order = np.argsort(-s[rows_t, top], axis=1, kind="stable")
        top = top[rows_t, order]
        pooled[rows_t, top[:, : spec.pool_depth]] = True
        score = (offsets[r] + scales[r] * s[rows_t, top]).ravel()
        tag = _run_tag(r)
        df = pl.DataFrame(
            {
                "topic": topic_col,
                "q0": pl.repeat("Q0", T * D, eager=True),
                "docno": docids[rows_t, top].ravel(),
                "rank": rank_col,
                "score": np.round(score, 6),
                "tag": pl.repeat(tag, T * D, eager=True),
            }
        ).with_columns(pl.format("doc{}", pl.col("docno").cast(pl.String).str.zfill(7)).alias("docno"))
        path = run_dir / f"{tag}.run"
        df.write_csv(path, separator=" ", include_header=False, float_precision=6, quote_style="never")
        run_lines += df.height
        run_bytes += path.stat().st_size

    # ---- qrels: judge the pool ----------------------------------------------------------
    t_idx, u_idx = np.nonzero(pooled)
    zz = z[t_idx, u_idx]
    margin = zz - difficulty[t_idx]
    p_rel = 1.0 / (1.0 + np.exp(-2.5 * margin))
    relevant = rng.random(zz.shape[0]) < p_rel
    grade = np.where(relevant, 1 + (margin > 0.6).astype(np.int8) + (margin > 1.3).astype(np.int8), 0).astype(
        np.int8
    )
    qrels = pl.DataFrame(
        {
            "topic": topic_ids[t_idx],
            "iter": pl.repeat(0, t_idx.shape[0], eager=True, dtype=pl.Int8),
            "docno": docids[t_idx, u_idx],
            "rel": grade,
        }
    ).with_columns(pl.format("doc{}", pl.col("docno").cast(pl.String).str.zfill(7)).alias("docno"))
    # qrels files are conventionally sorted by topic, then docno
    qrels = qrels.sort(["topic", "docno"])
    qrels_path = wl_dir / "qrels.txt"
    qrels.write_csv(qrels_path, separator=" ", include_header=False, quote_style="never")

    grades = np.bincount(grade, minlength=4)
    rel_per_topic = np.bincount(t_idx[grade > 0], minlength=T)
    manifest = {
        "workload": spec.name,
        "seed": seed,
        "spec": asdict(spec),
        "qrels": str(qrels_path),
        "qrels_lines": int(qrels.height),
        "grade_counts": {str(g): int(c) for g, c in enumerate(grades)},
        "relevant_per_topic": {
            "min": int(rel_per_topic.min()),
            "median": float(np.median(rel_per_topic)),
            "max": int(rel_per_topic.max()),
            "topics_without_relevant": int((rel_per_topic == 0).sum()),
        },
        "runs_dir": str(run_dir),
        "runs": spec.runs,
        "run_lines": run_lines,
        "run_bytes": run_bytes,
        "format": "topic Q0 docno rank score tag, single spaces; qrels: topic 0 docno grade",
        "seconds": round(time.perf_counter() - t0, 2),
    }
    (wl_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    ap.add_argument("--workloads", nargs="+", choices=sorted(WORKLOADS), default=list(WORKLOADS))
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = ap.parse_args(argv)

    for name in args.workloads:
        m = generate(WORKLOADS[name], args.out, args.seed)
        s = m["spec"]
        print(
            f"{name}: {m['runs']} runs x {s['topics']} topics x {s['docs']} docs -> "
            f"{m['runs_dir']}/*.run ({m['run_lines']:,} lines, {m['run_bytes'] / 2**20:.1f} MiB)"
        )
        rp = m["relevant_per_topic"]
        grades = "/".join(f"{m['grade_counts'][g]:,}" for g in "0123")
        print(
            f"{'':{len(name)}}  qrels {m['qrels']} ({m['qrels_lines']:,} judged, depth-{s['pool_depth']} pool; "
            f"grades 0/1/2/3 = {grades}; "
            f"relevant per topic min/median/max = {rp['min']}/{rp['median']:g}/{rp['max']}, "
            f"{rp['topics_without_relevant']} topics without relevant)  [{m['seconds']} s]"
        )


if __name__ == "__main__":
    main()
