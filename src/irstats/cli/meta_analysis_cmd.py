"""``irstats meta-analysis``: one improvement pooled over several test collections (issue 38)."""

from __future__ import annotations

import click

from irstats.cli.output import OutputFile, emit_result, output_options, plot_size_option
from irstats.cli.group import cli
from irstats.errors import InputError

META_EPILOG = """
\b
Examples:
  irstats meta-analysis --collection r04=robust04/ --collection r05=robust05/ -m AP --system bm25 --baseline ql
  irstats meta-analysis --collection r04=r04.tsv --collection r05=r05.tsv --collection web=web.tsv -m AP \\
      --system r04=pircRB04td2 --system r05=indri05RdmmT --system web=QUTparaBline \\
      --baseline r04=JuruDes --baseline r05=ASUBE --baseline web=utw2012c1 --per-collection --format tsv
  irstats meta-analysis --collection a=a.tsv --collection b=b.tsv -m nDCG@10 --system x --baseline y \\
      --effect dz --hartung-knapp --plot forest.pdf --plot-size column
  irstats meta-analysis --collection dl19=qrels19.txt:runs19/ --collection dl20=qrels20.txt:runs20/ \\
      -m nDCG@10 --system bm25_rm3 --baseline bm25

\b
--collection NAME=SCORES, once per collection: SCORES is a per-topic score file (irstats eval
-q --format tsv) or trec_eval -q output (a file or a folder of them); or NAME=QRELS:RUNS, the
runs (files, folders or globs, comma-separated) evaluated against QRELS with trec_eval's
defaults for the -m measures (AP if none). --system and --baseline
take a run name for every collection, or NAME=RUN for one collection (NAME one of the
--collection names; repeat for each). Per collection the effect of the system over the
baseline on the topics both have: --effect md, the mean difference (variance s_d²/n), or dz,
d_z = mean/s_d (variance 1/n + d_z²/(2n)). Pooled by fixed effect (inverse variance) and
random effects with τ² by DerSimonian–Laird (dl) or Paule–Mandel (pm); --hartung-knapp adds
dl_hk and pm_hk with the Hartung–Knapp interval. Columns: measure system baseline method
effect ci_low ci_high tau2 i2 q q_p collection; --per-collection adds each collection's row
(method "collection").
"""


def _named(values: tuple[str, ...], option: str, collections: tuple[str, ...]) -> str | dict[str, str]:
    """``--system``/``--baseline``: one run for all (a value without a collection's name before
    ``=``) or NAME=RUN per collection; the two not mixed, every collection named once."""
    if not values:
        raise InputError(f"give {option} RUN (or {option} NAME=RUN for each collection)")
    per, plain = {}, []
    for value in values:
        name, sep, run = value.partition("=")
        if sep and name in collections:
            if name in per:
                raise InputError(f"{option} names collection {name!r} twice")
            per[name] = run
        else:
            plain.append(value)
    if plain and (per or len(plain) > 1):
        raise InputError(f"{option}: give one run for every collection or NAME=RUN for each of "
                         f"{', '.join(collections)}; got {', '.join(values)}")
    if plain:
        return plain[0]
    missing = [c for c in collections if c not in per]
    if missing:
        raise InputError(f"{option} names no run for collection(s) {', '.join(missing)}: add {option} "
                         f"{missing[0]}=RUN")
    return per


def _collection_scores(value: str, measures: tuple[str, ...]):
    """A collection's scores: a score file or folder (SCORES), else QRELS:RUNS — the runs (files,
    folders or globs, comma-separated) evaluated against the qrels for ``measures`` (AP if none)."""
    from pathlib import Path

    from irstats.cli.common import load_scores

    qrels, sep, runs = value.partition(":")
    if Path(value).exists() or not sep:
        return load_scores(value, None, (), measures)
    if not (qrels and runs):
        raise InputError(f"--collection NAME=QRELS:RUNS needs both, e.g. dl19=qrels.txt:runs/; got {value!r}")
    return load_scores(None, qrels, [r for r in runs.split(",") if r], measures)


@cli.command("meta-analysis", epilog=META_EPILOG)
@click.option("--collection", "collections", multiple=True, metavar="NAME=SCORES|NAME=QRELS:RUNS", required=True,
              help="A collection's per-topic scores (or its qrels and runs, evaluated), named; repeat for each "
                   "collection.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure(s) to pool (default: every measure all collections have).")
@click.option("--system", "systems", multiple=True, metavar="RUN|NAME=RUN",
              help="The system: one run name for all collections, or NAME=RUN per collection.")
@click.option("--baseline", "baselines", multiple=True, metavar="RUN|NAME=RUN",
              help="The baseline: one run name for all collections, or NAME=RUN per collection.")
@click.option("--effect", default="md", show_default=True, type=click.Choice(["md", "dz"]),
              help="The effect per collection: mean difference, or standardized d_z.")
@click.option("--hartung-knapp", is_flag=True, help="Add the random-effects rows with the Hartung–Knapp interval.")
@click.option("--per-collection", is_flag=True, help="Add each collection's own effect and interval.")
@click.option("--confidence", default=0.95, show_default=True, type=float, help="Level of the intervals.")
@output_options
@click.option("--plot", "plot_path", type=OutputFile(figure=True), metavar="FILE",
              help="Draw the forest plot of the first measure to FILE.")
@plot_size_option
def meta_analysis_command(collections, measures, systems, baselines, effect, hartung_knapp, per_collection,
                          confidence, fmt, output, plot_path, plot_size):
    """Pool a system's improvement over a baseline across test collections (fixed and random effects)."""
    from irstats.stats.meta_analysis import meta_analysis

    scores = {}
    for value in collections:
        name, sep, path = value.partition("=")
        if not (sep and name and path):
            raise InputError(f"--collection takes NAME=SCORES or NAME=QRELS:RUNS (e.g. robust04=robust04.tsv); "
                             f"got {value!r}")
        if name in scores:
            raise InputError(f"--collection {name!r} is given twice; name each collection once")
        scores[name] = _collection_scores(path, measures)
    names = tuple(scores)
    result = meta_analysis(scores, _named(systems, "--system", names), _named(baselines, "--baseline", names),
                           list(measures) or None, effect=effect, confidence=confidence, hartung_knapp=hartung_knapp,
                           per_collection=per_collection)
    if plot_path:
        from irstats.plots import save, style

        with style(plot_size):
            ax = result.plot()
            save(ax, plot_path, ax.irstats_data)
    emit_result(result, fmt, output)
