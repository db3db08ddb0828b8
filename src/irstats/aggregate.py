"""Aggregation of per-topic scores into one number per system (METHODS.md §3).

Every method works on a whole systems × topics matrix at once (no loop over systems),
and the geometric and logit forms are computed in log space, so no raw product is ever
formed and the result does not depend on the order of the topics.

========================  ===============================================================
method                    definition (x_1..x_t one system's scores, ε as given)
========================  ===============================================================
``am``                    arithmetic mean (1/t) Σ x_i
``gm``                    geometric mean exp((1/t) Σ log x_i); 0 if any x_i = 0
``egm``                   exp((1/t) Σ log(x_i + ε)) − ε, ε = 0.01 (Robertson's εGM)
``gm_trec_eval``          exp((1/t) Σ log max(x_i, ε)), floor ε = 1e-5 (trec_eval gm_map)
``hm``                    harmonic mean t / Σ 1/x_i
``ehm``                   t / Σ 1/(x_i + ε) − ε, ε = 0.01
``median``                the middle value (mean of the two middle values for even t)
``al``                    average log (1/t) Σ log(x_i + ε); ``back_transform`` gives εGM
``logit``                 (1/t) Σ log((x_i + ε)/(1 − x_i + ε)), ε = 0.01; ``back_transform``
                          maps it back to the score scale with the exact inverse
========================  ===============================================================

Undefined cases give NaN and an :class:`AggregationWarning` whose ``reason`` is one of
``empty``, ``nan_input``, ``hm_zero``, ``nonpositive``, ``logit_domain``; a geometric mean
with a zero score is 0.0 with the warning reason ``gm_zero``.

Example
-------
>>> import numpy as np
>>> r = aggregate(np.array([[0.1, 0.1, 0.3, 0.8, 0.1]]), "egm")
>>> round(float(r.values[0]), 6)
0.191746
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.checks import kind_of, names, numbers
from irstats.errors import (ArgumentError, ArgumentTypeError, InputError, IrstatsWarning, NotFoundError, did_you_mean,
                            some)
from irstats.scores import ScoreMatrix, score_matrices

#: Aggregation methods: canonical name → one-line description.
METHODS: dict[str, str] = {
    "am": "arithmetic mean (1/t) Σ x",
    "gm": "geometric mean exp(mean log x); 0 when a score is 0",
    "egm": "εGM: exp(mean log(x + ε)) − ε (ε = 0.01)",
    "gm_trec_eval": "trec_eval gm_map: exp(mean log max(x, ε)), floor ε = 1e-5, nothing subtracted",
    "hm": "harmonic mean t / Σ 1/x; undefined when a score is 0",
    "ehm": "εHM: t / Σ 1/(x + ε) − ε (ε = 0.01)",
    "median": "median (mean of the two middle values for an even number of topics)",
    "al": "average log (1/t) Σ log(x + ε) (ε = 0.01); back-transformed it is εGM",
    "logit": "logit mean (1/t) Σ log((x + ε)/(1 − x + ε)) (ε = 0.01); optional exact back-map",
}

#: trec_eval's floor of the scores its gm_map averages: the default ε of ``gm_trec_eval``.
GM_TREC_EVAL_FLOOR = 1e-5

#: The default ε of each method that takes one (None: the method takes no ε).
DEFAULT_EPSILON: dict[str, float | None] = {
    "am": None, "gm": None, "egm": 0.01, "gm_trec_eval": GM_TREC_EVAL_FLOOR, "hm": None, "ehm": 0.01,
    "median": None, "al": 0.01, "logit": 0.01,
}

#: Methods whose parameter is a floor, not an ε: trec_eval's gm_map floors scores at 1e-5. A
#: shared ε (``epsilon=`` of :func:`aggregate_many`, ``--epsilon``) leaves the floor alone, so
#: that "εGM with ε = 0.01 beside GM_trec_eval" means trec_eval's GM_trec_eval (seed 000);
#: the floor changes only when asked for by that method (``gm_trec_eval:FLOOR``).
FLOOR_METHODS = ("gm_trec_eval",)

_ALIASES = {
    "mean": "am", "arithmetic": "am", "map": "am",
    "geometric": "gm", "gmean": "gm",
    "εgm": "egm", "e-gm": "egm", "eps_gm": "egm", "epsgm": "egm",
    "gm_map": "gm_trec_eval", "gmap": "gm_trec_eval", "trec_eval_gm": "gm_trec_eval",
    "harmonic": "hm", "hmean": "hm",
    "εhm": "ehm", "e-hm": "ehm", "eps_hm": "ehm", "epshm": "ehm",
    "md": "median", "med": "median",
    "average_log": "al", "avglog": "al",
    "lm": "logit", "logit_mean": "logit",
}

#: Reasons an aggregate is undefined (NaN), plus ``gm_zero`` (GM is 0.0 because of a zero).
REASONS: dict[str, str] = {
    "empty": "no topics to aggregate",
    "nan_input": "a per-topic score is missing (NaN); use skipna to leave such topics out",
    "hm_zero": "a harmonic mean over a zero score is undefined",
    "nonpositive": "log or reciprocal of a score that is not positive (x or x + ε ≤ 0)",
    "logit_domain": "the logit needs every score in [0, 1] (and in (0, 1) when ε = 0)",
    "gm_zero": "a zero score makes the geometric mean 0",
}


class AggregationWarning(IrstatsWarning):
    """An aggregate that is undefined (NaN), or a GM that is 0 because of a zero score.

    ``reason`` is one of :data:`REASONS`; ``systems`` names the systems concerned.
    """

    def __init__(self, message: str, reason: str | None = None, systems: Sequence[str] = ()):
        super().__init__(message)
        self.reason = reason
        self.systems = tuple(systems)


@dataclass(frozen=True)
class AggregateResult(Result):
    """One aggregate per system.

    ``values[i]`` belongs to ``systems[i]``; ``method`` is the canonical method name and
    ``epsilon`` the ε (or floor) used, None for methods without one. ``reasons[i]`` is None,
    or the reason the value is NaN (see :data:`REASONS`), or ``"gm_zero"``.
    ``back_transform`` tells whether AL / the logit mean was mapped back to the score scale.
    """

    values: np.ndarray
    systems: tuple[str, ...]
    measure: str | None
    method: str
    epsilon: float | None = None
    reasons: tuple[str | None, ...] = ()
    back_transform: bool = False
    num_topics: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def to_frame(self) -> pl.DataFrame:
        """Tidy frame ``system, measure, method, value``."""
        n = len(self.systems)
        return pl.DataFrame(
            {"system": list(self.systems), "measure": [self.measure or ""] * n, "method": [self.method] * n,
             "value": np.asarray(self.values, dtype=np.float64)},
            schema={"system": pl.String, "measure": pl.String, "method": pl.String, "value": pl.Float64},
        )

    def as_dict(self) -> dict[str, float]:
        """``{system: value}``."""
        return {s: float(v) for s, v in zip(self.systems, self.values)}

    def __getitem__(self, system: str) -> float:
        try:
            return float(self.values[self.systems.index(system)])
        except ValueError:
            raise NotFoundError(f"no system {system!r} in this result{did_you_mean(system, self.systems)}",
                                argument="system") from None


def resolve_method(method: str) -> str:
    """The canonical name of an aggregation method (case-insensitive; aliases such as ``md``).

    Raises :class:`~irstats.errors.InputError` for an unknown name.
    """
    key = str(method).strip().lower()
    key = _ALIASES.get(key, key)
    if not isinstance(method, str) or key not in METHODS:
        error = ArgumentError if isinstance(method, str) else ArgumentTypeError
        raise error(f"unknown aggregation method {method!r}; expected one of {', '.join(METHODS)}",
                    argument="method")
    return key


def _as_matrix(matrix: ScoreMatrix | np.ndarray) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...], str | None]:
    if isinstance(matrix, ScoreMatrix):
        return matrix.values, matrix.systems, matrix.topics, matrix.measure
    values = numbers(matrix, "matrix")
    if values.ndim == 1:
        values = values[None, :]
    if values.ndim != 2:
        raise ArgumentError(f"matrix must be a ScoreMatrix, a systems × topics array or one system's vector, "
                            f"got an array of shape {values.shape}", argument="matrix")
    return (values, tuple(str(i) for i in range(values.shape[0])),
            tuple(str(j) for j in range(values.shape[1])), None)


def aggregate(matrix: ScoreMatrix | np.ndarray, method: str, epsilon: float | None = None, skipna: bool = False,
              back_transform: bool = False) -> AggregateResult:
    """Aggregate each system's per-topic scores with one method of METHODS.md §3.

    Parameters
    ----------
    matrix:
        A :class:`~irstats.scores.ScoreMatrix`, or an array (systems × topics, or one
        system's 1-D vector). NaN marks a topic that was not evaluated.
    method:
        ``am``, ``gm``, ``egm``, ``gm_trec_eval``, ``hm``, ``ehm``, ``median``, ``al`` or
        ``logit`` (case-insensitive; see :data:`METHODS`).
    epsilon:
        ε of ``egm``, ``ehm``, ``al``, ``logit`` (default 0.01), or the floor of
        ``gm_trec_eval`` (default 1e-5). Ignored by the other methods. Must be ≥ 0.
    skipna:
        Leave out NaN scores (each system is aggregated over its evaluated topics).
        Otherwise a NaN score makes the system's aggregate NaN (reason ``nan_input``).
    back_transform:
        For ``al``: report exp(AL) − ε (= εGM). For ``logit``: map the logit mean back with
        x̂ = (e^LM (1 + ε) − ε)/(1 + e^LM), the exact inverse of the per-score transform.

    Returns
    -------
    AggregateResult
        One value per system; undefined values are NaN and an :class:`AggregationWarning`
        is emitted per reason, naming the systems.

    Examples
    --------
    >>> r = aggregate(np.array([[0.0, 0.4, 0.2, 0.4, 0.3]]), "gm_trec_eval")
    >>> round(float(r.values[0]), 6)
    0.039487
    """
    name = resolve_method(method)
    default = DEFAULT_EPSILON[name]
    if epsilon is not None:
        _check_epsilon(epsilon)
    eps = None if default is None else float(default if epsilon is None else epsilon)
    x, systems, topics, measure = _as_matrix(matrix)
    n_sys = x.shape[0]

    nan = np.isnan(x)
    valid = ~nan
    counts = valid.sum(axis=1)
    reasons = np.full(n_sys, None, dtype=object)
    if not skipna:
        has_nan = nan.any(axis=1)
        reasons[has_nan] = "nan_input"
    reasons[counts == 0] = "empty"
    undefined = reasons != None  # noqa: E711 - elementwise on an object array
    # Only defined values take part in the arithmetic; 0 rows are guarded by max(n, 1).
    n = np.maximum(counts, 1).astype(np.float64)

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values, domain = _KERNELS[name](x, valid, n, eps)
    if domain is not None:
        for reason, bad in domain:
            hit = bad & ~undefined
            reasons[hit] = reason
            if reason != "gm_zero":
                undefined |= hit
    values = np.where(undefined, np.nan, values)
    if back_transform:
        # Both methods that back-transform take an ε (DEFAULT_EPSILON), so eps is set for them.
        if name not in ("al", "logit") or eps is None:
            raise ArgumentError(f"back_transform applies to 'al' and 'logit', not {name!r}", argument="back_transform")
        if name == "al":
            with np.errstate(over="ignore"):
                values = _expm1_shift(values, eps)
        else:
            from scipy.special import expit  # scipy only where used (start-up)

            values = expit(values) * (1.0 + eps) - eps * expit(-values)
    _warn_reasons(name, measure, systems, topics, reasons, nan)
    return AggregateResult(np.asarray(values, dtype=np.float64), tuple(systems), measure, name, eps,
                           tuple(reasons.tolist()), bool(back_transform), counts)


def _check_epsilon(epsilon, argument: str = "epsilon") -> float:
    """ε (or a floor): a finite number >= 0."""
    ok = isinstance(epsilon, (int, float, np.integer, np.floating)) and not isinstance(epsilon, (bool, np.bool_))
    if not ok or not (epsilon >= 0 and np.isfinite(epsilon)):
        error = ArgumentError if ok else ArgumentTypeError
        raise error(f"{argument} must be a finite number >= 0, not {epsilon!r}", argument=argument)
    return float(epsilon)


def _expm1_shift(al: np.ndarray, eps: float) -> np.ndarray:
    """exp(AL) − ε, computed as ε·expm1(AL − log ε) when ε > 0 (no cancellation)."""
    if eps > 0:
        return eps * np.expm1(al - np.log(eps))
    return np.exp(al)


# --- kernels: (x, valid, n, eps) -> (values, [(reason, bad rows)]) ---------------------------


def _masked_sum(a: np.ndarray, valid: np.ndarray) -> np.ndarray:
    return np.where(valid, a, 0.0).sum(axis=1)


def _am(x, valid, n, eps):
    return _masked_sum(x, valid) / n, None


def _gm(x, valid, n, eps):
    negative = (valid & (x < 0)).any(axis=1)
    zero = (valid & (x == 0)).any(axis=1)
    logs = np.log(np.where(valid & (x > 0), x, 1.0))
    values = np.exp(_masked_sum(logs, valid) / n)
    values = np.where(zero, 0.0, values)
    return values, [("nonpositive", negative), ("gm_zero", zero & ~negative)]


def _egm(x, valid, n, eps):
    y = x + eps
    bad = (valid & ~(y > 0)).any(axis=1)
    if eps > 0:
        # exp(mean log(x + ε)) − ε = ε·expm1(mean log1p(x/ε)): exact, and stable as ε → ∞.
        logs = np.log1p(np.where(valid & (y > 0), x / eps, 0.0))
        values = eps * np.expm1(_masked_sum(logs, valid) / n)
    else:
        logs = np.log(np.where(valid & (y > 0), y, 1.0))
        values = np.exp(_masked_sum(logs, valid) / n)
    return values, [("nonpositive", bad)]


def _gm_trec_eval(x, valid, n, eps):
    logs = np.log(np.maximum(np.where(valid, x, 1.0), eps))
    return np.exp(_masked_sum(logs, valid) / n), None


def _hm(x, valid, n, eps):
    zero = (valid & (x == 0)).any(axis=1)
    negative = (valid & (x < 0)).any(axis=1)
    logs = np.log(np.where(valid & (x > 0), x, 1.0))
    from scipy.special import logsumexp  # scipy only where used (start-up)

    # log HM = log t − log Σ exp(−log x)
    lse = logsumexp(np.where(valid, -logs, -np.inf), axis=1)
    values = np.exp(np.log(n) - lse)
    return values, [("nonpositive", negative), ("hm_zero", zero & ~negative)]


def _ehm(x, valid, n, eps):
    y = x + eps
    bad = (valid & ~(y > 0)).any(axis=1)
    # t / Σ 1/(x + ε) − ε = Σ w x / Σ w with w = 1/(x + ε): exact, and stable as ε → ∞.
    w = np.where(valid & (y > 0), 1.0 / np.where(y > 0, y, 1.0), 0.0)
    values = (w * np.where(valid, x, 0.0)).sum(axis=1) / w.sum(axis=1)
    return values, [("nonpositive", bad)]


def _median(x, valid, n, eps):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: reported as "empty"
        values = np.nanmedian(np.where(valid, x, np.nan), axis=1) if x.shape[1] else np.full(x.shape[0], np.nan)
    return values, None


def _al(x, valid, n, eps):
    y = x + eps
    bad = (valid & ~(y > 0)).any(axis=1)
    logs = np.log(np.where(valid & (y > 0), y, 1.0))
    return _masked_sum(logs, valid) / n, [("nonpositive", bad)]


def _logit(x, valid, n, eps):
    outside = (valid & ((x < 0) | (x > 1))).any(axis=1)
    if eps == 0:
        outside |= (valid & ((x == 0) | (x == 1))).any(axis=1)
    ok = valid & (x + eps > 0) & (1 - x + eps > 0)
    logs = np.where(ok, np.log(np.where(ok, x + eps, 1.0)) - np.log(np.where(ok, 1 - x + eps, 1.0)), 0.0)
    return _masked_sum(logs, valid) / n, [("logit_domain", outside)]


_KERNELS = {"am": _am, "gm": _gm, "egm": _egm, "gm_trec_eval": _gm_trec_eval, "hm": _hm, "ehm": _ehm,
            "median": _median, "al": _al, "logit": _logit}


def _warn_reasons(method, measure, systems, topics, reasons, nan) -> None:
    for reason in REASONS:
        hit = np.flatnonzero(reasons == reason)
        if not hit.size:
            continue
        names = [systems[i] for i in hit]
        shown = some(names, quote=False)
        what = "is 0" if reason == "gm_zero" else "is undefined (NaN)"
        detail = REASONS[reason]
        if reason == "nan_input":
            i = hit[0]
            missing = [topics[j] for j in np.flatnonzero(nan[i])]
            detail += f"; e.g. system {systems[i]!r} lacks topic(s) {some(missing)}"
        label = f"{method}({measure})" if measure else method
        message = f"{label} {what} for {len(names)} system(s): {shown} [{reason}: {detail}]"
        warnings.warn(AggregationWarning(message, reason, names), stacklevel=3)


def check_complete(matrix: ScoreMatrix, source: str | None = None) -> None:
    """Raise :class:`~irstats.errors.InputError` if any system lacks a score on a topic.

    The message names the first such system and its missing topics, and says how to go on
    (aggregate over the evaluated topics with ``skipna``). The command line calls this
    before aggregating unless ``--skipna`` is given.
    """
    if not isinstance(matrix, ScoreMatrix):
        raise ArgumentTypeError(f"matrix must be a ScoreMatrix; got {kind_of(matrix)}", argument="matrix")
    nan = np.isnan(matrix.values)
    if not nan.any():
        return
    rows = np.flatnonzero(nan.any(axis=1))
    i = rows[0]
    missing = [matrix.topics[j] for j in np.flatnonzero(nan[i])]
    topics = some(missing)
    others = f" ({len(rows) - 1} other system(s) also lack topics)" if len(rows) > 1 else ""
    raise InputError(f"measure {matrix.measure!r}: system {matrix.systems[i]!r} has no score for topic(s) {topics}"
                     f"{others}; give skipna=True (--skipna) to aggregate each system over the topics it has", path=source)


def parse_methods(methods: Iterable, epsilon: float | None = None) -> list[tuple[str, float | None]]:
    """Method specs → [(canonical method, ε or None)].

    A spec is a name (``"egm"``), ``"name:ε"`` (``"egm:0.1"``) or a tuple ``(name, ε)``.
    ``epsilon`` (if given) is the ε of every method that takes one and has none of its own;
    it never moves ``gm_trec_eval``'s floor (1e-5, trec_eval's gm_map), which only
    ``"gm_trec_eval:FLOOR"`` changes (:data:`irstats.aggregate.FLOOR_METHODS`).
    """
    methods = names(methods, "methods", what="aggregation methods")
    if epsilon is not None:
        _check_epsilon(epsilon)

    out: list[tuple[str, float | None]] = []
    for spec in methods:
        own = None
        if isinstance(spec, str) and ":" in spec:
            name, _, text = spec.partition(":")
            try:
                own = float(text)
            except ValueError:
                raise ArgumentError(f"method {spec!r}: the part after ':' must be a number (ε)",
                                    argument="methods") from None
        elif isinstance(spec, (tuple, list)):
            if len(spec) != 2:
                raise ArgumentError(f"methods: a method given as a pair is (name, ε); got {spec!r}",
                                    argument="methods")
            name, own = spec[0], (None if spec[1] is None else _check_epsilon(spec[1], "methods"))
        else:
            name = spec
        name = resolve_method(name)
        default = DEFAULT_EPSILON[name]
        if default is None:
            eps = None
        else:
            shared = None if name in FLOOR_METHODS else epsilon
            eps = float(own if own is not None else shared if shared is not None else default)
            if not (eps >= 0 and math.isfinite(eps)):
                raise ArgumentError(f"epsilon must be a finite number >= 0, not {eps!r}", argument="methods")
        if (name, eps) not in out:
            out.append((name, eps))
    if not out:
        raise ArgumentError("methods: give at least one aggregation method", argument="methods")
    return out


def aggregate_many(scores: Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix] | ScoreMatrix,
                   methods: Sequence[str] | str, epsilon: float | None = None, skipna: bool = False,
                   back_transform: bool = False) -> pl.DataFrame:
    """Aggregate several measures with several methods into one tidy frame.

    Returns a frame ``system, measure, method, value`` ordered by measure, then method (in
    the order given), then system. A method is a name or ``"name:ε"`` (:func:`parse_methods`);
    ``epsilon`` (if given) is the ε of every method that takes one and has none of its own —
    not the floor of ``gm_trec_eval`` (:data:`FLOOR_METHODS`).

    >>> aggregate_many(scores, ["am", "egm"])  # doctest: +SKIP
    """
    items = score_matrices(scores)
    specs = parse_methods(methods, epsilon)
    frames = []
    for matrix in items:
        for name, eps in specs:
            bt = back_transform and name in ("al", "logit")
            frames.append(aggregate(matrix, name, epsilon=eps, skipna=skipna, back_transform=bt).to_frame())
    if not frames:
        return pl.DataFrame(schema={"system": pl.String, "measure": pl.String, "method": pl.String,
                                    "value": pl.Float64})
    return pl.concat(frames)


@dataclass(frozen=True)
class Aggregates(Result):
    """Several measures aggregated by several methods (:func:`aggregate_table`): the tidy
    frame ``system, measure, method, value``, printed as a systems × (measure, method) table,
    best first by its first column."""

    frame: pl.DataFrame

    @property
    def title(self) -> str:
        methods = list(dict.fromkeys(self.frame.get_column("method").to_list()))
        return f"Aggregates over topics ({', '.join(methods)})"

    def to_frame(self) -> pl.DataFrame:
        return self.frame

    def wide(self) -> pl.DataFrame:
        """A row per system (best first by the first column), a column per ``measure:method``."""
        frame = self.frame.with_columns((pl.col("measure") + ":" + pl.col("method")).alias("column"))
        columns = list(dict.fromkeys(frame.get_column("column").to_list()))
        systems = list(dict.fromkeys(frame.get_column("system").to_list()))
        wide = frame.pivot(on="column", index="system", values="value").select("system", *columns)
        wide = pl.DataFrame({"system": systems}).join(wide, on="system", how="left")
        if columns:
            wide = wide.sort(pl.col(columns[0]).fill_nan(None), descending=True, nulls_last=True, maintain_order=True)
        return wide

    def summary(self) -> pl.DataFrame:
        return self.wide()


def aggregate_table(scores, methods: Sequence[str] | str, epsilon: float | None = None, skipna: bool = False,
                    back_transform: bool = False) -> Aggregates:
    """:func:`aggregate_many` as a result that prints itself (``irstats aggregate``)."""
    return Aggregates(aggregate_many(scores, methods, epsilon=epsilon, skipna=skipna, back_transform=back_transform))


__all__ = ["AggregateResult", "Aggregates", "AggregationWarning", "aggregate_table", "DEFAULT_EPSILON", "GM_TREC_EVAL_FLOOR", "METHODS", "REASONS", "aggregate",
           "aggregate_many", "check_complete", "resolve_method"]
