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
from typing import TYPE_CHECKING, Any, Callable, Hashable

from irstats.errors import MAX_WHOLE, MeasureError

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
    pattern: str | None = None  # a str value must match this (full match) when it is not one of the choices
    help: str = ""
    low: float | None = None  # the smallest allowed value (None: no bound)
    high: float | None = None  # the largest allowed value
    open_low: bool = False  # the bounds themselves excluded
    open_high: bool = False

    def check(self, value: Any) -> str | None:
        """Why ``value`` is not allowed, or None when it is (NaN never is)."""
        if self.pattern is not None and self.kind is str:
            if value in self.choices or re.fullmatch(self.pattern, value):
                return None
            return f"must be one of {', '.join(map(str, self.choices))}, or {self.help}"
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


#: Per-rank contributions of a measure: ``terms(judgments, measure, width)`` → (S, T, width).
Terms = Callable[["Judgments", "Measure", int], "np.ndarray"]
#: What the accumulated terms are divided by at each depth: ``(judgments, measure, depths)`` →
#: an array broadcasting against (S, T, D); ``depths`` None means the whole list (no cut-off).
Normaliser = Callable[["Judgments", "Measure", "np.ndarray | None"], "np.ndarray"]


def _no_objection(measure: "Measure") -> str | None:
    return None


@dataclass(frozen=True)
class RNormalisation:
    """How a raw measure relates to its R-normalised partner (METHODS.md §4.7).

    The partner is the raw score divided by the score of an ideal ranking: SP → AP (÷ R),
    DCG → nDCG (÷ IDCG), P@k → nP@k (÷ min(R, k)/k), binary RBP → nRBP (÷ 1 − p^min(R, m)).
    ``partner`` is the partner's family (AP, nDCG) or, when no family computes it, the prefix
    of its name (nP, nRBP). ``ideal(raw, R, depth)`` gives the ideal score from R per topic
    and the evaluation depth; None means it needs the ideal ranking's own score (IDCG).
    ``objection(raw)`` says why a measure of the family has no partner (graded RBP).
    """

    partner: str
    ideal: Callable[["Measure", "np.ndarray", "int | None"], "np.ndarray"] | None = None
    objection: Callable[["Measure"], str | None] = _no_objection

    @property
    def partner_is_family(self) -> bool:
        return self.partner in FAMILIES

    def partner_name(self, raw: "Measure") -> str:
        """The R-normalised form's name: ``AP@10`` for ``SP@10``, ``nP@10`` for ``P@10``."""
        if self.partner_is_family:
            return str(Measure(self.partner, raw.params, raw.cutoff))
        return self.partner + str(raw)[len(raw.family):]


