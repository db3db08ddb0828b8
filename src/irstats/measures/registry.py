"""Measure names: parsing, canonical printing, and every other name a measure has.

A measure is a *family* (``AP``, ``nDCG``, ``RBP`` …) with parameters and an optional
cut-off: ``Family(key=value,...)@k``. The canonical form lists the family's always-shown
parameters plus every parameter that differs from its default, in the family's order, so
that ``str(parse(name))`` is stable and ``parse(str(m)) == m`` (METHODS.md §2 naming).

A family also declares its other names: trec_eval's (:class:`TrecEvalName`, one per entry of
trec_eval's measure table it computes) and ir_measures' (:class:`IrMeasuresName`). Everything
else is derived from those declarations: the trec_eval aliases :func:`parse_measure` takes
(``map``, ``P_10``, ``ndcg_cut.10``), ``Measure.trec_eval_name``, :func:`all_trec`, the list
forms of :func:`expand_measures`, the drop-in's table and nicknames
(:mod:`irstats.trec_eval.table`) and the ir_measures provider's routing
(:mod:`irstats.integrations.ir_measures`).

The formulas live in the family modules (one per family); this module only knows names.
"""

from __future__ import annotations

import enum
import re
import string
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Container, Hashable, Iterable, Mapping, Sequence, cast

from irstats.errors import MAX_WHOLE, MeasureError
from irstats.measures.params import Param, _format_value
from irstats.measures.trec_eval_forms import FORMS

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from irstats.judgments import Judgments


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


#: The trec_eval output kind (irstats.trec_eval.kinds.KINDS) of a family's values, by how the
#: family summarises them over topics (``Family.over_topics``): a mean prints as ``%6.4f``, a
#: count, summed, as ``%ld``.
SUMMARY_KINDS = {"mean": "float", "sum": "long"}

#: trec_eval's standard cut-offs (measures.c: P, recall, ndcg_cut, map_cut, relative_P).
TREC_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: trec_eval's nicknames a measure belongs to (``-m official``, ``-m all_trec``).
OFFICIAL = ("official", "all_trec")
IN_ALL_TREC = ("all_trec",)
#: runid and num_q: in every nickname.
EVERY_NICKNAME = ("official", "all_trec", "set", "qrels_jg", "all_prefs", "prefs")


