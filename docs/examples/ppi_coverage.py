#!/usr/bin/env python3
"""Coverage of prediction-powered intervals on TREC DL 2019 (issue 27, METHODS.md §5.8).

NIST's qrels of the 43 DL 2019 passage topics are the truth: each run's mean over all 43
topics under them is the number an interval should cover. "Auto" labels are a realistic
degradation of NIST's (``irstats.ppi.degrade_qrels``: a confusion of grades — a lenient judge
that blurs neighbouring grades — and a leniency that varies by topic), drawn afresh
``--draws`` times. For each draw, ``--subsets`` random gold subsets of 10–20 topics keep
NIST's labels; the other topics have only the auto labels. Per run and measure the script
computes

- the 95% PPI++ interval (λ tuned; ``irstats.stats.ppi.ppi_mean_rows``, equal to ppi_py's
  ``ppi_mean_ci``), and classic PPI (λ = 1);
- the 95% classical interval of the gold topics alone (what one would report without the
  auto labels);
- the 95% percentile-bootstrap interval of the auto labels alone over all 43 topics (what one
  would report trusting the LLM);
- the 95% PPI++ interval of each run's difference to bm25base_p (unadjusted),

and counts how often each covers the full-qrels value, and how wide it is. With
``--write-doc`` it refreshes the tables in docs/agreement.md between the ``ppi:`` markers,
including a worked example (gold qrels of 15 topics, auto qrels of all 43, written to
``--example-dir``, and ``irstats.ppi`` on six runs).

    python docs/examples/ppi_coverage.py --data DIR [--write-doc]

``DIR`` is laid out as tests/data but holds all 37 DL 2019 runs, as the page was made (tests/data
keeps 14 of them; tests/data/trec-dl-2019-passage/README.md says where they come from).

Default: 20 draws × 300 subsets (6,000 repetitions, 222,000 intervals per measure and
method), about 30 s on two cores.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

import irstats
from irstats.errors import IrstatsWarning
from irstats.io.trec import read_qrels
from irstats.ppi import degrade_qrels
from irstats.random import generator
from irstats.stats.ppi import ppi_mean_rows

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "agreement.md"
MEASURES = ("nDCG@10", "AP(rel=2)")
BASELINE = "bm25base_p"
EXAMPLE_RUNS = ("idst_bert_p1", "p_exp_rm3_bert", "TUW19-p3-f", "bm25tuned_rm3_p", "bm25base_p", "UNH_bm25")
ALPHA = 0.05
BINS = ((10, 13), (14, 17), (18, 20))


def write_qrels(frame: pl.DataFrame, path: Path) -> None:
    frame.select("topic", pl.lit("0").alias("q0"), "docno", "rel").write_csv(path, separator=" ",
                                                                              include_header=False)


def bootstrap_interval(f: np.ndarray, n_resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap over topics of each row's mean: (low, high)."""
    draws = rng.integers(0, f.shape[1], (n_resamples, f.shape[1]))
    means = f[:, draws].mean(axis=2)  # systems × resamples
    return np.quantile(means, ALPHA / 2, axis=1), np.quantile(means, 1 - ALPHA / 2, axis=1)


