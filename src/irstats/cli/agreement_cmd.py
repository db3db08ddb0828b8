"""``irstats agreement``: how far two sets of relevance labels agree (METHODS.md §5.7)."""

from __future__ import annotations

import click

from irstats.cli.main import cli
from irstats.cli.output import FORMATS, OutputFile, emit_frame

AGREEMENT_EPILOG = """
\b
Examples:
  irstats agreement human.qrels llm.qrels                     # κ and α with 95% intervals
  irstats agreement human.qrels llm.qrels --format tsv -o agreement.tsv
  irstats agreement human.qrels llm.qrels --per-topic          # κ of every topic
  irstats agreement human.qrels llm.qrels --confusion          # pairs by grade (rows: A)

\b
On the (topic, docno) pairs both qrels judge (negative grades left out): Cohen's κ
unweighted, linear and quadratic (as scikit-learn) and Krippendorff's α nominal, ordinal
and interval (as the krippendorff package), with percentile bootstrap intervals over topics.
Columns (tsv/csv/json): statistic value ci_low ci_high.
"""


@cli.command("agreement", epilog=AGREEMENT_EPILOG)
@click.argument("qrels_a", type=click.Path(dir_okay=False))
@click.argument("qrels_b", type=click.Path(dir_okay=False))
@click.option("--per-topic", is_flag=True, help="Print κ per topic (topic pairs cohen_kappa) instead.")
@click.option("--confusion", is_flag=True, help="Print the confusion matrix by grade instead.")
@click.option("-n", "--resamples", "n_resamples", default=1000, show_default=True, type=int,
              help="Bootstrap resamples of the topics for the intervals.")
@click.option("--confidence", default=0.95, show_default=True, type=float, help="Level of the intervals.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the bootstrap.")
@click.option("--format", "fmt", default="table", show_default=True, type=click.Choice(FORMATS),
              help="table (aligned text), tsv, csv or json.")
@click.option("-o", "--output", type=OutputFile(), help="Write to FILE, not stdout.")
def agreement_command(qrels_a, qrels_b, per_topic, confusion, n_resamples, confidence, seed, fmt, output):
    """Agreement of two qrels on the pairs both judge: Cohen's κ and Krippendorff's α."""
    from irstats.agreement import label_agreement
    from irstats.errors import InputError

    if per_topic and confusion:
        raise InputError("give --per-topic or --confusion, not both")
    result = label_agreement(qrels_a, qrels_b, n_resamples=n_resamples, confidence=confidence, seed=seed)
    if per_topic:
        emit_frame(result.per_topic, fmt, output)
    elif confusion:
        emit_frame(result.confusion, fmt, output)
    else:
        emit_frame(result.statistics, fmt, output, table_text=str(result) + "\n")