@dataclass(frozen=True)
class TrecEvalName:
    """One measure of trec_eval's table (measures.c ``te_trec_measures[]``), declared by the
    family that computes it — or, for what only the drop-in prints (runid, relstring, the
    geometric means, the preference and judgment-group measures), in
    :mod:`irstats.trec_eval.table`.

    - ``name``: trec_eval's name, as ``-m`` takes it (``map``, ``P``, ``iprec_at_recall``);
    - ``measure``: the irstats measure behind each printed value, a template the parameter
      fills (``"AP"``, ``"P@{}"``, ``"IPrec@{:g}"``, ``"Rprec(mult={:g})"``); None: no
      irstats measure (runid, relstring);
    - ``order``: its place in trec_eval's table, which is the order trec_eval prints in;
    - ``form``: how parameters are read and printed, a name of
      :data:`irstats.measures.trec_eval_forms.FORMS`: ``none``, ``longs`` (cut-offs),
      ``floats`` (recall levels, R multiples), ``float`` (set_F's β), ``floats_one``
      (utility's four weights), ``levels_one`` (11pt_avg's levels), ``gain_map``
      (``level=gain`` pairs), ``p_pairs`` (rbp_resid's ``p=…``), ``p_pairs_without_gains``
      (rbp's, a gain map refused), ``double_first`` (relstring's length: the first number,
      printed as given);
    - ``defaults``: the parameters when ``-m`` gives none; ``plain``: the irstats measure
      then, when the defaults are empty (``nDCG`` for ``ndcg``);
    - ``kind``: how the drop-in prints it, a name of :data:`irstats.trec_eval.kinds.KINDS`:
      ``float`` (``%6.4f``), ``long`` (``%ld``, summed over topics), the summary-only
      ``num_q``, ``runid``, ``gm`` (geometric mean) or the per-topic ``string``. A family's
      entry that names none prints as the family summarises its values (:data:`SUMMARY_KINDS`:
      a count, summed, as ``long``), filled in when the family is declared;
    - ``nicknames``: the ``-m`` nicknames that include it (``official``, ``all_trec``, ``set``);
    - ``spellings``: older names written directly before the parameter (trec_eval 8's
      ``P10``: ``"P"``; ``R-prec``);
    - ``reads``: the judgments trec_eval's measure reads: ``qrels`` (form_res_rels), ``jg``
      (the judgment groups of ``-R qrels_jg``: form_res_rels_jg) or ``prefs``
      (form_prefs_counts);
    - ``made_up``: with ``-c``, trec_eval ranks one made-up unjudged document for a topic the
      run lacks, then sets a few values back to 0 *by their plain printed names*
      (trec_eval.c: num_ret, utility, relstring, unj…, rbp_resid); asked for with parameters
      (``utility.2,-1,0,0``, ``rbp_resid.p=0.5``) they keep the made-up document's value,
      which this gives: ``made_up(value, R, N)`` from the parameter value, the topic's relevant
      documents and -N. None: the value is the engine's (an empty list's);
    - ``graded_lines_with_c``: with ``-c``, the summary is the number of qrels lines graded
      above 0 over every topic, whatever ``-l`` is (m_num_rel.c's accumulation).
    """

    name: str
    measure: str | None
    order: int
    form: str = "none"
    defaults: tuple[Any, ...] = ()
    plain: str | None = None
    kind: str | None = None
    nicknames: tuple[str, ...] = IN_ALL_TREC
    spellings: tuple[str, ...] = ()
    reads: str = "qrels"
    made_up: Callable[[Any, int, int], Any] | None = None
    graded_lines_with_c: bool = False

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ValueError(f"trec_eval measure {self.name}: unknown form {self.form!r}")

    @property
    def listed(self) -> bool:
        """Whether ``-m name.a,b`` gives one printed value per parameter (``P.5,10``)."""
        return FORMS[self.form].listed

    def read_params(self, text: str) -> Any:
        """The parameters of ``-m name.text``, as trec_eval reads them (meas_init.c): None (the
        defaults), a listed form's values or ``(text, value)``; trec_eval's own error
        (:class:`~irstats.measures.trec_eval_forms.ParameterError`) where it refuses them."""
        return FORMS[self.form].read(self, text)

    def printed(self, param: object) -> str:
        """The printed name of one parameter: a value of a listed form, else its text as given."""
        form = FORMS[self.form]
        if not form.takes_params:
            return self.name
        if form.listed:
            return f"{self.name}_{form.text(param)}"
        return f"{self.name}_{param}"

    def irstats_measure(self, value: Any = None) -> str | None:
        """The irstats measure of one value (None: the defaults of a form printed once)."""
        if self.measure is None:
            return None
        form = FORMS[self.form]
        if value is None and not form.listed:
            value = self.defaults
        if form.takes_params and not form.listed and not value:
            return self.plain
        return self.measure.format(*form.args(value))

    def values(self, params: Sequence[Any] | None = None) -> list[tuple[str, str | None]]:
        """``(printed name, irstats measure)`` of every printed value, in print order.
        ``params``: None (the defaults), a listed form's values, or ``(text, value)``."""
        if not FORMS[self.form].takes_params:
            return [(self.name, self.irstats_measure())]
        if not self.listed:
            if params is None:
                return [(self.name, self.irstats_measure())]
            text, value = params
            return [(self.printed(text), self.irstats_measure(value))]
        return [(self.printed(p), self.irstats_measure(p)) for p in (self.defaults if params is None else params)]

    def alias_pattern(self) -> str:
        """The trec_eval names of this measure that :func:`parse_measure` takes, as a regex: the
        name (``map``), a listed form's name and value (``P_10``, ``P.10``, ``P10``), a form
        printed once with or without its value (``set_F``, ``set_F.0.5``, ``rbp.p=0.8``)."""
        form = FORMS[self.form]
        if not form.takes_params:
            return "(?:" + "|".join(map(re.escape, (self.name, *self.spellings))) + ")"
        if form.listed:
            prefixes = "|".join([re.escape(self.name) + "[._]", *map(re.escape, self.spellings)])
            return f"(?:{prefixes})(?P<param>{form.alias})"
        return re.escape(self.name) + (f"(?:[._](?P<param>{form.alias}))?" if form.alias else "")

    def alias(self, param_text: str | None) -> str | None:
        """The irstats measure of a trec_eval name matched by :meth:`alias_pattern`."""
        if param_text is None:
            return self.irstats_measure()
        try:
            return self.irstats_measure(FORMS[self.form].alias_value(param_text))
        except (ValueError, IndexError):  # not numbers, or not as many as the template takes
            return None

    def name_of(self, canonical: str) -> str | None:
        """trec_eval's printed name for a canonical irstats measure this entry computes, or None."""
        if self.measure is None:
            return None
        form = FORMS[self.form]
        if not form.listed and _canonical_or_none(self.irstats_measure()) == canonical:
            return self.name
        if not form.takes_params:
            return None
        match = _template_regex(self.measure).fullmatch(canonical)
        if match is None:
            return None
        try:
            value = form.value(match.groups())
        except ValueError:
            return None
        if _canonical_or_none(self.irstats_measure(value)) != canonical:
            return None
        return self.printed(value if form.listed else form.text(value))


