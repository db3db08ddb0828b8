#!/usr/bin/env python3
"""irstats through ir_measures (and PyTerrier) against ir_measures' default provider, pytrec_eval.

    python bench/bench_ir_measures.py                    # ~3 min -> bench/results/ir_measures.json
    python bench/bench_ir_measures.py --repeat 15 --runs 10 --first-repeat 9

Workload: the first ``--runs`` (default 10) DL 2019 passage runs of ``--dl19`` in name order
(by default the 14 runs of ``tests/data/trec-dl-2019-passage``; the recorded numbers used the
first 10 of all 37 official runs, 860 to 43,000 lines each, 296,909 in all) with
the official qrels (9,260 lines), measures AP, nDCG@10, P@10, R@100 and RR, read once by
ir_measures' own readers and handed over in each of ir_measures' three shapes: lists of
namedtuples (``read_trec_run``, what the issue measured), dicts of dicts (pytrec_eval's
shape) and pandas DataFrames (PyTerrier's).

Warm, in this process, trials interleaved (pytrec_eval, irstats, pytrec_eval …) after one
untimed trial of each; a trial is one call per run, so its time is the whole workload's:

* ``provider.calc_aggregate(measures, qrels, run)`` for ``ir_measures.pytrec_eval`` and
  ``IrstatsProvider()`` (irstats' defaults: float64 scores, no depth cut);
* ``list(provider.iter_calc(measures, qrels, run))`` for both;
* ``ir_measures.calc_aggregate`` through the default pipeline, as it ships and with irstats
  registered first (``irstats.integrations.ir_measures.register()``);
* PyTerrier's ``pt.Experiment`` over the runs as DataFrames, with and without irstats
  registered (skipped with a message when pyterrier does not import).

Reported: the median trial, min–max, and the median of the per-repeat ratios anchor ÷ irstats
(> 1: irstats is faster; ratios taken pair by pair hold better than a ratio of medians when
the shared machine's speed drifts). Before timing, every irstats value is checked against
pytrec_eval's (largest absolute difference recorded; irstats reads scores as float64, so a tie
pytrec_eval sees in float32 may fall otherwise).

First call, each in a fresh process (this script with ``--_first-call PROVIDER``), ``--first-repeat``
times interleaved: imports, reading the qrels and one run (``--first-run``, default
``bm25base_p``, 43,000 lines) with ir_measures' readers, then the first ``calc_aggregate`` and
a second one, each timed inside the child; the parent records the child's whole life. The
target (issue 25): irstats' first call ≤ 0.3 s.

Children get ``src/`` first on ``PYTHONPATH`` and a ``PYTHONPYCACHEPREFIX`` (bytecode compiled
once, as pip does). The machine has 2 shared cores: read medians, not single trials.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Callable, Iterator

from bench_startup import child_env  # the children's environment: src/ first, bytecode kept

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: The DL 2019 folder read by default: the 14 runs tests/data keeps (``--dl19 DIR`` for another, such
#: as all 37 official runs; tests/data/trec-dl-2019-passage/README.md says where they come from).
DEFAULT_DL19 = ROOT / "tests" / "data" / "trec-dl-2019-passage"
MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "RR")
SHAPES = ("namedtuples", "dicts", "dataframes")
ANCHOR = "pytrec_eval"

FIRST_CALL = """
import json, sys, time
start = time.perf_counter()
import ir_measures
provider_name, qrels_path, run_path = sys.argv[1:4]
if provider_name == "irstats":
    from irstats.integrations.ir_measures import IrstatsProvider
    provider = IrstatsProvider()
else:
    provider = ir_measures.pytrec_eval
imported = time.perf_counter()
qrels = list(ir_measures.read_trec_qrels(qrels_path))
run = list(ir_measures.read_trec_run(run_path))
measures = [ir_measures.parse_measure(m) for m in {measures!r}]
read = time.perf_counter()
provider.calc_aggregate(measures, qrels, run)
first = time.perf_counter()
provider.calc_aggregate(measures, qrels, run)
second = time.perf_counter()
print(json.dumps({{"import_s": imported - start, "read_s": read - imported, "first_call_s": first - read,
                  "second_call_s": second - first}}))
