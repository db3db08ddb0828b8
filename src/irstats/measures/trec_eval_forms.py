"""trec_eval's parameter forms, each declared once: how ``-m name.params`` is read (as
trec_eval's meas_init.c reads it, errors included), how each value is printed (``P_10``,
``set_F_0.5``), how it fills the irstats measure behind it and how a trec_eval name carries
it back (``P_10`` → ``P@10``). A :class:`~irstats.measures.registry.TrecEvalName` names its
form (``form``); :data:`FORMS` holds them by that name, and a new form is one entry there.

Numbers are read as C's atol and atof read them (:func:`atol`, :func:`atof`: no number is 0).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable

from irstats.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from irstats.measures.registry import TrecEvalName

#: C's long on the machines trec_eval is built for (LP64): glibc's atol clamps to these.
LONG_MIN, LONG_MAX = -2**63, 2**63 - 1


class ParameterError(InputError):
    """Parameters trec_eval reads but cannot use (``P.0``, ``P.5,5``, ``rbp.0.8``): trec_eval's own
    lines (``lines``, as it prints them) and its exit code — 2 when a measure
    cannot be initialised (meas_init.c), 4 when it cannot be calculated (utility's coefficients).
    A parameter irstats does not reproduce is a plain :class:`InputError` (exit 1)."""

    def __init__(self, lines: list[str], exit_code: int = 2):
        self.lines = lines
        self.exit_code = exit_code
        super().__init__("; ".join(lines))


def _cannot_initialise(measure: TrecEvalName, reason: str) -> ParameterError:
    return ParameterError([f"trec_eval: {reason}", f"trec_eval: Cannot initialize measure '{measure.name}'"])


def atol(text: str, strict: bool = True) -> int:
    """C's atol as glibc computes it (strtol): the leading whole number of ``text`` ("23.4" →
    23, "1e20" → 1), clamped to a long (99999999999999999999 → 2^63 − 1). Text with no
    leading number, which atol reads as 0, is refused (ValueError) — or 0 with ``strict=False``."""
    match = re.match(r"\s*[+-]?\d+", text)
    if not match:
        if not strict:
            return 0
        raise ValueError(text)
    return min(max(int(match.group(0)), LONG_MIN), LONG_MAX)


def atof(text: str) -> float:
    """C's atof: the leading decimal number of ``text`` ("0.5x" → 0.5; none → 0)."""
    match = re.match(r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)", text)
    return float(match.group(0)) if match else 0.0


def _pairs(text: str) -> list[tuple[str, float]] | None:
    """trec_eval's get_param_pairs: ``name=value`` pairs separated by commas (a name may be
    empty, a value is read by atof), or None where trec_eval finds them malformed — the same
    scan as its own: no two commas or two '=' in a row, and the text ends after an '='."""
    last_seen = ","
    for char in text:
        if char in ",=":
            if last_seen == char:
                return None
            last_seen = char
    if last_seen != "=":
        return None
    return [(name, atof(value)) for name, _, value in (piece.partition("=") for piece in text.split(","))]


def _valid_int(text: str) -> bool:
    """trec_eval's valid_int: an optional sign, then digits only."""
    body = text[1:] if text[:1] in "+-" else text
    return body.isdigit() and body.isascii()


def _positional(value: float) -> str:
    """A gain as irstats' gain map writes it: every digit kept, no exponent (1e-07 → 0.0000001)."""
    import numpy as np

    return str(np.format_float_positional(value, trim="-"))


def _pairs_of(measure: TrecEvalName, text: str) -> list[tuple[str, float]]:
    pairs = _pairs(text)
    if pairs is None:
        raise _cannot_initialise(measure, f"malformed pair parameters in '{text}'")
    return pairs


#: What ``-m name.text`` gives (``read``): None (the defaults), a listed form's values, or
#: ``(text, value)`` for a form printed once.
Read = Callable[["TrecEvalName", str], Any]


def _ignored(measure: TrecEvalName, text: str) -> None:
    return None  # trec_eval ignores them (map.3 is map)


