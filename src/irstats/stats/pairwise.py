"""All-pairs significance testing: :func:`pairwise`, Carterette's randomised
:func:`tukey_hsd`, and Sakai's :func:`discriminative_power` (METHODS §5.6).

The pairwise tests are vectorised over system pairs: the t and sign tests in closed form
over a pairs × topics matrix of differences, the bootstrap and randomisation tests with
the same resamples for every pair. Pair (i, j)'s p-value is therefore exactly what the
single-pair function (:func:`~irstats.stats.paired_t`, :func:`~irstats.stats.bootstrap_test`
…) returns for rows i and j with the same seed.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol, cast

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.checks import numbers, share
from irstats.ids import bytewise_key
from irstats.random import Seed, check_seed, generator, seed_label
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, NotFoundError, did_you_mean, warn
from irstats.scores import ScoreMatrix
from irstats.stats.resampling import (
    BOOTSTRAP,
    RANDOMIZATION,
    TUKEY_RANGES,
    ResamplingCore,
    _check_resamples,
    check_batch_size,
    exact_is_cheaper,
    randomization_exact_core,
    resample_batch,
    resample_batches,
    warn_dropped_topics,
)
from irstats.stats.closed_form import (
    ZERO_TOL,
    PairedTRows,
    SignedRank,
    paired_t_rows,
    sign_rows,
    wilcoxon_from_differences,
)

if TYPE_CHECKING:  # pragma: no cover
    from irstats.distributed import Job


class RowsResult(Protocol):
    """What a :attr:`PairedTest.rows` function returns: one value per row of differences."""

    @property
    def statistic(self) -> np.ndarray: ...
    @property
    def p_value(self) -> np.ndarray: ...
    @property
    def effect_size(self) -> np.ndarray: ...


# ----------------------------------------------------------------------------- declarations

@dataclass(frozen=True)
class PairedTest:
    """A test of pairs of systems, declared once and read by every caller (:func:`pairwise`,
    :func:`~irstats.stats.compare`, the volatility sweep, the command line) — as scipy
    declares a test's sample structure once.

    ``label``: its name in legends. ``core``: the Monte Carlo core it draws its random
    resamples with (:class:`~irstats.stats.resampling.ResamplingCore`; B and the seed then
    belong in its legend, ``n_resamples``/``seed`` matter, and its batches can run on a Dask
    cluster). ``familywise``: its p-values control the familywise error already (no further
    correction). ``min_topics``: the fewest topics a pair needs for a p-value (fewer: NaN,
    and the legend says why). ``rows``: for a test whose every pair's statistic and p-value
    are a closed form of the pair's difference row (pairs × topics, no NaN), the batched row
    function — callers may then test any batch of pairs at once (the sweep: every depth in one
    call); its result has ``statistic``, ``p_value``, ``effect_size``, and ``lower`` gives the
    statistic read the other way.
    """

    name: str
    label: str
    core: ResamplingCore | None = None
    familywise: bool = False
    min_topics: int = 1
    rows: Callable[[np.ndarray], RowsResult] | None = None
    # the statistic of (b, a) from what ``rows`` or ``per_pair`` returned (its own result class:
    # the sign test reads ``neg``, Wilcoxon's W⁻ is n(n + 1)/2 − W⁺)
    lower: Callable[[Any], np.ndarray | float] | None = None
    # a test computed one pair at a time: the pair's difference row (no NaN) → its result
    # (statistic, p_value, effect_size, n_nonzero, method)
    per_pair: Callable[[np.ndarray], SignedRank] | None = None
    # a resampling test of pairs: the p-value from the count of resamples at least as extreme
    # and B; ``exact``: the core that enumerates all 2^n resamples instead (randomisation)
    p_value: Callable[[np.ndarray, int], np.ndarray] | None = None
    exact: Callable[[np.ndarray, int | None], tuple[np.ndarray, np.ndarray]] | None = None
    # pairs differing by one amount on every topic get METHODS.md §5.6's convention (warned of)
    degenerate_rule: bool = False

    @property
    def resamples(self) -> bool:
        """Whether it draws random resamples (it declares a core)."""
        return self.core is not None


def _signed_rank_lower(r: SignedRank) -> float:
    """W⁻ = n(n + 1)/2 − W⁺ over the n nonzero differences."""
    return r.n_nonzero * (r.n_nonzero + 1) / 2 - r.statistic


TESTS: dict[str, PairedTest] = {t.name: t for t in (
    PairedTest("paired_t", "paired t-test", min_topics=2, rows=paired_t_rows, lower=lambda r: -r.statistic,
               degenerate_rule=True),
    PairedTest("wilcoxon", "Wilcoxon signed-rank test", per_pair=wilcoxon_from_differences,
               lower=_signed_rank_lower),
    PairedTest("sign", "sign test", rows=sign_rows, lower=lambda r: r.neg.astype(np.float64)),
    PairedTest("bootstrap", "paired bootstrap test", core=BOOTSTRAP, min_topics=2,
               p_value=lambda counts, b: counts / b),
    PairedTest("randomization", "randomisation test", core=RANDOMIZATION,
               p_value=lambda counts, b: (1 + counts) / (1 + b), exact=randomization_exact_core),
    PairedTest("tukey", "randomised Tukey HSD", core=TUKEY_RANGES, familywise=True, min_topics=2),
)}

#: Tests :func:`pairwise` knows, by name.
PAIRWISE_TESTS = tuple(TESTS)


@dataclass(frozen=True)
class PairwiseResult(Result):
    """Every pair of systems compared by one test.

    Matrices are systems × systems, entry [i, j] comparing system i (as ``a``) with
    system j (as ``b``): ``delta`` = mean difference x̄_i − x̄_j over the topics used,
    ``statistic`` the test statistic, ``p_value`` (symmetric; NaN on the diagonal),
    ``effect_size`` (antisymmetric), ``n`` the number of topics used.
    """

    test: str
    systems: tuple[str, ...]
    measure: str | None
    delta: np.ndarray
    statistic: np.ndarray
    p_value: np.ndarray
    effect_size: np.ndarray
    n: np.ndarray
    details: dict[str, Any] = field(default_factory=dict)

    def index(self, name: str) -> int:
        """The row of system ``name``."""
        try:
            return self.systems.index(name)
        except ValueError:
            raise NotFoundError(f"no system {name!r}{did_you_mean(name, self.systems)}; the systems are "
                                f"{', '.join(self.systems)}", argument="name") from None

    def p(self, a: str, b: str) -> float:
        """The p-value of the comparison of systems a and b."""
        return float(self.p_value[self.index(a), self.index(b)])

    @property
    def n_pairs(self) -> int:
        """Number of unordered system pairs, s(s − 1)/2."""
        m = len(self.systems)
        return m * (m - 1) // 2

    def significant(self, alpha: float = 0.05) -> np.ndarray:
        """Boolean systems × systems matrix of p < alpha (NaN counts as not significant)."""
        share(alpha, "alpha")
        with np.errstate(invalid="ignore"):
            below: np.ndarray = np.nan_to_num(self.p_value, nan=1.0) < alpha
        return below

    def discriminative_power(self, alpha: float = 0.05) -> float:
        """Sakai's discriminative power: the share of the s(s − 1)/2 pairs with p < alpha (a pair
        whose p is undefined counts as not significant); NaN when no pair could be tested at
        all (one topic: every p is undefined), rather than a power of 0."""
        i, j = np.triu_indices(len(self.systems), 1)
        if self.n_pairs == 0 or not np.isfinite(self.p_value[i, j]).any():
            return float("nan")
        return float(self.significant(alpha)[i, j].sum() / self.n_pairs)

    def to_frame(self) -> pl.DataFrame:
        """One row per unordered pair (i < j in system order): ``system_a, system_b, delta,
        statistic, p_value, effect_size, n``."""
        i, j = np.triu_indices(len(self.systems), 1)
        return pl.DataFrame({
            "system_a": [self.systems[k] for k in i], "system_b": [self.systems[k] for k in j],
            "delta": self.delta[i, j], "statistic": self.statistic[i, j], "p_value": self.p_value[i, j],
            "effect_size": self.effect_size[i, j], "n": self.n[i, j].astype(np.int64),
        })

    def __repr__(self) -> str:
        return f"PairwiseResult({self.test!r}, {len(self.systems)} systems, {self.n_pairs} pairs)"


def _as_matrix(scores: object) -> tuple[np.ndarray, tuple[str, ...], str | None, np.ndarray]:
    """A C-contiguous systems × topics array in canonical order, names, measure, and the
    permutation ``order`` of the systems (row k of the array is input row ``order[k]``).

    A ScoreMatrix's systems and topics are put in bytewise order (METHODS §5: so that a
    seed gives the same numbers however the matrix was built); a plain array is used in the
    order given, its systems named "0", "1", …. The array is made C-contiguous because
    numpy's summation order — and so the last bit of a sum — depends on the memory layout.
    """
    if isinstance(scores, ScoreMatrix):
        order = np.array(sorted(range(len(scores.systems)), key=lambda i: bytewise_key(scores.systems[i])),
                         dtype=np.intp)
        topics = np.array(sorted(range(len(scores.topics)), key=lambda j: bytewise_key(scores.topics[j])), dtype=np.intp)
        X = np.ascontiguousarray(scores.values[np.ix_(order, topics)])
        return X, scores.systems, scores.measure, order
    if isinstance(scores, Mapping):
        raise ArgumentTypeError(f"scores must be one ScoreMatrix (or a systems × topics array), not a "
                                f"{type(scores).__name__}; pass scores[measure]", argument="scores")
    X = np.ascontiguousarray(numbers(scores, "scores"))
    if X.ndim != 2:
        raise ArgumentError(f"scores must be a ScoreMatrix or a systems × topics array, got an array of shape "
                            f"{X.shape}", argument="scores")
    return X, tuple(str(i) for i in range(X.shape[0])), None, np.arange(X.shape[0])


def check_test(test: str) -> str:
    """``test`` if it names one of :data:`PAIRWISE_TESTS`."""
    paired_test(test)
    return test


def paired_test(test: object) -> PairedTest:
    """The declaration of the test named ``test``; an error naming the argument otherwise."""
    if not (isinstance(test, str) and test in TESTS):
        error = ArgumentError if isinstance(test, str) else ArgumentTypeError
        raise error(f"unknown test {test!r}; expected one of {', '.join(TESTS)}", argument="test")
    return TESTS[test]


def _restore(matrix: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Undo the canonical system order on a systems × systems matrix."""
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    restored: np.ndarray = matrix[np.ix_(inverse, inverse)]
    return restored


