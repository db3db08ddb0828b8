"""``irstats predictive``: predictive power φ of evaluation measures (METHODS.md §5.2)."""

from __future__ import annotations


import click

from irstats.cli.common import cluster_options, halving_options, parse_epsilon, scores_input
from irstats.cli.group import cli
from irstats.cli.output import OutputFile, emit_result, plot_size_option, seed_option
from irstats.errors import InputError
from irstats.measures import Role, measure_for
from irstats.meta.predictive import (
    DEFAULT_SUBSET_SIZES,
    DEFAULT_TOP,
    predictive_curve,
    predictive_power,
)

PREDICTIVE_EPILOG = """
\b
Examples:
  irstats predictive scores.tsv -m P@10 -m RR -m AP -m nDCG          # top 75% of systems by AP
  irstats predictive scores.tsv -m P@10 -m RR -m AP --top 0.75 --by AP -n 2000 --seed 1 --format tsv
  irstats predictive scores.tsv -m P@10 -m AP -m nDCG --all-systems --plot phi.png
  irstats predictive scores.tsv -m P@10 -m nDCG -m AP --curve --plot curve.svg     # φ vs topics per subset
  irstats predictive scores.tsv -m P@10 -m nDCG -m AP --curve --pair AP:P@10 --sizes 5,10,20
  irstats predictive --qrels qrels.txt --runs 'runs/*' -m P@10 -m RR -m AP -m nDCG

\b
For each of N random halvings of the topics (drawn from --seed), every system is
aggregated (mean, by default) by every measure on each half, and
  φ(A, B) = mean over halvings of ½[τ_b(A on half 1, B on half 2) + τ_b(B on half 1, A on half 2)],
so φ is symmetric; the diagonal is each measure's self-predictivity. Only the top
⌈0.75·s⌉ systems by the mean of --by over all topics take part (--all-systems: all).
Output: one row per ordered pair, columns measure_a measure_b phi sd n (the table format
shows the matrix: rows predict columns). --curve: φ for two disjoint sets of n topics each,
n in --sizes, for the --pair pairs (default nDCG:nDCG, P@10:P@10, nDCG:P@10 when present);
columns n_topics measure_a measure_b phi sd n.
"""


def _pairs(values) -> list[tuple[str, str]] | None:
    if not values:
        return None
    out = []
    for text in values:
        a, sep, b = text.rpartition(":")
        if not sep or not a or not b:
            raise InputError(f"--pair takes PREDICTOR:PREDICTED, e.g. nDCG:P@10, not {text!r}")
        out.append((a, b))
    return out


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise InputError(f"--sizes takes comma-separated whole numbers, e.g. 5,10,15, not {text!r}") from None
    if not sizes:
        raise InputError("--sizes is empty")
    return sizes


@cli.command("predictive", epilog=PREDICTIVE_EPILOG)
@cluster_options
@scores_input
@halving_options
@click.option("--method", default="am", show_default=True, metavar="NAME",
              help="How a system's scores on a half are aggregated.")
@click.option("--epsilon", metavar="E", default=None, help="ε of the method, if it takes one.")
@click.option("--top", type=float, default=DEFAULT_TOP, show_default=True,
              help="Share of systems kept: the top ⌈top·s⌉ by the mean of --by over all topics.")
@click.option("--by", default=measure_for(Role.DEFAULT), show_default=True, metavar="MEASURE",
              help="Measure that picks the top systems.")
@click.option("--all-systems", is_flag=True, help="Keep every system (same as --top 1).")
@click.option("-n", "--splits", "n_splits", type=int, default=2000, show_default=True,
              help="Number of random halvings (or draws per subset size with --curve).")
@seed_option("halvings")
@click.option("--curve", is_flag=True, help="φ against topics per subset instead of the φ matrix.")
@click.option("--sizes", default=",".join(map(str, DEFAULT_SUBSET_SIZES)), show_default=True,
              help="Topics per subset for --curve.")
@click.option("--pair", "pairs", multiple=True, metavar="A:B", help="Pair for --curve (repeatable).")
@click.option("--correlation", type=click.Choice(["kendall", "pearson"]), default="kendall", show_default=True)
@click.option("--plot", "plot_path", type=OutputFile(figure=True), default=None, metavar="FILE.png|svg",
              help="Draw the φ heatmap (or the φ curve with --curve); the data go to FILE.csv.")
@plot_size_option
def predictive_command(scores, method, epsilon, top, by, all_systems, n_splits, seed, curve, sizes, pairs,
                       correlation, nan_policy, skipna, tie_rtol, batch_size, plot_path, plot_size, fmt, output,
                       quiet, client):
    """Predictive power φ of measures: how well one measure's system ordering on half of
    the topics predicts another's on the other half (Webber et al., SIGIR 2008)."""
    eps = parse_epsilon(epsilon)
    keep = 1.0 if all_systems else top
    common = dict(method=method, epsilon=eps, top=keep, by=by, n_splits=n_splits, seed=seed,
                  correlation=correlation, nan_policy=nan_policy, skipna=skipna, tie_rtol=tie_rtol,
                  batch_size=batch_size, progress=False if quiet else None, client=client)
    if curve:
        result = predictive_curve(scores, _pairs(pairs), _sizes(sizes), **common)
        shown = result.view(seed)
    else:
        if pairs:
            raise InputError("--pair goes with --curve")
        result = predictive_power(scores, **common)
        shown = result.view()
    emit_result(shown, fmt, output)

    if plot_path:
        from irstats.plots import save
        from irstats.plots.meta import figure_data, plot_phi_curve, plot_phi_heatmap

        ax = plot_phi_curve(result, size=plot_size) if curve else plot_phi_heatmap(result, size=plot_size)
        save(ax, plot_path, figure_data(ax))
        click.echo(f"irstats: wrote {plot_path} and its data {plot_path.rsplit('.', 1)[0]}.csv", err=True)
