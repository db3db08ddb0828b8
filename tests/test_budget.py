"""The test budget of tests/conftest.py: what the quick budget keeps of a property test's
examples and of a list of runs, and that ``IRSTATS_FULL_TESTS`` (set by ``--full``) keeps all."""

from __future__ import annotations

import pytest

from tests.conftest import FULL_BUDGET_ENV, examples, full_budget, spread


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.delenv(FULL_BUDGET_ENV, raising=False)


def test_quick_examples_are_a_third_with_a_floor(quick):
    assert not full_budget()
    assert [examples(n) for n in (300, 150, 40, 25, 10, 5)] == [100, 50, 14, 10, 10, 5]


def test_quick_spread_keeps_the_ends_evenly_spaced_and_in_order(quick):
    runs = [f"run{k:02d}" for k in range(37)]
    picked = spread(runs, 9)
    assert picked == ["run00", "run04", "run09", "run14", "run18", "run22", "run27", "run32", "run36"]
    assert spread(runs, 5) == runs[::9]  # the five a CLI test compares: one cache serves both
    assert spread(runs, 1) == ["run00"] and spread(runs, 0) == []
    assert spread(runs[:3], 8) == runs[:3]  # never more than there are


@pytest.mark.parametrize("value", ["1", "yes", "true"])
def test_full_budget_keeps_everything(monkeypatch, value):
    monkeypatch.setenv(FULL_BUDGET_ENV, value)
    assert full_budget()
    assert examples(300) == 300 and examples(10) == 10
    assert spread(range(37), 9) == list(range(37))


def test_zero_or_empty_is_the_quick_budget(monkeypatch):
    for value in ("0", "", " "):
        monkeypatch.setenv(FULL_BUDGET_ENV, value)
        assert not full_budget() and examples(300) == 100


def test_the_option_is_registered(pytestconfig):
    assert pytestconfig.getoption("--full") in (True, False)
