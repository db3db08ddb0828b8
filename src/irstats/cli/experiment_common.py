"""Helpers shared by the meta-evaluation experiment commands (robustness, comparability):
progress bars, aligned text tables, number lists and output in several formats."""

from __future__ import annotations

import math
import sys
from contextlib import contextmanager
from typing import Iterator

from irstats.errors import InputError


@contextmanager
def progress_bar(total: int, description: str, quiet: bool) -> Iterator:
    """A tqdm bar on stderr (off with ``quiet`` or when stderr is not a terminal); yields
    its ``update`` method, the ``progress`` callback of the experiment functions."""
    from tqdm import tqdm

    disable = quiet or not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())
    bar = tqdm(total=total, desc=description, unit="sample", file=sys.stderr, disable=disable, leave=False,
               dynamic_ncols=True)
    try:
        yield bar.update
    finally:
        bar.close()


def parse_int_list(text: str | None, option: str) -> list[int] | None:
    """``"2,3,5,10"`` or ranges ``"2-10,15,20-30:5"`` (start-stop[:step], inclusive) as ints."""
    if text is None:
        return None
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        try:
            if "-" in part[1:]:
                span, _, step = part.partition(":")
                lo, hi = span.split("-", 1)
                lo_i, hi_i, step_i = int(lo), int(hi), int(step) if step else 1
                if step_i < 1 or hi_i < lo_i:
                    raise ValueError
                out.extend(range(lo_i, hi_i + 1, step_i))
            else:
                out.append(int(part))
        except ValueError:
            raise InputError(f"{option}: expected numbers and ranges like 2,3,5,10-20:5, not {part!r}") from None
    if not out:
        raise InputError(f"{option}: no numbers given")
    return out


def fmt_number(value, digits: int = 4) -> str:
    """Fixed decimals; ``nan`` for NaN/None; integers as they are."""
    if value is None:
        return "nan"
    if isinstance(value, (int,)) and not isinstance(value, bool):
        return str(value)
    value = float(value)
    return "nan" if math.isnan(value) else f"{value:.{digits}f}"
