"""Topic difficulty D_t from a systems × topics score matrix (METHODS.md §5.1).

Three definitions, all computed over the systems evaluated on the topic (NaN scores are
left out), for every topic at once:

==================  =================================================  ==================
method              D_t                                                source
==================  =================================================  ==================
``max_mean_sd``     (max_t − mean_t) / sd_t  (sd: sample sd, ddof 1)   *Score Aggregation*
                                                                       Eq. 2 (default)
``one_minus_mean``  1 − mean_t                                         Eq. 1 (Mizzaro)
``one_minus_max``   1 − max_t
==================  =================================================  ==================

Under ``max_mean_sd`` a topic with sd_t = 0 gets D_t = 0 and a warning. Larger D_t means a
harder topic; :meth:`TopicDifficulty.ranked` gives the §5.1 order (D_t descending, ties by
topic id, bytewise).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.checks import score_matrix, whole
from irstats.errors import ArgumentError, IrstatsWarning, some
from irstats.scores import ScoreMatrix

#: Difficulty definitions: name → one-line description.
DIFFICULTY_METHODS: dict[str, str] = {
    "max_mean_sd": "(max − mean)/sd over systems (Score Aggregation Eq. 2; default)",
    "one_minus_mean": "1 − mean over systems (Eq. 1, Mizzaro)",
    "one_minus_max": "1 − max over systems",
}

_ALIASES = {"eq2": "max_mean_sd", "eq1": "one_minus_mean", "mizzaro": "one_minus_mean"}


class DifficultyWarning(IrstatsWarning):
    """Topics whose difficulty is set by convention (sd = 0) or undefined; ``topics`` lists them."""

    def __init__(self, message: str, topics=()):
        super().__init__(message)
        self.topics = tuple(topics)


@dataclass(frozen=True)
class TopicDifficulty(Result):
    """D_t per topic: ``values[j]`` belongs to ``topics[j]``."""

    values: np.ndarray
    topics: tuple[str, ...]
    measure: str
    method: str

    def ranked(self) -> list[str]:
        """Topics from hardest to easiest: D_t descending, ties (and NaN last) by topic id, bytewise."""
        keyed = sorted(range(len(self.topics)),
                       key=lambda j: (np.isnan(self.values[j]), -self.values[j] if not np.isnan(self.values[j])
                                      else 0.0, self.topics[j].encode("utf8")))
        return [self.topics[j] for j in keyed]

    def to_frame(self) -> pl.DataFrame:
        """Frame ``topic, measure, difficulty``."""
        n = len(self.topics)
        return pl.DataFrame({"topic": list(self.topics), "measure": [self.measure] * n,
                             "difficulty": np.asarray(self.values, dtype=np.float64)},
                            schema={"topic": pl.String, "measure": pl.String, "difficulty": pl.Float64})

    def as_dict(self) -> dict[str, float]:
        return {t: float(v) for t, v in zip(self.topics, self.values)}


def resolve_difficulty_method(method: str) -> str:
    """Canonical difficulty method name; :class:`~irstats.errors.InputError` if unknown."""
    key = str(method).strip().lower()
    key = _ALIASES.get(key, key)
    if not isinstance(method, str) or key not in DIFFICULTY_METHODS:
        raise ArgumentError(f"unknown difficulty method {method!r}; expected one of {', '.join(DIFFICULTY_METHODS)}",
                            argument="method")
    return key


def topic_difficulty(matrix: ScoreMatrix, method: str = "max_mean_sd", ddof: int = 1) -> TopicDifficulty:
    """Per-topic difficulty D_t of METHODS.md §5.1.

    Parameters
    ----------
    matrix:
        Scores (METHODS.md computes D_t once on the AP matrix of all systems).
    method:
        ``"max_mean_sd"`` (Eq. 2, default), ``"one_minus_mean"`` (Eq. 1) or ``"one_minus_max"``.
    ddof:
        Delta degrees of freedom of sd_t in ``max_mean_sd`` (1: sample sd).

    A topic no system was evaluated on gets NaN; under ``max_mean_sd`` a topic with
    sd_t = 0 gets 0 and one with fewer than ``ddof + 1`` scores NaN, with a
    :class:`DifficultyWarning` listing them.

    >>> d = topic_difficulty(scores["AP"])   # doctest: +SKIP
    >>> hard_first = d.ranked()              # doctest: +SKIP
    """
    name = resolve_difficulty_method(method)
    score_matrix(matrix)
    whole(ddof, "ddof", minimum=0)
    x = matrix.values
    valid = ~np.isnan(x)
    n = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(valid, x, 0.0).sum(axis=0) / n
        top = np.where(valid, x, -np.inf).max(axis=0) if x.shape[0] else np.full(x.shape[1], np.nan)
        top = np.where(n > 0, top, np.nan)
        if name == "one_minus_mean":
            values = 1.0 - mean
        elif name == "one_minus_max":
            values = 1.0 - top
        else:
            sd = np.sqrt((np.where(valid, x - mean, 0.0) ** 2).sum(axis=0) / (n - ddof))
            sd = np.where(n > ddof, sd, np.nan)
            zero = sd == 0
            values = np.where(zero, 0.0, (top - mean) / np.where(zero, 1.0, sd))
            if zero.any():
                topics = [t for t, z in zip(matrix.topics, zero) if z]
                warnings.warn(DifficultyWarning(
                    f"{matrix.measure}: {len(topics)} topic(s) where every system scored the same get difficulty 0: "
                    + some(topics, limit=10), topics), stacklevel=2)
            few = (n <= ddof) & (n > 0)
            if few.any():
                topics = [t for t, f in zip(matrix.topics, few) if f]
                warnings.warn(DifficultyWarning(
                    f"{matrix.measure}: {len(topics)} topic(s) with at most {ddof} score(s) have no sd; "
                    "their difficulty is NaN: " + some(topics, limit=10), topics), stacklevel=2)
    empty = n == 0
    if empty.any():
        topics = [t for t, e in zip(matrix.topics, empty) if e]
        warnings.warn(DifficultyWarning(f"{matrix.measure}: no scores on topic(s) {some(topics, limit=10)}; "
                                        "their difficulty is NaN", topics), stacklevel=2)
    return TopicDifficulty(np.asarray(values, dtype=np.float64), tuple(matrix.topics), matrix.measure, name)


__all__ = ["DIFFICULTY_METHODS", "DifficultyWarning", "TopicDifficulty", "resolve_difficulty_method",
           "topic_difficulty"]
