"""Errors and warnings meant for people.

Every error caused by bad input names the file, the line (when there is one) and what
was expected, so that the command-line layer can print it on one line and exit non-zero.
"""

from __future__ import annotations

import warnings


class IrstatsError(Exception):
    """Base class of every error irstats raises on purpose."""


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


class MeasureError(IrstatsError):
    """A measure name that does not parse or names no known measure."""


class IrstatsWarning(UserWarning):
    """Base class of irstats' warnings (inputs that are accepted but worth a look)."""


def warn(message: str, category: type[Warning] = IrstatsWarning) -> None:
    """Emit an irstats warning pointing at the caller's caller."""
    warnings.warn(message, category, stacklevel=3)
