#!/usr/bin/env python3
"""Benchmark the irstats evaluation engine against other IR evaluation tools.

Every trial runs in its own fresh Python subprocess (this script re-invoked with
``--_child``).  The child imports its tool, then times -- from just before the first file
is opened until every score is computed -- the evaluation of AP, nDCG@10, P@10, RR and
RBP(p=0.8) for ALL runs of the workload, parsing included.  It reports its own wall time,
CPU time (user+sys, all threads) and peak resident memory (``ru_maxrss`` of
``RUSAGE_SELF``; for trec_eval the largest ``RUSAGE_CHILDREN`` value, i.e. the biggest
trec_eval process).  The parent also records the child's whole lifetime (interpreter
start-up + imports + work), reported as "process s".

Trials are interleaved (one trial of every tool per repeat) so that slow drifts of a
noisy machine hit every tool alike; the table shows medians over repeats.

    python bench/make_workload.py
    python bench/bench_eval.py --workload wide --markdown
    python bench/bench_eval.py --workload dl19 --repeat 3 --trec-eval /path/to/trec_eval
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
DEFAULT_WORKLOADS = BENCH_DIR / "workloads"
#: The DL 2019 folder (qrels.dl19-passage.txt, runs/*.run.gz) the dl19 workload reads by default: the 14
#: runs tests/data keeps. The recorded dl19 numbers used all 37 official runs: ``--dl19 DIR`` with
#: them (tests/data/trec-dl-2019-passage/README.md says where they come from).
DEFAULT_DL19 = REPO / "tests" / "data" / "trec-dl-2019-passage"

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)"]
ALL_TOOLS = ["irstats", "pytrec_eval", "ranx", "ranx-cold", "ir_measures", "trec_eval", "load-polars", "load-pyarrow"]
LOADERS = ("load-polars", "load-pyarrow")
RESULT_MARK = "@@BENCH_RESULT@@"

# How each tool names the five measures.  None = the tool cannot compute it.
TOOL_MEASURES = {
    "irstats": dict(zip(MEASURES, MEASURES)),
    "pytrec_eval": {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank", "RBP(p=0.8)": None},
    # ranx parses "rbp.8" as p = float("0." + "8"); "rbp.0.8" would silently mean p = 0.0
    "ranx": {"AP": "map", "nDCG@10": "ndcg@10", "P@10": "precision@10", "RR": "mrr", "RBP(p=0.8)": "rbp.8"},
    "ir_measures": {"AP": "AP", "nDCG@10": "nDCG@10", "P@10": "P@10", "RR": "RR", "RBP(p=0.8)": "RBP(p=0.8)"},
    "trec_eval": {"AP": "map", "nDCG@10": "ndcg_cut.10", "P@10": "P.10", "RR": "recip_rank", "RBP(p=0.8)": "rbp.p=0.8"},
}


# ======================================================================================
# child side: everything here runs inside the fresh subprocess
# ======================================================================================


def _rss_now_mib() -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def _maxrss_mib(who: int) -> float:
    kib = resource.getrusage(who).ru_maxrss
    return kib / 1024 if sys.platform != "darwin" else kib / 2**20


def _cpu(who: int) -> float:
    ru = resource.getrusage(who)
    return ru.ru_utime + ru.ru_stime


def _sniff_sep(path: str) -> str:
    with open(path, "rb") as f:
        head = f.readline()
    return "\t" if b"\t" in head else " "


class _Timer:
    """Brackets the measured region: wall + CPU of this process (and its children)."""

    def __enter__(self):
        self.cpu0 = _cpu(resource.RUSAGE_SELF) + _cpu(resource.RUSAGE_CHILDREN)
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.t0
        self.cpu = _cpu(resource.RUSAGE_SELF) + _cpu(resource.RUSAGE_CHILDREN) - self.cpu0
        return False


def _means_from_per_query(per_query: dict, names: dict) -> dict:
    """pytrec_eval-style {qid: {measure: value}} -> {canonical measure: mean over topics}."""
    out = {}
    for canon, native in names.items():
        vals = [m[native] for m in per_query.values() if native in m]
        out[canon] = sum(vals) / len(vals) if vals else float("nan")
    return out


def _grand(per_run: list[dict]) -> dict:
    """Mean over runs of each run's mean score (a cheap cross-tool sanity check)."""
    keys = per_run[0].keys() if per_run else []
    return {k: sum(r[k] for r in per_run) / len(per_run) for k in keys}


