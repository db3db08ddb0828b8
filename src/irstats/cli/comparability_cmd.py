"""``irstats comparability``: cross-collection comparability of raw, R-normalised and
standardized scores (METHODS.md §5.4)."""

from __future__ import annotations

from pathlib import Path

import click

from irstats.cli.common import eval_options, load_scores
from irstats.cli.group import cli
from irstats.cli.output import OutputFile, emit_result, output_options, plot_size_option, seed_option
from irstats.errors import InputError
from irstats.io.trec import read_names
from irstats.measures import Role, measure_for
from irstats.meta.comparability import (
    comparability_study,
    forms_by_group,
    ideal_measures,
    ideal_scores_from_qrels,
    num_relevant_from_qrels,
)
from irstats.scores import ScoreMatrix

COMPARABILITY_EPILOG = """
\b
Examples:
  irstats comparability robust04/ -m AP                 # baseline on topics 351-450 (R from num_rel)
  irstats comparability robust04/ -m AP -m P@10 -m nDCG --partitions 1000 --plot f8.png
  irstats comparability t7.tsv t8.tsv -m AP --labels T7,T8   # observed pair + baseline on the union
  irstats comparability scores.tsv -m SP -m DCG --qrels qrels.txt --format json -o comparability.json
  irstats comparability --qrels qrels.txt --runs 'runs/*.gz' -m AP -m P@10

\b
Each measure is compared in three forms: raw (SP, DCG, P@10, binary RBP), R-normalised
(AP = SP/R, nDCG = DCG/IDCG, P@10 ÷ min(R,10)/10, RBP ÷ (1 − p^min(R,m))) and
standardized (Φ of the z-score; factors from --factors, else fitted on --reference or all
systems). R comes from --num-rel (a score file with num_rel), from --qrels, or from a
num_rel measure in SCORES; without it only the given form and its standardized form are
compared. The DCG ideal needs --qrels.
\b
One score file: the randomised baseline on its topics — --partitions random 50/50 splits
give the dRMSE distribution (mean, 2.5/97.5/99% quantiles), --fp-partitions give the rate
of systems significantly different from themselves (two-tailed two-sample t at --alpha;
mean and 97.5% quantile); discriminative power is the paired-t share of system pairs with
p < alpha. Two score files (same systems): the observed dRMSE between them, the count of
systems significantly better on one than on the other (one-tailed, α = 0.025), their FP
rate, and the baseline on the union of their topics. --plot writes figures F8 (dRMSE) and
F9 (FILE-fp: false positives), each with its data as CSV.
"""


#: R per topic, read from a score file by the name of the family playing that role (NumRel).
NUM_REL = measure_for(Role.R_PER_TOPIC)


def _r_sources(index: int, scores: dict[str, ScoreMatrix], num_rel_files, qrels_files, need_ideal: set[str],
               options):
    """(num_rel, {measure: ideal}) for the score file at position ``index``."""
    num_rel: ScoreMatrix | dict[str, float] | None = None  # from a score file, or counted in the qrels
    ideals: dict[str, dict] = {}
    if index < len(num_rel_files):
        other = load_scores(num_rel_files[index], None, (), ())
        if NUM_REL not in other:
            raise InputError(f"no num_rel ({NUM_REL}) measure in this file", path=str(num_rel_files[index]))
        num_rel = other[NUM_REL]
    if num_rel is None and NUM_REL in scores:
        num_rel = scores[NUM_REL]  # counted when the scores were made, at their relevance level
    if index < len(qrels_files):
        if num_rel is None:
            num_rel = num_relevant_from_qrels(qrels_files[index], **options.as_dict())
        for m in need_ideal:
            ideals[m] = ideal_scores_from_qrels(qrels_files[index], m)
    return num_rel, ideals


def _select(scores: dict[str, ScoreMatrix], measures, source: str) -> list[ScoreMatrix]:
    from irstats.measures import canonical_name

    out = []
    for name in measures or (measure_for(Role.DEFAULT),):
        key = name
        if key not in scores:
            try:
                key = canonical_name(name)
            except Exception:  # noqa: BLE001 - a name irstats cannot parse may still be in the file
                key = name
        if key not in scores:
            raise InputError(f"measure {name!r} is not in the scores; they have {', '.join(scores)}", path=source)
        out.append(scores[key])
    return out


@cli.command("comparability", epilog=COMPARABILITY_EPILOG)
@click.argument("scores_paths", nargs=-1, metavar="[SCORES] [SCORES2]", type=click.Path())
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure(s) to compare (default AP); given in either form (SP or AP, DCG or nDCG, P@10, RBP).")
@click.option("--num-rel", "num_rel_files", multiple=True, type=click.Path(), metavar="FILE",
              help="Score file with num_rel per topic, one per SCORES in order (default: num_rel in SCORES).")
