"""Split-half self-consistency of aggregation methods (METHODS.md §5.1, *Score Aggregation* §4–5).

For each of B random halvings of the topics (default B = 10,000, drawn once with
``Generator(PCG64(seed))`` and shared by every method and measure), every system is
aggregated over each half by each method, and the two aggregate vectors are correlated
(Kendall's τ-b, or Pearson's r). A method whose system ordering on one half predicts the
ordering on the other is self-consistent.

The whole experiment is vectorised over splits in batches of bounded size (see
:class:`~irstats.meta.splitagg.SplitAggregator` and
:func:`~irstats.meta.correlation.kendall_tau_b`); the results are identical whatever the
batch size.

Also here:

* :func:`epsilon_sweep` — mean τ of εGM and εHM over ε ∈ {10⁻⁵, 10^−4.5, …, 10³}, with AM
  as the ε → ∞ asymptote (Figs 1, 3, 5, 7);
* :func:`difficulty_splits` — the one-off Hard/Easy and Middle/Rest splits by topic
  difficulty D_t (computed once, on the AP matrix);
* :func:`low_score_share` — %zero and %low (< 0.1) of a score matrix (Table 2).

Example
-------
>>> res = split_half(scores["AP"], ["am", "egm"], n_splits=1000, seed=0)   # doctest: +SKIP
>>> res.summary()                                                       # doctest: +SKIP
>>> res.compare(("AP", "egm"), ("AP", "am")).mean_delta                 # doctest: +SKIP
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.aggregate import DEFAULT_EPSILON, parse_methods, resolve_method
from irstats.difficulty import topic_difficulty
from irstats.checks import kind_of, names as name_list, real, score_matrix
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, NotFoundError
from irstats.random import Seed, check_seed
from irstats.progress import Progress, _Silent, progress_bar
from irstats.meta._common import (
    DEFAULT_TIE_RTOL,
    as_matrices,
    batch_rows,
    check_correlation,
    check_policy,
    raise_undefined,
    significance_t,
)
from irstats.meta.correlation import kendall_tau_b, pearson
from irstats.meta.splitagg import SplitAggregator
from irstats.meta.splits import (
    DEFAULT_SPLITHALF_SPLITS,
    TopicSplits,
    check_splits,
    fixed_split,
    random_halvings,
)
from irstats.scores import ScoreMatrix

#: Methods compared by default (*Score Aggregation* Table 3).
DEFAULT_METHODS = ("am", "egm", "gm_trec_eval")
#: Quantiles reported by :meth:`SplitHalfResult.summary`.
SPLITHALF_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
#: ε values of the sweep: 10⁻⁵, 10^−4.5, …, 10³ (17 values).
SWEEP_EPSILONS = tuple(float(10.0 ** (k / 2)) for k in range(-10, 7))
#: Names of the fixed difficulty splits.
FIXED_SPLITS = ("hard_easy", "middle_rest")


@dataclass(frozen=True)
class Variant:
    """One (measure, aggregation method, ε) combination; ε is None for methods without one."""

    measure: str
    method: str
    epsilon: float | None = None

    @property
    def label(self) -> str:
        """E.g. ``egm(ε=0.01)-AP`` (*Score Aggregation* writes εGM-AP)."""
        eps = "" if self.epsilon is None else f"(ε={self.epsilon:g})"
        return f"{self.method}{eps}-{self.measure}"


@dataclass(frozen=True)
class LowScoreShare:
    """Share of low scores in a score matrix (METHODS.md §5.1, *Score Aggregation* Table 2).

    ``pct_zero`` = 100·#{x = 0}/n and ``pct_low`` = 100·#{x < threshold}/n (≤ when
    ``inclusive``), zeros included, over the n evaluated (non-NaN) scores.
    """

    measure: str
    pct_zero: float
    pct_low: float
    threshold: float
    inclusive: bool
    n: int


@dataclass(frozen=True)
class PairedComparison:
    """Paired comparison of two variants over the same splits: Δ_b = value_a(b) − value_b(b).

    ``share_positive`` is the fraction of splits with Δ_b > 0 (``share_negative`` < 0);
    ``t`` and ``p`` are the two-sided paired t-test on the Δ_b. ``n`` counts the splits
    where both values are defined.
    """

    a: Variant
    b: Variant
    n: int
    mean_delta: float
    share_positive: float
    share_negative: float
    t: float
    p: float
    delta: np.ndarray = field(repr=False)


@dataclass(frozen=True)
class SplitHalfResult(Result):
    """τ (or r) per split for every variant, with what is needed to read it.

    ``values[v, b]`` is the correlation of variant ``variants[v]`` on split b (NaN when it
    is undefined, e.g. all aggregates tied). ``splits[measure]`` are the splits used for that
    measure (the same object for measures over the same topics). ``fixed[name][v]`` is the
    correlation on a fixed difficulty split (``hard_easy``, ``middle_rest``) when they were
    computed; ``low[measure]`` the share of low scores; ``omitted[v]`` how many aggregates
    were left out under ``nan_policy="omit"``.
    """

    variants: tuple[Variant, ...]
    values: np.ndarray
    correlation: str
    splits: dict[str, TopicSplits]
    n_systems: dict[str, int]
    n_topics: dict[str, int]
    omitted: np.ndarray
    low: dict[str, LowScoreShare] = field(default_factory=dict)
    fixed: dict[str, np.ndarray] = field(default_factory=dict)
    difficulty: dict | None = None
    seed: Seed = 0  # as given (a Generator too), or the splits' recorded seed
    tie_rtol: float = DEFAULT_TIE_RTOL
    skipna: bool = False
    nan_policy: str = "raise"

    @property
    def n_splits(self) -> int:
        return int(self.values.shape[1])

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v.measure for v in self.variants))

    def index(self, key) -> int:
        """Position of a variant given as a :class:`Variant`, ``(measure, method[, ε])``, or
        a method name (when one measure and one ε per method make it unique)."""
        if isinstance(key, Variant):
            matches = [i for i, v in enumerate(self.variants) if v == key]
        else:
            if isinstance(key, str):
                measure, method, eps, has_eps = None, key, None, False
            else:
                key = tuple(key)
                measure, method = key[0], key[1]
                eps, has_eps = (key[2], True) if len(key) > 2 else (None, False)
            name = resolve_method(method)
            matches = [i for i, v in enumerate(self.variants)
                       if v.method == name and (measure is None or v.measure == measure)
                       and (not has_eps or _same_eps(v.epsilon, eps))]
        if len(matches) != 1:
            what = "no" if not matches else "more than one"
            raise NotFoundError(f"{what} variant matches {key!r}; variants: "
                                f"{', '.join(v.label for v in self.variants)}", argument="key")
        return matches[0]

    def __getitem__(self, key) -> np.ndarray:
        """The vector of per-split values of one variant (see :meth:`index`)."""
        return self.values[self.index(key)]

    def count(self) -> np.ndarray:
        """Splits with a defined value, per variant."""
        return (~np.isnan(self.values)).sum(axis=1)

    def mean(self) -> np.ndarray:
        """Mean τ (or r) per variant over the splits where it is defined."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.nansum(self.values, axis=1) / self.count()

    def sd(self) -> np.ndarray:
        """Sample sd (ddof 1) per variant."""
        out = np.full(len(self.variants), np.nan)
        for i, row in enumerate(self.values):
            row = row[~np.isnan(row)]
            if row.size > 1:
                out[i] = row.std(ddof=1)
        return out

    def quantiles(self, q: Sequence[float] = SPLITHALF_QUANTILES) -> np.ndarray:
        """Quantiles (numpy's default, Hyndman–Fan type 7) per variant: shape (V, len(q))."""
        out = np.full((len(self.variants), len(q)), np.nan)
        for i, row in enumerate(self.values):
            row = row[~np.isnan(row)]
            if row.size:
                out[i] = np.quantile(row, q)
        return out

    def summary(self, quantiles: Sequence[float] = SPLITHALF_QUANTILES) -> pl.DataFrame:
        """One row per variant: ``measure method n mean sd q05 … q95 epsilon`` then, when
        available, ``hard_easy middle_rest``, ``pct_zero pct_low``, and ``omitted``."""
        qs = self.quantiles(quantiles)
        cols: dict[str, list] = {
            "measure": [v.measure for v in self.variants],
            "method": [v.method for v in self.variants],
            "n": [int(c) for c in self.count()],
            "mean": self.mean().tolist(),
            "sd": self.sd().tolist(),
        }
        for k, q in enumerate(quantiles):
            cols[quantile_name(q)] = qs[:, k].tolist()
        cols["epsilon"] = [np.nan if v.epsilon is None else float(v.epsilon) for v in self.variants]
        for name in FIXED_SPLITS:
            if name in self.fixed:
                cols[name] = self.fixed[name].tolist()
        if self.low:
            cols["pct_zero"] = [self.low[v.measure].pct_zero if v.measure in self.low else np.nan
                                for v in self.variants]
            cols["pct_low"] = [self.low[v.measure].pct_low if v.measure in self.low else np.nan
                               for v in self.variants]
        if self.nan_policy == "omit":
            cols["omitted"] = [int(o) for o in self.omitted]
        schema = {name: (pl.String if name in ("measure", "method") else pl.Int64 if name in ("n", "omitted")
                         else pl.Float64) for name in cols}
        return pl.DataFrame(cols, schema=schema)

    def to_frame(self) -> pl.DataFrame:
        """Long frame ``measure method epsilon split value``: every per-split value."""
        v, b = self.values.shape
        return pl.DataFrame({
            "measure": np.repeat([x.measure for x in self.variants], b).tolist(),
            "method": np.repeat([x.method for x in self.variants], b).tolist(),
            "epsilon": np.repeat([np.nan if x.epsilon is None else x.epsilon for x in self.variants], b),
            "split": np.tile(np.arange(b), v),
            "value": self.values.ravel(),
        })

    def compare(self, a, b) -> PairedComparison:
        """Paired comparison Δ_b = value(a) − value(b) over the shared splits (METHODS.md §5.1)."""
        i, j = self.index(a), self.index(b)
        va, vb = self.variants[i], self.variants[j]
        if self.splits[va.measure] is not self.splits[vb.measure]:
            raise InputError(f"{va.label} and {vb.label} were not measured on the same splits "
                             "(their measures have different topics)")
        delta = self.values[i] - self.values[j]
        d = delta[~np.isnan(delta)]
        t, p = significance_t(d)
        n = int(d.size)
        return PairedComparison(va, vb, n, float(d.mean()) if n else math.nan,
                                float((d > 0).mean()) if n else math.nan, float((d < 0).mean()) if n else math.nan,
                                t, p, delta)

    @property
    def header(self) -> str:
        """The settings in a line (and the difficulty split's, when there is one)."""
        what = "r" if self.correlation == "pearson" else "τ-b"
        text = (f"split-half {what} over {self.n_splits} random halvings (seed {self.seed}); "
                + "; ".join(f"{m}: {self.n_systems[m]} systems × {self.n_topics[m]} topics" for m in self.measures))
        if self.difficulty:
            text += f"\nfixed splits by difficulty ({self.difficulty['method']}) of {self.difficulty['measure']}"
        return text

    def view(self, paired: bool = False, comparisons: bool = True):
        """What ``irstats splithalf`` prints: the summary (data: :meth:`summary`) with the paired
        comparisons of the variants below it in the formats for people; with ``paired``, the
        comparisons alone (data: :meth:`comparisons`)."""
        from irstats.result import FrameResult

        pairs = self.comparisons()
        note = "paired comparisons (Δ = a − b on the same halvings)"
        if paired:
            return FrameResult(pairs, f"{self.header}\n{note}", summary_columns=True, label="tab:splithalf-pairs")
        more: tuple[FrameResult, ...] = ()
        if comparisons and pairs.height:
            more = (FrameResult(pairs.select("measure_a", "method_a", "measure_b", "method_b", "mean_delta",
                                             "share_positive", "t", "p"), note, summary_columns=True,
                                label="tab:splithalf-pairs"),)
        return FrameResult(self.summary(), self.header, summary_columns=True, more=more, label="tab:splithalf")

    def comparisons(self) -> pl.DataFrame:
        """Every pair of variants measured on the same splits, as rows of :class:`PairedComparison`."""
        rows = []
        for i in range(len(self.variants)):
            for j in range(i + 1, len(self.variants)):
                a, b = self.variants[i], self.variants[j]
                if self.splits[a.measure] is not self.splits[b.measure]:
                    continue
                c = self.compare(a, b)
                rows.append({"measure_a": a.measure, "method_a": a.method,
                             "epsilon_a": np.nan if a.epsilon is None else a.epsilon,
                             "measure_b": b.measure, "method_b": b.method,
                             "epsilon_b": np.nan if b.epsilon is None else b.epsilon,
                             "n": c.n, "mean_delta": c.mean_delta, "share_positive": c.share_positive,
                             "share_negative": c.share_negative, "t": c.t, "p": c.p})
        schema = {"measure_a": pl.String, "method_a": pl.String, "epsilon_a": pl.Float64, "measure_b": pl.String,
                  "method_b": pl.String, "epsilon_b": pl.Float64, "n": pl.Int64, "mean_delta": pl.Float64,
                  "share_positive": pl.Float64, "share_negative": pl.Float64, "t": pl.Float64, "p": pl.Float64}
        return pl.DataFrame(rows, schema=schema)


