"""Robustness of score standardization (METHODS.md §5.3; *Score Standardization* §4).

Two experiments:

**Number of standardizing systems** (:func:`standardization_robustness`). For each sample
size n, R random samples of n systems are drawn (without replacement) from the
standardizing pool S_std; each sample gives per-topic factors (μ_t, σ_t), with which the
evaluated systems are standardized (Φ(z), §4.2) and aggregated by the arithmetic mean;
Kendall's τ_b of that ranking against the one from the factors of the whole pool is
recorded. Per n the 50%, 5% and 1% quantiles of τ are reported (the paper's "50th, 95th
and 99th percentile lowest").

**Factor longevity** (:func:`factor_longevity`). The evaluated systems standardized with
two different factor sets (e.g. the collection's original systems and newer ones):
Pearson's r on the AM-std scores and τ_b on the rankings.

How the samples are computed
----------------------------
The samples of one size are processed in batches, as arrays: ``samples`` is a
(batch, n) array of pool indices, the factor sums are masked sums over the sampled
systems, accumulated one sample position at a time (``acc += X[samples[:, j]]``), with
the same two-pass-and-refinement formula as :func:`irstats.standardize.fit_factors`.
Accumulating explicitly (rather than with a BLAS product of a 0/1 mask by the score
matrix, whose summation order may depend on the matrix shapes) fixes the order of every
sum, so a sample's τ is bit-identical whatever the batch size. Memory is bounded by
:data:`irstats.stats.resampling.ELEMENT_BUDGET` float64 values per working array.

Randomness (METHODS.md §5): one ``numpy.random.Generator(PCG64(seed))``; the sizes are
taken in increasing order and for each, ``n_samples`` rows of
``rng.permuted(tile(arange(|S_std|)), axis=1)``, whose first n columns are the sample
(:func:`draw_samples`). System ids are sorted bytewise first, so a seed gives the same
numbers however the matrix was built.

Example
-------
>>> from irstats.meta.robustness import standardization_robustness
>>> res = standardization_robustness(scores["AP"], standardizing=trec2003_runs,   # doctest: +SKIP
...                                   evaluated=trec2004_runs, n_samples=2000, seed=0)
>>> res.to_frame()                                                                # doctest: +SKIP
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.checks import kind_of, names, numbers, score_matrix, whole
from irstats.random import Seed, check_seed, generator, seed_label
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, some
from irstats.meta.correlation import kendall_tau_b, pearson
from irstats.ids import bytewise_unique as _bytewise
from irstats.scores import ScoreMatrix
from irstats.progress import Progress, progress_bar
from irstats.stats.degenerate import ZERO_TOL
from irstats.standardize import (
    ZERO_SD,
    Factors,
    ZeroVarianceWarning,
    apply_factors,
    fit_factors,
)
from irstats.stats.resampling import batch_slices

#: The quantiles reported by default: median and the 5% and 1% lower tails.
ROBUSTNESS_QUANTILES = (0.5, 0.05, 0.01)


# --------------------------------------------------------------------------- helpers


def draw_samples(pool_size: int, n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` random samples of ``n`` distinct pool indices: a (count, n) int array.

    Row b is the first n entries of an independent random permutation of the pool
    (``rng.permuted`` on a (count, pool_size) array, row by row), sorted ascending.
    """
    if not 1 <= n <= pool_size:
        raise InputError(f"cannot sample {n} systems from a pool of {pool_size}")
    perms = rng.permuted(np.tile(np.arange(pool_size, dtype=np.int64), (count, 1)), axis=1)
    return np.sort(perms[:, :n], axis=1)


def _check_zero_sd(zero_sd: str) -> None:
    if zero_sd not in ZERO_SD:
        raise InputError(f"unknown zero_sd rule {zero_sd!r}; expected one of {', '.join(ZERO_SD)}")


