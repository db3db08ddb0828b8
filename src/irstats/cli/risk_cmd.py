"""``irstats risk``: risk-sensitive evaluation against a baseline (METHODS.md §5.7)."""

from __future__ import annotations

import click

from irstats.cli.common import scores_input
from irstats.cli.group import cli
from irstats.cli.output import emit_result, output_options
from irstats.result import Results
from irstats.errors import InputError

RISK_EPILOG = """
\b
Examples:
  irstats risk scores.tsv --baseline bm25 -m AP                 # α = 1: a loss counts twice
  irstats risk scores.tsv --baseline bm25 -m AP -m nDCG@10 --alpha 5 --format tsv
  irstats risk --qrels qrels.txt --runs 'runs/*.gz' -m AP --baseline bm25 -o risk.tsv --format tsv

\b
Columns: measure system baseline alpha urisk trisk zrisk georisk.
URisk  mean per-topic difference to the baseline, losses weighted by 1 + α
TRisk  URisk in standard errors: below −2 significantly riskier than the baseline,
       above 2 significantly safer (Dinçer, Macdonald & Ounis, SIGIR 2014)
ZRisk, GeoRisk  risk within the set of all systems given, from the expected score of each
       system on each topic (SIGIR 2016); GeoRisk mixes the mean score and ZRisk.
Only topics scored for every system are used.
"""


@cli.command("risk", epilog=RISK_EPILOG)
@scores_input
@click.option("--baseline", required=True, metavar="NAME", help="The system whose per-topic scores are the reference.")
@click.option("--alpha", default=1.0, show_default=True, type=float,
              help="Extra weight of a loss: a topic where the system does worse counts 1 + alpha times.")
@output_options
def risk_command(scores, baseline, alpha, fmt, output):
    """Risk of every system against a baseline: URisk, TRisk, ZRisk and GeoRisk per measure."""
    from irstats.stats.risk import risk

    results = [risk(matrix, baseline, alpha) for matrix in scores.values()]
    if not results:
        raise InputError("no scores")
    emit_result(Results(results), fmt, output)
