"""Measures: the registry of names and one module of kernels per family.

Importing this package registers every family.
"""

from irstats.measures import ap, binary, bpref, dcg, err, qmeasure, rbp  # noqa: F401  (registration)
from irstats.measures.registry import FAMILIES, Family, Measure, Param, canonical_name, parse_measure

__all__ = ["FAMILIES", "Family", "Measure", "Param", "canonical_name", "parse_measure"]
