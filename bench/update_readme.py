"""Write the benchmark tables into the documentation (docs/performance.md, …) and bench/README.md
from the benchmarks' JSON.

    python bench/bench_eval.py --workload wide --repeat 5 --markdown --json bench/results/wide.json
    python bench/bench_eval.py --workload tall --repeat 3 --markdown --json bench/results/tall.json
    python bench/bench_eval.py --workload dl19 --repeat 5 --markdown --json bench/results/dl19.json
    python bench/update_readme.py bench/results/wide.json bench/results/tall.json bench/results/dl19.json

    python bench/bench_startup.py --repeat 9            # -> bench/results/startup.json
    python bench/bench_topics.py                        # -> bench/results/topics.json
    python bench/update_readme.py bench/results/startup.json bench/results/topics.json

    python bench/bench_ir_measures.py                   # -> bench/results/ir_measures.json
    python bench/update_readme.py bench/results/ir_measures.json

    python bench/bench_report.py --repeat 7             # -> bench/results/report.json
    python bench/update_readme.py bench/results/report.json

Tables are regenerated between ``<!-- bench:start -->`` and ``<!-- bench:end -->`` markers
(the start-up tables of README.md and bench/README.md between ``<!-- startup:start -->`` and
``<!-- startup:end -->``, the topics-scaling tables between ``<!-- topics:start -->`` and
``<!-- topics:end -->``, the ir_measures table and paragraph between ``<!-- ir_measures:start -->``
and ``<!-- ir_measures:end -->``, the report's timing between ``<!-- report:start -->`` and
``<!-- report:end -->``, each in whichever of bench/README.md and the documentation pages
(:data:`PAGES`) has them; docs/scale.md's table between ``<!-- scale:start -->`` and
``<!-- scale:end -->`` from bench_scale.py's JSON), never edited by hand; each says the date and
commit it was measured at. Any mix of the JSON files may be given; only the tables whose results
are given are rewritten. docs/performance.md's summary table (``<!-- summary:start -->`` …
``<!-- summary:end -->``: each workload of issue 25 beside its anchor) is rewritten every time, from
every JSON found in bench/results/ (:data:`SUMMARY_SOURCES`).
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: The documentation pages that hold benchmark results between markers (the site's performance
#: page: the summary, the `wide` tables, start-up and topics scaling; the evaluation guide: the
#: ir_measures paragraph; the report guide: the report's time). Each marker pair is written in
#: whichever of them has it; the full tables are bench/README.md's.
PAGES = (ROOT / "docs" / "performance.md", ROOT / "docs" / "guide" / "evaluate.md", ROOT / "docs" / "guide" / "report.md")
sys.path.insert(0, str(HERE))

from bench_eval import print_table  # noqa: E402

START, END = "<!-- bench:start -->", "<!-- bench:end -->"
PEERS = [("pytrec_eval", "pytrec_eval (no RBP)"), ("trec_eval", "trec_eval 10, one process per run"),
         ("ir_measures", "ir_measures (no RBP)"), ("ranx", "ranx, warm"), ("ranx-cold", "ranx, first call"),
         ("load-polars", "polars, loading the files only")]


STARTUP_START, STARTUP_END = "<!-- startup:start -->", "<!-- startup:end -->"
TOPICS_START, TOPICS_END = "<!-- topics:start -->", "<!-- topics:end -->"
IR_MEASURES_START, IR_MEASURES_END = "<!-- ir_measures:start -->", "<!-- ir_measures:end -->"
REPORT_START, REPORT_END = "<!-- report:start -->", "<!-- report:end -->"
SCALE_START, SCALE_END = "<!-- scale:start -->", "<!-- scale:end -->"
SUMMARY_START, SUMMARY_END = "<!-- summary:start -->", "<!-- summary:end -->"


def _replace(path: Path, text: str, start: str = START, end: str = END) -> None:
    content = path.read_text()
    head, rest = content.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{start}\n{text.strip()}\n{end}{tail}")


def _printed(print_table, *args) -> str:
    """What a benchmark's own ``print_table(*args)`` prints, as text."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_table(*args)
    return out.getvalue().strip()


def startup_table(result: dict) -> str:
    """bench/README.md's start-up table from bench_startup.py's JSON."""
    from bench_startup import print_table

    return (f"Measured on {result['date']} at commit {result['commit']} with `python bench/bench_startup.py "
            f"--repeat {result['repeat']}` (median of {result['repeat']} subprocesses, wall time; ratios are "
            f"medians of the ratios within each repeat) and written here by `python bench/update_readme.py`."
            f"\n\n{_printed(print_table, result)}")


