"""``irstats standardize fit|apply``: standardization factors and standardized scores (§4)."""

from __future__ import annotations

import click

from irstats.cli.common import scores_input
from irstats.cli.group import cli
from irstats.cli.output import FRAME_FORMATS, emit_data, output_file_option, output_options
from irstats.errors import InputError, IrstatsWarning, warn
from irstats.io.trec import read_names
from irstats.scores import scores_to_frame
from irstats.standardize import (
    ZERO_SD,
    apply_factors,
    fit_factors,
    read_any_factors,
    write_factors,
    write_trec_eval_factors,
)

STANDARDIZE_EPILOG = """
\b
Examples:
  irstats standardize fit scores.tsv -o factors.tsv
  irstats standardize fit scores.tsv --reference original_runs.txt -m AP -o factors.tsv
  irstats standardize fit scores.tsv -m map -m P_10 --trec-eval-format -o zscores_file
  irstats standardize apply new_scores.tsv --factors factors.tsv -o std_scores.tsv
  irstats standardize apply new_scores.tsv --factors zscores_file --z --format json
  irstats aggregate std_scores.tsv --method am             # "AM-SP": mean standardized AP
"""

FIT_EPILOG = """
\b
Examples:
  irstats standardize fit scores.tsv -o factors.tsv                  # all systems are the reference
  irstats standardize fit scores.tsv --reference refs.txt -o factors.tsv
  irstats standardize fit --qrels qrels.txt --runs 'runs/*' -m AP -m nDCG@10 -o factors.tsv
  irstats standardize fit scores.tsv -m AP --trec-eval-format -o zscores_file   # for trec_eval -Z

\b
The factors file (TSV) has '# key: value' metadata lines (irstats version, ddof, reference
systems, measure options), then the header 'topic measure mean sd n ddof'. With
--trec-eval-format it has trec_eval's '-Z' layout 'topic measure mean sd' instead.
"""

APPLY_EPILOG = """
\b
Examples:
  irstats standardize apply scores.tsv --factors factors.tsv -o std.tsv          # std(AP) = Φ(z)
  irstats standardize apply scores.tsv --factors factors.tsv --z -m AP          # z(AP)
  irstats standardize apply scores.tsv --factors zscores_file --zero-sd inf --format parquet -o std.parquet

\b
The output is a score file 'system topic measure value' with the measure named std(M)
(Φ of the z-score) or, with --z, z(M). Both factor formats are recognised. Undefined scores
(a zero-variance topic under the trec_eval rule) are left out, as unevaluated scores are.
--zero-sd: trec_eval = z is 0 at the mean and undefined elsewhere; inf = ±inf away from the
mean; drop = leave the topic out for every system.
"""


@cli.group("standardize", epilog=STANDARDIZE_EPILOG)
def standardize_group():
    """Standardize per-topic scores: z = (x − mean_t)/sd_t over reference systems, then Φ(z).

    'fit' computes the per-topic factors from reference systems and saves them; 'apply'
    standardizes any systems' scores with saved factors (METHODS.md §4).
    """


@standardize_group.command("fit", epilog=FIT_EPILOG)
@scores_input
@click.option("--reference", "reference_file", type=click.Path(dir_okay=False), metavar="NAMES_FILE",
              help="File with the reference systems' names, one per line (default: every system).")
@click.option("--ddof", type=int, default=1, show_default=True,
              help="Delta degrees of freedom of the standard deviation (1 = sample sd).")
@click.option("--trec-eval-format", is_flag=True,
              help="Write trec_eval's -Z format (topic measure mean sd, trec_eval measure names).")
@output_file_option(help="The factors file to write.", required=True)
def fit_command(scores, reference_file, ddof, trec_eval_format, output):
    """Fit per-topic standardization factors (mean, sd) on reference systems' SCORES."""
    reference = read_names(reference_file) if reference_file else None
    try:
        factors = fit_factors(scores, reference=reference, ddof=ddof)
    except InputError as exc:
        if reference_file and exc.path is None and "reference system" in exc.message:
            raise InputError(exc.message, path=str(reference_file)) from None
        raise
    if trec_eval_format:
        write_trec_eval_factors(factors, output)
    else:
        write_factors(factors, output)


@standardize_group.command("apply", epilog=APPLY_EPILOG)
@scores_input
@click.option("--factors", "factors_file", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Factors from 'irstats standardize fit' (TSV) or a trec_eval -Z file.")
@click.option("--z", "z_form", is_flag=True, help="Output z-scores, named z(M), instead of Φ(z), named std(M).")
@click.option("--zero-sd", type=click.Choice(list(ZERO_SD)), default="trec_eval", show_default=True,
              help="What a topic whose reference scores all agree (sd = 0) gives.")
@click.option("--missing", type=click.Choice(["error", "nan"]), default="error", show_default=True,
              help="A topic with no factors: stop with an error, or leave its scores out with a warning.")
@output_options(formats=FRAME_FORMATS, of="the score file")
@click.pass_context
def apply_command(ctx, scores, factors_file, z_form, zero_sd, missing, fmt, output):
    """Standardize SCORES with saved factors; prints a score file of std(M) or z(M)."""
    factors = read_any_factors(factors_file)
    chosen = {}
    explicit = bool(ctx.params.get("measures"))
    for name, matrix in scores.items():
        if factors.has_measure(matrix.measure) or explicit:
            chosen[name] = matrix
        else:
            warn(f"{factors_file}: no factors for measure {matrix.measure!r}; it is not standardized", IrstatsWarning)
    if not chosen:
        raise InputError(f"the factors cover {', '.join(factors.measure_names) or 'no measure'}, none of the "
                         f"measures in the scores ({', '.join(scores)})", path=str(factors_file))
    out = []
    for matrix in chosen.values():
        out.append(apply_factors(matrix, factors, form="z" if z_form else "cdf", zero_sd=zero_sd,
                                 missing="error" if missing == "error" else "warn"))
    frame = scores_to_frame(out)
    emit_data(frame, fmt, output)