def _generator_copy(rng: np.random.Generator) -> np.random.Generator:
    copy = np.random.Generator(type(rng.bit_generator)())
    copy.bit_generator.state = rng.bit_generator.state
    return copy


def _full(m: int, upper: np.ndarray, lower: np.ndarray, diagonal: float = np.nan) -> np.ndarray:
    out = np.full((m, m), diagonal, dtype=np.float64)
    i, j = np.triu_indices(m, 1)
    out[i, j] = upper
    out[j, i] = lower
    return out


def pairwise(scores: ScoreMatrix | np.ndarray, test: str = "paired_t", n_resamples: int = 10000,
             seed: Seed = 0, exact: bool = False,
             batch_size: int | None = None, *, client: Any = None) -> PairwiseResult:
    """Compare every pair of systems of a score matrix with one test.

    ``test`` is one of ``paired_t``, ``wilcoxon``, ``sign``, ``bootstrap``,
    ``randomization`` (``exact=True`` to enumerate) or ``tukey`` (:func:`tukey_hsd`).
    p-values are not adjusted for multiplicity, except Tukey's, which control the
    familywise error by construction. Each pair uses the topics both systems were evaluated
    on; a warning says how many pairs lost topics that way.

    With an integer seed, every pair's resamples come from a fresh
    ``Generator(PCG64(seed))`` — the same draws as the single-pair function with that seed
    given the two systems' rows with the topics in bytewise order (the order of every
    ScoreMatrix irstats reads or evaluates).

    ``client`` (a ``distributed.Client``): the resample batches of the bootstrap,
    randomisation and Tukey tests are computed on its Dask cluster
    (:mod:`irstats.distributed`), with the same p-values to the last bit.
    """
    from irstats.distributed import planned

    return planned(client, "pairwise", lambda job: _pairwise(scores, test, n_resamples, seed, exact, batch_size, job),
                   unit="resample")