"""


# ----------------------------------------------------------------------------- workload


def load_workload(dl19: Path, n_runs: int) -> tuple[list, dict[str, list], list[str]]:
    """The qrels and the first ``n_runs`` runs of ``dl19`` as ir_measures reads them (lists of namedtuples)."""
    import ir_measures

    qrels = list(ir_measures.read_trec_qrels(str(dl19 / "qrels.dl19-passage.txt")))
    paths = sorted((dl19 / "runs").glob("*.run.gz"))[:n_runs]
    runs = {p.name.removesuffix(".run.gz"): list(ir_measures.read_trec_run(str(p))) for p in paths}
    return qrels, runs, list(runs)


def in_shape(qrels: list, runs: dict[str, list], shape: str) -> tuple[object, list]:
    """The qrels and runs in one of ir_measures' input shapes."""
    import ir_measures

    if shape == "namedtuples":
        return qrels, list(runs.values())
    if shape == "dicts":
        return (ir_measures.util.QrelsConverter(qrels).as_dict_of_dict(),
                [ir_measures.util.RunConverter(r).as_dict_of_dict() for r in runs.values()])
    import pandas as pd

    return pd.DataFrame(qrels), [pd.DataFrame(r) for r in runs.values()]


# ----------------------------------------------------------------------------- timing


def interleaved(trials: dict[str, Callable[[], object]], repeat: int) -> dict[str, dict[str, list[float]]]:
    """Wall and CPU seconds of each trial, ``repeat`` times, one of each per round (after one
    untimed round): ``{name: {"wall": [...], "cpu": [...]}}``. CPU time (this process, both
    sides single-threaded) is what the shared machine disturbs least."""
    for run in trials.values():
        run()
    times: dict[str, dict[str, list[float]]] = {name: {"wall": [], "cpu": []} for name in trials}
    for _ in range(repeat):
        for name, run in trials.items():
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            times[name]["cpu"].append(time.process_time() - cpu)
            times[name]["wall"].append(time.perf_counter() - wall)
    return times


def row(name: str, shape: str, anchor: dict | list[float], irstats: dict | list[float], **extra) -> dict:
    """One result row: both sides' trials (wall, and CPU when measured in this process), their
    medians and the median of the per-repeat ratios anchor ÷ irstats."""
    def ratio(a: list[float], b: list[float]) -> float:
        return statistics.median(x / y for x, y in zip(a, b))

    anchor_wall = anchor["wall"] if isinstance(anchor, dict) else anchor
    irstats_wall = irstats["wall"] if isinstance(irstats, dict) else irstats
    out = {"name": name, "shape": shape, "anchor": ANCHOR,
           "anchor_s": anchor_wall, "irstats_s": irstats_wall,
           "anchor_median_s": statistics.median(anchor_wall), "irstats_median_s": statistics.median(irstats_wall),
           "anchor_min_s": min(anchor_wall), "anchor_max_s": max(anchor_wall),
           "irstats_min_s": min(irstats_wall), "irstats_max_s": max(irstats_wall),
           "ratio": ratio(anchor_wall, irstats_wall)}
    if isinstance(anchor, dict):
        out.update({"anchor_cpu_s": anchor["cpu"], "irstats_cpu_s": irstats["cpu"],
                    "anchor_cpu_median_s": statistics.median(anchor["cpu"]),
                    "irstats_cpu_median_s": statistics.median(irstats["cpu"]),
                    "cpu_ratio": ratio(anchor["cpu"], irstats["cpu"])})
    return {**out, **extra}


def report(result: dict) -> None:
    """One line on standard error as a row is measured."""
    cpu = f", CPU {result['cpu_ratio']:.2f}×" if "cpu_ratio" in result else ""
    print(f"{result['shape']:<12} {result['name']:<48} {ANCHOR} {result['anchor_median_s']:.3f} s, irstats "
          f"{result['irstats_median_s']:.3f} s ({result['ratio']:.2f}×{cpu})", file=sys.stderr)


def max_difference(measures: list, qrels, runs: list, provider) -> float:
    """The largest |irstats − pytrec_eval| over every (run, measure, topic)."""
    import ir_measures

    def values(source, run) -> dict:
        return {(m.query_id, str(m.measure)): m.value for m in source.iter_calc(measures, qrels, run)}

    worst = 0.0
    for run in runs:
        mine, theirs = values(provider, run), values(ir_measures.pytrec_eval, run)
        if mine.keys() != theirs.keys():
            raise SystemExit("irstats and pytrec_eval report different (topic, measure) pairs")
        worst = max([worst, *(abs(mine[k] - v) for k, v in theirs.items())])
    return worst


