#!/usr/bin/env python3
"""Topics scaling: time and peak memory as the number of topics grows, one document each.

    python bench/bench_topics.py                                  # 1k, 10k, 100k -> bench/results/topics.json
    python bench/bench_topics.py --points 1000 10000 100000 1000000 --trec-eval /path/to/trec_eval

For each point N the workload is N topics × 1 judged document (qrels) and a run of N lines, one
document per topic (half of them the judged one), written once and deterministically to
``bench/workloads/topics/N/`` (git-ignored). Each command is a fresh process; reported are its
wall time (seen from the parent) and its peak resident memory (``os.wait4``'s ``ru_maxrss``):

* ``irstats trec_eval -q -m all_trec qrels run`` (output kept, to compare);
* ``trec_eval -q -m all_trec qrels run`` (``--trec-eval PATH``, ``$TREC_EVAL`` or ``trec_eval`` on
  ``PATH``; skipped if none), and whether irstats' output is byte-identical to it;
* ``irstats eval -m all_trec -q qrels run`` (the per-topic table for people, the default format:
  issue 25's target is under 500 MiB at 10^5 topics) and the same with ``--format tsv`` (the
  per-topic data). Both print a block of rows at a time; what is left is the evaluation itself
  and its scores (8 bytes a topic and measure).

Each command runs ``--repeat`` times per point (default 3; once above ``--repeat-up-to`` topics,
default 10^5), one of each in turn; the median time and peak are reported, with every trial's
time. A point whose command runs past ``--timeout`` seconds (default 600) is recorded as such and
the larger points of that command are skipped. Children get ``src/`` first on ``PYTHONPATH`` and
a ``PYTHONPYCACHEPREFIX`` (bytecode compiled once). The default points run in about 4 minutes on
this project's 2-core machine; the 10^6 point adds about 10.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
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
WORKLOADS = HERE / "workloads" / "topics"
DEFAULT_POINTS = (1_000, 10_000, 100_000)


def workload(n: int) -> tuple[Path, Path]:
    """qrels and run of ``n`` topics × 1 document (written once; same n → same bytes)."""
    folder = WORKLOADS / str(n)
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    if not (qrels.exists() and run.exists()):
        folder.mkdir(parents=True, exist_ok=True)
        with open(qrels, "w") as q, open(run, "w") as r:
            for t in range(n):
                q.write(f"q{t} 0 d{t} {t % 3}\n")  # grades 0, 1, 2
                r.write(f"q{t} Q0 d{t if t % 2 else t + 1} 1 {1.0 - (t % 7) / 10:.3f} run\n")
    return qrels, run


def find_trec_eval(given: str | None) -> str | None:
    path = given or os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    return path if path and os.access(path, os.X_OK) else None


def child_env(extra: dict | None = None) -> dict:
    """The children's environment: this checkout's ``src/`` first, bytecode kept
    (:func:`bench_startup.child_env`), and ``extra``."""
    env = startup_child_env(ROOT / "src")
    env.update(extra or {})
    return env


def run(argv: list[str], out: Path, timeout: float, env: dict | None = None) -> dict:
    """Wall seconds, peak MiB and exit code of one run of ``argv`` (stdout to ``out``; ``env``:
    :func:`child_env` by default)."""
    start = time.perf_counter()
    with open(out, "wb") as sink:
        proc = subprocess.Popen(argv, env=env or child_env(), cwd=ROOT, stdout=sink, stderr=subprocess.DEVNULL)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                return {"seconds": None, "peak_mib": usage.ru_maxrss / 1024, "timed_out": timeout}
            time.sleep(0.01)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"seconds": seconds, "peak_mib": usage.ru_maxrss / 1024, "exit": proc.returncode}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, nargs="+", default=list(DEFAULT_POINTS), help="numbers of topics")
    ap.add_argument("--trec-eval", metavar="PATH", help="the trec_eval binary (default $TREC_EVAL or on PATH)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per command and point (default 600)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command per point, interleaved; medians "
                                                          "are reported (default 3)")
    ap.add_argument("--repeat-up-to", type=int, default=100_000, metavar="TOPICS",
                    help="points above this many topics run once (default 100000)")
    ap.add_argument("--json", type=Path, default=HERE / "results" / "topics.json", metavar="FILE")
    args = ap.parse_args(argv)
    py = sys.executable
    trec_eval = find_trec_eval(args.trec_eval)
    if trec_eval is None:
        print("no trec_eval binary (--trec-eval PATH or $TREC_EVAL): its rows are left out", file=sys.stderr)
    scratch = Path(tempfile.mkdtemp(prefix="irstats-topics-"))
    tools = {
        "irstats trec_eval -q -m all_trec": lambda q, r: [py, "-m", "irstats", "trec_eval", "-q", "-m", "all_trec",
                                                          str(q), str(r)],
        "trec_eval -q -m all_trec": (lambda q, r: [trec_eval, "-q", "-m", "all_trec", str(q), str(r)])
        if trec_eval else None,
        "irstats eval -m all_trec -q": lambda q, r: [py, "-m", "irstats", "eval", "-m", "all_trec", "-q",
                                                     str(q), str(r)],
        "irstats eval -m all_trec -q --format tsv": lambda q, r: [py, "-m", "irstats", "eval", "-m", "all_trec",
                                                                  "-q", "--format", "tsv", str(q), str(r)],
    }
    given_up: set[str] = set()
    results = []
    try:
        for n in sorted(args.points):
            qrels, run_file = workload(n)
            repeats = args.repeat if n <= args.repeat_up_to else 1
            trials: dict[str, list[dict]] = {name: [] for name, make in tools.items() if make is not None}
            outputs = {name: scratch / f"{k}.out" for k, name in enumerate(trials)}
            for _ in range(repeats):  # interleaved: one of each command per repeat
                for name in trials:
                    if name in given_up:
                        continue
                    trial = run(tools[name](qrels, run_file), outputs[name], args.timeout)
                    trials[name].append(trial)
                    if trial.get("seconds") is None:
                        given_up.add(name)
            for name, rows in trials.items():
                row = {"tool": name, "topics": n}
                done = [r for r in rows if r.get("seconds") is not None]
                if not rows:
                    row["skipped"] = "a smaller point ran past the timeout"
                elif not done:
                    row.update(rows[-1])
                else:
                    row.update(seconds=statistics.median(r["seconds"] for r in done),
                               peak_mib=statistics.median(r["peak_mib"] for r in done),
                               exit=done[-1]["exit"], repeats=len(done),
                               trials=[round(r["seconds"], 3) for r in done])
                results.append(row)
                shown = f"{row['seconds']:.2f} s" if row.get("seconds") is not None else row.get("skipped", "timed out")
                print(f"{n:>9,} topics  {name:<41} {shown:>12}  {row.get('peak_mib', 0):7.0f} MiB", flush=True)
            a_name, b_name = "irstats trec_eval -q -m all_trec", "trec_eval -q -m all_trec"
            if trials.get(a_name) and trials.get(b_name) and not {a_name, b_name} & given_up:
                same = outputs[a_name].read_bytes() == outputs[b_name].read_bytes()
                for row in results:
                    if row["topics"] == n and row["tool"] == a_name:
                        row["identical_to_trec_eval"] = same
                print(f"{n:>9,} topics  irstats trec_eval output {'==' if same else '!='} trec_eval's", flush=True)
            for out in outputs.values():
                out.unlink(missing_ok=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    write_result(args.json, "topics", trec_eval=trec_eval, timeout_s=args.timeout, results=results)
    return 0


def write_result(path: Path, benchmark: str, **fields) -> None:
    """The JSON of a benchmark: its name, the date, the commit, Python, the cores and ``fields``."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    result = {"benchmark": benchmark, "date": str(date.today()), "commit": commit or None,
              "python": platform.python_version(), "cores": os.cpu_count(), **fields}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
