#!/usr/bin/env python3
"""Start-up benchmark: how long a command takes end to end, compared with ``python -c
"import numpy"`` (the floor of any irstats command that computes), ``python -c pass`` (the
interpreter alone) and, when one is found, the trec_eval binary on the same files.

Each trial is a fresh subprocess timed from the parent (wall time, ``time.perf_counter``
around the child's life, output to /dev/null; its peak resident memory from ``os.wait4``);
trials are interleaved (one of each command per repeat, after one untimed warm-up of each).
Reported per command: the median time, and the median of the per-repeat ratios to ``import
numpy`` and to ``pass`` (ratios taken pair by pair within a repeat hold better than a ratio
of medians when the machine's speed drifts).

    python bench/bench_startup.py                          # median of 9 -> bench/results/startup.json
    python bench/bench_startup.py --repeat 15 --markdown
    python bench/bench_startup.py --src /tmp/old/src --json bench/results/startup-before.json

Commands (``python`` is this interpreter; irstats runs as pip's ``irstats`` script does —
``python -c`` with its two lines, :data:`CONSOLE_SCRIPT` — with ``--src``, default this
checkout's ``src/``, first on ``PYTHONPATH``; ``python -m irstats trec_eval`` is timed too):

* ``python -c pass``: the interpreter and ``site`` alone;
* ``python -c "import numpy"``: the baseline; ``python -c "import numpy, polars"`` for reference;
* ``trec_eval`` (``--trec-eval PATH``, ``$TREC_EVAL`` or ``trec_eval`` on ``PATH``; skipped if
  none) on the test files below;
* ``irstats --help``;
* ``irstats eval`` and ``irstats trec_eval`` on trec_eval's own test files (``qrels.test``,
  ``results.test``: 3 topics, one run) from ``tests/data/conformance/trec_eval-test``;
* ``irstats splithalf`` on a 100 systems × 50 topics AP score file (the seeded workload of
  ``bench_splithalf.py``, written to ``bench/workloads/startup/``), methods am, egm,
  gm_trec_eval and median, 10,000 halvings, ``-q``;
* the drop-in as a shell script uses it: ``irstats trec_eval`` once per run file, in a ``sh``
  loop over the TREC DL 2019 runs of ``--dl19`` (by default the 14 of
  ``tests/data/trec-dl-2019-passage``; the recorded numbers used all 37 official runs), decompressed
  once into ``bench/workloads/startup/dl19/``, and the same loop with the trec_eval binary;
* for reference, the split-half *kernel* alone: ``split_half`` on the same matrix, timed
  inside a child after its imports and a warm-up (what ``bench_splithalf.py`` measures), so
  that "splithalf end to end − kernel" is the start-up and I/O overhead.

Bytecode: the children get ``PYTHONPYCACHEPREFIX`` (a folder in the system's temp dir) and
no ``PYTHONDONTWRITEBYTECODE``, so irstats' modules are compiled once, as pip does for an
installed package, rather than at every start.

Targets (issue 25): ``irstats eval`` and ``irstats trec_eval`` at most 1.5 × ``import numpy``
(stretch: ``irstats trec_eval`` at most 2 × ``pass``); ``irstats splithalf`` under 1 s end to end.
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
TREC_EVAL_TESTS = ROOT / "tests" / "data" / "conformance" / "trec_eval-test"
#: The DL 2019 folder the shell loops read by default: the 14 runs tests/data keeps (``--dl19 DIR`` for
#: another, such as all 37 official runs; tests/data/trec-dl-2019-passage/README.md says where they come from).
DEFAULT_DL19 = ROOT / "tests" / "data" / "trec-dl-2019-passage"
METHODS = ("am", "egm", "gm_trec_eval", "median")
BASELINE = "import numpy"
FLOOR = "python -c pass"

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


def score_file(splits_dir: Path, env: dict) -> Path:
    """The 100 × 50 AP score file of bench_splithalf.workload() (seeded), written once, by a
    child: this process imports nothing heavy, so that a child's peak memory (which starts from
    this process' size when it is forked) is its own."""
    path = splits_dir / "scores_100x50.tsv"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        code = (f"import sys; sys.path.insert(0, {str(HERE)!r})\nfrom bench_splithalf import workload\n"
                f"from irstats.scores import write_scores\nwrite_scores({{'AP': workload()}}, {str(path)!r})")
        subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True)
    return path


