"""Score standardization (METHODS.md §4): per-topic z-scores and Φ(z) from stored factors.

Factors (a mean μ_t and a standard deviation σ_t per topic and measure) are fitted on a
reference set of systems and then applied to any score matrix, including systems that
were not in the reference set:

    z_{s,t} = (x_{s,t} − μ_t) / σ_t          std(x)_{s,t} = Φ(z_{s,t})

Φ is :func:`scipy.special.ndtr` (accurate in the tails). The standardized matrix is named
by wrapping the measure: ``std(AP)`` for Φ(z), ``z(AP)`` for z itself.

Factors are saved in irstats' TSV (``topic measure mean sd n ddof``, with ``# key: value``
metadata lines above the header) or in trec_eval's ``-Z`` format (``topic measure mean
sd``, trec_eval measure names).

Example
-------
>>> factors = fit_factors(scores["AP"])                      # doctest: +SKIP
>>> write_factors(factors, "factors.tsv")                    # doctest: +SKIP
>>> std_ap = apply_factors(new_scores["AP"], read_factors("factors.tsv"))  # doctest: +SKIP
>>> std_ap.measure                                           # doctest: +SKIP
'std(AP)'
"""

from __future__ import annotations

import os
import warnings
from typing import Iterable, Mapping, Sequence

import numpy as np

from irstats.stats.degenerate import ZERO_TOL
from irstats.checks import kind_of, names as name_list, one_of, score_matrix
from irstats.errors import ArgumentTypeError, InputError, IrstatsWarning, some
from irstats.factors import Factors
from irstats.scores import ScoreMatrix, score_matrices


STANDARD_FORMS = ("cdf", "z")
ZERO_SD = ("trec_eval", "inf", "drop")


class ZeroVarianceWarning(IrstatsWarning):
    """Some topics have σ_t = 0 (every reference system scored the same); ``topics`` lists them."""

    def __init__(self, message: str, topics: Sequence[str] = (), measure: str | None = None):
        super().__init__(message)
        self.topics = tuple(topics)
        self.measure = measure


class MissingFactorsWarning(IrstatsWarning):
    """Some topics have no factors; their standardized scores are NaN. ``topics`` lists them."""

    def __init__(self, message: str, topics: Sequence[str] = (), measure: str | None = None):
        super().__init__(message)
        self.topics = tuple(topics)
        self.measure = measure


# --- fitting ------------------------------------------------------------------------------


def fit_factors(matrix_or_scores: ScoreMatrix | Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix],
                reference: Sequence[str] | None = None, ddof: int = 1) -> Factors:
    """Fit per-topic means and standard deviations on a reference set of systems (§4.1).

    Parameters
    ----------
    matrix_or_scores:
        One ScoreMatrix, or several (``{measure: matrix}`` as :func:`irstats.evaluate` returns).
    reference:
        The reference ("standardizing") systems; None means every system of each matrix.
    ddof:
        Delta degrees of freedom of the standard deviation (1: sample sd). At least
        ``ddof + 1`` reference systems are needed.

    A reference system without a score on a topic (NaN) is left out of that topic's
    factors. A topic with at most ``ddof`` reference scores gets no factors (warning).

    >>> factors = fit_factors(scores, reference=["runA", "runB", "runC"])  # doctest: +SKIP
    """
    if not isinstance(ddof, (int, np.integer)) or ddof < 0:
        raise InputError(f"ddof must be a whole number >= 0, not {ddof!r}")
    matrices = score_matrices(matrix_or_scores)
    if not matrices:
        raise InputError("no scores to fit standardization factors on")
    topics_out: list[np.ndarray] = []
    measures_out: list[np.ndarray] = []
    means, sds, ns = [], [], []
    ref_names: tuple[str, ...] | None = None
    options: dict[str, dict] = {}
    for matrix in matrices:
        if reference is None:
            rows = np.arange(len(matrix.systems))
            names = matrix.systems
        else:
            names = tuple(dict.fromkeys(str(r) for r in name_list(reference, "reference", what="system names")))
            index = {s: i for i, s in enumerate(matrix.systems)}
            unknown = [r for r in names if r not in index]
            if unknown:
                shown = some(unknown)
                raise InputError(f"reference system(s) {shown} not in the scores of {matrix.measure!r}")
            rows = np.array([index[r] for r in names], dtype=np.int64)
        if len(rows) < ddof + 1:
            raise InputError(f"standardization with ddof={ddof} needs at least {ddof + 1} reference systems; "
                             f"{matrix.measure!r} has {len(rows)}")
        ref_names = tuple(names) if ref_names is None else ref_names
        x = matrix.values[rows]
        valid = ~np.isnan(x)
        n = valid.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mu = np.where(valid, x, 0.0).sum(axis=0) / n
            mu = mu + np.where(valid, x - mu, 0.0).sum(axis=0) / n  # one refinement step of the mean
            dev = np.where(valid, x - mu, 0.0)
            sd = np.sqrt((dev ** 2).sum(axis=0) / (n - ddof))
        ok = n > ddof
        if not ok.all():
            lacking = [t for t, k in zip(matrix.topics, ok) if not k]
            shown = some(lacking, limit=10)
            warnings.warn(IrstatsWarning(
                f"{matrix.measure}: topic(s) {shown} have at most {ddof} reference score(s) and get no "
                "standardization factors"), stacklevel=2)
        topics_out.append(np.array(matrix.topics, dtype=object)[ok])
        measures_out.append(np.array([matrix.measure] * int(ok.sum()), dtype=object))
        means.append(mu[ok])
        sds.append(sd[ok])
        ns.append(n[ok].astype(np.float64))
        options[matrix.measure] = dict(matrix.options)
    from irstats import __version__

    return Factors(tuple(np.concatenate(topics_out).tolist()), tuple(np.concatenate(measures_out).tolist()),
                   np.concatenate(means), np.concatenate(sds), np.concatenate(ns), int(ddof), ref_names, options,
                   None, __version__, _canonical_or_none)


