"""Past one machine: what a Dask cluster of local worker processes costs and gives (issue 26).

    python bench/make_workload.py --workloads wide marco      # -> bench/workloads/ (git-ignored)
    python bench/bench_dask.py --json bench/dask_results.json  # the measurements
    python bench/bench_dask.py --jobs robustness volatility intervals --merge bench/dask_results.json
    python bench/bench_dask.py --markdown bench/dask_results.json   # docs/scale.md's table from them

Measured in one process that starts the local cluster of ``--workers k``
(:func:`irstats.distributed.connect`: k processes of one thread each) for k = 1 and 2 (cluster start-up reported apart, never inside a
job), against the same call without a client. The machine is shared, so the trials of one
process, 1 worker and 2 workers are interleaved, and the table gives the best of them with the
median in brackets (every trial is kept in the JSON):

* ``overhead``: the scheduler's cost per task — 400 tasks that do nothing through
  :class:`irstats.distributed.Job` (submit, run, gather, warnings), per task; and one task's
  round trip;
* ``eval dl19``: the DL 2019 runs of ``--dl19`` (default tests/data's 14; the recorded numbers used
  all 37 official runs, and the jobs below that name 37 runs read the same folder), default measures;
* ``eval wide``: 100 runs × 50 topics × 1,000 documents;
* ``eval marco``: 4 runs of MS MARCO dev size (6,980 topics × 1,000 documents, 290 MB of
  text each: the one ``marco`` run under 4 names) — the per-run cost of the projection;
* ``qrels``: the first job on fresh workers with the marco qrels (0.7 M lines) read by each
  worker from their path, or sent from the client as data;
* ``split-half``: 100 systems × 50 topics, 4 methods, 100,000 halvings;
* ``randomization``: compare(test="randomization"), 20,000 resamples, the 37 DL 2019 runs'
  AP (666 pairs);
* ``robustness``: standardization_robustness of the 37 DL 2019 runs' AP, every sample size
  2..37, 2,000 samples each (72,000 samples);
* ``volatility``: volatility() of the depth sweep of the 37 DL 2019 runs (AP, both forms, the
  default depth grid), randomisation test with 1,000 resamples at every distinct depth;
* ``intervals``: compare(interval="bca") of the 37 DL 2019 runs' AP, 200,000 resamples;
* ``bigrun``: one generated run of about 1 GB (``--bigrun-gb``; bench_bigrun.py's workload:
  75,000 topics × 325 documents, the 600,000-line qrels, written in a temporary folder and
  deleted), which one process reads a block of topics at a time and a cluster cuts into byte
  ranges between topics, a task each: ``irstats eval QRELS RUN`` as a fresh process without a
  cluster, with ``--workers 1`` and with ``--workers 2`` (cluster start-up included: it is the
  command), interleaved, median of ``--repeat``; wall seconds, the peak resident memory of the
  command's process (the client) and of each worker process (``VmHWM``, read from /proc while
  they live), and the three outputs compared byte for byte. ``--bigrun-shuffled``: the same
  lines in random order too (the client sorts the run by blocks and sends the parts).

* ``client``: whole commands as a user types them, per workload (``--client-workloads``:
  ``wide``, 100 runs × 50 topics × 1,000 documents, ``irstats eval QRELS RUNS -m all_trec -q
  --format trec_eval``; ``wide400``, the same on the 100 runs four times, retagged; ``bigrun``,
  one run of ``--bigrun-gb`` GB written topic by topic,
  ``irstats eval -m AP -m nDCG@10 -m P@10 -q``; and the resampling commands of :data:`RESAMPLING`,
  ``splithalf``, ``predictive``, ``randomization``, ``bootstrap`` and ``intervals``, on the
  100 × 50 score file of bench_splithalf): a fresh process each, one process and
  ``--workers k`` for k in ``--worker-counts`` (default 1, 2, and 4, 8, 15 where the machine has
  that many cores), interleaved, median of ``--repeat``; wall seconds and the command's own CPU
  time (``getrusage(RUSAGE_SELF)`` at its exit: the client alone — the local cluster ``--workers``
  starts, its scheduler and workers, runs in processes of its own), the client's share (its CPU ÷
  the one process's),
  and the outputs compared byte for byte (issue 36: the client only assigns and gathers).
  ``--scheduler-apart`` adds the most workers of a cluster started beforehand (``--scheduler
  ADDRESS``: no cluster start-up in the command);
  ``--src DIR`` measures another source tree (an older commit unpacked with ``git archive``);
  ``--doc`` writes the table into docs/scale.md between its ``dask-cli`` markers.

Every cluster result is checked equal to the single process's before it is timed. ``--merge
JSON`` adds the jobs measured to an earlier JSON (each job keeps the load and commit it was
measured at), so one job can be measured again without the others.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOADS = HERE / "workloads"
#: The DL 2019 folder read by default: the 14 runs tests/data keeps (``--dl19 DIR`` for another, such
#: as all 37 official runs; tests/data/trec-dl-2019-passage/README.md says where they come from).
DEFAULT_DL19 = HERE.parent / "tests" / "data" / "trec-dl-2019-passage"


def _noop(i):
    return i


def _peak_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(function, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        out.append(time.perf_counter() - started)
    return out


def cluster(workers: int):
    """The local cluster ``--workers`` makes (irstats.distributed.connect): (its closer, the client,
    seconds to start it)."""
    from contextlib import ExitStack

    from irstats.distributed import connect

    started = time.perf_counter()
    stack = ExitStack()
    client = stack.enter_context(connect(workers=workers))
    return stack, client, time.perf_counter() - started


def marco_runs(folder: Path) -> list[str]:
    """The marco run under 4 names (symbolic links: the same 290 MB read 4 times)."""
    source = WORKLOADS / "marco" / "runs" / "sys000.run"
    paths = []
    for k in range(4):
        link = folder / f"copy{k}.run"
        if not link.exists():
            link.symlink_to(source)
        paths.append(str(link))
    return paths


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, help="write the measurements here")
    ap.add_argument("--merge", type=Path, metavar="JSON", help="add the jobs measured to this JSON (rewritten)")
    ap.add_argument("--markdown", type=Path, metavar="JSON", help="print docs/scale.md's table from this JSON")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", nargs="+", default=["overhead", "dl19", "wide", "marco", "qrels", "splithalf",
                                                    "randomization", "robustness", "volatility", "intervals",
                                                    "bigrun"])
    ap.add_argument("--bigrun-gb", type=float, default=1.0, help="size of the bigrun job's run (GB)")
    ap.add_argument("--bigrun-topics", type=int, default=75_000, help="topics of the bigrun and client bigrun runs")
    ap.add_argument("--bigrun-depth", type=int, help="client bigrun: documents per topic (instead of --bigrun-gb)")
    ap.add_argument("--bigrun-shuffled", action="store_true", help="bigrun: also the run with its lines shuffled")
    ap.add_argument("--dl19", type=Path, default=DEFAULT_DL19, metavar="DIR",
                    help="qrels.dl19-passage.txt and runs/*.run.gz (default tests/data's 14 runs; the recorded "
                         "numbers used all 37 official runs)")
    ap.add_argument("--client-workloads", nargs="+", default=["wide"],
                    choices=["wide", "wide400", "bigrun", *RESAMPLING])
    ap.add_argument("--worker-counts", type=int, nargs="+",
                    default=[k for k in (1, 2, 4, 8, 15) if k <= 2 or k < (os.cpu_count() or 1)])
    ap.add_argument("--src", type=Path, default=HERE.parent / "src", help="the source tree the commands run")
    ap.add_argument("--scheduler-apart", action="store_true",
                    help="client: also the most workers with their scheduler in a process of its own (--scheduler)")
    ap.add_argument("--doc", action="store_true", help="write the client table into docs/scale.md")
    ap.add_argument("--_child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._child:  # one command, its own CPU time written to the file named first
        return _client_child(args._child[0], args._child[1:])
    if args.markdown:
        results = json.loads(args.markdown.read_text())
        print(markdown(results))
        if args.doc and "client" in results:
            write_doc(results["client"])
        return
    if args.jobs == ["client"]:  # fresh processes only: nothing to set up here
        results = {"machine": {"cores": os.cpu_count(), "load_before": os.getloadavg()}, "jobs": {},
                   "client": client_job(args)}
        results["machine"]["load_after"] = os.getloadavg()
        finish(args, results)
        if args.doc:
            write_doc(results["client"])
        return
    if args.jobs == ["bigrun"]:  # fresh processes only: nothing to set up here
        results = {"machine": {"cores": os.cpu_count(), "load_before": os.getloadavg()}, "jobs": {},
                   "bigrun": bigrun(args.bigrun_gb, args.repeat, args.bigrun_shuffled)}
        results["machine"]["load_after"] = os.getloadavg()
        return finish(args, results)
    import warnings

    import numpy as np

    import irstats
    from irstats.depth import depth_sweep
    from irstats.depth.volatility import volatility
    from irstats.distributed import Job
    from irstats.meta.robustness import standardization_robustness
    from irstats.meta.splithalf import split_half
    from irstats.scores import ScoreMatrix
    from irstats.stats.compare import compare

    warnings.simplefilter("ignore")
    scratch = Path(tempfile.mkdtemp(prefix="bench-dask-"))
    qrels = {"dl19": args.dl19 / "qrels.dl19-passage.txt", "wide": WORKLOADS / "wide" / "qrels.txt",
             "marco": WORKLOADS / "marco" / "qrels.txt"}
    runs = {"dl19": sorted(str(p) for p in (args.dl19 / "runs").glob("*.run.gz")),
            "wide": sorted(str(p) for p in (WORKLOADS / "wide" / "runs").glob("*.run")),
            "marco": marco_runs(scratch) if "marco" in args.jobs else []}
    rng = np.random.default_rng(0)
    matrix = ScoreMatrix(rng.beta(2, 5, (100, 50)), [f"s{i:03d}" for i in range(100)],
                         [f"t{j:02d}" for j in range(50)], "AP")
    resampled = {"randomization", "robustness", "intervals"} & set(args.jobs)
    dl19_ap = irstats.evaluate(qrels["dl19"], runs["dl19"], ["AP"]) if resampled else None
    dl19_sweep = (depth_sweep(qrels["dl19"], runs["dl19"], ["AP"], pool_depth=10) if "volatility" in args.jobs
                  else None)

    def job(name, client):
        if name in ("dl19", "wide", "marco"):
            return irstats.evaluate(qrels[name], runs[name], client=client)
        if name == "splithalf":
            return split_half(matrix, ["am", "egm", "gm_trec_eval", "median"], n_splits=100_000, seed=0,
                              progress=False, client=client).values
        if name == "randomization":
            return compare(dl19_ap, test="randomization", n_resamples=20_000, seed=0, client=client).frame
        if name == "robustness":
            return standardization_robustness(dl19_ap["AP"], n_samples=2000, progress=False, client=client).taus
        if name == "volatility":
            return volatility(dl19_sweep, test="randomization", n_resamples=1000, progress=False,
                              client=client).by_depth
        if name == "intervals":
            return compare(dl19_ap, interval="bca", n_resamples=200_000, client=client).frame

    def same(a, b) -> bool:
        if isinstance(a, dict):
            return all(np.array_equal(a[m].values, b[m].values, equal_nan=True) for m in a)
        if isinstance(a, np.ndarray):
            return np.array_equal(a, b, equal_nan=True)
        return a.equals(b)

    results = {"machine": {"cores": os.cpu_count(), "load_before": os.getloadavg()}, "jobs": {}}
    timed_jobs = [j for j in args.jobs if j in ("dl19", "wide", "marco", "splithalf", "randomization", "robustness",
                                                  "volatility", "intervals")]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    clusters = {}
    try:
        for workers in (1, 2):
            local, client, start = cluster(workers)
            clusters[workers] = (local, client)
            results.setdefault("cluster_start", {})[str(workers)] = start
        for name in timed_jobs:
            reference = job(name, None)  # warm: imports, page cache
            record = results["jobs"][name] = {"commit": commit, "load_before": os.getloadavg(), "local": []}
            for workers, (_, client) in clusters.items():
                cold = time.perf_counter()
                assert same(job(name, client), reference), name  # first: the workers read the qrels
                record[f"workers_{workers}_first"] = time.perf_counter() - cold
                record[f"workers_{workers}"] = []
            for _ in range(args.repeat):  # interleaved: the machine is shared, drift hits all alike
                record["local"] += timed(lambda: job(name, None), 1)
                for workers, (_, client) in clusters.items():
                    record[f"workers_{workers}"] += timed(lambda: job(name, client), 1)
            print(name, record, file=sys.stderr)
        for workers, (_, client) in clusters.items():  # what the jobs above took at most, per worker
            results.setdefault("worker_peak_mib", {})[str(workers)] = max(client.run(_peak_mib).values())
        if "overhead" in args.jobs:
            for workers, (_, client) in clusters.items():
                def many():
                    j = Job(client, "noop")
                    for i in range(400):
                        j.submit(f"noop {i}", _noop, i)
                    j.run()
                many()
                per = [t / 400 for t in timed(many, args.repeat)]
                one = timed(lambda: client.submit(_noop, 1, pure=False).result(), 20)
                results.setdefault("overhead", {})[str(workers)] = {"per_task": per, "round_trip": one}
                print("overhead", workers, per, statistics.median(one), file=sys.stderr)
    finally:
        for stack, _ in clusters.values():
            stack.close()
    if "qrels" in args.jobs:  # fresh workers each time: the first job pays for the qrels
        frame = irstats.Collection.load(qrels["marco"]).qrels
        probe = [str(p) for p in sorted((WORKLOADS / "marco" / "runs").glob("*.run"))[:1]]
        out = {"path": [], "data": [], "local": []}
        for _ in range(args.repeat):
            for how, source in (("path", qrels["marco"]), ("data", frame)):
                local, client, _ = cluster(2)
                try:
                    irstats.evaluate(qrels["dl19"], runs["dl19"][:2], ["AP"], client=client)  # workers warm
                    started = time.perf_counter()
                    irstats.evaluate(source, probe, ["AP"], client=client)
                    out[how].append(time.perf_counter() - started)
                finally:
                    local.close()
            out["local"] += timed(lambda: irstats.evaluate(qrels["marco"], probe, ["AP"]), 1)
            print("qrels", out, file=sys.stderr)
        results["qrels"] = out
    if "bigrun" in args.jobs:
        results["bigrun"] = bigrun(args.bigrun_gb, args.repeat, args.bigrun_shuffled)
    results["machine"]["load_after"] = os.getloadavg()
    finish(args, results)


#: The client job's resampling workloads: (the command, its score file put second; the label).
#: The score file is bench_splithalf's 100 systems × 50 topics of AP (bench_startup.score_file).
#: Sized for a cluster: one process takes 7–25 CPU s (at 100,000 halvings or 20,000 resamples,
#: 2–5 s, the client's fixed costs — the interpreter, Dask's import — were a fifth to a third).
RESAMPLING = {
    "splithalf": (["splithalf", "-m", "AP", "-n", "400000", "--seed", "1"],
                  "`splithalf -n 400000`, 100 systems × 50 topics, 4 methods"),
    "predictive": (["predictive", "-m", "AP", "-n", "400000", "--seed", "1"],
                   "`predictive -n 400000`, 100 systems × 50 topics"),
    "randomization": (["compare", "-m", "AP", "--test", "randomization", "-n", "100000", "--seed", "1"],
                      "`compare --test randomization -n 100000`, 100 systems × 50 topics"),
    "bootstrap": (["compare", "-m", "AP", "--test", "bootstrap", "-n", "20000", "--seed", "1"],
                  "`compare --test bootstrap -n 20000`, 100 systems × 50 topics"),
    "intervals": (["compare", "-m", "AP", "--interval", "bca", "-n", "100000", "--seed", "1"],
                  "`compare --interval bca -n 100000`, 100 systems × 50 topics"),
}


def _client_child(report: str, argv: list[str]) -> None:
    """``irstats ARGV`` in this process; at its exit, this process's own CPU seconds (user +
    system: the client and the scheduler of a local cluster, never its worker processes)
    written to ``report``."""
    import atexit
    import resource

    def written() -> None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        Path(report).write_text(f"{usage.ru_utime + usage.ru_stime}\n")

    atexit.register(written)
    from irstats.cli.main import main as irstats_main

    irstats_main(argv)


def client_job(args) -> dict:
    """The ``client`` job (see the module): per workload, {configuration: trials}, each trial
    wall seconds, the command's own CPU seconds and its exit code."""
    import shutil

    sys.path.insert(0, str(HERE))
    from bench_startup import child_env

    env = child_env(args.src.resolve())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    folder = Path(tempfile.mkdtemp(prefix="irstats-bench-client-"))
    out: dict = {"commit": commit, "src": str(args.src), "repeat": args.repeat, "cores": os.cpu_count(),
                 "workloads": {}}
    # the same workers with their scheduler in a process of its own (as --scheduler finds one): the
    # client's CPU without the scheduler's
    scheduler = _scheduler_apart(max(args.worker_counts), folder, env) if args.scheduler_apart else None
    try:
        for workload in args.client_workloads:
            if workload in ("wide", "wide400"):
                wide = WORKLOADS / "wide" if workload == "wide" else wide400()
                command = ["eval", str(wide / "qrels.txt"), str(wide / "runs"), "-m", "all_trec", "-q",
                           "--format", "trec_eval"]
                label = f"`eval -q -m all_trec --format trec_eval`, {len(list((wide / 'runs').glob('*.run')))} " \
                        "`wide` runs (50 topics × 1,000)"
            elif workload in RESAMPLING:
                from bench_startup import score_file

                command, label = RESAMPLING[workload]
                command = [command[0], str(score_file(folder, env)), *command[1:]]
            else:
                from bench_bigrun import LINE_BYTES, generate

                topics = args.bigrun_topics
                generate("qrels", folder / "qrels.txt", topics=topics)
                depth = args.bigrun_depth or max(1, round(args.bigrun_gb * 1e9 / LINE_BYTES / topics))
                generate("sorted", folder / "big.run", depth, topics)
                command = ["eval", str(folder / "qrels.txt"), str(folder / "big.run"), "-m", "AP", "-m", "nDCG@10",
                           "-m", "P@10", "-q"]
                label = f"`eval -m AP -m nDCG@10 -m P@10 -q`, one run of " \
                        f"{(folder / 'big.run').stat().st_size / 1e9:.2f} GB ({topics:,} topics × {depth})"
            configurations = {"one process": command,
                              **{f"{k} workers": [*command, "--workers", str(k)] for k in args.worker_counts}}
            if "-q" in command and workload != "bigrun":  # the output's cost: the same evaluation, means only
                configurations["means only"] = [a for a in command if a != "-q"]
            if scheduler is not None:
                configurations[f"{max(args.worker_counts)} workers, scheduler apart"] = [
                    *command, "--scheduler", scheduler[1]]
            record = out["workloads"][workload] = {"label": label, "load_before": os.getloadavg(),
                                                   **{name: [] for name in configurations}}
            outputs = {}
            for _ in range(args.repeat):  # interleaved: the machine is shared, drift hits all alike
                for name, argv in configurations.items():
                    report, target = folder / "cpu.txt", folder / "out.txt"
                    started = time.perf_counter()
                    with open(target, "wb") as sink:
                        code = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--_child", str(report),
                                               *argv], env=env, stdout=sink, stderr=subprocess.DEVNULL).returncode
                    trial = {"seconds": time.perf_counter() - started, "exit": code,
                             "client_cpu": float(report.read_text()) if report.exists() else None}
                    report.unlink(missing_ok=True)
                    record[name].append(trial)
                    outputs[name] = target.read_bytes()
                    print("client", workload, name, trial, file=sys.stderr)
            outputs.pop("means only", None)
            record["same_output"] = len(set(outputs.values())) == 1 and all(
                t["exit"] == 0 for name in configurations for t in record[name])
            record["load_after"] = os.getloadavg()
    finally:
        if scheduler is not None:
            scheduler[0].terminate()
            scheduler[0].wait()
        shutil.rmtree(folder, ignore_errors=True)
    return out


