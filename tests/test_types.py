"""The types, checked (issue 37): ``python -m mypy`` on src/irstats, configured in
pyproject.toml's ``[tool.mypy]`` — default checking everywhere, strict on ``irstats.measures``,
``irstats.stats`` and ``irstats.ingest`` — reports no error. mypy's cache lives in the system's
temporary directory, shared between runs, so a run after the first re-checks only what changed
(a few seconds rather than the better part of a minute)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: mypy's incremental cache, kept between test runs (one per user and interpreter).
CACHE_DIR = Path(tempfile.gettempdir()) / f"irstats-mypy-cache-{os.getuid()}-py{sys.version_info[0]}{sys.version_info[1]}"


def test_mypy_reports_no_error() -> None:
    pytest.importorskip("mypy", reason="mypy is in the test extra of pyproject.toml")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(CACHE_DIR), "--no-error-summary", "--hide-error-context"],
        cwd=REPO, capture_output=True, text=True, check=False)
    errors = [line for line in checked.stdout.splitlines() if re.match(r"[^:]+:\d+: error:", line)]
    assert not errors, "type errors (mypy, configured in pyproject.toml):\n" + "\n".join(errors)
    assert checked.returncode == 0, f"mypy failed:\n{checked.stdout}{checked.stderr}"
