"""The types, checked (issue 37): ``python -m mypy`` on src/irstats, configured in
pyproject.toml's ``[tool.mypy]`` — default checking everywhere, strict on ``irstats.measures``,
``irstats.stats`` and ``irstats.ingest``.

Most of the package type-checks; the errors that remain are counted per file in
:data:`KNOWN_ERRORS` (the files other work was changing while the annotations were written).
The test fails on an error in any other file, on more errors than counted in a file, and on
fewer (then lower the count): the list only shrinks, to none. mypy's cache lives in the system's
temporary directory, shared between runs, so a run after the first re-checks only what changed
(a few seconds rather than the better part of a minute)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: mypy's incremental cache, kept between test runs (one per user and interpreter).
CACHE_DIR = Path(tempfile.gettempdir()) / f"irstats-mypy-cache-{os.getuid()}-py{sys.version_info[0]}{sys.version_info[1]}"

#: The errors mypy still reports, per file (2026-11-28, mypy 2.4): each to be annotated away.
KNOWN_ERRORS: dict[str, int] = {}


def test_mypy_reports_no_error_but_the_known_ones() -> None:
    pytest.importorskip("mypy", reason="mypy is in the test extra of pyproject.toml")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(CACHE_DIR), "--no-error-summary", "--hide-error-context"],
        cwd=REPO, capture_output=True, text=True, check=False)
    errors = [line for line in checked.stdout.splitlines() if re.match(r"[^:]+:\d+: error:", line)]
    assert errors or checked.returncode == 0, f"mypy failed:\n{checked.stdout}{checked.stderr}"
    found = Counter(line.split(":", 1)[0] for line in errors)
    more = {f: n for f, n in found.items() if n > KNOWN_ERRORS.get(f, 0)}
    assert not more, "new type errors (mypy, configured in pyproject.toml):\n" + "\n".join(
        line for line in errors if line.split(":", 1)[0] in more)
    fewer = {f: (found.get(f, 0), n) for f, n in KNOWN_ERRORS.items() if found.get(f, 0) < n}
    assert not fewer, f"fewer type errors than KNOWN_ERRORS counts (lower them): {fewer}"
