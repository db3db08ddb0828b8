"""``irstats compare``: systems against a baseline, with significance tests, per measure."""

from __future__ import annotations

import math

import click
import polars as pl

from irstats.cli.common import scores_input
from irstats.cli.main import cli
from irstats.cli.output import OutputFile, emit_text
from irstats.errors import InputError
from irstats.render import (
    latex_escape,
    latex_table,
    markdown_escape,
    markdown_table,
    text_table,
)
from irstats.stats.compare import Comparison, compare
from irstats.stats.corrections import CORRECTIONS
from irstats.stats.pairwise import PAIRWISE_TESTS

FORMATS = ("table", "markdown", "latex", "tsv")

COMPARE_EPILOG = """
\b
Examples:
  irstats compare scores.tsv                                   # every measure, paired t, Holm
  irstats compare scores.tsv -m AP -m nDCG@10 --baseline bm25 --test wilcoxon
  irstats compare scores.tsv --test randomization -n 100000 --seed 7 --correction bonferroni
  irstats compare scores.tsv --test tukey --format latex -o table.tex
  irstats compare --qrels qrels.txt --runs 'runs/*.gz' -m AP --format markdown
  irstats compare scores.tsv -m AP --interval bca --format tsv     # BCa intervals and d_z per system
  irstats compare scores.tsv -m AP --baseline bm25 --baseline rm3 --correction bh   # two baselines
  irstats compare scores.tsv -m nDCG@10 --all-pairs                # system × system matrix of Δ

\b
SCORES is a per-topic score file (irstats eval -q --format tsv) or trec_eval -q output.
Columns per measure: the system's mean, Δ = mean − baseline mean with a marker
(* p < alpha, † p < alpha/5, after the correction), and the p-value against the baseline.
The tsv format also gives each difference's interval (delta_low, delta_high; --interval) and
its effect size d_z (effect_size). The footer gives each measure's discriminative power: the share of all system pairs with
p < alpha under the test (unadjusted; Tukey's p-values are familywise already).
"""


def _format_p(p: float) -> str:
    if not math.isfinite(p):
        return ""
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _cells(comp: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the wide table: system, then mean / Δ / p per measure."""
    header = ["system"]
    for m in comp.measures:
        header += [m, f"Δ{m}", f"p({m})"]
    values = {(r["measure"], r["system"]): r for r in comp.frame.iter_rows(named=True)}
    rows = []
    for s in comp.systems:
        cells = [s]
        for m in comp.measures:
            r = values.get((m, s))
            if r is None:
                cells += ["", "", ""]
            elif r["is_baseline"]:
                cells += [f"{r['mean']:.4f}", "baseline", ""]
            else:
                cells += [f"{r['mean']:.4f}", f"{r['delta']:+.4f}{r['marker']}", _format_p(r["p_adjusted"])]
        rows.append(cells)
    return header, rows


def format_table(comp: Comparison) -> str:
    """Aligned plain-text table with the legend underneath."""
    header, rows = _cells(comp)
    return text_table(header, rows, left=1) + "\n".join(["", *comp.legend()]) + "\n"


def format_markdown(comp: Comparison) -> str:
    """GitHub-flavoured Markdown table; the legend follows as a paragraph."""
    header, rows = _cells(comp)
    legend = [markdown_escape(line) + "  " for line in comp.legend()]
    return (markdown_table(header, rows, left=1) + "\n".join(["", *legend])).rstrip() + "\n"


def format_latex(comp: Comparison) -> str:
    """A booktabs ``tabular`` (needs ``\\usepackage{booktabs}``) followed by the legend."""
    header, rows = _cells(comp)
    head = ["System"]
    for m in comp.measures:
        head += [latex_escape(m), r"$\Delta$", "$p$"]
    table = latex_table(head, rows, left=1, escape_header=False,
                        cell=lambda v: r"\textit{baseline}" if v == "baseline" else latex_escape(v))
    legend = [r"\par\smallskip\footnotesize"] + [latex_escape(line) + r"\\" for line in comp.legend()]
    return table + "\n" + "\n".join(legend) + "\n"


def format_tsv(comp: Comparison) -> str:
    """The tidy comparison frame (full precision), then the legend as ``#`` comment lines."""
    text = comp.frame.write_csv(separator="\t", float_precision=None)
    lines = [f"# {line}" for line in comp.legend()]
    lines += [f"# discriminative_power\t{m}\t{comp.discriminative_power[m]!r}\t{comp.significant_pairs[m]}\t"
              f"{comp.n_pairs[m]}" for m in comp.measures]
    return text + "\n".join(lines) + "\n"


def format_pairs(pairs, fmt: str) -> str:
    """Several baselines or all pairs: per measure a system × system matrix of Δ with markers
    (table, markdown, latex), or every pair's row (tsv); the legend states the family."""
    if fmt == "tsv":
        text = pairs.frame.write_csv(separator="\t", float_precision=None)
        return text + "\n".join(f"# {line}" for line in pairs.legend()) + "\n"
    blocks = []
    for measure in pairs.measures:
        rows = pairs.frame.filter(pl.col("measure") == measure)
        cell = {}
        for r in rows.iter_rows(named=True):
            a, b = r["system_a"], r["system_b"]
            cell[(a, b)] = f"{r['delta']:+.4f}{r['marker']}"
            cell.setdefault((b, a), f"{-r['delta']:+.4f}{r['marker']}")  # the same comparison, read the other way
        columns = list(pairs.baselines) if pairs.baselines is not None else list(pairs.systems)
        table_rows = [[a, *(cell.get((a, b), "") for b in columns)] for a in pairs.systems]
        header = [f"{measure}: row − column", *columns]
        if fmt == "markdown":
            blocks.append(markdown_table(header, table_rows, left=1))
        elif fmt == "latex":
            blocks.append(latex_table([latex_escape(h) for h in header], table_rows, left=1, escape_header=False))
        else:
            blocks.append(text_table(header, table_rows, left=1))
    return "\n".join(blocks) + "\n" + "\n".join(pairs.legend()) + "\n"


FORMATTERS = {"table": format_table, "markdown": format_markdown, "latex": format_latex, "tsv": format_tsv}


@cli.command("compare", epilog=COMPARE_EPILOG)
@scores_input
@click.option("--baseline", "baselines", multiple=True, metavar="NAME",
              help="System to compare with (default: the best by the first measure); repeat for several "
                   "baselines, whose comparisons are adjusted together.")
@click.option("--all-pairs", is_flag=True, help="Compare every pair of systems: a system × system matrix of Δ "
                                                 "with markers (tsv: every pair's Δ, p and adjusted p).")
@click.option("--test", "test", default="paired_t", show_default=True, metavar="NAME",
              help=f"Significance test: {'|'.join(PAIRWISE_TESTS)}.")
@click.option("--correction", default=None, metavar="NAME",
              help=f"Multiple-comparison correction over the comparisons with the baseline: {'|'.join(CORRECTIONS)} "
                   "(default: holm; none with --test tukey).")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="Significance level.")
