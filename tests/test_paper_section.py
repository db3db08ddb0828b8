"""Zero hand edits (issue 33): the evaluation section of a two-column paper on the 37 TREC DL 2019
runs, made by irstats' commands alone and compiled with pdflatex as a user would.

The section holds the main table (``compare --columns means``, markers on the means, a caption
of the user's, ``--label tab:main``), a table of wins/ties/losses for chosen systems under their
paper names, the risk table, the report's leaderboard (page-wide) and its column version, and
the system-means figure at column width. The checks are the ones a camera-ready check makes:
no Overfull or Underfull box, no multiply-defined label, no Type 3 font, every word of the PDF
inside its page (``pdftotext -bbox``), every one of the 37 system names in the column figure,
and every table at its natural width (compiled once more with adjustbox's scaling turned off,
there is still no Overfull box: no table's text was shrunk below the float's 9 or 8 pt).

The expected numbers are not from irstats: wins/ties/losses are counted in a plain loop over the
per-topic scores, and the markers follow scipy's paired t-test with statsmodels' Holm correction.
pdflatex, pdffonts and pdftotext come with ``./install.sh --test``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import irstats
from irstats.report import build_report
from tests.conftest import REFERENCE_DATA, run_cli

MEASURES = ["nDCG@10", "AP", "RR", "R@1000"]
#: All 37 runs' per-topic scores of MEASURES (trec_eval 10's -q output, -l 1; see tests/data/README.md).
SCORES = REFERENCE_DATA / "trec-dl-2019-passage" / "all-runs-4-measures.tsv"
BASELINE = "bm25base_p"

#: A SIGIR-style two-column article (ACM's 7 in text block, 3.33 in columns).
ARTICLE = r"""\documentclass[10pt,twocolumn]{article}
\setlength{\textwidth}{7in}\setlength{\oddsidemargin}{-0.25in}\setlength{\textheight}{9in}
\setlength{\topmargin}{-0.5in}\setlength{\columnsep}{0.34in}
\usepackage{booktabs}%(adjustbox)s
\usepackage{graphicx}
\begin{document}
\section{Evaluation}
We compare 37 runs of the TREC 2019 Deep Learning passage task against BM25
(Table~\ref{tab:main}, Table~\ref{tab:wtl}, Table~\ref{tab:risk}, Table~\ref{tab:leaderboard},
Figure~\ref{fig:means}).
\input{main.tex}
\input{wtl.tex}
\input{risk.tex}
\input{leaderboard.tex}
\input{leaderboard-column.tex}
\begin{figure}[t]
\centering
\includegraphics[width=\columnwidth]{means.pdf}
\caption{nDCG@10 of every run with its 95\%% t-interval.}
\label{fig:means}
\end{figure}
\end{document}
"""
#: adjustbox as it is, or as a no-op: a table that needed shrinking then overflows its column.
WITH_ADJUSTBOX = r"\usepackage{adjustbox}"
NO_SCALING = r"\newenvironment{adjustbox}[1]{}{}"


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is missing: run ./install.sh --test (TeX and poppler-utils)")
    return found


@pytest.fixture(scope="module")
def section(reference_data, tmp_path_factory):
    """The section's files, each made by one irstats command (or one call for the figure)."""
    base = reference_data / "trec-dl-2019-passage"
    folder = tmp_path_factory.mktemp("paper")
    runs = sorted((base / "runs").glob("*.run.gz"))
    qrels = base / "qrels.dl19-passage.txt"
    # the per-topic scores of all 37 runs, as trec_eval 10 printed them (tests/data's README)
    score_file = SCORES
    scores = irstats.read_scores(score_file)
    names = folder / "names.tsv"
    names.write_text("bm25base_p\tBM25\nidst_bert_p1\tBERT (p1)\np_exp_rm3_bert\tRM3 + BERT\n")
    commands = {
        "main": ["compare", score_file, *(a for m in MEASURES for a in ("-m", m)), "--baseline", BASELINE,
                 "--columns", "means", "--markers", "mean",
                 "--caption", "Effectiveness of the 37 runs on TREC DL 2019.", "--label", "tab:main",
                 "--format", "latex", "-o", folder / "main.tex"],
        "wtl": ["compare", score_file, "-m", "nDCG@10", "-m", "AP", "--baseline", BASELINE, "--columns",
                "means,wins", "--systems", "idst_bert_p1,p_exp_rm3_bert,p_bert", "--names", names,
                "--format", "latex", "-o", folder / "wtl.tex"],
        "risk": ["risk", score_file, "-m", "nDCG@10", "--baseline", BASELINE, "--format", "latex",
                 "-o", folder / "risk.tex"],
    }
    outputs = {}
    for name, args in commands.items():
        code, out, err = run_cli(args, _Capture())
        assert code == 0, f"{name}: {err}"
        outputs[name] = (folder / f"{name}.tex").read_text()
    # the report evaluates the runs the repository holds (the baseline among them)
    report = build_report(qrels, runs, folder / "study", measures=MEASURES, baseline=BASELINE, quick=True,
                          figures=False, progress=False)
    for name in ("leaderboard", "leaderboard-column"):
        shutil.copy(report.out_dir / "tables" / f"{name}.tex", folder / f"{name}.tex")
    from irstats.plots import meta, save

    save(meta.plot_system_means(scores["nDCG@10"], size="column"), folder / "means.pdf")
    from types import SimpleNamespace

    return folder, scores, outputs, SimpleNamespace(result=report, qrels=qrels, runs=runs)


