"""``irstats preferences``: trec_eval's preference measures of runs against preference judgments."""

from __future__ import annotations

import click

from irstats.cli.group import cli
from irstats.cli.output import emit_result, output_options

PREFERENCES_EPILOG = """
\b
Examples:
  irstats preferences prefs.txt runs/                          # all 14 measures, one row per run
  irstats preferences prefs.txt runs/ -m PrefsSimp -m PrefsAvgJGRnonrel --format tsv
  irstats preferences --qrels qrels.txt run.txt -m prefs_pair -q -o per_topic.tsv --format tsv

\b
PREFS has five fields per line, "topic jg jsg docno level": within a judgment sub-group (jsg)
a document is preferred to every one with a lower level; the sub-groups of a judgment group
(jg, e.g. one user) combine transitively; level 0 means nonrelevant. With --qrels, PREFS is a
qrels file ("topic iter docno grade") read as trec_eval's -R qrels_prefs does. Measures (irstats
or trec_eval names): NumPrefsPoss, NumPrefsFul, NumPrefsFulRet, PrefsSimp, PrefsPair,
PrefsAvgJG, PrefsAvgJGRnonrel and the last four with Ret or Imp; the counts are summed over
topics, the rest averaged. The values are trec_eval's (irstats trec_eval -R prefs). The same
measures beside any other: irstats eval QRELS RUNS --prefs FILE -m PrefsSimp (or --qrels-prefs).
"""


@cli.command("preferences", epilog=PREFERENCES_EPILOG)
@click.argument("prefs", metavar="PREFS")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure; repeat for several (default: all 14).")
@click.option("--qrels", "as_qrels", is_flag=True, help="PREFS is a qrels file, read as preferences.")
@click.option("-M", "--depth", type=click.IntRange(min=1), default=None, help="Only the first N documents per topic.")
@click.option("-c", "--complete", is_flag=True, help="Every judged topic; a topic without results scores as empty.")
@click.option("-q", "--per-topic", is_flag=True, help="One value per system, topic and measure.")
@output_options
def preferences_command(prefs, runs, measures, as_qrels, depth, complete, per_topic, fmt, output):
    """Preference measures of RUN files against preference judgments PREFS (trec_eval's prefs_*)."""
    from irstats.preferences import evaluate_preferences
    from irstats.evaluation import Evaluation

    scores = evaluate_preferences(prefs, list(runs), list(measures) or None, from_qrels=as_qrels, depth=depth,
                                  complete=complete)
    emit_result(Evaluation(scores).view(per_topic), fmt, output)