@dataclass(frozen=True)
class Family:
    """A measure family, declared once: parameters, cut-off rule, and how it is computed.

    Most families are a sum over ranks: ``terms`` gives each rank's contribution, the value at
    depth k is their sum over ranks 1..min(k, n), divided by ``normaliser`` at k (nothing when
    None) and passed through ``finish`` (RBP's residual adds the tail past the list). From that
    one declaration the engine evaluates ``Family@k`` and the depth sweep reads every k off one
    cumulative sum (:meth:`values`). ``shares_terms`` names terms that several families
    accumulate alike (AP, AP_min and SP share the sum of precisions), so they are summed once.
    A family that is not a sum over ranks (R-precision, bpref, the counts) gives ``kernel``
    instead and cannot be swept.

    ``cutoff`` is ``"optional"``, ``"required"`` or ``"none"``; ``default_cutoff`` fills a
    missing cut-off (ERR defaults to @20); ``cutoff_kind`` is ``"rank"`` (a depth k ≥ 1) or
    ``"recall"`` (a recall level in [0, 1], as ``IPrec@0.5``; such a family gives a kernel). ``summary`` says how a system's per-topic values
    are summarised: ``"mean"`` or ``"sum"`` (the counts, as trec_eval does).
    ``trec_eval`` gives trec_eval's name for a measure, or None when trec_eval has none.
    ``r_normalisation`` relates a raw family to its R-normalised partner; ``residual`` names
    the family that bounds what unjudged documents could add (RBP → RBPresid).

    ``ties`` says how the family's expected value over every ordering of tied documents is
    computed (``ties="expected"``, docs/ties.md); each is exact:

    - ``"pointwise"``: each rank's term depends only on that rank and the grade there, so its
      expectation mixes the terms of the grades of the rank's tie group (P, R, DCG, RBP …);
    - ``"closed"``: ``expected_terms`` gives each rank's expected term (AP's and RR's closed
      forms, McSherry & Najork 2008) or ``expected_kernel`` the expected value;
    - ``"order_free"``: the value depends on the retrieved set only (the set measures, counts);
    - ``"enumerate"`` (the default): every distinct arrangement of the tied grades is evaluated
      and averaged, refused with an error past :data:`irstats.measures.ties.ENUMERATION_LIMIT`.

    A callable ``ties(judgments, measure)`` chooses among them per measure.
    """

    name: str
    description: str
    params: tuple[Param, ...] = ()
    terms: Terms | None = None
    normaliser: Normaliser | None = None
    finish: Callable[["Judgments", "Measure", "np.ndarray", "np.ndarray | None"], "np.ndarray"] | None = None
    shares_terms: Callable[["Judgments", "Measure"], Hashable] | None = None
    kernel: Callable[["Judgments", "Measure"], "np.ndarray"] | None = None
    cutoff: str = "optional"
    default_cutoff: int | None = None
    cutoff_kind: str = "rank"  # "rank": a whole number k >= 1; "recall": a recall level in [0, 1]
    summary: str = "mean"
    trec_eval: Callable[["Measure"], str | None] = field(default=lambda m: None)
    bounded: bool = True  # values lie in [0, 1]
    r_normalisation: RNormalisation | None = None
    residual: str | None = None
    ties: str | Callable[["Judgments", "Measure"], str] = "enumerate"
    expected_terms: Terms | None = None
    expected_kernel: Callable[["Judgments", "Measure"], "np.ndarray"] | None = None

    def tie_method(self, judgments: "Judgments", measure: "Measure") -> str:
        """How this measure's expectation over tied orderings is computed (see ``ties``)."""
        return self.ties(judgments, measure) if callable(self.ties) else self.ties

    def __post_init__(self) -> None:
        if (self.terms is None) == (self.kernel is None):
            raise ValueError(f"family {self.name}: declare either terms (a sum over ranks) or a kernel")

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def sweepable(self) -> bool:
        """Whether every depth's value can be read off one cumulative sum (a depth sweep)."""
        return self.terms is not None and self.cutoff != "none"

    def evaluate(self, judgments: "Judgments", measure: "Measure") -> "np.ndarray":
        """Per system and topic, the measure at its cut-off: (S, T)."""
        if judgments.tied:
            from irstats.measures.ties import expected_value

            return expected_value(self, judgments, measure)
        return self.evaluate_ordering(judgments, measure)

    def evaluate_ordering(self, judgments: "Judgments", measure: "Measure") -> "np.ndarray":
        """The measure of the one ordering the tensor holds, ties ignored: (S, T)."""
        if self.kernel is not None:
            return self.kernel(judgments, measure)
        depths = None if measure.cutoff is None else _depth_array(measure.cutoff)
        return self.values(judgments, measure, depths)[:, :, 0]

    def values(self, judgments: "Judgments", measure: "Measure", depths: "np.ndarray | None" = None,
               normaliser: Normaliser | None = None) -> "np.ndarray":
        """The measure at every depth k of ``depths`` (None: the whole list): (S, T, D).

        ``normaliser`` replaces the family's (the depth sweep's AP_pool divides the sum of
        precisions by the pool's R_k).
        """
        from irstats.measures.common import accumulate

        if self.terms is None:
            raise MeasureError(f"{self.name} is not a sum over ranks and cannot be evaluated at several depths")
        key = self.shares_terms(judgments, measure) if self.shares_terms else (self.name, measure.params)
        terms = self.terms
        if judgments.tied:
            from irstats.measures.ties import enumerated, expected_terms

            terms = expected_terms(self, judgments, measure)
            if terms is None:  # no per-rank form: average every arrangement of the tied grades
                return enumerated(judgments, measure, lambda j: self.values(j, measure, depths, normaliser),
                                  None if depths is None else int(max(depths)))
            # Expected terms are summed under their own key: a kernel may have summed the
            # ordering's own terms under the shared one.
            key = ("expected over ties", key)
        out = accumulate(judgments, key, lambda width: terms(judgments, measure, width), depths)
        normaliser = normaliser or self.normaliser
        if normaliser is not None:
            from irstats.measures.common import safe_divide

            out = safe_divide(out, normaliser(judgments, measure, depths))
        if self.finish is not None:
            out = self.finish(judgments, measure, out, depths)
        return out


def _depth_array(k: int) -> "np.ndarray":
    import numpy as np

    return np.array([k], dtype=np.int64)


