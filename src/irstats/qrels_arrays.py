"""A qrels file read by the compiled reader (:mod:`irstats.extension`) into arrays — topics,
each line's topic, the docnos, the grades — with no frame library: what
:class:`irstats.collection.Collection` holds when nothing asks for a frame. Below the engine
(:mod:`irstats.ingest`), so the collection reads its qrels without importing it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from irstats import extension

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl


@dataclass(frozen=True)
class QrelsArrays:
    """A qrels file as the compiled reader gives it, its lines sorted by (topic, docno)
    bytewise as the careful reader sorts them: what :class:`irstats.collection.Collection`
    holds when no frame is needed."""

    topics: tuple[str, ...]  # the topics in bytewise order, in the form of io.trec.as_text
    tidx: np.ndarray  # int64 per line: the line's topic, as a position in ``topics``
    docnos: bytes  # every line's docno, joined by '\n'
    rel: np.ndarray  # int64 per line: the grade

    def frame(self) -> "pl.DataFrame":
        """``topic, docno, rel``: what :func:`irstats.io.trec.read_qrels` reads from the same file."""
        import polars as pl

        return pl.DataFrame([
            pl.Series("topic", self.topics, dtype=pl.String).gather(self.tidx),
            pl.Series("docno", [self.docnos.decode("latin-1")], dtype=pl.String).str.split("\n").explode(),
            pl.Series("rel", self.rel, dtype=pl.Int64),
        ])


def read_qrels_arrays(path) -> QrelsArrays | None:
    """One qrels file (plain or gzip, ``-`` for standard input) by the compiled reader, or None
    when the extension is missing or disabled, or the file is not one it takes as it is: then
    :func:`irstats.io.trec.read_qrels` reads it and names the file and line of any error.

    It takes files of four-field lines (blank lines and ``#`` comments skipped) whose grades
    are whole numbers, with no (topic, docno) judged twice and no NUL byte. Its grades are
    those of both of the careful reader's ``labels`` modes (a whole number is its own atol).
    """
    from irstats.io.trec import read_bytes

    if not extension.available():
        return None
    read = extension.module.read_qrels(read_bytes(path))
    if read is None:
        return None
    topics, tidx, docnos, rel = read
    return QrelsArrays(tuple(t.decode("latin-1") for t in topics), np.frombuffer(tidx, dtype=np.int64), docnos,
                       np.frombuffer(rel, dtype=np.int64))



__all__ = ["QrelsArrays", "read_qrels_arrays"]