def quantile_name(q: float) -> str:
    """Column name of a quantile: 0.05 → ``q05``, 0.5 → ``q50``, 0.025 → ``q2.5``."""
    pct = q * 100
    return f"q{int(round(pct)):02d}" if abs(pct - round(pct)) < 1e-9 else f"q{pct:g}"


def _same_eps(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), rel_tol=1e-12)


def low_score_share(matrix: ScoreMatrix, threshold: float = 0.1, low_inclusive: bool = False) -> LowScoreShare:
    """%zero and %low of a score matrix over its evaluated scores (METHODS.md §5.1).

    %low counts x < ``threshold`` (zeros included); ``low_inclusive=True`` counts x ≤ threshold.

    >>> m = ScoreMatrix(np.array([[0.0, 0.05, 0.1, 0.5]]), ("s",), ("1", "2", "3", "4"), "AP")
    >>> share = low_score_share(m)
    >>> share.pct_zero, share.pct_low
    (25.0, 50.0)
    """
    score_matrix(matrix)
    real(threshold, "threshold", finite=False)
    x = matrix.values[~np.isnan(matrix.values)]
    n = int(x.size)
    if n == 0:
        return LowScoreShare(matrix.measure, math.nan, math.nan, float(threshold), bool(low_inclusive), 0)
    low = (x <= threshold) if low_inclusive else (x < threshold)
    return LowScoreShare(matrix.measure, 100.0 * float((x == 0).sum()) / n, 100.0 * float(low.sum()) / n,
                         float(threshold), bool(low_inclusive), n)