def child_irstats(spec, res):
    t = time.perf_counter()
    try:
        import irstats
    except ImportError as e:
        raise SystemExit(f"irstats is not importable ({e}); install the package (pip install -e .) first")
    if not hasattr(irstats, "evaluate"):
        raise SystemExit(f"irstats ({getattr(irstats, '__file__', '?')}) has no evaluate() yet")
    res["import_s"] = time.perf_counter() - t
    res["rss_after_import_mib"] = _rss_now_mib()
    measures = list(MEASURES)
    res["measures"] = measures
    with _Timer() as tm:
        out = irstats.evaluate(spec["qrels"], spec["runs"], measures)
    res["eval_s"], res["cpu_s"] = tm.wall, tm.cpu
    # outside the timed region: best-effort grand means for the agreement check
    try:
        import numpy as np

        grand = {}
        for name, sm in out.items():
            arr = None
            for attr in ("values", "matrix", "scores", "data", "array"):
                v = getattr(sm, attr, None)
                if v is not None and not callable(v):
                    arr = np.asarray(v, dtype=float)
                    break
            if arr is None and hasattr(sm, "to_numpy"):
                arr = np.asarray(sm.to_numpy(), dtype=float)
            if arr is None:
                arr = np.asarray(sm, dtype=float)
            grand[str(name)] = float(np.nanmean(np.nanmean(arr, axis=-1)))
        res["grand_means"] = grand
    except Exception as e:  # the ScoreMatrix API may differ; not part of the benchmark
        res["notes"].append(f"grand means unavailable ({type(e).__name__}: {e})")


def child_pytrec_eval(spec, res):
    t = time.perf_counter()
    import pytrec_eval

    res["import_s"] = time.perf_counter() - t
    res["rss_after_import_mib"] = _rss_now_mib()
    names = {k: v for k, v in TOOL_MEASURES["pytrec_eval"].items() if v}
    res["measures"] = list(names)
    res["notes"].append("no RBP in pytrec_eval")
    per_run = []
    with _Timer() as tm:
        with open(spec["qrels"]) as f:
            qrels = pytrec_eval.parse_qrel(f)
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(names.values()))
        for path in spec["runs"]:
            with open(path) as f:
                run = pytrec_eval.parse_run(f)
            per_run.append(_means_from_per_query(evaluator.evaluate(run), names))
    res["eval_s"], res["cpu_s"] = tm.wall, tm.cpu
    res["grand_means"] = _grand(per_run)


def _child_ranx(spec, res, warm: bool):
    t = time.perf_counter()
    import numba
    from ranx import Qrels, Run, evaluate

    res["import_s"] = time.perf_counter() - t
    res["rss_after_import_mib"] = _rss_now_mib()
    names = dict(TOOL_MEASURES["ranx"])

    if names["RBP(p=0.8)"]:
        from ranx.metrics import metric_switch

        try:
            metric_switch("rbp")
        except Exception as e:
            res["notes"].append(f"ranx cannot compute RBP ({type(e).__name__}: {e})")
            names["RBP(p=0.8)"] = None
    names = {k: v for k, v in names.items() if v}
    res["measures"] = list(names)
    metrics = list(names.values())
    if warm:
        # Warm-up on the real qrels and first run: ranx stores docnos as numpy '<U{n}' arrays,
        # n = longest docno, and numba specialises its kernels on that width, so a toy input
        # with shorter docnos would not warm the kernels the timed loop uses.  (ranx also pins
        # numba to 1 thread for good after any call with < 10 qrels topics -- restored below.)
        t = time.perf_counter()
        evaluate(Qrels.from_file(spec["qrels"], kind="trec"), Run.from_file(spec["runs"][0], kind="trec"), metrics,
                 make_comparable=spec.get("make_comparable", False))
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        res["warmup_s"] = time.perf_counter() - t
        res["notes"].append(f"warm: one untimed evaluate() of the real qrels + first run before timing "
                            f"({res['warmup_s']:.2f} s)")
    else:
        res["notes"].append("cold: the first evaluate() call (numba compile / on-disk cache load) is timed")
    res["notes"].append(f"numba threads={numba.get_num_threads()}")
    res["notes"].append("ranx RBP gain = raw grade (not scaled to [0,1])")
    per_run = []
    with _Timer() as tm:
        qrels = Qrels.from_file(spec["qrels"], kind="trec")
        for path in spec["runs"]:
            run = Run.from_file(path, kind="trec")
            scores = evaluate(qrels, run, metrics, make_comparable=spec.get("make_comparable", False))
            if len(metrics) == 1:
                scores = {metrics[0]: scores}
            per_run.append({canon: float(scores[native]) for canon, native in names.items()})
    res["eval_s"], res["cpu_s"] = tm.wall, tm.cpu
    res["grand_means"] = _grand(per_run)


