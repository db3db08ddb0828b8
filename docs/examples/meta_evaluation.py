#!/usr/bin/env python3
"""Worked example: the meta-evaluation experiments of METHODS.md §5.1–5.4 on real runs.

Every experiment runs on two data sets from ``--data``, a folder laid out as tests/data but holding
all 37 DL 2019 runs (tests/data keeps 14 of them; tests/data/README.md says where they come from):

- **DL19**: the 37 official TREC 2019 Deep Learning passage runs on the 43 judged topics,
  evaluated with ``irstats.evaluate(..., rel_level=2)`` (the track's official binary level);
- **Robust04**: the ``trec_eval -q`` score matrix of 83 TREC 2004 Robust runs on topics
  351–450 (the pooled TREC-7 + TREC-8 topic set), read with ``irstats.trec_eval.read.read_trec_eval``.

Experiments (seeds fixed, so a rerun prints the same numbers):

1. split-half self-consistency of am, egm, gm_trec_eval and median (§5.1, seed 000):
   τ over random halvings, paired comparisons, ε sweep, Hard/Easy and Middle/Rest splits,
   share of low scores, Pearson variant — figures F1–F4;
2. predictive power φ and φ against topic-subset size (§5.2, seed 002) — F5, F6;
3. robustness of standardization to the number of standardizing systems, and factor
   longevity (§5.3, seed 003) — F7;
4. cross-collection comparability: randomised baseline, observed pairs, false positives,
   discriminative power for raw / R-normalised / standardized forms (§5.4, seed 003) — F8, F9;

plus the score matrices themselves (F10 heatmaps, F11 means with t-intervals).

Output: PNG figures (each with its plotted data as CSV beside it) in ``docs/meta/``, and the
Markdown tables of ``docs/meta-evaluation.md`` between its ``<!-- BEGIN name -->`` /
``<!-- END name -->`` markers, which a rerun refreshes. Inputs for the equivalent
``irstats`` command lines (score files, run-name lists) go to ``build/meta-evaluation/``.

    python docs/examples/meta_evaluation.py            # the full run (a few minutes on 2 cores)
    python docs/examples/meta_evaluation.py --quick    # smaller B; figures to build/, page untouched
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from numpy.random import PCG64, Generator

import irstats
from irstats.trec_eval.read import read_trec_eval
from irstats.meta.comparability import (compare_collections, discriminative_power, ideal_scores_from_qrels,
                                        metric_forms, metric_group, randomized_baseline)
from irstats.meta.predictive import predictive_curve, predictive_power
from irstats.meta.robustness import correlate_means, factor_longevity, standardization_robustness
from irstats.meta.splithalf import difficulty_splits, epsilon_sweep, split_half
from irstats.plots import save
from irstats.plots import meta as pm
from irstats.plots import standardization as ps
from irstats.standardize import apply_factors, fit_factors

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "docs" / "meta"
PAGE = REPO / "docs" / "meta-evaluation.md"
CLI_DIR = REPO / "build" / "meta-evaluation"
DPI = 110

#: One seed for everything (METHODS.md §5: Generator(PCG64(seed)), default 0).
SEED = 0

#: Numbers of random draws: the papers' values, and the --quick ones.
FULL = {"splithalf": 10_000, "predictive": 2_000, "curve": 2_000, "robustness": 2_000,
        "partitions": 1_000, "fp_partitions": 2_000}
QUICK = {"splithalf": 1_000, "predictive": 300, "curve": 300, "robustness": 200,
         "partitions": 200, "fp_partitions": 400}

METHODS = ("am", "egm", "gm_trec_eval", "median")
METHOD_LABEL = {"am": "AM", "egm": "εGM", "gm_trec_eval": "GM_trec_eval", "median": "MD"}
RBP = "RBP(p=0.95,rel=2)"  # binary at the track's level ℓ = 2
DL19_MEASURES = ["AP", "P@10", "RR", "nDCG@10", "nDCG", RBP, "SP", "DCG", "NumRel"]

#: Participating groups (run-name prefixes): the standardizing / evaluated split keeps a
#: group's runs together, so that no near-copy of an evaluated run helps standardize it.
GROUPS = {
    "DL19": ("ICT-", "TUA1", "TUW19", "UNH_", "bm25", "idst_", "ms_duet", "p_", "runid", "srchvrs", "test1"),
    "Robust04": ("Juru", "NLPR04", "SABIR04", "apl04", "fub04", "humR04", "pircRB04", "polyu", "uic04", "uogRob",
                 "vtum", "wdo"),
}
T7 = tuple(str(t) for t in range(351, 401))
T8 = tuple(str(t) for t in range(401, 451))


# --------------------------------------------------------------------------- helpers


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text.lower()).strip("_")


def fmt(value, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, float) and math.isnan(value):
        return "–"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.{digits}f}"
    return str(value)


def p_text(p: float) -> str:
    return "–" if math.isnan(p) else "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def md_table(frame: pl.DataFrame, digits: int | dict = 3) -> str:
    """A Markdown table of ``frame``: strings left-aligned, numbers right-aligned."""
    cols = frame.columns
    numeric = [frame.schema[c].is_numeric() for c in cols]
    head = "| " + " | ".join(cols) + " |"
    rule = "|" + "|".join("---:" if n else "---" for n in numeric) + "|"
    lines = [head, rule]
    for row in frame.iter_rows():
        cells = []
        for c, v in zip(cols, row):
            d = digits.get(c, 3) if isinstance(digits, dict) else digits
            cells.append(fmt(v, d))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def group_of(name: str, prefixes) -> str:
    matches = [p for p in prefixes if name.startswith(p)]
    if not matches:
        raise SystemExit(f"run {name!r} matches none of the group prefixes {prefixes}")
    return max(matches, key=len)


def split_runs(systems, prefixes, seed: int) -> tuple[list[str], list[str]]:
    """Standardizing and evaluated runs: the groups in a seeded random order, each whole
    group to whichever set has fewer runs so far (the standardizing set on a tie)."""
    groups: dict[str, list[str]] = {}
    for s in systems:
        groups.setdefault(group_of(s, prefixes), []).append(s)
    names = sorted(groups, key=lambda g: g.encode())
    order = Generator(PCG64(seed)).permutation(len(names))
    std, ev = [], []
    for k in order:
        (std if len(std) <= len(ev) else ev).extend(groups[names[k]])
    return sorted(std, key=str.encode), sorted(ev, key=str.encode)


class Report:
    """Collects the Markdown tables and writes them into the page between markers."""

    def __init__(self):
        self.tables: dict[str, str] = {}

    def add(self, name: str, text: str) -> None:
        self.tables[name] = text
        print(f"\n## {name}\n\n{text}", flush=True)

    def refresh(self, page: Path) -> None:
        text = page.read_text()
        missing = []
        for name, table in self.tables.items():
            begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
            if begin not in text or end not in text:
                missing.append(name)
                continue
            head, rest = text.split(begin, 1)
            _, tail = rest.split(end, 1)
            text = f"{head}{begin}\n{table}{end}{tail}"
        page.write_text(text)
        print(f"\nrefreshed {len(self.tables) - len(missing)} tables in {page}")
        if missing:
            print(f"warning: no markers for {', '.join(missing)} in {page}", file=sys.stderr)


def panels(n: int, size=(4.6, 3.4), ncols: int | None = None):
    ncols = ncols or n
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(size[0] * ncols, size[1] * nrows), layout="constrained",
                             squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def tagged(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Concatenate per-panel figure data with a ``panel`` column in front."""
    return pl.concat([f.select(pl.lit(k).alias("panel"), pl.all()) for k, f in frames.items()], how="diagonal_relaxed")


