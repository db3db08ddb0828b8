#!/usr/bin/env python3
"""Worked example: volatility over evaluation depth on the TREC 2019 Deep Learning passage runs.

The 2019 passage task was pooled shallowly (about depth 10 over these runs), so this is
the situation *Observed Volatility* (seed 004) studies. The script simulates a depth-10
pool with all 37 runs contributing, sweeps the METHODS.md §5.5 grid k = 1 … 1,000 for the
paper's metrics in both forms, computes the volatility statistics and writes

- ``docs/volatility/f12_<metric>.png`` (+ ``.csv``): F12 trajectories, one figure per metric,
  unjudged-as-non-relevant left, condensed right (the paper's Figs 1–4);
- ``docs/volatility/f13_ap_variants.png`` (+ ``.csv``): F13, AP′ = AP@k beside AP″ = AP_pool@k
  (the paper's Fig. 5);
- ``docs/volatility/f14_summary.png`` (+ ``.csv``): F14, τ_ref(k) and swaps per step;
- ``docs/volatility/statistics.md`` and ``statistics.csv``: the statistics table;
- ``docs/volatility/by_depth.csv``: every statistic at every depth;

and refreshes the table in ``docs/volatility.md`` between its ``statistics`` markers.

    python docs/examples/volatility_dl19.py --data DIR

``DIR`` is laid out as tests/data/trec-dl-2019-passage but holds all 37 runs, as the page was made
(tests/data keeps 14 of them; that folder's README says where they come from).

The same through the command line:

    irstats volatility QRELS RUNS/*.run.gz --simulate-pool 10 -o trajectories.tsv --plot f12.png
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import polars as pl

from irstats.depth import simulate_pool, sweep, volatility
from irstats.plots import save
from irstats.plots.volatility import ap_variants, plot_data, trajectory_grid, volatility_summary

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "docs" / "volatility"
PAGE = REPO / "docs" / "volatility.md"
POOL_DEPTH = 10
#: The paper's five metrics (Figs 1–4), then its two AP variants (Fig. 5) and RBP's residual.
METRICS = ("AP_min", "nDCG", "Q(beta=1,norm=min)", "RBP(p=0.8)", "ERR")
MEASURES = (*METRICS, "AP", "AP_pool", "RBPresid(p=0.8)")
DPI = 90


def slug(measure: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", measure).strip("_").lower()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True,
                        help="a trec-dl-2019-passage folder with all 37 official runs, as the page was made "
                             "(tests/data keeps 14; its README says where the runs come from)")
    args = parser.parse_args(argv)
    qrels = args.data / "qrels.dl19-passage.txt"
    runs = sorted((args.data / "runs").glob("*.run.gz"))
    OUT.mkdir(parents=True, exist_ok=True)

    pool = simulate_pool(qrels, runs, POOL_DEPTH)  # every run contributes; trec_eval order; M = 1000
    d_t = pool.complete_depth()
    print(f"{len(runs)} runs, {len(pool.collection.topics)} topics; the depth-{POOL_DEPTH} pool keeps "
          f"{int(pool.in_pool.sum())} of {len(pool.first_rank)} qrels lines; complete depth d_t of the official "
          f"qrels: min {d_t.min()}, median {int(np.median(d_t))}, max {d_t.max()}")

    result = sweep(pool, MEASURES)  # METHODS §5.5 grid ∪ {d}
    stats = volatility(result)  # paired t, α = 0.05, reference k_max = 1000

    for measure in METRICS:
        axes = trajectory_grid(result, [measure], panel_size=(4.6, 3.2))
        save(axes.flat[0], OUT / f"f12_{slug(measure)}.png", plot_data(axes), dpi=DPI)
    axes = ap_variants(result)
    save(axes[0], OUT / "f13_ap_variants.png", plot_data(axes), dpi=DPI)
    axes = volatility_summary(stats, measures=METRICS)
    save(axes[0], OUT / "f14_summary.png", plot_data(axes), dpi=DPI)

    table = stats.to_markdown()
    (OUT / "statistics.md").write_text(table)
    stats.summary().write_csv(OUT / "statistics.csv")
    stats.by_depth.write_csv(OUT / "by_depth.csv")
    print(stats.to_text())

    unjudged = pl.DataFrame({"depth": result.depths, "unjudged_share": np.nanmean(result.unjudged, axis=0)})
    for k in (10, 20, 100, 1000):
        share = unjudged.filter(pl.col("depth") == k)["unjudged_share"][0]
        print(f"mean share of unjudged documents in the top {k}: {share:.3f}")

    if PAGE.exists():
        text = PAGE.read_text()
        begin, end = "<!-- statistics: begin -->", "<!-- statistics: end -->"
        if begin in text and end in text:
            head, rest = text.split(begin, 1)
            _, tail = rest.split(end, 1)
            PAGE.write_text(f"{head}{begin}\n{table}{end}{tail}")


if __name__ == "__main__":
    main()
