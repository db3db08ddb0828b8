"""``irstats report``: the whole study from qrels and a folder of runs."""

from __future__ import annotations

from pathlib import Path

import click

from irstats.cli.common import eval_options
from irstats.cli.group import cli
from irstats.cli.output import OutputFolder, seed_option
from irstats.report import DEFAULT_REPORT_MEASURES, build_report
from irstats.io.trec import read_names
from irstats.report.model import QUICK_EFFORT, exact_command, traded

REPORT_EPILOG = """
\b
Examples:
  irstats report --qrels qrels.txt --runs runs/ -o study
  irstats report --qrels qrels.txt --runs 'runs/*.gz' -m AP -m nDCG@10 -m "RBP(p=0.8)" -o study
  irstats report --qrels qrels.txt --runs runs/ --reference original.txt --quick -o study
  irstats report --qrels qrels.txt --runs runs/ --repro-orig bm25.run --repro-orig rm3.run \
      --repro-run my-bm25.run --repro-run my-rm3.run -o study        # with a reproduction section
  irstats report --qrels qrels.txt --runs runs/ -m nDCG@10 -m AP --baseline bm25 -o study   # tests against bm25

\b
Writes OUT/index.html (self-contained: open it in any browser, no network needed),
OUT/report.md with OUT/figures/*.png (each figure also as PDF, its data as CSV beside it;
none with --quick), every table as OUT/tables/*.tsv, and the standardization factors as
OUT/factors.tsv. OUT/tables/leaderboard.tex is the main table as page-wide floats that fit
7 in without shrinking the text (mean ± half-width of the 95% interval), and
OUT/tables/leaderboard-column.tex the means alone with their markers, for one column.
"""


class _KeepsArguments(click.Command):
    """Keeps the arguments it was given (``ctx.meta["irstats.report.args"]``): the report
    prints the exact command that made it."""

    def parse_args(self, ctx, args):
        ctx.meta["irstats.report.args"] = list(args)
        return super().parse_args(ctx, args)


@cli.command("report", epilog=REPORT_EPILOG, cls=_KeepsArguments)
@click.option("--qrels", required=True, type=click.Path(), help="Relevance judgments (TREC qrels, plain or gzip).")
@click.option("--runs", required=True, multiple=True, help="Run files, a directory or a glob; repeatable.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help=f"Measures to report; repeat for several. Default: {', '.join(DEFAULT_REPORT_MEASURES)}.")
@click.option("--reference", type=click.Path(exists=True, dir_okay=False),
              help="File naming the systems to fit standardization on, one per line (default: all).")
@click.option("--pool-depth", type=int, help="Depth the qrels were pooled to, for the volatility section.")
@click.option("--qrels-b", type=click.Path(dir_okay=False),
              help="A second qrels (e.g. LLM labels): adds a section on label and conclusion agreement.")
@click.option("--gold-topics", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="With --qrels-b: the topics people judged, one per line; adds prediction-powered means "
                   "(QRELS on those topics, --qrels-b's cheap labels on all).")
@click.option("--repro-orig", multiple=True, type=click.Path(dir_okay=False), metavar="RUN",
              help="An original run (baseline, then advanced; repeat): with --repro-run, adds a reproduction section.")
@click.option("--repro-run", multiple=True, type=click.Path(dir_okay=False), metavar="RUN",
              help="Its reproduction, in the same order as --repro-orig.")
@click.option("--bayes", is_flag=True,
              help="Add a Bayesian comparison of every system with the best: P(worse), P(practically equivalent), "
                   "P(better) by the Bayesian signed-rank test.")
@click.option("--rope", type=float, default=None, metavar="R",
              help="With --bayes: the region of practical equivalence ±R in the measures' units (default: 0.01 for "
                   "measures in [0, 1], else 1% of the scores' range).")
@eval_options
@click.option("--quick", is_flag=True,
              help=f"A first look in under half the time, trading {'; '.join(traded(QUICK_EFFORT))}. The report "
                   "says so at its top; every other number is the full report's.")
@click.option("--figures/--no-figures", default=None,
              help="Draw the figures, or not, whatever --quick says (default: the full report draws them, --quick "
                   "does not).")
@seed_option("report")
@click.option("--baseline", "baselines", multiple=True, metavar="NAME",
              help="Test every system against this run (repeatable), with wins/ties/losses and a risk section; "
                   "default: against each measure's best system.")
@click.option("-o", "--out", "out_dir", required=True, type=OutputFolder(),
              help="Output folder: new, empty, or an earlier report (only the files irstats wrote are replaced).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def report_command(qrels, runs, measures, reference, pool_depth, qrels_b, gold_topics, repro_orig, repro_run, bayes,
                   rope, options, quick, figures, seed, baselines, out_dir, quiet):
    """Write a complete evaluation study of RUNS against QRELS: HTML and Markdown.

    Sections: the leaderboard and findings, the collection (judged shares), systems (means,
    95% intervals, tests against --baseline or the best, wins/ties/losses), risk against
    --baseline (if given), agreement with --qrels-b (if given), the
    reproduction of --repro-orig by --repro-run (if given), the Bayesian comparison (--bayes),
    aggregation (and its split-half consistency), standardization, predictive power between
    measures, robustness to the scale, volatility over evaluation depth, and how it was made.
    """
    names = None
    if reference:
        names = [line.strip() for line in Path(reference).read_text().splitlines()
                 if line.strip() and not line.startswith("#")]
    result = build_report(qrels, list(runs), out_dir, measures=list(measures) or None, reference=names,
                          quick=quick, figures=figures, seed=seed, pool_depth=pool_depth, qrels_b=qrels_b,
                          gold_topics=read_names(gold_topics, "topic") if gold_topics else None,
                          repro_orig=list(repro_orig) or None, repro_run=list(repro_run) or None, bayes=bayes, rope=rope,
                          progress=False if quiet else None, baseline=list(baselines) or None,
                          command=exact_command(click.get_current_context().meta.get("irstats.report.args", [])),
                          **options.as_dict())
    click.echo(f"Report written in {result.seconds:.1f} s: {result.html} (and {result.markdown})")
