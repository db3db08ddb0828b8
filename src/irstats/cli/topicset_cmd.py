"""``irstats topicset``: how many topics a collection needs (Sakai 2016; METHODS.md §5.7)."""

from __future__ import annotations

import click

from irstats.cli.common import scores_input
from irstats.cli.group import cli
from irstats.cli.output import emit_result, output_options
from irstats.result import Results
from irstats.errors import InputError
from irstats.stats.topicset import TOPIC_SET_DESIGNS

TOPICSET_EPILOG = """
\b
Examples:
  irstats topicset scores.tsv -m AP --design paired_t --min-diff 0.05          # V from the scores
  irstats topicset scores.tsv -m AP -m nDCG@10 --design anova --min-diff 0.1 --format tsv
  irstats topicset --variance 0.0479 --design paired_t --alpha 0.05 --beta 0.2 --min-diff 0.05
  irstats topicset --variance 0.1 --design two_sample_ci --min-diff 0.1       # Sakai's 2SAMPLECI

\b
Designs: paired_t (two systems, same topics), two_sample_t (different topics), anova (m
systems; m = the systems in SCORES or --systems), ci (a paired-difference interval whose
expected width is at most --min-diff), two_sample_ci (the same for two systems on different
topic sets: n topics per system). Power is exact (noncentral t and F).
The variance comes from --variance, or from SCORES: twice the two-way ANOVA residual
variance V_E for paired_t and ci, V_E for the others. With SCORES, the table also says what
the collection's own topics detect.
Columns (tsv/csv/json): measure design alpha beta min_diff variance n_topics.
"""


@cli.command("topicset", epilog=TOPICSET_EPILOG)
@scores_input(optional=True, measure_help="Measure(s) whose variance to use (default: every measure in SCORES).")
@click.option("--design", default="paired_t", show_default=True, type=click.Choice(list(TOPIC_SET_DESIGNS)),
              help="The design.")
@click.option("--min-diff", "min_diff", required=True, type=float,
              help="The minimum difference to detect (ci: the largest expected interval width).")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="Significance level α.")
@click.option("--beta", default=0.2, show_default=True, type=float, help="β: the power asked for is 1 − β.")
@click.option("--variance", type=float, help="The variance V, instead of estimating it from SCORES.")
@click.option("--systems", "n_systems", type=int, help="m for the anova design (default: the systems in SCORES).")
@output_options(note="the table: a sentence and a row per measure", systems=False)
def topicset_command(scores, measures, design, min_diff, alpha, beta, variance, n_systems, fmt, output):
    """Topics needed to detect a difference with a given power, from a variance or a score file."""
    from irstats.stats.topicset import design_topic_set

    kwargs = dict(min_diff=min_diff, design=design, alpha=alpha, beta=beta, variance=variance, n_systems=n_systems)
    if scores is not None:
        results = [design_topic_set(matrix, **kwargs) for matrix in scores.values()]
    elif variance is None:
        raise InputError("give --variance, or SCORES (or --qrels/--runs) to estimate it from")
    else:
        results = [design_topic_set(None, measure=", ".join(measures), **kwargs)]
    if not results:
        raise InputError("no scores")
    emit_result(Results(results), fmt, output)