def _pairwise(scores: object, test: str, n_resamples: int, seed: Seed, exact: bool, batch_size: int | None,
              job: Job | None) -> Callable[[], PairwiseResult]:
    """:func:`pairwise` up to its resamples; returns the function that completes the result
    (resample batches submitted to ``job``, when given, are read there)."""
    spec = paired_test(test)
    check_seed(seed)  # every test, so that a bad seed is an error even where no resample is drawn
    check_batch_size(batch_size)
    _check_resamples(n_resamples, feasible=False)
    if spec.familywise:  # Tukey's HSD: one resampling over all systems at once
        return _tukey_hsd(scores, n_resamples, seed, batch_size, job)
    X, systems, measure, order = _as_matrix(scores)
    m = X.shape[0]
    if m < 2:
        raise ArgumentError(f"pairwise tests need at least two systems; scores has {m}", argument="scores")
    I, J = np.triu_indices(m, 1)
    D = X[I] - X[J]
    ok = ~np.isnan(D)
    n = ok.sum(axis=1)
    short = int(np.count_nonzero(n < X.shape[1]))
    if short:
        warn(f"{short} of {I.size} system pairs were compared on fewer than all {X.shape[1]} topics "
             "(a score is missing for one of the two systems)")
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = np.where(ok, D, 0.0).sum(axis=1) / n
    details: dict[str, Any] = {"topics": X.shape[1]}

    if spec.rows is not None:  # a closed form of each pair's difference row
        res = spec.rows(D)
        stat, p, effect = res.statistic, res.p_value, res.effect_size
        assert spec.lower is not None  # declared with every ``rows``
        stat_lower = np.asarray(spec.lower(res))  # one value per row: an array already
        # the degenerate rule is declared with the paired t-test's rows, which mark the degenerate rows
        if spec.degenerate_rule and cast(PairedTRows, res).degenerate.any():
            flat = np.flatnonzero(cast(PairedTRows, res).degenerate)
            named = ", ".join(f"{systems[order[I[x]]]} vs {systems[order[J[x]]]}" for x in flat[:3])
            warn(f"{measure + ': ' if measure else ''}{flat.size} system pair(s) differ by the same amount on every "
                 f"topic (s_d = 0: {named}{' …' if flat.size > 3 else ''}); their p-values are set by convention "
                 "(1 if identical, else 0)")
    elif spec.per_pair is not None:
        assert spec.lower is not None  # declared with every ``per_pair``
        stat, stat_lower, p, effect = (np.full(I.size, np.nan) for _ in range(4))
        methods = {"exact": 0, "approx": 0, "none": 0}
        for k in range(I.size):
            r = spec.per_pair(D[k, ok[k]])
            stat[k], p[k], effect[k] = r.statistic, r.p_value, r.effect_size
            stat_lower[k] = spec.lower(r)
            methods[r.method] += 1
        details["methods"] = methods
    else:  # a resampling test (bootstrap, randomisation)
        exact_core, p_value, core = spec.exact, spec.p_value, spec.core
        assert p_value is not None and core is not None  # declared with every resampling test of pairs
        if exact_core is None:
            exact = False
        elif not exact:
            exact = exact_is_cheaper(X.shape[1], n_resamples)  # topics with NaN only make it cheaper
        B = None if exact else _check_resamples(n_resamples, X.shape[1])
        rng = generator(seed)
        stat, p = np.full(I.size, np.nan), np.full(I.size, np.nan)
        masks, group = np.unique(ok, axis=0, return_inverse=True)
        group = np.asarray(group).ravel()
        last = None
        pending = []  # (rows, task ids): groups whose resample batches run on a cluster
        for g, mask in enumerate(masks):
            rows = np.flatnonzero(group == g)
            Dg = D[rows][:, mask]
            size = int(mask.sum())
            if size < spec.min_topics:
                continue
            if exact:
                assert exact_core is not None  # exact stays True only where the test declares a core
                T, counts = exact_core(Dg, batch_size)
                stat[rows], p[rows] = T, counts / 2.0 ** size
                continue
            assert B is not None  # B is None only when exact
            last = _generator_copy(rng)
            if job is not None:  # the same batches, each from the generator's state at its start
                data, tasks, done = job.share(Dg), [], 0
                for size, state in resample_batches(core, Dg.shape, B, last, batch_size):
                    tasks.append(job.submit(f"{measure + ': ' if measure else ''}{spec.label}, resamples "
                                            f"{done + 1}–{done + size} of {B}", resample_batch, core, data, size,
                                            state, weight=size))
                    done += size
                pending.append((rows, tasks))
                continue
            statistic, counts = core.run(Dg, B, last, batch_size)
            stat[rows], p[rows] = statistic, p_value(counts, B)
        if last is not None and isinstance(seed, np.random.Generator):
            seed.bit_generator.state = last.bit_generator.state
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            effect = paired_t_rows(D).effect_size
        details |= {"n_resamples": B if B is not None else "2^n", "exact": exact,
                    "seed": seed_label(seed)}

        def finish() -> PairwiseResult:
            for rows, tasks in pending:  # counts are whole numbers: their sum is exact in any order
                assert job is not None and B is not None  # pending only when resampled on a cluster
                parts = [job.result(k) for k in tasks]
                counts = np.sum([c for _, c in parts], axis=0)
                stat[rows] = parts[0][0]
                p[rows] = p_value(counts, B)
            return _pairwise_result(test, systems, measure, order, m, X.shape[1], delta, stat, -stat, p, effect, n,
                                    details)

        return finish

    result = _pairwise_result(test, systems, measure, order, m, X.shape[1], delta, stat, stat_lower, p, effect, n,
                              details)
    return lambda: result


