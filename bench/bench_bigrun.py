#!/usr/bin/env python3
"""A run larger than memory's comfort: peak memory and time of ``irstats eval`` on one generated
run file of about 0.3, 1 and 3 GB, beside trec_eval and the in-memory path on the same files.

    python bench/bench_bigrun.py                          # 0.3, 1, 3 GB -> bench/results/bigrun.json
    python bench/bench_bigrun.py --sizes 0.3 1 --shuffled --repeat 3

Workload (written to a temporary folder in ``--tmp`` — default the system's — and deleted at the
end; never kept in the repository): 75,000 topics, one qrels file for every point (8 judged
documents per topic, grades 0–3: 600,000 lines), and per point one run answering every topic
with as many documents per topic as the size asks (≈ 100, 325 and 1,000 for 0.3, 1 and 3 GB),
six fields a line (``q123 Q0 D12345678 7 99.930000 bigrun``), in score order, topics one after
another. ``--shuffled`` adds, for each size, the same run with its lines in random order (the
topics not contiguous: irstats sorts it by blocks on disk). Only the run grows from point to
point: qrels, topics and the number of scores stay the same.

Each command is a fresh process, timed from the parent (wall seconds); its peak resident
memory is ``os.wait4``'s ``ru_maxrss``. Commands, each on every point:

* ``irstats eval QRELS RUN`` (the default measures; the run read a block of topics at a time);
* the same command with the run read whole, as before streaming (``IRSTATS_NO_STREAMING=1``),
  on the points up to ``--in-memory-max`` GB (default 1: it holds the text and 40 bytes a line);
* ``trec_eval -m all_trec QRELS RUN`` (``--trec-eval PATH``, ``$TREC_EVAL``, ``trec_eval`` on PATH
  or ``/tmp/te/trec_eval``; skipped if none).

The means irstats prints with and without streaming are compared (they must be the same bytes).
With ``--repeat N`` every command runs N times per point (interleaved) and the medians are kept.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_topics import child_env, run, write_result  # a fresh process per trial, src/ first; the JSON

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TOPICS = 75_000  # the default of --topics
JUDGED = 8
LINE_BYTES = 41  # "q12345 Q0 D12345678 123 12.345678 bigrun\n", about
TAG = "bigrun"


def write_qrels(path: Path, seed: int = 1, topics: int = TOPICS) -> None:
    """Every topic judges JUDGED documents (docnos D10000000 + k·7919 for k < JUDGED: ranked by
    every run below at positions k·3), grades 0–3."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    topic = np.repeat(np.arange(topics), JUDGED)
    k = np.tile(np.arange(JUDGED), topics)
    frame = pl.DataFrame({"topic": "q" + pl.Series(topic).cast(pl.String), "iter": "0",
                          "docno": "D" + pl.Series(10_000_000 + k * 7919).cast(pl.String),
                          "rel": rng.integers(0, 4, len(topic))})
    frame.write_csv(path, separator=" ", include_header=False)


