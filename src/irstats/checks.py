"""Checks of the arguments of irstats' public functions.

Each check takes a value and the name of the parameter it was given as, and returns the
value in the form the function computes with, or raises
:class:`~irstats.errors.ArgumentTypeError` (a wrong kind of value) or
:class:`~irstats.errors.ArgumentError` (a value out of range) naming the parameter and what
it accepts. Functions check at their entry, so that a misuse never surfaces as a raw
numpy, polars or Python exception from deep inside (tests/test_faults_api.py).
"""

from __future__ import annotations

import math
import numbers as _numbers
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import numpy as np

from irstats.errors import ArgumentError, ArgumentTypeError


def shown(value: Any, limit: int = 60) -> str:
    """A short one-line repr of a value for a message."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def kind_of(value: Any) -> str:
    """How a message names what was given: ``the text 'a'``, ``None``, ``a dict``."""
    if value is None:
        return "None"
    if isinstance(value, (str, bytes)):
        return f"the text {shown(value)}"
    if isinstance(value, np.ndarray):
        return f"a numpy array of shape {value.shape} ({value.dtype})"
    return f"{shown(value)} ({type(value).__name__})"


def is_real(value: Any) -> bool:
    """Whether ``value`` is one real number (int, float, numpy number; not bool, not text)."""
    return isinstance(value, _numbers.Real) and not isinstance(value, (bool, np.bool_))


#: numpy's type codes of the arrays that are numbers as they are: bool, signed and unsigned
#: integers, floats (not complex, nor timedelta64, which np.issubdtype counts an integer).
_NUMBER_CODES = "?" + np.typecodes["AllInteger"] + np.typecodes["Float"]


def numbers(value: Any, argument: str) -> np.ndarray:
    """``value`` (a list, tuple, numpy array, polars or pandas Series …) as a float64 array,
    if every element is a real number; NaN (or None) marks a missing score.

    Text, complex numbers, dates, dicts and ragged nested lists are refused, naming the
    first element that is not a number and where it is.
    """
    if value is None or isinstance(value, (str, bytes, Mapping, set, frozenset)):
        raise ArgumentTypeError(f"{argument} must be numbers (a list, an array or a Series of them); "
                                f"got {kind_of(value)}", argument=argument)
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ArgumentError(f"{argument} must be a rectangular array of numbers ({reason})",
                            argument=argument) from None
    if array.dtype.char in _NUMBER_CODES:
        return np.asarray(array, dtype=np.float64)
    if array.dtype == object:  # a list of mixed objects, a pandas object column: each must be a number or missing
        for index, item in enumerate(array.flat):
            if not (_missing(item) or isinstance(item, _numbers.Real)):
                raise _not_a_number(argument, item, array, index)
        flat = np.fromiter((math.nan if _missing(x) else float(x) for x in array.flat), dtype=np.float64,
                           count=array.size)
        return flat.reshape(array.shape)
    first = array.flat[0] if array.size else None
    if first is None:  # an empty array of text or dates: no number in it, but none wrong either
        return np.zeros(array.shape, dtype=np.float64)
    raise _not_a_number(argument, first.item() if hasattr(first, "item") else first, array, 0)


def _missing(item: Any) -> bool:
    """None or pandas' NA: a missing value in a list or an object column."""
    return item is None or type(item).__name__ == "NAType"


def _not_a_number(argument: str, item: Any, array: np.ndarray, flat_index: int) -> ArgumentTypeError:
    where = ""
    if array.ndim == 1:
        where = f" at position {flat_index}"
    elif array.ndim > 1:
        where = f" at position {tuple(int(i) for i in np.unravel_index(flat_index, array.shape))}"
    return ArgumentTypeError(f"{argument} must hold numbers (NaN for a missing score); found "
                             f"{kind_of(item)}{where}", argument=argument)


def real(value: Any, argument: str, *, low: float | None = None, high: float | None = None,
         open_low: bool = False, open_high: bool = False, finite: bool = True) -> float:
    """``value`` as a float, if it is one real number within the bounds (closed unless
    ``open_low``/``open_high``; NaN never passes)."""
    ok = is_real(value)
    number = float(value) if ok else math.nan
    ok = ok and not math.isnan(number) and (not finite or math.isfinite(number))
    if ok and low is not None:
        ok = number > low if open_low else number >= low
    if ok and high is not None:
        ok = number < high if open_high else number <= high
    if ok:
        return number
    if low is not None and high is not None:
        bounds = (f" strictly between {low:g} and {high:g}" if open_low and open_high
                  else f" in {'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}")
    elif low is not None:
        bounds = f" {'above' if open_low else 'of at least'} {low:g}"
    elif high is not None:
        bounds = f" {'below' if open_high else 'of at most'} {high:g}"
    else:
        bounds = " (finite)" if finite else ""
    error = ArgumentTypeError if not is_real(value) else ArgumentError
    return _raise(error, f"{argument} must be a number{bounds}; got {kind_of(value)}", argument)