SCHEDULER_APART = """
import logging, sys, time
from distributed import LocalCluster
if __name__ == "__main__":
    cluster = LocalCluster(n_workers=int(sys.argv[1]), threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.CRITICAL)
    print(cluster.scheduler_address, flush=True)
    sys.stdin.read()  # until the bench closes it
    cluster.close()
"""


def _scheduler_apart(workers: int, folder: Path, env: dict):
    """A local cluster of ``workers`` started by a process of its own: (the process, its address)."""
    script = folder / "scheduler_apart.py"
    script.write_text(SCHEDULER_APART)
    proc = subprocess.Popen([sys.executable, str(script), str(workers)], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc, proc.stdout.readline().strip()


def wide400() -> Path:
    """bench/workloads/wide400: the 100 ``wide`` runs four times (``sysNNNcK``, K = 0..3: each copy
    retagged, so that they are 400 runs), the ``wide`` qrels — the issue's 400-run workload."""
    folder = WORKLOADS / "wide400"
    runs = folder / "runs"
    sources = sorted((WORKLOADS / "wide" / "runs").glob("*.run"))
    if len(list(runs.glob("*.run"))) != 4 * len(sources):
        runs.mkdir(parents=True, exist_ok=True)
        (folder / "qrels.txt").write_bytes((WORKLOADS / "wide" / "qrels.txt").read_bytes())
        for source in sources:
            text = source.read_bytes()
            for k in range(4):
                tag = f"{source.stem}c{k}".encode()
                (runs / f"{source.stem}c{k}.run").write_bytes(text.replace(b" " + source.stem.encode() + b"\n",
                                                                           b" " + tag + b"\n"))
    return folder


def client_markdown(c: dict) -> str:
    """docs/scale.md's table of the client job: median wall seconds per configuration, and the
    client's CPU time (median) as a share of the one process's."""
    workloads = c["workloads"]
    configurations = list(dict.fromkeys(k for record in workloads.values() for k in record
                                        if k == "one process" or " workers" in k))

    def heading(k: str) -> str:
        if k == "one process":
            return k
        return f"`--scheduler` ({k.split()[0]} workers apart)" if "apart" in k else f"`--workers {k.split()[0]}`"

    head = ["workload", *(heading(k) for k in configurations)]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(configurations)]
    for record in workloads.values():
        local_cpu = _med([t["client_cpu"] for t in record["one process"]])
        cells = []
        for k in configurations:
            if k not in record:
                cells.append("–")
                continue
            seconds = _med([t["seconds"] for t in record[k]])
            cpu = _med([t["client_cpu"] for t in record[k]])
            cells.append(f"{seconds:.1f} s" + ("" if k == "one process" else f" (client {100 * cpu / local_cpu:.0f}%)"))
        lines.append(f"| {record['label']} | {' | '.join(cells)} |")
    notes = [f"{r['label']}: one process {_med([t['client_cpu'] for t in r['one process']]):.2f} CPU s"
             + (f" ({output_cost(r):.2f}× the CPU of the same evaluation without `-q`)" if "means only" in r else "")
             + f"; same output {r['same_output']}; load average {r['load_before'][0]:.1f} before, "
               f"{r['load_after'][0]:.1f} after"
             for r in workloads.values()]
    return "\n".join(lines) + "\n\n" + "\n".join(f"- {n}" for n in notes) + \
        f"\n- {c['cores']} cores; median of {c['repeat']} fresh processes, interleaved; commit {c['commit']}\n"