def difficulty_splits(matrix: ScoreMatrix, method: str = "max_mean_sd") -> dict[str, TopicSplits]:
    """The fixed Hard/Easy and Middle/Rest splits of METHODS.md §5.1.

    D_t is computed once from ``matrix`` (the AP matrix of all systems) with
    :func:`~irstats.difficulty.topic_difficulty`; topics are sorted by D_t descending, ties
    by topic id. With t topics and h = ⌊(t − ⌊t/2⌋)/2⌋:

    * ``hard_easy``: Hard = the first ⌊t/2⌋ topics, Easy = the rest;
    * ``middle_rest``: Middle = positions h+1 … h+⌊t/2⌋ (1-based), Rest = the others.

    For t = 50: Middle = positions 13–37, Rest = the 12 hardest and the 13 easiest.
    """
    ranked = topic_difficulty(matrix, method).ranked()
    t = len(ranked)
    if t < 2:
        raise InputError(f"difficulty splits need at least 2 topics, not {t}")
    half = t // 2
    h = (t - half) // 2
    middle = ranked[h:h + half]
    return {
        "hard_easy": fixed_split(matrix.topics, ranked[:half], ranked[half:], "hard_easy", ("hard", "easy")),
        "middle_rest": fixed_split(matrix.topics, middle, ranked[:h] + ranked[h + half:], "middle_rest",
                                   ("middle", "rest")),
    }


