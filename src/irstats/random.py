"""The one way every random procedure of irstats turns its ``seed`` into random numbers.

``seed`` is a whole number >= 0 (also as text, e.g. from a command line), None (the same
as 0: irstats' results are reproducible by default) or a ``numpy.random.Generator``, which
is used as it is and advances. An integer seed gives ``Generator(PCG64(seed))``, so the
same seed gives the same numbers in every experiment, whatever the batch size.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from irstats.errors import ArgumentError, ArgumentTypeError

SEED_RULE = "a whole number >= 0, None or a numpy Generator"

#: The type of every ``seed`` parameter: a whole number (text from a command line too), None
#: (the same as 0) or a Generator used as it is.
Seed = int | str | np.random.Generator | None


def check_seed(seed, argument: str = "seed"):
    """``seed`` unchanged if it is one :func:`generator` takes; else an error naming ``argument``.

    Every random procedure calls this (through :func:`generator`, :func:`seed_label` or
    :func:`fixed_seed`) on entry, before any work, whether or not it will draw: a bad seed
    is an error even where the result happens not to need random numbers (an exact test,
    a closed-form test), so that a typo never passes unnoticed.
    """
    if isinstance(seed, np.random.Generator) or seed is None:
        return seed
    if isinstance(seed, (bool, np.bool_, float, np.floating)):
        raise ArgumentTypeError(f"{argument} must be {SEED_RULE}, not {seed!r}", argument=argument)
    try:
        value = int(seed)
    except (TypeError, ValueError, OverflowError):
        error = ArgumentError if isinstance(seed, str) else ArgumentTypeError
        raise error(f"{argument} must be {SEED_RULE}, not {seed!r}", argument=argument) from None
    if value < 0:
        raise ArgumentError(f"{argument} must be >= 0, not {value}", argument=argument)
    return seed


def generator(seed: Seed = 0) -> np.random.Generator:
    """``numpy.random.Generator(PCG64(seed))``; a Generator passes through; None means 0.

    >>> generator(7).integers(0, 100, 3).tolist() == generator("7").integers(0, 100, 3).tolist()
    True
    >>> g = np.random.default_rng(1); generator(g) is g
    True
    """
    check_seed(seed)
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.Generator(np.random.PCG64(0 if seed is None else int(seed)))


def seed_label(seed) -> int | str:
    """How a result records its seed: the whole number, or ``"generator"`` when a Generator
    was passed (its state is not a number one could pass again)."""
    check_seed(seed)
    if isinstance(seed, np.random.Generator):
        return "generator"
    return 0 if seed is None else int(seed)


def at_state(state: Mapping[str, Any]) -> np.random.Generator:
    """A Generator whose bit generator is in ``state`` (a ``bit_generator.state`` dict): it
    draws exactly what the Generator that had that state drew next.

    >>> g = generator(3); saved = g.bit_generator.state; first = g.random(4)
    >>> bool((at_state(saved).random(4) == first).all())
    True
    """
    bit_generator = getattr(np.random, state["bit_generator"])()
    bit_generator.state = state
    return np.random.Generator(bit_generator)


def batch_states(rng: np.random.Generator, sizes, draw) -> list[tuple[int, Mapping[str, Any]]]:
    """Where each batch of a batched random procedure starts: ``(size, state)`` per batch.

    ``draw(rng, size)`` makes exactly the draws the procedure makes for a batch of ``size``
    (its own draw function, so the two cannot disagree). The batches are drawn here one
    after another, as the procedure would in one process, and ``rng`` is left past the last;
    a batch is then recomputed anywhere from :func:`at_state` of its state. So the numbers
    of batch k do not depend on who computes it, nor on how many compute (irstats.distributed).
    """
    out = []
    for size in sizes:
        out.append((int(size), rng.bit_generator.state))
        draw(rng, size)
    return out


def fixed_seed(seed) -> int:
    """A whole-number seed for procedures that must draw the same numbers several times (the
    same resamples at every depth): the seed itself, or one number drawn from a Generator."""
    check_seed(seed)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    return 0 if seed is None else int(seed)