# --------------------------------------------------------------------------- data


def load(data: Path, cli_dir: Path) -> dict[str, dict]:
    dl = data / "trec-dl-2019-passage"
    qrels = dl / "qrels.dl19-passage.txt"
    runs = sorted((dl / "runs").glob("*.run.gz"))
    dl19 = irstats.evaluate(qrels, runs, DL19_MEASURES, rel_level=2)
    rb = read_trec_eval(data / "confint-score-matrices" / "robust04")
    out = {}
    for name, scores in (("DL19", dl19), ("Robust04", rb)):
        ap = scores["AP"]
        std = apply_factors(ap, fit_factors(ap))  # factors from all systems over all topics (§5.1)
        out[name] = {"scores": scores, "AP": ap, "std(AP)": std}
    out["DL19"]["qrels"] = qrels
    # Inputs of the equivalent command lines (not part of the docs).
    cli_dir.mkdir(parents=True, exist_ok=True)
    irstats.write_scores(dl19, cli_dir / "dl19.tsv", "tsv")
    keep = ["AP", "P@10", "nDCG", "NumRel"]
    for label, topics in (("t7", T7), ("t8", T8)):
        irstats.write_scores({m: rb[m].subset(topics=topics) for m in keep}, cli_dir / f"robust04-{label}.tsv", "tsv")
    return out


