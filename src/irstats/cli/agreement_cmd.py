"""``irstats agreement``: how far two sets of relevance labels, and the conclusions they lead
to, agree (METHODS.md §5.7)."""

from __future__ import annotations

import click
import polars as pl

from irstats.cli.group import cli
from irstats.cli.output import OutputFile, emit_result, output_options, plot_size_option, seed_option
from irstats.result import FrameResult, Result, Results

AGREEMENT_EPILOG = """
\b
Examples:
  irstats agreement human.qrels llm.qrels                     # κ and α with 95% intervals
  irstats agreement human.qrels llm.qrels --per-topic          # κ of every topic
  irstats agreement human.qrels llm.qrels --confusion          # pairs by grade (rows: A)
  irstats agreement --scores human.tsv llm.tsv -m nDCG@10 --format tsv
  irstats agreement --scores t1.tsv t2.tsv -m AP --all-topics  # collections over different topics
  irstats agreement human.qrels llm.qrels --runs runs/ -m AP -m nDCG@10   # labels and conclusions
  irstats agreement human.qrels llm.qrels --runs runs/ -m nDCG@10 --plot gains.png --gains gains.tsv

\b
Labels, on the (topic, docno) pairs both qrels judge (negative grades left out): Cohen's κ
unweighted, linear and quadratic (as scikit-learn) and Krippendorff's α nominal, ordinal
and interval (as the krippendorff package); columns statistic value ci_low ci_high.
Conclusions, from two score sets over the same systems (--scores, or the runs evaluated
under both qrels): Kendall's τ-b, τ_AP and Pearson's r of the system means, top1_same, and
significant_pairs_agree (the share of system pairs whose paired-t significance at --alpha
and direction agree); columns measure statistic value ci_low ci_high. Intervals: percentile
bootstrap over topics (--resamples, --seed).
"""


@cli.command("agreement", epilog=AGREEMENT_EPILOG)
@click.argument("qrels", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--scores", "scores", nargs=2, type=click.Path(), default=None, metavar="A B",
              help="Two score files (or folders of trec_eval -q output) to compare the conclusions of.")
@click.option("--runs", multiple=True, help="Runs to evaluate under both QRELS (files, directories or globs).")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure(s) for the conclusions (default: every shared one; AP with --runs).")
@click.option("--all-topics", is_flag=True, help="Each score set on its own topics (needed when they differ).")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="Level of the paired t-tests.")
@click.option("--per-topic", is_flag=True, help="Labels: print κ per topic (topic pairs cohen_kappa) instead.")
@click.option("--confusion", is_flag=True, help="Labels: print the confusion matrix by grade instead.")
@click.option("-n", "--resamples", "n_resamples", default=1000, show_default=True, type=int,
              help="Bootstrap resamples of the topics for the intervals.")
@click.option("--confidence", default=0.95, show_default=True, type=float, help="Level of the intervals.")
@click.option("--qrels-duplicate", type=click.Choice(["error", "max", "last"]), default="error", show_default=True,
              help="A (topic, document) judged twice in one qrels: stop, keep the highest grade, or the last.")
@seed_option("bootstrap intervals")
@output_options
@click.option("--plot", "plot_path", type=OutputFile(figure=True), metavar="FILE",
              help="Conclusions: draw which systems gain or lose rank under B (first measure) to FILE.")
@plot_size_option
@click.option("--gains", "gains_path", type=OutputFile(), metavar="FILE",
              help="Conclusions: write every system's mean and rank under A and B (measure system mean_a "
                   "mean_b rank_a rank_b rank_gain) to FILE (TSV).")