# --- applying -----------------------------------------------------------------------------


def standardized_name(measure: str, form: str = "cdf") -> str:
    """``std(AP)`` for ``form="cdf"``, ``z(AP)`` for ``form="z"``."""
    one_of(form, "form", STANDARD_FORMS)
    return f"{'std' if form == 'cdf' else 'z'}({measure})"


def apply_factors(matrix: ScoreMatrix, factors: Factors, form: str = "cdf", zero_sd: str = "trec_eval",
                  missing: str = "warn") -> ScoreMatrix:
    """Standardize a score matrix with stored factors (§4.2–4.4).

    Parameters
    ----------
    matrix:
        Scores of any systems (they need not be among the reference systems).
    factors:
        From :func:`fit_factors`, :func:`read_factors` or :func:`read_trec_eval_factors`.
    form:
        ``"cdf"`` (default): Φ(z), named ``std(M)``; ``"z"``: z itself, named ``z(M)``.
    zero_sd:
        Topics with σ_t = 0. ``"trec_eval"`` (default, as ``convert_zscores.c``): z = 0 if
        |x − μ_t| ≤ 1e-12, else NaN. ``"inf"``: z = ±∞ (Φ = 0 or 1), 0 at the mean.
        ``"drop"``: the topic is left out of the result. A :class:`ZeroVarianceWarning`
        lists the topics in every case.
    missing:
        Topics of ``matrix`` without factors: ``"warn"`` (default; NaN and a
        :class:`MissingFactorsWarning`, never trec_eval's −1000000) or ``"error"``.

    Returns
    -------
    ScoreMatrix
        Same systems; same topics (less dropped ones); measure ``std(M)`` or ``z(M)``.
    """
    score_matrix(matrix)
    if not isinstance(factors, Factors):
        raise ArgumentTypeError(f"factors must be Factors (from fit_factors, read_factors or read_trec_eval_factors); "
                                f"got {kind_of(factors)}", argument="factors")
    if form not in STANDARD_FORMS:
        raise InputError(f"unknown form {form!r}; expected one of {', '.join(STANDARD_FORMS)}")
    if zero_sd not in ZERO_SD:
        raise InputError(f"unknown zero_sd rule {zero_sd!r}; expected one of {', '.join(ZERO_SD)}")
    if missing not in ("warn", "error"):
        raise InputError(f"unknown missing rule {missing!r}; expected 'warn' or 'error'")
    mean, sd, found = factors.lookup(matrix.measure, matrix.topics)
    _check_options(matrix, factors)
    if not found.all():
        lacking = [t for t, f in zip(matrix.topics, found) if not f]
        shown = some(lacking, limit=10)
        if missing == "error":
            raise InputError(f"no factors for measure {matrix.measure!r} on topic(s) {shown}", path=factors.source)
        where = f" in {factors.source}" if factors.source else ""
        warnings.warn(MissingFactorsWarning(
            f"no standardization factors{where} for {matrix.measure} on topic(s) {shown}: their scores are NaN",
            lacking, matrix.measure), stacklevel=2)

    x = matrix.values
    diff = x - mean
    zero = found & (sd == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = diff / np.where(zero | ~found, 1.0, sd)
    z = np.where(found, z, np.nan)
    keep = np.ones(len(matrix.topics), dtype=bool)
    if zero.any():
        at_mean = np.abs(diff) <= ZERO_TOL  # the one zero tolerance (irstats.stats.degenerate)
        if zero_sd == "trec_eval":
            zz = np.where(at_mean, 0.0, np.nan)
            effect = "z = 0 at the mean, NaN elsewhere (trec_eval)"
        elif zero_sd == "inf":
            with np.errstate(invalid="ignore"):
                zz = np.where(at_mean, 0.0, np.sign(diff) * np.inf)
            effect = "z = ±inf away from the mean"
        else:
            zz = np.full_like(z, np.nan)
            keep = ~zero
            effect = "left out"
        z = np.where(zero[None, :], np.where(np.isnan(x), np.nan, zz), z)
        topics = [t for t, f in zip(matrix.topics, zero) if f]
        shown = some(topics, limit=10)
        warnings.warn(ZeroVarianceWarning(
            f"{matrix.measure}: {len(topics)} topic(s) with zero variance among the reference systems ({shown}): "
            f"{effect}", topics, matrix.measure), stacklevel=2)
    from scipy.special import ndtr  # scipy only where used (start-up)

    values = ndtr(z) if form == "cdf" else z
    options = dict(matrix.options)
    options["standardization"] = {"form": form, "zero_sd": zero_sd, "ddof": factors.ddof,
                                  "reference": list(factors.reference) if factors.reference is not None else None,
                                  "factors": factors.source}
    out = ScoreMatrix(values[:, keep], matrix.systems, tuple(t for t, k in zip(matrix.topics, keep) if k),
                      standardized_name(matrix.measure, form), options, "mean")
    return out


_OPTION_KEYS = ("rel_level", "complete", "depth", "judged_only", "order", "score_dtype", "negative_rel", "drop_r0",
                "g_max")


def _check_options(matrix: ScoreMatrix, factors: Factors) -> None:
    fitted = factors.options.get(factors._key(matrix.measure) or matrix.measure) or {}
    if not fitted or not matrix.options:
        return
    differ = [k for k in _OPTION_KEYS if k in fitted and k in matrix.options and fitted[k] != matrix.options[k]]
    if differ:
        text = ", ".join(f"{k}: fitted {fitted[k]!r}, scores {matrix.options[k]!r}" for k in differ)
        warnings.warn(IrstatsWarning(f"{matrix.measure}: the factors were fitted on scores made with other "
                                     f"options ({text})"), stacklevel=3)


def standardize(matrix_or_scores, reference: Sequence[str] | None = None, ddof: int = 1, form: str = "cdf",
                zero_sd: str = "trec_eval"):
    """Fit factors on the reference systems and apply them to every system, in one call.

    Returns a ScoreMatrix for a ScoreMatrix, or ``{new measure name: matrix}`` for a dict.
    """
    factors = fit_factors(matrix_or_scores, reference=reference, ddof=ddof)
    if isinstance(matrix_or_scores, ScoreMatrix):
        return apply_factors(matrix_or_scores, factors, form=form, zero_sd=zero_sd)
    out = {}
    for m in score_matrices(matrix_or_scores):
        s = apply_factors(m, factors, form=form, zero_sd=zero_sd)
        out[s.measure] = s
    return out


# --- factor files -------------------------------------------------------------------------
# Read and written by irstats.io.factors, which sits below the measures: the names are parsed here.


def _canonical_or_none(name: str) -> str | None:
    """The canonical name of a measure name, or None if it is none irstats knows."""
    from irstats.errors import MeasureError
    from irstats.measures import canonical_name

    try:
        return canonical_name(name)
    except (MeasureError, KeyError, ValueError):
        return None


def _trec_eval_name_or_own(name: str) -> str | None:
    """trec_eval's name of a measure (None: trec_eval lacks it), or ``name`` itself where it
    names no irstats measure (a trec_eval name irstats does not compute, kept as read)."""
    from irstats.errors import MeasureError
    from irstats.measures import parse_measure

    try:
        return parse_measure(name).trec_eval_name
    except MeasureError:
        return name


def read_factors(path: str | os.PathLike) -> Factors:
    """Read irstats' factor TSV (:func:`irstats.io.factors.read_factors`), measure names
    canonicalised (``map`` → ``AP``); a malformed line is an error naming the file and line."""
    from irstats.io import factors

    return factors.read_factors(path, _canonical_or_none)


def read_trec_eval_factors(path: str | os.PathLike) -> Factors:
    """Read a trec_eval ``-Z`` file (:func:`irstats.io.factors.read_trec_eval_factors`), trec_eval's
    names mapped to canonical ones (``P_10`` → ``P@10``), names irstats does not know kept."""
    from irstats.io import factors

    return factors.read_trec_eval_factors(path, _canonical_or_none)


def read_any_factors(path: str | os.PathLike) -> Factors:
    """Read either format: irstats' TSV if a header line names ``topic``, else trec_eval's."""
    from irstats.io import factors

    return factors.read_any_factors(path, _canonical_or_none)


def write_factors(factors: Factors, path: str | os.PathLike | None) -> str | None:
    """Write factors as irstats' TSV (:func:`irstats.io.factors.write_factors`); return the
    text when ``path`` is None."""
    from irstats.io import factors as files

    return files.write_factors(factors, path)


def write_trec_eval_factors(factors: Factors, path: str | os.PathLike | None) -> str | None:
    """Write factors in trec_eval's ``-Z`` format under trec_eval's measure names
    (:func:`irstats.io.factors.write_trec_eval_factors`); a measure trec_eval lacks (``SP``) is
    an error. Returns the text when ``path`` is None."""
    from irstats.io import factors as files

    return files.write_trec_eval_factors(factors, path, _trec_eval_name_or_own)


__all__ = ["Factors", "MissingFactorsWarning", "ZeroVarianceWarning", "apply_factors", "fit_factors",
           "read_any_factors", "read_factors", "read_trec_eval_factors", "standardize", "standardized_name",
           "write_factors", "write_trec_eval_factors"]