class _Capture:
    """A capsys stand-in for :func:`run_cli` outside a test function (the module fixture)."""

    def readouterr(self):
        return "", ""


def _compile(folder: Path, preamble: str, name: str) -> str:
    tex = folder / f"{name}.tex"
    tex.write_text(ARTICLE % {"adjustbox": preamble})
    for _ in range(2):  # twice: the labels resolve on the second pass
        done = subprocess.run([_tool("pdflatex"), "-interaction=nonstopmode", "-halt-on-error", tex.name],
                              cwd=folder, capture_output=True, text=True, timeout=180)
        log = (folder / f"{name}.log").read_text(errors="replace")
        assert done.returncode == 0, f"pdflatex failed:\n{log[-3000:]}"
    return log


def test_the_section_compiles_camera_ready(section):
    folder, _, _, _ = section
    log = _compile(folder, WITH_ADJUSTBOX, "paper")
    assert "Overfull" not in log and "Underfull" not in log, re.findall(r"(?:Over|Under)full.*", log)[:5]
    assert "multiply defined" not in log and "undefined" not in log.replace("Font shape", "")
    pdf = folder / "paper.pdf"
    fonts = subprocess.run([_tool("pdffonts"), str(pdf)], capture_output=True, text=True, check=True).stdout
    assert "Type 3" not in fonts, fonts
    # every word of the PDF inside its page
    bbox = subprocess.run([_tool("pdftotext"), "-bbox", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    pages = re.findall(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', bbox, re.S)
    assert pages
    for width, height, body in pages:
        for x0, y0, x1, y1, word in re.findall(
                r'<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">(.*?)</word>', body):
            assert 0 <= float(x0) and float(x1) <= float(width) and 0 <= float(y0) and float(y1) <= float(height), word


def test_every_table_at_its_natural_width(section):
    """With adjustbox's scaling off, nothing overflows: no table was shrunk, so its text stays at
    the float's own size — \\small (9 pt) or \\footnotesize (8 pt), at least 7 pt as the issue asks."""
    folder, _, _, _ = section
    log = _compile(folder, NO_SCALING, "unscaled")
    assert "Overfull" not in log, re.findall(r"Overfull.*", log)[:5]
    for name in ("main", "wtl", "risk", "leaderboard", "leaderboard-column"):
        text = (folder / f"{name}.tex").read_text()
        floats = text.count(r"\begin{table")
        assert floats and text.count("\\small\n") + text.count("\\footnotesize\n") == floats, name


def test_all_37_names_in_the_column_figure(section):
    folder, scores, _, _ = section
    text = subprocess.run([_tool("pdftotext"), "-raw", str(folder / "means.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout
    words = set(text.split())
    systems = scores["nDCG@10"].systems
    assert len(systems) == 37
    assert not [s for s in systems if s not in words]


def _holm_markers(scores, measure: str) -> dict[str, str]:
    """* / † per system from scipy's paired t-test and statsmodels' Holm correction (not irstats)."""
    from scipy import stats as sps
    from statsmodels.stats.multitest import multipletests

    matrix = scores[measure]
    base = matrix.system(BASELINE)
    others = [s for s in matrix.systems if s != BASELINE]
    p = [sps.ttest_rel(matrix.system(s), base, nan_policy="omit").pvalue for s in others]
    adjusted = multipletests(p, method="holm")[1]
    return {s: "†" if q < 0.01 else "*" if q < 0.05 else "" for s, q in zip(others, adjusted)}


def test_main_table_means_carry_the_markers_and_the_caption_keeps_the_legend(section):
    folder, scores, outputs, _ = section
    main = outputs["main"]
    assert r"\label{tab:main}" in main and main.count(r"\begin{table}") == 1  # one column, not table*
    caption = re.search(r"\\caption\{(.*)\}", main).group(1)
    assert caption.startswith("Effectiveness of the 37 runs on TREC DL 2019. ")
    assert "Holm-adjusted" in caption and r"$^{*}$" in caption and r"$^{\dagger}$" in caption
    assert "discriminative power" not in main and caption.count(". ") <= 2  # a title and one legend sentence
    assert "$^{^" not in main  # no superscript in a superscript
    header = main.split(r"\midrule")[0].splitlines()[-1]
    assert header == r"System & nDCG@10 & AP & RR & R@1000 \\"  # means only
    rows = {}
    for line in main.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines():
        cells = [c.strip() for c in line.rstrip("\\").split(" & ")]
        rows[cells[0].replace(r"\_", "_")] = cells[1:]
    assert len(rows) == 37
    for k, measure in enumerate(MEASURES):
        expected = _holm_markers(scores, measure)
        for system, cells in rows.items():
            cell = cells[k]
            shown = "†" if r"$^{\dagger}$" in cell else "*" if r"$^{*}$" in cell else ""
            assert shown == expected.get(system, ""), (measure, system, cell)


def test_wins_ties_losses_equal_a_plain_count(section):
    folder, scores, outputs, _ = section
    wtl = outputs["wtl"]
    assert r"\label{tab:wtl}" in wtl  # from the -o file's name
    body = wtl.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    shown = {line.split(" & ")[0]: [c.strip() for c in line.rstrip("\\ ").split(" & ")[1:]] for line in body}
    assert list(shown) == ["BERT (p1)", "RM3 + BERT", r"p\_bert"]  # the order asked, the paper's names
    runs = ["idst_bert_p1", "p_exp_rm3_bert", "p_bert"]
    for k, measure in enumerate(["nDCG@10", "AP"]):
        matrix = scores[measure]
        base = dict(zip(matrix.topics, matrix.system(BASELINE)))
        for run, cells in zip(runs, shown.values()):
            wins = ties = losses = 0
            for topic, value in zip(matrix.topics, matrix.system(run)):
                if np.isnan(value) or np.isnan(base[topic]):
                    continue
                if value > base[topic]:
                    wins += 1
                elif value < base[topic]:
                    losses += 1
                else:
                    ties += 1
            assert [int(c) for c in cells[4 * k + 1: 4 * k + 4]] == [wins, ties, losses], (measure, run)
    assert "BM25" in re.search(r"\\caption\{(.*)\}", wtl).group(1)  # the baseline by its paper name


def test_risk_table_sorted_without_the_baseline_and_threshold_explained(section):
    _, _, outputs, _ = section
    risk = outputs["risk"]
    body = risk.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    systems = [line.split(" & ")[0].replace(r"\_", "_") for line in body]
    assert BASELINE not in systems and len(systems) == 36
    urisk = [float(line.split(" & ")[1].replace("$-$", "-")) for line in body]
    assert urisk == sorted(urisk, reverse=True)
    assert "TRisk" in risk and r"$|$TRisk$|$ $>$ 2" in risk


def test_report_with_a_baseline_tests_against_it(section):
    from scipy import stats as sps
    from statsmodels.stats.multitest import multipletests

    _, _, _, made = section
    report = made.result
    scores = irstats.evaluate(made.qrels, made.runs, MEASURES)  # the runs the report evaluated
    means = pl.read_csv(report.out_dir / "tables" / "system_means.tsv", separator="\t")
    assert set(means["baseline"].unique()) == {BASELINE}
    matrix = scores["AP"]
    rows = means.filter(pl.col("measure") == "AP")
    others = [s for s in matrix.systems if s != BASELINE]
    p = [sps.ttest_rel(matrix.system(s), matrix.system(BASELINE), nan_policy="omit").pvalue for s in others]
    expected = dict(zip(others, multipletests(p, method="holm")[1]))
    for row in rows.iter_rows(named=True):
        if row["system"] == BASELINE:
            assert row["p_holm"] is None
        else:
            assert row["p_holm"] == pytest.approx(expected[row["system"]], abs=1e-12)
    risk = pl.read_csv(report.out_dir / "tables" / "risk.tsv", separator="\t")
    assert BASELINE not in risk["system"].to_list() and set(risk["baseline"]) == {BASELINE}
    board = (report.out_dir / "tables" / "leaderboard.tex").read_text()
    assert "$^{^" not in board and r"\begin{table*}" in board


@pytest.mark.parametrize("args, message", [
    (["--systems", "no_such_run"], "no_such_run"),
    (["--columns", "means,medians"], "medians"),
    (["--label", "tab:main results"], "label"),
    (["--label", "tab:{x}"], "label"),
])
def test_bad_table_options_exit_2_and_write_nothing(section, tmp_path, capsys, args, message):
    folder, _, _, _ = section
    target = tmp_path / "t.tex"
    code, out, err = run_cli(["compare", SCORES, "-m", "AP", "--baseline", BASELINE, *args,
                              "--format", "latex", "-o", target], capsys)
    assert code == 2 and message in err
    errors = [line for line in err.splitlines() if line.startswith("irstats: error:")]
    assert len(errors) == 1 and not target.exists()


def test_an_unknown_name_in_the_names_file_exits_2(section, tmp_path, capsys):
    folder, _, _, _ = section
    names = tmp_path / "names.tsv"
    names.write_text("bm25base_p\tBM25\nbm25_typo\tX\n")
    code, _, err = run_cli(["compare", SCORES, "-m", "AP", "--names", names, "--format", "latex"],
                           capsys)
    assert code == 2 and "bm25_typo" in err
    names.write_text("bm25base_p BM25\n")
    code, _, err = run_cli(["compare", SCORES, "-m", "AP", "--names", names, "--format", "latex"],
                           capsys)
    assert code == 2 and "names.tsv:1" in err
