"""``irstats compare``: systems against a baseline, with significance tests, per measure."""

from __future__ import annotations

import click

from irstats.cli.common import cluster_options, scores_input
from irstats.cli.group import cli
from irstats.cli.output import emit_result, output_options, seed_option
from irstats.errors import InputError
from irstats.result import FORMATS
from irstats.stats.compare import compare
from irstats.stats.corrections import CORRECTIONS
from irstats.stats.pairwise import PAIRWISE_TESTS

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
  irstats compare scores.tsv --test randomization -n 1000000 --workers 2   # resample batches on 2 processes
  irstats compare scores.tsv -m nDCG@10 -m AP --baseline bm25 --columns means --format latex \\
      --caption "Effectiveness on DL 2019." --names names.tsv -o tables/main.tex   # a paper's main table
  irstats compare scores.tsv -m AP --baseline bm25 --columns means,wins --format latex   # with +/=/− topics

\b
SCORES is a per-topic score file (irstats eval -q --format tsv) or trec_eval -q output.
Columns per measure: the system's mean with the marker of its test against the baseline
(* p < alpha, † p < alpha/5, after the correction; --markers delta puts it on Δ), Δ = mean −
baseline mean, the p-value, and +/=/− the topics where the system scores above, the same as
(within --tie-tolerance), and below the baseline (in LaTeX with --columns ...,wins).
The tsv, csv and json formats give the data only, one row per measure and system, with each
difference's interval (delta_low, delta_high; --interval), its effect size d_z
(effect_size) and wins, ties, losses; the legend then goes to stderr. Each measure's
discriminative power (the share of all system pairs with p < alpha under the test,
unadjusted; Tukey's p-values are familywise already) is printed under the table, and on
stderr beside LaTeX or data. latex is a table float whose caption is the title (or --caption)
and one legend sentence, with a label from -o's file name or --label (needs booktabs and
adjustbox).
"""


@cli.command("compare", epilog=COMPARE_EPILOG)
@cluster_options
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
@seed_option("p-values")
@output_options(checked_by_command=True)
@click.option("--interval", default="t", show_default=True, type=click.Choice(["t", "percentile", "bca"]),
              help="Interval of each difference to the baseline (tsv columns delta_low, delta_high): the paired "
                   "t-interval, or a bootstrap percentile or BCa interval (B = --resamples, --seed).")
@click.option("--confidence", default=0.95, show_default=True, type=float, help="Level of the intervals.")
@click.option("--tie-tolerance", default=0.0, show_default=True, type=float, metavar="X",
              help="Wins/ties/losses: a topic where the system and the baseline differ by at most X is a tie.")
def compare_command(scores, baselines, all_pairs, test, correction, alpha, n_resamples, seed, interval, confidence,
                    tie_tolerance, fmt, output, client):
    """Compare every system with a baseline: means, differences and significance per measure.

    Reads per-topic SCORES (or evaluates --qrels/--runs), tests each system against the
    baseline on the topics both were evaluated on, adjusts the p-values for the number of
    comparisons, and reports each measure's discriminative power.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if all_pairs or len(baselines) > 1:
        if all_pairs and baselines:
            raise InputError("give --all-pairs or --baseline, not both")
        from irstats.stats.compare import compare_pairs

        pairs = compare_pairs(scores, None if all_pairs else list(baselines), test=test, correction=correction,
                              alpha=alpha, n_resamples=n_resamples, seed=seed, interval=interval,
                              confidence=confidence, client=client)
        emit_result(pairs, fmt, output)
        return
    comp = compare(scores, baseline=baselines[0] if baselines else None, test=test, correction=correction, alpha=alpha,
                   n_resamples=n_resamples, seed=seed, interval=interval, confidence=confidence,
                   tie_tolerance=tie_tolerance, client=client)
    emit_result(comp, fmt, output)