def child_ranx(spec, res):
    _child_ranx(spec, res, warm=True)


def child_ranx_cold(spec, res):
    _child_ranx(spec, res, warm=False)


def child_ir_measures(spec, res):
    t = time.perf_counter()
    import ir_measures

    res["import_s"] = time.perf_counter() - t
    res["rss_after_import_mib"] = _rss_now_mib()
    names = dict(TOOL_MEASURES["ir_measures"])
    parsed = {canon: ir_measures.parse_measure(native) for canon, native in names.items()}
    # which provider would serve the measures?  (checked on a toy qrels, outside timing)
    toy = [ir_measures.Qrel("q1", "d1", 1)]
    dropped = []
    for canon in list(parsed):
        try:
            ir_measures.evaluator([parsed[canon]], toy)
        except Exception as e:
            dropped.append(f"{canon} ({' '.join(str(e).split())})")
            del parsed[canon]
    if dropped:
        res["notes"].append(f"ir_measures {ir_measures.__version__} cannot compute " + "; ".join(dropped))
        if "RBP(p=0.8)" not in parsed:
            try:  # the binary variant goes through another provider
                ir_measures.evaluator([ir_measures.parse_measure("RBP(p=0.8,rel=1)")], toy)
                res["notes"].append("(binary RBP(p=0.8,rel=1) would be available)")
            except Exception as e:
                res["notes"].append(f"binary RBP(p=0.8,rel=1): {' '.join(str(e).split())}")
    try:
        ev = ir_measures.evaluator(list(parsed.values()), toy)
        res["notes"].append(f"provider: {type(ev).__module__.split('.')[-1]}")
    except Exception:
        pass
    res["measures"] = list(parsed)
    back = {v: k for k, v in parsed.items()}
    per_run = []
    with _Timer() as tm:
        evaluator = ir_measures.evaluator(list(parsed.values()), ir_measures.read_trec_qrels(spec["qrels"]))
        for path in spec["runs"]:
            agg = evaluator.calc_aggregate(ir_measures.read_trec_run(path))
            per_run.append({back[m]: float(v) for m, v in agg.items()})
    res["eval_s"], res["cpu_s"] = tm.wall, tm.cpu
    res["grand_means"] = _grand(per_run)


def child_trec_eval(spec, res):
    exe = spec.get("trec_eval")
    if not exe:
        raise SystemExit("no trec_eval executable (not on PATH; pass --trec-eval PATH)")
    res["import_s"] = 0.0
    res["rss_after_import_mib"] = float("nan")
    names = {k: v for k, v in TOOL_MEASURES["trec_eval"].items() if v}
    res["measures"] = list(names)
    args = [exe]
    for native in names.values():
        args += ["-m", native]
    # trec_eval prints e.g. "ndcg_cut_10", "P_10", "rbp_p=0.8"
    printed = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10", "recip_rank": "RR", "rbp_p=0.8": "RBP(p=0.8)"}
    per_run = []
    with _Timer() as tm:
        for path in spec["runs"]:
            cp = subprocess.run(args + [spec["qrels"], path], capture_output=True, text=True)
            if cp.returncode != 0:
                raise SystemExit(f"trec_eval failed on {path}: {cp.stderr.strip()[-500:]}")
            vals = {}
            for line in cp.stdout.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] == "all" and parts[0] in printed:
                    vals[printed[parts[0]]] = float(parts[2])
            per_run.append(vals)
    res["eval_s"], res["cpu_s"] = tm.wall, tm.cpu
    res["peak_override_mib"] = _maxrss_mib(resource.RUSAGE_CHILDREN)
    res["notes"].append("one trec_eval process per run, sequential; time includes process start-up; "
                        "peak = largest trec_eval process; "
                        "its graded rbp is unreliable (min/max uninitialised in m_rbp.c: the value changes "
                        "with the other -m options)")
    res["grand_means"] = _grand(per_run)


