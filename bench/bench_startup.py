#!/usr/bin/env python3
"""Start-up benchmark: how long a command takes end to end, compared with importing numpy
and polars (the floor of any irstats command that reads data).

Each trial is a fresh subprocess timed from the parent (wall time, ``time.perf_counter``
around ``subprocess.run``, output to /dev/null); trials are interleaved (one of each
command per repeat, after one untimed warm-up of each) and the median is reported.

    python bench/bench_startup.py                          # median of 9 -> bench/results/startup.json
    python bench/bench_startup.py --repeat 15 --markdown
    python bench/bench_startup.py --src /tmp/old/src --json bench/results/startup-before.json

Commands (``python`` is this interpreter; irstats runs as ``python -m irstats`` with
``--src`` — default this checkout's ``src/`` — first on ``PYTHONPATH``):

* ``python -c pass``: the interpreter and ``site`` alone;
* ``python -c "import numpy"`` and ``python -c "import numpy, polars"``: the baselines;
* ``irstats --help``;
* ``irstats eval`` on trec_eval's own test files (``qrels.test``, ``results.test``: 3
  topics, one run) from ``../shared/data/conformance/trec_eval-test``;
* ``irstats splithalf`` on a 100 systems × 50 topics AP score file (the seeded workload of
  ``bench_splithalf.py``, written to ``bench/workloads/startup/``), methods am, egm,
  gm_trec_eval and median, 10,000 halvings, ``-q``;
* for reference, the split-half *kernel* alone: ``split_half`` on the same matrix, timed
  inside a child after its imports and a warm-up (what ``bench_splithalf.py`` measures), so
  that "splithalf end to end − kernel" is the start-up and I/O overhead.

Bytecode: the children get ``PYTHONPYCACHEPREFIX`` (a folder in the system's temp dir) and
no ``PYTHONDONTWRITEBYTECODE``, so irstats' modules are compiled once, as pip does for an
installed package, rather than at every start.

Targets (issue "Start instantly"): ``irstats --help`` and ``irstats eval`` each at most
1.3 × ``import numpy, polars``; ``irstats splithalf`` under 1 s end to end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT / ".." / "shared" / "data" / "conformance" / "trec_eval-test"
METHODS = ("am", "egm", "gm_trec_eval", "median")
BASELINE = "import numpy, polars"

KERNEL = """
import sys, time
sys.path.insert(0, {bench!r})
from bench_splithalf import workload
from irstats.meta.splithalf import split_half
m = workload()
split_half(m, {methods!r}, n_splits=50, seed=0, progress=False)
t = time.perf_counter()
split_half(m, {methods!r}, n_splits={splits}, seed=0, progress=False)
print(time.perf_counter() - t)
"""


def child_env(src: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "irstats-bench-pycache")
    return env


def score_file(splits_dir: Path) -> Path:
    """The 100 × 50 AP score file of bench_splithalf.workload() (seeded), written once."""
    path = splits_dir / "scores_100x50.tsv"
    if not path.exists():
        sys.path.insert(0, str(HERE))
        from bench_splithalf import workload

        from irstats.scores import write_scores

        path.parent.mkdir(parents=True, exist_ok=True)
        write_scores({"AP": workload()}, path)
    return path


def commands(scores: Path, splits: int) -> dict[str, list[str]]:
    py = sys.executable
    method_args = [a for m in METHODS for a in ("--method", m)]
    return {
        "python -c pass": [py, "-c", "pass"],
        "import numpy": [py, "-c", "import numpy"],
        BASELINE: [py, "-c", BASELINE],
        "irstats --help": [py, "-m", "irstats", "--help"],
        "irstats eval (trec_eval test files)": [py, "-m", "irstats", "eval", str(SHARED / "qrels.test"),
                                                str(SHARED / "results.test")],
        "irstats trec_eval (trec_eval test files)": [py, "-m", "irstats", "trec_eval", str(SHARED / "qrels.test"),
                                                     str(SHARED / "results.test")],
        f"irstats splithalf ({splits:,} × 4 methods, 100 × 50)": [py, "-m", "irstats", "splithalf", str(scores),
                                                                  "-m", "AP", *method_args, "-n", str(splits), "-q"],
    }


def run_once(argv: list[str], env: dict) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return elapsed


def kernel_once(env: dict, splits: int) -> float:
    code = KERNEL.format(bench=str(HERE), methods=list(METHODS), splits=splits)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def summarize(name: str, times: list[float], base: float | None) -> dict:
    med = statistics.median(times)
    return {"name": name, "times_s": times, "median_s": med, "min_s": min(times), "max_s": max(times),
            "ratio_to_numpy_polars": med / base if base else None}


def print_table(result: dict) -> None:
    print(f"| command | median s | min–max s | ÷ `{BASELINE}` |")
    print("|---|---:|---:|---:|")
    for row in result["results"]:
        ratio = f"{row['ratio_to_numpy_polars']:.2f}×" if row["ratio_to_numpy_polars"] is not None else ""
        print(f"| {row['name']} | {row['median_s']:.3f} | {row['min_s']:.2f}–{row['max_s']:.2f} | {ratio} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=9, help="timed trials per command (default 9; at least 7)")
    ap.add_argument("--splits", type=int, default=10_000, help="halvings of the splithalf command (default 10,000)")
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the irstats source tree to time (default ./src)")
    ap.add_argument("--no-kernel", action="store_true", help="skip the in-process split-half kernel reference")
    ap.add_argument("--json", type=Path, default=HERE / "results" / "startup.json", metavar="FILE")
    ap.add_argument("--markdown", action="store_true", help="print the results as a Markdown table")
    args = ap.parse_args(argv)
    if not (SHARED / "qrels.test").exists():
        raise SystemExit(f"trec_eval's test files not found in {SHARED.resolve()}")

    env = child_env(args.src.resolve())
    cmds = commands(score_file(HERE / "workloads" / "startup"), args.splits)
    for argv_ in cmds.values():  # warm-up: OS file cache and bytecode
        run_once(argv_, env)
    times: dict[str, list[float]] = {name: [] for name in cmds}
    kernel: list[float] = []
    for r in range(args.repeat):
        for name, argv_ in cmds.items():
            times[name].append(run_once(argv_, env))
        if not args.no_kernel:
            kernel.append(kernel_once(env, args.splits))
        print(f"repeat {r + 1}/{args.repeat}: " + ", ".join(f"{t[-1]:.3f}" for t in times.values()), file=sys.stderr)

    base = statistics.median(times[BASELINE])
    rows = [summarize(name, t, base) for name, t in times.items()]
    if kernel:
        rows.append(summarize(f"split_half kernel alone ({args.splits:,} × 4 methods, in-process)", kernel, None))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=args.src).stdout.strip()
    result = {"benchmark": "startup", "date": str(date.today()), "commit": commit or None, "src": str(args.src),
              "repeat": args.repeat, "splits": args.splits, "python": platform.python_version(),
              "cores": os.cpu_count(), "results": rows}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    if args.markdown:
        print_table(result)
    else:
        for row in rows:
            ratio = f"  {row['ratio_to_numpy_polars']:.2f}×" if row["ratio_to_numpy_polars"] is not None else ""
            print(f"{row['name']:<58} {row['median_s']:.3f} s{ratio}")
    print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