def _am_std_scores(x: np.ndarray, mu: np.ndarray, sd: np.ndarray, ok: np.ndarray, zero_sd: str) -> np.ndarray:
    """AM over topics of Φ(z) for scores ``x`` (..., s, t) and factors (..., 1, t).

    The rules of :func:`irstats.standardize.apply_factors` (§4.3–4.4), vectorised: a topic
    without factors (``ok`` False) gives NaN; σ = 0 follows ``zero_sd``; the mean skips
    NaN as :meth:`ScoreMatrix.means` does.
    """
    diff = x - mu
    zero = ok & (sd == 0)
    has_zero = bool(zero.any())
    all_ok = bool(ok.all())
    with np.errstate(invalid="ignore", divide="ignore"):
        z = diff / (sd if all_ok and not has_zero else np.where(zero | ~ok, 1.0, sd))
    if not all_ok:
        z = np.where(ok, z, np.nan)
    if has_zero:
        at_mean = np.abs(diff) <= ZERO_TOL
        zz: np.ndarray | float
        if zero_sd == "trec_eval":
            zz = np.where(at_mean, 0.0, np.nan)
        elif zero_sd == "inf":
            with np.errstate(invalid="ignore"):
                zz = np.where(at_mean, 0.0, np.sign(diff) * np.inf)
        else:  # drop: the topic leaves every system's aggregate
            zz = np.nan
        z = np.where(zero, np.where(np.isnan(x), np.nan, zz), z)
    from scipy.special import ndtr  # scipy only where used (start-up)

    values = ndtr(z, out=z)
    counted = ~np.isnan(values)
    if counted.all():  # the same sums as below, without the copies
        return values.sum(axis=-1) / values.shape[-1]
    totals = np.where(counted, values, 0.0).sum(axis=-1)
    n = counted.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, totals / np.maximum(n, 1), np.nan)


