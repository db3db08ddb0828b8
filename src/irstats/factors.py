"""Standardization factors (METHODS.md §4): the table of per-topic means and standard
deviations that :mod:`irstats.standardize` fits and applies and :mod:`irstats.io.factors`
reads and writes — in a module of its own, below both, so that neither imports the other.
It sits below the measures too (docs/design.md's layers): whoever makes the factors gives the
measure-name parser they are looked up with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import polars as pl

from irstats.errors import ArgumentError, InputError

#: The columns of a factor file.
FACTOR_COLUMNS = ("topic", "measure", "mean", "sd", "n", "ddof")


@dataclass
class Factors:
    """Standardization factors, one row per (topic, measure).

    ``topics[i]``, ``measures[i]``, ``mean[i]``, ``sd[i]`` and ``n[i]`` (the number of
    reference scores behind the row; NaN when unknown, as in trec_eval's format) describe
    row i. ``ddof`` is the delta degrees of freedom of ``sd`` (None when unknown),
    ``reference`` the reference systems (None when unknown), ``options`` maps each measure
    to the evaluation options of the scores the factors were fitted on, ``source`` is the
    file they were read from (for messages). ``canonical`` is the measure-name parser of
    whoever made them (a name → its canonical name, None for a name that is no measure;
    :mod:`irstats.standardize` gives irstats' own), so that factors of ``AP`` are found under
    ``map`` too; without it a measure is found by the name the factors hold.
    """

    topics: tuple[str, ...]
    measures: tuple[str, ...]
    mean: np.ndarray
    sd: np.ndarray
    n: np.ndarray
    ddof: int | None = 1
    reference: tuple[str, ...] | None = None
    options: dict[str, dict] = field(default_factory=dict)
    source: str | None = None
    version: str | None = None
    canonical: Callable[[str], str | None] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self.topics = tuple(str(t) for t in self.topics)
        self.measures = tuple(str(m) for m in self.measures)
        self.mean = np.asarray(self.mean, dtype=np.float64)
        self.sd = np.asarray(self.sd, dtype=np.float64)
        self.n = np.asarray(self.n, dtype=np.float64)
        if not (len(self.topics) == len(self.measures) == len(self.mean) == len(self.sd) == len(self.n)):
            raise ArgumentError("topics, measures, mean, sd and n must have one entry per row", argument="topics")
        if self.reference is not None:
            self.reference = tuple(self.reference)

    def __len__(self) -> int:
        return len(self.topics)

    @property
    def measure_names(self) -> list[str]:
        """The measures that have factors, in order of first appearance."""
        return list(dict.fromkeys(self.measures))

    def has_measure(self, measure: str) -> bool:
        return self._key(measure) is not None

    def _key(self, measure: str) -> str | None:
        names = set(self.measures)
        if measure in names:
            return measure
        canonical = self.canonical(measure) if self.canonical is not None else None
        if canonical in names:
            return canonical
        return None

    def lookup(self, measure: str, topics: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(mean, sd, found)`` aligned with ``topics`` for one measure; NaN where not found.

        Raises :class:`~irstats.errors.InputError` when the measure has no factors at all.
        """
        key = self._key(measure)
        if key is None:
            raise InputError(f"no standardization factors for measure {measure!r}; the factors cover "
                             f"{', '.join(self.measure_names) or 'no measure'}", path=self.source)
        rows = {t: i for i, (t, m) in enumerate(zip(self.topics, self.measures)) if m == key}
        index = np.array([rows.get(t, -1) for t in topics], dtype=np.int64)
        found = index >= 0
        safe = np.where(found, index, 0)
        mean = np.where(found, self.mean[safe] if len(self) else np.nan, np.nan)
        sd = np.where(found, self.sd[safe] if len(self) else np.nan, np.nan)
        return mean, sd, found & ~np.isnan(sd) & ~np.isnan(mean)

    def to_frame(self) -> pl.DataFrame:
        """Frame ``topic, measure, mean, sd, n, ddof``."""
        return pl.DataFrame({
            "topic": list(self.topics), "measure": list(self.measures), "mean": self.mean, "sd": self.sd,
            "n": self.n, "ddof": [self.ddof] * len(self),
        }, schema={"topic": pl.String, "measure": pl.String, "mean": pl.Float64, "sd": pl.Float64,
                   "n": pl.Float64, "ddof": pl.Int64})

    def __repr__(self) -> str:
        return (f"Factors({len(set(self.topics))} topics × {', '.join(self.measure_names)}; ddof={self.ddof}; "
                f"reference={'unknown' if self.reference is None else f'{len(self.reference)} systems'})")


__all__ = ["FACTOR_COLUMNS", "Factors"]
