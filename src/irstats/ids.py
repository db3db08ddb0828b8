"""Ids in trec_eval's order: topic ids, docnos and system names compare as bytes (C's
``strcmp``), and every list of them that irstats sorts is sorted that way (METHODS.md §5).

Ids read from files are held as the Latin-1 text of their bytes (:func:`irstats.io.trec.as_text`),
ids given as Python text as themselves; either way the UTF-8 encoding of the text orders them
as their bytes do, so one key serves both.

>>> bytewise_sorted(["b", "a10", "a9", "é"])
('a10', 'a9', 'b', 'é')
"""

from __future__ import annotations

from typing import Iterable


def bytewise_key(text: str) -> bytes:
    """The sort key of an id: its UTF-8 bytes."""
    return text.encode("utf-8")


def bytewise_sorted(ids: Iterable) -> tuple[str, ...]:
    """Ids (as text) sorted bytewise."""
    return tuple(sorted((str(i) for i in ids), key=bytewise_key))


def bytewise_unique(ids: Iterable) -> list[str]:
    """Distinct ids (as text), sorted bytewise."""
    return list(bytewise_sorted(dict.fromkeys(str(i) for i in ids)))


__all__ = ["bytewise_key", "bytewise_sorted", "bytewise_unique"]