def output_cost(record: dict) -> float:
    """What the per-topic output costs one process: the median over the interleaved repeats of its
    CPU with ``-q`` over its CPU for the means alone (issue 36's target: at most 1.25)."""
    return statistics.median(q["client_cpu"] / m["client_cpu"]
                             for q, m in zip(record["one process"], record["means only"]))


CLIENT_START, CLIENT_END = "<!-- dask-cli:start -->", "<!-- dask-cli:end -->"


def write_doc(c: dict) -> None:
    """docs/scale.md's client table (between its dask-cli markers) from the JSON."""
    doc = HERE.parent / "docs" / "scale.md"
    text = doc.read_text()
    start, end = text.index(CLIENT_START) + len(CLIENT_START), text.index(CLIENT_END)
    doc.write_text(text[:start] + "\n" + client_markdown(c) + text[end:])


def finish(args, results: dict) -> None:
    """Write the JSON (``--json``, or merged into ``--merge``) and print the tables."""
    if args.merge:  # these jobs measured now (each with its load and commit); everything else as it was
        earlier = json.loads(args.merge.read_text())
        earlier["jobs"].update(results["jobs"])
        if "client" in results and "client" in earlier:  # the client job: by workload, each as measured last
            results["client"]["workloads"] = {**earlier["client"]["workloads"], **results["client"]["workloads"]}
        earlier.update({key: results[key] for key in ("overhead", "qrels", "bigrun", "client") if key in results})
        peaks = earlier.setdefault("worker_peak_mib", {})
        for workers, peak in results.get("worker_peak_mib", {}).items():  # the most over every job
            peaks[workers] = max(peak, peaks.get(workers, 0.0))
        results = earlier
    text = json.dumps(results, indent=1)
    for path in (args.json, args.merge):
        if path:
            path.write_text(text + "\n")
    print(markdown(results))