def startup_summary(result: dict) -> str:
    """docs/performance.md's start-up paragraph from bench_startup.py's JSON."""
    rows = {row["name"]: row for row in result["results"]}

    def find(prefix: str) -> dict | None:
        return next((row for name, row in rows.items() if name.startswith(prefix)), None)

    parts = []
    for label, prefix in (("`irstats eval`", "irstats eval"), ("`irstats trec_eval`", "irstats trec_eval")):
        row = find(prefix)
        if row:
            parts.append(f"{label} {row['median_s']:.3f} s ({row['ratio_to_numpy']:.2f}× `import numpy`, "
                         f"{row['ratio_to_pass']:.2f}× `python -c pass`)")
    numpy, floor, binary = rows.get("import numpy"), rows.get("python -c pass"), find("trec_eval binary")
    text = (f"Start-up ({result['date']}, commit {result['commit']}, `python bench/bench_startup.py`, median of "
            f"{result['repeat']} fresh processes on trec_eval's 3-topic test files): " + "; ".join(parts)
            + (f"; `python -c \"import numpy\"` alone {numpy['median_s']:.3f} s" if numpy else "")
            + (f", `python -c pass` {floor['median_s']:.3f} s" if floor else "")
            + (f", the trec_eval binary {binary['median_s']:.3f} s" if binary else "") + ". "
            "On plain TREC files the path from the command line to printed numbers imports no frame library "
            "(qrels and runs are read by the compiled reader).")
    split = find("irstats splithalf")
    if split:
        text += f" `{split['name']}` takes {split['median_s']:.2f} s end to end."
    return text


def topics_table(result: dict) -> str:
    """The topics-scaling table from bench_topics.py's JSON (docs/performance.md and bench/README.md)."""
    tools = list(dict.fromkeys(row["tool"] for row in result["results"]))
    points = sorted({row["topics"] for row in result["results"]})
    cell = {(row["tool"], row["topics"]): row for row in result["results"]}
    timed = [row for row in result["results"] if row.get("seconds") is not None]
    most = max((row.get("repeats", 1) for row in timed), default=1)
    once = sorted({row["topics"] for row in timed if row.get("repeats", 1) < most})
    how = ("one fresh process per cell" if most == 1 else
           f"the median of {most} fresh processes per cell, interleaved"
           + (f"; one at {', '.join(f'{n:,}' for n in once)} topics" if once else ""))
    lines = [f"Measured on {result['date']} at commit {result['commit']} with `python bench/bench_topics.py` "
             f"({how}: wall seconds / peak MiB; N topics × 1 document) and written here by "
             f"`python bench/update_readme.py`.", "",
             "| command | " + " | ".join(f"{n:,} topics" for n in points) + " |",
             "|---|" + "---:|" * len(points)]
    for tool in tools:
        cells = []
        for n in points:
            row = cell.get((tool, n))
            if row is None or row.get("skipped"):
                cells.append("–")
            elif row.get("seconds") is None:
                cells.append(f"> {row['timed_out']:.0f} s")
            else:
                same = {True: " (=)", False: " (≠)"}.get(row.get("identical_to_trec_eval"), "")
                cells.append(f"{row['seconds']:.2f} s / {row['peak_mib']:.0f}{same}")
        lines.append(f"| `{tool}` | " + " | ".join(cells) + " |")
    if any("identical_to_trec_eval" in row for row in result["results"]):
        lines += ["", "(=): irstats' output byte-identical to trec_eval's; (≠): not."]
    return "\n".join(lines)


def ir_measures_table(result: dict) -> str:
    """bench/README.md's ir_measures table from bench_ir_measures.py's JSON."""
    from bench_ir_measures import print_table

    return (f"Measured on {result['date']} at commit {result['commit']} with `python bench/bench_ir_measures.py "
            f"--repeat {result['repeat']} --first-repeat {result['first_repeat']}` ({len(result['runs'])} DL 2019 "
            f"runs, {result['lines']:,} lines, measures {', '.join(result['measures'])}; each warm row one call per "
            f"run, median of {result['repeat']} trials interleaved with the anchor's; fresh-process rows median of "
            f"{result['first_repeat']} processes; ratios are medians of the per-repeat ratios, > 1: irstats faster) "
            f"and written here by `python bench/update_readme.py`.\n\n{_printed(print_table, result)}")


