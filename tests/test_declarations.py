"""Declared once, seen everywhere (issue 37): a paired test with its resampling core, a power
design and a topic-set design are each added in one place, their registry, and the API and
the commands' choices read them from there; a measure's role is asked for, never its name."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.conftest import child_env
from tests.dask_cluster import client, cluster  # noqa: F401 - the real cluster the Dask check runs on


def _run_python(code: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter (the command modules read the registries when imported)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=child_env(), timeout=300)


# ----------------------------------------------------------------------------- paired tests

def _sign_flip_reference(D: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """count/B of the sign-flip test of each row of D, one resample at a time: numpy's draws in
    the order the randomisation core documents (one row of B × n signs per resample), and
    |T*| ≥ |T| − 1e-12·max(1, |T|) counted in a plain loop."""
    rng = np.random.Generator(np.random.PCG64(seed))
    n = D.shape[1]
    signs = 1.0 - 2.0 * rng.integers(0, 2, size=(n_resamples, n))
    out = []
    for d in D:
        observed = abs(sum(d) / n)
        count = 0
        for b in range(n_resamples):
            total = 0.0
            for k in range(n):
                total += signs[b, k] * d[k]
            count += abs(total / n) >= observed - 1e-12 * max(1.0, observed)
        out.append(count / n_resamples)
    return np.array(out)


def _new_resampling_test():
    from irstats.stats.pairwise import PairedTest
    from irstats.stats.resampling import RANDOMIZATION

    # a resampling test is one declaration: its core and the p-value from the core's counts
    return PairedTest("flip_share", "share of sign flips", core=RANDOMIZATION, p_value=lambda counts, b: counts / b)


@pytest.fixture
def scores_3x6() -> np.ndarray:
    return np.array([[0.31, 0.52, 0.18, 0.77, 0.45, 0.60],
                     [0.29, 0.40, 0.25, 0.61, 0.47, 0.38],
                     [0.10, 0.55, 0.20, 0.70, 0.30, 0.41]])


def test_a_resampling_test_declared_once_is_run_by_pairwise(monkeypatch, scores_3x6):
    from irstats.stats.pairwise import TESTS, pairwise

    monkeypatch.setitem(TESTS, "flip_share", _new_resampling_test())
    result = pairwise(scores_3x6, "flip_share", n_resamples=300, seed=5)
    i, j = np.triu_indices(3, 1)
    D = scores_3x6[i] - scores_3x6[j]
    np.testing.assert_allclose(result.p_value[i, j], _sign_flip_reference(D, 300, 5), rtol=0, atol=0)
    assert result.details["n_resamples"] == 300


def test_a_resampling_test_declared_once_runs_on_a_cluster(monkeypatch, scores_3x6, client):  # noqa: F811
    """The workers are handed the core itself (module-level functions), so a test declared
    only on the client runs there, batch by batch, with the same numbers."""
    from irstats.stats.pairwise import TESTS, pairwise

    monkeypatch.setitem(TESTS, "flip_share", _new_resampling_test())
    here = pairwise(scores_3x6, "flip_share", n_resamples=2000, seed=9, batch_size=300)
    there = pairwise(scores_3x6, "flip_share", n_resamples=2000, seed=9, batch_size=300, client=client)
    np.testing.assert_array_equal(here.p_value, there.p_value)


def test_the_signed_rank_tests_lower_statistic_is_declared_with_it():
    """W⁻ = n(n + 1)/2 − W⁺: scipy's two sides of the same differences."""
    from scipy.stats import wilcoxon

    from irstats.stats.pairwise import pairwise

    x = np.array([[0.5, 0.2, 0.9, 0.4, 0.7, 0.1, 0.8], [0.3, 0.35, 0.6, 0.1, 0.75, 0.05, 0.2]])
    result = pairwise(x, "wilcoxon")
    d = x[0] - x[1]
    w_plus = wilcoxon(d, alternative="greater").statistic
    w_minus = wilcoxon(-d, alternative="greater").statistic
    assert result.statistic[0, 1] == pytest.approx(w_plus)
    assert result.statistic[1, 0] == pytest.approx(w_minus)


# ----------------------------------------------------------------------------- power, topic sets