def _correlate(v1: np.ndarray, v2: np.ndarray, correlation: str, omit: bool, tie_rtol: float) -> np.ndarray:
    policy = "omit" if omit else "propagate"
    if correlation == "pearson":
        return pearson(v1, v2, nan_policy=policy)
    return kendall_tau_b(v1, v2, nan_policy=policy, tie_rtol=tie_rtol)


def _run_splits(matrix: ScoreMatrix, aggregators: Sequence[tuple[str, SplitAggregator]], splits: TopicSplits,
                out: np.ndarray, omitted: np.ndarray, correlation: str, nan_policy: str, tie_rtol: float,
                batch_size: int | None, bar, job=None, specs=None) -> list[tuple[int, int, int]]:
    """Fill out[k, :] with the per-split correlation of aggregator k; count omitted aggregates.

    With a ``job`` (:class:`irstats.distributed.Job`), the same batches are submitted to it
    instead (``specs``: how to build the aggregators there): ``(start, stop, task)`` each."""
    s, t = matrix.shape
    blocks = max((agg.blocks for _, agg in aggregators), default=1)
    rows = batch_rows(len(splits), s, t, blocks, batch_size)
    omit = nan_policy == "omit"
    tasks = []
    data = None if job is None else job.share(matrix.values)
    for start in range(0, len(splits), rows):
        stop = min(start + rows, len(splits))
        batch = splits.subset(start, stop)
        if job is not None:
            tasks.append((start, stop, job.submit(f"split-half of {matrix.measure}, splits {start}–{stop - 1}",
                                                  _split_task, data, specs, matrix.systems, matrix.measure, batch,
                                                  start, correlation, omit, tie_rtol, weight=stop - start)))
            continue
        out[:, start:stop], count = _split_batch(aggregators, matrix.systems, matrix.measure, batch, start,
                                                 correlation, omit, tie_rtol)
        omitted += count
        bar.update(stop - start)
    return tasks