def warm_rows(qrels_rows: list, runs: dict[str, list], repeat: int, shapes: list[str]) -> list[dict]:
    import ir_measures

    from irstats.integrations import ir_measures as provider_module

    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    irstats = provider_module.IrstatsProvider()
    pytrec = ir_measures.pytrec_eval
    rows = []
    for shape in shapes:
        qrels, shaped = in_shape(qrels_rows, runs, shape)
        difference = max_difference(measures, qrels, shaped, irstats)
        for call, do in (("calc_aggregate", lambda p, r: p.calc_aggregate(measures, qrels, r)),
                         ("iter_calc", lambda p, r: list(p.iter_calc(measures, qrels, r)))):
            times = interleaved({"anchor": lambda: [do(pytrec, r) for r in shaped],
                                 "irstats": lambda: [do(irstats, r) for r in shaped]}, repeat)
            rows.append(row(f"provider.{call}", shape, times["anchor"], times["irstats"],
                            max_abs_difference=difference))
            report(rows[-1])
        registered = registered_provider()

        def through_pipeline(first) -> None:
            with default_pipeline(first):
                for r in shaped:
                    ir_measures.calc_aggregate(measures, qrels, r)

        times = interleaved({"anchor": lambda: through_pipeline(None), "irstats": lambda: through_pipeline(registered)},
                            repeat)
        rows.append(row("ir_measures.calc_aggregate (default pipeline)", shape, times["anchor"], times["irstats"]))
        report(rows[-1])
    return rows


def registered_provider():
    """The provider ``register()`` makes (as a user registers it once), ir_measures' default
    pipeline left as it ships."""
    from irstats.integrations import ir_measures as provider_module

    with default_pipeline(None):
        return provider_module.register()


@contextlib.contextmanager
def default_pipeline(first) -> Iterator[None]:
    """ir_measures' default pipeline with ``first`` in front (None: as it ships), restored after."""
    import ir_measures

    pipeline = ir_measures.DefaultPipeline.providers
    shipped = list(pipeline)
    if first is not None:
        pipeline.insert(0, first)
    try:
        yield
    finally:
        pipeline[:] = shipped


def pyterrier_row(qrels_rows: list, runs: dict[str, list], repeat: int) -> dict | None:
    """pt.Experiment over the runs as DataFrames, without and with irstats registered."""
    try:
        import pandas as pd
        import pyterrier as pt
    except Exception as exc:  # noqa: BLE001 - any failure to import means: not measured here
        print(f"pyterrier does not import ({type(exc).__name__}: {exc}): its row is left out", file=sys.stderr)
        return None
    import ir_measures

    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    qrels = pd.DataFrame([(q.query_id, q.doc_id, q.relevance) for q in qrels_rows], columns=["qid", "docno", "label"])
    systems = []
    for run in runs.values():
        frame = pd.DataFrame([(r.query_id, r.doc_id, r.score) for r in run], columns=["qid", "docno", "score"])
        frame["rank"] = frame.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
        systems.append(frame)
    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": ""})
    names = list(runs)
    registered = registered_provider()

    def experiment(first) -> None:
        with default_pipeline(first):
            pt.Experiment(systems, topics, qrels, eval_metrics=measures, names=names)

    times = interleaved({"anchor": lambda: experiment(None), "irstats": lambda: experiment(registered)}, repeat)
    result = row("pt.Experiment", "dataframes", times["anchor"], times["irstats"],
                 pyterrier=getattr(pt, "__version__", None))
    report(result)
    return result