def test_a_power_design_declared_once_is_a_choice_of_irstats_power():
    """A copy of the paired t-test registered under a new name is a choice of ``--test`` and
    answers as statsmodels' TTestPower does (Sakai's Table 5.1, A vs B: t = 2.116, 20 topics)."""
    from statsmodels.stats.power import TTestPower

    d = 2.116 / np.sqrt(20)
    done = _run_python("""
        from dataclasses import replace
        from irstats.stats.power import POWER_DESIGNS

        POWER_DESIGNS["paired_t_again"] = replace(POWER_DESIGNS["paired_t"], name="paired_t_again")
        from irstats.cli.main import main
        main(["power", "--test", "paired_t_again", "--t", "2.116", "--n", "20", "--format", "tsv"])
    """)
    assert done.returncode == 0, done.stderr
    header, row = done.stdout.splitlines()
    values = dict(zip(header.split("\t"), row.split("\t")))
    assert values["test"] == "paired_t_again"
    assert float(values["effect_size"]) == pytest.approx(d, rel=1e-9)
    assert float(values["power"]) == pytest.approx(TTestPower().power(d, 20, 0.05), rel=1e-6)
    assert int(values["sample_size"]) == int(np.ceil(TTestPower().solve_power(d, alpha=0.05, power=0.8)))


def test_a_topic_set_design_declared_once_is_a_choice_of_irstats_topicset():
    """A copy of the paired design is a choice of ``--design`` and answers as statsmodels'
    TTestPower does (δ = 0.05, V = 0.0479, α = 0.05, β = 0.2)."""
    from statsmodels.stats.power import TTestPower

    needed = int(np.ceil(TTestPower().solve_power(0.05 / np.sqrt(0.0479), alpha=0.05, power=0.8)))
    done = _run_python("""
        from dataclasses import replace
        from irstats.stats.topicset import TOPIC_SET_DESIGNS

        TOPIC_SET_DESIGNS["paired_again"] = replace(TOPIC_SET_DESIGNS["paired_t"], name="paired_again")
        from irstats.cli.main import main
        main(["topicset", "--design", "paired_again", "--variance", "0.0479", "--min-diff", "0.05",
              "--format", "tsv"])
    """)
    assert done.returncode == 0, done.stderr
    header, row = done.stdout.splitlines()
    values = dict(zip(header.split("\t"), row.split("\t")))
    assert (values["design"], int(values["n_topics"])) == ("paired_again", needed)


def test_the_commands_offer_exactly_the_declared_designs():
    from irstats.cli.power_cmd import power_command
    from irstats.cli.topicset_cmd import topicset_command
    from irstats.stats.power import POWER_DESIGNS
    from irstats.stats.topicset import TOPIC_SET_DESIGNS

    def choices(command, name):
        return tuple(next(p for p in command.params if p.name == name).type.choices)

    assert choices(power_command, "test") == tuple(POWER_DESIGNS)
    assert choices(topicset_command, "design") == tuple(TOPIC_SET_DESIGNS)


# ----------------------------------------------------------------------------- roles

def test_every_role_is_played_by_one_family():
    from irstats.measures import FAMILIES, Role, family_for

    for role in Role:
        players = [name for name, family in FAMILIES.items() if role in family.roles]
        assert players == [family_for(role).name], role


def test_a_role_played_twice_is_an_error(monkeypatch):
    from dataclasses import replace

    from irstats.measures import FAMILIES, Role, family_for

    monkeypatch.setitem(FAMILIES, "AP_twice", replace(FAMILIES["AP"], name="AP_twice"))
    with pytest.raises(LookupError, match="DEFAULT is declared by 2 families"):
        family_for(Role.DEFAULT)


def test_the_roles_are_the_documented_families():
    """docs/design.md and the commands' help name them: AP is the default measure (``irstats
    robustness``, ``comparability``, the report's predictive power) and is swept as AP_pool,
    NumRel gives R, NumRet the documents retrieved, Judged the judged share."""
    from irstats.depth.sweep import pool_variant
    from irstats.measures import Role, measure_for

    assert {role: measure_for(role) for role in Role} == {
        Role.DEFAULT: "AP", Role.R_PER_TOPIC: "NumRel", Role.RETRIEVED: "NumRet", Role.JUDGED_SHARE: "Judged",
        Role.POOL_VARIANT: "AP"}
    assert pool_variant() == ("AP", "AP_pool")
