"""``irstats repro``: did the reproduction (or the replication) reproduce? The measures of
Breuer et al. (SIGIR 2020), as repro_eval computes them (:mod:`irstats.repro`)."""

from __future__ import annotations

import click

from irstats.cli.common import eval_options
from irstats.cli.group import cli
from irstats.cli.output import OutputFile, emit_result, output_options, plot_size_option

REPRO_EPILOG = """
\b
Examples:
  irstats repro --qrels qrels.txt --orig bm25.run --repro my-bm25.run
  irstats repro --qrels qrels.txt --orig bm25.run rm3.run --repro my-bm25.run my-rm3.run -m AP -m ndcg_cut_10
  irstats repro --qrels qrels.txt --orig b.run a.run --repro b2.run a2.run -m repro_eval --format tsv
  irstats repro --qrels qrels.txt --qrels-repl other.qrels --orig b.run a.run --repl b3.run a3.run
  irstats repro --qrels qrels.txt --orig b.run a.run --repro b2.run a2.run --plot-order ktu.png --plot-effects er.png

\b
--orig takes the baseline run and, optionally, the advanced run; --repro (same collection:
reproducibility) or --repl with --qrels-repl (another collection: replicability) the same
number of runs, in the same order. Measures: irstats names (AP, nDCG@10) or trec_eval names
(map, ndcg_cut_10, P.5,10); all_trec is every trec_eval measure but the counts, repro_eval
is repro_eval's 58 (default: AP, nDCG@10, P@10).

\b
Reproducibility: KTU and RBO of the rankings per topic (top --order-depth documents) and
their means (topic all), RMSE of the per-topic scores, ER and ΔRI of the advanced run over
the baseline, and the paired t-test's p of each run, original against reproduced.
Replicability: ER, ΔRI and the unpaired t-test's p (Student's, or --welch). A topic of the
qrels a run lacks scores 0 there, as in repro_eval (trec_eval -c); --shared-topics compares
on the topics the runs answer instead.
--ktu union is the paper's Eq. (1) (τ-b on the union of documents); --ktu repro_eval gives
repro_eval's numbers. --rbo repro_eval is repro_eval's RBO; --rbo extrapolated is RBO_ext
(Webber et al.), as repro_eval's first release computed it with --rbo-p 0.8.
--format tsv gives the long table: measure statistic run topic value (statistic one of
ktu rbo rmse er dri p_value; run baseline or advanced; topic a topic id or all).
"""

#: The options that take one or two runs: ``--orig BASE ADV`` is read as ``--orig BASE --orig ADV``.
RUN_LIST_OPTIONS = ("--orig", "--repro", "--repl")


def spread_run_lists(args: list[str]) -> list[str]:
    """``--orig b a`` → ``--orig b --orig a`` (likewise ``--repro``, ``--repl``): the values after
    such an option run up to the next option (a word starting with ``-``, but ``-`` itself is
    standard input)."""
    out: list[str] = []
    current = None
    taken = 0
    for arg in args:
        if arg == "--":
            current = None
        elif arg in RUN_LIST_OPTIONS:
            current, taken = arg, 0
        elif current is not None and (arg == "-" or not arg.startswith("-")):
            if taken:
                out.append(current)
            taken += 1
        else:
            current = None
        out.append(arg)
    return out


class RunListCommand(click.Command):
    """A command whose run options take one or two values each (:func:`spread_run_lists`)."""

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, spread_run_lists(list(args)))


@cli.command("repro", cls=RunListCommand, epilog=REPRO_EPILOG)
@click.option("--qrels", required=True, type=click.Path(dir_okay=False), help="Relevance judgments of the original "
              "runs (and of the reproduced ones).")
@click.option("--qrels-repl", type=click.Path(dir_okay=False),
              help="Relevance judgments of the replicated runs (another collection): replicability.")