RUN_COLS = ["topic", "q0", "docno", "rank", "score", "tag"]
QREL_COLS = ["topic", "iter", "docno", "rel"]


def child_load_polars(spec, res):
    t = time.perf_counter()
    import polars as pl

    res["import_s"] = time.perf_counter() - t
    res["rss_after_import_mib"] = _rss_now_mib()
    res["measures"] = []
    run_schema = {"topic": pl.String, "q0": pl.String, "docno": pl.String, "rank": pl.Int64,
                  "score": pl.Float64, "tag": pl.String}
    qrel_schema = {"topic": pl.String, "iter": pl.String, "docno": pl.String, "rel": pl.Int32}
    with _Timer() as tm:
        qrels = pl.read_csv(spec["qrels"], separator=_sniff_sep(spec["qrels"]), has_header=False,
                            schema=qrel_schema, quote_char=None)
        runs = [pl.read_csv(p, separator=_sniff_sep(p), has_header=False, schema=run_schema, quote_char=None)
                for p in spec["runs"]]
    res["eval_s"], res["cpu_s"] = tm.wall, tm.cpu
    res["notes"].append(f"loaded {qrels.height:,} qrels + {sum(r.height for r in runs):,} run lines, no scoring; "
                        f"polars threads={pl.thread_pool_size()}")


def child_load_pyarrow(spec, res):
    t = time.perf_counter()
    import pyarrow as pa
    from pyarrow import csv

    res["import_s"] = time.perf_counter() - t
    res["rss_after_import_mib"] = _rss_now_mib()
    res["measures"] = []
    run_types = {"topic": pa.string(), "q0": pa.string(), "docno": pa.string(), "rank": pa.int64(),
                 "score": pa.float64(), "tag": pa.string()}
    qrel_types = {"topic": pa.string(), "iter": pa.string(), "docno": pa.string(), "rel": pa.int32()}

    def read(path, cols, types):
        return csv.read_csv(
            path,
            read_options=csv.ReadOptions(column_names=cols),
            parse_options=csv.ParseOptions(delimiter=_sniff_sep(path), quote_char=False),
            convert_options=csv.ConvertOptions(column_types=types),
        )

    with _Timer() as tm:
        qrels = read(spec["qrels"], QREL_COLS, qrel_types)
        runs = [read(p, RUN_COLS, run_types) for p in spec["runs"]]
    res["eval_s"], res["cpu_s"] = tm.wall, tm.cpu
    res["notes"].append(f"loaded {qrels.num_rows:,} qrels + {sum(r.num_rows for r in runs):,} run lines, "
                        f"no scoring; arrow cpu_count={pa.cpu_count()}")


CHILDREN = {
    "irstats": child_irstats,
    "pytrec_eval": child_pytrec_eval,
    "ranx": child_ranx,
    "ranx-cold": child_ranx_cold,
    "ir_measures": child_ir_measures,
    "trec_eval": child_trec_eval,
    "load-polars": child_load_polars,
    "load-pyarrow": child_load_pyarrow,
}


def child_main(tool: str, spec_path: str) -> None:
    with open(spec_path) as f:
        spec = json.load(f)
    res = {"tool": tool, "notes": []}
    CHILDREN[tool](spec, res)
    res["peak_rss_mib"] = res.pop("peak_override_mib", None) or _maxrss_mib(resource.RUSAGE_SELF)
    res["self_peak_rss_mib"] = _maxrss_mib(resource.RUSAGE_SELF)
    sys.stdout.flush()
    print(RESULT_MARK + json.dumps(res), flush=True)


# ======================================================================================
# parent side
# ======================================================================================


