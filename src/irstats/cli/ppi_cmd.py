"""``irstats ppi``: prediction-powered means from a few human-judged topics and cheap labels on
every topic (METHODS.md §5.8). Parses, calls :func:`irstats.ppi.ppi` and writes the result's
own table."""

from __future__ import annotations

import click

from irstats.cli.common import eval_options
from irstats.cli.group import cli
from irstats.cli.output import emit_result, output_options

PPI_EPILOG = """
\b
Examples:
  irstats ppi --gold human.qrels --auto llm.qrels --runs runs/ -m nDCG@10
  irstats ppi --gold human.qrels --auto llm.qrels --runs runs/ -m nDCG@10 -m "AP(rel=2)" --baseline bm25
  irstats ppi --gold human.qrels --auto llm.qrels --runs 'runs/*.gz' -m nDCG@10 --all-pairs --format tsv -o pairs.tsv
  irstats ppi --gold human.qrels --auto llm.qrels --runs runs/ -m nDCG@10 --lambda 1   # classic PPI
  irstats ppi --gold human.qrels --auto llm.qrels --runs runs/ -m nDCG@10 --format latex -o ppi.tex

\b
The gold topics are those --gold judges; --auto must judge them and other topics. Per run and
measure: estimate ci_low ci_high, the prediction-powered mean over every topic with its
1 − alpha CLT interval (equal to ppi_py's ppi_mean_pointestimate and ppi_mean_ci);
gold_estimate gold_ci_low gold_ci_high, the gold topics alone; auto_estimate, the auto labels
alone; lam, λ (PPI++'s power-tuned by default; --lambda 1 classic PPI, 0 the gold topics
only); n_gold, n_other; n_effective, the gold topics a classical interval would need to be as
narrow; confidence. --baseline or --all-pairs add rows of differences system − versus, their
intervals Bonferroni-adjusted over the comparisons of a measure unless --correction none.
table, markdown and latex print the main columns; tsv, csv and json every column.
"""


@cli.command("ppi", epilog=PPI_EPILOG)
@click.option("--gold", "gold", required=True, type=click.Path(dir_okay=False), metavar="QRELS",
              help="Human qrels: the topics they judge are the gold topics.")
@click.option("--auto", "auto", required=True, type=click.Path(dir_okay=False), metavar="QRELS",
              help="Cheap (e.g. LLM) qrels judging the gold topics and the others.")
@click.argument("more_runs", nargs=-1, type=click.Path(), metavar="[RUNS]...")
@click.option("--runs", multiple=True, help="Runs (files, directories or globs); also as the arguments, so "
                                              "that --runs runs/*.gz takes every file the shell lists.")
@click.option("-m", "--measure", "measures", multiple=True, required=True, metavar="NAME", help="Measure(s).")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="1 − the level of the intervals.")
@click.option("--lambda", "lam", default=None, type=float, metavar="λ",
              help="λ in [0, 1] (1: classic PPI, 0: gold topics only); default: PPI++'s power-tuned λ.")
@click.option("--baseline", default=None, metavar="NAME", help="Add each run's difference to this run.")
@click.option("--all-pairs", is_flag=True, help="Add the difference of every pair of runs.")
@click.option("--correction", type=click.Choice(["bonferroni", "none"]), default="bonferroni", show_default=True,
              help="Adjust the differences' intervals for the comparisons of a measure, or not.")
@eval_options
@output_options(note="latex: a page-wide table*")
def ppi_command(more_runs, gold, auto, runs, measures, alpha, lam, baseline, all_pairs, correction, options, fmt,
                output):
    """Prediction-powered means from human labels on a few topics and cheap labels on all (PPI++)."""
    from irstats.ppi import ppi

    runs = [*runs, *more_runs]
    if not runs:
        raise click.UsageError("give the runs: --runs FILE|DIR|GLOB [RUNS]...")
    result = ppi(gold, auto, runs, list(measures), alpha=alpha, lam=lam, baseline=baseline,
                 all_pairs=all_pairs, correction=correction, options=options)
    emit_result(result, fmt, output)