def share(value: Any, argument: str) -> float:
    """A level such as ``alpha`` or ``confidence``: a number strictly between 0 and 1."""
    return real(value, argument, low=0.0, high=1.0, open_low=True, open_high=True)


def whole(value: Any, argument: str, minimum: int | None = None, maximum: int | None = None, *,
          note: str = "", label: str | None = None) -> int:
    """``value`` as an int, if it is a whole number (int or numpy integer; not bool, not a
    float) within the bounds. ``label``: how the message names it (default ``argument``);
    ``note``: said after the bounds (e.g. " (or None for unlimited)")."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if ok and (minimum is None or value >= minimum) and (maximum is None or value <= maximum):
        return int(value)
    bounds = (f" from {minimum} to {maximum}" if minimum is not None and maximum is not None
              else f" of at least {minimum}" if minimum is not None
              else f" of at most {maximum}" if maximum is not None else "")
    return _raise(ArgumentError if ok else ArgumentTypeError,
                  f"{label or argument} must be a whole number{bounds}{note}; got {kind_of(value)}", argument)


#: The most numbers a resampling procedure may draw (resamples × values per resample): about
#: ten minutes of work here. Past it the request is refused, not run for hours (or failing
#: deep inside numpy on an array too large to make).
MAX_RESAMPLED_VALUES = 10**10


def resample_count(value: Any, argument: str = "n_resamples", values_per_resample: int = 1, *,
                   feasible: bool = True) -> int:
    """A number of resamples, splits or partitions: a whole number >= 1 whose work
    (× ``values_per_resample``) stays within :data:`MAX_RESAMPLED_VALUES` (unless ``feasible``
    is False: an exact test that enumerates instead only needs it well formed). The one rule
    for every resampling experiment."""
    n = whole(value, argument, minimum=1)
    work = n * max(1, int(values_per_resample))
    if feasible and work > MAX_RESAMPLED_VALUES:
        raise ArgumentError(f"{argument}={n:,} would draw {work:.1e} random values (at most "
                            f"{MAX_RESAMPLED_VALUES:.0e}); ask for fewer", argument=argument)
    return n


def optional_whole(value: Any, argument: str, minimum: int | None = None) -> int | None:
    """:func:`whole`, or None."""
    return None if value is None else whole(value, argument, minimum)


def one_of(value: Any, argument: str, allowed: Iterable[str]) -> str:
    """``value`` if it is one of the names ``allowed``."""
    allowed = tuple(allowed)
    if isinstance(value, str) and value in allowed:
        return value
    error = ArgumentError if isinstance(value, str) else ArgumentTypeError
    return _raise(error, f"{argument} must be one of {', '.join(allowed)}; got {kind_of(value)}", argument)


def names(value: Any, argument: str, *, what: str = "names", text: bool = False) -> tuple:
    """A name or an iterable of names (e.g. measures, methods, forms) as a tuple. One string
    is one name, never its letters. Every item must be hashable (a name, not a list); with
    ``text``, every item must be a string."""
    if isinstance(value, str):
        return (value,)
    if value is None or isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        return _raise(ArgumentTypeError, f"{argument} must be a name or a list of {what}; got {kind_of(value)}",
                      argument)
    items = tuple(value)
    if all(type(item) is str for item in items):  # the common case, without an abc check per item
        return items
    for item in items:
        if (text and not isinstance(item, str)) or not isinstance(item, Hashable):
            return _raise(ArgumentTypeError, f"{argument} must be a name or a list of {what}; it holds "
                          f"{kind_of(item)}", argument)
    return items


def optional_name(value: Any, argument: str, what: str = "a name") -> str | None:
    """``value`` if it is a string (one name) or None."""
    if value is None or isinstance(value, str):
        return value
    return _raise(ArgumentTypeError, f"{argument} must be {what} or None; got {kind_of(value)}", argument)


def _raise(error: type, message: str, argument: str):
    raise error(message, argument=argument)


def score_matrix(value: Any, argument: str = "matrix"):
    """``value`` if it is a :class:`~irstats.scores.ScoreMatrix` (one measure's systems × topics).

    Recognised by its class name and fields: this module sits below :mod:`irstats.scores`
    (which checks its own arguments here) and imports none of irstats' data types."""
    if type(value).__name__ == "ScoreMatrix" and all(hasattr(value, a) for a in ("values", "systems", "topics")):
        return value
    hint = "; pass scores[measure]" if isinstance(value, Mapping) else ""
    return _raise(ArgumentTypeError, f"{argument} must be a ScoreMatrix; got {kind_of(value)}{hint}", argument)