def describe(data, report: Report) -> None:
    rows = []
    for name, d in data.items():
        s, t = d["AP"].shape
        m = d["AP"].means()
        rows.append({"collection": name, "runs": s, "topics": t, "mean AP: lowest run": float(m.min()),
                     "median run": float(np.median(m)), "best run": float(m.max()),
                     "sd over runs": float(m.std(ddof=1)), "measures": ", ".join(d["scores"])})
    report.add("data", md_table(pl.DataFrame(rows)))


# --------------------------------------------------------------------------- 1. split-half (§5.1)


def experiment_splithalf(data, B, report: Report, out: Path) -> dict:
    results, pearson, sweeps = {}, {}, {}
    rows, paired_rows, low_rows, pearson_rows, sweep_rows = [], [], [], [], []
    for name, d in data.items():
        sc = d["scores"]
        mats = {"AP": d["AP"], "std(AP)": d["std(AP)"], "P@10": sc["P@10"], "nDCG": sc["nDCG"]}
        if RBP in sc:
            mats[RBP] = sc[RBP]
        res = split_half(mats, METHODS, n_splits=B["splithalf"], seed=SEED)  # D_t from AP
        results[name] = res
        summary = res.summary()
        for r in summary.filter(pl.col("measure").is_in(["AP", "std(AP)"])).iter_rows(named=True):
            rows.append({"collection": name, "measure": r["measure"], "method": METHOD_LABEL[r["method"]],
                         "mean τ": r["mean"], "sd": r["sd"], "q05": r["q05"], "q95": r["q95"],
                         "Hard/Easy": r["hard_easy"], "Middle/Rest": r["middle_rest"]})
        for measure in ("AP", "std(AP)"):
            for a, b in (("egm", "am"), ("gm_trec_eval", "am"), ("median", "am"), ("egm", "gm_trec_eval")):
                c = res.compare((measure, a), (measure, b))
                paired_rows.append({"collection": name, "measure": measure,
                                    "comparison": f"{METHOD_LABEL[a]} − {METHOD_LABEL[b]}",
                                    "mean Δτ": c.mean_delta, "share Δτ > 0": c.share_positive,
                                    "share Δτ < 0": c.share_negative, "t": c.t, "p": c.p})
        means = dict(zip(((v.measure, v.method) for v in res.variants), res.mean()))
        for measure in res.measures:
            low = res.low[measure]
            low_rows.append({"collection": name, "measure": measure, "%zero": low.pct_zero, "%low": low.pct_low,
                             **{f"τ {METHOD_LABEL[m]}": means[(measure, m)] for m in METHODS},
                             "εGM − AM": means[(measure, "egm")] - means[(measure, "am")],
                             "εGM − GM_te": means[(measure, "egm")] - means[(measure, "gm_trec_eval")]})
        # Pearson variant, on the same halvings.
        pr = split_half({"AP": d["AP"], "std(AP)": d["std(AP)"]}, METHODS, splits=res.splits["AP"],
                        correlation="pearson")
        pearson[name] = pr
        pmeans = dict(zip(((v.measure, v.method) for v in pr.variants), pr.mean()))
        for measure in ("AP", "std(AP)"):
            pearson_rows.append({"collection": name, "measure": measure,
                                 **{f"r {METHOD_LABEL[m]}": pmeans[(measure, m)] for m in METHODS},
                                 **{f"τ {METHOD_LABEL[m]}": means[(measure, m)] for m in METHODS}})
        # ε sweep: εGM and εHM for ε = 1e-5 … 1e3, AM as the asymptote.
        sw = epsilon_sweep(mats, splits=res.splits["AP"])  # the same halvings
        sweeps[name] = sw
        ssum = sw.summary()
        for measure in sw.measures:
            part = ssum.filter(pl.col("measure") == measure)
            am = part.filter(pl.col("method") == "am")["mean"][0]
            egm = part.filter(pl.col("method") == "egm").sort("epsilon")
            ehm = part.filter(pl.col("method") == "ehm").sort("epsilon")
            at = {round(math.log10(e) * 2) / 2: v for e, v in zip(egm["epsilon"], egm["mean"])}
            best = egm.sort("mean", descending=True).row(0, named=True)
            best_h = ehm.sort("mean", descending=True).row(0, named=True)
            sweep_rows.append({"collection": name, "measure": measure, "AM (ε → ∞)": am, "εGM 1e-5": at[-5.0],
                               "εGM 0.01": at[-2.0], "εGM 0.1": at[-1.0], "εGM 1": at[0.0], "εGM 1e3": at[3.0],
                               "best εGM": best["mean"], "ε of best εGM": f"{best['epsilon']:.2g}",
                               "best εHM": best_h["mean"], "ε of best εHM": f"{best_h['epsilon']:.2g}"})
    digits = {"%zero": 1, "%low": 1}
    report.add("splithalf", md_table(pl.DataFrame(rows), digits))
    report.add("splithalf_paired", md_table(pl.DataFrame(paired_rows).with_columns(
        pl.col("p").map_elements(p_text, return_dtype=pl.String)), {"t": 1}))
    report.add("splithalf_low", md_table(pl.DataFrame(low_rows), digits))
    report.add("splithalf_pearson", md_table(pl.DataFrame(pearson_rows)))
    report.add("splithalf_sweep", md_table(pl.DataFrame(sweep_rows)))

    # F1: τ densities, AP and std(AP), one figure per collection.
    for name, res in results.items():
        fig, axes = panels(2)
        frames = {}
        for ax, measure in zip(axes, ("AP", "std(AP)")):
            pm.plot_tau_density(res, [(measure, m) for m in METHODS], ax=ax)
            ax.set_title(f"{name}: {measure}")
            frames[measure] = pm.figure_data(ax)
        save(fig, out / f"f1_tau_density_{slug(name)}.png", tagged(frames), dpi=DPI)
    # F2: mean τ against ε, a panel per measure.
    for name, sw in sweeps.items():
        fig, axes = panels(len(sw.measures), size=(3.9, 3.2), ncols=3)
        frames = {}
        for ax, measure in zip(axes, sw.measures):
            pm.plot_epsilon_sweep(sw, [measure], ax=ax)
            ax.set_title(f"{name}: {measure}", fontsize="medium")
            ax.legend(fontsize="x-small")
            frames[measure] = pm.figure_data(ax)
        save(fig, out / f"f2_epsilon_sweep_{slug(name)}.png", tagged(frames), dpi=DPI)
    # F3: per-topic score densities, raw AP against std(AP); quartiles as in *Score Standardization* Fig. 3.
    dist_rows = []
    for name, d in data.items():
        for measure in ("AP", "std(AP)"):
            x = d[measure].values[~np.isnan(d[measure].values)]
            q = np.quantile(x, [0.25, 0.5, 0.75])
            dist_rows.append({"collection": name, "measure": measure, "scores": int(x.size), "mean": float(x.mean()),
                              "share < 0.2": float((x < 0.2).mean()), "25%": q[0], "50%": q[1], "75%": q[2]})
    report.add("score_distribution", md_table(pl.DataFrame(dist_rows)))
    fig, axes = panels(2)
    frames = {}
    for ax, (name, d) in zip(axes, data.items()):
        pm.plot_score_density({"AP": d["AP"], "std(AP)": d["std(AP)"]}, ax=ax)
        ax.set_title(f"{name}: {d['AP'].shape[0]} systems × {d['AP'].shape[1]} topics")
        frames[name] = pm.figure_data(ax)
    save(fig, out / "f3_score_density.png", tagged(frames), dpi=DPI)
    # F4: Δτ against the share of low scores.
    fig, axes = panels(2, size=(5.2, 3.8))
    frames = {}
    for ax, baseline in zip(axes, ("am", "gm_trec_eval")):
        pm.plot_delta_low(results, "egm", baseline, ax=ax)
        ax.set_title(f"({'ab'[len(frames)]}) εGM against {METHOD_LABEL[baseline]}")
        frames[baseline] = pm.figure_data(ax)
    save(fig, out / "f4_delta_low.png", tagged(frames), dpi=DPI)
    return {"results": results, "pearson": pearson, "sweeps": sweeps}