def agreement_command(qrels, scores, runs, measures, all_topics, alpha, per_topic, confusion, n_resamples,
                      confidence, qrels_duplicate, seed, fmt, output, plot_path, plot_size, gains_path):
    """Agreement of two qrels (Cohen's κ, Krippendorff's α) and of the conclusions they lead to."""
    from irstats.agreement import conclusion_agreement, label_agreement
    from irstats.errors import InputError

    if per_topic and confusion:
        raise InputError("give --per-topic or --confusion, not both")
    boot = dict(n_resamples=n_resamples, confidence=confidence, seed=seed)
    if scores:
        if qrels:
            raise InputError("give two QRELS files or --scores A B, not both")
        from irstats.cli.common import load_scores

        a, b = (load_scores(path, None, (), measures) for path in scores)
        result = conclusion_agreement(a, b, list(measures) or None, all_topics=all_topics, alpha=alpha, **boot)
        _write_gains(result, plot_path, gains_path, plot_size)
        emit_result(result, fmt, output)
        return
    if (plot_path or gains_path) and not runs:
        raise InputError("--plot and --gains need conclusions: give --runs, or --scores A B")
    if len(qrels) != 2:
        raise InputError("give two QRELS files (or --scores A B)")
    if runs and not (per_topic or confusion):
        _labels_and_conclusions(qrels, runs, measures, all_topics, alpha, boot, fmt, output, plot_path, gains_path,
                                qrels_duplicate, plot_size)
        return
    from irstats.agreement import NoSharedPairsError

    try:
        labels = label_agreement(qrels[0], qrels[1], qrels_duplicate=qrels_duplicate, **boot)
    except NoSharedPairsError as exc:
        if runs:  # --per-topic / --confusion: label views only
            raise InputError(f"{exc.message}: there are no labels to show per topic or by grade; drop "
                             "--per-topic/--confusion to compare the conclusions (--all-topics)") from None
        raise InputError(f"{exc.message}: labels cannot be compared; for two collections over different topics "
                         "compare their conclusions (--runs RUNS -m MEASURE --all-topics)") from None
    if per_topic:
        emit_result(FrameResult(labels.per_topic, "Cohen's κ per topic (unweighted, and quadratic)"), fmt, output)
        return
    if confusion:
        if labels.confusion is None:
            from irstats.agreement import MAX_CONFUSION_GRADES

            raise InputError(f"the labels take more than {MAX_CONFUSION_GRADES} distinct values (real-valued labels); "
                             "a confusion matrix by grade needs categories: bin the labels first")
        emit_result(FrameResult(labels.confusion, "Pairs by grade (rows: A, columns: B)"), fmt, output)
        return
    emit_result(labels, fmt, output)


def _labels_and_conclusions(qrels, runs, measures, all_topics, alpha, boot, fmt, output, plot_path,
                            gains_path, qrels_duplicate: str = "error", plot_size: str = "page") -> None:
    """Both at once. Two qrels over different topics (an LLM-judged topic set beside a
    human-judged one) share no pair: the labels are left out, with a note, and only the
    conclusions are compared."""
    from irstats.agreement import NoSharedPairsError, conclusion_agreement, label_agreement
    from irstats.evaluate import evaluate
    from irstats.measures.registry import Role, measure_for

    try:
        labels = label_agreement(qrels[0], qrels[1], qrels_duplicate=qrels_duplicate, **boot)
    except NoSharedPairsError as exc:
        labels = None
        click.echo(f"irstats: note: {exc}; labels are not compared, only the conclusions"
                   + ("" if all_topics else " (add --all-topics if the qrels cover different topics)"), err=True)
    names = list(measures) or [measure_for(Role.DEFAULT)]
    a = evaluate(qrels[0], list(runs), names, qrels_duplicate=qrels_duplicate)
    b = evaluate(qrels[1], list(runs), names, qrels_duplicate=qrels_duplicate)
    conclusions = conclusion_agreement(a, b, None, all_topics=all_topics, alpha=alpha, **boot)
    _write_gains(conclusions, plot_path, gains_path, plot_size)
    shown: list[Result] = [conclusions]
    if labels is not None:  # the labels' rows as measure "labels", above the conclusions'
        shown.insert(0, FrameResult(labels.statistics.with_columns(pl.lit("labels").alias("measure")).select(
            "measure", "statistic", "value", "ci_low", "ci_high"), labels.title, tuple(labels.legend())))
    emit_result(Results(shown), fmt, output)


def _write_gains(result, plot_path, gains_path, plot_size: str = "page") -> None:
    if gains_path:
        from irstats.scores import write_frame

        write_frame(result.gains(), gains_path, "tsv")
    if plot_path:
        from irstats.plots import save, style

        with style(plot_size):
            ax = result.plot()
            save(ax, plot_path, ax.irstats_data)
