"""``irstats splithalf``: split-half self-consistency of aggregation methods (METHODS.md §5.1)."""

from __future__ import annotations

import click

from irstats.aggregate import METHODS
from irstats.cli.common import cluster_options, halving_options, parse_epsilon, scores_input
from irstats.cli.group import cli
from irstats.cli.output import OutputFile, emit_result, plot_size_option, seed_option
from irstats.errors import InputError
from irstats.meta.splithalf import DEFAULT_METHODS, SWEEP_EPSILONS, split_half
from irstats.meta.splithalf import epsilon_sweep as run_epsilon_sweep

SPLITHALF_EPILOG = """
\b
Examples:
  irstats splithalf scores.tsv -m AP                          # am, egm, gm_trec_eval; 10,000 halvings
  irstats splithalf scores.tsv -m AP --method am --method egm --method gm_trec_eval --format tsv
  irstats splithalf scores.tsv -m AP --method egm:0.1 --method median -n 2000 --seed 7
  irstats splithalf std_scores.tsv --method am                # std(AP) from 'irstats standardize apply'
  irstats splithalf scores.tsv -m AP --epsilon-sweep --plot sweep.png       # Fig. 1/3: τ against ε
  irstats splithalf scores.tsv -m AP --method am --method egm --paired      # Δτ, share Δ > 0, paired t
  irstats splithalf scores.tsv -m AP --correlation pearson --plot density.svg
  irstats splithalf --qrels qrels.txt --runs 'runs/*' -m AP -m P@10
  irstats splithalf scores.tsv -m AP -n 1000000 --workers 2     # batches of halvings on 2 processes

\b
For each of N random halvings of the topics (the same halvings for every method and
measure, drawn from --seed), each system is aggregated on each half by each method, and
Kendall's τ-b (or Pearson's r) between the two halves' aggregates is recorded. The table
has one row per measure and method: measure method n mean sd q05 q25 q50 q75 q95 epsilon,
then hard_easy and middle_rest (τ on the fixed difficulty splits, when AP — or the
--difficulty-measure — is among the scores) and pct_zero pct_low (share of scores that
are 0 and below 0.1). --method NAME:EPS gives one method its own ε; --epsilon sets the ε of
every ε method (egm, ehm, al, logit), as in 'irstats aggregate' — never gm_trec_eval's floor
(1e-5, trec_eval's gm_map), which only --method gm_trec_eval:FLOOR changes.

\b
Methods: """ + ", ".join(METHODS) + """.
"""


@cli.command("splithalf", epilog=SPLITHALF_EPILOG)
@cluster_options
@scores_input
@halving_options
@click.option("--method", "methods", multiple=True, metavar="NAME[:EPS]",
              help=f"Aggregation method; repeat for several. Default: {', '.join(DEFAULT_METHODS)}.")
@click.option("--epsilon", metavar="E", default=None,
              help="ε of every ε method (egm, ehm, al, logit; default 0.01); not gm_trec_eval's floor.")
@click.option("-n", "--splits", "n_splits", type=int, default=10_000, show_default=True,
              help="Number of random halvings.")
@seed_option("halvings")
@click.option("--correlation", type=click.Choice(["kendall", "pearson"]), default="kendall", show_default=True,
              help="Kendall's τ-b, or Pearson's r (the Pearson variant).")
@click.option("--epsilon-sweep", is_flag=True,
              help="Mean τ of egm and ehm (or the --method ones) for ε = 1e-5, 10^-4.5, …, 1e3, with am as asymptote.")
@click.option("--paired", is_flag=True,
              help="Print the paired comparisons of the methods (mean Δτ, share Δτ > 0, paired t-test).")
@click.option("--difficulty-measure", default="auto", show_default=True, metavar="NAME",
              help="Measure the topic difficulty D_t is computed from for the hard/easy and middle/rest splits "
                   "('auto': AP if present; 'none': skip).")
@click.option("--difficulty-method", default="max_mean_sd", show_default=True, metavar="NAME",
              help="D_t: max_mean_sd (Eq. 2), one_minus_mean (Eq. 1), one_minus_max.")
@click.option("--low-threshold", type=float, default=0.1, show_default=True,
              help="Scores below this count as low (pct_low).")
@click.option("--low-inclusive", is_flag=True, help="Count scores equal to --low-threshold as low too.")
@click.option("--plot", "plot_path", type=OutputFile(figure=True), default=None, metavar="FILE.png|svg",
              help="Draw the τ densities (or τ against ε with --epsilon-sweep); the data go to FILE.csv.")
@plot_size_option
def splithalf_command(scores, methods, epsilon, n_splits, seed, correlation, epsilon_sweep, paired,
                      difficulty_measure, difficulty_method, low_threshold, low_inclusive, nan_policy, skipna,
                      tie_rtol, batch_size, plot_path, plot_size, fmt, output, quiet, client):
    """Split-half self-consistency of aggregation methods on per-topic SCORES.

    SCORES is a score file (system topic measure value; TSV, CSV, JSON or Parquet, e.g.
    from 'irstats eval --per-topic' or 'irstats standardize apply') or trec_eval -q output;
    or give --qrels and --runs to evaluate first.
    """
    eps = parse_epsilon(epsilon)
    difficulty = None if difficulty_measure.lower() == "none" else difficulty_measure
    progress = False if quiet else None
    common = dict(n_splits=n_splits, seed=seed, correlation=correlation, nan_policy=nan_policy, skipna=skipna,
                  tie_rtol=tie_rtol, batch_size=batch_size, progress=progress, low_threshold=low_threshold,
                  low_inclusive=low_inclusive, difficulty_method=difficulty_method, client=client)
    if epsilon_sweep:
        if eps is not None:
            raise InputError("--epsilon and --epsilon-sweep do not go together (the sweep sets ε)")
        sweep_methods = [m for m in methods if m.split(":")[0].lower() not in ("am", "mean")] or ["egm", "ehm"]
        result = run_epsilon_sweep(scores, sweep_methods, SWEEP_EPSILONS,
                               difficulty=None if difficulty == "auto" else difficulty, **common)
    else:
        result = split_half(scores, list(methods) or list(DEFAULT_METHODS), epsilon=eps, difficulty=difficulty,
                            **common)

    emit_result(result.view(paired=paired, comparisons=not epsilon_sweep), fmt, output)

    if plot_path:
        from irstats.plots import save
        from irstats.plots.meta import figure_data, plot_epsilon_sweep, plot_tau_density

        ax = plot_epsilon_sweep(result, size=plot_size) if epsilon_sweep else plot_tau_density(result, size=plot_size)
        save(ax, plot_path, figure_data(ax))
        click.echo(f"irstats: wrote {plot_path} and its data {plot_path.rsplit('.', 1)[0]}.csv", err=True)
