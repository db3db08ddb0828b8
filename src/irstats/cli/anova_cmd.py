"""``irstats anova``: one-way or two-way ANOVA of systems × topics (Sakai 2018; METHODS.md §5.7)."""

from __future__ import annotations

import click

from irstats.cli.common import load_scores, scores_input
from irstats.cli.group import cli
from irstats.cli.output import emit_result, output_options
from irstats.result import Results
from irstats.errors import InputError

ANOVA_EPILOG = """
\b
Examples:
  irstats anova scores.tsv -m AP                         # two-way without replication
  irstats anova scores.tsv -m AP --one-way --format tsv
  irstats anova scores.tsv -m nDCG@10 --tukey            # classic Tukey HSD, simultaneous intervals
  irstats anova scores.tsv -m AP --means                 # means with ANOVA-based intervals
  irstats anova seed1.tsv --replicate seed2.tsv --replicate seed3.tsv -m AP   # with replication

\b
Columns (tsv/csv/json): measure source variation df variance F p; with --tukey:
measure system_a system_b delta ci_low ci_high q p es_e (ci_low, ci_high: the
simultaneous --confidence intervals of delta); with --means: measure system mean ci_low
ci_high. Only topics scored for every system are used.
With --replicate, SCORES and every replicate file hold the same systems and topics scored
again (another run of each system, or the runs against another assessor's qrels): a
two-way ANOVA with replication, whose sources are systems, topics, interaction, residual.
"""


@cli.command("anova", epilog=ANOVA_EPILOG)
@scores_input
@click.option("--one-way", "one_way", is_flag=True, help="Ignore the topics (one-way ANOVA) instead of blocking on them.")
@click.option("--replicate", "replicates", multiple=True, type=click.Path(dir_okay=True), metavar="FILE",
              help="Another score file of the same systems and topics (repeatable): two-way ANOVA with replication.")
@click.option("--tukey", is_flag=True,
              help="Print the classic Tukey HSD of every pair, with simultaneous intervals, instead of the table.")
@click.option("--means", is_flag=True, help="Print each system's mean with its ANOVA-based interval instead.")
@click.option("--confidence", default=0.95, show_default=True, type=float, help="Level of the intervals.")
@output_options
def anova_command(scores, one_way, replicates, tukey, means, confidence, fmt, output):
    """ANOVA of the systems of per-topic SCORES: variation, df, variance, F, p, ω², Tukey HSD."""
    from irstats.stats.anova import anova, anova_with_replication

    if tukey and means:
        raise InputError("give --tukey or --means, not both")
    if replicates and one_way:
        raise InputError("--replicate makes a two-way ANOVA with replication; leave out --one-way")
    if replicates:
        others = [load_scores(path, None, (), tuple(scores)) for path in replicates]
        results = [anova_with_replication([matrix, *(other[name] for other in others)], confidence)
                   for name, matrix in scores.items()]
    else:
        results = [anova(matrix, "one-way" if one_way else "two-way", confidence) for matrix in scores.values()]
    if not results:
        raise InputError("no scores")
    if tukey:
        shown = Results(r.tukey_view() for r in results)
    elif means:
        shown = Results(r.means_view() for r in results)
    else:
        shown = Results(results)
    emit_result(shown, fmt, output)