def dl19_runs(dl19: Path, folder: Path) -> tuple[Path, list[Path]]:
    """The DL 2019 qrels of ``dl19`` and its runs as plain text (trec_eval reads no gzip), decompressed
    once into ``folder``."""
    import gzip
    import shutil

    sources = sorted((dl19 / "runs").glob("*.gz"))
    if not sources:
        raise SystemExit(f"bench_startup: the DL 2019 runs were not found in {(dl19 / 'runs').resolve()}")
    folder.mkdir(parents=True, exist_ok=True)
    runs = []
    for source in sources:
        plain = folder / source.name[:-3]
        if not plain.exists():
            with gzip.open(source, "rb") as fin, open(plain.with_suffix(".partial"), "wb") as fout:
                shutil.copyfileobj(fin, fout)
            plain.with_suffix(".partial").rename(plain)
        runs.append(plain)
    return dl19 / "qrels.dl19-passage.txt", runs


def shell_loop(program: list[str], qrels: Path, runs: list[Path]) -> list[str]:
    """``sh -c 'for run in RUNS; do PROGRAM QRELS "$run"; done'``: one process per run, as a
    script that calls trec_eval does (the runs are the shell's positional arguments)."""
    import shlex

    call = " ".join(shlex.quote(word) for word in [*program, str(qrels)])
    return ["sh", "-c", f'for run in "$@"; do {call} "$run" || exit 1; done', "loop", *map(str, runs)]


def find_trec_eval(given: str | None) -> str | None:
    """The trec_eval binary: ``--trec-eval``, ``$TREC_EVAL`` or ``trec_eval`` on ``PATH``."""
    import shutil

    path = given or os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    return path if path and os.access(path, os.X_OK) else None


#: What pip's ``irstats`` script runs (``from irstats.cli.main import main; sys.exit(main())``),
#: as ``python -c`` so that ``--src`` is what is timed: the command a user types. ``python -m
#: irstats`` is timed beside it: under CPython 3.11 its runpy frames put the import machinery's
#: calls at a depth where the interpreter maps and unmaps a 16 kB frame-stack chunk at every call
#: (~800 times, ~20 ms: see bench/README.md).
CONSOLE_SCRIPT = "import sys; sys.argv[0] = 'irstats'; from irstats.cli.main import main; sys.exit(main())"


def commands(scores: Path, splits: int, trec_eval: str | None = None,
             dl19: tuple[Path, list[Path]] | None = None) -> dict[str, list[str]]:
    py = sys.executable
    irstats = [py, "-c", CONSOLE_SCRIPT]
    method_args = [a for m in METHODS for a in ("--method", m)]
    binary = {"trec_eval binary (trec_eval test files)": [trec_eval, str(TREC_EVAL_TESTS / "qrels.test"),
                                                           str(TREC_EVAL_TESTS / "results.test")]} if trec_eval else {}
    loops = {}
    if dl19 is not None:
        loop = f"a shell loop over the {len(dl19[1])} DL 2019 runs"
        loops[f"irstats trec_eval, {loop}"] = shell_loop([*irstats, "trec_eval"], *dl19)
        if trec_eval:
            loops[f"trec_eval binary, {loop}"] = shell_loop([trec_eval], *dl19)
    return {
        FLOOR: [py, "-c", "pass"],
        BASELINE: [py, "-c", "import numpy"],
        "import numpy, polars": [py, "-c", "import numpy, polars"],
        **binary,
        "irstats --help": [*irstats, "--help"],
        "irstats eval (trec_eval test files)": [*irstats, "eval", str(TREC_EVAL_TESTS / "qrels.test"),
                                                str(TREC_EVAL_TESTS / "results.test")],
        "irstats trec_eval (trec_eval test files)": [*irstats, "trec_eval", str(TREC_EVAL_TESTS / "qrels.test"),
                                                     str(TREC_EVAL_TESTS / "results.test")],
        "python -m irstats trec_eval (trec_eval test files)": [py, "-m", "irstats", "trec_eval",
                                                               str(TREC_EVAL_TESTS / "qrels.test"), str(TREC_EVAL_TESTS / "results.test")],
        f"irstats splithalf ({splits:,} × 4 methods, 100 × 50)": [*irstats, "splithalf", str(scores),
                                                                  "-m", "AP", *method_args, "-n", str(splits), "-q"],
        **loops,
    }


def run_once(argv: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, peak resident MiB) of one run of ``argv``."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {err.decode()[-500:]}")
    return elapsed, usage.ru_maxrss / 1024