# --------------------------------------------------------------------------- 2. predictive power (§5.2)


def experiment_predictive(data, B, report: Report, out: Path) -> None:
    measure_sets = {"DL19": ["P@10", "RR", RBP, "AP", "nDCG", "nDCG@10"],
                    "Robust04": ["P@10", "RR", "AP", "nDCG", "nDCG@10", "Rprec", "Bpref"]}
    sizes = {"DL19": (5, 10, 15, 20), "Robust04": (5, 10, 15, 20, 25, 50)}
    curves = {}
    curve_rows = []
    for name, d in data.items():
        sc = d["scores"]
        res = predictive_power(sc, measure_sets[name], top=0.75, by="AP", n_splits=B["predictive"], seed=SEED)
        rows = []
        for i, a in enumerate(res.measures):
            rows.append({"φ (row → column)": a, **{b: (float(res.phi[i, j]) if j >= i else None)
                                                for j, b in enumerate(res.measures)}})
        frame = pl.DataFrame(rows, schema={"φ (row → column)": pl.String, **{b: pl.Float64 for b in res.measures}})
        note = (f"{len(res.systems)} of {res.n_systems_all} systems (the top 75% by mean AP), "
                f"{len(d['AP'].topics)} topics, {res.n_splits} random halvings; upper triangle (φ is symmetric).\n\n")
        report.add(f"predictive_{slug(name)}", note + md_table(frame, 2))
        ax = pm.plot_phi_heatmap(res)
        ax.set_title(f"{name}: φ, top {len(res.systems)} of {res.n_systems_all} systems", fontsize="medium")
        save(ax, out / f"f5_phi_heatmap_{slug(name)}.png", pm.figure_data(ax), dpi=DPI)

        curve = predictive_curve(sc, sizes=sizes[name], top=0.75, by="AP", n_splits=B["curve"], seed=SEED)
        curves[name] = curve
        for k, n in enumerate(curve.sizes):
            curve_rows.append({"collection": name, "topics per subset": n,
                               **{f"{a}→{b}": float(curve.phi[k, p]) for p, (a, b) in enumerate(curve.pairs)}})
    report.add("predictive_curve", md_table(pl.DataFrame(curve_rows)))
    fig, axes = panels(2)
    frames = {}
    for ax, (name, curve) in zip(axes, curves.items()):
        pm.plot_phi_curve(curve, ax=ax)
        ax.set_title(f"{name}: {len(curve.systems)} systems, {curve.values.shape[1]} draws per size",
                     fontsize="medium")
        frames[name] = pm.figure_data(ax)
    save(fig, out / "f6_phi_curve.png", tagged(frames), dpi=DPI)


