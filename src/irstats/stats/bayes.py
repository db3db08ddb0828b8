"""Bayesian comparisons of systems over topics: how probable it is that a system is better
than a baseline by more than a difference that matters (issue 38).

Two posteriors of the per-topic differences d = system − baseline, on the topics both have:

- the **Bayesian signed-rank test** (Benavoli, Mangili, Corani, Zaffalon & Ruggeri, ICML 2014;
  ``baycomp.SignedRankTest``): a Dirichlet process prior whose pseudo-observation sits at 0
  with weight ``prior`` (0.5), the n differences weight 1 each. Each Monte-Carlo sample draws
  Dirichlet weights w over the n + 1 points z = (0, d_1 … d_n) and gives
  θ_left = Σ_ij w_i w_j [z_i + z_j < −2r] and θ_right = Σ_ij w_i w_j [z_i + z_j > 2r]
  (ties count half), θ_rope = 1 − θ_left − θ_right; P(baseline better), P(rope) and
  P(system better) are the shares of samples in which each θ is the largest (a tie shares
  the sample). The interval is the equal-tailed credible interval of the mean difference
  Σ_i w_i z_i under the same posterior.
- the **Bayesian paired t-test** over topics: topics are independent (no cross-validation
  folds, hence no Nadeau–Bengio correlation), so under the non-informative prior the mean
  difference's posterior is Student t with n − 1 degrees of freedom, centred on the mean
  difference d̄, scale s/√n (s with ddof 1): P(baseline better) = F(−r), P(system better) =
  1 − F(r), in closed form; the interval is the posterior's equal-tailed interval.

r is the half-width of the region of practical equivalence (ROPE), in the measure's units.
The default (:data:`DEFAULT_ROPE`) is 0.01 for a measure whose values lie in [0, 1] (one point
of AP or nDCG) and 1% of the observed range of the per-topic scores for any other measure.

Monte-Carlo draws are common random numbers: every pair with the same number of shared
topics is given the same Dirichlet weights (a stream of its own, made from ``seed`` and that
number), so two pairs are compared without Monte-Carlo noise between them, a pair's
probabilities do not depend on which other pairs or measures are asked for, and nothing
depends on the batch size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

import numpy as np
import polars as pl

from irstats.checks import kind_of, real, resample_count, share
from irstats.errors import ArgumentError, ArgumentTypeError, some, warn
from irstats.random import Seed, check_seed, generator, seed_label
from irstats.result import Result, provided
from irstats.scores import ScoreMatrix

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from irstats.render import Table

#: The ROPE of a measure bounded to [0, 1], in its units.
DEFAULT_ROPE = 0.01
#: The ROPE of an unbounded measure (counts, DCG): this share of the per-topic scores' range.
DEFAULT_ROPE_SHARE = 0.01
#: Monte-Carlo samples of the signed-rank posterior (baycomp's default).
DEFAULT_SAMPLES = 50_000
#: Weight of the Dirichlet process prior's pseudo-observation at 0 (baycomp's default).
DEFAULT_PRIOR = 0.5
#: Samples drawn at a time (memory: this × (topics + 1) floats per block of pairs).
CHUNK = 5_000
#: Pairs of one topic count computed from the same drawn weights at a time.
PAIR_BLOCK = 64
#: Points of each pair's posterior density kept for the figure.
DENSITY_POINTS = 121


@dataclass(frozen=True)
class Posteriors:
    """What a Bayesian test gives for a batch of pairs (one entry per pair): the three
    probabilities, the posterior interval of the mean difference, and its density on a grid
    (``x``, ``density``: pairs × :data:`DENSITY_POINTS`) for the figure."""

    p_baseline_better: np.ndarray
    p_rope: np.ndarray
    p_system_better: np.ndarray
    interval_low: np.ndarray
    interval_high: np.ndarray
    x: np.ndarray
    density: np.ndarray


@dataclass(frozen=True)
class BayesTest:
    """A Bayesian test, declared once: its label, whether it draws samples, and the batched
    function ``compute(differences, ropes, level, n_samples, prior, seed)`` that turns each
    pair's differences (a list of 1-d arrays, system − baseline) into :class:`Posteriors`."""

    label: str
    samples: bool
    compute: Callable[..., Posteriors]


