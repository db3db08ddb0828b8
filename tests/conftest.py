"""Shared test fixtures, and the test budget.

``reference_data`` is the reference-data folder ``tests/data`` (see tests/data/README.md: where
each file comes from, its terms, and what was trimmed). It is part of the repository, so a fresh
clone runs every test with nothing beside it. When a file is missing, the tests that need it FAIL
with a clear message; they never skip, so an incomplete checkout cannot make the conformance suite
pass vacuously.

The budget: ``python3 -m pytest`` runs the quick budget, ``python3 -m pytest --full`` (or
``IRSTATS_FULL_TESTS=1 python3 -m pytest``) the full one. The two differ only in how many cases
the expensive checks draw, never in what a case asserts:

* property tests take ``max_examples=examples(N)``: N examples in the full budget, a third of N
  (at least 10) in the quick one; hypothesis' example database replays any failure it has seen
  first, whichever budget runs;
* the tests that hold irstats equal to a slow peer tool on every run of a collection take
  ``spread(runs, k)``: every run in the full budget, k of them spread over the sorted list in the
  quick one (the first and the last included).

The full budget is what a release or a change to an engine path should pass; the quick one keeps
the README's test command within a few minutes on two cores.

The suite runs on two worker processes (pytest-xdist; ``-n 2 --dist loadfile`` in pyproject.toml's
``addopts``): each worker takes whole files, so a module-scoped fixture is built once. Every test
writes under its own ``tmp_path`` and starts its servers on free ports, so the workers never
share a file or a port. ``-n 0`` runs everything in this process (for ``--pdb``), ``-n auto``
one worker per core.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import pytest

#: The reference data the tests read: ``tests/data`` (this file is tests/conftest.py).
REFERENCE_DATA = Path(__file__).resolve().parent / "data"


#: The TREC DL 2019 passage runs ``tests/data/trec-dl-2019-passage/runs`` keeps, in the order ``sorted()``
#: gives their files: 14 of the track's 37 official runs, the ones some test names and those that cover
#: its shapes (20 and 50 lines per topic, re-rankings of 5 to 1000 lines, heavy score ties, ties that
#: only 32-bit floats make, no ties at all); tests/data/README.md says why each is kept.
DL19_RUNS = ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50", "TUA1-1", "TUW19-p1-f", "TUW19-p3-re", "UNH_bm25",
             "bm25base_p", "bm25tuned_rm3_p", "idst_bert_p1", "p_bert", "p_exp_rm3_bert", "runid2", "test1")


#: The environment variable that selects the full budget (``--full`` sets it, so a subprocess or
#: an xdist worker sees the same budget as the test that started it).
FULL_BUDGET_ENV = "IRSTATS_FULL_TESTS"

#: The quick budget's share of a property test's examples, and its floor.
QUICK_EXAMPLES_SHARE = 3
QUICK_EXAMPLES_MIN = 10

T = TypeVar("T")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full", action="store_true", default=False,
                     help=f"run the full test budget: every property-test example and every run in the "
                          f"comparisons with peer tools (the same as {FULL_BUDGET_ENV}=1)")


def pytest_configure(config: pytest.Config) -> None:
    # Through the environment rather than a module global: test modules import this file both
    # as ``conftest`` and as ``tests.conftest`` (two module objects), and subprocesses inherit it.
    if config.getoption("--full"):
        os.environ[FULL_BUDGET_ENV] = "1"
    # Property tests that name no budget of their own get hypothesis' 100 examples scaled the same
    # way; a profile the user picks with --hypothesis-profile wins.
    if config.getoption("hypothesis_profile", None) is None:
        from hypothesis import settings

        settings.register_profile("irstats", max_examples=examples(100))
        settings.load_profile("irstats")


def pytest_report_header(config: pytest.Config) -> str:
    return f"irstats test budget: {'full' if full_budget() else f'quick (--full or {FULL_BUDGET_ENV}=1 for the full one)'}"


def full_budget() -> bool:
    """True when the full budget runs (``--full`` or ``IRSTATS_FULL_TESTS`` set to anything but 0)."""
    return os.environ.get(FULL_BUDGET_ENV, "").strip() not in ("", "0")


def examples(full: int) -> int:
    """A property test's ``max_examples``: ``full`` in the full budget, a third of it (at least 10,
    never more than ``full``) in the quick one."""
    if full_budget():
        return full
    return min(full, max(QUICK_EXAMPLES_MIN, math.ceil(full / QUICK_EXAMPLES_SHARE)))


def spread(items: Sequence[T], quick: int) -> list[T]:
    """``items`` in the full budget; in the quick one ``quick`` of them, evenly spaced over the
    sequence with the first and the last included (deterministic: the same ones every run)."""
    items = list(items)
    if full_budget() or quick >= len(items):
        return items
    if quick <= 1:
        return items[:quick]
    picks = sorted({round(k * (len(items) - 1) / (quick - 1)) for k in range(quick)})
    return [items[i] for i in picks]


def require_path(path: Path) -> Path:
    """``path`` if it exists; otherwise fail the calling test (never skip)."""
    path = Path(path)
    if not path.exists():
        pytest.fail(
            f"reference data not found: {path.resolve()} — the tests read it from tests/data, which "
            f"the repository holds (see tests/data/README.md); restore it with git checkout tests/data",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="session")
def reference_data() -> Path:
    """The reference-data folder ``tests/data``; fails (never skips) when it is missing."""
    return require_path(REFERENCE_DATA)


@pytest.fixture(scope="session")
def te(reference_data) -> Path:
    """trec_eval's own test suite (its qrels, results and outputs): tests/data/conformance/trec_eval-test."""
    return reference_data / "conformance" / "trec_eval-test"


def run_drop_in(args) -> tuple[int, str]:
    """``irstats trec_eval ARGS`` through click's runner: (exit code, standard output)."""
    from click.testing import CliRunner

    from irstats.cli.main import cli

    result = CliRunner().invoke(cli, ["trec_eval", *map(str, args)])
    return result.exit_code, result.output


def best_and_median(matrix) -> tuple[str, str]:
    """The worked examples' pair of runs of a score matrix: the one with the best mean and the one
    ranked at the median (tests/test_bayes.py, tests/test_meta_analysis.py)."""
    import numpy as np

    order = np.argsort(-matrix.means(), kind="stable")
    return matrix.systems[order[0]], matrix.systems[order[len(order) // 2]]


#: The package's source tree, put first on a child's PYTHONPATH (:func:`child_env`).
SRC = Path(__file__).resolve().parents[1] / "src"


def child_env() -> dict:
    """The environment of an ``irstats`` child process: this checkout's sources first on its
    path, and no IRSTATS_DEBUG (which would print tracebacks the tests check are absent)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("IRSTATS_DEBUG", None)
    return env


def default_signals() -> None:
    """A child's ``preexec_fn``: it starts with the default dispositions of SIGINT, SIGTERM and
    SIGHUP even when the test runner ignores them (a background job of a non-interactive shell
    does; nohup, SIGHUP), since irstats keeps ignored signals ignored."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def chromium(playwright):
    """Headless Chromium (Debian's, installed by ./install.sh --test) launched through Playwright
    with the network off; fails (never skips) when it is missing."""
    import shutil

    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("Chromium is not installed: it is Debian's 'chromium' package, installed by ./install.sh")
    return playwright.chromium.launch(executable_path=found, args=[
        "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"])


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