# --------------------------------------------------------------------------- 3. robustness (§5.3)


def experiment_robustness(data, B, report: Report, out: Path, cli_dir: Path, quick: bool) -> None:
    set_rows, rob_rows, first_rows, long_rows = [], [], [], []
    results, lines = {}, {}
    for name, d in data.items():
        ap = d["AP"]
        std_runs, ev_runs = split_runs(ap.systems, GROUPS[name], SEED)
        for label, runs in (("standardizing", std_runs), ("evaluated", ev_runs)):
            (cli_dir / f"{slug(name)}-{label}.txt").write_text("\n".join(runs) + "\n")
            groups = sorted({group_of(r, GROUPS[name]) for r in runs}, key=str.encode)
            set_rows.append({"collection": name, "set": label, "runs": len(runs),
                             "groups (run-name prefixes)": ", ".join(g.rstrip("-_") for g in groups)})
        sizes = None
        if quick:
            sizes = sorted({n for n in (2, 3, 4, 5, 7, 10, 15, 20, 25, 30, 40) if n <= len(std_runs)}
                           | {len(std_runs)})
        res = standardization_robustness(ap, std_runs, ev_runs, sizes=sizes, n_samples=B["robustness"], seed=SEED)
        results[name] = res
        # Reference lines: how far rankings move between topic sets (mean τ over random
        # halvings of the evaluated systems' AM-AP), and raw AP against std(AP).
        ev = ap.subset(systems=ev_runs)
        halves = split_half(ev, ["am"], n_splits=B["splithalf"], seed=SEED, difficulty=None)
        halves_r = split_half(ev, ["am"], splits=halves.splits["AP"], correlation="pearson", difficulty=None)
        topic_tau, topic_r = float(halves.mean()[0]), float(halves_r.mean()[0])
        lines[name] = {"topic halves (mean)": topic_tau, "raw vs std": res.raw_tau}
        if name == "Robust04":
            t78 = correlate_means(ap.subset(systems=ev_runs, topics=T7), ap.subset(systems=ev_runs, topics=T8))
            lines[name]["T7 vs T8 topics"] = t78["kendall"]
        frame = res.to_frame()
        show = {2, 3, 4, 5, 10, 15, 20, 30, 40, len(std_runs)}
        for r in frame.iter_rows(named=True):
            if r["n"] in show:
                rob_rows.append({"collection": name, "n": r["n"], "τ 50%": r["tau_q50"], "τ 5%": r["tau_q05"],
                                 "τ 1%": r["tau_q01"], "τ min": r["tau_min"],
                                 "zero-variance topics": r["zero_variance"]})
        for label, value in lines[name].items():
            above = frame.filter(pl.col("tau_q01") > value)
            above5 = frame.filter((pl.col("tau_q05") > value) & (pl.col("tau_q01") > value))
            first_rows.append({"collection": name, "reference": label, "τ": value,
                               "smallest n with 1% quantile above": above["n"].min() if above.height else None,
                               "smallest n with 5% and 1% above": above5["n"].min() if above5.height else None})
        # Factor longevity: the evaluated systems standardized with factors from the
        # standardizing runs against factors from the evaluated runs themselves.
        topic_sets = {"all": None}
        if name == "Robust04":
            topic_sets = {"T7 (351–400)": T7, "T8 (401–450)": T8, "all (351–450)": None}
        for label, topics in topic_sets.items():
            m = ap if topics is None else ap.subset(topics=topics)
            lg = factor_longevity(m, m.subset(systems=std_runs), ev_runs, systems=ev_runs,
                                  labels=("standardizing", "evaluated"))
            long_rows.append({"collection": name, "topics": f"{label} ({len(m.topics)})", "Pearson": lg.pearson,
                              "Kendall": lg.kendall})
        long_rows.append({"collection": name, "topics": "baseline: raw AM-AP, random topic halves (mean)",
                          "Pearson": topic_r, "Kendall": topic_tau})
        if name == "Robust04":
            long_rows.append({"collection": name, "topics": "baseline: raw AM-AP, T7 vs T8 topics",
                              "Pearson": t78["pearson"], "Kendall": t78["kendall"]})
    report.add("robustness_sets", md_table(pl.DataFrame(set_rows)))
    report.add("robustness", md_table(pl.DataFrame(rob_rows), {"zero-variance topics": 4}))
    report.add("robustness_thresholds", md_table(pl.DataFrame(first_rows)))
    report.add("longevity", md_table(pl.DataFrame(long_rows)))
    fig, axes = panels(2, size=(5.2, 3.8))
    frames = {}
    for ax, (name, res) in zip(axes, results.items()):
        ps.plot_tau_quantiles(res, ax=ax, reference_lines=lines[name],
                              title=f"{name}: {len(res.standardizing)} standardizing / {len(res.evaluated)} "
                                    f"evaluated runs, {res.n_samples} samples")
        ax.title.set_fontsize("medium")
        frames[name] = ps.tau_quantile_data(res, lines[name])
    save(fig, out / "f7_robustness.png", tagged(frames), dpi=DPI)


