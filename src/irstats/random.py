"""The one way every random procedure of irstats turns its ``seed`` into random numbers.

``seed`` is a whole number >= 0 (also as text, e.g. from a command line), None (the same
as 0: irstats' results are reproducible by default) or a ``numpy.random.Generator``, which
is used as it is and advances. An integer seed gives ``Generator(PCG64(seed))``, so the
same seed gives the same numbers in every experiment, whatever the batch size.
"""

from __future__ import annotations

import numpy as np

from irstats.errors import InputError


def generator(seed: int | str | np.random.Generator | None = 0) -> np.random.Generator:
    """``numpy.random.Generator(PCG64(seed))``; a Generator passes through; None means 0.

    >>> generator(7).integers(0, 100, 3).tolist() == generator("7").integers(0, 100, 3).tolist()
    True
    >>> g = np.random.default_rng(1); generator(g) is g
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        seed = 0
    if isinstance(seed, (bool, np.bool_, float)):
        raise InputError(f"seed must be a whole number >= 0, None or a numpy Generator, not {seed!r}")
    try:
        value = int(seed)
    except (TypeError, ValueError):
        raise InputError(f"seed must be a whole number >= 0, None or a numpy Generator, not {seed!r}") from None
    if value < 0:
        raise InputError(f"seed must be >= 0, not {value}")
    return np.random.Generator(np.random.PCG64(value))


def seed_label(seed) -> int | str | None:
    """How a result records its seed: the whole number, or ``"generator"`` when a Generator
    was passed (its state is not a number one could pass again)."""
    if isinstance(seed, np.random.Generator):
        return "generator"
    return 0 if seed is None else int(seed)


def fixed_seed(seed) -> int:
    """A whole-number seed for procedures that must draw the same numbers several times (the
    same resamples at every depth): the seed itself, or one number drawn from a Generator."""
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    generator(seed)  # validates
    return 0 if seed is None else int(seed)