def _long_cutoffs(measure: TrecEvalName, text: str) -> tuple[int, ...]:
    """get_long_cutoffs: sorted, each > 0 and none twice."""
    cutoffs = sorted(atol(p, strict=False) for p in text.split(","))
    if cutoffs[0] <= 0:
        raise _cannot_initialise(measure, "Negative cutoff detected")
    if len(set(cutoffs)) < len(cutoffs):
        raise _cannot_initialise(measure, "duplicate cutoffs detected")
    return tuple(cutoffs)


def _double_cutoffs(measure: TrecEvalName, text: str) -> tuple[float, ...]:
    """get_double_cutoffs: sorted, none twice."""
    values = sorted(atof(p) for p in text.split(","))
    if len(set(values)) < len(values):
        raise _cannot_initialise(measure, "duplicate cutoffs detected")
    return tuple(values)


def _first_double(measure: TrecEvalName, text: str) -> tuple[str, tuple[float]]:
    """get_double_params, of which relstring reads the first."""
    return (text, (atof(text.split(",")[0]),))


def _coefficients(measure: TrecEvalName, text: str) -> tuple[str, tuple[float, ...]]:
    """get_double_params; utility needs its four coefficients when it calculates (exit 4)."""
    coefficients = tuple(atof(p) for p in text.split(","))
    if len(coefficients) != len(measure.defaults):
        raise ParameterError([f"trec_eval.calc_{measure.name}: improper number of coefficients",
                              f"trec_eval: Can't calculate measure '{measure.name}'"], exit_code=4)
    return (text, coefficients)


def _doubles(measure: TrecEvalName, text: str) -> tuple[str, tuple[float, ...]]:
    return (text, tuple(atof(p) for p in text.split(",")))


def _one_double(measure: TrecEvalName, text: str) -> tuple[str, tuple[float]]:
    return (text, (atof(text),))  # set_F.0.5: atof of the text


def _gain_map(measure: TrecEvalName, text: str) -> tuple[str, str]:
    """``1=3,2=9,4=4.5`` → irstats' ``gain=1:3;2:9;4:4.5``; names that are no whole number are
    ignored, as trec_eval's setup_gains does."""
    gains = [(int(k), v) for k, v in _pairs_of(measure, text) if _valid_int(k)]
    if len({k for k, _ in gains}) < len(gains):
        raise InputError(f"{measure.name}.{text}: a level given twice gets one gain in trec_eval's ideal "
                         "ranking and another in the run's (gain_init.c); not reproduced")
    if any(k < 0 for k, _ in gains):
        raise InputError(f"{measure.name}.{text}: a gain for a negative level reaches trec_eval's unjudged "
                         "documents (its codes -1, -2); irstats trec_eval takes gains for grades ≥ 0")
    return (text, ";".join(f"{k}:{_positional(v)}" for k, v in gains))


def _persistence(measure: TrecEvalName, text: str) -> tuple[str, tuple[float, ...]]:
    """The persistence ``p`` among ``name=value`` pairs (the last one given), other names ignored."""
    return (text, tuple(v for k, v in _pairs_of(measure, text) if k == "p")[-1:] or measure.defaults)


def _persistence_without_gains(measure: TrecEvalName, text: str) -> tuple[str, tuple[float, ...]]:
    """:func:`_persistence`, refusing a gain map: trec_eval's m_rbp.c scales the gains with
    variables it never initialises (min, max), which a gain map makes matter."""
    if any(_valid_int(k) for k, _ in _pairs_of(measure, text)):
        raise InputError(f"irstats trec_eval does not reproduce {measure.name} with a gain map: trec_eval's "
                         "m_rbp.c scales the gains with variables it never initialises (min, max), "
                         "which a gain map makes matter; use irstats eval -m 'RBP(p=…)' for graded RBP")
    return _persistence(measure, text)