def _pairwise_result(test: str, systems: tuple[str, ...], measure: str | None, order: np.ndarray, m: int,
                     topics: int, delta: np.ndarray, stat: np.ndarray, stat_lower: np.ndarray, p: np.ndarray,
                     effect: np.ndarray, n: np.ndarray, details: dict[str, Any]) -> PairwiseResult:
    mats = [_full(m, delta, -delta, 0.0), _full(m, stat, stat_lower), _full(m, p, p), _full(m, effect, -effect),
            _full(m, n, n, topics).astype(np.int64)]
    delta_m, stat_m, p_m, effect_m, n_m = (_restore(a, order) for a in mats)
    return PairwiseResult(test, systems, measure, delta_m, stat_m, p_m, effect_m, n_m, details)


def tukey_hsd(scores: ScoreMatrix | np.ndarray, n_resamples: int = 10000, seed: Seed = 0,
              batch_size: int | None = None, *, client: Any = None) -> PairwiseResult:
    """Carterette's randomised Tukey HSD test over all pairs of systems (TOIS 2012).

    For an m systems × n topics matrix: observed D_ij = x̄_i − x̄_j. Each of the B
    resamples permutes every topic's m scores across the systems independently and
    records the range of the resulting system means, r_b = max − min;
    p_ij = (1 + #{r_b ≥ |D_ij| − τ})/(1 + B), τ = 1e-12·max(1, |D_ij|) against float noise.
    The p-values control the familywise error over all pairs; do not adjust them again.

    Effect sizes are Sakai's ES_E = D_ij/√V_E, with V_E the residual variance of a two-way
    ANOVA without replication: Σ(x_ij − x̄_i· − x̄_·j + x̄)²/((m − 1)(n − 1)).

    Topics on which any system lacks a score are left out (with a warning). ``seed`` is an
    integer or a Generator; ``batch_size`` changes memory use, never the result. See
    :func:`irstats.stats.resampling.tukey_ranges` for the exact order of the random draws.
    ``client``: the resample batches run on a Dask cluster, as for :func:`pairwise`.
    """
    from irstats.distributed import planned

    return planned(client, "tukey", lambda job: _tukey_hsd(scores, n_resamples, seed, batch_size, job),
                   unit="resample")


