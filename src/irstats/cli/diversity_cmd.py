"""``irstats diversity``: diversity measures with subtopic qrels, as TREC's ndeval computes them."""

from __future__ import annotations

import click

from irstats.cli.group import cli
from irstats.cli.output import emit_result, output_options

DIVERSITY_EPILOG = """
\b
Examples:
  irstats diversity subtopics.qrels runs/                           # α-nDCG@20, ERR-IA@20, NRBP, P-IA@20, StRecall@20
  irstats diversity subtopics.qrels runs/ -m alpha_nDCG@10 -m nERR_IA@10 --alpha 0.5 --format tsv
  irstats diversity subtopics.qrels run.txt -m NRBP --alpha 0.5 --beta 0.8 -q -o per_topic.tsv --format tsv

\b
QRELS has four fields per line, "topic subtopic docno grade" (TREC diversity qrels); a
document is relevant to a subtopic when its grade there is >= --rel. Measures:
alpha_DCG@k, alpha_nDCG@k, ERR_IA@k, nERR_IA@k, NRBP, nNRBP, P_IA@k, StRecall@k, as ndeval
(and pyndeval) compute them; runs are ranked as trec_eval ranks them, with no depth limit.
The same measures beside any other: irstats eval QRELS RUNS --subtopic-qrels FILE -m alpha_nDCG@20.
"""


@cli.command("diversity", epilog=DIVERSITY_EPILOG)
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help="Measure; repeat for several (default: alpha_nDCG@20 ERR_IA@20 NRBP P_IA@20 StRecall@20).")
@click.option("--rel", default=1, show_default=True, type=int, help="Grade from which a document is relevant.")
@click.option("--alpha", default=0.5, show_default=True, type=float, help="Redundancy intolerance α.")
@click.option("--beta", default=0.5, show_default=True, type=float, help="Persistence β of NRBP.")
@click.option("-q", "--per-topic", is_flag=True, help="One value per system, topic and measure.")
@output_options
def diversity_command(qrels, runs, measures, rel, alpha, beta, per_topic, fmt, output):
    """Diversity measures of RUN files against subtopic QRELS: α-nDCG, ERR-IA, NRBP, P-IA, StRecall."""
    from irstats.diversity import evaluate_diversity
    from irstats.evaluation import Evaluation

    kwargs = {"measures": list(measures)} if measures else {}
    scores = evaluate_diversity(qrels, list(runs), rel=rel, alpha=alpha, beta=beta, **kwargs)
    emit_result(Evaluation(scores).view(per_topic), fmt, output)
