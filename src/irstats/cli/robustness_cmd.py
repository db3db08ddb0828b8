"""``irstats robustness``: how many standardizing systems reliable factors need (METHODS.md §5.3)."""

from __future__ import annotations

import click

from irstats.cli.common import cluster_options, scores_input
from irstats.cli.experiment_common import parse_int_list
from irstats.cli.group import cli
from irstats.cli.output import OutputFile, emit_result, output_options, plot_size_option, seed_option
from irstats.errors import InputError, some
from irstats.io.trec import read_names
from irstats.measures import Role, measure_for
from irstats.meta.robustness import standardization_robustness
from irstats.scores import ScoreMatrix
from irstats.standardize import ZERO_SD

ROBUSTNESS_EPILOG = """
\b
Examples:
  irstats robustness scores.tsv --standardizing trec2003_runs.txt --evaluated trec2004_runs.txt -m AP
  irstats robustness scores.tsv --standardizing pool.txt --sizes 2,3,5,10,15,20-78:10 -n 500 --seed 7
  irstats robustness scores.tsv --standardizing pool.txt --plot f7.png --line "topic sets=0.742"
  irstats robustness robust04/ --standardizing pool.txt --format json -o robustness.json --quiet
  irstats robustness scores.tsv --standardizing pool.txt -n 100000 --workers 2   # samples on 2 processes

\b
For each sample size n, n systems are drawn at random (-n times) from the standardizing
pool; their per-topic means and sds standardize the evaluated systems' scores (Φ(z),
averaged over topics), and Kendall's τ_b against the ranking with the factors of the
whole pool is recorded. The table gives, per n, the 50%, 5% and 1% quantiles of τ (the
paper's median, "95th" and "99th percentile lowest"), the mean, how many τ were undefined
and the mean share of topics whose sampled scores all agreed (zero variance, --zero-sd).
The header line τ(raw, std) compares the raw mean with the fully standardized one.
--plot writes figure F7 and its data as CSV next to it.
"""


#: The measure taken from scores that hold several when -m names none: the default measure
#: (AP: *Score Standardization* studies std(AP)).
DEFAULT_MEASURE = measure_for(Role.DEFAULT)


def _pick_measure(scores: dict[str, ScoreMatrix], asked: bool) -> ScoreMatrix:
    if len(scores) == 1:
        return next(iter(scores.values()))
    if not asked and DEFAULT_MEASURE in scores:
        return scores[DEFAULT_MEASURE]
    raise InputError(f"the scores hold several measures ({', '.join(scores)}); choose one with -m")


def _parse_lines(values) -> dict[str, float]:
    out = {}
    for text in values:
        label, sep, number = text.rpartition("=")
        try:
            out[label if sep else f"{float(number):g}"] = float(number)
        except ValueError:
            raise InputError(f"--line takes LABEL=VALUE or VALUE, not {text!r}") from None
    return out


@cli.command("robustness", epilog=ROBUSTNESS_EPILOG)
@cluster_options
@scores_input
@click.option("--standardizing", "standardizing_file", required=True, type=click.Path(dir_okay=False),
              metavar="NAMES_FILE", help="File with the standardizing systems (the pool), one name per line.")
@click.option("--evaluated", "evaluated_file", type=click.Path(dir_okay=False), metavar="NAMES_FILE",
              help="File with the evaluated systems' names (default: every system in SCORES).")
@click.option("-n", "--samples", "n_samples", default=2000, show_default=True, type=int,
              help="Random samples per sample size.")
@click.option("--sizes", metavar="LIST", help="Sample sizes, e.g. 2,3,5,10 or 2-20,30-78:8 (default: 2..pool size).")
@seed_option("numbers")
@click.option("--ddof", default=1, show_default=True, type=int, help="Delta degrees of freedom of the sds.")
@click.option("--zero-sd", type=click.Choice(list(ZERO_SD)), default="trec_eval", show_default=True,
              help="Topics whose sampled scores all agree (sd = 0).")
@click.option("--plot", "plot_path", type=OutputFile(figure=True), metavar="FILE",
              help="Write figure F7 (PNG/SVG/PDF by suffix) and its data as CSV beside it.")
@plot_size_option
@click.option("--line", "lines", multiple=True, metavar="LABEL=VALUE",
              help="Horizontal reference line on the plot; repeatable (default: τ(raw, std)).")
@output_options
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@click.pass_context
def robustness_command(ctx, scores, standardizing_file, evaluated_file, n_samples, sizes, seed, ddof, zero_sd,
                       plot_path, plot_size, lines, fmt, output, quiet, client):
    """Robustness of standardization to the number of standardizing systems (METHODS.md §5.3).

    Reads per-topic SCORES (or evaluates --qrels/--runs) holding the standardizing and the
    evaluated systems, samples the standardizing pool and reports quantiles of Kendall's τ
    between the rankings with sampled and with full standardization factors.
    """
    matrix = _pick_measure(scores, bool(ctx.params.get("measures")))
    pool = read_names(standardizing_file)
    evaluated = read_names(evaluated_file) if evaluated_file else None
    size_list = parse_int_list(sizes, "--sizes")
    for path, names in ((standardizing_file, pool), (evaluated_file, evaluated or [])):
        unknown = [s for s in names if s not in set(matrix.systems)]
        if unknown:
            raise InputError(f"system(s) {some(unknown)} "
                             f"are not in the scores of {matrix.measure}", path=str(path))
    result = standardization_robustness(matrix, pool, evaluated, size_list, n_samples, seed, ddof, zero_sd,
                                        progress=False if quiet else None, client=client)
    if plot_path:
        from irstats.plots.common import save
        from irstats.plots.standardization import plot_tau_quantiles, tau_quantile_data

        refs = _parse_lines(lines) if lines else {f"raw vs std({result.measure})": result.raw_tau}
        ax = plot_tau_quantiles(result, reference_lines=refs,
                                title=f"std({result.measure}): {len(result.evaluated)} evaluated systems",
                                size=plot_size)
        save(ax, plot_path, tau_quantile_data(result, refs))
    emit_result(result, fmt, output)
