"""Errors and warnings meant for people.

Every error caused by bad input names the file, the line (when there is one) and what
was expected, so that the command-line layer can print it on one line and exit non-zero.
"""

from __future__ import annotations

import warnings


#: The largest depth, cut-off or relevance level irstats takes: a 64-bit signed integer, C's
#: long, as trec_eval reads them (its atol clamps there).
MAX_WHOLE = 2**63 - 1


class IrstatsError(Exception):
    """Base class of every error irstats raises on purpose.

    ``exit_code`` is what the command line exits with: 2 for bad input (the default), 1 for
    a problem of the machine rather than of the input (see :class:`ResourceError`).
    """

    exit_code = 2


class InputError(IrstatsError):
    """A file or a value given by the user is not what irstats expected.

    ``path`` and ``line`` (1-based) locate the problem when it is in a file.
    """

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.message = message
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


class ResourceError(IrstatsError):
    """The machine, not the input: a folder that cannot be written, a full disk, a file
    that exists but cannot be read. ``path`` names the file or folder concerned."""

    exit_code = 1

    def __init__(self, message: str, path: str | None = None):
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}" if path is not None else message)

    @classmethod
    def from_os_error(cls, exc: OSError, path=None, doing: str = "cannot write") -> "ResourceError":
        """``PATH: cannot write (No space left on device)`` from an OSError."""
        import os

        where = path if path is not None else exc.filename
        cause = exc.strerror or type(exc).__name__
        return cls(f"{doing} ({cause})", path=os.fspath(where) if where is not None else None)


class ArgumentError(InputError, ValueError):
    """A value passed to a function of the API that the function does not accept: a number
    out of range, an unknown name, a seed that is not a whole number, an empty list.

    ``argument`` names the parameter, and the message says what it accepts; a message that
    does not name the parameter is prefixed with it (``runs: run DataFrame: …``). It is also a
    ``ValueError`` (Python's convention for a bad value) and an :class:`InputError` (the
    command line reports it as bad input, exit 2).
    """

    def __init__(self, message: str, *, argument: str | None = None):
        self.argument = argument
        if argument and not _names(message, argument):
            message = f"{argument}: {message}"
        super().__init__(message)


def _names(message: str, argument: str) -> bool:
    """Whether ``message`` names ``argument`` as a word of its own."""
    import re

    return re.search(rf"(?<![\w]){re.escape(argument)}(?![\w])", message) is not None


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of a kind the function does not take: text where numbers are expected, a
    LazyFrame where a DataFrame is, a list column as ids. Also a ``TypeError`` (Python's
    convention for a wrong type) and, as an :class:`ArgumentError`, a ``ValueError``: numpy
    and polars raised ``ValueError`` for most of these before irstats checked them."""


class NotFoundError(ArgumentError, KeyError):
    """A name (system, topic, measure) that the scores or result at hand do not hold. Also a
    ``KeyError``: the lookup by name failed."""

    def __str__(self) -> str:  # KeyError would print the message as a repr, in quotes
        return self.message


class MeasureError(IrstatsError):
    """A measure name that does not parse or names no known measure."""


class IrstatsWarning(UserWarning):
    """Base class of irstats' warnings (inputs that are accepted but worth a look)."""


def some(items, limit: int = 5, quote: bool = True) -> str:
    """The first ``limit`` items for a message, then how many more: ``'a', 'b' and 3 more``.

    >>> some(["t1", "t2", "t3"], limit=2)
    "'t1', 't2' and 1 more"
    """
    items = list(items)
    shown = ", ".join(repr(x) if quote else str(x) for x in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def did_you_mean(name, candidates) -> str:
    """``" — did you mean 'AP'?"`` for a name a user typed that is none of ``candidates`` but
    close to one (difflib, letter case ignored), or ``""``; to end the message that refuses it.

    >>> did_you_mean("nDGC@10", ["AP", "nDCG@10", "P@10"])
    " — did you mean 'nDCG@10'?"
    """
    import difflib

    by_key: dict[str, str] = {}
    for candidate in candidates:
        by_key.setdefault(str(candidate).lower(), str(candidate))
    close = difflib.get_close_matches(str(name).lower(), list(by_key), n=1, cutoff=0.6)
    return f" — did you mean {by_key[close[0]]!r}?" if close else ""


def warn(message: str, category: type[Warning] = IrstatsWarning) -> None:
    """Emit an irstats warning pointing at the caller's caller."""
    warnings.warn(message, category, stacklevel=3)