def _template_regex(template: str) -> re.Pattern[str]:
    parts = []
    for literal, field_name, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field_name is not None:
            parts.append("(.+?)")
    return re.compile("".join(parts))


def _canonical_or_none(name: str | None) -> str | None:
    if name is None:
        return None
    try:
        return str(parse_measure(name))
    except MeasureError:
        return None


@dataclass(frozen=True)
class IrMeasuresName:
    """ir_measures' name for a family's measures, so that irstats' ir_measures provider routes
    them to the family (:mod:`irstats.integrations.ir_measures`).

    An ir_measures parameter goes to the family's parameter of the same name; the measure's
    cut-off (``cutoff``, IPrec's ``recall``: ir_measures' ``AT_PARAM``) to ``@k``;
    ``judged_only`` is an evaluation option (trec_eval's -J). A measure with any other
    parameter is declined, and ir_measures' pipeline hands it to another provider.

    - ``only``: ir_measures parameters and the value this family computes them at (a value,
      or a test of the value), compared with the value given or ir_measures' default:
      ``{"dcg": "log2"}`` for nDCG, ``{"relative": True}`` for SetRelP;
    - ``requires``: parameters that must be given (``NumRet(rel=…)`` is NumRelRet).
    """

    name: str
    # given as a mapping or as pairs; kept as pairs (``__post_init__``)
    only: tuple[tuple[str, Any], ...] | Mapping[str, Any] = ()
    requires: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.only, dict):
            object.__setattr__(self, "only", tuple(self.only.items()))

    def accepts(self, given: Mapping[str, Any], value_of: Callable[[str], Any]) -> bool:
        """Whether a measure with parameters ``given`` (without its cut-off and judged_only) is
        this family's; ``value_of(name)``: a parameter's value, given or by default."""
        if any(name not in given for name in self.requires):
            return False
        for name, wanted in cast("tuple[tuple[str, Any], ...]", self.only):  # pairs since __post_init__
            value = value_of(name)
            if not (wanted(value) if callable(wanted) else value == wanted):
                return False
        return True


class Role(enum.Enum):
    """What a family stands for where irstats needs a measure without being told its name: a
    family declares the roles it plays (``Family.roles``) and the report, the plots, the depth
    sweep and the commands ask for the role (:func:`measure_for`), never for a family by name.
    Each role is played by exactly one family."""

    DEFAULT = "the measure of an experiment when none is named"
    R_PER_TOPIC = "the relevant documents of each topic, R"
    RETRIEVED = "the documents a run retrieved for each topic"
    JUDGED_SHARE = "the judged share of a run's top k"
    POOL_VARIANT = "the family a depth sweep also divides by the pool's R_k (its _pool variant)"