def _watch(pid: int, peaks: dict, stop) -> None:
    """Until ``stop`` is set: the peak resident memory (VmHWM, MiB) of ``pid`` and of each process
    it starts (the local cluster's nanny and worker processes), by pid and command line."""
    import psutil

    try:
        root = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    while not stop.is_set():
        try:
            processes = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        for process in processes:
            try:
                with open(f"/proc/{process.pid}/status") as fh:
                    hwm = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")) / 1024
                name = " ".join(process.cmdline())[:200]
            except (OSError, StopIteration, psutil.Error):
                continue
            peaks[process.pid] = (max(hwm, peaks.get(process.pid, (0.0, ""))[0]), name)
        stop.wait(0.05)


def _bigrun_trial(command: list[str], out: Path) -> dict:
    """One fresh ``irstats eval`` process: wall seconds, exit code, the client's peak memory and
    that of its worker processes (the most of any, and every one)."""
    import threading

    from bench_topics import child_env

    started = time.perf_counter()
    with open(out, "wb") as sink:
        proc = subprocess.Popen(command, env=child_env(), stdout=sink, stderr=subprocess.DEVNULL)
        peaks: dict = {}
        stop = threading.Event()
        watcher = threading.Thread(target=_watch, args=(proc.pid, peaks, stop), daemon=True)
        watcher.start()
        _, status, usage = os.wait4(proc.pid, 0)
        stop.set()
        watcher.join()
    seconds = time.perf_counter() - started
    workers = [hwm for pid, (hwm, name) in peaks.items() if pid != proc.pid and "spawn_main" in name
               and "resource_tracker" not in name]
    # the command's own VmHWM: wait4's ru_maxrss is the most of it and of the children it waited for
    client = peaks.get(proc.pid, (usage.ru_maxrss / 1024,))[0]
    return {"seconds": seconds, "exit": os.waitstatus_to_exitcode(status), "client_peak_mib": client,
            "worker_peaks_mib": sorted(workers), "worker_peak_mib": max(workers, default=None)}