@dataclass(frozen=True)
class Measure:
    """A parsed measure: family name, all parameter values (defaults filled in), cut-off."""

    family: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | float | None = None

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
            text += f"@{_format_value(self.cutoff)}"
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @property
    def trec_eval_name(self) -> str | None:
        """trec_eval's name for this measure, or None when trec_eval lacks it."""
        return self.definition.trec_eval(self)

    def at(self, cutoff: int | None) -> "Measure":
        """The same measure with another cut-off (None: none).

        >>> str(parse_measure("nDCG@10").at(20)), str(parse_measure("AP@5").at(None))
        ('nDCG@20', 'AP')
        """
        return Measure(self.family, self.params, cutoff)

    @property
    def residual(self) -> "Measure | None":
        """The measure bounding what unjudged documents could add, e.g. ``RBPresid(p=0.8)``
        for ``RBP(p=0.8)``; None when the family declares none.

        >>> str(parse_measure("RBP(p=0.9)@10").residual)
        'RBPresid(p=0.9)@10'
        """
        family = self.definition.residual
        if family is None:
            return None
        shared = tuple((name, value) for name, value in self.params
                       if any(p.name == name for p in FAMILIES[family].params))
        return Measure(family, shared, self.cutoff)


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


_NAME = re.compile(r"^(?P<family>[A-Za-z][A-Za-z0-9_]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[0-9.]+))?$")

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
    (re.compile(r"^rbp(?:\.p=([0-9.]+))?$"), lambda m: f"RBP(p={m[1] or '0.9'},scale=topic)"),
    (re.compile(r"^rbp_resid(?:\.p=([0-9.]+))?$"), lambda m: f"RBPresid(p={m[1] or '0.9'})"),
    (re.compile(r"^success[._](\d+)$"), lambda m: f"Success@{m[1]}"),
    (re.compile(r"^iprec_at_recall[._]([0-9.]+)$"), lambda m: f"IPrec@{float(m[1]):g}"),
    (re.compile(r"^11pt_avg$"), lambda m: "IPrecAvg"),
    (re.compile(r"^binG$"), lambda m: "binG"),
    (re.compile(r"^G$"), lambda m: "G"),
    (re.compile(r"^infAP$"), lambda m: "infAP"),
    (re.compile(r"^utility$"), lambda m: "Utility"),
    (re.compile(r"^ndcg_rel$"), lambda m: "nDCG_rel"),
    (re.compile(r"^Rndcg$"), lambda m: "RnDCG"),
    (re.compile(r"^set_P$"), lambda m: "SetP"),
    (re.compile(r"^set_recall$"), lambda m: "SetR"),
    (re.compile(r"^set_relative_P$"), lambda m: "SetRelP"),
    (re.compile(r"^set_map$"), lambda m: "SetAP"),
    (re.compile(r"^set_F(?:[._]([0-9.]+))?$"), lambda m: f"SetF(beta={float(m[1] or 1):g})"),
    (re.compile(r"^num_q$"), lambda m: "NumQ"),
    (re.compile(r"^num_nonrel_judged_ret$"), lambda m: "NumNonrelJudgedRet"),
    (re.compile(r"^relative_P[._](\d+)$"), lambda m: f"RelP@{m[1]}"),
    (re.compile(r"^unj[._](\d+)$"), lambda m: f"Unj@{m[1]}"),
    (re.compile(r"^Rprec_mult[._]([0-9.]+)$"), lambda m: f"Rprec(mult={float(m[1]):g})"),
]


def trec_eval_alias(name: str) -> str | None:
    """The canonical name for a trec_eval measure name, or None if it is not one."""
    for pattern, make in _TREC_EVAL_ALIASES:
        match = pattern.match(name)
        if match:
            return make(match)
    return None


