"""``irstats volatility``: how scores and system orderings move with the evaluation depth."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from irstats.cli.common import cluster_options, eval_options
from irstats.cli.group import cli
from irstats.cli.output import OutputFile, emit_result, output_options, plot_size_option, seed_option
from irstats.depth.pooling import given_pool, simulate_pool
from irstats.depth.sweep import DEFAULT_SWEEP_MEASURES, UNJUDGED_FORMS, sweep
from irstats.depth.volatility import volatility
from irstats.errors import InputError
from irstats.io.trec import read_names
from irstats.scores import write_frame
from irstats.stats.pairwise import PAIRWISE_TESTS

_CONDENSED = {"both": UNJUDGED_FORMS, "yes": ("condensed",), "no": ("judged-as-nonrel",)}

VOLATILITY_EPILOG = f"""
\b
Examples:
  irstats volatility qrels.txt runs/
  irstats volatility qrels.txt runs/ --pool-depth 10 --depths all -o trajectories.tsv --plot f12.png
  irstats volatility qrels.txt runs/*.gz --simulate-pool 20 --contributing pooled.txt -m AP_min -m "RBP(p=0.8)"
  irstats volatility qrels.txt runs/ --depths 1,5,10,20,100,1000 --condensed no --format tsv
  irstats volatility qrels.txt runs/ --test randomization --workers 2   # the resamples on 2 processes

\b
What it does (METHODS.md §5.5, *Observed Volatility*):
  1. takes the qrels as given, so the score at depth k is exactly `irstats eval -M k`.
     The pool depth d, which the statistics and figures mark, is --pool-depth, or else
     the judged depth of the contributing runs (default: every RUN; --contributing: a
     file of run names, one per line): the median over runs of the depth to which each
     is judged on every topic, so a run that was not pooled does not pull d down.
     --simulate-pool d instead simulates a depth-d pool: only the qrels lines of
     documents some contributing run ranks at depth <= d are kept (METHODS §5.5).
  2. scores every RUN at every depth k of the grid (default: 1..20, 25, 30, 40, 50,
     60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 600, 800, 1000, and d; 'all' =
     1..M), unjudged documents as non-relevant and condensed (-J), all depths from
     one judgments tensor;
  3. prints one row per measure and form of volatility statistics.
  With --workers N or --scheduler ADDRESS, the resample batches of the bootstrap,
  randomization and tukey tests at every depth run on a Dask cluster (the same numbers);
  the runs are scored and swept here, and the paired t, wilcoxon and sign tests need no
  resamples.

\b
Measures (no @k: the depth is swept): {', '.join(DEFAULT_SWEEP_MEASURES)} (default),
  also SP, DCG, P, R, RR, Judged, with parameters, e.g. "RBP(p=0.95)", "nDCG(gain=exp)".

\b
-o FILE writes the trajectories as a tidy file with the columns
  system  measure  form  depth  value
where measure is the swept name (AP_min) and depth k its own column (the row
AP_min, 10 is the engine's AP_min@10), form is judged-as-nonrel or condensed, and
value the system's mean over topics. The format follows the suffix (.tsv, .csv,
.json, .parquet; otherwise TSV). --by-depth FILE writes the per-depth statistics.
"""


def _pool_note(pool, depth_given: bool) -> str:
    """One line on stderr: which qrels are swept and where d comes from."""
    how = "given" if depth_given else "the contributing runs' judged depth"
    runs = f"{len(pool.contributing)} of {len(pool.systems)} runs contributing"
    if not pool.simulated:
        return f"qrels as given ({len(pool.first_rank)} lines); pool depth d = {pool.pool_depth} ({how}); {runs}"
    return (f"simulated pool of depth d = {pool.pool_depth}; {runs}; it keeps {int(pool.in_pool.sum())} of "
            f"{len(pool.first_rank)} qrels lines")


def _format_for(path: str) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    return {"csv": "csv", "json": "json", "parquet": "parquet", "pq": "parquet"}.get(suffix, "tsv")


@cli.command("volatility", epilog=VOLATILITY_EPILOG)
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("--pool-depth", "pool_depth", type=int, default=None, metavar="d",
              help="Depth d the qrels were pooled to (default: the contributing runs' judged depth).")
@click.option("--simulate-pool", "simulate_depth", type=int, default=None, metavar="d",
              help="Simulate a depth-d pool of the contributing runs instead of using the qrels as given.")
@click.option("--contributing", type=click.Path(exists=True, dir_okay=False), metavar="NAMES_FILE",
              help="File of the run names that fed the pool, one per line (default: every RUN).")
@click.option("--depths", default=None, metavar="K,K,...|all",
              help="Evaluation depths (d is always added); 'all' = 1..M. Default: METHODS §5.5 grid.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure to sweep, without @k; repeat for several. Default: all eight listed below.")
@click.option("--condensed", type=click.Choice(sorted(_CONDENSED)), default="both", show_default=True,
              help="Forms: both, condensed only (yes), or unjudged-as-non-relevant only (no).")
@click.option("--test", default="paired_t", show_default=True, metavar="NAME",
              help=f"Significance test for discrimination and overturn rates: {'|'.join(PAIRWISE_TESTS)}.")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="Significance level.")
@click.option("-n", "--resamples", "n_resamples", default=10000, show_default=True, type=int,
              help="Resamples for the bootstrap, randomization and tukey tests.")
@seed_option("p-values")
@eval_options
@click.option("--plot", "plot_path", type=OutputFile(figure=True), metavar="FILE",
              help="Draw the trajectories (F12: measures × forms) to FILE (PNG/SVG/PDF), data as CSV beside it.")
@plot_size_option
@click.option("--by-depth", "by_depth_path", type=OutputFile(), metavar="FILE",
              help="Write the statistics of every measure, form and depth to FILE.")
@output_options(of="the statistics printed on stdout",
                output_help="Write the trajectories (system measure form depth value) to FILE.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars or notes on stderr.")
@cluster_options
def volatility_command(qrels, runs, pool_depth, simulate_depth, contributing, depths, measures, condensed, test, alpha,
                       n_resamples, seed, options, plot_path, plot_size, output, by_depth_path, fmt, quiet, client):
    """Volatility over evaluation depth: scores of RUN files at depths k up to and past the pool depth.

    Scores every RUN against QRELS (as given, or a simulated depth-d pool) at every depth
    of the grid in both forms, and prints, per measure and form, how far the system
    ordering moves: τ_b with the deepest ordering, swaps, crossings, total variation,
    discrimination and how many significant findings at k = d are overturned.
    """
    if test not in PAIRWISE_TESTS:
        raise InputError(f"unknown test {test!r}; expected one of {', '.join(PAIRWISE_TESTS)}")
    show = not quiet and sys.stderr.isatty()
    names = read_names(contributing) if contributing else None
    if options.depth is None:
        raise InputError("volatility needs a finite evaluation depth: give -M N (default 1000)")
    if simulate_depth is not None and pool_depth is not None and simulate_depth != pool_depth:
        raise InputError(f"--pool-depth {pool_depth} and --simulate-pool {simulate_depth} disagree; "
                         "give one (--simulate-pool d also sets d)")
    if simulate_depth is not None:
        pool = simulate_pool(qrels, list(runs), simulate_depth, names, **options.as_dict())
    else:
        pool = given_pool(qrels, list(runs), pool_depth, names, **options.as_dict())
    if not quiet:
        click.echo(f"irstats: {_pool_note(pool, pool_depth is not None or simulate_depth is not None)}", err=True)
    result = sweep(pool, list(measures) or DEFAULT_SWEEP_MEASURES, depths, forms=_CONDENSED[condensed],
                   progress=show)
    stats = volatility(result, test=test, alpha=alpha, n_resamples=n_resamples, seed=seed, progress=show,
                       client=client)
    if output:
        write_frame(result.to_frame(), output, _format_for(output))
    if by_depth_path:
        write_frame(stats.by_depth, by_depth_path, _format_for(by_depth_path))
    if plot_path:
        from irstats.plots import save
        from irstats.plots.volatility import plot_data, trajectory_grid

        axes = trajectory_grid(result, size=plot_size)
        save(axes.flat[0], plot_path, plot_data(axes), dpi=100)
    emit_result(stats, fmt, None)
