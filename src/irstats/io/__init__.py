"""Readers and writers: TREC qrels and runs, trec_eval output, score files."""

from irstats.io.trec import expand_paths, read_qrels, read_run_file
from irstats.io.trec_eval_output import read_trec_eval

__all__ = ["expand_paths", "read_qrels", "read_run_file", "read_trec_eval"]
