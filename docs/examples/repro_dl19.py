#!/usr/bin/env python3
"""Worked example: did Anserini's tuned BM25 "reproduce" its default BM25 experiment on DL 2019?

The TREC 2019 Deep Learning passage runs include two Anserini submissions of the same pair of
methods: BM25 and BM25 + RM3 with the default parameters (``bm25base_p``,
``bm25base_rm3_p``) and with tuned ones (``bm25tuned_p``, ``bm25tuned_rm3_p``). Taking the
default pair as the original experiment (baseline: BM25, advanced: BM25 + RM3) and the tuned
pair as its reproduction — same methods, same collection, other settings — is the situation
Breuer et al. (SIGIR 2020) measure: does the reproduction return the same documents, the same
scores, the same improvement of RM3 over BM25?

The script computes ``irstats.reproducibility`` (AP, nDCG@10, P@10; trec_eval's default
relevance level 1, as repro_eval) and writes

- ``docs/repro/summary.md`` and ``summary.tsv``: the result as it prints itself, and its data;
- ``docs/repro/order.png`` (+ ``.csv``): KTU and RBO of every topic;
- ``docs/repro/effects.png`` (+ ``.csv``): ER against ΔRI per measure;
- ``docs/repro/versus_repro_eval.md``: the means next to repro_eval's own numbers (if the
  ``repro-eval`` package is installed), KTU both ways;

and refreshes the tables in ``docs/repro.md`` between its ``repro`` markers.

    python docs/examples/repro_dl19.py --data DIR

``DIR`` is laid out as tests/data and holds the four runs (tests/data keeps bm25base_p and
bm25tuned_rm3_p of them; tests/data/trec-dl-2019-passage/README.md says where all 37 come from).

The same through the command line:

    irstats repro --qrels qrels.dl19-passage.txt --orig bm25base_p.run.gz bm25base_rm3_p.run.gz \\
        --repro bm25tuned_p.run.gz bm25tuned_rm3_p.run.gz -m AP -m nDCG@10 -m P@10 \\
        --plot-order order.png --plot-effects effects.png
"""

from __future__ import annotations

import argparse
import gzip
import re
import tempfile
import warnings
from pathlib import Path

import polars as pl

import irstats
from irstats.plots import save
from irstats.render import markdown_table

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "docs" / "repro"
PAGE = REPO / "docs" / "repro.md"
ORIGINAL = ("bm25base_p", "bm25base_rm3_p")
REPRODUCED = ("bm25tuned_p", "bm25tuned_rm3_p")
MEASURES = ("AP", "nDCG@10", "P@10")
#: repro_eval's names of the measures (ir_measures').
THEIRS = {"AP": "AP", "nDCG@10": "nDCG@10", "P@10": "P@10"}


def refresh(page: Path, marker: str, text: str) -> None:
    """Replace what stands between ``<!-- marker -->`` and ``<!-- /marker -->`` in the page."""
    body = page.read_text()
    pattern = re.compile(rf"(<!-- {re.escape(marker)} -->\n).*?(<!-- /{re.escape(marker)} -->)", re.S)
    if not pattern.search(body):
        raise SystemExit(f"{page}: no {marker} markers")
    page.write_text(pattern.sub(lambda m: m.group(1) + text.rstrip("\n") + "\n" + m.group(2), body))


