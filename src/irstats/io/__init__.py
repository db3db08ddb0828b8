"""Readers and writers: TREC qrels and runs, score files. trec_eval's own output is read beside
the drop-in (:func:`irstats.trec_eval.read.read_trec_eval`), above the measures whose names it
translates; ``irstats.io.read_trec_eval``, the name it was documented under, still finds it."""

from irstats.io.trec import expand_paths, read_qrels, read_run_file

__all__ = ["expand_paths", "read_qrels", "read_run_file", "read_trec_eval"]


def __getattr__(name: str):
    if name == "read_trec_eval":  # imported when asked for: the reader sits a layer above io
        from irstats.trec_eval.read import read_trec_eval

        return read_trec_eval
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
