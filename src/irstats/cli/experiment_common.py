"""Helpers shared by the meta-evaluation experiment commands (robustness, comparability):
number lists and number formatting."""

from __future__ import annotations


from irstats.errors import InputError


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
