#!/usr/bin/env python3
"""Benchmark the depth sweep: every depth k = 1 … 1,000 from one tensor, against
evaluating each depth separately.

Workload: the TREC DL 2019 passage runs of ``--dl19`` (43 topics, up to 1,000 documents per
topic; by default the 14 runs tests/data keeps, the recorded numbers used all 37 official runs),
the pool simulated at d = 10 with every run contributing (METHODS.md §5.5).

Timed, each as the median of ``--repeat`` runs in this process:

``irstats sweep``
    :func:`irstats.depth.simulate_pool` (reading the run files, building the tensor, the
    simulated qrels) + :func:`irstats.depth.sweep` of all eight swept measures (AP,
    AP_min, AP_pool, nDCG, Q(beta=1,norm=min), RBP(p=0.8), RBPresid(p=0.8), ERR) at
    k = 1 … 1,000 in both forms, keeping the per-topic values (runs × 43 × 1,000 per
    measure and form). The volatility statistics (paired t at every depth) are timed
    separately.
``pytrec_eval, per depth``
    for each depth k: one ``RelevanceEvaluator(qrels, {map_cut.k, ndcg_cut.k})`` per form
    (``judged_docs_only_flag`` for the condensed one) over the simulated qrels, and
    ``evaluate`` of every run. pytrec_eval computes only AP@k and nDCG@k of the eight
    measures (it has no RBP, ERR, Q, AP_min or AP_pool), so this is a lower bound on what
    the per-depth route costs. The runs and qrels are parsed into dicts once, untimed.
    Timed on ``--sample`` depths evenly spread over 1 … 1,000 and **extrapolated** to all
    1,000 depths (mean time per depth × 1,000).
``irstats engine, per depth``
    the same per-depth route with irstats' own engine: ``score_judgments`` of the seven
    engine measures at k (``AP@k``, ``AP_min@k`` …) on the prebuilt tensors of both forms
    (reading excluded), on the same sample of depths, extrapolated the same way.
``pytrec_eval, one call``
    for reference: one evaluator per form with all 1,000 cut-offs
    (``map_cut.1,2,…,1000``, ``ndcg_cut.1,…,1000``) — trec_eval's own multi-cut-off
    shortcut, for AP@k and nDCG@k only.

    python bench/bench_volatility.py                   # --repeat 3 --sample 10
    python bench/bench_volatility.py --markdown --output bench/volatility_results.md
"""

from __future__ import annotations

import argparse
import gc
import gzip
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
sys.path.insert(0, str(REPO / "src"))
#: The DL 2019 folder read by default: the 14 runs tests/data keeps (``--dl19 DIR`` for another,
#: such as all 37 official runs; tests/data/trec-dl-2019-passage/README.md says where they come from).
DEFAULT_DL19 = REPO / "tests" / "data" / "trec-dl-2019-passage"
PLAIN_RUNS = BENCH_DIR / "workloads" / "dl19" / "runs"
POOL_DEPTH = 10
MAX_DEPTH = 1000

import irstats  # noqa: E402
from irstats.depth import DEFAULT_SWEEP_MEASURES, condense, simulate_pool, sweep, volatility  # noqa: E402
from irstats.evaluate import score_judgments  # noqa: E402


def run_files(dl19: Path) -> list[Path]:
    """The runs of ``dl19``: plain text from bench/workloads/dl19 where bench_eval.py decompressed every
    one of them there, else the .gz files."""
    runs = sorted((dl19 / "runs").glob("*.run.gz"))
    if not runs:
        sys.exit(f"no DL 2019 runs (*.run.gz) in {dl19 / 'runs'}")
    plain = [PLAIN_RUNS / path.name.removesuffix(".gz") for path in runs]
    return plain if all(path.is_file() for path in plain) else runs


def timed(fn):
    gc.collect()
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def sample_depths(n: int) -> list[int]:
    return sorted(set(int(round(k)) for k in np.linspace(1, MAX_DEPTH, n)))