class RankCutoff:
    """A cut-off that is a depth: a whole number k ≥ 1 of documents (``AP@10``)."""

    def read(self, text: str, family: "Family", name: object) -> int | float:
        """The cut-off written after ``@``."""
        if not text.isdigit():
            raise MeasureError(f"measure {name!r}: the cut-off must be a whole number of documents")
        if int(text) > MAX_WHOLE:  # (depths are 64-bit integers, as trec_eval's longs)
            raise MeasureError(f"measure {name!r}: the cut-off must be at most {MAX_WHOLE} documents")
        return int(text)

    def check(self, cutoff: int | float, name: object) -> None:
        """Refuse a cut-off, given or the family's default, that cannot be one."""
        if cutoff < 1:
            raise MeasureError(f"measure {name!r}: the cut-off must be at least 1")


class RecallCutoff(RankCutoff):
    """A cut-off that is a recall level in [0, 1] (``IPrec@0.5``)."""

    def read(self, text: str, family: "Family", name: object) -> int | float:
        try:
            level = float(text)
        except ValueError:
            level = float("nan")
        if not 0.0 <= level <= 1.0:
            raise MeasureError(f"measure {name!r}: {family.name}'s cut-off is a recall level in [0, 1]")
        return level

    def check(self, cutoff: int | float, name: object) -> None:
        return None  # (read checked a level given; a default one is the family's own)