def bigrun(gb: float, repeat: int, shuffled: bool) -> dict:
    """The ``bigrun`` job (see the module): {"sorted"[, "shuffled"]: {configuration: trials, …}}."""
    import shutil

    sys.path.insert(0, str(HERE))
    from bench_bigrun import LINE_BYTES, TOPICS, generate

    folder = Path(tempfile.mkdtemp(prefix="irstats-bench-dask-"))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE).stdout.strip()
    out: dict = {"gb": gb, "topics": TOPICS, "repeat": repeat, "commit": commit}
    try:
        qrels = folder / "qrels.txt"
        generate("qrels", qrels)
        depth = max(1, round(gb * 1e9 / LINE_BYTES / TOPICS))
        for kind in ("sorted", "shuffled") if shuffled else ("sorted",):
            run_file = folder / f"{kind}.run"
            generate(kind, run_file, depth)
            base = [sys.executable, "-m", "irstats", "eval", str(qrels), str(run_file)]
            configurations = {"one process": base, "1 worker": [*base, "--workers", "1"],
                              "2 workers": [*base, "--workers", "2"]}
            record = out[kind] = {"run_gb": run_file.stat().st_size / 1e9, "docs_per_topic": depth,
                                  "load_before": os.getloadavg(), **{name: [] for name in configurations}}
            outputs = {}
            for _ in range(repeat):  # interleaved: the machine is shared, drift hits all alike
                for name, command in configurations.items():
                    target = folder / "out.txt"
                    record[name].append(_bigrun_trial(command, target))
                    outputs[name] = target.read_bytes()
                    print("bigrun", kind, name, record[name][-1], file=sys.stderr)
            outputs.pop("means only", None)
            record["same_output"] = len(set(outputs.values())) == 1 and all(
                t["exit"] == 0 for name in configurations for t in record[name])
            record["load_after"] = os.getloadavg()
            run_file.unlink()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