def _tukey_hsd(scores: object, n_resamples: int, seed: Seed, batch_size: int | None,
               job: Job | None) -> Callable[[], PairwiseResult]:
    check_seed(seed)
    check_batch_size(batch_size)
    X, systems, measure, order = _as_matrix(scores)
    B = _check_resamples(n_resamples, X.shape[0] * X.shape[1])
    m, total = X.shape
    if m < 2:
        raise ArgumentError(f"Tukey HSD needs at least two systems; scores has {m}", argument="scores")
    complete = ~np.isnan(X).any(axis=0)
    warn_dropped_topics(int(total - complete.sum()), total, "the Tukey HSD test")
    X = X[:, complete]
    n = X.shape[1]
    if n == 0:
        raise InputError("no topic has a score for every system; Tukey HSD needs complete topics")
    means = X.sum(axis=-1) / n
    D = means[:, None] - means[None, :]
    if job is None:
        ranges = TUKEY_RANGES.run(X, B, generator(seed), batch_size)
        return lambda: _tukey_result(X, B, D, means, ranges, systems, measure, order, seed, m, total)
    data, tasks, done = job.share(X), [], 0
    for size, state in resample_batches(TUKEY_RANGES, X.shape, B, generator(seed), batch_size):
        tasks.append(job.submit(f"{measure + ': ' if measure else ''}Tukey HSD, resamples {done + 1}–{done + size} "
                                f"of {B}", resample_batch, TUKEY_RANGES, data, size, state, weight=size))
        done += size
    return lambda: _tukey_result(X, B, D, means, np.concatenate([job.result(k) for k in tasks]), systems, measure,
                                 order, seed, m, total)