def write_run(path: Path, depth: int, shuffled: bool = False, seed: int = 2, topics: int = TOPICS) -> None:
    """``topics`` topics × ``depth`` documents, in score order (or shuffled), a block of topics at a
    time through polars' CSV writer."""
    import numpy as np

    rng = np.random.default_rng(seed)
    block = max(1, 2_000_000 // depth)
    order = rng.permutation(topics * depth) if shuffled else None
    with open(path, "wb") as fh:
        if shuffled:  # built whole, then written in the shuffled order a block at a time
            topic = np.repeat(np.arange(topics), depth)
            rank = np.tile(np.arange(depth), topics)
            docs = _docnos(rng, 0, topics, depth)
            for start in range(0, len(order), block * depth):
                pick = order[start:start + block * depth]
                _frame(topic[pick], rank[pick], docs[pick]).write_csv(fh, separator=" ", include_header=False,
                                                                       float_precision=6)
            return
        for first in range(0, topics, block):
            n = min(block, topics - first)
            topic = np.repeat(np.arange(first, first + n), depth)
            rank = np.tile(np.arange(depth), n)
            _frame(topic, rank, _docnos(rng, first, n, depth)).write_csv(fh, separator=" ", include_header=False,
                                                                  float_precision=6)


def _docnos(rng, first: int, n_topics: int, depth: int):
    """Docnos distinct within a topic (rank r of topic t: D2xxxxxxx from r and t), with the
    judged ones (D10000000 + k·7919) at ranks 0, 3, 6 …"""
    import numpy as np

    topic = np.arange(first, first + n_topics)[:, None]
    docs = 20_000_000 + np.arange(depth)[None, :] * 70_000 + (topic * 37 + rng.integers(0, 7, (n_topics, 1))) % 70_000
    judged = np.arange(0, min(depth, 3 * JUDGED), 3)
    docs[:, judged] = 10_000_000 + (judged // 3) * 7919
    return docs.ravel()


def _frame(topic, rank, docs):
    import polars as pl

    return pl.DataFrame({"topic": "q" + pl.Series(topic).cast(pl.String), "q0": "Q0",
                         "docno": "D" + pl.Series(docs).cast(pl.String), "rank": pl.Series(rank + 1),
                         "score": 100.0 - pl.Series(rank) * 0.01, "tag": TAG})


def generate(what: str, path: Path, depth: int = 0, topics: int = TOPICS) -> None:
    """Write the qrels or a run in a child process: this process stays small, because a child
    forked from it starts with its pages (and ``ru_maxrss`` would count them)."""
    subprocess.run([sys.executable, __file__, "--write", what, str(path), str(depth), str(topics)], check=True)


def find_trec_eval(given: str | None) -> str | None:
    for path in (given, os.environ.get("TREC_EVAL"), shutil.which("trec_eval"), "/tmp/te/trec_eval"):
        if path and os.access(path, os.X_OK):
            return path
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=float, nargs="+", default=[0.3, 1.0, 3.0], help="run sizes in GB")
    ap.add_argument("--shuffled", action="store_true", help="also each run with its lines shuffled")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each command per point (medians kept)")
    ap.add_argument("--in-memory-max", type=float, default=1.0, metavar="GB",
                    help="largest run for the in-memory path (default 1)")
    ap.add_argument("--trec-eval", metavar="PATH", help="the trec_eval binary")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per command and point")
    ap.add_argument("--tmp", type=Path, default=Path(tempfile.gettempdir()), help="where the files are written")
    ap.add_argument("--json", type=Path, default=HERE / "results" / "bigrun.json", metavar="FILE")
    ap.add_argument("--topics", type=int, default=TOPICS, help="topics of the qrels and of every run")
    ap.add_argument("--depths", type=int, nargs="+", metavar="N",
                    help="documents per topic of each run (instead of --sizes)")
    ap.add_argument("--drop-in", action="store_true",
                    help="also irstats trec_eval -q (streamed, and read whole up to --in-memory-max) and trec_eval -q")
    ap.add_argument("--write", nargs=4, metavar=("WHAT", "PATH", "DEPTH", "TOPICS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.write:  # in a child process (see generate)
        what, path, depth, topics = args.write
        if what == "qrels":
            write_qrels(Path(path), topics=int(topics))
        else:
            write_run(Path(path), int(depth), shuffled=what == "shuffled", topics=int(topics))
        return 0
    trec_eval = find_trec_eval(args.trec_eval)
    py = sys.executable
    folder = Path(tempfile.mkdtemp(prefix="irstats-bigrun-", dir=args.tmp))
    results = []
    try:
        qrels = folder / "qrels.txt"
        generate("qrels", qrels, topics=args.topics)
        depths = args.depths or [max(1, round(size * 1e9 / LINE_BYTES / args.topics)) for size in args.sizes]
        for depth in sorted(depths):
            size = depth * LINE_BYTES * args.topics / 1e9
            for shuffled in (False, True) if args.shuffled else (False,):
                run_file = folder / f"run-{depth}{'-shuffled' if shuffled else ''}.txt"
                generate("shuffled" if shuffled else "sorted", run_file, depth, args.topics)
                gb = run_file.stat().st_size / 1e9
                commands = {"irstats eval": ([py, "-m", "irstats", "eval", str(qrels), str(run_file)], {})}
                if size <= args.in_memory_max:
                    commands["irstats eval, in memory"] = (commands["irstats eval"][0], {"IRSTATS_NO_STREAMING": "1"})
                if trec_eval and not shuffled:
                    commands["trec_eval -m all_trec"] = ([trec_eval, "-m", "all_trec", str(qrels), str(run_file)], {})
                if args.drop_in:  # the drop-in streams too (issue 36): the same bytes as read whole, and as trec_eval's
                    drop_in = [py, "-m", "irstats", "trec_eval", "-q", str(qrels), str(run_file)]
                    commands["irstats trec_eval -q"] = (drop_in, {})
                    if size <= args.in_memory_max:
                        commands["irstats trec_eval -q, in memory"] = (drop_in, {"IRSTATS_NO_STREAMING": "1"})
                    if trec_eval and not shuffled:
                        commands["trec_eval -q"] = ([trec_eval, "-q", str(qrels), str(run_file)], {})
                trials: dict[str, list[dict]] = {name: [] for name in commands}
                outputs: dict[str, bytes] = {}
                for _ in range(args.repeat):
                    for name, (command, extra) in commands.items():
                        out = folder / "out.txt"
                        trials[name].append(run(command, out, args.timeout, child_env(extra)))
                        outputs[name] = out.read_bytes()
                for name, rows in trials.items():
                    done = [r for r in rows if r.get("seconds") is not None]
                    row = {"tool": name, "run_gb": round(gb, 3), "docs_per_topic": depth, "topics": args.topics,
                           "shuffled": shuffled, "repeats": len(rows),
                           "seconds": statistics.median(r["seconds"] for r in done) if done else None,
                           "peak_mib": statistics.median(r["peak_mib"] for r in rows),
                           "exit": rows[-1].get("exit")}
                    streamed = name.removesuffix(", in memory")
                    if streamed != name:
                        row["same_output_as_streamed"] = outputs[name] == outputs[streamed]
                    if name == "irstats trec_eval -q" and "trec_eval -q" in outputs:
                        row["same_output_as_trec_eval"] = outputs[name] == outputs["trec_eval -q"]
                    results.append(row)
                    shown = f"{row['seconds']:.1f} s" if row["seconds"] is not None else "timed out"
                    print(f"{gb:5.2f} GB {'shuffled' if shuffled else 'sorted  '}  {name:<26} {shown:>10}  "
                          f"{row['peak_mib']:7.0f} MiB" + (f"  same output: {row['same_output_as_streamed']}"
                                                         if "same_output_as_streamed" in row else "")
                          + (f"  same as trec_eval: {row['same_output_as_trec_eval']}"
                             if "same_output_as_trec_eval" in row else ""), flush=True)
                run_file.unlink()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    write_result(args.json, "bigrun", trec_eval=trec_eval, topics=args.topics, qrels_lines=args.topics * JUDGED,
                 results=results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