@click.option("-n", "--resamples", "n_resamples", default=10000, show_default=True, type=int,
              help="Resamples B for the bootstrap, randomization and tukey tests.")
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed: the same seed, the same p-values.")
@click.option("--format", "fmt", default="table", show_default=True, metavar="FORMAT",
              help=f"Output format: {'|'.join(FORMATS)}.")
@click.option("--interval", default="t", show_default=True, type=click.Choice(["t", "percentile", "bca"]),
              help="Interval of each difference to the baseline (tsv columns delta_low, delta_high): the paired "
                   "t-interval, or a bootstrap percentile or BCa interval (B = --resamples, --seed).")
@click.option("--confidence", default=0.95, show_default=True, type=float, help="Level of the intervals.")
@click.option("-o", "--output", type=OutputFile(), help="Write to FILE, not stdout.")
def compare_command(scores, baselines, all_pairs, test, correction, alpha, n_resamples, seed, interval, confidence,
                    fmt, output):
    """Compare every system with a baseline: means, differences and significance per measure.

    Reads per-topic SCORES (or evaluates --qrels/--runs), tests each system against the
    baseline on the topics both were evaluated on, adjusts the p-values for the number of
    comparisons, and reports each measure's discriminative power.
    """
    if fmt not in FORMATTERS:
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if all_pairs or len(baselines) > 1:
        if all_pairs and baselines:
            raise InputError("give --all-pairs or --baseline, not both")
        from irstats.stats.compare import compare_pairs

        pairs = compare_pairs(scores, None if all_pairs else list(baselines), test=test, correction=correction,
                              alpha=alpha, n_resamples=n_resamples, seed=seed, interval=interval,
                              confidence=confidence)
        emit_text(format_pairs(pairs, fmt), output)
        return
    comp = compare(scores, baseline=baselines[0] if baselines else None, test=test, correction=correction, alpha=alpha,
                   n_resamples=n_resamples, seed=seed, interval=interval, confidence=confidence)
    emit_text(FORMATTERS[fmt](comp), output)
