"""A measure family's parameter (:class:`Param`): its type, default, range and how its value
is written — below the registry and the kernels' helpers, which both use it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Param:
    """One parameter of a family: its type, default and whether the name always shows it."""

    name: str
    kind: type
    default: Any = None
    always_shown: bool = False
    choices: tuple[Any, ...] = ()
    pattern: str | None = None  # a str value must match this (full match) when it is not one of the choices
    help: str = ""
    low: float | None = None  # the smallest allowed value (None: no bound)
    high: float | None = None  # the largest allowed value
    open_low: bool = False  # the bounds themselves excluded
    open_high: bool = False

    def check(self, value: Any) -> str | None:
        """Why ``value`` is not allowed, or None when it is (NaN never is)."""
        if self.pattern is not None and self.kind is str:
            if value in self.choices or re.fullmatch(self.pattern, value):
                return None
            return f"must be one of {', '.join(map(str, self.choices))}, or {self.help}"
        if self.choices and value not in self.choices:
            return f"must be one of {', '.join(map(str, self.choices))}"
        if isinstance(value, (int, float)):  # a number (an int or float parameter's); a str parameter holds text
            too_low = self.low is not None and (value < self.low or (self.open_low and value == self.low))
            too_high = self.high is not None and (value > self.high or (self.open_high and value == self.high))
            if value != value or value in (float("inf"), float("-inf")) or too_low or too_high:
                return f"must be in {self.range_text()}"
        return None

    def range_text(self) -> str:
        low = "-inf" if self.low is None else _format_value(self.low)
        high = "inf" if self.high is None else _format_value(self.high)
        return f"{'(' if self.open_low or self.low is None else '['}{low}, {high}{')' if self.open_high or self.high is None else ']'}"


def _format_value(value: Any) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


__all__ = ["Param"]