def _med(values) -> float:
    return statistics.median(values)


def _best(values) -> float:
    return min(values)


def markdown(r: dict) -> str:
    """docs/scale.md's tables, from the JSON."""
    names = {"dl19": "eval, 37 DL 2019 runs (43 judged topics, 1.4 M lines)",
             "wide": "eval, 100 `wide` runs (50 topics × 1,000)",
             "marco": "eval, 4 MS MARCO-sized runs (6,980 topics × 1,000; 290 MB each)",
             "splithalf": "split-half, 100 × 50, 4 methods, 100,000 halvings",
             "randomization": "randomisation test, 37 runs (666 pairs), 20,000 resamples",
             "robustness": "robustness, 37 runs' AP, sizes 2–37 × 2,000 samples",
             "volatility": "volatility, 37 runs' AP sweep (2 forms × 38 depths), randomisation, 1,000 resamples",
             "intervals": "compare --interval bca, 37 runs' AP, 200,000 resamples"}
    lines = ["| job | one process | 1 worker | 2 workers | 2 workers, first job |", "|---|---:|---:|---:|---:|"]
    for name, label in names.items():
        job = r["jobs"].get(name)
        if not job or "workers_2" not in job:
            continue
        cells = [f"{_best(job[k]):.2f} s ({_med(job[k]):.2f})" for k in ("local", "workers_1", "workers_2")]
        lines.append(f"| {label} | {' | '.join(cells)} | {job['workers_2_first']:.2f} s |")
    out = "\n".join(lines) if len(lines) > 2 else ""
    extra = []
    if "cluster_start" in r:
        extra.append("cluster start-up (not in the jobs above): " + ", ".join(
            f"{k} worker{'s' if k != '1' else ''} {v:.2f} s" for k, v in r["cluster_start"].items()))
    if "overhead" in r:
        extra.append("scheduler overhead per task (400 empty tasks through irstats' Job): " + ", ".join(
            f"{k} worker{'s' if k != '1' else ''} {1000 * _best(v['per_task']):.2f} ms" for k, v in r["overhead"].items())
            + "; one task's round trip: " + ", ".join(
            f"{1000 * _med(v['round_trip']):.1f} ms" for v in r["overhead"].values()))
    if "qrels" in r:
        q = r["qrels"]
        extra.append(f"MS MARCO qrels (0.7 M lines), first job on fresh workers with one marco run: read from their "
                     f"path by each worker {_best(q['path']):.2f} s, sent as data {_best(q['data']):.2f} s "
                     f"(one process: {_best(q['local']):.2f} s)")
    if "worker_peak_mib" in r:
        extra.append("peak resident memory of a worker over these jobs: " + ", ".join(
            f"{k} worker{'s' if k != '1' else ''} {v:.0f} MiB" for k, v in r["worker_peak_mib"].items()))
    if "bigrun" in r:
        out += "\n\n" + bigrun_markdown(r["bigrun"])
    if "client" in r:
        out += "\n\n" + client_markdown(r["client"])
    load = r.get("machine", {})
    if load:
        extra.append(f"machine: {load.get('cores')} cores; load average before {load['load_before'][0]:.1f}, "
                     f"after {load.get('load_after', [float('nan')])[0]:.1f}")
    return out + "\n\n" + "\n".join(f"- {e}" for e in extra)


