"""trec_eval 10's measure table (measures.c): names in print order, parameters, nicknames,
and the irstats measure behind every printed value.

A trec_eval measure is asked for with ``-m name`` or ``-m name.params`` (``P.5,10``,
``iprec_at_recall..1,.5``, ``set_F.0.5``, ``rbp.p=0.8``); a parameter list expands into
one printed value per parameter (``P_5``, ``P_10``). Each entry knows how to print its
names (``P_5``, ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``) and which canonical irstats
measure computes each value. Kinds: ``float`` (``%6.4f``), ``long`` (``%ld``: counts,
summed over topics), and the summary-only ``runid``, ``num_q`` and ``gm`` (trec_eval's
geometric mean of per-topic values, floored at 1e-5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from irstats.errors import InputError
from irstats.preferences import COUNTS as PREFS_COUNTS
from irstats.preferences import MEASURES as PREFS_MEASURES

#: trec_eval's MIN_GEO_MEAN: the floor of gm_map and gm_bpref.
MIN_GEO_MEAN = 1e-5

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class TrecEvalMeasure:
    """One measure of trec_eval's table.

    ``param_kind``: ``"none"``, ``"longs"`` (whole-number cut-offs), ``"floats"`` (recall
    levels, R multiples), each printed as its own value; and, printed once with the
    parameters' text appended as trec_eval does: ``"float"`` (one number: set_F's β),
    ``"floats_one"`` (utility's four), ``"levels_one"`` (11pt_avg's recall levels),
    ``"gain_map"`` (``level=gain`` pairs) and ``"p_pairs"`` (rbp's ``p=…``). ``values(params)``
    gives, in print order, ``(printed name, canonical irstats measure)`` pairs.
    """

    name: str
    kind: str
    param_kind: str = "none"
    defaults: tuple = ()
    printed: Callable[[object], str] | None = None  # one parameter → printed name
    measure: Callable[[object], str] | None = None  # one parameter → irstats measure

    def values(self, params: tuple | None = None) -> list[tuple[str, str | None]]:
        if self.param_kind in ("float", "floats_one", "gain_map", "levels_one", "p_pairs"):  # named by their text
            if params is None:
                return [(self.name, self.measure(self.defaults))]
            raw, values = params
            return [(self.printed(raw), self.measure(values))]
        params = self.defaults if params is None else params
        if self.param_kind == "none":
            return [(self.name, self.measure(None) if self.measure else None)]
        return [(self.printed(p), self.measure(p)) for p in params]

    def parse(self, text: str) -> tuple:
        """The parameters of ``-m name.text``, as trec_eval reads them."""
        if self.param_kind == "none":
            return None  # trec_eval ignores them (map.3 is map)
        parts = [p for p in text.split(",")]
        try:
            if self.param_kind == "longs":
                values = tuple(sorted({_atol(p) for p in parts}))
                if any(v <= 0 for v in values):
                    raise ValueError
                return values
            if self.param_kind == "floats":
                return tuple(sorted({float(p) for p in parts}))
            if self.param_kind == "floats_one":
                values = tuple(float(p) for p in parts)
                if len(values) != len(self.defaults):
                    raise ValueError
                return (text, values)
            if self.param_kind == "levels_one":
                return (text, tuple(float(p) for p in parts))
            if self.param_kind == "gain_map":  # 1=3,2=9,4=4.5 → irstats' gain=1:3;2:9;4:4.5
                # names that are no whole number are ignored, as trec_eval's setup_gains does
                gains = [(int(k), v) for k, v in _pairs(text) if _valid_int(k)]
                if len({k for k, _ in gains}) < len(gains):
                    raise InputError(f"{self.name}.{text}: a level given twice gets one gain in trec_eval's ideal "
                                     "ranking and another in the run's (gain_init.c); not reproduced")
                if any(k < 0 for k, _ in gains):
                    raise InputError(f"{self.name}.{text}: a gain for a negative level reaches trec_eval's unjudged "
                                     "documents (its codes -1, -2); irstats trec_eval takes gains for grades ≥ 0")
                return (text, ";".join(f"{k}:{_positional(v)}" for k, v in gains))
            if self.param_kind == "p_pairs":  # rbp.p=0.8: the persistence among name=value pairs
                pairs = _pairs(text)
                if self.name == "rbp" and any(_valid_int(k) for k, _ in pairs):
                    raise InputError(f"irstats trec_eval does not reproduce {self.name} with a gain map: trec_eval's "
                                     "m_rbp.c scales the gains with variables it never initialises (min, max), "
                                     "which a gain map makes matter; use irstats eval -m 'RBP(p=…)' for graded RBP")
                return (text, tuple(v for k, v in pairs if k == "p")[-1:] or self.defaults)
            if self.param_kind == "float":  # set_F.0.5: atof of the text
                return (text, (_atof(text),))
        except ValueError:
            pass
        raise InputError(f"illegal parameters {text!r} for trec_eval measure {self.name}")


def _pairs(text: str) -> list[tuple[str, float]]:
    """trec_eval's get_param_pairs: ``name=value`` pairs separated by commas."""
    pairs = [p.split("=", 1) for p in text.split(",")]
    if any(len(p) != 2 or not p[0] for p in pairs):
        raise ValueError(text)
    return [(name, float(value)) for name, value in pairs]


def _atof(text: str) -> float:
    """C's atof: the leading decimal number of ``text`` ("0.5x" → 0.5; none → 0)."""
    import re

    match = re.match(r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)", text)
    return float(match.group(0)) if match else 0.0


def _positional(value: float) -> str:
    """A gain as irstats' gain map writes it: every digit kept, no exponent (1e-07 → 0.0000001)."""
    import numpy as np

    return np.format_float_positional(value, trim="-")


def _valid_int(text: str) -> bool:
    """trec_eval's valid_int: an optional sign, then digits only."""
    body = text[1:] if text[:1] in "+-" else text
    return body.isdigit() and body.isascii()


#: C's long on the machines trec_eval is built for (LP64): glibc's atol clamps to these.
LONG_MIN, LONG_MAX = -2**63, 2**63 - 1


def _atol(text: str) -> int:
    """C's atol as glibc computes it (strtol): the leading whole number of ``text`` ("23.4" →
    23, "1e20" → 1), clamped to a long (99999999999999999999 → 2^63 − 1). Text with no
    leading number, which atol reads as 0, is refused (ValueError)."""
    import re

    match = re.match(r"\s*[+-]?\d+", text)
    if not match:
        raise ValueError(text)
    return min(max(int(match.group(0)), LONG_MIN), LONG_MAX)


def _single(name: str, kind: str, measure: str | None) -> TrecEvalMeasure:
    return TrecEvalMeasure(name, kind, measure=(lambda _: measure) if measure else None)


def _cutoffs(name: str, measure: str, defaults=_CUTS) -> TrecEvalMeasure:
    return TrecEvalMeasure(name, "float", "longs", tuple(defaults), lambda k: f"{name}_{k}",
                           lambda k: f"{measure}@{k}")


#: trec_eval 10's measures in its print order (measures.c te_trec_measures[]). ``measure``
#: None: not computed by irstats yet (asking for it is a clear error).
TABLE: tuple[TrecEvalMeasure, ...] = (
    _single("runid", "runid", None),
    _single("num_q", "num_q", "NumQ"),
    _single("num_ret", "long", "NumRet"),
    _single("num_rel", "long", "NumRel"),
    _single("num_rel_ret", "long", "NumRelRet"),
    _single("map", "float", "AP"),
    _single("gm_map", "gm", "AP"),
    _single("Rprec", "float", "Rprec"),
    _single("bpref", "float", "Bpref"),
    _single("recip_rank", "float", "RR"),
    TrecEvalMeasure("iprec_at_recall", "float", "floats", tuple(k / 10 for k in range(11)),
                    lambda r: f"iprec_at_recall_{r:.2f}", lambda r: f"IPrec@{r:g}"),
    _cutoffs("P", "P"),
    TrecEvalMeasure("relstring", "string", "longs", (10,), lambda n: f"relstring_{n}", lambda n: None),
    _cutoffs("recall", "R"),
    _single("infAP", "float", "infAP"),
    _single("gm_bpref", "gm", "Bpref"),
    TrecEvalMeasure("Rprec_mult", "float", "floats", tuple(k / 10 for k in range(2, 21, 2)),
                    lambda x: f"Rprec_mult_{x:.2f}", lambda x: f"Rprec(mult={x:g})"),
    TrecEvalMeasure("utility", "float", "floats_one", (1.0, -1.0, 0.0, 0.0), lambda raw: f"utility_{raw}",
                    lambda p: f"Utility(a={p[0]:g},b={p[1]:g},c={p[2]:g},d={p[3]:g})"),
    TrecEvalMeasure("11pt_avg", "float", "levels_one", (), lambda raw: f"11pt_avg_{raw}",
                    lambda levels: f"IPrecAvg(levels={';'.join(f'{v:g}' for v in levels)})" if levels else "IPrecAvg"),
    _single("binG", "float", "binG"),
    TrecEvalMeasure("G", "float", "gain_map", (), lambda raw: f"G_{raw}", lambda gains: f"G(gain={gains})"
                    if gains else "G"),
    TrecEvalMeasure("ndcg", "float", "gain_map", (), lambda raw: f"ndcg_{raw}", lambda gains: f"nDCG(gain={gains})"
                    if gains else "nDCG"),
    TrecEvalMeasure("ndcg_rel", "float", "gain_map", (), lambda raw: f"ndcg_rel_{raw}",
                    lambda gains: f"nDCG_rel(gain={gains})" if gains else "nDCG_rel"),
    TrecEvalMeasure("Rndcg", "float", "gain_map", (), lambda raw: f"Rndcg_{raw}",
                    lambda gains: f"RnDCG(gain={gains})" if gains else "RnDCG"),
    _cutoffs("ndcg_cut", "nDCG"),
    _cutoffs("map_cut", "AP"),
    _cutoffs("relative_P", "RelP"),
    _cutoffs("success", "Success", (1, 5, 10)),
    _single("set_P", "float", "SetP"),
    _single("set_relative_P", "float", "SetRelP"),
    _single("set_recall", "float", "SetR"),
    _single("set_map", "float", "SetAP"),
    TrecEvalMeasure("set_F", "float", "float", (1.0,), lambda raw: f"set_F_{raw}", lambda b: f"SetF(beta={b[0]:g})"),
    _single("num_nonrel_judged_ret", "long", "NumNonrelJudgedRet"),
    # -R prefs | qrels_prefs: preference judgments (irstats.preferences)
    *(_single(trec_name, "long" if name in PREFS_COUNTS else "float", name)
      for name, trec_name in PREFS_MEASURES.items()),
    # -R qrels_jg: each averaged over the judgment groups (irstats.trec_eval.jg)
    _single("map_avgjg", "float", "AP"),
    _cutoffs("P_avgjg", "P"),
    TrecEvalMeasure("Rprec_mult_avgjg", "float", "floats", tuple(k / 10 for k in range(2, 21, 2)),
                    lambda x: f"Rprec_mult_avgjg_{x:.2f}", lambda x: f"Rprec(mult={x:g})"),
    TrecEvalMeasure("rbp", "float", "p_pairs", (0.9,), lambda raw: f"rbp_{raw}",
                    lambda p: f"RBP(p={p[0]:g},scale=topic)"),
    TrecEvalMeasure("rbp_resid", "float", "p_pairs", (0.9,), lambda raw: f"rbp_resid_{raw}",
                    lambda p: f"RBPresid(p={p[0]:g})"),
    _cutoffs("unj", "Unj", (5, 10, 20)),
)

BY_NAME = {m.name: m for m in TABLE}

#: trec_eval's nicknames (measures.c).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
                 "set_map", "set_F", "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
    "all_prefs": ("runid", "num_q", *PREFS_MEASURES.values()),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
}