def _tukey_result(X: np.ndarray, B: int, D: np.ndarray, means: np.ndarray, ranges: np.ndarray,
                  systems: tuple[str, ...], measure: str | None, order: np.ndarray, seed: Seed, m: int,
                  total: int) -> PairwiseResult:
    n = X.shape[1]
    ranges = np.sort(ranges)
    threshold = np.abs(D) - ZERO_TOL * np.maximum(1.0, np.abs(D))
    counts = B - np.searchsorted(ranges, threshold.ravel(), side="left").reshape(D.shape)
    p = (1 + counts) / (1 + B)
    np.fill_diagonal(p, np.nan)
    resid = X - means[:, None] - X.mean(axis=0)[None, :] + X.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        v_e = float((resid ** 2).sum() / ((m - 1) * (n - 1))) if n > 1 else np.nan
        es = D / np.sqrt(v_e)
    np.fill_diagonal(es, np.nan)
    stat = D.copy()
    np.fill_diagonal(stat, np.nan)
    D, stat, p, es = (_restore(a, order) for a in (D, stat, p, es))
    return PairwiseResult("tukey", systems, measure, D, stat, p, es, np.full((m, m), n, dtype=np.int64),
                          {"n_resamples": B, "seed": seed_label(seed),
                           "residual_variance": v_e, "topics": n, "dropped_topics": int(total - n)})


def discriminative_power(scores: ScoreMatrix | np.ndarray, test: str = "paired_t", alpha: float = 0.05,
                         n_resamples: int = 10000, seed: Seed = 0, exact: bool = False,
                         batch_size: int | None = None) -> float:
    """Sakai's discriminative power: the share of the s(s − 1)/2 system pairs with p < alpha.

    The p-values come from :func:`pairwise` with ``test`` (unadjusted, except Tukey's,
    which are familywise by construction). A pair whose p-value is NaN (fewer than two
    common topics) counts as not significant.
    """
    share(alpha, "alpha")
    return pairwise(scores, test, n_resamples=n_resamples, seed=seed, exact=exact,
                    batch_size=batch_size).discriminative_power(alpha)