# --------------------------------------------------------------------------- 4. comparability (§5.4)


def experiment_comparability(data, B, report: Report, out: Path) -> None:
    base_rows, obs_rows, disc_rows = [], [], []
    baselines, observed = {}, {}
    for name, d in data.items():
        sc = d["scores"]
        if name == "DL19":
            ideal = ideal_scores_from_qrels(d["qrels"], "DCG")  # IDCG: DCG of the ideal ranking
            chosen = [sc["P@10"], sc[RBP], sc["SP"], sc["DCG"]]
            forms = {metric_group(m.measure): metric_forms(m, num_rel=sc["NumRel"], ideal=ideal) for m in chosen}
            pairs = {"Hard vs Easy topics": difficulty_splits(d["AP"])["hard_easy"].topic_sets(0)}
            labels = ("Hard", "Easy")
        else:
            chosen = [sc["P@10"], sc["AP"], sc["nDCG"]]  # no qrels here: no DCG, so nDCG has no raw form
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*ideal score.*")
                forms = {metric_group(m.measure): metric_forms(m, num_rel=sc["NumRel"]) for m in chosen}
            pairs = {"T7 vs T8": (T7, T8)}
            labels = ("T7", "T8")
        res = randomized_baseline(forms, B["partitions"], B["fp_partitions"], seed=SEED)
        baselines[name] = res
        for r in res.to_frame().iter_rows(named=True):
            base_rows.append({"collection": name, "metric": r["group"], "form": r["form"], "measure": r["measure"],
                              "dRMSE mean": r["drmse_mean"], "2.5%": r["drmse_q2.5"], "97.5%": r["drmse_q97.5"],
                              "99%": r["drmse_q99"], "FP mean": r["fp_mean"], "FP 97.5%": r["fp_q97.5"],
                              "disc. power": r["discriminative_power"]})
        for pair, (first, second) in pairs.items():
            obs_frame = []
            for group, fs in forms.items():
                for form, m in fs.items():
                    comp = compare_collections({labels[0]: m.subset(topics=first), labels[1]: m.subset(topics=second)})
                    dist = res.drmse[(group, form)]
                    obs_rows.append({"collection": name, "pair": pair, "metric": group, "form": form,
                                     "dRMSE": float(comp.drmse[0, 1]), "baseline mean": float(dist.mean()),
                                     "baseline 99%": float(np.quantile(dist, 0.99)),
                                     "percentile": float(np.mean(dist <= comp.drmse[0, 1])),
                                     f"{labels[0]}>{labels[1]}": int(comp.better[0, 1]),
                                     f"{labels[1]}>{labels[0]}": int(comp.better[1, 0]),
                                     "FP rate": float(comp.fp_rate[0, 1])})
                    obs_frame.append({"group": group, "form": form, "drmse": float(comp.drmse[0, 1])})
            observed[f"{name}: {pair}"] = pl.DataFrame(obs_frame)
        if name == "Robust04":  # discriminative power on the TREC 8 topics alone, as the paper reports it
            for group, fs in forms.items():
                for form, m in fs.items():
                    disc_rows.append({"collection": name, "topics": "T8 (401–450)", "metric": group, "form": form,
                                      "measure": m.measure,
                                      "disc. power": discriminative_power(m.subset(topics=T8))})
    report.add("comparability_baseline", md_table(pl.DataFrame(base_rows)))
    for name in data:
        part = pl.DataFrame([r for r in obs_rows if r["collection"] == name])
        report.add(f"comparability_observed_{slug(name)}", md_table(part.drop("collection"), {"percentile": 3}))
    report.add("comparability_discriminative", md_table(pl.DataFrame(disc_rows)))

    fig, axes = panels(4, size=(5.4, 3.6), ncols=2)
    frames = {}
    for ax, (name, res) in zip(axes[:2], baselines.items()):
        ps.plot_drmse(res, ax=ax, title=f"{name}: randomised baseline ({res.n_partitions} partitions "
                                        f"of {len(res.topics)} topics)")
        frames[f"{name} baseline"] = ps.drmse_data(res)
    for ax, (name, frame) in zip(axes[2:], observed.items()):
        ps.plot_drmse(frame, ax=ax, whiskers=False, title=f"{name} (observed)")
        frames[name] = ps.drmse_data(frame, whiskers=False)
    for ax in axes:
        ax.title.set_fontsize("medium")
    save(fig, out / "f8_drmse.png", tagged(frames), dpi=DPI)
    fig, axes = panels(2, size=(5.4, 3.6))
    frames = {}
    for ax, (name, res) in zip(axes, baselines.items()):
        ps.plot_false_positives(res, ax=ax, title=f"{name}: {res.n_fp_partitions} random partitions")
        ax.title.set_fontsize("medium")
        frames[name] = ps.false_positive_data(res)
    save(fig, out / "f9_false_positives.png", tagged(frames), dpi=DPI)


