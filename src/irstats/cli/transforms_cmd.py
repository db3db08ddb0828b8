"""``irstats transforms``: do conclusions survive a change of scale? (seed 001; METHODS.md §5.7)."""

from __future__ import annotations

import click

from irstats.cli.common import scores_input
from irstats.cli.group import cli
from irstats.cli.output import OutputFile, emit_result, output_options, plot_size_option
from irstats.result import FrameResult, Results
from irstats.errors import InputError
from irstats.meta.transforms import DEFAULT_EPSILON, TRANSFORMS

TRANSFORMS_EPILOG = """
\b
Examples:
  irstats transforms scores.tsv -m AP                     # every transformation, α = 0.05
  irstats transforms scores.tsv -m AP --transform log --transform ranks --format tsv
  irstats transforms scores.tsv -m AP --pairs --format tsv -o pairs.tsv   # every pair, every transform
  irstats transforms scores.tsv -m AP --plot changes.png

\b
For every pair of systems, the paired t-test on the transformed per-topic scores gives a
direction and a significance; a conclusion changes when it differs from the raw scores'.
Transformations: raw, log (log(x + ε), the scale of GMAP), logit, ranks (per topic),
standardized (Φ of per-topic z-scores). Robertson (CIKM 2006) asks for exactly this check.
Columns (tsv/csv/json): measure transform pairs significant changed change_rate reversed;
with --pairs: measure system_a system_b transform delta t p conclusion changed reversed.
"""


@cli.command("transforms", epilog=TRANSFORMS_EPILOG)
@scores_input
@click.option("--transform", "transforms", multiple=True, type=click.Choice(list(TRANSFORMS)),
              help="A transformation to check (repeatable; default: all).")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="Significance level of the paired t-test.")
@click.option("--epsilon", default=DEFAULT_EPSILON, show_default=True, type=float,
              help="ε of the log and logit transformations.")
@click.option("--pairs", is_flag=True, help="Print every pair's conclusion under every transformation instead.")
@click.option("--plot", type=OutputFile(), help="Write a bar chart of the change rates (PNG, SVG or PDF).")
@plot_size_option
@output_options
def transforms_command(scores, transforms, alpha, epsilon, pairs, plot, plot_size, fmt, output):
    """Which system comparisons change direction or significance when the scores are transformed."""
    from irstats.meta.transforms import transform_robustness

    chosen = ("raw", *transforms) if transforms and "raw" not in transforms else (transforms or tuple(TRANSFORMS))
    results = [transform_robustness(matrix, chosen, alpha, epsilon) for matrix in scores.values()]
    if not results:
        raise InputError("no scores")
    if plot:
        from irstats.plots import save, style

        with style(plot_size):
            ax = results[0].plot()
            save(ax, plot, ax.irstats_data)
    if pairs:
        emit_result(Results(FrameResult(r.pairs_frame, f"{r.measure}: every system pair's conclusion per "
                                                       "transformation") for r in results), fmt, output)
    else:
        emit_result(Results(results), fmt, output)
