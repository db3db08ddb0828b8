"""Predictive power φ of evaluation measures (METHODS.md §5.2, *P@10 Redundant*).

How well does the system ordering by measure A on some topics predict the ordering by
measure B on other topics? For each of B random halvings (default 2,000; drawn once with
``Generator(PCG64(seed))`` and shared by all measures) the systems are aggregated (mean,
by default) by every measure on each half, and

    φ_{A,B} = mean over halvings of ½[τ_b(A on H₁, B on H₂) + τ_b(B on H₁, A on H₂)].

Averaging both orientations makes φ exactly symmetric (METHODS.md [CHOICE]); the diagonal
is self-predictivity. Only the top ⌈0.75·s⌉ systems by the mean of a chosen measure (AP)
over all topics take part, since poor runs inflate τ (``top=1`` keeps all).

:func:`predictive_curve` gives φ for pairs of disjoint topic subsets of n topics each
(n = 5, 10, 15, 20, 25 by default; Fig. 1 of the paper).

>>> res = predictive_power(scores, n_splits=2000, seed=0)     # doctest: +SKIP
>>> res.to_frame()                                             # doctest: +SKIP
>>> res["nDCG", "P@10"]                                        # doctest: +SKIP
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.aggregate import DEFAULT_EPSILON, resolve_method
from irstats.checks import kind_of, names as name_list, optional_name, real
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, NotFoundError
from irstats.random import Seed, check_seed
from irstats.progress import Progress, progress_bar
from irstats.meta._common import (
    DEFAULT_TIE_RTOL,
    as_matrices,
    batch_rows,
    check_correlation,
    check_policy,
    raise_undefined,
)
from irstats.meta.correlation import kendall_tau_b, pearson
from irstats.ids import bytewise_sorted
from irstats.meta.splitagg import SplitAggregator
from irstats.meta.splits import (
    DEFAULT_PREDICTIVE_SPLITS,
    TopicSplits,
    check_splits,
    random_halvings,
    random_subsets,
)
from irstats.scores import ScoreMatrix

#: Topic-subset sizes of the φ curve (*P@10 Redundant* Fig. 1).
DEFAULT_SUBSET_SIZES = (5, 10, 15, 20, 25)
#: Pairs of the φ curve when the measures are there: nDCG→nDCG, P@10→P@10, nDCG→P@10.
DEFAULT_CURVE_PAIRS = (("nDCG", "nDCG"), ("P@10", "P@10"), ("nDCG", "P@10"))
#: Share of systems kept by default (the top 75% by AP).
DEFAULT_TOP = 0.75


@dataclass(frozen=True)
class PredictiveResult(Result):
    """φ matrix: ``phi[i, j]`` = φ(measures[i] → measures[j]), exactly symmetric.

    ``values[b, i, j]`` holds the per-split ½[τ(i on H₁, j on H₂) + τ(j on H₁, i on H₂)];
    ``phi`` its mean over the splits where it is defined (``n``), ``sd`` its sample sd.
    ``systems`` are the systems that took part (the top share by ``by``).
    """

    measures: tuple[str, ...]
    values: np.ndarray
    systems: tuple[str, ...]
    n_systems_all: int
    top: float
    by: str | None
    method: str
    epsilon: float | None
    splits: TopicSplits
    correlation: str = "kendall"
    omitted: int = 0
    phi: np.ndarray = field(init=False)
    sd: np.ndarray = field(init=False)
    n: np.ndarray = field(init=False)

    def __post_init__(self):
        # Derived once from the values; the result is frozen, hence object.__setattr__.
        for name, value in zip(("phi", "sd", "n"), _mean_sd(self.values)):
            object.__setattr__(self, name, value)

    @property
    def n_splits(self) -> int:
        return int(self.values.shape[0])

    def __getitem__(self, pair: tuple[str, str]) -> float:
        a, b = pair
        try:
            return float(self.phi[self.measures.index(a), self.measures.index(b)])
        except ValueError:
            raise NotFoundError(f"no measure pair {pair!r}; measures: {', '.join(self.measures)}",
                                argument="pair") from None

    def to_frame(self) -> pl.DataFrame:
        """One row per ordered pair: ``measure_a measure_b phi sd n`` (A predicts B)."""
        m = len(self.measures)
        return pl.DataFrame({
            "measure_a": [a for a in self.measures for _ in range(m)],
            "measure_b": [b for _ in range(m) for b in self.measures],
            "phi": self.phi.ravel(),
            "sd": self.sd.ravel(),
            "n": self.n.ravel().astype(np.int64),
        })

    def matrix_frame(self) -> pl.DataFrame:
        """Wide frame: a ``measure`` column (predictor, H₁), then one column per predicted measure."""
        cols = {"measure": list(self.measures)}
        for j, b in enumerate(self.measures):
            cols[b] = self.phi[:, j].tolist()
        return pl.DataFrame(cols)


    def view(self):
        """What ``irstats predictive`` prints: the φ matrix (rows: the measure on half 1,
        columns: on half 2) under a header of the settings; its data is :meth:`to_frame`."""
        from irstats.result import FrameResult

        header = _header(self, f"{self.n_splits} random halvings (seed {self.splits.seed})")
        matrix = FrameResult(self.matrix_frame(), "φ (rows: measure on half 1; columns: measure on half 2)",
                             digits=3, label="tab:predictive")
        return _ViewWithData(self.to_frame(), header, matrix)


@dataclass(frozen=True)
class _ViewWithData(Result):
    """A printed view whose data (the formats for machines) is another frame than the table."""

    data: pl.DataFrame
    header: str
    shown: Result

    @property
    def title(self) -> str:
        return self.header

    def to_frame(self) -> pl.DataFrame:
        return self.data

    def display_table(self, digits: int = 4):
        from dataclasses import replace

        table = self.shown.display_table(digits)
        return replace(table, title=f"{self.header}\n{table.title}" if table.title else self.header)


def _header(result, draws: str) -> str:
    chosen = (f"top {len(result.systems)} of {result.n_systems_all} systems by {result.by}" if result.by
              else f"all {result.n_systems_all} systems")
    return f"predictive power, {chosen}; {draws}; aggregation {result.method}"


@dataclass(frozen=True)
class SubsetCurveResult(Result):
    """φ against topic-subset size: ``phi[k, p]`` for size ``sizes[k]`` and pair ``pairs[p]``.

    ``values[k]`` holds the per-draw symmetric τ of size ``sizes[k]`` (draws × pairs).
    """

    sizes: tuple[int, ...]
    pairs: tuple[tuple[str, str], ...]
    values: np.ndarray
    systems: tuple[str, ...]
    n_systems_all: int
    top: float
    by: str | None
    method: str
    epsilon: float | None
    correlation: str = "kendall"
    phi: np.ndarray = field(init=False)
    sd: np.ndarray = field(init=False)
    n: np.ndarray = field(init=False)

    def __post_init__(self):
        for name, value in zip(("phi", "sd", "n"), _mean_sd(self.values, axis=1)):
            object.__setattr__(self, name, value)

    def to_frame(self) -> pl.DataFrame:
        """One row per (size, pair): ``n_topics measure_a measure_b phi sd n``."""
        rows = [(n, a, b) for n in self.sizes for a, b in self.pairs]
        return pl.DataFrame({
            "n_topics": [r[0] for r in rows],
            "measure_a": [r[1] for r in rows],
            "measure_b": [r[2] for r in rows],
            "phi": self.phi.ravel(),
            "sd": self.sd.ravel(),
            "n": self.n.ravel().astype(np.int64),
        })


    def view(self, seed=None):
        """What ``irstats predictive --curve`` prints: φ per subset size and pair."""
        from irstats.result import FrameResult

        draws = f"{self.values.shape[1]} draws per size" + ("" if seed is None else f" (seed {seed})")
        return FrameResult(self.to_frame(), _header(self, draws), summary_columns=True, label="tab:predictive-curve")


def _mean_sd(values: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    defined = ~np.isnan(values)
    n = defined.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.where(defined, values, 0.0).sum(axis=axis)
        mean = total / n
        dev = np.where(defined, values - np.expand_dims(mean, axis), 0.0)
        sd = np.sqrt((dev * dev).sum(axis=axis) / (n - 1))
    return np.where(n > 0, mean, np.nan), np.where(n > 1, sd, np.nan), n


def top_systems(matrix: ScoreMatrix, top: float = DEFAULT_TOP) -> tuple[str, ...]:
    """The top ⌈top·s⌉ systems by mean score over all topics (ties by system id, bytewise).

    The systems are returned in bytewise order.
    """
    top_fraction = _top(top)
    systems = bytewise_sorted(matrix.systems)
    means = matrix.subset(systems=systems).means()
    keep = math.ceil(top_fraction * len(systems))
    order = sorted(range(len(systems)), key=lambda i: (-means[i] if not np.isnan(means[i]) else math.inf,
                                                       systems[i].encode("utf8")))
    chosen = {systems[i] for i in order[:keep]}
    return tuple(s for s in systems if s in chosen)


def _top(top) -> Fraction:
    """``top`` as an exact fraction, if it is a share in (0, 1]."""
    ok = isinstance(top, (int, float, Fraction, np.integer, np.floating)) and not isinstance(top, (bool, np.bool_))
    fraction = Fraction(str(top)) if ok and not isinstance(top, Fraction) and math.isfinite(top) else (
        top if isinstance(top, Fraction) else None)
    if fraction is None or not (0 < fraction <= 1):
        error = ArgumentError if ok else ArgumentTypeError
        raise error(f"top must be a share in (0, 1] (or None for all systems), not {top!r}", argument="top")
    return fraction


def _check_common(seed, tie_rtol, batch_size) -> None:
    """The arguments :func:`predictive_power` and :func:`predictive_curve` share, checked on entry."""
    check_seed(seed)
    real(tie_rtol, "tie_rtol", low=0.0)
    if batch_size is not None:
        batch_rows(1, 1, 1, 1, batch_size)  # checks it


def _prepare(scores, measures, top, by) -> tuple[dict[str, ScoreMatrix], tuple[str, ...], int, str | None, float]:
    """The matrices compared, the systems kept, the number of systems given, the measure they
    were chosen by and the share kept (None and 1.0 when all are kept)."""
    matrices = as_matrices(scores)
    if top is not None:
        _top(top)
    optional_name(by, "by", "a measure name")
    if measures is not None:
        measures = name_list(measures, "measures", what="measure names", text=True)
        if not measures:
            raise ArgumentError("measures is empty; give measure names or None for all", argument="measures")
        missing = [m for m in measures if m not in matrices]
        if missing:
            raise ArgumentError(f"no measure(s) {', '.join(map(repr, missing))}; the scores have "
                                f"{', '.join(matrices)}", argument="measures")
        selected = {m: matrices[m] for m in dict.fromkeys(measures)}
    else:
        selected = dict(matrices)
    first = next(iter(selected.values()))
    for name, m in selected.items():
        if m.systems != first.systems or m.topics != first.topics:
            raise InputError(f"measures {first.measure!r} and {name!r} cover different systems or topics; "
                             "predictive power compares measures on the same systems and topics")
    n_all = len(first.systems)
    if top is None or Fraction(str(top)) == 1:
        return selected, first.systems, n_all, None, 1.0
    if by is None:
        by = first.measure
    if by not in matrices:
        raise ArgumentError(f"measure {by!r} (to choose the top systems by) is not among the scores "
                            f"({', '.join(matrices)}); add it, choose another with by=/--by, or keep all "
                            "systems with top=1/--all-systems", argument="by")
    source = matrices[by]
    if set(source.systems) != set(first.systems):
        raise InputError(f"measure {by!r} covers other systems than {first.measure!r}")
    systems = top_systems(source, top)
    if len(systems) < 2:
        raise InputError(f"keeping the top {top} of {n_all} systems leaves {len(systems)}; need at least 2")
    return {n: m.subset(systems=systems) for n, m in selected.items()}, systems, n_all, by, float(top)


def _pair_taus(matrices: Mapping[str, ScoreMatrix], splits: TopicSplits, pairs: Sequence[tuple[int, int]], *,
               method: str, epsilon: float | None, nan_policy: str, skipna: bool, tie_rtol: float,
               correlation: str, batch_size: int | None, bar, job=None):
    """Per split, ½[τ(A₁, B₂) + τ(B₁, A₂)] for every (A, B) in ``pairs``: a function giving
    (B × len(pairs) values, aggregates omitted). With a ``job`` (:class:`irstats.distributed.Job`)
    the same batches are submitted to it, and read when the function is called."""
    names = list(matrices)
    aggs = [SplitAggregator(matrices[n].values, method, epsilon, skipna=skipna) for n in names]
    s, t = next(iter(matrices.values())).shape
    rows = batch_rows(len(splits), s, t, sum(a.blocks for a in aggs) + 2 * len(pairs), batch_size)
    out = np.empty((len(splits), len(pairs)))
    omitted = 0
    settings = (method, epsilon, skipna, nan_policy == "omit", tie_rtol, correlation)
    data = None if job is None else job.share([(n, matrices[n].values, matrices[n].systems) for n in names])
    tasks = []
    for start in range(0, len(splits), rows):
        stop = min(start + rows, len(splits))
        batch = splits.subset(start, stop)
        if job is not None:
            tasks.append((start, stop, job.submit(f"predictive power, splits {start}–{stop - 1}", _pair_task, data,
                                                  batch, start, pairs, settings, weight=stop - start)))
            continue
        out[start:stop], count = _pair_batch([(n, a, matrices[n].systems) for n, a in zip(names, aggs)], batch, start,
                                             pairs, settings)
        omitted += count
        bar.update(stop - start)

    def finish() -> tuple[np.ndarray, int]:
        nonlocal omitted
        for start, stop, task in tasks:
            out[start:stop], count = job.result(task)
            omitted += count
        return out, omitted

    return finish


def _pair_batch(aggregators: Sequence[tuple[str, SplitAggregator, Sequence[str]]], splits: TopicSplits, start: int,
                pairs: Sequence[tuple[int, int]], settings: tuple) -> tuple[np.ndarray, int]:
    """One batch of splits (``splits``, the experiment's from ``start`` on): ½[τ(A₁, B₂) + τ(B₁, A₂)]
    per split and pair (splits × pairs), and the aggregates left out. ``aggregators``: (measure,
    aggregator, systems) each; ``settings``: (method, ε, skipna, omit, tie_rtol, correlation)."""
    method, epsilon, _, omit, tie_rtol, correlation = settings
    label = method if epsilon is None else f"{method}(ε={epsilon:g})"
    ordered = sorted({(a, b) for a, b in pairs} | {(b, a) for a, b in pairs})
    where = {p: k for k, p in enumerate(ordered)}
    out = np.empty((len(splits), len(pairs)))
    omitted = 0
    m1, m2 = splits.masks()
    first, second = [], []
    for name, agg, systems in aggregators:
        v1, c1, v2, c2 = agg.pair(m1, m2, splits.complementary)
        if omit:
            omitted += int(((c1 != 0) | (c2 != 0)).sum())
        else:
            for codes, which in ((c1, splits.labels[0]), (c2, splits.labels[1])):
                if codes.any():
                    raise_undefined(codes, systems, name, label, start, which)
        first.append(v1)
        second.append(v2)
    x = np.stack([first[a] for a, _ in ordered])
    y = np.stack([second[b] for _, b in ordered])
    policy = "omit" if omit else "propagate"
    if correlation == "pearson":
        tau = pearson(x, y, nan_policy=policy)
    else:
        tau = kendall_tau_b(x, y, nan_policy=policy, tie_rtol=tie_rtol)  # (pairs, b)
    for k, (a, b) in enumerate(pairs):
        out[:, k] = (tau[where[(a, b)]] + tau[where[(b, a)]]) / 2
    return out, omitted


def _pair_task(matrices: Sequence[tuple[str, np.ndarray, Sequence[str]]], splits: TopicSplits, start: int,
               pairs: Sequence[tuple[int, int]], settings: tuple) -> tuple[np.ndarray, int]:
    """:func:`_pair_batch` with the aggregators built here from (measure, values, systems) each
    (on a worker of a cluster: aggregators hold functions and are not sent)."""
    method, epsilon, skipna = settings[:3]
    return _pair_batch([(name, SplitAggregator(values, method, epsilon, skipna=skipna), systems)
                        for name, values, systems in matrices], splits, start, pairs, settings)


def _job(client, desc: str, progress):
    """A :class:`irstats.distributed.Job` on ``client``, or None without one."""
    if client is None:
        return None
    from irstats.distributed import Job

    return Job(client, desc, progress=progress)


def _method(method: str, epsilon: float | None) -> tuple[str, float | None]:
    from irstats.aggregate import _check_epsilon

    name = resolve_method(method)
    if epsilon is not None:
        _check_epsilon(epsilon)
    default = DEFAULT_EPSILON[name]
    return name, (None if default is None else float(default if epsilon is None else epsilon))


def predictive_power(scores: Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix], measures: Sequence[str] | None = None,
                     *, method: str = "am", epsilon: float | None = None, top: float | None = DEFAULT_TOP,
                     by: str | None = "AP", n_splits: int = DEFAULT_PREDICTIVE_SPLITS, seed: Seed = 0,
                     splits: TopicSplits | None = None, correlation: str = "kendall", nan_policy: str = "raise",
                     skipna: bool = False, tie_rtol: float = DEFAULT_TIE_RTOL, batch_size: int | None = None,
                     progress: Progress = None, client=None) -> PredictiveResult:
    """Predictive power φ for every ordered pair of measures (METHODS.md §5.2).

    Parameters
    ----------
    scores:
        Score matrices of the measures (a mapping or list), over the same systems and topics.
    measures:
        The measures to compare, in this order (default: all given).
    method, epsilon:
        How a system's scores on a half are aggregated (default the mean, as in the paper).
    top, by:
        Keep the top ⌈top·s⌉ systems by the mean of measure ``by`` over all topics
        (default 0.75 by AP); ``top=1`` (or None) keeps all.
    n_splits, seed, splits:
        B random halvings (default 2,000) from ``Generator(PCG64(seed))``, or given splits.
    correlation, nan_policy, skipna, tie_rtol, batch_size, progress, client:
        As for :func:`irstats.meta.splithalf.split_half` (``client``: the batches of halvings on
        a Dask cluster, with the same values).

    Returns
    -------
    PredictiveResult
    """
    check_policy(nan_policy)
    correlation = check_correlation(correlation)
    _check_common(seed, tie_rtol, batch_size)
    name, eps = _method(method, epsilon)
    matrices, systems, n_all, by_used, top_used = _prepare(scores, measures, top, by)
    topics = next(iter(matrices.values())).topics
    splits = check_splits(splits).align(topics) if splits is not None else random_halvings(topics, n_splits, seed)
    m = len(matrices)
    pairs = [(i, j) for i in range(m) for j in range(m)]
    job = _job(client, "predictive power", progress)
    with progress_bar(len(splits), progress if job is None else False, "predictive power") as bar:
        finish = _pair_taus(matrices, splits, pairs, method=name, epsilon=eps, nan_policy=nan_policy,
                            skipna=skipna, tie_rtol=tie_rtol, correlation=correlation,
                            batch_size=batch_size, bar=bar, job=job)
    if job is not None:
        job.run()
    taus, omitted = finish()
    values = taus.reshape(len(splits), m, m)
    return PredictiveResult(tuple(matrices), values, systems, n_all, top_used, by_used, name,
                            eps, splits, correlation, omitted)


def predictive_curve(scores: Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix],
                     pairs: Sequence[tuple[str, str]] | None = None, sizes: Sequence[int] = DEFAULT_SUBSET_SIZES, *,
                     method: str = "am", epsilon: float | None = None, top: float | None = DEFAULT_TOP,
                     by: str | None = "AP", n_splits: int = DEFAULT_PREDICTIVE_SPLITS, seed: Seed = 0,
                     correlation: str = "kendall", nan_policy: str = "raise", skipna: bool = False,
                     tie_rtol: float = DEFAULT_TIE_RTOL, batch_size: int | None = None,
                     progress: Progress = None, client=None) -> SubsetCurveResult:
    """φ against topic-subset size (METHODS.md §5.2 subset-size curve; *P@10 Redundant* Fig. 1).

    For each n in ``sizes``, B draws (default 2,000) of two disjoint sets of n topics (the
    first 2n topics of a permutation; the same B permutations for every n), and φ of each
    pair as in :func:`predictive_power`. ``pairs`` defaults to nDCG→nDCG, P@10→P@10 and
    nDCG→P@10 when those measures are given, else every pair of the given measures.
    ``client``: the batches of draws on a Dask cluster, as for :func:`predictive_power`.
    """
    check_policy(nan_policy)
    correlation = check_correlation(correlation)
    _check_common(seed, tie_rtol, batch_size)
    name, eps = _method(method, epsilon)
    available = as_matrices(scores)
    if pairs is None:
        if all(a in available and b in available for a, b in DEFAULT_CURVE_PAIRS):
            pairs = DEFAULT_CURVE_PAIRS
        else:
            names = list(available)
            pairs = [(a, b) for i, a in enumerate(names) for b in names[i:]]
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise ArgumentTypeError(f"pairs must be a list of (measure, measure) pairs; got {kind_of(pairs)}",
                                argument="pairs")
    pairs = tuple(pairs)
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ArgumentTypeError(f"pairs must be a list of (measure, measure) pairs; it holds {kind_of(pair)}",
                                    argument="pairs")
    pairs = tuple((str(a), str(b)) for a, b in pairs)
    wanted = list(dict.fromkeys(m for pair in pairs for m in pair))
    matrices, systems, n_all, by_used, top_used = _prepare(available, wanted, top, by)
    names = list(matrices)
    index_pairs = [(names.index(a), names.index(b)) for a, b in pairs]
    topics = next(iter(matrices.values())).topics
    draws = random_subsets(topics, sizes, n_splits, seed)
    values = np.empty((len(draws), n_splits, len(pairs)))
    job = _job(client, "predictive curve", progress)
    with progress_bar(n_splits * len(draws), progress if job is None else False, "predictive curve") as bar:
        finishers = [_pair_taus(matrices, draws[n], index_pairs, method=name, epsilon=eps, nan_policy=nan_policy,
                                skipna=skipna, tie_rtol=tie_rtol, correlation=correlation, batch_size=batch_size,
                                bar=bar, job=job) for n in draws]
    if job is not None:
        job.run()
    for k, finish in enumerate(finishers):
        values[k], _ = finish()
    return SubsetCurveResult(tuple(int(n) for n in draws), pairs, values, systems, n_all,
                             top_used, by_used, name, eps, correlation)


__all__ = ["DEFAULT_CURVE_PAIRS", "DEFAULT_SUBSET_SIZES", "DEFAULT_TOP", "PredictiveResult", "SubsetCurveResult",
           "predictive_curve", "predictive_power", "top_systems"]