@click.option("--qrels", "qrels_files", multiple=True, type=click.Path(), metavar="FILE",
              help="Qrels for R and the ideal DCG, one per SCORES in order; with --runs and no SCORES, "
                   "the runs are evaluated against it.")
@click.option("--runs", multiple=True, help="Run files, directories or globs to evaluate (with one --qrels).")
@eval_options
@click.option("--labels", metavar="A,B", help="Names of the two collections (default: the file names).")
@click.option("--reference", "reference_file", type=click.Path(dir_okay=False), metavar="NAMES_FILE",
              help="Systems whose scores give the standardization factors (default: all).")
@click.option("--factors", "factors_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Stored standardization factors (irstats TSV or trec_eval -Z) instead of fitting them.")
@click.option("--partitions", "n_partitions", default=1000, show_default=True, type=int,
              help="Random 50/50 partitions for the dRMSE distribution.")
@click.option("--fp-partitions", "n_fp_partitions", default=2000, show_default=True, type=int,
              help="Random 50/50 partitions for the false-positive rates.")
@seed_option("numbers")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="Level of the two-tailed tests.")
@click.option("--equal-var", is_flag=True, help="Pooled two-sample t-test instead of Welch's.")
@click.option("--plot", "plot_path", type=OutputFile(figure=True), metavar="FILE",
              help="Write figures F8 (FILE) and F9 (FILE with -fp before the suffix), each with a CSV beside it.")
@plot_size_option
@output_options
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def comparability_command(scores_paths, measures, num_rel_files, qrels_files, runs, options, labels, reference_file,
                          factors_file, n_partitions, n_fp_partitions, seed, alpha, equal_var, plot_path,
                          plot_size, fmt, output, quiet):
    """Cross-collection comparability of raw, R-normalised and standardized scores (METHODS.md §5.4).

    With one score file, the randomised baseline on its topic pool; with two (over the same
    systems), the observed comparison and the baseline on the union of their topics.
    """
    if len(scores_paths) > 2:
        raise InputError(f"give one or two score files, not {len(scores_paths)}")
    if runs:
        if scores_paths:
            raise InputError("give either SCORES or --qrels/--runs, not both")
        if len(qrels_files) != 1:
            raise InputError("--runs needs exactly one --qrels")
        wanted = list(dict.fromkeys([*(measures or (measure_for(Role.DEFAULT),)), NUM_REL]))
        collections = {"runs": load_scores(None, qrels_files[0], runs, wanted, options=options)}
        sources = ["runs"]
    else:
        if not scores_paths:
            raise InputError("no scores: give a SCORES file (or two), or --qrels Q --runs RUN...")
        collections = {}
        sources = list(scores_paths)
        names = [Path(p).name.split(".")[0] or str(p) for p in scores_paths]
        if labels:
            names = [s.strip() for s in labels.split(",")]
            if len(names) != len(scores_paths) or len(set(names)) != len(names):
                raise InputError(f"--labels needs {len(scores_paths)} distinct names, not {labels!r}")
        elif len(set(names)) != len(names):
            names = ["A", "B"]
        for name, path in zip(names, scores_paths):
            collections[name] = load_scores(path, None, (), ())
    for what, files in (("--num-rel", num_rel_files), ("--qrels", qrels_files)):
        if len(files) > len(collections):
            raise InputError(f"{what} is given {len(files)} times for {len(collections)} score file(s)")
    reference = read_names(reference_file) if reference_file else None
    factors = None
    if factors_file:
        from irstats.standardize import read_any_factors

        factors = read_any_factors(factors_file)

    forms = {}
    for k, ((label, scores), source) in enumerate(zip(collections.items(), sources)):
        chosen = _select(scores, measures, str(source))
        num_rel, ideals = _r_sources(k, scores, num_rel_files, qrels_files, ideal_measures(chosen), options)
        forms[label] = forms_by_group(chosen, num_rel, ideals, factors, reference)
    study = comparability_study(forms, n_partitions, n_fp_partitions, seed, alpha, equal_var,
                                progress=False if quiet else None)
    result = study.baseline

    if plot_path:
        from irstats.plots.common import save
        from irstats.plots.standardization import (
            drmse_data,
            false_positive_data,
            plot_drmse,
            plot_false_positives,
        )

        path = Path(plot_path)
        save(plot_drmse(result, title=f"dRMSE, {n_partitions} random partitions of {len(result.topics)} topics",
                        size=plot_size), path, drmse_data(result))
        fp_path = path.with_name(f"{path.stem}-fp{path.suffix}")
        save(plot_false_positives(result, title=f"False positives, {n_fp_partitions} random partitions",
                                  size=plot_size), fp_path, false_positive_data(result))

    emit_result(study, fmt, output)
