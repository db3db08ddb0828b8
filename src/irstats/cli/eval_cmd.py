"""``irstats eval``: qrels and runs to scores."""

from __future__ import annotations

import sys

import click

from irstats.cli.main import cli
from irstats.cli.output import (
    OutputFile,
    emit_text,
    format_means_table,
    format_per_topic_table,
)
from irstats.errors import InputError
from irstats.evaluate import DEFAULT_MEASURES, evaluate
from irstats.io.trec_eval_output import format_trec_eval
from irstats.measures.registry import expand_measures
from irstats.scores import scores_to_frame, write_frame

EVAL_EPILOG = """
\b
Examples:
  irstats eval qrels.txt run1.txt run2.txt -m AP -m nDCG@10
  irstats eval qrels.txt 'runs/*.gz' -m map -m P.5,10 -l 2          # trec_eval names work too
  irstats eval qrels.txt runs/ -m AP --per-topic --format tsv -o scores.tsv
  irstats eval qrels.txt run.txt -m all_trec -q --format trec_eval  # drop-in trec_eval output

\b
Measures (canonical names; trec_eval's in brackets):
  P@k [P_k]   R@k [recall_k]   RR, RR@k [recip_rank]   AP, AP@k [map, map_cut_k]
  AP_min@k    SP   Rprec   Bpref [bpref]   DCG, DCG@k   nDCG, nDCG@k [ndcg, ndcg_cut_k]
  nDCG(gain=exp)@k   RBP(p=0.8) graded, RBP(p=0.8,rel=1) binary [rbp.p=0.8]
  RBPresid(p=0.8) [rbp_resid]   ERR@20   Q(beta=1), Q(beta=1,norm=min)@k   Judged@k
  Success@k [success_k]   NumRet, NumRel, NumRelRet [num_ret, num_rel, num_rel_ret]
  P(rel=2)@10 sets the relevance level of one measure.
"""


def parse_depth(value: str) -> int | None:
    """``-M``: a whole number (0 keeps no document, as in trec_eval) or 'none' for no limit."""
    if value.lower() in ("none", "all", "unlimited"):
        return None
    try:
        return int(value)
    except ValueError:
        raise InputError(f"--depth takes a whole number or 'none', not {value!r}") from None


@cli.command("eval", epilog=EVAL_EPILOG)
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
              help=f"Measure to compute; repeat for several. Default: {', '.join(DEFAULT_MEASURES)}.")
@click.option("-l", "--rel-level", default=1, show_default=True, type=int,
              help="Relevance level: a document is relevant iff its grade >= this (trec_eval -l).")
@click.option("-c", "--complete", is_flag=True,
              help="Score qrels topics missing from a run as empty and average over all qrels topics (trec_eval -c).")
@click.option("-M", "--depth", default="1000", show_default=True, metavar="N|none",
              help="Evaluate the first N documents per topic after ordering (trec_eval -M; 0 = none); 'none' = all.")
@click.option("-J", "--judged-only", is_flag=True,
              help="Condensed lists: drop unjudged documents before measuring (trec_eval -J).")
@click.option("--order", type=click.Choice(["score", "rank", "file"]), default="score", show_default=True,
              help="Ranking within a topic: score desc then docno desc (trec_eval), the rank column, or file order.")
@click.option("--float32", "float32", is_flag=True,
              help="Read scores as 32-bit floats, as trec_eval <= 9 and pytrec_eval do (ties change).")
@click.option("--on-duplicate", type=click.Choice(["error", "first"]), default="error", show_default=True,
              help="A document twice in one topic of a run: stop, or keep its first occurrence with a warning.")
@click.option("--qrels-duplicate", type=click.Choice(["error", "max", "last"]), default="error",
              show_default=True, help="A (topic, document) judged twice: stop, keep the highest grade, or the last.")
@click.option("--drop-r0", is_flag=True, help="Leave out topics with no relevant document.")
@click.option("--trec-eval-compat", is_flag=True,
              help="Reproduce trec_eval's quirks (rbp_resid is 0 when no retrieved document is unjudged).")
@click.option("-q", "--per-topic", is_flag=True, help="Print one value per system, topic and measure (trec_eval -q).")
@click.option("--format", "fmt", type=click.Choice(["table", "tsv", "csv", "json", "parquet", "trec_eval"]),
              default="table", show_default=True, help="Output format.")
@click.option("-o", "--output", type=OutputFile(), help="Write to FILE, not stdout.")
def eval_command(qrels, runs, measures, rel_level, complete, depth, judged_only, order, float32, on_duplicate,
                 qrels_duplicate, drop_r0, trec_eval_compat, per_topic, fmt, output):
    """Evaluate RUN files (files, directories or globs; plain or gzip) against QRELS.

    Prints each system's mean (sum for the counts) per measure; with --per-topic, one
    line per system, topic and measure. The system name is the run's tag column.
    """
    names = expand_measures(measures) if measures else list(DEFAULT_MEASURES)
    scores = evaluate(
        qrels, list(runs), names, rel_level=rel_level, complete=complete, depth=parse_depth(depth),
        judged_only=judged_only, order=order, score_dtype="float32" if float32 else "float64",
        on_duplicate=on_duplicate, qrels_duplicate=qrels_duplicate, drop_r0=drop_r0,
        trec_eval_compat=trec_eval_compat,
    )
    if fmt == "trec_eval":
        emit_text(format_trec_eval(scores, per_topic=per_topic), output)
    elif fmt == "table":
        emit_text(format_per_topic_table(scores) if per_topic else format_means_table(scores), output)
    else:
        frame = scores_to_frame(scores, per_topic=per_topic)
        text = write_frame(frame, output, fmt)
        if text is not None:
            sys.stdout.write(text)
