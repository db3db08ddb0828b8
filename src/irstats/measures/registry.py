"""Measure names: parsing, canonical printing and trec_eval aliases.

A measure is a *family* (``AP``, ``nDCG``, ``RBP`` …) with parameters and an optional
cut-off: ``Family(key=value,...)@k``. The canonical form lists the family's always-shown
parameters plus every parameter that differs from its default, in the family's order, so
that ``str(parse(name))`` is stable and ``parse(str(m)) == m`` (METHODS.md §2 naming).

The formulas live in the family modules (one per family); this module only knows names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from irstats.errors import MeasureError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from irstats.judgments import Judgments


@dataclass(frozen=True)
class Param:
    """One parameter of a family: its type, default and whether the name always shows it."""

    name: str
    kind: type
    default: Any = None
    always_shown: bool = False
    choices: tuple = ()
    help: str = ""
    low: float | None = None  # the smallest allowed value (None: no bound)
    high: float | None = None  # the largest allowed value
    open_low: bool = False  # the bounds themselves excluded
    open_high: bool = False

    def check(self, value: Any) -> str | None:
        """Why ``value`` is not allowed, or None when it is (NaN never is)."""
        if self.choices and value not in self.choices:
            return f"must be one of {', '.join(map(str, self.choices))}"
        if self.kind in (int, float):
            too_low = self.low is not None and (value < self.low or (self.open_low and value == self.low))
            too_high = self.high is not None and (value > self.high or (self.open_high and value == self.high))
            if value != value or value in (float("inf"), float("-inf")) or too_low or too_high:
                return f"must be in {self.range_text()}"
        return None

    def range_text(self) -> str:
        low = "-inf" if self.low is None else _format_value(self.low)
        high = "inf" if self.high is None else _format_value(self.high)
        return f"{'(' if self.open_low or self.low is None else '['}{low}, {high}{')' if self.open_high or self.high is None else ']'}"


@dataclass(frozen=True)
class Family:
    """A measure family: its parameters, cut-off rule, summary rule and kernel.

    ``cutoff`` is ``"optional"``, ``"required"`` or ``"none"``; ``default_cutoff`` fills a
    missing cut-off (ERR defaults to @20). ``summary`` says how a system's per-topic values
    are summarised: ``"mean"`` or ``"sum"`` (the counts, as trec_eval does).
    ``trec_eval`` gives trec_eval's name for a measure, or None when trec_eval has none.
    """

    name: str
    description: str
    kernel: Callable[["Judgments", "Measure"], "np.ndarray"]
    params: tuple[Param, ...] = ()
    cutoff: str = "optional"
    default_cutoff: int | None = None
    summary: str = "mean"
    trec_eval: Callable[["Measure"], str | None] = field(default=lambda m: None)
    bounded: bool = True  # values lie in [0, 1]

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass(frozen=True)
class Measure:
    """A parsed measure: family name, all parameter values (defaults filled in), cut-off."""

    family: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | None = None

    def __getitem__(self, key: str) -> Any:
        for name, value in self.params:
            if name == key:
                return value
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    @property
    def definition(self) -> Family:
        return FAMILIES[self.family]

    @property
    def name(self) -> str:
        return str(self)

    def __str__(self) -> str:
        fam = self.definition
        shown = []
        for p in fam.params:
            value = self[p.name]
            if p.always_shown or value != p.default:
                shown.append(f"{p.name}={_format_value(value)}")
        text = fam.name + (f"({','.join(shown)})" if shown else "")
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @property
    def trec_eval_name(self) -> str | None:
        """trec_eval's name for this measure, or None when trec_eval lacks it."""
        return self.definition.trec_eval(self)


FAMILIES: dict[str, Family] = {}
_FAMILY_KEYS: dict[str, str] = {}  # lower-case name or alias -> family name


def register(family: Family, aliases: tuple[str, ...] = ()) -> Family:
    """Add a family to the registry (done once by each family module)."""
    FAMILIES[family.name] = family
    for key in (family.name, *aliases):
        _FAMILY_KEYS[key.lower()] = family.name
    return family


def _format_value(value: Any) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


_NAME = re.compile(r"^(?P<family>[A-Za-z][A-Za-z0-9_]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>\d+))?$")

# trec_eval names (as printed, ``P_10``, and as given to -m, ``P.10``), in the order tried.
_TREC_EVAL_ALIASES: list[tuple[re.Pattern, Callable[[re.Match], str]]] = [
    (re.compile(r"^map$"), lambda m: "AP"),
    (re.compile(r"^map_cut[._](\d+)$"), lambda m: f"AP@{m[1]}"),
    (re.compile(r"^P[._](\d+)$"), lambda m: f"P@{m[1]}"),
    (re.compile(r"^P(\d+)$"), lambda m: f"P@{m[1]}"),  # trec_eval <= 8: P10
    (re.compile(r"^recall[._](\d+)$"), lambda m: f"R@{m[1]}"),
    (re.compile(r"^recip_rank$"), lambda m: "RR"),
    (re.compile(r"^(R-prec|Rprec)$"), lambda m: "Rprec"),
    (re.compile(r"^bpref$"), lambda m: "Bpref"),
    (re.compile(r"^ndcg$"), lambda m: "nDCG"),
    (re.compile(r"^ndcg_cut[._](\d+)$"), lambda m: f"nDCG@{m[1]}"),
    (re.compile(r"^num_ret$"), lambda m: "NumRet"),
    (re.compile(r"^num_rel$"), lambda m: "NumRel"),
    (re.compile(r"^num_rel_ret$"), lambda m: "NumRelRet"),
    (re.compile(r"^rbp(?:\.p=([0-9.]+))?$"), lambda m: f"RBP(p={m[1] or '0.9'})"),
    (re.compile(r"^rbp_resid(?:\.p=([0-9.]+))?$"), lambda m: f"RBPresid(p={m[1] or '0.9'})"),
    (re.compile(r"^success[._](\d+)$"), lambda m: f"Success@{m[1]}"),
]


