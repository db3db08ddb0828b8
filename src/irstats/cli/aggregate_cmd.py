"""``irstats aggregate``: per-topic scores to one number per system, by several methods."""

from __future__ import annotations

import click

from irstats.aggregate import (
    DEFAULT_EPSILON,
    FLOOR_METHODS,
    METHODS,
    aggregate_table,
    check_complete,
    resolve_method,
)
from irstats.cli.common import parse_epsilon, scores_input
from irstats.cli.group import cli
from irstats.cli.output import emit_data, emit_result, output_options
from irstats.errors import InputError
from irstats.result import FORMATS

DEFAULT_METHODS = ("am", "egm", "gm_trec_eval")

AGGREGATE_EPILOG = """
\b
Examples:
  irstats aggregate scores.tsv                                  # am, egm, gm_trec_eval of every measure
  irstats aggregate scores.tsv -m AP --method gm --method hm --method median
  irstats aggregate scores.tsv --method egm --method ehm --epsilon 0.1 --format tsv -o agg.tsv
  irstats aggregate --qrels qrels.txt --runs 'runs/*.gz' -m AP --method gm_trec_eval
  irstats aggregate scores.tsv -m AP --method gm_trec_eval:0.01     # another floor than trec_eval's 1e-5
  irstats aggregate trec_eval_q_output.txt --method logit --back-transform

\b
Methods (METHODS.md §3; --epsilon sets every ε at once, not gm_trec_eval's floor):
""" + "\n".join(f"  {name:<13} {text}" for name, text in METHODS.items()) + """

\b
A system without a score on some topic is an error (naming it), unless --skipna is given;
then each system is aggregated over the topics it has. Undefined aggregates (e.g. HM over a
zero score) print as nan, with a warning saying why.
"""


@cli.command("aggregate", epilog=AGGREGATE_EPILOG)
@scores_input
@click.option("--method", "methods", multiple=True, metavar="NAME[:EPS]",
              help=f"Aggregation method, NAME:EPS for its own ε (gm_trec_eval:FLOOR for its floor); repeat for "
                   f"several. Default: {', '.join(DEFAULT_METHODS)}.")
@click.option("--epsilon", metavar="E", default=None,
              help="ε of egm, ehm, al and logit (default 0.01); gm_trec_eval keeps trec_eval's floor 1e-5.")
@click.option("--skipna", is_flag=True,
              help="Aggregate each system over the topics it has scores for, instead of stopping.")
@click.option("--back-transform", is_flag=True,
              help="Map al and logit back to the score scale (al becomes εGM; logit uses its exact inverse).")
@output_options(formats=(*FORMATS, "parquet"), note="tsv, csv, json and parquet have columns system measure method value")
def aggregate_command(scores, methods, epsilon, skipna, back_transform, fmt, output):
    """Aggregate per-topic SCORES into one value per system and measure.

    SCORES is a score file (system topic measure value; TSV, CSV, JSON or Parquet) or
    trec_eval -q output; or give --qrels and --runs to evaluate first.
    """
    methods = list(methods or DEFAULT_METHODS)
    names = [resolve_method(m.split(":")[0]) for m in methods]
    eps = parse_epsilon(epsilon)
    if eps is not None and all(DEFAULT_EPSILON[n] is None or n in FLOOR_METHODS for n in names):
        raise InputError(f"--epsilon has no effect on {', '.join(names)}; it applies to "
                         f"{', '.join(n for n, e in DEFAULT_EPSILON.items() if e is not None and n not in FLOOR_METHODS)}"
                         "; gm_trec_eval's floor is set with --method gm_trec_eval:FLOOR")
    if not skipna:
        for matrix in scores.values():
            check_complete(matrix)
    result = aggregate_table(scores, methods, epsilon=eps, skipna=skipna, back_transform=back_transform)
    if fmt == "parquet":
        emit_data(result.to_frame(), fmt, output)
    else:
        emit_result(result, fmt, output)
