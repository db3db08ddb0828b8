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
* ``irstats eval -m all_trec -q qrels run --format tsv`` (the per-topic data; the text table is a
  view for people, not for 10^5 rows).

A point whose command runs past ``--timeout`` seconds is recorded as such and the larger points
of that command are skipped. Children get ``src/`` first on ``PYTHONPATH`` and a
``PYTHONPYCACHEPREFIX`` (bytecode compiled once). The default points run in about 2 minutes on
this project's 2-core machine; the 10^6 point adds several minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

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


def child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "irstats-bench-pycache")
    return env


def run(argv: list[str], out: Path, timeout: float) -> dict:
    """Wall seconds, peak MiB and exit code of one run of ``argv`` (stdout to ``out``)."""
    start = time.perf_counter()
    with open(out, "wb") as sink:
        proc = subprocess.Popen(argv, env=child_env(), cwd=ROOT, stdout=sink, stderr=subprocess.DEVNULL)
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
    ap.add_argument("--timeout", type=float, default=300, help="seconds per command and point (default 300)")
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
                                                     "--format", "tsv", str(q), str(r)],
    }
    given_up: set[str] = set()
    results = []
    try:
        for n in sorted(args.points):
            qrels, run_file = workload(n)
            outputs = {}
            for name, make in tools.items():
                if make is None:
                    continue
                row = {"tool": name, "topics": n}
                if name in given_up:
                    row["skipped"] = "a smaller point ran past the timeout"
                else:
                    out = scratch / f"{len(outputs)}.out"
                    row.update(run(make(qrels, run_file), out, args.timeout))
                    outputs[name] = out
                    if row.get("seconds") is None:
                        given_up.add(name)
                results.append(row)
                shown = f"{row['seconds']:.2f} s" if row.get("seconds") is not None else row.get("skipped", "timed out")
                print(f"{n:>9,} topics  {name:<34} {shown:>12}  {row.get('peak_mib', 0):7.0f} MiB", flush=True)
            a, b = outputs.get("irstats trec_eval -q -m all_trec"), outputs.get("trec_eval -q -m all_trec")
            if a and b and a.exists() and b.exists():
                same = a.read_bytes() == b.read_bytes()
                for row in results:
                    if row["topics"] == n and row["tool"] == "irstats trec_eval -q -m all_trec":
                        row["identical_to_trec_eval"] = same
                print(f"{n:>9,} topics  irstats trec_eval output {'==' if same else '!='} trec_eval's", flush=True)
            for out in outputs.values():
                out.unlink(missing_ok=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    result = {"benchmark": "topics", "date": str(date.today()), "commit": commit or None,
              "python": platform.python_version(), "cores": os.cpu_count(), "trec_eval": trec_eval,
              "timeout_s": args.timeout, "results": results}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