def trec_eval_alias(name: str) -> str | None:
    """The canonical name for a trec_eval measure name, or None if it is not one."""
    for pattern, make in _TREC_EVAL_ALIASES:
        match = pattern.match(name)
        if match:
            return make(match)
    return None


def parse_measure(name: str | Measure) -> Measure:
    """Parse a measure name (canonical, ir_measures-style or trec_eval) into a Measure.

    >>> str(parse_measure("ndcg_cut_10"))
    'nDCG@10'
    >>> str(parse_measure("RBP"))
    'RBP(p=0.8)'
    """
    if isinstance(name, Measure):
        return name
    text = str(name).strip().replace(" ", "")
    if not text:
        raise MeasureError("empty measure name; expected e.g. 'AP', 'nDCG@10', 'RBP(p=0.8)'")
    alias = trec_eval_alias(text)
    if alias is not None:
        text = alias
    match = _NAME.match(text)
    if not match:
        raise MeasureError(f"cannot parse measure name {name!r}; expected e.g. 'AP', 'nDCG@10', 'RBP(p=0.8)'")
    key = match["family"].lower()
    if key not in _FAMILY_KEYS:
        known = ", ".join(sorted(FAMILIES))
        raise MeasureError(f"unknown measure {name!r}; known measures: {known}")
    family = FAMILIES[_FAMILY_KEYS[key]]
    values = {p.name: p.default for p in family.params}
    given: set[str] = set()
    if match["params"]:
        for item in match["params"].split(","):
            if not item:
                continue
            if "=" not in item:
                raise MeasureError(f"measure {name!r}: parameter {item!r} must be written key=value")
            key_, raw = item.split("=", 1)
            try:
                spec = family.param(key_)
            except KeyError:
                allowed = ", ".join(p.name for p in family.params) or "none"
                raise MeasureError(f"measure {name!r}: unknown parameter {key_!r} (allowed: {allowed})") from None
            if key_ in given:
                raise MeasureError(f"measure {name!r}: parameter {key_!r} is given twice")
            given.add(key_)
            values[key_] = _convert(spec, raw, name)
    cutoff = int(match["cutoff"]) if match["cutoff"] else None
    if cutoff is not None and family.cutoff == "none":
        raise MeasureError(f"measure {name!r}: {family.name} takes no cut-off")
    if cutoff is None:
        cutoff = family.default_cutoff
    if cutoff is None and family.cutoff == "required":
        raise MeasureError(f"measure {name!r}: {family.name} needs a cut-off, e.g. {family.name}@10")
    if cutoff is not None and cutoff < 1:
        raise MeasureError(f"measure {name!r}: the cut-off must be at least 1")
    return Measure(family.name, tuple(values.items()), cutoff)


def _convert(spec: Param, raw: str, name: str) -> Any:
    try:
        if spec.kind is float:
            value: Any = float(raw)
        elif spec.kind is int:
            value = int(raw)
        else:
            value = raw
    except ValueError:
        raise MeasureError(f"measure {name!r}: {spec.name}={raw!r} is not a valid {spec.kind.__name__}") from None
    problem = spec.check(value)
    if problem:
        raise MeasureError(f"measure {name!r}: {spec.name} {problem}; got {raw}")
    return value


# trec_eval's list form: ``P.5,10`` means P_5 and P_10 (also recall, map_cut, ndcg_cut, success).
_TREC_EVAL_LIST = re.compile(r"^(P|recall|map_cut|ndcg_cut|success)\.(\d+(?:,\d+)+)$")

#: The measures of trec_eval's ``-m all_trec`` that irstats computes.
ALL_TREC = ("NumRet", "NumRel", "NumRelRet", "AP", "Rprec", "Bpref", "RR",
            *(f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
            *(f"R@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
            "nDCG", *(f"nDCG@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
            *(f"AP@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
            *(f"Success@{k}" for k in (1, 5, 10)), "RBP(p=0.9)", "RBPresid(p=0.9)")


def expand_measures(names) -> list[str]:
    """Expand trec_eval's list forms (``P.5,10``, ``all_trec``) and comma-free names into names."""
    out: list[str] = []
    for name in names:
        text = str(name).strip()
        match = _TREC_EVAL_LIST.match(text)
        if match:
            out.extend(f"{match[1]}.{k}" for k in match[2].split(","))
        elif text == "all_trec":
            out.extend(ALL_TREC)
        elif text:
            out.append(text)
        else:
            raise MeasureError("empty measure name; expected e.g. 'AP', 'nDCG@10', 'RBP(p=0.8)'")
    return out


def canonical_name(name: str | Measure) -> str:
    """The canonical printed form of any accepted measure name."""
    return str(parse_measure(name))