def _split_batch(aggregators: Sequence[tuple[str, SplitAggregator]], systems: Sequence[str], measure: str,
                 splits: TopicSplits, start: int, correlation: str, omit: bool,
                 tie_rtol: float) -> tuple[np.ndarray, np.ndarray]:
    """One batch of splits (``splits``, the experiment's splits from ``start`` on): the
    correlation of every aggregator on each (aggregators × splits) and the aggregates left
    out per aggregator; an undefined aggregate raises unless ``omit``."""
    m1, m2 = splits.masks()
    out = np.empty((len(aggregators), len(splits)))
    omitted = np.zeros(len(aggregators), dtype=np.int64)
    for k, (label, agg) in enumerate(aggregators):
        v1, c1, v2, c2 = agg.pair(m1, m2, splits.complementary)
        if not omit:
            for codes, which in ((c1, splits.labels[0]), (c2, splits.labels[1])):
                if codes.any():
                    raise_undefined(codes, systems, measure, label, start, which)
        else:
            omitted[k] += int(((c1 != 0) | (c2 != 0)).sum())
        out[k] = _correlate(v1, v2, correlation, omit, tie_rtol)
    return out, omitted


def _split_task(values: np.ndarray, specs: Sequence[tuple], systems, measure, splits, start, correlation, omit,
                tie_rtol):
    """:func:`_split_batch` where the aggregators are built from ``specs``, ``(label, method, ε,
    skipna)`` each (on a worker of a cluster: aggregators hold functions and are not sent)."""
    aggregators = [(label, SplitAggregator(values, method, eps, skipna=skipna)) for label, method, eps, skipna in specs]
    return _split_batch(aggregators, systems, measure, splits, start, correlation, omit, tie_rtol)