def kernel_once(env: dict, splits: int) -> float:
    code = KERNEL.format(bench=str(HERE), methods=list(METHODS), splits=splits)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def summarize(name: str, times: list[float], peaks: list[float], base: list[float] | None,
              floor: list[float] | None) -> dict:
    def ratio(to):
        return statistics.median(t / b for t, b in zip(times, to)) if to else None

    return {"name": name, "times_s": times, "median_s": statistics.median(times), "min_s": min(times),
            "max_s": max(times), "peak_mib": max(peaks) if peaks else None,
            "ratio_to_numpy": ratio(base), "ratio_to_pass": ratio(floor)}


def print_table(result: dict) -> None:
    print(f"| command | median s | min–max s | peak MiB | ÷ `{BASELINE}` | ÷ `python -c pass` |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in result["results"]:
        cells = [f"{row[k]:.2f}×" if row.get(k) is not None else "" for k in ("ratio_to_numpy", "ratio_to_pass")]
        peak = f"{row['peak_mib']:.0f}" if row.get("peak_mib") is not None else ""
        print(f"| {row['name']} | {row['median_s']:.3f} | {row['min_s']:.2f}–{row['max_s']:.2f} | {peak} | "
              f"{cells[0]} | {cells[1]} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=9, help="timed trials per command (default 9; at least 7)")
    ap.add_argument("--splits", type=int, default=10_000, help="halvings of the splithalf command (default 10,000)")
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the irstats source tree to time (default ./src)")
    ap.add_argument("--no-kernel", action="store_true", help="skip the in-process split-half kernel reference")
    ap.add_argument("--no-loop", action="store_true", help="skip the shell loops over the DL 2019 runs")
    ap.add_argument("--dl19", type=Path, default=DEFAULT_DL19, metavar="DIR",
                    help="the shell loops' qrels.dl19-passage.txt and runs/*.run.gz (default tests/data's 14 runs; "
                         "the recorded numbers used all 37 official runs)")
    ap.add_argument("--json", type=Path, default=HERE / "results" / "startup.json", metavar="FILE")
    ap.add_argument("--markdown", action="store_true", help="print the results as a Markdown table")
    ap.add_argument("--trec-eval", metavar="PATH", help="the trec_eval binary (default $TREC_EVAL or trec_eval on PATH)")
    args = ap.parse_args(argv)
    if not (TREC_EVAL_TESTS / "qrels.test").exists():
        raise SystemExit(f"trec_eval's test files not found in {TREC_EVAL_TESTS.resolve()}")

    env = child_env(args.src.resolve())
    trec_eval = find_trec_eval(args.trec_eval)
    if trec_eval is None:
        print("no trec_eval binary (--trec-eval PATH or $TREC_EVAL): its row is left out", file=sys.stderr)
    dl19 = None if args.no_loop else dl19_runs(args.dl19, HERE / "workloads" / "startup" / "dl19")
    cmds = commands(score_file(HERE / "workloads" / "startup", env), args.splits, trec_eval, dl19)
    for argv_ in cmds.values():  # warm-up: OS file cache and bytecode
        run_once(argv_, env)
    times: dict[str, list[float]] = {name: [] for name in cmds}
    peaks: dict[str, list[float]] = {name: [] for name in cmds}
    kernel: list[float] = []
    for r in range(args.repeat):
        for name, argv_ in cmds.items():
            seconds, peak = run_once(argv_, env)
            times[name].append(seconds)
            peaks[name].append(peak)
        if not args.no_kernel:
            kernel.append(kernel_once(env, args.splits))
        print(f"repeat {r + 1}/{args.repeat}: " + ", ".join(f"{t[-1]:.3f}" for t in times.values()), file=sys.stderr)

    rows = [summarize(name, t, peaks[name], times[BASELINE], times[FLOOR]) for name, t in times.items()]
    if kernel:
        rows.append(summarize(f"split_half kernel alone ({args.splits:,} × 4 methods, in-process)", kernel, [],
                              None, None))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=args.src).stdout.strip()
    result = {"benchmark": "startup", "date": str(date.today()), "commit": commit or None, "src": str(args.src),
              "repeat": args.repeat, "splits": args.splits, "python": platform.python_version(),
              "trec_eval": trec_eval,
              "cores": os.cpu_count(), "results": rows}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    if args.markdown:
        print_table(result)
    else:
        for row in rows:
            ratio = f"  {row['ratio_to_numpy']:.2f}× numpy" if row["ratio_to_numpy"] is not None else ""
            print(f"{row['name']:<58} {row['median_s']:.3f} s{ratio}")
    print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