def read_run_dict(path: Path) -> dict:
    opener = gzip.open if path.suffix == ".gz" else open
    run: dict = {}
    with opener(path, "rt") as handle:
        for line in handle:
            f = line.split()
            if f and not f[0].startswith("#"):
                run.setdefault(f[0], {})[f[2]] = float(f[4])
    return run


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="repeats; medians are reported (default 3)")
    parser.add_argument("--sample", type=int, default=10, help="depths timed for the per-depth routes (default 10)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--output", type=Path, help="also write the report to this file")
    parser.add_argument("--skip-one-call", action="store_true", help="skip the pytrec_eval multi-cut-off variant")
    parser.add_argument("--dl19", type=Path, default=DEFAULT_DL19, metavar="DIR",
                        help="qrels.dl19-passage.txt and runs/*.run.gz (default tests/data's 14 runs; the recorded "
                             "numbers used all 37 official runs)")
    args = parser.parse_args(argv)

    import pytrec_eval

    qrels_path = args.dl19 / "qrels.dl19-passage.txt"
    runs = run_files(args.dl19)
    depths = sample_depths(args.sample)
    rows: dict[str, list[float]] = {k: [] for k in ("pool", "sweep", "stats", "pytrec", "engine", "pytrec_one")}

    # ---- irstats: simulate + sweep all 1,000 depths, then the statistics
    for _ in range(args.repeat):
        t_pool, pool = timed(lambda: simulate_pool(qrels_path, runs, POOL_DEPTH))
        t_sweep, result = timed(lambda: sweep(pool, DEFAULT_SWEEP_MEASURES, "all"))
        t_stats, _ = timed(lambda: volatility(result))
        rows["pool"].append(t_pool)
        rows["sweep"].append(t_sweep)
        rows["stats"].append(t_stats)
        del result
    assert list(sweep(pool, ["ERR"], "all", per_topic=False).depths) == list(range(1, MAX_DEPTH + 1))

    # ---- per-depth routes on a sample of depths
    sim_qrels: dict = {}
    for topic, doc, rel in pool.qrels.iter_rows():
        sim_qrels.setdefault(topic, {})[doc] = int(rel)
    run_dicts = [read_run_dict(p) for p in runs]
    measures = [m for m in DEFAULT_SWEEP_MEASURES if m != "AP_pool"]
    flat = pool.judgments()
    tensors = {False: flat, True: condense(flat)}
    options = {c: irstats.EvalOptions(judged_only=c, g_max=pool.g_max) for c in (False, True)}

    def pytrec_at(k: int) -> None:
        for condensed in (False, True):
            evaluator = pytrec_eval.RelevanceEvaluator(sim_qrels, {f"map_cut.{k}", f"ndcg_cut.{k}"},
                                                       judged_docs_only_flag=condensed)
            for run in run_dicts:
                evaluator.evaluate(run)

    def engine_at(k: int) -> None:
        for condensed in (False, True):
            score_judgments(tensors[condensed], [f"{m}@{k}" for m in measures], options[condensed])

    for _ in range(args.repeat):
        rows["pytrec"].append(sum(timed(lambda: pytrec_at(k))[0] for k in depths) / len(depths) * MAX_DEPTH)
        rows["engine"].append(sum(timed(lambda: engine_at(k))[0] for k in depths) / len(depths) * MAX_DEPTH)

    if not args.skip_one_call:
        cuts = ",".join(str(k) for k in range(1, MAX_DEPTH + 1))

        def pytrec_one() -> None:
            for condensed in (False, True):
                evaluator = pytrec_eval.RelevanceEvaluator(sim_qrels, {f"map_cut.{cuts}", f"ndcg_cut.{cuts}"},
                                                           judged_docs_only_flag=condensed)
                for run in run_dicts:
                    evaluator.evaluate(run)

        for _ in range(args.repeat):
            rows["pytrec_one"].append(timed(pytrec_one)[0])

    med = {k: statistics.median(v) for k, v in rows.items() if v}
    ours = med["pool"] + med["sweep"]
    lines = [
        f"Depth sweep benchmark — TREC DL 2019 passage, {len(runs)} runs × {len(pool.topics)} topics, pool depth "
        f"d = {POOL_DEPTH} (all runs contributing), k = 1 … {MAX_DEPTH}, both forms; median of {args.repeat} "
        f"repeats. Python {platform.python_version()}, numpy {np.__version__}, irstats {irstats.__version__}, "
        f"pytrec_eval-terrier; {platform.machine()}, shared 2-core machine.",
        "",
        "| route | measures | what is timed | seconds | ÷ irstats sweep |",
        "|---|---|---|---:|---:|",
        f"| irstats sweep (simulate_pool + sweep) | 8 | read {len(runs)} runs, tensor, pool, all 1,000 depths × 2 forms, "
        f"per-topic kept | {ours:.2f} | 1.0 |",
        f"| — of which simulate_pool | | read, tensor, simulated qrels | {med['pool']:.2f} | |",
        f"| — of which sweep | | cumulative kernels, 16 series × 1,000 depths | {med['sweep']:.2f} | |",
        f"| irstats volatility statistics | 8 | τ, swaps, crossings, paired t at every depth | {med['stats']:.2f} | |",
        f"| pytrec_eval, one evaluation per depth (**extrapolated** from {len(depths)} depths) | 2 (AP@k, nDCG@k) | "
        f"evaluator + {len(runs)} runs, 2 forms, per depth × 1,000; parsing excluded | {med['pytrec']:.1f} | "
        f"{med['pytrec'] / ours:.0f}× |",
        f"| irstats engine, one evaluation per depth (**extrapolated** from {len(depths)} depths) | 7 | "
        f"score_judgments at k on prebuilt tensors, 2 forms, × 1,000 | {med['engine']:.1f} | "
        f"{med['engine'] / ours:.0f}× |",
    ]
    if "pytrec_one" in med:
        lines.append(f"| pytrec_eval, one call with 1,000 cut-offs | 2 (AP@k, nDCG@k) | 2 forms; parsing excluded | "
                     f"{med['pytrec_one']:.1f} | {med['pytrec_one'] / ours:.1f}× |")
    lines += ["", f"Sampled depths: {', '.join(map(str, depths))}."]
    report = "\n".join(lines) + "\n"
    if not args.markdown:
        report = report.replace("**", "")
    sys.stdout.write(report)
    if args.output:
        args.output.write_text(report)


if __name__ == "__main__":
    main()