def ir_measures_summary(result: dict) -> str:
    """docs/guide/evaluate.md's ir_measures paragraph from bench_ir_measures.py's JSON."""
    rows = {(r["name"], r["shape"]): r for r in result["results"]}

    def ratio(name: str, shape: str) -> str:
        r = rows.get((name, shape))
        return f"{r['ratio']:.1f}×" if r else "–"

    first = rows.get(("fresh process: first call", "namedtuples"))
    experiment = rows.get(("pt.Experiment", "dataframes"))
    text = (f"Through ir_measures ({result['date']}, commit {result['commit']}, `python bench/bench_ir_measures.py`: "
            f"{len(result['runs'])} DL 2019 runs, {', '.join(result['measures'])}), irstats' provider against "
            f"ir_measures' default, pytrec_eval, per call: `calc_aggregate` "
            f"{ratio('provider.calc_aggregate', 'namedtuples')} as fast on lists of namedtuples, "
            f"{ratio('provider.calc_aggregate', 'dicts')} on dicts of dicts, "
            f"{ratio('provider.calc_aggregate', 'dataframes')} on DataFrames")
    if experiment:
        text += f"; PyTerrier's `pt.Experiment` {experiment['ratio']:.1f}× as fast with irstats registered"
    if first:
        text += (f"; the first call in a fresh process {first['irstats_median_s']:.2f} s (pytrec_eval's "
                 f"{first['anchor_median_s']:.2f} s)")
    return text + "."


def report_table(result: dict) -> str:
    """bench/README.md's report table from bench_report.py's JSON."""
    from bench_report import print_table

    return (f"Measured on {result['date']} at commit {result['commit']} with `{result['command']}` "
            f"({result['data']}; one fresh process per trial, full and `--quick` interleaved, "
            f"median of {result['repeat']}; CPU: the report's and the figure writers' it forks; the ratio is the "
            f"median of the per-repeat ratios; load average {result['load_average_before']:.1f} before, "
            f"{result['load_average_after']:.1f} after, on the 2 shared cores) and written here by "
            f"`python bench/update_readme.py`.\n\n{_printed(print_table, result)}")


def report_summary(result: dict) -> str:
    """docs/guide/report.md's sentence on the report's time from bench_report.py's JSON."""
    rows = {row["name"]: row for row in result["results"]}
    full, quick = rows["full report"], rows["--quick"]
    workload = result["data"].removeprefix("TREC DL 2019 passage: ").removesuffix(", default measures")
    return (f"On the DL 2019 runs ({workload}) the full report takes {full['median_s']:.1f} s and `--quick` "
            f"{quick['median_s']:.1f} s, {quick['ratio_to_full']:.2f}× the full report ({result['date']}, commit "
            f"{result['commit']}, `python bench/bench_report.py`, median of {result['repeat']} at load average "
            f"{result['load_average_before']:.1f} on the 2 shared cores).")


SCALE_DESCRIPTIONS = {"wide": "evaluate `wide` (50 topics × 1,000 documents)",
                      "tall": "evaluate `tall` (5,000 topics × 100, 1.4 M qrels lines)",
                      "marco": "evaluate `marco` (6,980 topics × 1,000, 0.7 M qrels lines)",
                      "splithalf": "split-half, 4 methods, 100 systems × 50 topics"}


def scale_table(result: dict) -> str:
    """docs/scale.md's table from bench_scale.py's JSON."""
    lines = [f"Measured with `python bench/bench_scale.py --json bench/results/scale.json` on this project's "
             f"{result.get('cores', 2)}-core machine ({result.get('date', '?')}, commit {result.get('commit', '?')}; "
             f"median of {result['repeat']} fresh processes per point, imports excluded, reading of every file "
             f"included; peak = resident memory of the process, interpreter and libraries included) and written "
             f"here by `python bench/update_readme.py`. Measures: AP, nDCG@10, P@10, RR and RBP(p=0.8).", "",
             "| job | size | seconds | peak MiB | run lines per second |", "|---|---:|---:|---:|---:|"]
    shown = set()
    for row in result["results"]:
        kind = row["kind"]
        job = "" if kind in shown else SCALE_DESCRIPTIONS.get(kind, kind)
        shown.add(kind)
        size = f"{row['n']:,} halvings" if kind == "splithalf" else f"{row['n']} run{'s' if row['n'] != 1 else ''}"
        rate = f"{row['lines'] / row['seconds'] / 1e6:.1f} M" if row.get("lines") else ""
        lines.append(f"| {job} | {size} | {row['seconds']:.2f} | {row['peak_mib']:.0f} | {rate} |")
    return "\n".join(lines)


