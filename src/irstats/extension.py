"""The compiled reader (``irstats._ingest``, built by pip with the machine's C compiler), if it
was built, and whether it is used: the one place both the run set (which peeks at a file's
layout) and the engine's compiled path (:mod:`irstats.ingest`) ask."""

from __future__ import annotations

import os

try:
    from irstats import _ingest as module
except ImportError:  # no C compiler at install time: the Python readers do all the work
    module = None

#: Set to False to always use the Python readers (tests compare the two paths);
#: ``IRSTATS_NO_EXTENSION=1`` does so for a whole process.
ENABLED = os.environ.get("IRSTATS_NO_EXTENSION", "") == ""


def available() -> bool:
    """Whether the compiled reader is built and enabled."""
    return module is not None and ENABLED


__all__ = ["ENABLED", "available", "module"]