def prepare_dl19(workloads_dir: Path, dl19: Path) -> tuple[str, list[str]]:
    """Decompress the DL 2019 runs of ``dl19`` once (all tools then read the same plain files)."""
    src = dl19 / "runs"
    if not src.is_dir():
        raise SystemExit(f"DL 2019 data not found at {dl19}")
    dst = workloads_dir / "dl19" / "runs"
    dst.mkdir(parents=True, exist_ok=True)
    runs = []
    for gz in sorted(src.glob("*.run.gz")):
        out = dst / gz.name[: -len(".gz")]
        if not out.exists() or out.stat().st_mtime < gz.stat().st_mtime:
            tmp = out.with_suffix(".tmp")
            with gzip.open(gz, "rb") as fi, open(tmp, "wb") as fo:
                shutil.copyfileobj(fi, fo)
            tmp.replace(out)
        runs.append(str(out))
    return str(dl19 / "qrels.dl19-passage.txt"), runs


def locate(workload: str, workloads_dir: Path, dl19: Path = DEFAULT_DL19) -> tuple[str, list[str]]:
    if workload == "dl19":
        return prepare_dl19(workloads_dir, dl19)
    wl = workloads_dir / workload
    qrels = wl / "qrels.txt"
    runs = sorted(str(p) for p in (wl / "runs").glob("*.run"))
    if not qrels.exists() or not runs:
        raise SystemExit(f"workload {workload!r} not found in {workloads_dir}; run: python bench/make_workload.py")
    return str(qrels), runs