#: The JSON files of bench/results/ the performance page's summary table is written from (each optional).
SUMMARY_SOURCES = ("startup", "ir_measures", "topics", "scale", "bigrun", "report", "wide")


def summary_table(folder: Path = HERE / "results") -> str | None:
    """docs/performance.md's summary: each workload of issue 25's table beside its anchor, from whichever
    of :data:`SUMMARY_SOURCES` are in ``folder`` (each row names the date and commit it was
    measured at). None when none is there."""
    found = {name: json.loads((folder / f"{name}.json").read_text())
             for name in SUMMARY_SOURCES if (folder / f"{name}.json").exists()}
    if not found:
        return None
    rows: list[tuple[str, str, str, str, str]] = []  # workload, irstats, anchor, ratio, source

    def source(name: str) -> str:
        r = found[name]
        return f"`bench_{name}.py`, {r.get('date', '?')}, {r.get('commit') or '?'}"

    def times(a: float, b: float) -> str:
        return f"{a / b:.2f}×"

    if "startup" in found:
        by = {row["name"]: row for row in found["startup"]["results"]}
        numpy = by.get("import numpy")
        for name, label in (("irstats eval (trec_eval test files)", "`irstats eval`, trec_eval's 3-topic test files, "
                                                                       "whole process"),
                            ("irstats trec_eval (trec_eval test files)", "`irstats trec_eval`, the same files")):
            if name in by and numpy:
                rows.append((label, f"{by[name]['median_s']:.3f} s", f"`python -c \"import numpy\"` "
                             f"{numpy['median_s']:.3f} s", f"{by[name]['ratio_to_numpy']:.2f}×", source("startup")))
        loop = next((name for name in by if name.startswith("irstats trec_eval, a shell loop")), None)
        binary = next((row for name, row in by.items() if name.startswith("trec_eval binary, a shell loop")), None)
        if loop:  # the row's name says how many runs the loop went over
            loop_label, loop = f"the drop-in in {loop.split(', ', 1)[1]}", by[loop]
            rows.append((loop_label, f"{loop['median_s']:.2f} s",
                         f"trec_eval {binary['median_s']:.2f} s" if binary else "–",
                         times(loop["median_s"], binary["median_s"]) if binary else "", source("startup")))
    if "ir_measures" in found:
        by = {(row["name"], row["shape"]): row for row in found["ir_measures"]["results"]}
        n = len(found["ir_measures"]["runs"])
        for (name, shape), label in ((("provider.calc_aggregate", "namedtuples"),
                                      f"through ir_measures, `calc_aggregate`, {n} DL 2019 runs, warm (namedtuples)"),
                                     (("provider.calc_aggregate", "dicts"), "the same, dicts of dicts"),
                                     (("pt.Experiment", "dataframes"), "PyTerrier's `pt.Experiment`, the same runs"),
                                     (("fresh process: first call", "namedtuples"), "through ir_measures, first call "
                                                                                      "in a fresh process")):
            row = by.get((name, shape))
            if row:
                rows.append((label, f"{row['irstats_median_s']:.3f} s",
                             f"pytrec_eval provider {row['anchor_median_s']:.3f} s",
                             f"{1 / row['ratio']:.2f}×", source("ir_measures")))  # the JSON's: anchor ÷ irstats
    if "topics" in found:
        by = {(row["tool"], row["topics"]): row for row in found["topics"]["results"]}
        drop_in, binary = by.get(("irstats trec_eval -q -m all_trec", 100_000)), by.get(("trec_eval -q -m all_trec",
                                                                                            100_000))
        if drop_in and drop_in.get("seconds"):
            same = " (byte-identical)" if drop_in.get("identical_to_trec_eval") else ""
            rows.append(("`irstats trec_eval -q -m all_trec`, 100,000 topics × 1 document",
                         f"{drop_in['seconds']:.1f} s{same}",
                         f"trec_eval {binary['seconds']:.1f} s" if binary and binary.get("seconds") else "–",
                         times(drop_in["seconds"], binary["seconds"]) if binary and binary.get("seconds") else "",
                         source("topics")))
        plain = by.get(("irstats eval -m all_trec -q", 100_000))
        if plain and plain.get("seconds"):
            rows.append(("`irstats eval -m all_trec -q`, the same files", f"{plain['seconds']:.1f} s, "
                         f"{plain['peak_mib']:.0f} MiB", "–", "", source("topics")))
    if "scale" in found:
        for tall in (row for row in found["scale"]["results"] if row["kind"] == "tall"):
            rows.append((f"`tall`: 1.4 M qrels lines (5,000 topics) and {tall['n']} run{'s' if tall['n'] > 1 else ''} "
                         f"of 500,000 lines, peak memory", f"{tall['peak_mib']:.0f} MiB, {tall['seconds']:.2f} s", "–",
                         "", source("scale")))
    if "bigrun" in found:
        plain = [row for row in found["bigrun"]["results"] if row["tool"] == "irstats eval" and not row["shuffled"]]
        binary = {row["run_gb"]: row for row in found["bigrun"]["results"] if row["tool"].startswith("trec_eval")}
        if plain:
            small, large = min(plain, key=lambda r: r["run_gb"]), max(plain, key=lambda r: r["run_gb"])
            anchor = binary.get(large["run_gb"])
            rows.append((f"one run of {small['run_gb']:.1f} GB and of {large['run_gb']:.1f} GB, peak memory",
                         f"{small['peak_mib']:.0f} and {large['peak_mib']:.0f} MiB",
                         f"trec_eval {anchor['peak_mib'] / 1024:.1f} GB at {large['run_gb']:.1f} GB" if anchor else "–",
                         "", source("bigrun")))
    if "report" in found:
        by = {row["name"]: row for row in found["report"]["results"]}
        full, quick = by.get("full report"), by.get("--quick")
        if full and quick:
            rows.append(("DL 2019 report, full and `--quick`", f"{full['median_s']:.2f} s and {quick['median_s']:.2f} s",
                         "–", f"{quick['ratio_to_full']:.2f}× (quick ÷ full)", source("report")))
    if "wide" in found:
        tools = _by_tool(found["wide"])
        ir, peer = tools.get("irstats"), tools.get("pytrec_eval")
        if ir and peer:
            rows.append((f"`wide`: {found['wide']['runs']} runs × 50 topics × 1,000 documents, 5 measures",
                         f"{ir['eval_s']:.2f} s", f"pytrec_eval {peer['eval_s']:.2f} s", times(ir["eval_s"], peer["eval_s"]),
                         f"`bench_eval.py --workload wide`, {found['wide'].get('date', '?')}, "
                         f"{found['wide'].get('commit') or '?'}"))
    lines = ["Each workload beside its anchor, on this 2-core machine (medians; a ratio below 1: irstats is "
             "faster; ratios are taken within each repeat where the benchmark interleaves the two; the last column "
             "says which benchmark measured it, when and at which commit); written by "
             "`python bench/update_readme.py` from `bench/results/*.json`.", "",
             "| workload | irstats | anchor | irstats ÷ anchor | measured by |", "|---|---:|---:|---:|---|"]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    return "\n".join(lines)