@click.option("--orig", multiple=True, required=True, metavar="BASE [ADV]",
              help="The original baseline run and, optionally, the advanced run.")
@click.option("--repro", multiple=True, metavar="BASE' [ADV']", help="The reproduced runs, same collection.")
@click.option("--repl", multiple=True, metavar="BASE' [ADV']", help="The replicated runs (with --qrels-repl).")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure(s); repeat for several (all_trec, repro_eval: lists). Default: AP, nDCG@10, P@10.")
@click.option("--order-depth", default=1000, show_default=True, type=int,
              help="Documents of each ranking compared by KTU and RBO (RBO's depth D).")
@click.option("--rbo-p", default=0.95, show_default=True, type=float, help="Persistence p of RBO.")
@click.option("--ktu", "ktu_method", default="union", show_default=True, type=click.Choice(["union", "repro_eval"]),
              help="KTU as the paper defines it, or as repro_eval computes it.")
@click.option("--rbo", "rbo_method", default="repro_eval", show_default=True,
              type=click.Choice(["repro_eval", "extrapolated"]), help="RBO as repro_eval computes it, or RBO_ext.")
@click.option("--welch", is_flag=True, help="Replicability: Welch's unpaired t-test instead of Student's.")
@click.option("--shared-topics", is_flag=True,
              help="Compare on the topics both runs answer; by default a topic a run lacks scores 0 (as with -c, "
                   "as in repro_eval).")
@eval_options
@output_options
@click.option("--plot-order", "plot_order", type=OutputFile(figure=True), metavar="FILE",
              help="Reproducibility: draw KTU and RBO per topic to FILE (its data as CSV beside it).")
@click.option("--plot-effects", "plot_effects", type=OutputFile(figure=True), metavar="FILE",
              help="With an advanced run: draw ER against ΔRI per measure to FILE (its data as CSV beside it).")
@plot_size_option
def repro_command(qrels, qrels_repl, orig, repro, repl, measures, order_depth, rbo_p, ktu_method, rbo_method, welch,
                  shared_topics, options, fmt, output, plot_order, plot_effects, plot_size):
    """Did a reproduction reproduce? KTU, RBO, RMSE, ER, ΔRI and t-tests (Breuer et al., SIGIR 2020)."""
    from irstats.errors import InputError
    from irstats.repro import replicability, reproducibility

    if shared_topics and options.complete:
        raise InputError("give -c (a topic a run lacks scores 0, the default here) or --shared-topics, not both")
    evaluation = {**options.as_dict(), "complete": not shared_topics}
    if plot_effects and len(orig) < 2:
        raise InputError("--plot-effects needs an advanced run: give two runs to --orig and to --repro/--repl")
    if qrels_repl is None:
        if repl:
            raise InputError("--repl runs are judged by another collection: give --qrels-repl too (or --repro for "
                             "runs on the same collection)")
        if not repro:
            raise InputError("give the reproduced runs (--repro), or --qrels-repl and --repl for a replication")
        result = reproducibility(qrels, list(orig), list(repro), list(measures) or None, order_depth=order_depth,
                                 rbo_p=rbo_p, ktu_method=ktu_method, rbo_method=rbo_method, **evaluation)
    else:
        if repro:
            raise InputError("--qrels-repl makes a replication: give its runs as --repl, not --repro")
        if not repl:
            raise InputError("give the replicated runs (--repl)")
        if plot_order:
            raise InputError("--plot-order compares rankings on one collection: it needs --repro, not --repl")
        result = replicability(qrels, list(orig), qrels_repl, list(repl), list(measures) or None,
                               equal_var=not welch, **evaluation)
    if plot_order or plot_effects:
        from irstats.plots import save, style

        for path, draw in ((plot_order, result.plot_order), (plot_effects, result.plot_effects)):
            if path:
                with style(plot_size):
                    ax = draw()
                    save(ax, path, ax.irstats_data)
    emit_result(result, fmt, output)
