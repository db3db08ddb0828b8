"""``irstats power``: achieved power and the sample size needed, from a reported t or F or
from per-topic scores (Sakai 2018, ch. 7; METHODS.md §5.7)."""

from __future__ import annotations

import click

from irstats.cli.common import load_scores, scores_input
from irstats.cli.group import cli
from irstats.cli.output import emit_result, output_options
from irstats.errors import InputError
from irstats.result import Results
from irstats.stats.power import EFFECTS, POWER_DESIGNS

POWER_EPILOG = """
\b
Examples:
  irstats power --test paired_t --t 2.116 --n 20                # a paper's paired t over 20 topics
  irstats power --test two_sample_t --t 2.0 --n 20 --n2 30      # Student's t, 20 and 30 topics
  irstats power --test one_way_anova --f 2.475 --m 3 --n 20     # F of 3 systems, 20 topics each
  irstats power --test two_way_anova --f 2.475 --m 3 --n 20     # two-way without replication
  irstats power --test two_way_anova_replicated --f 1.9 --m 4 --n 6 --replicates 3 --effect interaction
  irstats power scores.tsv -m AP --test paired_t --systems bm25 dense
  irstats power scores.tsv -m AP -m nDCG@10 --test two_way_anova --beta 0.1 --format tsv
  irstats power seed1.tsv --replicate seed2.tsv --test two_way_anova_replicated -m AP

\b
With SCORES (or --qrels/--runs) the test is run on the scores: the paired or Student's
two-sample t of --systems A B (default: the only two systems), or the F of the systems
in an ANOVA of every system (--effect for the replicated design, whose other replicates
are given with --replicate FILE). Without, give the statistic (--t or --f) and the sizes:
--n topics (paired_t; per system for two_sample_t and one_way_anova), --n2 the second
system's topics (two_sample_t), --m systems (ANOVA), --replicates scores per system and
topic (two_way_anova_replicated).
The effect the test saw is taken as the true one: d = |t|/√n (paired), |t|·√(1/n + 1/n2)
(two-sample), Cohen's f = √(φF/φ_E) (ANOVA); the power is exact (noncentral t and F), and
the sample size is the smallest with power 1 − β for that effect: topics (paired_t,
two_way_anova), topics per system (two_sample_t, one_way_anova), replicates per cell.
Columns (tsv/csv/json): measure test compared effect statistic df1 df2 effect_size
noncentrality alpha power beta n n2 sample_size unit.
"""


@cli.command("power", epilog=POWER_EPILOG)
@scores_input(optional=True,
              measure_help="Measure(s) to analyse (default: every measure in SCORES); a label without SCORES.")
@click.option("--test", default="paired_t", show_default=True, type=click.Choice(list(POWER_DESIGNS)),
              help="The test reported.")
@click.option("--t", "t_value", type=float, help="The t statistic reported (paired_t, two_sample_t).")
@click.option("--f", "f_value", type=float, help="The F statistic of the effect reported (the ANOVA tests).")
@click.option("--n", "n", type=int, help="Topics (paired_t, two_way_anova; per system for the others).")
@click.option("--n2", "n2", type=int, help="The second system's topics (two_sample_t; default --n).")
@click.option("--m", "n_systems", type=int, help="Systems compared (the ANOVA tests).")
@click.option("--replicates", type=int, help="Scores per system and topic (two_way_anova_replicated).")
@click.option("--effect", default="systems", show_default=True, type=click.Choice(EFFECTS),
              help="The effect whose F is analysed (two_way_anova_replicated).")
@click.option("--systems", nargs=2, metavar="A B", help="The two systems of a t-test on SCORES.")
@click.option("--replicate", "replicates_paths", multiple=True, type=click.Path(dir_okay=True), metavar="FILE",
              help="Another score file of the same systems and topics (two_way_anova_replicated); repeatable.")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="Significance level α.")
@click.option("--beta", default=0.2, show_default=True, type=float, help="β: the power asked for is 1 − β.")
@output_options(note="the table: a sentence and a row per measure", systems=False)
def power_command(scores, measures, test, t_value, f_value, n, n2, n_systems, replicates, effect,
                  systems, replicates_paths, alpha, beta, fmt, output):
    """Achieved power and the topics needed, from a reported t or F or from per-topic scores."""
    from irstats.stats.power import power_analysis, power_from_scores

    design = POWER_DESIGNS[test]
    if scores is not None:
        if t_value is not None or f_value is not None:
            raise InputError("give SCORES (or --qrels/--runs) or a statistic (--t, --f), not both")
        if replicates_paths and not design.replicated:
            raise InputError("--replicate is for --test two_way_anova_replicated")
        if systems and not design.is_t_test:
            raise InputError("--systems names the two systems of a t-test; an ANOVA takes every system in SCORES")
        if design.replicated:
            if not replicates_paths:
                raise InputError("two_way_anova_replicated on scores needs --replicate FILE (another score file of "
                                 "the same systems and topics) at least once")
            others = [load_scores(path, None, (), tuple(scores)) for path in replicates_paths]
            results = [power_from_scores([matrix, *(other[name] for other in others)], test, effect=effect,
                                         alpha=alpha, beta=beta) for name, matrix in scores.items()]
        else:
            results = [power_from_scores(matrix, test, systems or None, effect=effect, alpha=alpha, beta=beta)
                       for matrix in scores.values()]
        if not results:
            raise InputError("no scores")
    else:
        values = {"t": t_value, "F": f_value}  # by the symbol of what a test reports (--t, --f)
        reported = design.statistic
        statistic = values.pop(reported)
        [(other, other_value)] = values.items()
        if statistic is None:
            raise InputError(f"give --{reported.lower()} (the statistic reported), or SCORES "
                             f"(or --qrels/--runs) to run the test on")
        if other_value is not None:
            raise InputError(f"{test} reports {reported} (--{reported.lower()}), not {other} (--{other.lower()})")
        if n is None:
            raise InputError("give --n, the topics of the test")
        if not design.is_t_test and n_systems is None:
            raise InputError(f"give --m, the systems the {test} compared")
        if design.is_t_test and n_systems is not None:
            raise InputError("--m is for the ANOVA tests")
        if replicates is not None and not design.replicated:
            raise InputError("--replicates is for two_way_anova_replicated")
        kwargs = dict(alpha=alpha, beta=beta, measure=", ".join(measures))
        if design.two_groups:
            kwargs["n2"] = n2
        elif n2 is not None:
            raise InputError("--n2 is for two_sample_t")
        if design.is_t_test:
            result = power_analysis(statistic, test, n=n, **kwargs)
        elif design.replicated:
            if replicates is None:
                raise InputError("give --replicates, the scores per system and topic")
            result = power_analysis(statistic, test, n=replicates, n_topics=n, n_systems=n_systems, effect=effect,
                                    **kwargs)
        else:
            result = power_analysis(statistic, test, n=n, n_systems=n_systems, effect=effect, **kwargs)
        results = [result]
    emit_result(Results(results), fmt, output)
