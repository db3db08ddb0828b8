"""Measures: the registry of names and one module per family, each declaring its families.

Importing this package imports every module of it, which registers every family: adding a
family is adding one file here (docs/design.md, "Measures").
"""

import importlib
import pkgutil

from irstats.measures.params import Param
from irstats.measures.registry import (
    FAMILIES,
    Family,
    Measure,
    Role,
    canonical_name,
    family_for,
    measure_for,
    parse_measure,
)

_NOT_FAMILIES = {"registry", "common"}
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module not in _NOT_FAMILIES:
        importlib.import_module(f"{__name__}.{_module}")

__all__ = ["FAMILIES", "Family", "Measure", "Param", "Role", "canonical_name", "family_for", "measure_for",
           "parse_measure"]