def split_half(scores: ScoreMatrix | Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix],
               methods: Iterable = DEFAULT_METHODS, *, epsilon: float | None = None,
               n_splits: int = DEFAULT_SPLITHALF_SPLITS, seed: Seed = 0,
               splits: TopicSplits | None = None, correlation: str = "kendall", nan_policy: str = "raise",
               skipna: bool = False, tie_rtol: float = DEFAULT_TIE_RTOL,
               difficulty: ScoreMatrix | str | None = "auto", difficulty_method: str = "max_mean_sd",
               low_threshold: float = 0.1, low_inclusive: bool = False, batch_size: int | None = None,
               progress: Progress = None, client=None) -> SplitHalfResult:
    """Split-half self-consistency of aggregation methods (METHODS.md §5.1).

    Parameters
    ----------
    scores:
        One :class:`~irstats.scores.ScoreMatrix` or several (a mapping or a list), e.g. AP
        and std(AP). Systems and topics are sorted bytewise first.
    methods:
        Aggregation methods (``am``, ``egm``, ``gm_trec_eval``, ``median``, … ; see
        :func:`parse_methods` for ``"egm:0.1"`` and ``(name, ε)``).
    epsilon:
        ε of every method that takes one (as ``irstats aggregate --epsilon``); default: each
        method's own (εGM/εHM 0.01, GM_trec_eval floor 1e-5).
    n_splits, seed:
        B random halvings from ``Generator(PCG64(seed))`` (§5 rules), drawn once per topic
        set and shared by all methods and measures.
    splits:
        Use these splits instead (e.g. shared with another experiment).
    correlation:
        ``"kendall"`` (τ-b, default) or ``"pearson"`` (the Pearson variant, Fig. 11).
    nan_policy:
        ``"raise"`` (default): an undefined aggregate (e.g. HM over a zero) is an error;
        ``"omit"``: such systems are left out of that split; ``omitted`` counts them.
    skipna:
        Aggregate each system over the topics of a half that it has scores for.
    tie_rtol:
        Aggregates within this relative distance count as tied (τ-b only), so that equal
        aggregates reached by different floating-point paths stay tied; 0 for exact ties.
    difficulty:
        The matrix D_t is computed from for the fixed Hard/Easy and Middle/Rest splits;
        ``"auto"``: the matrix of the default measure (AP) if given, else none; a measure name; or None to skip.
    difficulty_method:
        D_t definition (see :func:`~irstats.difficulty.topic_difficulty`).
    low_threshold, low_inclusive:
        For the share of low scores (:func:`low_score_share`).
    batch_size:
        Splits per batch (default: sized to bound memory). Results do not depend on it.
    progress:
        The progress convention (:mod:`irstats.progress`): None shows a bar when stderr is a
        terminal, True/False always/never, a callable gets the splits done.
    client:
        A ``distributed.Client``: the batches of halvings run on its Dask cluster
        (:mod:`irstats.distributed`), with the same values to the last bit; None (the
        default) computes here.

    Returns
    -------
    SplitHalfResult
    """
    matrices = as_matrices(scores)
    methods = parse_methods(methods, epsilon)
    correlation = check_correlation(correlation)
    check_policy(nan_policy)
    check_seed(seed)  # also when splits are given and no split is drawn
    real(tie_rtol, "tie_rtol", low=0.0)
    real(low_threshold, "low_threshold", finite=False)
    if batch_size is not None:
        batch_rows(1, 1, 1, 1, batch_size)  # checks it

    job = None
    if client is not None:
        from irstats.distributed import Job

        job = Job(client, "split-half", progress=progress)
    variants: list[Variant] = []
    per_measure: dict[str, list[tuple[str, SplitAggregator]]] = {}
    specs: dict[str, list[tuple]] = {}
    for name, matrix in matrices.items():
        if matrix.shape[0] < 2:
            raise InputError(f"measure {name!r}: split-half needs at least 2 systems, not {matrix.shape[0]}")
        per_measure[name], specs[name] = [], []
        for method, eps in methods:
            variant = Variant(name, method, eps)
            variants.append(variant)
            label = method if eps is None else f"{method}(ε={eps:g})"
            per_measure[name].append((label, SplitAggregator(matrix.values, method, eps, skipna=skipna)))
            specs[name].append((label, method, eps, skipna))

    split_of: dict[str, TopicSplits] = {}
    by_topics: dict[tuple[str, ...], TopicSplits] = {}
    for name, matrix in matrices.items():
        if matrix.topics not in by_topics:
            by_topics[matrix.topics] = (check_splits(splits).align(matrix.topics) if splits is not None
                                        else random_halvings(matrix.topics, n_splits, seed))
        split_of[name] = by_topics[matrix.topics]
    n_total = len(next(iter(split_of.values())))
    if any(len(sp) != n_total for sp in split_of.values()):
        raise InputError("the splits of the measures differ in number")

    values = np.full((len(variants), n_total), np.nan)
    omitted = np.zeros(len(variants), dtype=np.int64)
    k = 0
    tasks = []
    with progress_bar(n_total * len(matrices), progress if job is None else False, "split-half") as bar:
        for name, matrix in matrices.items():
            aggs = per_measure[name]
            tasks += [(k, len(aggs), *task) for task in
                      _run_splits(matrix, aggs, split_of[name], values[k:k + len(aggs)], omitted[k:k + len(aggs)],
                                  correlation, nan_policy, tie_rtol, batch_size, bar, job, specs[name])]
            k += len(aggs)
    if job is not None:  # the same batches, computed on a cluster
        job.run()
        for k, n, start, stop, task in tasks:
            values[k:k + n, start:stop], count = job.result(task)
            omitted[k:k + n] += count

    low = {n: low_score_share(m, low_threshold, low_inclusive) for n, m in matrices.items()}
    fixed_taus: dict[str, np.ndarray] = {}
    difficulty_info = None
    source = _difficulty_source(difficulty, matrices)
    if source is not None:
        fixed = difficulty_splits(source, difficulty_method)
        difficulty_info = {"measure": source.measure, "method": difficulty_method, "splits": fixed}
        for split_name, split in fixed.items():
            taus = []
            for name, matrix in matrices.items():
                aggs = per_measure[name]
                out = np.full((len(aggs), 1), np.nan)
                if set(matrix.topics) == set(split.topics):  # else: NaN (other topics than D_t's)
                    _run_splits(matrix, aggs, split.align(matrix.topics), out, np.zeros(len(aggs), dtype=np.int64),
                                correlation, nan_policy, tie_rtol, None, _Silent())
                taus.append(out[:, 0])
            fixed_taus[split_name] = np.concatenate(taus)
    # Built once, complete: the result is frozen.
    return SplitHalfResult(tuple(variants), values, correlation, split_of,
                           {n: m.shape[0] for n, m in matrices.items()}, {n: m.shape[1] for n, m in matrices.items()},
                           omitted, low=low, fixed=fixed_taus, difficulty=difficulty_info,
                           seed=(splits.seed if splits is not None else seed), tie_rtol=float(tie_rtol),
                           skipna=bool(skipna), nan_policy=nan_policy)


