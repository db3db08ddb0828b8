"""One seed helper for every random procedure: int, None or a numpy Generator."""

from __future__ import annotations

import numpy as np
import pytest

from irstats.errors import InputError
from irstats.meta.splits import random_halvings
from irstats.random import generator
from irstats.stats import bootstrap_test, randomization_test

A = np.linspace(0.1, 0.9, 30)
B = A[::-1] * 0.9


def test_int_none_and_generator():
    assert generator(None).random() == generator(0).random()
    assert generator(5).random() == generator("5").random()
    g = np.random.default_rng(3)
    assert generator(g) is g
    for bad in (-1, 1.5, "x", True):
        with pytest.raises(InputError, match="seed"):
            generator(bad)


@pytest.mark.parametrize("run", [
    lambda seed: bootstrap_test(A, B, n_resamples=200, seed=seed).p_value,
    lambda seed: randomization_test(A, B, n_resamples=200, seed=seed).p_value,
    lambda seed: random_halvings(20, 5, seed=seed).first.tolist(),
])
def test_every_experiment_takes_the_same_seeds(run):
    assert run(7) == run(7)
    assert run(None) == run(0)
    g = np.random.default_rng(7)
    first, second = run(g), run(g)  # a Generator advances
    assert run(np.random.default_rng(7)) == first
    assert second is not None
