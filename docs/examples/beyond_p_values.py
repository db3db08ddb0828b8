#!/usr/bin/env python3
"""Worked examples of docs/bayes.md and docs/meta-analysis.md (issue 38).

1. Each track's best run against its median run (by mean AP) on TREC Robust 2004, Robust 2005
   and Web 2012 (the trec_eval -q score files of Soboroff's confint repository): the Bayesian
   signed-rank and paired t posteriors per track (beside baycomp's signed-rank probabilities when
   the ``baycomp`` package is installed), and the improvement pooled over the three tracks by
   ``irstats.stats.meta_analysis`` (mean difference and d_z, with the Hartung–Knapp rows).
2. The Bayesian view of TREC 2019 Deep Learning (passages): every run against the best by
   nDCG@10, ROPE ±0.01.

Writes the tables and figures into docs/bayes/ and docs/meta-analysis/ and refreshes the
tables of docs/bayes.md and docs/meta-analysis.md between their markers.

    python docs/examples/beyond_p_values.py --data DIR   # laid out as tests/data, with all 37 DL 2019 runs
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl

import irstats
from irstats.trec_eval.read import read_trec_eval
from irstats.plots import save, style
from irstats.stats.bayes import bayes
from irstats.stats.meta_analysis import meta_analysis

REPO = Path(__file__).resolve().parents[2]
TRACKS = {"robust04": "Robust 2004", "robust05": "Robust 2005", "web2012": "Web 2012"}
ROPE = 0.01
SEED = 0


def refresh(page: Path, marker: str, text: str) -> None:
    """Replace what stands between ``<!-- marker -->`` and ``<!-- /marker -->`` in the page."""
    body = page.read_text()
    start, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    head, rest = body.split(start, 1)
    _, tail = rest.split(end, 1)
    page.write_text(f"{head}{start}\n{text.strip()}\n{end}{tail}")


def best_and_median(matrix) -> tuple[str, str]:
    """The run with the best mean and the run ranked at the median (position ⌊k/2⌋ of k, best first)."""
    order = np.argsort(-matrix.means(), kind="stable")
    return matrix.systems[order[0]], matrix.systems[order[len(order) // 2]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True,
                        help="a folder laid out as tests/data with all 37 DL 2019 runs (tests/data keeps 14: the "
                             "page's DL 2019 table was made from all of them)")
    args = parser.parse_args()
    bayes_dir, meta_dir = REPO / "docs" / "bayes", REPO / "docs" / "meta-analysis"
    bayes_dir.mkdir(exist_ok=True)
    meta_dir.mkdir(exist_ok=True)

    tracks = {name: read_trec_eval(args.data / "confint-score-matrices" / name) for name in TRACKS}
    pairs = {name: best_and_median(scores["AP"]) for name, scores in tracks.items()}

    # 1a. the Bayesian view of each track's pair
    rows = []
    for name, (best, median) in pairs.items():
        matrix = tracks[name]["AP"]
        small = irstats.ScoreMatrix(matrix.values[[matrix.systems.index(median), matrix.systems.index(best)]],
                                    (median, best), matrix.topics, "AP")
        for test in ("signed_rank", "t"):
            row = bayes(small, median, test=test, rope=ROPE, seed=SEED).frame.row(0, named=True)
            row = {"track": TRACKS[name], "test": test, **row}
            try:
                import baycomp

                if test == "signed_rank":
                    theirs = baycomp.SignedRankTest.probs(matrix.system(median), matrix.system(best), rope=ROPE,
                                                          nsamples=50_000, random_state=SEED)
                    row["baycomp_p_system_better"] = float(theirs[2])
                else:
                    row["baycomp_p_system_better"] = None
            except ImportError:
                pass
            rows.append(row)
        if name == "robust05":
            result = bayes(small, median, test="signed_rank", rope=ROPE, seed=SEED)
            with style("page"):
                ax = result.plot_posterior()
                save(ax, bayes_dir / "posterior_robust05.png", ax.irstats_data)
    tracks_table = pl.DataFrame(rows)
    tracks_table.write_csv(bayes_dir / "tracks.tsv", separator="\t")

    # 1b. the meta-analysis of the same pairs
    systems = {n: p[0] for n, p in pairs.items()}
    baselines = {n: p[1] for n, p in pairs.items()}
    md = meta_analysis(tracks, systems, baselines, ["AP"], effect="md", hartung_knapp=True, per_collection=True)
    dz = meta_analysis(tracks, systems, baselines, ["AP"], effect="dz", hartung_knapp=True, per_collection=True)
    (meta_dir / "robust_web_md.tsv").write_text(md.to_tsv())
    (meta_dir / "robust_web_dz.tsv").write_text(dz.to_tsv())
    with style("page"):
        ax = md.plot()
        save(ax, meta_dir / "forest_md.png", ax.irstats_data)

    # 2. DL 2019: every run against the best by nDCG@10
    base = args.data / "trec-dl-2019-passage"
    dl19 = irstats.evaluate(base / "qrels.dl19-passage.txt", sorted((base / "runs").glob("*.run.gz")), ["nDCG@10"])
    dl = bayes(dl19, rope=ROPE, seed=SEED)
    dl_t = bayes(dl19, rope=ROPE, test="t")
    (bayes_dir / "dl19.tsv").write_text(dl.to_tsv())
    with style("page"):
        ax = dl.plot_simplex()
        save(ax, bayes_dir / "simplex_dl19.png", ax.irstats_data)
        ax = dl.plot_posterior()
        save(ax, bayes_dir / "posterior_dl19.png", ax.irstats_data)
    both = dl.frame.select("system", "p_baseline_better", "p_rope", "p_system_better", "interval_low",
                           "interval_high").join(
        dl_t.frame.select("system", pl.col("p_baseline_better").alias("t_p_baseline_better"),
                          pl.col("p_rope").alias("t_p_rope"), pl.col("p_system_better").alias("t_p_system_better")),
        on="system")

    from irstats.result import FrameResult

    def md_table(frame, caption):
        return FrameResult(frame, caption).to_markdown(3)

    refresh(REPO / "docs" / "bayes.md", "tracks", md_table(tracks_table, "Best against median run by AP, ROPE ±0.01"))
    refresh(REPO / "docs" / "bayes.md", "dl19", md_table(both, f"DL 2019 nDCG@10: every run against {dl.baseline}, "
                                                             "ROPE ±0.01 (signed-rank; t_: paired t)"))
    refresh(REPO / "docs" / "meta-analysis.md", "md", md.to_markdown(4))
    refresh(REPO / "docs" / "meta-analysis.md", "dz", dz.to_markdown(4))


if __name__ == "__main__":
    main()
