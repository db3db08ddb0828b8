"""``irstats bayes``: posterior probabilities that systems are better than a baseline by more
than a difference that matters (issue 38)."""

from __future__ import annotations

import click

from irstats.cli.common import scores_input
from irstats.cli.group import cli
from irstats.cli.output import OutputFile, emit_result, output_options, plot_size_option, seed_option
from irstats.errors import InputError

BAYES_EPILOG = """
\b
Examples:
  irstats bayes scores.tsv -m AP --baseline bm25                 # signed-rank test, ROPE ±0.01
  irstats bayes scores.tsv -m AP --baseline bm25 --rope 0.02 --test t --format tsv
  irstats bayes scores.tsv -m nDCG@10 --all-pairs --plot simplex.pdf --plot-size column
  irstats bayes scores.tsv -m AP --baseline bm25 --posterior rm3 --plot rm3.png
  irstats bayes --qrels qrels.txt --runs 'runs/*.gz' -m AP -n 100000 --seed 7

\b
SCORES is a per-topic score file (irstats eval -q --format tsv) or trec_eval -q output.
For each system and measure, on the topics it shares with the baseline: P(baseline better),
P(practically equivalent: the difference within ±ROPE) and P(system better), and the
posterior interval of the mean difference system − baseline (columns measure system
baseline p_baseline_better p_rope p_system_better interval_low interval_high).
--test signed_rank: the Bayesian signed-rank test (Benavoli et al., ICML 2014), a Dirichlet
process with a pseudo-observation at 0 of weight --prior, -n Monte-Carlo samples (--seed);
the same test as baycomp.SignedRankTest. --test t: the posterior of the mean difference is
Student t with n − 1 degrees of freedom, centred on the mean difference, scale s/√n
(closed form). --rope is in the measure's units; default 0.01 for a measure in [0, 1] and
1% of the scores' range for others (counts, DCG).
"""


@cli.command("bayes", epilog=BAYES_EPILOG)
@scores_input
@click.option("--baseline", default=None, metavar="NAME",
              help="System to compare with (default: the best by the first measure).")
@click.option("--all-pairs", is_flag=True, help="Compare every pair of systems instead (system: the better-ranked).")
@click.option("--test", "test", default="signed_rank", show_default=True, type=click.Choice(["signed_rank", "t"]),
              help="Bayesian signed-rank test (Monte-Carlo) or Bayesian paired t-test (closed form).")
@click.option("--rope", default=None, type=float, metavar="R",
              help="Half-width of the region of practical equivalence, in the measure's units "
                   "[default: 0.01 for measures in [0, 1]; else 1% of the scores' range].")
@click.option("--level", default=0.95, show_default=True, type=float, help="Level of the posterior interval.")
@click.option("-n", "--samples", "n_samples", default=50000, show_default=True, type=int,
              help="Monte-Carlo samples of the signed-rank test's posterior.")
@click.option("--prior", default=0.5, show_default=True, type=float,
              help="Weight of the Dirichlet process prior's pseudo-observation at 0 (signed-rank test).")
@seed_option("probabilities")
@output_options
@click.option("--plot", "plot_path", type=OutputFile(figure=True), metavar="FILE",
              help="Draw the simplex of every pair's probabilities (first measure) to FILE; with --posterior, "
                   "that system's posterior with the ROPE shaded.")
@click.option("--posterior", default=None, metavar="SYSTEM",
              help="With --plot: draw the posterior of this system's difference to its baseline.")
@plot_size_option
def bayes_command(scores, baseline, all_pairs, test, rope, level, n_samples, prior, seed, fmt, output, plot_path,
                  posterior, plot_size):
    """Bayesian comparison with a baseline: P(worse), P(practically equivalent), P(better) per measure."""
    from irstats.stats.bayes import bayes

    if posterior is not None and not plot_path:
        raise InputError("--posterior names the system whose posterior --plot draws: give --plot FILE too")
    result = bayes(scores, baseline, all_pairs=all_pairs, test=test, rope=rope, level=level, n_samples=n_samples,
                   prior=prior, seed=seed)
    if plot_path:
        from irstats.plots import save, style

        with style(plot_size):
            ax = result.plot_posterior(system=posterior) if posterior else result.plot_simplex()
            save(ax, plot_path, ax.irstats_data)
    emit_result(result, fmt, output)