def simulate(data: Path, draws: int, subsets: int, n_resamples: int, seed: int) -> dict:
    base = data / "trec-dl-2019-passage"
    nist = base / "qrels.dl19-passage.txt"
    runs = sorted((base / "runs").glob("*.run.gz"))
    truth_scores = irstats.evaluate(nist, runs, list(MEASURES))
    systems = truth_scores[MEASURES[0]].systems
    b = systems.index(BASELINE)
    others = [i for i in range(len(systems)) if i != b]
    rng = generator(seed)
    records = []  # one row per (draw, subset, measure, system, method)
    agreement = {}
    bias: dict[str, list[np.ndarray]] = {}
    for d in range(draws):
        auto = degrade_qrels(nist, seed=int(rng.integers(0, 2**31)))
        if d == 0:
            from irstats.agreement import label_agreement

            stats = label_agreement(nist, auto, n_resamples=200, seed=0).statistics
            agreement = dict(zip(stats["statistic"], stats["value"]))
            nist_grades = read_qrels(nist).sort(["topic", "docno"])["rel"].to_numpy()
            agreement["mean_shift"] = float((auto["rel"].to_numpy() - nist_grades).mean())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IrstatsWarning)
            cheap = irstats.evaluate(auto, runs, list(MEASURES))
        for measure in MEASURES:
            y_all, f_all = truth_scores[measure].values, cheap[measure].values
            assert truth_scores[measure].topics == cheap[measure].topics
            truth = y_all.mean(axis=1)
            truth_diff = truth[others] - truth[b]
            bias.setdefault(measure, []).append(f_all.mean(axis=1) - truth)
            low, high = bootstrap_interval(f_all, n_resamples, rng)
            records.append(("auto-only bootstrap", measure, d, 43, (low <= truth) & (truth <= high), high - low,
                            np.full(len(truth), np.nan), np.full(len(truth), np.nan)))
            T = y_all.shape[1]
            for _ in range(subsets):
                n = int(rng.integers(10, 21))
                gold = np.sort(rng.choice(T, n, replace=False))
                other = np.setdiff1d(np.arange(T), gold)
                y, f, fu = y_all[:, gold], f_all[:, gold], f_all[:, other]
                tuned = ppi_mean_rows(y, f, fu, alpha=ALPHA)
                classic = ppi_mean_rows(y, f, fu, alpha=ALPHA, lam=1.0)
                diff = ppi_mean_rows(y[others] - y[b], f[others] - f[b], fu[others] - fu[b], alpha=ALPHA)
                for name, rows, target in (("PPI++ (λ tuned)", tuned, truth), ("classic PPI (λ = 1)", classic, truth),
                                           ("difference to bm25base_p, PPI++", diff, truth_diff)):
                    records.append((name, measure, d, n, (rows.ci_low <= target) & (target <= rows.ci_high),
                                    rows.ci_high - rows.ci_low, rows.lam, rows.n_effective))
                records.append(("gold topics only", measure, d, n,
                                (tuned.gold_ci_low <= truth) & (truth <= tuned.gold_ci_high),
                                tuned.gold_ci_high - tuned.gold_ci_low, np.zeros(len(truth)), np.full(len(truth), n)))
                records.append(("gold only, difference to bm25base_p", measure, d, n,
                                (diff.gold_ci_low <= truth_diff) & (truth_diff <= diff.gold_ci_high),
                                diff.gold_ci_high - diff.gold_ci_low, np.zeros(len(others)),
                                np.full(len(others), n)))
    sizes = [len(r[4]) for r in records]
    frame = pl.DataFrame({
        "method": np.repeat([r[0] for r in records], sizes),
        "measure": np.repeat([r[1] for r in records], sizes),
        "draw": np.repeat([r[2] for r in records], sizes),
        "n": np.repeat([r[3] for r in records], sizes),
        "covered": np.concatenate([r[4] for r in records]),
        "width": np.concatenate([r[5] for r in records]),
        "lam": np.concatenate([r[6] for r in records]),
        "n_effective": np.concatenate([r[7] for r in records]).astype(float),
    })
    agreement["bias"] = {m: np.concatenate(b) for m, b in bias.items()}
    return {"frame": frame, "agreement": agreement, "runs": runs, "nist": nist}


def coverage_table(frame: pl.DataFrame) -> pl.DataFrame:
    order = ["PPI++ (λ tuned)", "classic PPI (λ = 1)", "gold topics only", "auto-only bootstrap",
             "difference to bm25base_p, PPI++", "gold only, difference to bm25base_p"]
    out = (frame.group_by("method", "measure")
           .agg(pl.len().alias("intervals"), pl.col("covered").mean().alias("coverage"),
                pl.col("width").mean().alias("mean_width"), pl.col("lam").mean().alias("mean_lam"),
                pl.col("n_effective").filter(pl.col("n_effective").is_finite()).mean()
                .alias("mean_n_effective"), pl.col("n").mean().alias("mean_n_gold"))
           .with_columns(pl.col("method").replace_strict({m: i for i, m in enumerate(order)}, return_dtype=pl.Int64)
                         .alias("_order"))
           .with_columns(pl.col("measure").replace_strict({m: i for i, m in enumerate(MEASURES)},
                                                          return_dtype=pl.Int64).alias("_measure"))
           .sort("_measure", "_order").drop("_order", "_measure"))
    return out