def parse_measure(name: str | Measure, *, family_only: bool = False) -> Measure:
    """Parse a measure name (canonical, ir_measures-style or trec_eval) into a Measure.

    ``family_only``: the name must not carry a cut-off (a depth sweep supplies k itself); the
    result has none, even for a family that needs one to be evaluated (AP_min, P).

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
    cutoff = _cutoff(match["cutoff"], family, name) if match["cutoff"] else None
    if family_only:
        if cutoff is not None:
            raise MeasureError(f"measure {name!r}: the depth k is supplied separately; give "
                               f"{text.split('@', 1)[0]!r} without '@k' (no cut-off)")
        return Measure(family.name, tuple(values.items()), None)
    if cutoff is not None and family.cutoff == "none":
        raise MeasureError(f"measure {name!r}: {family.name} takes no cut-off")
    if cutoff is None:
        cutoff = family.default_cutoff
    if cutoff is None and family.cutoff == "required":
        raise MeasureError(f"measure {name!r}: {family.name} needs a cut-off, e.g. {family.name}@10")
    if cutoff is not None and family.cutoff_kind == "rank" and cutoff < 1:
        raise MeasureError(f"measure {name!r}: the cut-off must be at least 1")
    return Measure(family.name, tuple(values.items()), cutoff)


def _cutoff(text: str, family: Family, name) -> int | float:
    """The cut-off after ``@``: a whole-number depth, or a recall level in [0, 1]."""
    if family.cutoff_kind == "recall":
        try:
            level = float(text)
        except ValueError:
            level = float("nan")
        if not 0.0 <= level <= 1.0:
            raise MeasureError(f"measure {name!r}: {family.name}'s cut-off is a recall level in [0, 1]")
        return level
    if not text.isdigit():
        raise MeasureError(f"measure {name!r}: the cut-off must be a whole number of documents")
    if int(text) > MAX_WHOLE:  # (depths are 64-bit integers, as trec_eval's longs)
        raise MeasureError(f"measure {name!r}: the cut-off must be at most {MAX_WHOLE} documents")
    return int(text)


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
_TREC_EVAL_LIST = re.compile(r"^(P|recall|map_cut|ndcg_cut|success|relative_P|unj)\.(\d+(?:,\d+)+)$")

#: The measures of trec_eval's ``-m all_trec`` that irstats computes.
_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
ALL_TREC = ("NumQ", "NumRet", "NumRel", "NumRelRet", "AP", "Rprec", "Bpref", "RR",
            *(f"IPrec@{k / 10:g}" for k in range(11)), *(f"P@{k}" for k in _CUTS), *(f"R@{k}" for k in _CUTS),
            *(f"Rprec(mult={m / 10:g})" for m in range(2, 21, 2) if m != 10),  # mult=1 is Rprec
            "binG", "G", "infAP", "Utility(a=1,b=-1,c=0,d=0)", "nDCG", "nDCG_rel", "RnDCG", *(f"nDCG@{k}" for k in _CUTS), *(f"AP@{k}" for k in _CUTS),
            *(f"RelP@{k}" for k in _CUTS), *(f"Success@{k}" for k in (1, 5, 10)),
            "SetP", "SetRelP", "SetR", "SetAP", "SetF(beta=1)", "NumNonrelJudgedRet",
            "IPrecAvg", "RBP(p=0.9,scale=topic)", "RBPresid(p=0.9)", *(f"Unj@{k}" for k in (5, 10, 20)))


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


def r_normalisation(name: str | Measure) -> tuple[Measure, RNormalisation, bool]:
    """A measure's R-normalisation (METHODS.md §4.7): (its raw form, the rule, whether ``name``
    is the R-normalised form).

    >>> raw, rule, normalised = r_normalisation("AP@10")
    >>> str(raw), rule.partner_name(raw), normalised
    ('SP@10', 'AP@10', True)
    >>> raw, rule, normalised = r_normalisation("nP@10")
    >>> str(raw), rule.partner_name(raw), normalised
    ('P@10', 'nP@10', True)
    """
    text = str(name).strip().replace(" ", "")
    for family in FAMILIES.values():  # a partner no family computes: its name is a prefix
        rule = family.r_normalisation
        if rule is not None and not rule.partner_is_family and text.startswith(rule.partner):
            try:
                raw = parse_measure(family.name + text[len(rule.partner):])
            except MeasureError:
                continue
            if raw.family == family.name:
                return _checked(raw, rule), rule, True
    try:
        measure = parse_measure(name)
    except MeasureError:
        raise MeasureError(f"cannot R-normalise {name!r}: not a measure irstats knows") from None
    rule = measure.definition.r_normalisation
    if rule is not None:
        return _checked(measure, rule), rule, False
    for family in FAMILIES.values():
        rule = family.r_normalisation
        if rule is not None and rule.partner == measure.family:
            return _checked(Measure(family.name, measure.params, measure.cutoff), rule), rule, True
    with_rule = ", ".join(f"{f.name}/{f.r_normalisation.partner}" for f in FAMILIES.values() if f.r_normalisation)
    raise MeasureError(f"no R-normalisation is defined for {name!r} (METHODS.md §4.7: {with_rule})")


def _checked(raw: Measure, rule: RNormalisation) -> Measure:
    objection = rule.objection(raw)
    if objection:
        raise MeasureError(objection)
    return raw


def canonical_name(name: str | Measure) -> str:
    """The canonical printed form of any accepted measure name."""
    return str(parse_measure(name))
