"""``irstats eval``: qrels and runs to scores."""

from __future__ import annotations

import sys
from typing import Iterable

import click

from irstats.cli.common import cluster_options, eval_options
from irstats.cli.group import cli
from irstats.cli.output import emit_result, given_table_options, output_options
from irstats.evaluate import DEFAULT_MEASURES, evaluate
from irstats.trec_eval.printer import score_chunks as trec_eval_chunks
from irstats.measures.registry import expand_measures
from irstats.render import TableOptions
from irstats.result import DISPLAY_FORMATS, FORMATS
from irstats.scores import BATCH_FORMATS, CHUNKED_FORMATS, score_chunks, scores_to_frame, write_frame

EVAL_EPILOG = """
\b
Examples:
  irstats eval qrels.txt run1.txt run2.txt -m AP -m nDCG@10
  irstats eval qrels.txt 'runs/*.gz' -m map -m P.5,10 -l 2          # trec_eval names work too
  irstats eval qrels.txt runs/ -m AP --per-topic --format tsv -o scores.tsv
  irstats eval qrels.txt run.txt -m all_trec -q --format trec_eval  # drop-in trec_eval output
  irstats eval qrels.txt runs/ -m nDCG@10 -q --format jsonl -o scores.jsonl  # run_id topic_id measure value
  irstats eval qrels.txt 'runs/*.gz' --workers 4                      # batches of runs on 4 local processes
  irstats eval qrels.txt 'runs/*.gz' --scheduler tcp://HOST:8786  # ... on a Dask cluster (irstats[dask])

\b
Measures (canonical names; trec_eval's in brackets):
  P@k [P_k]   R@k [recall_k]   RR, RR@k [recip_rank]   AP, AP@k [map, map_cut_k]
  AP_min@k    SP   Rprec   Bpref [bpref]   DCG, DCG@k   nDCG, nDCG@k [ndcg, ndcg_cut_k]
  nDCG(gain=exp)@k   RBP(p=0.8) graded, RBP(p=0.8,rel=1) binary [rbp.p=0.8]
  RBPresid(p=0.8) [rbp_resid]   ERR@20   Q(beta=1), Q(beta=1,norm=min)@k   Judged@k
  Success@k [success_k]   NumRet, NumRel, NumRelRet [num_ret, num_rel, num_rel_ret]
  P(rel=2)@10 sets the relevance level of one measure.
  With --subtopic-qrels FILE ("topic subtopic docno grade"), the diversity measures as ndeval
  computes them: alpha_nDCG@k, alpha_DCG@k, ERR_IA@k, nERR_IA@k, NRBP, nNRBP, P_IA@k,
  StRecall@k (alpha_nDCG(alpha=0.3,rel=2)@20, NRBP(beta=0.8)). With --prefs FILE ("topic jg jsg
  docno level") or --qrels-prefs (QRELS read as preferences), trec_eval's preference measures:
  PrefsSimp [prefs_simp], PrefsPair, PrefsAvgJG, PrefsAvgJGRnonrel, their Ret and Imp forms,
  NumPrefsPoss, NumPrefsFul, NumPrefsFulRet.
"""


@cli.command("eval", epilog=EVAL_EPILOG)
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help=f"Measure to compute; repeat for several. Default: {', '.join(DEFAULT_MEASURES)}.")
@eval_options
@click.option("-q", "--per-topic", is_flag=True, help="Print one value per system, topic and measure (trec_eval -q).")
@output_options(formats=(*FORMATS, "jsonl", "parquet", "trec_eval"))
@click.option("--subtopic-qrels", type=click.Path(), metavar="FILE",
              help="Subtopic qrels (topic subtopic docno grade) for the diversity measures (alpha_nDCG@20 ...).")
@click.option("--prefs", type=click.Path(), metavar="FILE",
              help="Preference judgments (topic jg jsg docno level) for trec_eval's preference measures.")
@click.option("--qrels-prefs", is_flag=True, help="QRELS read as preferences too (trec_eval -R qrels_prefs).")
@cluster_options
def eval_command(qrels, runs, measures, options, per_topic, fmt, output, client, subtopic_qrels, prefs,
                 qrels_prefs):
    """Evaluate RUN files (files, directories or globs; plain or gzip) against QRELS.

    Prints each system's mean (sum for the counts) per measure; with --per-topic, one
    line per system, topic and measure. The system name is the run's tag column.
    """
    names = expand_measures(measures) if measures else list(DEFAULT_MEASURES)
    beyond = _beyond_qrels(qrels, subtopic_qrels, prefs, qrels_prefs)
    # on a cluster, the workers lay out the per-topic output of their batches too: here, it is written
    print_as = fmt if client is not None and per_topic and fmt in BATCH_FORMATS else None
    scores = evaluate(qrels, list(runs), names, **beyond, client=client, print_as=print_as, **options.as_dict())
    # printed a piece at a time: the per-topic lines of 10^5 topics are never held as one text
    if scores.printed is not None:
        _emit_chunks(scores.printed.chunks(), output)
    elif fmt == "trec_eval":
        _emit_chunks(trec_eval_chunks(scores, per_topic), output)
    elif fmt == "latex" or (fmt in DISPLAY_FORMATS and TableOptions(**given_table_options()) != TableOptions()):
        emit_result(scores.view(per_topic), fmt, output)  # a paper's float, or some systems or columns
    elif fmt in DISPLAY_FORMATS:
        _emit_chunks(scores.view(per_topic).format_chunks(fmt), output)
    elif fmt in CHUNKED_FORMATS:
        _emit_chunks(score_chunks(scores, fmt, per_topic=per_topic), output)
    else:  # Parquet: its row groups are laid out from the whole frame
        write_frame(scores_to_frame(scores, per_topic=per_topic), output, fmt)


def _emit_chunks(chunks: Iterable[str], output: str | None) -> None:
    """Write text made a piece at a time to ``output`` (atomically: nothing is left of a failed
    write, see :mod:`irstats.io.output`), or to stdout as it comes."""
    if output:
        from irstats.io.output import atomic_open

        with atomic_open(output, "w") as fh:
            for chunk in chunks:
                fh.write(chunk)
    else:
        for chunk in chunks:
            sys.stdout.write(chunk)


def _beyond_qrels(qrels, subtopic_qrels, prefs, qrels_prefs) -> dict:
    """evaluate()'s judgments beyond the qrels, as --subtopic-qrels, --prefs and --qrels-prefs give them."""
    from irstats.errors import InputError

    if prefs and qrels_prefs:
        raise InputError("give --prefs FILE or --qrels-prefs, not both")
    beyond = {}
    if subtopic_qrels:
        beyond["subtopic_qrels"] = subtopic_qrels
    if prefs:
        beyond["preferences"] = prefs
    if qrels_prefs:
        from irstats.preference_judgments import PreferenceJudgments

        beyond["preferences"] = PreferenceJudgments(qrels, from_qrels=True)
    return beyond