def _replace_marked(path: Path, text: str, start: str, end: str) -> bool:
    """Like :func:`_replace`, for a file that may not have the markers (then False, unchanged)."""
    content = path.read_text()
    if start not in content or end not in content:
        return False
    _replace(path, text, start, end)
    return True


def _replace_in_pages(text: str, start: str, end: str) -> list[str]:
    """``text`` between the markers in each of :data:`PAGES` that has them; the names of those."""
    return [str(path.relative_to(ROOT)) for path in PAGES if _replace_marked(path, text, start, end)]


def _write_table_and_summary(what: str, table: str, summary: str, start: str, end: str) -> None:
    """``table`` into bench/README.md and ``summary`` into the documentation pages between the
    markers, where each file has them; says which it wrote."""
    written = (["bench/README.md"] if _replace_marked(HERE / "README.md", table, start, end) else [])
    written += _replace_in_pages(summary, start, end)
    print(f"{what} updated in {' and '.join(written) or 'no file (no markers found)'}")


def _by_tool(result: dict) -> dict:
    return {s["tool"]: s for s in result["summary"] if "error" not in s}


def main(paths: list[str]) -> None:
    loaded = [json.loads(Path(p).read_text()) for p in paths]
    summary = summary_table()
    if summary:
        for name in _replace_in_pages(summary, SUMMARY_START, SUMMARY_END):
            print(f"{name} summary table updated (from every JSON in bench/results/)")
    for result in loaded:
        if result.get("benchmark") == "scale":
            if _replace_marked(ROOT / "docs" / "scale.md", scale_table(result), SCALE_START, SCALE_END):
                print("docs/scale.md table updated")
        if result.get("benchmark") == "startup":
            _write_table_and_summary("start-up section", startup_table(result), startup_summary(result),
                                     STARTUP_START, STARTUP_END)
        if result.get("benchmark") == "topics":
            table = topics_table(result)
            _write_table_and_summary("topics-scaling table", table, table, TOPICS_START, TOPICS_END)
        if result.get("benchmark") == "ir_measures":
            _write_table_and_summary("ir_measures section", ir_measures_table(result), ir_measures_summary(result),
                                     IR_MEASURES_START, IR_MEASURES_END)
        if result.get("benchmark") == "report":
            _write_table_and_summary("report timing", report_table(result), report_summary(result),
                                     REPORT_START, REPORT_END)
    # several runs of one workload (wide with --runs 25 and with all 100): the largest is the
    # workload's table, the others give the memory-against-runs line
    by_workload: dict[str, list[dict]] = {}
    for r in loaded:
        if "workload" in r:
            by_workload.setdefault(r["workload"], []).append(r)
    results = {name: max(rs, key=lambda r: r["runs"]) for name, rs in by_workload.items()}
    smaller = {name: [r for r in rs if r is not results[name]] for name, rs in by_workload.items()}
    if not results:
        return
    # the date and commit the runs were measured at (in their JSON), else today's and HEAD's
    measured = {(r.get("date"), r.get("commit")) for r in results.values()}
    if len(measured) == 1 and None not in next(iter(measured)):
        when, commit = next(iter(measured))
    else:
        when = date.today()
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=ROOT).stdout.strip()
    wide = _by_tool(results["wide"])
    ir = wide["irstats"]
    lines = [f"Evaluating AP, nDCG@10, P@10, RR and RBP(p=0.8) for {results['wide']['runs']} runs × 50 topics × "
             f"1,000 documents (the `wide` workload), reading of the files included, median of "
             f"{results['wide']['repeat']} on this 2-core machine ({when}, commit {commit}):", "",
             "| tool | median s | peak MiB | irstats is faster by |", "|---|---:|---:|---:|",
             f"| irstats | {ir['eval_s']:.2f} | {ir['peak_rss_mib']:.0f} | |"]
    for tool, label in PEERS:
        if tool in wide:
            s = wide[tool]
            lines.append(f"| {label} | {s['eval_s']:.2f} | {s['peak_rss_mib']:.0f} | {s['eval_s'] / ir['eval_s']:.2f}× |")
    for small in smaller.get("wide", []):
        s = _by_tool(small).get("irstats")
        if s:
            lines += ["", f"Peak memory against the number of runs (irstats, `wide`): {small['runs']} runs "
                          f"{s['peak_rss_mib']:.0f} MiB, {results['wide']['runs']} runs {ir['peak_rss_mib']:.0f} MiB "
                          f"({ir['peak_rss_mib'] / s['peak_rss_mib']:.2f}×)."]
    for name, what in (("marco", "one run, 6,980 topics × 1,000 documents"), ("tall", None), ("dl19", None)):
        if name in results:
            t = _by_tool(results[name])
            base = t.get("irstats")
            parts = ", ".join(f"{tool} {t[tool]['eval_s']:.2f} s"
                              + (f" ({t[tool]['eval_s'] / base['eval_s']:.1f}×)" if base and tool != "irstats" else "")
                              for tool in ("irstats", "pytrec_eval", "trec_eval", "ir_measures", "ranx") if tool in t)
            lines += ["", f"`{name}` ({what or str(results[name]['runs']) + ' runs'}): {parts}."]
    _replace_in_pages("\n".join(lines), START, END)

    blocks = [f"Measured on {when} at commit {commit}, one workload after the other, with "
              "`python bench/bench_eval.py --workload W --repeat R --markdown --json FILE` and written here by "
              "`python bench/update_readme.py`."]
    for name, result in [(n, r) for n, rs in by_workload.items() for r in sorted(rs, key=lambda r: -r["runs"])]:
        table = _printed(print_table, result["summary"], True, "load-polars")
        blocks.append(f"### {name}: {result['runs']} runs, median of {result['repeat']}\n\n{table}")
    _replace(HERE / "README.md", "\n\n".join(blocks))
    print("docs/performance.md and bench/README.md updated")


if __name__ == "__main__":
    main(sys.argv[1:])
