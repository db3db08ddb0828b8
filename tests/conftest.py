"""Shared test fixtures.

``shared_data`` is the reference-data folder ``../shared/data`` (relative to the project
root, see shared/data/README.md). The data is never copied into this repository. When the
folder is missing, the tests that need it FAIL with a clear message; they never skip, so a
missing checkout cannot make the conformance suite pass vacuously.
"""

from __future__ import annotations

from pathlib import Path

import pytest

#: ``../shared/data`` relative to the project root (this file is tests/conftest.py).
SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def require_path(path: Path) -> Path:
    """``path`` if it exists; otherwise fail the calling test (never skip)."""
    path = Path(path)
    if not path.exists():
        pytest.fail(
            f"reference data not found: {path.resolve()} — the conformance tests need the shared "
            f"data folder ../shared/data next to the project root (see shared/data/README.md)",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared reference-data folder; fails (never skips) when it is missing."""
    return require_path(SHARED_DATA)


def run_cli(args, capsys):
    """Run ``irstats ARGS`` in-process; return (exit code, stdout, stderr)."""
    from irstats.cli.main import main

    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out, err