def _difficulty_source(difficulty, matrices: Mapping[str, ScoreMatrix]) -> ScoreMatrix | None:
    if difficulty is None:
        return None
    if isinstance(difficulty, ScoreMatrix):
        return as_matrices(difficulty)[difficulty.measure]
    if not isinstance(difficulty, str):
        raise ArgumentTypeError(f"difficulty must be 'auto', a measure name, a ScoreMatrix or None; got "
                                f"{kind_of(difficulty)}", argument="difficulty")
    if difficulty == "auto":
        from irstats.measures import Role, measure_for

        return matrices.get(measure_for(Role.DEFAULT))
    if difficulty not in matrices:
        raise InputError(f"no measure {difficulty!r} to compute topic difficulty from; "
                         f"the scores have {', '.join(matrices)}")
    return matrices[difficulty]


def epsilon_sweep(scores: ScoreMatrix | Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix],
                  methods: Iterable[str] = ("egm", "ehm"), epsilons: Sequence[float] = SWEEP_EPSILONS,
                  asymptote: str | None = "am", **kwargs) -> SplitHalfResult:
    """Mean τ of εGM and εHM against ε (METHODS.md §5.1 ε sweep), AM as the asymptote.

    Runs :func:`split_half` with one variant per (method, ε) plus ``asymptote`` (AM, the
    limit of both as ε → ∞), all on the same halvings. Keyword arguments go to
    :func:`split_half` (``n_splits``, ``seed``, ``correlation``, …); fixed difficulty
    splits are skipped unless ``difficulty`` is given.
    """
    names = [resolve_method(m) for m in name_list(methods, "methods", what="aggregation methods")]
    for name in names:
        if DEFAULT_EPSILON[name] is None:
            raise ArgumentError(f"method {name!r} takes no ε; the sweep is for egm, ehm, gm_trec_eval, al, logit",
                                argument="methods")
    if isinstance(epsilons, (str, bytes)) or not isinstance(epsilons, Iterable) or not list(epsilons):
        raise ArgumentError(f"epsilons must be a non-empty list of numbers >= 0; got {epsilons!r}",
                            argument="epsilons")
    specs: list = [(name, real(e, "epsilons", low=0.0)) for name in names for e in epsilons]
    if asymptote is not None:
        specs.append(resolve_method(asymptote))
    kwargs.setdefault("difficulty", None)
    kwargs.pop("epsilon", None)
    return split_half(scores, specs, **kwargs)


__all__ = ["DEFAULT_METHODS", "SPLITHALF_QUANTILES", "FIXED_SPLITS", "LowScoreShare", "PairedComparison",
           "SWEEP_EPSILONS", "SplitHalfResult", "Variant", "difficulty_splits", "epsilon_sweep", "low_score_share",
           "parse_methods", "quantile_name", "split_half"]