def by_gold_size(frame: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for low, high in BINS:
        part = frame.filter(pl.col("n").is_between(low, high))
        for measure in MEASURES:
            cell = {"gold topics": f"{low}–{high}", "measure": measure}
            for method, label in (("PPI++ (λ tuned)", "PPI++"), ("classic PPI (λ = 1)", "classic PPI"),
                                  ("gold topics only", "gold only")):
                sub = part.filter((pl.col("method") == method) & (pl.col("measure") == measure))
                cell[f"{label} coverage"] = sub["covered"].mean()
                cell[f"{label} width"] = sub["width"].mean()
            rows.append(cell)
    return pl.DataFrame(rows)


def markdown(frame: pl.DataFrame, percent: tuple[str, ...] = ()) -> str:
    head = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "|".join(":---" if frame.schema[c] == pl.String else "---:" for c in frame.columns) + "|"
    lines = [head, rule]
    for row in frame.iter_rows(named=True):
        cells = []
        for c, v in row.items():
            if v is None:
                cells.append("–")
            elif isinstance(v, float):
                cells.append("–" if np.isnan(v) else f"{100 * v:.1f}%" if c in percent or "coverage" in c
                             else f"{v:.3f}")
            else:
                cells.append(f"{v:,}" if isinstance(v, int) else str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def example(nist: Path, runs: list[Path], folder: Path) -> tuple[str, str]:
    """The worked example: 15 gold topics (seed 1), one draw of auto labels (seed 2), six runs."""
    qrels = read_qrels(nist)
    topics = sorted(qrels["topic"].unique().to_list())
    gold = sorted(generator(1).choice(topics, 15, replace=False).tolist())
    folder.mkdir(parents=True, exist_ok=True)
    write_qrels(qrels.filter(pl.col("topic").is_in(gold)), folder / "gold.qrels")
    write_qrels(degrade_qrels(nist, seed=2), folder / "auto.qrels")
    chosen = [r for r in runs if r.name.removesuffix(".run.gz") in EXAMPLE_RUNS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrstatsWarning)
        result = irstats.ppi(folder / "gold.qrels", folder / "auto.qrels", chosen, ["nDCG@10"], baseline=BASELINE)
        truth = irstats.evaluate(nist, chosen, ["nDCG@10"])["nDCG@10"]
    means = dict(zip(truth.systems, truth.values.mean(axis=1)))
    check = pl.DataFrame({"system": list(means), "nDCG@10, NIST, all 43 topics": list(means.values())})
    order = result.means["system"].to_list()
    check = check.sort(pl.col("system").replace_strict({s: i for i, s in enumerate(order)}, return_dtype=pl.Int64))
    return result.to_markdown(), markdown(check)


def refresh(name: str, text: str) -> None:
    page = PAGE.read_text()
    page, count = re.subn(rf"(<!-- ppi:{name} -->\n).*?(<!-- /ppi:{name} -->)",
                          lambda m: m.group(1) + text + m.group(2), page, flags=re.S)
    if count != 1:
        raise SystemExit(f"{PAGE}: no <!-- ppi:{name} --> markers")
    PAGE.write_text(page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True,
                        help="a copy of tests/data with all 37 official DL 2019 runs, as the page was made (tests/data keeps 14; tests/data/trec-dl-2019-passage/README.md says where the runs come from)")
    parser.add_argument("--draws", type=int, default=20, help="independent draws of the auto labels")
    parser.add_argument("--subsets", type=int, default=300, help="gold subsets per draw")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (auto-only interval)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--example-dir", type=Path, default=None,
                        help="where to write the worked example's gold and auto qrels (default: a temporary folder)")
    parser.add_argument("--write-doc", action="store_true", help="refresh the tables in docs/agreement.md")
    args = parser.parse_args()
    start = time.perf_counter()
    sim = simulate(args.data, args.draws, args.subsets, args.resamples, args.seed)
    table, sizes = coverage_table(sim["frame"]), by_gold_size(sim["frame"])
    a = sim["agreement"]
    labels = (f"Auto labels against NIST's (first draw, {int(a['pairs']):,} pairs): Cohen's κ {a['cohen_kappa']:.2f}, "
              f"quadratic κ {a['cohen_kappa_quadratic']:.2f}, Krippendorff's α (ordinal) "
              f"{a['krippendorff_alpha_ordinal']:.2f}; mean grade shift {a['mean_shift']:+.2f}. Auto-only mean − "
              f"full-qrels mean over runs and draws: "
              + "; ".join(f"{m} {b.mean():+.3f} (from {b.min():+.3f} to {b.max():+.3f})" for m, b in a["bias"].items())
              + ".\n")
    settings = (f"{args.draws} draws of the auto labels × {args.subsets} gold subsets of 10–20 topics "
                f"(seed {args.seed}); {len(sim['runs'])} runs; 95% intervals; auto-only bootstrap "
                f"{args.resamples:,} resamples.\n")
    folder = args.example_dir or Path(tempfile.mkdtemp(prefix="ppi-example-"))
    result_md, check_md = example(sim["nist"], sim["runs"], folder)
    seconds = time.perf_counter() - start
    print(settings + labels)
    print(markdown(table))
    print(markdown(sizes))
    print(result_md)
    print(check_md)
    print(f"({seconds:.0f} s; example qrels in {folder})")
    if args.write_doc:
        refresh("settings", settings + "\n" + labels)
        refresh("coverage", markdown(table))
        refresh("sizes", markdown(sizes))
        refresh("example", result_md + "\n" + check_md)


if __name__ == "__main__":
    main()