@dataclass(frozen=True)
class ParameterForm:
    """How a trec_eval measure takes parameters (``-m name.params``) and prints them.

    ``read(measure, text)``: the parameters of ``-m name.text`` as trec_eval reads them, or its
    own error (:class:`ParameterError`). ``listed``: a list of values, each printed as its own
    value, ``name_value`` (``P.5,10`` → ``P_5``, ``P_10``); otherwise one value printed once as
    ``name_text``, with the text as given (``set_F.0.5`` → ``set_F_0.5``). ``args(value)``
    fills the irstats template; ``value(groups)`` reads a value back from the template's
    fields; ``text(value)`` is trec_eval's parameter text for a value; ``alias``: the parameter
    as a trec_eval name carries it (``P_10``, ``rbp.p=0.8``), read by ``alias_value``;
    ``takes_params``: False where the measure has none (``map.3`` is ``map``)."""

    read: Read
    listed: bool
    args: Callable[[Any], tuple[Any, ...]]
    value: Callable[[tuple[Any, ...]], Any]
    text: Callable[[Any], str]
    alias: str | None = None
    alias_value: Callable[[str], Any] = float
    takes_params: bool = True


def _g(values: Iterable[float]) -> str:
    return ",".join(f"{v:g}" for v in values)


def _numbers(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(","))


def _gain_map_text(text: str) -> str:
    """A gain map's text (``1:3;2:9``); a ValueError for other gains (``exp``, ``linear``), which
    have no trec_eval name."""
    if not re.fullmatch(r"-?\d+:-?[0-9.]+(;-?\d+:-?[0-9.]+)*", text):
        raise ValueError(text)
    return text


def _persistence_form(read: Read) -> ParameterForm:  # rbp.p=0.8
    return ParameterForm(read, False, tuple, lambda g: (float(g[0]),), lambda v: f"p={v[0]:g}", r"p=[0-9.]+",
                         lambda t: (float(t[2:]),))


#: Every form, by the name a TrecEvalName gives (its ``form``).
FORMS: dict[str, ParameterForm] = {
    "none": ParameterForm(_ignored, False, lambda v: (), lambda g: None, lambda v: "", takes_params=False),
    "longs": ParameterForm(_long_cutoffs, True, lambda k: (k,), lambda g: int(g[0]), str, r"\d+",  # P.5,10 → P_5, P_10
                           int),
    "floats": ParameterForm(_double_cutoffs, True, lambda x: (x,), lambda g: float(g[0]),  # _0.20
                            lambda x: f"{x:.2f}", r"[0-9.]+"),
    "float": ParameterForm(_one_double, False, tuple, lambda g: (float(g[0]),), _g, r"[0-9.]+",  # set_F.0.5
                           lambda t: (float(t),)),
    "floats_one": ParameterForm(_coefficients, False, tuple, lambda g: tuple(map(float, g)), _g,  # utility.1,-1,0,0
                                r"-?[0-9.]+(?:,-?[0-9.]+)*", _numbers),
    "levels_one": ParameterForm(_doubles, False, lambda v: (";".join(f"{x:g}" for x in v),),  # 11pt_avg..25,.5
                                lambda g: tuple(float(x) for x in g[0].split(";")), _g, r"[0-9.]+(?:,[0-9.]+)*",
                                _numbers),
    "gain_map": ParameterForm(_gain_map, False, lambda gains: (gains,),  # ndcg.1=3,2=9 ↔ gain=1:3;2:9
                              lambda g: _gain_map_text(g[0]), lambda gains: gains.replace(":", "=").replace(";", ","),
                              r"\d+=-?[0-9.]+(?:,\d+=-?[0-9.]+)*", lambda t: t.replace("=", ":").replace(",", ";")),
    "p_pairs": _persistence_form(_persistence),  # rbp_resid.p=0.5
    "p_pairs_without_gains": _persistence_form(_persistence_without_gains),  # rbp.p=0.8
    "double_first": ParameterForm(_first_double, False, tuple, lambda g: (float(g[0]),), _g),  # relstring.20
}


__all__ = ["FORMS", "LONG_MAX", "LONG_MIN", "ParameterError", "ParameterForm", "atof", "atol"]
