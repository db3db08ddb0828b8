#!/usr/bin/env python3
"""Time ``irstats report`` on the TREC DL 2019 passage runs: the full report and ``--quick``,
side by side.

Targets (issue 25): the full report of the 37 official runs × 43 topics (``--dl19 DIR`` with
all of them; by default the 14 runs tests/data keeps) in at most 4 s, and
``--quick`` in at most half the full report's time (it says what it trades: fewer
resamples and no figures, see ``irstats report --help``).

Each trial is a fresh ``python -m irstats report … --quiet`` subprocess (imports included, as
a user runs it), timed from this process: wall time (``time.perf_counter`` around the child's
life), CPU time (user + system of the report and of the PDF writers it forks, from
``os.wait4``) and peak resident memory. The commands are interleaved — full, quick, full,
quick … after one untimed warm-up of each — and the quick/full ratio is taken within each
repeat, then its median (a ratio within a repeat holds better than a ratio of medians when
the shared machine's speed drifts). The load average before and after is recorded: on the
2-core machine shared with other jobs, a high load makes every wall time longer.

    python bench/bench_report.py                       # median of 7 -> bench/results/report.json
    python bench/bench_report.py --repeat 9 --markdown
    python bench/bench_report.py --blas-threads 1      # also both with a one-thread BLAS
    python bench/bench_report.py --src /tmp/old/src --json /tmp/report-before.json

``--blas-threads N`` adds the two commands again with ``OPENBLAS_NUM_THREADS``,
``OMP_NUM_THREADS`` and ``MKL_NUM_THREADS`` set to N: how much of the time is the BLAS's
threads (the split-half and predictive-power products are small; on a loaded 2-core machine
a second BLAS thread mostly waits for a core).
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

from bench_startup import child_env as startup_child_env  # src/ first, bytecode kept

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: The DL 2019 folder read by default: the 14 runs tests/data keeps (``--dl19 DIR`` for another,
#: such as all 37 official runs; tests/data/trec-dl-2019-passage/README.md says where they come from).
DEFAULT_DL19 = ROOT / "tests" / "data" / "trec-dl-2019-passage"
FULL, QUICK = "full report", "--quick"
TARGET_FULL_S = 4.0
TARGET_QUICK_RATIO = 0.5
BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def child_env(src: Path, blas_threads: int | None = None) -> dict:
    """The children's environment (:func:`bench_startup.child_env`: ``src`` first on
    ``PYTHONPATH``, bytecode compiled once), and the BLAS's threads if given."""
    env = startup_child_env(src)
    if blas_threads is not None:
        env.update({name: str(blas_threads) for name in BLAS_VARIABLES})
    return env


def report_command(dl19: Path, out: Path, quick: bool) -> list[str]:
    return [sys.executable, "-m", "irstats", "report", "--qrels", str(dl19 / "qrels.dl19-passage.txt"),
            "--runs", str(dl19 / "runs"), "-o", str(out), "--quiet", *(["--quick"] if quick else [])]


def run_once(argv: list[str], env: dict) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak resident MiB) of one run of ``argv``; the CPU time
    includes the children it reaped (the report's PDF writers)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({code}): {err.decode()[-500:]}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def summarize(name: str, runs: list[tuple[float, float, float]], full: list[tuple[float, float, float]] | None,
              env: dict) -> dict:
    walls, cpus, peaks = (list(column) for column in zip(*runs))
    row = {"name": name, "times_s": walls, "cpu_s": cpus, "median_s": statistics.median(walls),
           "min_s": min(walls), "max_s": max(walls), "median_cpu_s": statistics.median(cpus),
           "peak_mib": max(peaks), "blas_threads": env.get(BLAS_VARIABLES[0])}
    if full is not None:
        row["ratio_to_full"] = statistics.median(w / f for w, (f, _, _) in zip(walls, full))
    return row


def print_table(result: dict) -> None:
    print("| command | median s | min–max s | CPU s | peak MiB | ÷ full report |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in result["results"]:
        ratio = f"{row['ratio_to_full']:.2f}×" if row.get("ratio_to_full") is not None else ""
        print(f"| {row['name']} | {row['median_s']:.2f} | {row['min_s']:.2f}–{row['max_s']:.2f} | "
              f"{row['median_cpu_s']:.2f} | {row['peak_mib']:.0f} | {ratio} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7, help="timed trials per command (default 7)")
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the irstats source tree to time (default ./src)")
    ap.add_argument("--blas-threads", type=int, metavar="N", help="also time both with N BLAS threads")
    ap.add_argument("--json", type=Path, default=HERE / "results" / "report.json", metavar="FILE")
    ap.add_argument("--markdown", action="store_true", help="print the results as a Markdown table")
    ap.add_argument("--dl19", type=Path, default=DEFAULT_DL19, metavar="DIR",
                    help="qrels.dl19-passage.txt and runs/*.run.gz (default tests/data's 14 runs; the recorded "
                         "numbers used all 37 official runs)")
    args = ap.parse_args(argv)
    if not (args.dl19 / "qrels.dl19-passage.txt").exists():
        raise SystemExit(f"bench_report: reference data not found at {args.dl19.resolve()}")
    n_runs = len(list((args.dl19 / "runs").glob("*.run.gz")))

    variants = [(None, "")] + ([(args.blas_threads, f", {args.blas_threads} BLAS thread(s)")]
                               if args.blas_threads is not None else [])
    commands = {f"{label}{suffix}": (quick, child_env(args.src.resolve(), threads))
                for threads, suffix in variants for label, quick in ((FULL, False), (QUICK, True))}
    load_before = os.getloadavg()
    runs: dict[str, list] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory() as scratch:
        def trial(name: str, i: int):
            quick, env = commands[name]
            return run_once(report_command(args.dl19, Path(scratch) / f"r{i}-{len(runs[name])}-{quick}", quick), env)

        for name in commands:  # warm-up: OS file cache and bytecode
            trial(name, -1)
        for r in range(args.repeat):
            for name in commands:
                runs[name].append(trial(name, r))
            print(f"repeat {r + 1}/{args.repeat}: " + ", ".join(f"{name} {t[-1][0]:.2f} s" for name, t in runs.items()),
                  file=sys.stderr)
    load_after = os.getloadavg()

    rows = []
    for threads, suffix in variants:
        full = runs[f"{FULL}{suffix}"]
        rows.append(summarize(f"{FULL}{suffix}", full, None, commands[f"{FULL}{suffix}"][1]))
        rows.append(summarize(f"{QUICK}{suffix}", runs[f"{QUICK}{suffix}"], full, commands[f"{QUICK}{suffix}"][1]))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=args.src).stdout.strip()
    command = " ".join(["python bench/bench_report.py", *(argv if argv is not None else sys.argv[1:])])
    result = {"benchmark": "report", "date": str(date.today()), "commit": commit or None, "command": command,
              "src": str(args.src), "data": f"TREC DL 2019 passage: {n_runs} runs, 43 topics, default measures",
              "repeat": args.repeat,
              "python": platform.python_version(), "cores": os.cpu_count(),
              "load_average_before": load_before[0], "load_average_after": load_after[0],
              "targets": {"full_s": TARGET_FULL_S, "quick_ratio_to_full": TARGET_QUICK_RATIO}, "results": rows}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    if args.markdown:
        print_table(result)
    else:
        for row in rows:
            ratio = f"  {row['ratio_to_full']:.2f}× the full report" if row.get("ratio_to_full") is not None else ""
            print(f"{row['name']:<36} {row['median_s']:.2f} s (CPU {row['median_cpu_s']:.2f} s){ratio}")
    print(f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after; wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