def tool_versions(tools: list[str], trec_eval: str | None) -> str:
    from importlib import metadata

    dists = {"irstats": "irstats", "pytrec_eval": "pytrec_eval-terrier", "ranx": "ranx", "ir_measures": "ir_measures",
             "load-polars": "polars", "load-pyarrow": "pyarrow"}
    out = []
    for tool in tools:
        if tool == "trec_eval":
            try:
                cp = subprocess.run([trec_eval, "-v"], capture_output=True, text=True, timeout=10) if trec_eval else None
                v = (cp.stdout + cp.stderr).split()[-1] if cp else "not found"
            except Exception:
                v = "?"
            out.append(f"trec_eval {v}")
        elif tool in dists:
            try:
                out.append(f"{dists[tool]} {metadata.version(dists[tool])}")
            except metadata.PackageNotFoundError:
                out.append(f"{dists[tool]} (not installed)")
    if any(t.startswith("ranx") for t in tools):
        try:
            out.append(f"numba {metadata.version('numba')}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(dict.fromkeys(out))


def run_child(tool: str, spec_path: Path, timeout: float, env: dict) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--_child", tool, str(spec_path)]
    t0 = time.perf_counter()
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"tool": tool, "error": f"timed out after {timeout:.0f} s"}
    wall = time.perf_counter() - t0
    for line in reversed(cp.stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            res = json.loads(line[len(RESULT_MARK):])
            res["process_s"] = wall
            return res
    err = (cp.stderr.strip() or cp.stdout.strip() or f"exit status {cp.returncode}").splitlines()
    # keep the informative tail (the exception line), not the whole traceback
    return {"tool": tool, "error": err[-1][:400] if err else f"exit status {cp.returncode}"}


def fmt(x, nd=2):
    if x is None or (isinstance(x, float) and x != x):
        return "–"
    return f"{x:.{nd}f}"


def summarise(tool: str, trials: list[dict]) -> dict:
    ok = [t for t in trials if "error" not in t]
    if not ok:
        return {"tool": tool, "error": trials[0]["error"] if trials else "not run"}
    med = lambda k: statistics.median(t[k] for t in ok if t.get(k) is not None) if any(  # noqa: E731
        t.get(k) is not None for t in ok) else None
    s = {
        "tool": tool,
        "n": len(ok),
        "failed": len(trials) - len(ok),
        "eval_s": med("eval_s"),
        "eval_min_s": min(t["eval_s"] for t in ok),
        "eval_max_s": max(t["eval_s"] for t in ok),
        "cpu_s": med("cpu_s"),
        "process_s": med("process_s"),
        "import_s": med("import_s"),
        "peak_rss_mib": med("peak_rss_mib"),
        "rss_after_import_mib": med("rss_after_import_mib"),
        "measures": ok[0].get("measures", []),
        "notes": ok[0].get("notes", []),
        "grand_means": ok[0].get("grand_means"),
    }
    if tool == "ranx":
        s["warmup_s"] = med("warmup_s")
    return s


def print_table(summ: list[dict], markdown: bool, baseline_tool: str | None) -> None:
    ir = next((s for s in summ if s["tool"] == "irstats" and "error" not in s), None)
    base = next((s for s in summ if s["tool"] == baseline_tool), None)
    head = ["tool", "measures", "median s", "min–max s", "CPU s", "process s", "peak MiB", "after-import MiB",
            "time ÷ irstats", "memory ÷ irstats", "time ÷ load"]
    rows = []
    for s in summ:
        if "error" in s:
            rows.append([s["tool"], "FAILED: " + s["error"]] + [""] * (len(head) - 2))
            continue
        ms = [m for m in MEASURES if m in s["measures"]]
        mtxt = "load only" if s["tool"] in LOADERS else ("all 5" if len(ms) == 5 else
                                                          "no " + ", ".join(m for m in MEASURES if m not in ms))
        if s["tool"] == baseline_tool:
            mtxt += " (baseline)"
        rows.append([
            s["tool"] + (f" (n={s['n']})" if s.get("failed") else ""),
            mtxt,
            fmt(s["eval_s"], 3),
            f"{fmt(s['eval_min_s'], 2)}–{fmt(s['eval_max_s'], 2)}",
            fmt(s["cpu_s"], 2),
            fmt(s["process_s"], 2),
            fmt(s["peak_rss_mib"], 0),
            fmt(s["rss_after_import_mib"], 0),
            fmt(s["eval_s"] / ir["eval_s"], 2) + "×" if ir else "n/a",
            fmt(s["peak_rss_mib"] / ir["peak_rss_mib"], 2) + "×" if ir else "n/a",
            fmt(s["eval_s"] / base["eval_s"], 1) + "×" if base else "n/a",
        ])
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" if i < 2 else "---:" for i in range(len(head))) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        w = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
        for r in [head] + rows:
            if r[1].startswith("FAILED"):
                print(f"{r[0]:<{w[0]}}  {r[1]}")
            else:
                print("  ".join(f"{c:<{w[i]}}" if i < 2 else f"{c:>{w[i]}}" for i, c in enumerate(r)))


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_child":
        child_main(argv[1], argv[2])
        return

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--workload", default="wide", choices=["wide", "tall", "dl19", "marco"])
    ap.add_argument("--runs", type=int, metavar="N", help="only the first N runs (e.g. 25, for memory against runs)")
    ap.add_argument("--repeat", type=int, default=5, help="trials per tool; the median is reported (default 5)")
    ap.add_argument("--tools", nargs="+", default=ALL_TOOLS, choices=ALL_TOOLS, metavar="TOOL",
                    help=f"tools to measure (default: all): {' '.join(ALL_TOOLS)}")
    ap.add_argument("--markdown", action="store_true", help="print the results as a Markdown table")
    ap.add_argument("--trec-eval", metavar="PATH", default=os.environ.get("TREC_EVAL") or shutil.which("trec_eval"),
                    help="trec_eval executable (default: $TREC_EVAL or trec_eval on PATH)")
    ap.add_argument("--workloads-dir", type=Path, default=DEFAULT_WORKLOADS)
    ap.add_argument("--dl19", type=Path, default=DEFAULT_DL19, metavar="DIR",
                    help="the dl19 workload's folder: qrels.dl19-passage.txt and runs/*.run.gz (default tests/data's "
                         "14 runs; the recorded numbers used all 37 official runs)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per trial before it counts as failed")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write every trial and the summary as JSON")
    ap.add_argument("--ranx-make-comparable", action="store_true",
                    help="pass make_comparable=True to ranx.evaluate (needed if runs and qrels topics differ)")
    ap.add_argument("--quiet", action="store_true", help="no per-trial progress lines")
    args = ap.parse_args(argv)

    qrels, runs = locate(args.workload, args.workloads_dir, args.dl19)
    if args.runs:
        runs = runs[: args.runs]
    tools = [t for t in ALL_TOOLS if t in args.tools]
    if args.trec_eval and not (os.path.isfile(args.trec_eval) and os.access(args.trec_eval, os.X_OK)):
        print(f"warning: --trec-eval {args.trec_eval} is not an executable file", file=sys.stderr)
    spec = {"qrels": qrels, "runs": runs, "trec_eval": args.trec_eval, "make_comparable": args.ranx_make_comparable}
    spec_path = args.workloads_dir / f".bench_spec_{os.getpid()}.json"
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    spec_path.write_text(json.dumps(spec))

    size = sum(os.path.getsize(p) for p in runs) + os.path.getsize(qrels)
    print(f"workload {args.workload}: {len(runs)} runs + qrels, {size / 2**20:.1f} MiB of text; "
          f"measures {', '.join(MEASURES)}; {args.repeat} interleaved repeats; "
          f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs", flush=True)
    print("versions: " + tool_versions(tools, args.trec_eval), flush=True)
    # read every file once so that no tool pays for the first read from disk
    for path in [qrels] + runs:
        with open(path, "rb") as f:
            while f.read(1 << 24):
                pass
    # child processes get the same environment, with src/ importable for an uninstalled irstats
    env = dict(os.environ)
    src = str(REPO / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")

    trials: dict[str, list[dict]] = {t: [] for t in tools}
    dead: set[str] = set()
    try:
        if any(t.startswith("ranx") for t in tools):
            # ranx's kernels are numba functions with cache=True: the very first call on a machine
            # compiles them and writes the on-disk cache; later "cold" calls only load it.
            print("  priming numba's on-disk cache with one untimed ranx trial", flush=True)
            run_child("ranx-cold", spec_path, args.timeout, env)
        for rep in range(args.repeat):
            for tool in tools:
                if tool in dead:
                    continue
                res = run_child(tool, spec_path, args.timeout, env)
                trials[tool].append(res)
                if "error" in res:
                    # a tool that is missing will not appear on the next repeat either
                    dead.add(tool)
                    print(f"  [{rep + 1}/{args.repeat}] {tool:<13} FAILED: {res['error']}", flush=True)
                elif not args.quiet:
                    print(f"  [{rep + 1}/{args.repeat}] {tool:<13} {res['eval_s']:8.3f} s  "
                          f"{res['peak_rss_mib']:7.0f} MiB  (process {res['process_s']:.2f} s)", flush=True)
    finally:
        spec_path.unlink(missing_ok=True)

    summ = [summarise(t, trials[t]) for t in tools]
    loaders = [s for s in summ if s["tool"] in LOADERS and "error" not in s]
    baseline = min(loaders, key=lambda s: s["eval_s"])["tool"] if loaders else None

    print()
    print(f"## {args.workload}: {len(runs)} runs, median of {args.repeat} (wall seconds from first file read to "
          f"last score, imports excluded)")
    print()
    print_table(summ, args.markdown, baseline)
    print()
    if "irstats" in tools and not any(s["tool"] == "irstats" and "error" not in s for s in summ):
        print("irstats was not measured (see its error above), so its ratio columns are n/a.")
    print("Notes:")
    for s in summ:
        if "error" in s:
            continue
        extra = list(s["notes"])
        if s.get("import_s"):
            extra.append(f"import {s['import_s']:.2f} s")
        print(f"- {s['tool']}: " + "; ".join(extra))
    print("- 'process s' = the child's whole life as seen by the parent: interpreter start-up + imports + work.")
    print("- 'time ÷ irstats' = tool seconds / irstats seconds (> 1: irstats is faster); same for memory.")

    # agreement check: mean over runs of each run's mean score, per measure
    gm = [s for s in summ if s.get("grand_means")]
    if gm:
        print()
        print("Cross-check (mean over runs of the per-run mean score; small differences come from tie-breaking,"
              " float32 scores and topic handling; RBP definitions differ between tools):")
        head = ["measure"] + [s["tool"] for s in gm]
        rows = [[m] + [fmt(s["grand_means"].get(m), 4) if m in s["grand_means"] else "–" for s in gm]
                for m in MEASURES]
        if args.markdown:
            print("| " + " | ".join(head) + " |")
            print("|---|" + "---:|" * len(gm))
            for r in rows:
                print("| " + " | ".join(r) + " |")
        else:
            w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
            for r in [head] + rows:
                print("  ".join(f"{c:>{w[i]}}" for i, c in enumerate(r)))

    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        from datetime import date

        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent).stdout.strip() or None
        args.json.write_text(json.dumps({"workload": args.workload, "runs": len(runs), "repeat": args.repeat,
                                         "date": str(date.today()), "commit": commit,
                                         "python": sys.version, "cpus": os.cpu_count(),
                                         "summary": summ, "trials": trials}, indent=2) + "\n")
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