#: How a family's cut-off is read, by ``Family.cutoff_kind``.
CUTOFF_KINDS: dict[str, RankCutoff] = {"rank": RankCutoff(), "recall": RecallCutoff()}


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
    ``"recall"`` (a recall level in [0, 1], as ``IPrec@0.5``; such a family gives a kernel).
    ``over_topics`` says how a system's per-topic values are summarised: ``"mean"`` or ``"sum"``
    (the counts, as trec_eval does). ``trec_eval``: the entries of trec_eval's measure table
    the family computes (:class:`TrecEvalName`: name, parameters, printing, place in
    trec_eval's order); ``ir_measures``: the ir_measures measure it computes
    (:class:`IrMeasuresName`). The trec_eval aliases, ``all_trec``, the drop-in's table and the
    ir_measures provider's routing are derived from them. ``r_normalisation`` relates a raw
    family to its R-normalised partner; ``residual`` names the family that bounds what
    unjudged documents could add (RBP → RBPresid).

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

    ``roles``: the :class:`Role` s the family plays (AP is the default measure, NumRel gives R
    per topic …), read through :func:`family_for`.

    ``needs`` names judgments beyond the qrels that the family reads from the tensor (one of
    :data:`NEEDS`): ``"subtopics"`` (subtopic qrels, ``Judgments.subtopics``: the diversity
    measures of measures/diversity.py) or ``"preferences"`` (preference judgments,
    ``Judgments.preferences``: trec_eval's prefs_* measures, measures/preferences.py). The
    engine refuses such a measure, before reading any run, when the evaluation was not given
    them (:func:`check_needs`).
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
    over_topics: str = "mean"
    trec_eval: tuple[TrecEvalName, ...] = ()
    ir_measures: IrMeasuresName | None = None
    bounded: bool = True  # values lie in [0, 1]
    r_normalisation: RNormalisation | None = None
    residual: str | None = None
    ties: str | Callable[["Judgments", "Measure"], str] = "enumerate"
    expected_terms: Terms | None = None
    expected_kernel: Callable[["Judgments", "Measure"], "np.ndarray"] | None = None
    needs: str | None = None  # a key of NEEDS: judgments beyond the qrels (see above)
    roles: frozenset[Role] = frozenset()

    def tie_method(self, judgments: "Judgments", measure: "Measure") -> str:
        """How this measure's expectation over tied orderings is computed (see ``ties``)."""
        return self.ties(judgments, measure) if callable(self.ties) else self.ties

    def __post_init__(self) -> None:
        if (self.terms is None) == (self.kernel is None):
            raise ValueError(f"family {self.name}: declare either terms (a sum over ranks) or a kernel")
        if self.needs is not None and self.needs not in NEEDS:
            raise ValueError(f"family {self.name}: needs {self.needs!r}, not one of {', '.join(NEEDS)}")
        if self.cutoff_kind not in CUTOFF_KINDS:
            raise ValueError(f"family {self.name}: cutoff_kind {self.cutoff_kind!r}, not one of {', '.join(CUTOFF_KINDS)}")
        if self.over_topics not in SUMMARY_KINDS:
            raise ValueError(f"family {self.name}: over_topics {self.over_topics!r}, not one of {', '.join(SUMMARY_KINDS)}")
        # trec_eval prints the family's values as it summarises them, unless an entry says otherwise
        printed = SUMMARY_KINDS[self.over_topics]
        object.__setattr__(self, "trec_eval", tuple(entry if entry.kind else replace(entry, kind=printed)
                                                    for entry in self.trec_eval))

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

            expected = expected_terms(self, judgments, measure)
            if expected is None:  # no per-rank form: average every arrangement of the tied grades
                return enumerated(judgments, measure, lambda j: self.values(j, measure, depths, normaliser),
                                  None if depths is None else int(max(depths)))
            terms = expected
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


def _depth_array(k: int | float) -> "np.ndarray":
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
        """The name trec_eval prints this measure under (``P_10``, ``rbp_p=0.8``), or None when
        trec_eval lacks it: from the family's :class:`TrecEvalName` declarations.

        >>> parse_measure("ndcg_cut.10").trec_eval_name, parse_measure("nDCG(gain=exp)").trec_eval_name
        ('ndcg_cut_10', None)
        """
        canonical = str(self)
        for entry in self.definition.trec_eval:
            name = entry.name_of(canonical)
            if name is not None:
                return name
        return None

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
_REGISTRATIONS = [0]  # how many times register() ran: what the derived tables were built from


#: Judgments beyond the qrels that a family may need (``Family.needs``): the tensor's field that
#: carries them, and how an evaluation is given them.
NEEDS = {
    "subtopics": "subtopic qrels ('topic subtopic docno grade'): give subtopic_qrels= (irstats eval --subtopic-qrels "
                 "FILE)",
    "preferences": "preference judgments ('topic jg jsg docno level'): give preferences= (irstats eval --prefs FILE, "
                   "or --qrels-prefs for the qrels read as preferences)",
}


def check_needs(measures: Iterable[Measure], given: Container[str], client: Any = None) -> None:
    """A MeasureError for the measures whose family needs judgments that are not ``given`` (the
    :data:`NEEDS` an evaluation has); an ArgumentError (on ``client``) for those a Dask
    ``client``'s workers are not given."""
    from irstats.errors import ArgumentError

    for need, how in NEEDS.items():
        needing = [str(m) for m in measures if m.definition.needs == need]
        if needing and need not in given:
            raise MeasureError(f"{', '.join(needing)} need{'s' if len(needing) == 1 else ''} {how}")
        if needing and client is not None:
            raise ArgumentError(f"{', '.join(needing)}: measures that read {need} are not evaluated on a Dask "
                                "cluster yet; evaluate them in one process (without client=, --workers or "
                                "--scheduler)", argument="client")


def register(family: Family, aliases: tuple[str, ...] = ()) -> Family:
    """Add a family to the registry (done once by each family module)."""
    FAMILIES[family.name] = family
    for key in (family.name, *aliases):
        _FAMILY_KEYS[key.lower()] = family.name
    _REGISTRATIONS[0] += 1
    return family


def family_for(role: Role) -> Family:
    """The family that plays ``role`` (each role is declared by exactly one family)."""
    players = [family for family in FAMILIES.values() if role in family.roles]
    if len(players) != 1:
        raise LookupError(f"{role.name} is declared by {len(players)} families, not 1: "
                          f"{', '.join(f.name for f in players) or 'none'}")
    return players[0]


def measure_for(role: Role) -> str:
    """The name of the family that plays ``role`` (``measure_for(Role.DEFAULT)`` is ``"AP"``)."""
    return family_for(role).name


def trec_eval_names() -> list[TrecEvalName]:
    """Every registered family's trec_eval measures, in trec_eval's table order."""
    return sorted((entry for family in FAMILIES.values() for entry in family.trec_eval), key=lambda e: e.order)


_DERIVED: dict[str, tuple[tuple[int, int], Any]] = {}


def derived(key: str, build: Callable[[], Any]) -> Any:
    """A table derived from the registered families (``build()``), kept under ``key`` and built
    again when the registry changes."""
    version = (_REGISTRATIONS[0], len(FAMILIES))
    kept = _DERIVED.get(key)
    if kept is None or kept[0] != version:
        kept = _DERIVED[key] = (version, build())
    return kept[1]


_NAME = re.compile(r"^(?P<family>[A-Za-z][A-Za-z0-9_]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[0-9.]+))?$")


def _alias_table() -> list[tuple[tuple[str, ...], TrecEvalName]]:
    """Every family's trec_eval entry in trec_eval's table order, with the literal words its
    names begin with (its name and spellings: every name :meth:`TrecEvalName.alias_pattern`
    takes begins with one of them)."""
    return [((entry.name, *entry.spellings), entry) for entry in trec_eval_names()]


def trec_eval_alias(name: str) -> str | None:
    """The irstats measure for a trec_eval measure name (as printed, ``P_10``, or as given to
    -m, ``P.10``), or None if it is not one; derived from the families' :class:`TrecEvalName`.

    >>> trec_eval_alias("map_cut.10"), trec_eval_alias("rbp"), trec_eval_alias("gm_map")
    ('AP@10', 'RBP(p=0.9,scale=topic)', None)
    """
    # The first entry in table order whose pattern takes the whole name. Only the entries whose
    # name or spelling the name begins with can, so only their patterns are compiled: one regex
    # over all of them cost 6 ms at every start of the trec_eval drop-in.
    table: list[tuple[tuple[str, ...], TrecEvalName]] = derived("aliases", _alias_table)
    for prefixes, entry in table:
        if name.startswith(prefixes):
            match = re.fullmatch(entry.alias_pattern(), name)
            if match is not None:
                return entry.alias(match["param"] if "param" in match.re.groupindex else None)
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
        from irstats.errors import did_you_mean

        hint = did_you_mean(match["family"], FAMILIES)
        if hint:  # the likely one, not a list of every family
            raise MeasureError(f"unknown measure {name!r}{hint}")
        raise MeasureError(f"unknown measure {name!r}; known measures: {', '.join(sorted(FAMILIES))}")
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
    cutoff = CUTOFF_KINDS[family.cutoff_kind].read(match["cutoff"], family, name) if match["cutoff"] else None
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
    if cutoff is not None:
        CUTOFF_KINDS[family.cutoff_kind].check(cutoff, name)
    return Measure(family.name, tuple(values.items()), cutoff)


def _convert(spec: Param, raw: str, name: str) -> Any:
    try:
        value = spec.kind(raw)  # the parameter's type reads its text: float("0.8"), int("3"), str
    except ValueError:
        raise MeasureError(f"measure {name!r}: {spec.name}={raw!r} is not a valid {spec.kind.__name__}") from None
    problem = spec.check(value)
    if problem:
        raise MeasureError(f"measure {name!r}: {spec.name} {problem}; got {raw}")
    return value


def all_trec() -> tuple[str, ...]:
    """The irstats measures of trec_eval's ``-m all_trec`` (its nickname's members that a family
    computes, with their default parameters), canonical, in trec_eval's order."""
    def build() -> tuple[str, ...]:
        names = (m for entry in trec_eval_names() if "all_trec" in entry.nicknames
                 for _, m in entry.values() if m is not None)
        return tuple(dict.fromkeys(str(parse_measure(m)) for m in names))

    measures: tuple[str, ...] = derived("all_trec", build)
    return measures


def _list_form() -> re.Pattern[str]:
    """trec_eval's list forms: ``P.5,10`` means P_5 and P_10 (every listed form: cut-offs,
    recall levels, R multiples)."""
    names = "|".join(re.escape(e.name) for e in trec_eval_names() if e.listed)
    return re.compile(rf"^({names})\.([0-9.]+(?:,[0-9.]+)+)$")


def expand_measures(names: Iterable[object]) -> list[str]:
    """Expand trec_eval's list forms (``P.5,10``, ``all_trec``) and comma-free names into names."""
    out: list[str] = []
    for name in names:
        text = str(name).strip()
        match = derived("list form", _list_form).match(text)
        if match:
            out.extend(f"{match[1]}.{k}" for k in match[2].split(","))
        elif text == "all_trec":
            out.extend(all_trec())
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
