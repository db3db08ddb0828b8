"""``irstats anova``: one-way or two-way ANOVA of systems × topics (Sakai 2018; METHODS.md §5.7)."""

from __future__ import annotations

import click

from irstats.cli.common import scores_input
from irstats.cli.main import cli
from irstats.cli.output import OutputFile, emit_result
from irstats.result import FORMATS, FrameResult, Results
from irstats.errors import InputError

ANOVA_EPILOG = """
\b
Examples:
  irstats anova scores.tsv -m AP                         # two-way without replication
  irstats anova scores.tsv -m AP --one-way --format tsv
  irstats anova scores.tsv -m nDCG@10 --tukey            # classic Tukey HSD over all pairs
  irstats anova scores.tsv -m AP --means                 # means with ANOVA-based intervals

\b
Columns (tsv/csv/json): measure source variation df variance F p; with --tukey:
measure system_a system_b delta q p es_e; with --means: measure system mean ci_low ci_high.
Only topics scored for every system are used.
"""


@cli.command("anova", epilog=ANOVA_EPILOG)
@scores_input
@click.option("--one-way", "one_way", is_flag=True, help="Ignore the topics (one-way ANOVA) instead of blocking on them.")
@click.option("--tukey", is_flag=True, help="Print the classic Tukey HSD of every pair instead of the ANOVA table.")
@click.option("--means", is_flag=True, help="Print each system's mean with its ANOVA-based interval instead.")
@click.option("--confidence", default=0.95, show_default=True, type=float, help="Level of the intervals.")
@click.option("--format", "fmt", default="table", show_default=True, type=click.Choice(FORMATS),
              help="table (aligned text), markdown, latex, tsv, csv or json.")
@click.option("-o", "--output", type=OutputFile(), help="Write to FILE, not stdout.")
def anova_command(scores, one_way, tukey, means, confidence, fmt, output):
    """ANOVA of the systems of per-topic SCORES: variation, df, variance, F, p, ω², Tukey HSD."""
    from irstats.stats.anova import anova

    if tukey and means:
        raise InputError("give --tukey or --means, not both")
    results = [anova(matrix, "one-way" if one_way else "two-way", confidence) for matrix in scores.values()]
    if not results:
        raise InputError("no scores")
    if tukey:
        shown = Results(FrameResult(r.tukey(), f"{r.measure}: classic Tukey HSD of every pair") for r in results)
    elif means:
        shown = Results(FrameResult(r.system_frame(), f"{r.measure}: system means with their "
                                                      f"{100 * r.confidence:g}% ANOVA-based intervals")
                        for r in results)
    else:
        shown = Results(results)
    emit_result(shown, fmt, output)