def _winner_shares(thetas: np.ndarray) -> np.ndarray:
    """Per column of (samples, 3) θ: the share of samples in which it is the largest, a tie
    sharing its sample equally."""
    top = thetas == thetas.max(axis=1, keepdims=True)
    shares: np.ndarray = (top / top.sum(axis=1, keepdims=True)).sum(axis=0)
    return shares


def _pair_indices(z: np.ndarray, rope: float) -> tuple[np.ndarray, ...]:
    """For z sorted ascending: per i, where z_i + z_j passes ±2r along j (a prefix or a
    suffix, since a rounded sum grows with z_j), from the sums exactly as computed."""
    sums = z[:, None] + z[None, :]
    width = 2 * rope
    m = z.size
    gt = m - (sums > width).sum(axis=1)      # j >= gt: z_i + z_j > 2r
    ge = m - (sums >= width).sum(axis=1)     # j >= ge: z_i + z_j >= 2r
    lt = (sums < -width).sum(axis=1)         # j < lt: z_i + z_j < −2r
    le = (sums <= -width).sum(axis=1)        # j < le: z_i + z_j <= −2r
    return gt, ge, lt, le


def _weight_stream(root: int, n: int) -> np.random.Generator:
    """The Dirichlet weights' stream of every pair with ``n`` shared topics."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([root, n])))


def _signed_rank(differences: list[np.ndarray], ropes: np.ndarray, level: float, n_samples: int, prior: float,
                 seed: Seed) -> Posteriors:
    """The Bayesian signed-rank test of every pair (see the module's docstring), batched over
    the pairs with the same number of topics, which share their drawn weights."""
    k = len(differences)
    probs = np.zeros((k, 3))
    low, high = np.full(k, np.nan), np.full(k, np.nan)
    x, density = np.full((k, DENSITY_POINTS), np.nan), np.full((k, DENSITY_POINTS), np.nan)
    root = int(generator(seed).integers(0, 2**63 - 1))
    sizes = np.array([d.size for d in differences])
    for n in np.unique(sizes):
        members = np.flatnonzero(sizes == n)
        alpha = np.ones(n + 1)
        alpha[0] = prior
        for start in range(0, members.size, PAIR_BLOCK):
            block = members[start:start + PAIR_BLOCK]
            zs, orders, indices = [], [], []
            for p in block:
                z = np.concatenate(([0.0], differences[p]))
                order = np.argsort(z, kind="stable")
                zs.append(z)
                orders.append(order)
                indices.append(_pair_indices(z[order], ropes[p]))
            means = np.empty((block.size, n_samples))
            stream = _weight_stream(root, int(n))
            for first in range(0, n_samples, CHUNK):
                size = min(CHUNK, n_samples - first)
                gammas = stream.standard_gamma(alpha, size=(size, n + 1))
                weights = np.ascontiguousarray((gammas / gammas.sum(axis=1, keepdims=True)).T)  # points × samples
                head = np.zeros((n + 2, size))
                for b, p in enumerate(block):
                    w = weights[orders[b]]
                    for j in range(n + 1):                           # head[j] = Σ_{i<j} w_i (row by row:
                        np.add(head[j], w[j], out=head[j + 1])       # 6× np.cumsum's speed along axis 0)
                    tail = head[-1] - head                           # tail[j] = Σ_{i>=j} w_i
                    gt, ge, lt, le = indices[b]
                    right = 0.5 * np.einsum("ij,ij->j", w, tail[gt] + tail[ge])
                    left = 0.5 * np.einsum("ij,ij->j", w, head[lt] + head[le])
                    thetas = np.column_stack([left, 1.0 - left - right, right])
                    probs[p] += _winner_shares(thetas)
                    means[b, first:first + size] = np.einsum("i,ij->j", zs[b], weights)  # (no BLAS thread pool)
            tails = [(1 - level) / 2, (1 + level) / 2]
            for b, p in enumerate(block):
                low[p], high[p] = np.quantile(means[b], tails)
                x[p], density[p] = _histogram_density(means[b])
    probs /= n_samples
    return Posteriors(probs[:, 0], probs[:, 1], probs[:, 2], low, high, x, density)


def _histogram_density(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A density of ``samples`` at :data:`DENSITY_POINTS` bin centres (a histogram)."""
    lo, hi = float(samples.min()), float(samples.max())
    if hi <= lo:
        hi = lo + 1e-12
    counts, edges = np.histogram(samples, bins=DENSITY_POINTS, range=(lo, hi), density=True)
    return (edges[:-1] + edges[1:]) / 2, counts


def t_posterior_rows(differences: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair, the posterior of the mean difference under the non-informative prior: its
    degrees of freedom n − 1, centre d̄ and scale s/√n (s with ddof 1)."""
    n = np.array([d.size for d in differences], dtype=float)
    centre = np.array([d.mean() for d in differences])
    spread = np.array([d.std(ddof=1) for d in differences])
    return n - 1, centre, spread / np.sqrt(n)


def _t(differences: list[np.ndarray], ropes: np.ndarray, level: float, n_samples: int, prior: float,
       seed: Seed) -> Posteriors:
    """The Bayesian paired t-test of every pair: closed form (scipy's Student t)."""
    from scipy import stats

    from irstats.stats.degenerate import zero_spread

    df, centre, scale = t_posterior_rows(differences)
    flat = zero_spread(scale, centre)
    posterior = stats.t(df, loc=centre, scale=np.where(flat, 1.0, scale))
    left = np.where(flat, (centre < -ropes).astype(float), posterior.cdf(-ropes))
    right = np.where(flat, (centre > ropes).astype(float), posterior.sf(ropes))
    low = np.where(flat, centre, posterior.ppf((1 - level) / 2))
    high = np.where(flat, centre, posterior.ppf((1 + level) / 2))
    grid_low = np.minimum(posterior.ppf(0.0005), -1.05 * ropes)
    grid_high = np.maximum(posterior.ppf(0.9995), 1.05 * ropes)
    x = np.linspace(grid_low, grid_high, DENSITY_POINTS, axis=1)
    density = posterior.pdf(x.T).T
    density[flat] = np.nan
    inside = np.where(flat, (np.abs(centre) <= ropes).astype(float), posterior.cdf(ropes) - posterior.cdf(-ropes))
    return Posteriors(left, inside, right, low, high, x, density)


#: The Bayesian tests, declared once: ``--test`` of ``irstats bayes`` and ``test=`` of :func:`bayes`.
BAYES_TESTS: dict[str, BayesTest] = {
    "signed_rank": BayesTest("Bayesian signed-rank test (Benavoli et al. 2014)", True, _signed_rank),
    "t": BayesTest("Bayesian paired t-test (posterior Student t, n − 1 df)", False, _t),
}


@dataclass(frozen=True)
class BayesComparison(Result):
    """Posterior probabilities that a system is better than its baseline, per measure.

    ``frame`` has one row per (measure, pair): ``measure, system, baseline,
    p_baseline_better, p_rope, p_system_better`` (they sum to 1) and ``interval_low,
    interval_high`` (the posterior's interval of the mean difference system − baseline at
    ``level``). ``ropes`` holds each measure's ROPE half-width; ``densities`` each pair's
    posterior density of the mean difference on a grid (``measure, system, baseline,
    difference, density``), which :meth:`plot_posterior` draws.
    """

    frame: pl.DataFrame
    test: str
    ropes: dict[str, float]
    level: float
    n_samples: int
    prior: float
    seed: int | str
    baseline: str | None
    measures: tuple[str, ...]
    densities: pl.DataFrame = field(repr=False, default_factory=pl.DataFrame)
    default_ropes: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        against = f"against {self.baseline}" if self.baseline is not None else "pairwise"
        return f"Systems {against}: posterior probabilities of being better, within the ROPE or worse"

    def legend(self) -> list[str]:
        """The test, its settings and each measure's ROPE."""
        spec = BAYES_TESTS[self.test]
        how = f"{spec.label}"
        if spec.samples:
            how += f", prior weight {self.prior:g} at 0, {self.n_samples:,} Monte-Carlo samples, seed {self.seed}"
        ropes = ", ".join(f"{m} ±{self.ropes[m]:g}{' (default)' if m in self.default_ropes else ''}"
                          for m in self.measures)
        return [f"{how}; ROPE (region of practical equivalence): {ropes}",
                f"p_baseline_better, p_rope, p_system_better: posterior probabilities that system − baseline is "
                f"below −ROPE, within it, above +ROPE; interval: {self.level:.0%} posterior interval of the mean "
                "difference system − baseline"]

    def to_frame(self) -> pl.DataFrame:
        return self.frame

    def display_table(self, digits: int = 4) -> Table:
        from irstats.render import table_of_frame

        return table_of_frame(self.frame, title=self.title, legend=self.legend(), digits=digits, label="tab:bayes")

    def plot_posterior(self, measure: str | None = None, system: str | None = None, baseline: str | None = None,
                       ax: Axes | None = None, size: str | None = None) -> Any:
        """The posterior of the mean difference of one pair (default: the first row), the
        ROPE shaded (:func:`irstats.plots.bayes.plot_posterior`)."""
        return provided(self, "plot_posterior", "irstats.plots")(self, measure, system, baseline, ax=ax, size=size)

    def plot_simplex(self, measure: str | None = None, ax: Axes | None = None, size: str | None = None) -> Any:
        """Every pair's three probabilities as a point of the simplex
        (:func:`irstats.plots.bayes.plot_simplex`)."""
        return provided(self, "plot_simplex", "irstats.plots")(self, measure, ax=ax, size=size)


def default_rope(matrix: ScoreMatrix) -> float:
    """:data:`DEFAULT_ROPE` for a measure whose values lie in [0, 1], else
    :data:`DEFAULT_ROPE_SHARE` of the per-topic scores' observed range."""
    if _bounded(matrix.measure):
        return DEFAULT_ROPE
    values = matrix.values[~np.isnan(matrix.values)]
    span = float(values.max() - values.min()) if values.size else 0.0
    return DEFAULT_ROPE_SHARE * span if span > 0 else DEFAULT_ROPE


def _bounded(measure: str) -> bool:
    """Whether the measure's family declares its values in [0, 1] (a name irstats does not
    parse — a column of someone's score file — counts as unbounded)."""
    from irstats.errors import IrstatsError
    from irstats.measures import parse_measure

    try:
        return bool(parse_measure(measure).definition.bounded)
    except (IrstatsError, ValueError, KeyError):
        return False


def _rope_for(value: object, matrix: ScoreMatrix) -> float:
    """A ROPE half-width for ``matrix``'s measure: a number >= 0, at most the measure's range
    (1 for a measure in [0, 1]: an error past it; a warning past the observed range otherwise)."""
    rope = check_rope(value)
    if _bounded(matrix.measure):
        if rope > 1.0:
            raise ArgumentError(f"rope {rope:g} is larger than the range of {matrix.measure} (values in [0, 1]); "
                                f"give rope in {matrix.measure}'s units, e.g. {DEFAULT_ROPE}",
                                argument="rope")
        return rope
    values = matrix.values[~np.isnan(matrix.values)]
    span = float(values.max() - values.min()) if values.size else 0.0
    if rope > span:
        warn(f"rope {rope:g} is larger than the range of the {matrix.measure} scores ({span:g}): every difference "
             f"is practically equivalent; give a rope in {matrix.measure}'s units")
    return rope


def check_rope(value: object) -> float:
    """A ROPE half-width: a finite number >= 0 (the region is [−r, r])."""
    rope = real(value, "rope")
    if rope < 0:
        raise ArgumentError(f"rope {rope:g} is negative; the ROPE is [−r, r]: give rope r >= 0 in the "
                            f"measure's units, e.g. {DEFAULT_ROPE} (0: no region, two probabilities)", argument="rope")
    return rope


def _ropes(rope: float | Mapping[str, float] | None,
           matrices: Mapping[str, ScoreMatrix]) -> tuple[dict[str, float], tuple[str, ...]]:
    """Each measure's ROPE (``rope``: None for the defaults, a number for all, or a mapping by
    measure) and the measures that got the default."""
    if isinstance(rope, Mapping):
        unknown = [m for m in rope if m not in matrices]
        if unknown:
            raise ArgumentError(f"rope names measures the scores do not have: {some(unknown)} (measures: "
                                f"{some(matrices)})", argument="rope")
        given = dict(rope)
    elif rope is None:
        given = {}
    else:
        given = {m: rope for m in matrices}
    out, defaults = {}, []
    for name, matrix in matrices.items():
        if given.get(name) is None:
            out[name] = default_rope(matrix)
            defaults.append(name)
        else:
            out[name] = _rope_for(given[name], matrix)
    return out, tuple(defaults)


def _pairs(matrix: ScoreMatrix, baseline: str | None, all_pairs: bool, order: tuple[str, ...]) -> list[tuple[str, str]]:
    """The (system, baseline) pairs of one measure: every other system against ``baseline``,
    or every pair (the system the one ranked higher in ``order``)."""
    if all_pairs:
        return [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]
    assert baseline is not None  # compare_bayes picks one when all_pairs is off
    return [(s, baseline) for s in order if s != baseline]


def _differences(matrix: ScoreMatrix, pairs: list[tuple[str, str]]) -> list[np.ndarray]:
    """system − baseline on the topics both have, per pair; an error for a pair sharing fewer
    than two topics."""
    index = {s: i for i, s in enumerate(matrix.systems)}
    out = []
    for system, base in pairs:
        d = matrix.values[index[system]] - matrix.values[index[base]]
        d = d[~np.isnan(d)]
        if d.size < 2:
            shared = "no topics" if d.size == 0 else "one topic"
            raise ArgumentError(f"{system} and {base} share {shared} under {matrix.measure}; a Bayesian comparison "
                                "needs at least two topics both systems were evaluated on: evaluate both on the same "
                                "topics (irstats eval -c scores a topic a run lacks as 0)", argument="scores")
        out.append(d)
    return out


def bayes(scores: Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix] | ScoreMatrix, baseline: str | None = None, *,
          all_pairs: bool = False, test: str = "signed_rank", rope: float | Mapping[str, float] | None = None,
          level: float = 0.95, n_samples: int = DEFAULT_SAMPLES, prior: float = DEFAULT_PRIOR,
          seed: Seed = 0) -> BayesComparison:
    """Posterior probabilities that each system is worse than, practically equivalent to, or
    better than a baseline (or every other system), per measure.

    ``baseline``: the system to compare with (default: the best mean by the first measure);
    ``all_pairs``: every pair of systems instead (systems ordered by the first measure's mean,
    the better-ranked one as ``system``). ``test``: ``"signed_rank"`` (Monte-Carlo,
    ``n_samples`` samples, the prior's pseudo-observation at 0 with weight ``prior``, ``seed``)
    or ``"t"`` (closed form). ``rope``: the ROPE's half-width in the measure's units — one
    number, a mapping by measure, or None for :func:`default_rope`. ``level``: of the
    posterior interval. See the module's docstring for the two posteriors.

    >>> import irstats, numpy as np                                      # doctest: +SKIP
    >>> irstats.stats.bayes.bayes(scores["AP"], "bm25", rope=0.01).frame  # doctest: +SKIP
    """
    from irstats.checks import one_of

    one_of(test, "test", BAYES_TESTS)
    share(level, "level")
    prior = real(prior, "prior", low=0.0)
    n_samples = resample_count(n_samples, "n_samples")
    check_seed(seed)
    if baseline is not None and not isinstance(baseline, str):
        raise ArgumentTypeError(f"baseline must be a system name or None; got {kind_of(baseline)}",
                                argument="baseline")
    if all_pairs and baseline is not None:
        raise ArgumentError("give a baseline or all_pairs=True, not both", argument="baseline")
    from irstats.stats.compare import compared_matrices

    matrices, order = compared_matrices(scores)
    if len(order) < 2:
        raise ArgumentError(f"a comparison needs at least two systems; the scores have {len(order)}",
                            argument="scores")
    for name, matrix in matrices.items():
        if len(matrix.topics) < 2:
            raise ArgumentError(f"the {name} scores have one topic; a Bayesian comparison over topics needs at least "
                                "two: evaluate the runs on more topics", argument="scores")
    if baseline is None and not all_pairs:
        baseline = order[0]
    for name, matrix in matrices.items():
        if baseline is not None and baseline not in matrix.systems:
            raise ArgumentError(f"unknown baseline {baseline!r}: no such system for {name} (systems: "
                                f"{some(matrix.systems, limit=8, quote=False)})", argument="baseline")
    ropes, defaults = _ropes(rope, matrices)
    spec = BAYES_TESTS[test]
    frames, densities = [], []
    for name, matrix in matrices.items():
        present = tuple(s for s in order if s in matrix.systems)
        pairs = _pairs(matrix, baseline, all_pairs, present)
        differences = _differences(matrix, pairs)
        result = spec.compute(differences, np.full(len(pairs), ropes[name]), level, n_samples, prior, seed)
        systems = [p[0] for p in pairs]
        bases = [p[1] for p in pairs]
        frames.append(pl.DataFrame({
            "measure": [name] * len(pairs), "system": systems, "baseline": bases,
            "p_baseline_better": result.p_baseline_better, "p_rope": result.p_rope,
            "p_system_better": result.p_system_better, "interval_low": result.interval_low,
            "interval_high": result.interval_high}, schema=_SCHEMA))
        points = result.x.shape[1]
        densities.append(pl.DataFrame({
            "measure": [name] * (len(pairs) * points), "system": np.repeat(systems, points).tolist(),
            "baseline": np.repeat(bases, points).tolist(), "difference": result.x.ravel(),
            "density": result.density.ravel()}, schema=_DENSITY_SCHEMA))
    return BayesComparison(pl.concat(frames), test, ropes, float(level), n_samples, float(prior), seed_label(seed),
                           baseline, tuple(matrices), pl.concat(densities), defaults)


_SCHEMA = {"measure": pl.String, "system": pl.String, "baseline": pl.String, "p_baseline_better": pl.Float64,
           "p_rope": pl.Float64, "p_system_better": pl.Float64, "interval_low": pl.Float64,
           "interval_high": pl.Float64}
_DENSITY_SCHEMA = {"measure": pl.String, "system": pl.String, "baseline": pl.String, "difference": pl.Float64,
                   "density": pl.Float64}


def bayes_pair(system: np.ndarray, baseline: np.ndarray, *, test: str = "signed_rank", rope: float = DEFAULT_ROPE,
               level: float = 0.95, n_samples: int = DEFAULT_SAMPLES, prior: float = DEFAULT_PRIOR,
               seed: Seed = 0) -> tuple[float, float, float]:
    """P(baseline better), P(rope), P(system better) for one pair of per-topic score vectors
    (topics where either is NaN left out): a thin call of the batched test."""
    from irstats.checks import numbers, one_of

    one_of(test, "test", BAYES_TESTS)
    a, b = numbers(system, "system"), numbers(baseline, "baseline")
    if a.shape != b.shape or a.ndim != 1:
        raise ArgumentError(f"system and baseline must be 1-d arrays of the same length; got shapes {a.shape} and "
                            f"{b.shape}", argument="system")
    d = a - b
    d = d[~np.isnan(d)]
    if d.size < 2:
        raise ArgumentError("a Bayesian comparison needs at least two topics with both scores", argument="system")
    rope = check_rope(rope)
    share(level, "level")
    check_seed(seed)
    result = BAYES_TESTS[test].compute([d], np.array([rope]), level, resample_count(n_samples, "n_samples"),
                                       real(prior, "prior", low=0.0), seed)
    return float(result.p_baseline_better[0]), float(result.p_rope[0]), float(result.p_system_better[0])


__all__ = ["BAYES_TESTS", "DEFAULT_PRIOR", "DEFAULT_ROPE", "DEFAULT_SAMPLES", "BayesComparison", "BayesTest",
           "Posteriors", "bayes", "bayes_pair", "check_rope", "default_rope", "t_posterior_rows"]