def versus_repro_eval(result, runs: dict[str, Path], qrels: Path) -> str:
    """The means of every statistic next to repro_eval's, as a Markdown table."""
    try:
        from repro_eval.Evaluator import RpdEvaluator
    except ImportError:
        return "(repro-eval is not installed: `pip install repro-eval` to compare)\n"
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = {}
        for tag, path in runs.items():  # repro_eval reads plain text
            plain[tag] = Path(folder) / f"{tag}.run"
            plain[tag].write_bytes(gzip.decompress(path.read_bytes()))
        ev = RpdEvaluator(qrels_orig_path=str(qrels), run_b_orig_path=str(plain[ORIGINAL[0]]),
                          run_a_orig_path=str(plain[ORIGINAL[1]]), run_b_rep_path=str(plain[REPRODUCED[0]]),
                          run_a_rep_path=str(plain[REPRODUCED[1]]))
        ev.trim()
        ev.evaluate()
        ktu, rbo, rmse, er, dri, p = ev.ktu(), ev.rbo(), ev.rmse(), ev.er(), ev.dri(), ev.ttest()
    by_rank = irstats.reproducibility(qrels, [runs[t] for t in ORIGINAL], [runs[t] for t in REPRODUCED],
                                      list(MEASURES), ktu_method="repro_eval")
    frame = result.to_frame().filter(pl.col("topic") == "all")

    def ours(frame, measure, statistic, run):
        row = frame.filter((pl.col("measure") == measure) & (pl.col("statistic") == statistic)
                           & (pl.col("run") == run))
        return row["value"][0]

    rows = []
    for run in ("baseline", "advanced"):
        rows.append(["KTU (Eq. 1, union)", "", run, f"{ours(frame, '-', 'ktu', run):.6f}", "—"])
        rows.append(["KTU (repro_eval's)", "", run,
                     f"{ours(by_rank.to_frame().filter(pl.col('topic') == 'all'), '-', 'ktu', run):.6f}",
                     f"{ktu[run]:.6f}"])
        rows.append(["RBO", "", run, f"{ours(frame, '-', 'rbo', run):.6f}", f"{rbo[run]:.6f}"])
    for measure in MEASURES:
        for run in ("baseline", "advanced"):
            rows.append(["RMSE", measure, run, f"{ours(frame, measure, 'rmse', run):.6f}",
                         f"{rmse[run][THEIRS[measure]]:.6f}"])
        rows.append(["ER", measure, "advanced", f"{ours(frame, measure, 'er', 'advanced'):.6f}",
                     f"{er[THEIRS[measure]]:.6f}"])
        rows.append(["ΔRI", measure, "advanced", f"{ours(frame, measure, 'dri', 'advanced'):.6f}",
                     f"{dri[THEIRS[measure]]:.6f}"])
        for run in ("baseline", "advanced"):
            rows.append(["p (paired t)", measure, run, f"{ours(frame, measure, 'p_value', run):.6f}",
                         f"{p[run][THEIRS[measure]]:.6f}"])
    return markdown_table(["statistic", "measure", "run", "irstats", "repro_eval 0.5"], rows, left=3)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True,
                        help="a copy of tests/data with all 37 official DL 2019 runs, as the page was made (tests/data keeps 14; tests/data/trec-dl-2019-passage/README.md says where the runs come from)")
    args = parser.parse_args(argv)
    root = args.data / "trec-dl-2019-passage"
    qrels = root / "qrels.dl19-passage.txt"
    runs = {tag: root / "runs" / f"{tag}.run.gz" for tag in ORIGINAL + REPRODUCED}
    result = irstats.reproducibility(qrels, [runs[t] for t in ORIGINAL], [runs[t] for t in REPRODUCED],
                                     list(MEASURES))
    OUT.mkdir(parents=True, exist_ok=True)
    summary = result.to_markdown()
    (OUT / "summary.md").write_text(summary)
    (OUT / "summary.tsv").write_text(result.to_tsv())
    ax = result.plot_order()
    save(ax, OUT / "order.png", ax.irstats_data)
    ax = result.plot_effects()
    save(ax, OUT / "effects.png", ax.irstats_data)
    versus = versus_repro_eval(result, runs, qrels)
    (OUT / "versus_repro_eval.md").write_text(versus)
    refresh(PAGE, "repro:summary", summary)
    refresh(PAGE, "repro:versus", versus)
    print(summary)
    print(versus)


if __name__ == "__main__":
    main()