def first_call_rows(dl19: Path, repeat: int, run_name: str) -> list[dict]:
    """Each provider's first call in fresh processes, interleaved."""
    env = child_env(ROOT / "src")
    run = dl19 / "runs" / f"{run_name}.run.gz"
    if not run.exists():
        raise SystemExit(f"--first-run: no run {run_name!r} in {run.parent.resolve()}")
    argv = {name: [sys.executable, __file__, "--_first-call", name, str(dl19 / "qrels.dl19-passage.txt"), str(run)]
            for name in (ANCHOR, "irstats")}
    for command in argv.values():  # warm-up: OS file cache and bytecode
        subprocess.run(command, env=env, cwd=ROOT, check=True, capture_output=True)
    inside: dict[str, list[dict]] = {name: [] for name in argv}
    whole: dict[str, list[float]] = {name: [] for name in argv}
    for _ in range(repeat):
        for name, command in argv.items():
            start = time.perf_counter()
            done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
            whole[name].append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(command)} failed: {done.stderr[-500:]}")
            inside[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    rows = []
    for part in ("first_call_s", "second_call_s", "import_s"):
        rows.append(row(f"fresh process: {part.removesuffix('_s').replace('_', ' ')}", "namedtuples",
                        [t[part] for t in inside[ANCHOR]], [t[part] for t in inside["irstats"]], run=run_name))
    rows.append(row("fresh process: whole process (imports, reading, two calls)", "namedtuples",
                    whole[ANCHOR], whole["irstats"], run=run_name))
    for r in rows:
        report(r)
    return rows


# ----------------------------------------------------------------------------- output


def print_table(result: dict) -> None:
    """The results as a Markdown table (what update_readme.py writes into bench/README.md)."""
    print(f"| call | input | {ANCHOR} median s | irstats median s | irstats min–max s | {ANCHOR} ÷ irstats | "
          f"CPU: {ANCHOR} ÷ irstats |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in result["results"]:
        cpu = f"{r['cpu_ratio']:.2f}×" if "cpu_ratio" in r else ""
        print(f"| {r['name']} | {r['shape']} | {r['anchor_median_s']:.3f} | {r['irstats_median_s']:.3f} | "
              f"{r['irstats_min_s']:.3f}–{r['irstats_max_s']:.3f} | {r['ratio']:.2f}× | {cpu} |")


def versions() -> dict:
    from importlib import metadata

    found = {}
    for package in ("ir_measures", "pytrec_eval-terrier", "pandas", "numpy", "pyterrier"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = None
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10, help="the first N DL 2019 runs by name (default 10)")
    ap.add_argument("--repeat", type=int, default=9, help="timed trials of each warm call (default 9)")
    ap.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES), help="input shapes (default all)")
    ap.add_argument("--first-repeat", type=int, default=7, help="fresh processes per provider (default 7; 0: none)")
    ap.add_argument("--first-run", default="bm25base_p", help="the run of the first-call children (default bm25base_p)")
    ap.add_argument("--no-pyterrier", action="store_true", help="leave out pt.Experiment")
    ap.add_argument("--json", type=Path, default=HERE / "results" / "ir_measures.json", metavar="FILE")
    ap.add_argument("--dl19", type=Path, default=DEFAULT_DL19, metavar="DIR",
                    help="qrels.dl19-passage.txt and runs/*.run.gz (default tests/data's 14 runs; the recorded "
                         "numbers used all 37 official runs)")
    ap.add_argument("--_first-call", dest="first_call", nargs=3, metavar=("PROVIDER", "QRELS", "RUN"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.first_call:
        sys.argv = [sys.argv[0], *args.first_call]
        exec(FIRST_CALL.format(measures=list(MEASURES)), {"__name__": "__first_call__"})
        return 0
    if not (args.dl19 / "qrels.dl19-passage.txt").exists():
        raise SystemExit(f"DL 2019 data not found in {args.dl19.resolve()}")
    sys.path.insert(0, str(ROOT / "src"))

    qrels, runs, names = load_workload(args.dl19, args.runs)
    results = warm_rows(qrels, runs, args.repeat, args.shapes)
    if not args.no_pyterrier:
        experiment = pyterrier_row(qrels, runs, args.repeat)
        if experiment:
            results.append(experiment)
    if args.first_repeat:
        results += first_call_rows(args.dl19, args.first_repeat, args.first_run)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    result = {"benchmark": "ir_measures", "date": str(date.today()), "commit": commit or None,
              "python": platform.python_version(), "cores": os.cpu_count(), "versions": versions(),
              "runs": names, "lines": sum(len(r) for r in runs.values()), "measures": list(MEASURES),
              "repeat": args.repeat, "first_repeat": args.first_repeat, "results": results}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    print_table(result)
    print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