# --------------------------------------------------------------------------- score matrices (F10, F11)


def score_matrix_figures(data, out: Path) -> None:
    for name, d in data.items():
        ax = pm.plot_score_heatmap(d["AP"])
        ax.set_title(f"{name}: AP per system and topic")
        save(ax, out / f"f10_heatmap_{slug(name)}.png", pm.figure_data(ax), dpi=DPI)
        ax = pm.plot_system_means(d["AP"])
        ax.set_title(f"{name}: mean AP with 95% t-interval ({d['AP'].shape[1]} topics)")
        save(ax, out / f"f11_means_{slug(name)}.png", pm.figure_data(ax), dpi=DPI)


# --------------------------------------------------------------------------- main


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smaller B everywhere; figures go to build/meta-evaluation/quick and the page is "
                             "left alone (unless --out/--page say otherwise)")
    parser.add_argument("--data", type=Path, required=True,
                        help="a copy of tests/data with all 37 official DL 2019 runs, as the page was made (tests/data keeps 14; tests/data/trec-dl-2019-passage/README.md says where the runs come from)")
    parser.add_argument("--out", type=Path, default=None, help="figure folder (default docs/meta)")
    parser.add_argument("--page", type=Path, default=None, help="page whose tables to refresh "
                                                                "(default docs/meta-evaluation.md; --quick: none)")
    args = parser.parse_args(argv)
    B = QUICK if args.quick else FULL
    out = args.out or (CLI_DIR / "quick" if args.quick else OUT)
    page = args.page if args.page is not None else (None if args.quick else PAGE)
    out.mkdir(parents=True, exist_ok=True)
    pl.Config.set_tbl_rows(-1)
    warnings.simplefilter("once")

    start = time.perf_counter()
    report = Report()
    data = load(args.data, CLI_DIR)
    describe(data, report)
    what = {"splithalf": "random halvings: split-half, Pearson variant, ε sweep (§5.1)",
            "predictive": "random halvings, φ matrix (§5.2)",
            "curve": "draws per subset size, φ curve (§5.2)",
            "robustness": "samples per number of standardizing systems (§5.3)",
            "partitions": "random 50/50 partitions, dRMSE (§5.4)",
            "fp_partitions": "random 50/50 partitions, false positives (§5.4)"}
    settings = pl.DataFrame({"random draws": [what[k] for k in B], "B": list(B.values()),
                             "seed": [SEED] * len(B)})
    report.add("settings", md_table(settings))
    timings = {}
    for label, step in (("split-half (§5.1)", lambda: experiment_splithalf(data, B, report, out)),
                        ("predictive power (§5.2)", lambda: experiment_predictive(data, B, report, out)),
                        ("robustness (§5.3)", lambda: experiment_robustness(data, B, report, out, CLI_DIR,
                                                                           args.quick)),
                        ("comparability (§5.4)", lambda: experiment_comparability(data, B, report, out)),
                        ("score matrices (F10, F11)", lambda: score_matrix_figures(data, out))):
        t0 = time.perf_counter()
        step()
        timings[label] = time.perf_counter() - t0
        print(f"[{label}: {timings[label]:.1f} s]", flush=True)
    if page is not None:
        report.refresh(page)
    total = time.perf_counter() - start
    print("\n" + "\n".join(f"{k:28s} {v:7.1f} s" for k, v in timings.items()))
    print(f"{'total':28s} {total:7.1f} s; figures in {out}")


if __name__ == "__main__":
    main()