def bigrun_markdown(b: dict) -> str:
    """docs/scale.md's table of the bigrun job: median wall seconds, the command's and the largest
    worker's peak memory."""
    lines = ["| run | | one process | `--workers 1` | `--workers 2` |", "|---|---|---:|---:|---:|"]
    for kind, how in (("sorted", "written topic by topic"), ("shuffled", "lines shuffled")):
        record = b.get(kind)
        if not record:
            continue
        configurations = ("one process", "1 worker", "2 workers")
        seconds = [f"{_med([t['seconds'] for t in record[c]]):.1f} s" for c in configurations]
        client = [f"{_med([t['client_peak_mib'] for t in record[c]]):.0f} MiB" for c in configurations]
        worker = ["–"] + [f"{_med([t['worker_peak_mib'] for t in record[c]]):.0f} MiB" for c in configurations[1:]]
        lines += [f"| {record['run_gb']:.2f} GB, {how} | wall | {' | '.join(seconds)} |",
                  f"| | peak memory, the command's process | {' | '.join(client)} |",
                  f"| | peak memory, largest worker | {' | '.join(worker)} |"]
    return "\n".join(lines) + "\n\nbigrun: " + ", ".join(
        f"{kind}: same output {b[kind]['same_output']}, load {b[kind]['load_before'][0]:.1f}–"
        f"{b[kind]['load_after'][0]:.1f}" for kind in ("sorted", "shuffled") if kind in b) + \
        f"; median of {b['repeat']}, commit {b.get('commit')}"

if __name__ == "__main__":
    main()
