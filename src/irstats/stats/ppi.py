"""Prediction-powered means (METHODS.md §5.8), batched over rows: one row per system (or per
pair of systems), its gold scores on the gold topics G, the cheap (e.g. LLM-labelled) scores
on G and on the other topics U = T \\ G.

Written to equal ``ppi_py``'s ``ppi_mean_pointestimate`` and ``ppi_mean_ci`` (Angelopoulos
et al.; ``pip install ppi-python``) with ``Y`` = the gold scores on G, ``Yhat`` = the cheap
scores on G and ``Yhat_unlabeled`` = the cheap scores on U, one row at a time:

- λ: given (1 = classic PPI, 0 = the gold topics only), or PPI++'s power-tuned
  λ̂ = Cov_G(y, f) / ((1 + n/N)·Var_{G∪U}(f)), the covariance with divisor n, the variance
  with ddof 1, clipped to [0, 1] (ppi_py's ``_calc_lam_glm`` for a mean, ``clip=True``);
- θ̂_λ = mean_U(λ·f) + mean_G(y − λ·f);
- interval θ̂_λ ± z_{1−α/2}·√(sd(λ·f_U)²/N + sd(y − λ·f_G)²/n), the standard deviations with
  divisor N and n (numpy's ``std``, as ppi_py; METHODS.md §5.8 says ddof 1 there, but also
  "match ppi_py to 1e-9", and ppi_py divides by N and n);
- beside it the classical interval of the gold topics alone, mean_G(y) ± z·sd(y)/√n (ppi_py's
  ``classical_mean_ci``, which is the PPI interval at λ = 0), the cheap labels' own estimate
  mean_{G∪U}(f), and the effective number of gold topics, n·se_gold²/se_PPI²: how many gold
  topics a classical interval would need to be as narrow as the PPI one.

Missing scores (NaN) are left out row by row: a gold topic counts where both y and f are
present, another topic where f is. A row with fewer than 2 gold topics or no other topic
gives NaN. One case differs from ppi_py on purpose: when every cheap score of a row is equal
(Var_{G∪U}(f) = 0), ppi_py's tuned λ is 0/0 = NaN; here it is 0 — every λ then gives the same
estimate and interval, so the one that says "the cheap labels add nothing" is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from irstats.checks import numbers, real, share


@dataclass(frozen=True)
class PPIRows:
    """Arrays, one value per row."""

    estimate: np.ndarray  # θ̂_λ
    ci_low: np.ndarray
    ci_high: np.ndarray
    se: np.ndarray  # standard error of θ̂_λ
    lam: np.ndarray  # the λ used (tuned or given)
    gold_estimate: np.ndarray  # mean of y over the gold topics
    gold_ci_low: np.ndarray
    gold_ci_high: np.ndarray
    gold_se: np.ndarray
    auto_estimate: np.ndarray  # mean of f over every topic (G ∪ U)
    n_gold: np.ndarray  # n (int)
    n_other: np.ndarray  # N (int)
    n_effective: np.ndarray  # n·gold_se²/se²


@dataclass(frozen=True)
class PPIMean:
    """One row of :class:`PPIRows` as floats."""

    estimate: float
    ci_low: float
    ci_high: float
    se: float
    lam: float
    gold_estimate: float
    gold_ci_low: float
    gold_ci_high: float
    gold_se: float
    auto_estimate: float
    n_gold: int
    n_other: int
    n_effective: float


def _rows(value: npt.ArrayLike, argument: str) -> np.ndarray:
    array = numbers(value, argument)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2:
        from irstats.errors import ArgumentError

        raise ArgumentError(f"{argument} must be one row of scores or rows × topics; got {array.ndim} dimensions",
                            argument=argument)
    return array


def _masked_mean(x: np.ndarray, mask: np.ndarray, count: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        mean: np.ndarray = np.where(mask, x, 0.0).sum(axis=1) / count
    return mean


def _masked_std(x: np.ndarray, mask: np.ndarray, count: np.ndarray, ddof: int = 0) -> np.ndarray:
    """Two-pass standard deviation of each row's masked values (numpy's ``std``)."""
    centred = np.where(mask, x - _masked_mean(x, mask, count)[:, None], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        std: np.ndarray = np.sqrt((centred ** 2).sum(axis=1) / (count - ddof))
    return std


def ppi_mean_rows(Y: npt.ArrayLike, Yhat: npt.ArrayLike, Yhat_unlabeled: npt.ArrayLike, *,
                  alpha: npt.ArrayLike = 0.05, lam: float | None = None) -> PPIRows:
    """Prediction-powered means of rows: ``Y`` and ``Yhat`` (rows × n gold topics: the gold
    and the cheap scores), ``Yhat_unlabeled`` (rows × N other topics: the cheap scores).
    ``alpha``: one level, or one per row (e.g. Bonferroni-adjusted); ``lam``: None for PPI++'s
    tuned λ (per row), or a number in [0, 1] (1: classic PPI, 0: gold only)."""
    y = _rows(Y, "Y")
    f = _rows(Yhat, "Yhat")
    fu = _rows(Yhat_unlabeled, "Yhat_unlabeled")
    if y.shape != f.shape or fu.shape[0] != y.shape[0]:
        from irstats.errors import ArgumentError

        raise ArgumentError(f"Y and Yhat must have the same shape and Yhat_unlabeled as many rows; got {y.shape}, "
                            f"{f.shape} and {fu.shape}", argument="Yhat_unlabeled")
    if np.ndim(alpha) == 0:
        alpha = share(alpha, "alpha")
    else:  # one level per row
        levels = numbers(alpha, "alpha")
        for level in levels.ravel():
            share(float(level), "alpha")
        if levels.shape != (y.shape[0],):
            from irstats.errors import ArgumentError

            raise ArgumentError(f"alpha must be one level or one per row ({y.shape[0]}); got shape {levels.shape}",
                                argument="alpha")
        alpha = levels
    if lam is not None:
        lam = real(lam, "lam", low=0.0, high=1.0)

    gold = ~np.isnan(y) & ~np.isnan(f)
    other = ~np.isnan(fu)
    n = gold.sum(axis=1)
    N = other.sum(axis=1)
    usable = (n >= 2) & (N >= 1)
    nf, Nf = n.astype(float), N.astype(float)

    from scipy.special import ndtri  # scipy.stats.norm.ppf, without importing scipy.stats

    with np.errstate(invalid="ignore", divide="ignore"):  # rows without enough topics: NaN, left out below
        if lam is None:
            ybar, fbar = _masked_mean(y, gold, nf), _masked_mean(f, gold, nf)
            cov = np.where(gold, (y - ybar[:, None]) * (f - fbar[:, None]), 0.0).sum(axis=1) / nf
            both = np.concatenate([f, fu], axis=1)
            var = _masked_std(both, np.concatenate([gold, other], axis=1), nf + Nf, ddof=1) ** 2
            tuned = np.clip(cov / ((1.0 + nf / Nf) * var), 0.0, 1.0)
            lam_rows = np.where(var == 0.0, 0.0, tuned)  # constant cheap scores: every λ is the same; say 0
        else:
            lam_rows = np.full(y.shape[0], lam)
        lam_col = lam_rows[:, None]
        imputed, rectifier = lam_col * fu, y - lam_col * f
        estimate = _masked_mean(imputed, other, Nf) + _masked_mean(rectifier, gold, nf)
        se = np.sqrt((_masked_std(imputed, other, Nf) / np.sqrt(Nf)) ** 2
                     + (_masked_std(rectifier, gold, nf) / np.sqrt(nf)) ** 2)
        gold_estimate = _masked_mean(y, gold, nf)
        gold_se = _masked_std(y, gold, nf) / np.sqrt(nf)
        n_effective = nf * gold_se ** 2 / se ** 2
        auto_estimate = _masked_mean(np.concatenate([f, fu], axis=1), np.concatenate([gold, other], axis=1),
                                     nf + Nf)
    z = ndtri(1.0 - np.asarray(alpha) / 2.0)

    def keep(values: np.ndarray) -> np.ndarray:
        return np.where(usable, values, np.nan)

    return PPIRows(keep(estimate), keep(estimate - z * se), keep(estimate + z * se), keep(se), keep(lam_rows),
                   keep(gold_estimate), keep(gold_estimate - z * gold_se), keep(gold_estimate + z * gold_se),
                   keep(gold_se), keep(auto_estimate), n.astype(np.int64), N.astype(np.int64), keep(n_effective))


def ppi_mean(Y: npt.ArrayLike, Yhat: npt.ArrayLike, Yhat_unlabeled: npt.ArrayLike, *, alpha: float = 0.05,
             lam: float | None = None) -> PPIMean:
    """The prediction-powered mean of one system: :func:`ppi_mean_rows` on one row.

    >>> m = ppi_mean([0.5, 0.7, 0.2], [0.6, 0.8, 0.2], [0.4, 0.9, 0.3, 0.5], lam=1)
    >>> round(m.estimate, 4), m.n_gold, m.n_other
    (0.4583, 3, 4)
    """
    given = {"Y": numbers(Y, "Y"), "Yhat": numbers(Yhat, "Yhat"), "Yhat_unlabeled": numbers(Yhat_unlabeled,
                                                                                           "Yhat_unlabeled")}
    for argument, values in given.items():
        if values.ndim != 1:
            from irstats.errors import ArgumentError

            raise ArgumentError(f"{argument} must be one system's scores (one value per topic); got "
                                f"{values.ndim} dimensions (ppi_mean_rows takes rows)", argument=argument)
    rows = ppi_mean_rows(*given.values(), alpha=alpha, lam=lam)
    return PPIMean(*(v[0].item() for v in vars(rows).values()))


__all__ = ["PPIMean", "PPIRows", "ppi_mean", "ppi_mean_rows"]