def requested(specs: list[str], num_docs: int = 0) -> list[tuple[TrecEvalMeasure, tuple | None]]:
    """``-m`` arguments → the marked measures in trec_eval's print order, with parameters
    (None: the defaults). The first ``-m name.params`` of a measure sets its parameters; a
    later one is ignored, as trec_eval's measure initialisers take the first match.
    ``num_docs`` (-N) goes to utility's d term."""
    marked: dict[str, tuple | None] = {}
    for spec in specs or ["official"]:
        name, dot, params = spec.partition(".")
        if name in NICKNAMES and not dot:
            for member in NICKNAMES[name]:
                marked.setdefault(member, None)
            continue
        if name not in BY_NAME:
            raise InputError(f"illegal measure '{spec}'")
        given = BY_NAME[name].parse(params) if dot else None
        marked[name] = marked.get(name) if marked.get(name) is not None else given
    out = [(m, marked[m.name]) for m in TABLE if m.name in marked]
    if num_docs:
        out = [(_with_docs(m, num_docs) if m.name == "utility" else m, p) for m, p in out]
    return out


def _with_docs(measure: TrecEvalMeasure, num_docs: int) -> TrecEvalMeasure:
    """utility with the collection's size N for its d·(N + C − n − R) term."""
    from dataclasses import replace

    build = measure.measure
    return replace(measure, measure=lambda p: build(p)[:-1] + f",docs={int(num_docs)})")


__all__ = ["BY_NAME", "MIN_GEO_MEAN", "NICKNAMES", "TABLE", "TrecEvalMeasure", "requested"]
