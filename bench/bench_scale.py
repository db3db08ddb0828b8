"""How far one machine goes: irstats' time and peak memory as runs, topics and resamples grow.

    python bench/make_workload.py                    # wide, tall, marco -> bench/workloads/
    python bench/bench_scale.py --json bench/results/scale.json

Each point is a fresh subprocess (so peak RSS is that of one job): ``evaluate`` on the
first N runs of ``wide`` (50 topics × 1,000 documents), on ``tall`` (5,000 topics × 100)
and ``marco`` (one run, 6,980 topics × 1,000), and ``split_half`` with B halvings of a
100 × 50 score matrix. Reported: wall seconds of the work (imports excluded), lines per
second, and peak RSS. docs/scale.md is written from the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOADS = HERE / "workloads"
MEASURES = ["AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)"]


def child(kind: str, arg: int) -> None:
    import glob

    import numpy as np

    import irstats

    if kind == "splithalf":
        from irstats.meta.splithalf import split_half
        from irstats.scores import ScoreMatrix

        rng = np.random.default_rng(0)
        matrix = ScoreMatrix(rng.beta(2, 5, (100, 50)), [f"s{i}" for i in range(100)], [f"t{j}" for j in range(50)],
                             "AP")
        started = time.perf_counter()
        split_half(matrix, ["am", "egm", "gm_trec_eval", "median"], n_splits=arg, seed=0)
        lines = 0
    else:
        folder = WORKLOADS / kind
        runs = sorted(glob.glob(str(folder / "runs" / "*.run")))[:arg]
        lines = sum(1 for r in runs for _ in open(r, "rb"))
        started = time.perf_counter()
        irstats.evaluate(folder / "qrels.txt", runs, MEASURES)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"kind": kind, "n": arg, "seconds": seconds, "lines": lines, "peak_mib": peak}))


POINTS = [("wide", n) for n in (10, 25, 50, 100)] + [("tall", 1), ("tall", 20), ("marco", 1)] + \
         [("splithalf", b) for b in (1_000, 10_000, 100_000)]


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_child":
        child(argv[1], int(argv[2]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per point; the median is kept (default 3)")
    ap.add_argument("--json", type=Path, help="write the results as JSON")
    ap.add_argument("--only", nargs="+", metavar="KIND", choices=sorted({k for k, _ in POINTS}),
                    help="only these jobs (wide, tall, marco, splithalf)")
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")]))
    results = []
    for kind, n in POINTS:
        if args.only and kind not in args.only:
            continue
        if kind != "splithalf" and not (WORKLOADS / kind).exists():
            print(f"{kind}: no workload (python bench/make_workload.py)", file=sys.stderr)
            continue
        trials = [json.loads(subprocess.run([sys.executable, __file__, "--_child", kind, str(n)], env=env,
                                            capture_output=True, text=True, check=True).stdout.splitlines()[-1])
                  for _ in range(args.repeat)]
        trials.sort(key=lambda t: t["seconds"])
        best = trials[len(trials) // 2]
        best["peak_mib"] = max(t["peak_mib"] for t in trials)
        results.append(best)
        rate = f"{best['lines'] / best['seconds'] / 1e6:.1f} M lines/s" if best["lines"] else ""
        print(f"{kind:10s} {n:>7,} {best['seconds']:7.2f} s {best['peak_mib']:7.0f} MiB {rate}", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        from datetime import date

        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=HERE).stdout.strip() or None
        args.json.write_text(json.dumps({"benchmark": "scale", "date": str(date.today()), "commit": commit,
                                         "repeat": args.repeat, "cores": os.cpu_count(), "results": results},
                                        indent=2) + "\n")


if __name__ == "__main__":
    main()