def sample_factors(pool: np.ndarray, samples: np.ndarray, ddof: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-topic factors of many samples at once: ``(mu, sd, ok)``, each (samples, t).

    ``pool`` is the standardizing systems' scores (s_std × t, NaN = no score), ``samples``
    a (B, n) array of pool rows. The formula is :func:`~irstats.standardize.fit_factors`'s
    (mean with one refinement step, then the sum of squared deviations), accumulated
    sample position by sample position; ``ok`` is False where a topic has at most ``ddof``
    scores in the sample (no factors).
    """
    valid = ~np.isnan(pool)
    xz = np.where(valid, pool, 0.0)
    B, n = samples.shape
    t = pool.shape[1]
    count = np.zeros((B, t), dtype=np.int64)
    total = np.zeros((B, t))
    for j in range(n):
        rows = samples[:, j]
        count += valid[rows]
        total += xz[rows]
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = total / count
        refine = np.zeros((B, t))
        for j in range(n):
            rows = samples[:, j]
            refine += np.where(valid[rows], xz[rows] - mu, 0.0)
        mu = mu + refine / count
        squares = np.zeros((B, t))
        for j in range(n):
            rows = samples[:, j]
            dev = np.where(valid[rows], xz[rows] - mu, 0.0)
            squares += dev * dev
        sd = np.sqrt(squares / (count - ddof))
    return mu, sd, count > ddof


def sample_taus(pool: np.ndarray, evaluated: np.ndarray, samples: np.ndarray, reference: np.ndarray,
                ddof: int = 1, zero_sd: str = "trec_eval", batch_size: int | None = None,
                progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """τ_b against ``reference`` and the share of zero-variance topics, per sample.

    ``pool``: standardizing scores (s_std × t); ``evaluated``: evaluated systems' scores
    over the same topics (s_eval × t); ``samples``: (R, n) pool rows; ``reference``: the
    evaluated systems' reference aggregates (s_eval,). Returns two arrays of length R.
    Results do not depend on ``batch_size`` (default: as many samples as keep a batch's
    largest working array under :data:`irstats.stats.resampling.ELEMENT_BUDGET` values).
    """
    _check_zero_sd(zero_sd)
    pool = np.ascontiguousarray(pool, dtype=np.float64)
    evaluated = np.ascontiguousarray(evaluated, dtype=np.float64)
    samples = np.asarray(samples, dtype=np.int64)
    R = samples.shape[0]
    s_eval, t = evaluated.shape
    taus = np.empty(R)
    zero_share = np.empty(R)
    for batch in batch_slices(R, batch_size, s_eval * t):
        rows = samples[batch]
        mu, sd, ok = sample_factors(pool, rows, ddof)
        agg = _am_std_scores(evaluated[None, :, :], mu[:, None, :], sd[:, None, :], ok[:, None, :], zero_sd)
        taus[batch] = kendall_tau_b(agg, reference[None, :])
        zero_share[batch] = (ok & (sd == 0)).sum(axis=1) / max(t, 1)
        if progress is not None:
            progress(len(rows))
    return taus, zero_share


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class RobustnessResult(Result):
    """Output of :func:`standardization_robustness`.

    ``taus[i, b]`` is τ_b of sample b of size ``sizes[i]``; ``tau_quantiles[i, k]`` the
    ``quantiles[k]`` quantile of row i (NaN τ left out; ``nan_count`` says how many);
    ``zero_variance[i]`` the mean share of topics with σ_t = 0 in the samples of that size.
    ``reference_scores`` are the evaluated systems' AM-std scores with the factors of the
    whole pool, ``raw_scores`` their raw AM; ``raw_tau`` = τ_b(raw AM, reference AM), the
    "raw against standardized" comparison line of *Score Standardization* Fig. 4.
    """

    measure: str
    sizes: np.ndarray
    quantiles: tuple[float, ...]
    taus: np.ndarray
    tau_quantiles: np.ndarray
    nan_count: np.ndarray
    zero_variance: np.ndarray
    standardizing: tuple[str, ...]
    evaluated: tuple[str, ...]
    topics: tuple[str, ...]
    reference_scores: np.ndarray
    raw_scores: np.ndarray
    raw_tau: float
    n_samples: int
    seed: int | str
    ddof: int
    zero_sd: str
    samples: dict[int, np.ndarray] | None = field(default=None, repr=False)

    @staticmethod
    def quantile_label(q: float) -> str:
        """Column name of a quantile: ``tau_q50``, ``tau_q05``, ``tau_q01``, ``tau_q2.5``."""
        pct = 100 * q
        text = f"{pct:02.0f}" if abs(pct - round(pct)) < 1e-9 else f"{pct:g}"
        return f"tau_q{text}"

    def to_frame(self) -> pl.DataFrame:
        """One row per size: ``n``, one column per quantile, ``tau_mean``, ``tau_min``,
        ``nan``, ``zero_variance``."""
        data: dict[str, object] = {"n": self.sizes.astype(np.int64)}
        for k, q in enumerate(self.quantiles):
            data[self.quantile_label(q)] = self.tau_quantiles[:, k]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            data["tau_mean"] = np.nanmean(self.taus, axis=1)
            data["tau_min"] = np.nanmin(self.taus, axis=1)
        data["nan"] = self.nan_count.astype(np.int64)
        data["zero_variance"] = self.zero_variance
        return pl.DataFrame(data)

    @property
    def title(self) -> str:
        return (f"Robustness of standardization: std({self.measure}); {len(self.standardizing)} standardizing "
                f"systems, {len(self.evaluated)} evaluated, {len(self.topics)} topics")

    def legend(self) -> list[str]:
        return [f"{self.n_samples} samples per size, seed {self.seed}; ddof {self.ddof}; zero-variance rule "
                f"{self.zero_sd}",
                f"τ_b(raw {self.measure}, std({self.measure}) with the full factor set) = {self.raw_tau:.4f}"]

    def display_table(self, digits: int = 4):
        """A row per sample size: τ's quantiles, mean and minimum, NaN count, zero-variance share."""
        from irstats.render import Cell, Table, number_cell

        frame = self.to_frame()
        qcols = [c for c in frame.columns if c.startswith("tau_q")]
        header = ["n", *(f"τ {float(c[5:]):g}%" for c in qcols), "τ mean", "τ min", "NaN", "zero-var"]
        rows = [[Cell(str(r["n"])), *(number_cell(r[c], digits) for c in qcols), number_cell(r["tau_mean"], digits),
                 number_cell(r["tau_min"], digits), Cell(str(r["nan"])), number_cell(r["zero_variance"], digits)]
                for r in frame.iter_rows(named=True)]
        return Table.of(header, rows, [True] * len(header), title=self.title, legend=self.legend(),
                        header_latex=["$n$", *(rf"$\tau$ {float(c[5:]):g}\%" for c in qcols), r"$\tau$ mean",
                                      r"$\tau$ min", "NaN", "zero-var"], label="tab:robustness")

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON: the rows with the settings they were made with."""
        import json

        return json.dumps(self.to_dict(), indent=1, default=lambda v: v.item() if hasattr(v, "item") else str(v)) + "\n"

    def to_dict(self) -> dict:
        """Everything but the τ vectors, JSON-ready."""
        return {"measure": self.measure, "n_standardizing": len(self.standardizing),
                "n_evaluated": len(self.evaluated), "n_topics": len(self.topics), "n_samples": self.n_samples,
                "seed": self.seed, "ddof": self.ddof, "zero_sd": self.zero_sd, "raw_tau": self.raw_tau,
                "quantiles": list(self.quantiles), "rows": self.to_frame().to_dicts()}

    def __repr__(self) -> str:
        return (f"RobustnessResult({self.measure!r}, {len(self.standardizing)} standardizing, "
                f"{len(self.evaluated)} evaluated, sizes {int(self.sizes.min())}..{int(self.sizes.max())}, "
                f"{self.n_samples} samples each)")



def _require_known(names: Sequence[str], known: set[str], role: str, measure: str) -> None:
    """Raise naming (up to five of) the ``role`` systems that have no scores."""
    unknown = [s for s in names if s not in known]
    if unknown:
        raise InputError(f"{role} system(s) {some(unknown)} not in the scores of {measure!r}")


def _resolve_sets(matrix: ScoreMatrix, standardizing, evaluated) -> tuple[ScoreMatrix, ScoreMatrix]:
    """The pool matrix and the evaluated matrix, systems and topics in bytewise order."""
    score_matrix(matrix)
    known = set(matrix.systems)
    pool_names = _bytewise(matrix.systems if standardizing is None else names(standardizing, "standardizing",
                                                                               what="system names"))
    _require_known(pool_names, known, "standardizing", matrix.measure)
    if isinstance(evaluated, ScoreMatrix):
        topics = _bytewise(evaluated.topics)
        lacking = [t for t in topics if t not in set(matrix.topics)]
        if lacking:
            raise InputError(f"the standardizing scores lack topic(s) {some(lacking)} "
                             "of the evaluated systems")
        eval_matrix = evaluated.subset(_bytewise(evaluated.systems), topics)
    else:
        topics = _bytewise(matrix.topics)
        eval_names = _bytewise(matrix.systems if evaluated is None else names(evaluated, "evaluated",
                                                                               what="system names"))
        _require_known(eval_names, known, "evaluated", matrix.measure)
        eval_matrix = matrix.subset(eval_names, topics)
    if len(eval_matrix.systems) < 2:
        raise InputError("τ needs at least 2 evaluated systems")
    pool = matrix.subset(pool_names, topics)
    return pool, eval_matrix


def reference_scores(pool: ScoreMatrix, evaluated: ScoreMatrix, ddof: int = 1,
                     zero_sd: str = "trec_eval") -> np.ndarray:
    """The evaluated systems' AM of Φ(z) with factors fitted on every pool system."""
    factors = fit_factors(pool, ddof=ddof)
    return apply_factors(evaluated, factors, zero_sd=zero_sd).means()


def standardization_robustness(matrix: ScoreMatrix, standardizing: Sequence[str] | None = None,
                               evaluated: Sequence[str] | ScoreMatrix | None = None,
                               sizes: Iterable[int] | None = None, n_samples: int = 2000,
                               seed: Seed = 0, ddof: int = 1, zero_sd: str = "trec_eval",
                               quantiles: Sequence[float] = ROBUSTNESS_QUANTILES, batch_size: int | None = None,
                               keep_samples: bool = False,
                               progress: Progress = None, client=None) -> RobustnessResult:
    """How many standardizing systems reliable factors need (METHODS.md §5.3).

    Parameters
    ----------
    matrix:
        Per-topic scores (e.g. AP) holding the standardizing systems, and the evaluated
        systems unless ``evaluated`` is a ScoreMatrix.
    standardizing:
        The pool S_std (names in ``matrix``); default every system of ``matrix``.
    evaluated:
        The systems ranked: names in ``matrix``, or a ScoreMatrix of their scores (its
        topics must all be in ``matrix``); default every system of ``matrix``.
    sizes:
        Sample sizes n (each between ``ddof + 1`` and |S_std|); default 2..|S_std|.
    n_samples:
        Samples per size (R; the paper's 2,000).
    seed:
        Integer seed (or Generator) for the samples.
    ddof, zero_sd:
        Standardization options (§4.1, §4.4): the sd's delta degrees of freedom and the
        rule for topics whose sampled scores all agree.
    quantiles:
        Quantiles of τ to report (default 50%, 5%, 1%).
    batch_size:
        Samples per batch (default: by memory budget); results do not depend on it.
    keep_samples:
        Keep the drawn samples (pool indices) in ``result.samples`` (size → (R, n)).
    progress:
        The progress convention of every experiment (:mod:`irstats.progress`): None shows a bar
        when stderr is a terminal, True/False always/never, a callable gets the samples done.
    client:
        A ``distributed.Client``: the batches of samples (drawn here, as without one) are
        standardized and ranked on its Dask cluster (:mod:`irstats.distributed`), with the same
        τ to the last bit; None (the default) computes here.
    """
    _check_zero_sd(zero_sd)
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ArgumentError(f"n_samples: the number of samples must be a positive integer, not {n_samples!r}",
                            argument="n_samples")
    check_seed(seed)
    whole(ddof, "ddof", minimum=0)
    if isinstance(sizes, (str, bytes)) or not (sizes is None or isinstance(sizes, Iterable)):
        raise ArgumentTypeError(f"sizes must be a list of whole numbers (or None); got {kind_of(sizes)}",
                                argument="sizes")
    if sizes is not None:
        sizes = [whole(n, "sizes") for n in sizes]
    given = numbers(quantiles, "quantiles").ravel()
    if np.isnan(given).any() or ((given < 0) | (given > 1)).any():
        raise ArgumentError(f"quantiles must lie in [0, 1], not {tuple(given.tolist())}", argument="quantiles")
    pool, eval_matrix = _resolve_sets(matrix, standardizing, evaluated)
    s_std = len(pool.systems)
    if s_std < ddof + 1:
        raise InputError(f"the standardizing pool needs at least {ddof + 1} systems; it has {s_std}")
    size_list = list(range(max(2, ddof + 1), s_std + 1)) if sizes is None else sorted(set(int(n) for n in sizes))
    if not size_list:
        raise ArgumentError("sizes: no sample sizes", argument="sizes")
    bad = [n for n in size_list if not ddof + 1 <= n <= s_std]
    if bad:
        raise ArgumentError(f"sample size(s) {', '.join(map(str, bad))} outside {ddof + 1}..{s_std} "
                            f"(the standardizing pool has {s_std} systems; ddof={ddof})", argument="sizes")
    q = tuple(float(v) for v in given)

    reference = reference_scores(pool, eval_matrix, ddof, zero_sd)
    if np.isnan(reference).any():
        raise InputError("some evaluated systems have no standardized score with the full factors "
                         "(no topic with factors); τ is undefined")
    raw = eval_matrix.means()
    raw_tau = float(kendall_tau_b(raw, reference))

    rng = generator(seed)
    taus = np.empty((len(size_list), n_samples))
    shares = np.empty((len(size_list), n_samples))  # per sample: its share of zero-variance topics
    kept: dict[int, np.ndarray] | None = {} if keep_samples else None

    def plan(job):
        """Each size's samples, drawn in increasing size; their τ computed batch by batch, or
        each batch submitted to ``job`` (the very batches :func:`sample_taus` makes here)."""
        pending = []  # (size index, batch, task)
        data = None if job is None else [job.share(a) for a in (pool.values, eval_matrix.values, reference)]
        s_eval, t = eval_matrix.values.shape
        with progress_bar(len(size_list) * n_samples, progress if job is None else False, "robustness",
                          unit="sample") as bar:
            for i, n in enumerate(size_list):
                samples = draw_samples(s_std, n, n_samples, rng)
                if kept is not None:
                    kept[n] = samples
                if job is None:
                    taus[i], shares[i] = sample_taus(pool.values, eval_matrix.values, samples, reference, ddof, zero_sd,
                                                     batch_size, bar.update)
                    continue
                for batch in batch_slices(n_samples, batch_size, s_eval * t):
                    pending.append((i, batch, job.submit(
                        f"robustness of {pool.measure}, {n} systems, samples {batch.start}–{batch.stop - 1}",
                        sample_taus, *data[:2], samples[batch], data[2], ddof, zero_sd, weight=batch.stop - batch.start)))

        def finish() -> None:
            for i, batch, task in pending:
                taus[i, batch], shares[i, batch] = job.result(task)

        return finish

    from irstats.distributed import planned

    planned(client, "robustness", plan, progress=progress, unit="sample")
    zero = shares.mean(axis=1)
    nan_count = np.isnan(taus).sum(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        tq = np.nanquantile(taus, q, axis=1).T if taus.size else np.empty((0, len(q)))
    return RobustnessResult(pool.measure, np.array(size_list, dtype=np.int64), q, taus, np.atleast_2d(tq),
                            nan_count, zero, pool.systems, eval_matrix.systems, eval_matrix.topics, reference, raw,
                            raw_tau, int(n_samples), seed_label(seed),
                            int(ddof), zero_sd, kept)


# --------------------------------------------------------------------------- longevity


@dataclass(frozen=True)
class LongevityResult(Result):
    """Output of :func:`factor_longevity`: the evaluated systems' AM-std scores under two
    factor sets, Pearson's r between them and τ_b between the rankings."""

    systems: tuple[str, ...]
    scores_first: np.ndarray
    scores_second: np.ndarray
    pearson: float
    kendall: float
    labels: tuple[str, str] = ("first", "second")

    def to_frame(self) -> pl.DataFrame:
        """Per system: ``system``, the two standardized means."""
        return pl.DataFrame({"system": list(self.systems), f"std_{self.labels[0]}": self.scores_first,
                             f"std_{self.labels[1]}": self.scores_second})



def _factors_from(spec, evaluated: ScoreMatrix, ddof: int, argument: str) -> Factors:
    if isinstance(spec, Factors):
        return spec
    if isinstance(spec, ScoreMatrix):
        return fit_factors(spec, ddof=ddof)
    if isinstance(spec, str) or not isinstance(spec, Iterable):
        raise ArgumentTypeError(f"{argument} must be Factors, a ScoreMatrix of reference systems or a list of system "
                                f"names; got {kind_of(spec)}", argument=argument)
    return fit_factors(evaluated, reference=list(names(spec, argument, what="system names")), ddof=ddof)


def factor_longevity(evaluated: ScoreMatrix, first: Factors | ScoreMatrix | Sequence[str],
                     second: Factors | ScoreMatrix | Sequence[str], systems: Sequence[str] | None = None,
                     ddof: int = 1, zero_sd: str = "trec_eval",
                     labels: tuple[str, str] = ("first", "second")) -> LongevityResult:
    """Compare standardizing the same systems with two factor sets (METHODS.md §5.3).

    ``first`` and ``second`` are each stored :class:`~irstats.standardize.Factors`, a
    ScoreMatrix of reference systems on the same topics (factors fitted on all its
    systems, e.g. a collection's original runs), or names of systems in ``evaluated``.
    ``systems`` restricts the systems compared (default: all of ``evaluated``).
    Returns Pearson's r of the AM-std scores and τ_b of the rankings (*Score
    Standardization* Table 2).
    """
    _check_zero_sd(zero_sd)
    score_matrix(evaluated, "evaluated")
    if isinstance(labels, str) or not isinstance(labels, (tuple, list)) or len(labels) != 2:
        raise ArgumentTypeError(f"labels must be two names; got {kind_of(labels)}", argument="labels")
    chosen = _bytewise(evaluated.systems if systems is None else names(systems, "systems", what="system names"))
    ev = evaluated.subset(chosen, _bytewise(evaluated.topics))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        a = apply_factors(ev, _factors_from(first, evaluated, ddof, "first"), zero_sd=zero_sd).means()
        b = apply_factors(ev, _factors_from(second, evaluated, ddof, "second"), zero_sd=zero_sd).means()
    return LongevityResult(ev.systems, a, b, float(pearson(a, b)), float(kendall_tau_b(a, b)),
                           (labels[0], labels[1]))


def correlate_means(first: ScoreMatrix, second: ScoreMatrix) -> dict[str, float]:
    """Pearson's r and τ_b between two matrices' system means over their common systems.

    The baselines of *Score Standardization* §4: e.g. the 2004 systems' AP on the 2003
    topics against the 2004 topics, or raw AP against std(AP) on one topic set.
    """
    score_matrix(first, "first")
    score_matrix(second, "second")
    common = [s for s in _bytewise(first.systems) if s in set(second.systems)]
    if len(common) < 2:
        raise InputError("the two score matrices share fewer than 2 systems")
    a = first.subset(common).means()
    b = second.subset(common).means()
    return {"pearson": float(pearson(a, b)), "kendall": float(kendall_tau_b(a, b)), "systems": len(common)}


__all__ = ["ROBUSTNESS_QUANTILES", "LongevityResult", "RobustnessResult", "correlate_means", "draw_samples",
           "factor_longevity", "reference_scores", "sample_factors", "sample_taus",
           "standardization_robustness"]
