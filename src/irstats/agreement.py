"""Agreement between two sets of relevance labels on the same (topic, docno) pairs — e.g. LLM
labels against human ones (METHODS.md §5.7).

On the pairs both qrels judge (negative grades, "unjudged", are left out):

- Cohen's κ, unweighted, linear and quadratic: κ = 1 − Σ w·O / Σ w·E over the confusion
  matrix O (shares) and the chance matrix E (products of the marginals), with weights
  w_ij = [i ≠ j], |i − j| or (i − j)² over the grades' positions in the sorted union of
  grades (as scikit-learn's ``cohen_kappa_score``);
- Krippendorff's α, nominal, ordinal and interval, for two coders and no missing values:
  α = 1 − D_o/D_e from the coincidence matrix (the confusion matrix plus its transpose), with
  the nominal, ordinal (marginal-rank) and interval (squared grade difference) metrics (as
  the ``krippendorff`` package);
- intervals: percentile bootstrap over topics (topics resampled with replacement, the
  statistics recomputed from the resampled topics' pairs; ``seed`` as everywhere).

Every statistic is computed from per-topic confusion matrices, so a bootstrap resample is a
weighted sum of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from irstats.errors import InputError
from irstats.random import generator, seed_label
from irstats.result import Result

STATISTICS = ("pairs", "cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic", "krippendorff_alpha_nominal",
              "krippendorff_alpha_ordinal", "krippendorff_alpha_interval")


def _kappa(counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """κ of confusion matrices (…, k, k) under ``weights`` (k, k); NaN when undefined."""
    total = counts.sum(axis=(-2, -1), keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = counts / total
        expected = observed.sum(axis=-1, keepdims=True) * observed.sum(axis=-2, keepdims=True)
        return 1.0 - (weights * observed).sum(axis=(-2, -1)) / (weights * expected).sum(axis=(-2, -1))


def _alpha(counts: np.ndarray, delta2: np.ndarray) -> np.ndarray:
    """Krippendorff's α of two coders from confusion matrices (…, k, k) and δ² (…, k, k)."""
    coincidence = counts + np.swapaxes(counts, -1, -2)
    n_c = coincidence.sum(axis=-1)
    n = n_c.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (coincidence * delta2).sum(axis=(-2, -1)) / n
        expected = (n_c[..., :, None] * n_c[..., None, :] * delta2).sum(axis=(-2, -1)) / (n * (n - 1))
        return 1.0 - observed / expected


def _ordinal_delta2(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal metric from the marginal frequencies of each matrix (…, k, k)."""
    n_g = (counts + np.swapaxes(counts, -1, -2)).sum(axis=-1)  # (…, k)
    cum = np.cumsum(n_g, axis=-1)
    k = n_g.shape[-1]
    i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    low, high = np.minimum(i, j), np.maximum(i, j)
    # Σ_{g=low}^{high} n_g − (n_low + n_high)/2
    between = cum[..., high] - np.where(low > 0, cum[..., np.maximum(low - 1, 0)], 0.0)
    return (between - (n_g[..., low] + n_g[..., high]) / 2.0) ** 2


def _statistics(counts: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """The STATISTICS of confusion matrices (…, k, k): (…, 7)."""
    k = len(grades)
    i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    unweighted, linear, quadratic = (i != j).astype(float), np.abs(i - j).astype(float), ((i - j) ** 2).astype(float)
    nominal = (i != j).astype(float)
    interval = (grades[:, None] - grades[None, :]).astype(float) ** 2
    return np.stack([counts.sum(axis=(-2, -1)), _kappa(counts, unweighted), _kappa(counts, linear),
                     _kappa(counts, quadratic), _alpha(counts, nominal), _alpha(counts, _ordinal_delta2(counts)),
                     _alpha(counts, interval)], axis=-1)


@dataclass(frozen=True)
class LabelAgreement(Result):
    """Agreement of two qrels on their shared pairs: statistics with bootstrap intervals, the
    confusion matrix by grade and per-topic κ."""

    statistics: pl.DataFrame  # statistic value ci_low ci_high
    confusion: pl.DataFrame  # grade_a, then one column per grade of B
    per_topic: pl.DataFrame  # topic pairs cohen_kappa
    n_resamples: int
    confidence: float
    seed: int | str | None

    @property
    def title(self) -> str:
        return (f"Agreement between two qrels ({int(self.statistics['value'][0])} shared pairs; "
                f"{100 * self.confidence:g}% bootstrap intervals over topics, B = {self.n_resamples})")

    def to_frame(self) -> pl.DataFrame:
        return self.statistics


def _shared_pairs(qrels_a, qrels_b) -> pl.DataFrame:
    from irstats.io.trec import read_qrels

    a = read_qrels(qrels_a).filter(pl.col("rel") >= 0)
    b = read_qrels(qrels_b).filter(pl.col("rel") >= 0)
    shared = a.join(b, on=["topic", "docno"], how="inner", suffix="_b")
    if shared.height == 0:
        raise InputError("the two qrels share no judged (topic, docno) pair")
    return shared


def label_agreement(qrels_a, qrels_b, *, n_resamples: int = 1000, confidence: float = 0.95,
                    seed=0) -> LabelAgreement:
    """Cohen's κ (three weightings) and Krippendorff's α (three levels) of two qrels on the
    pairs both judge, with percentile bootstrap intervals over topics."""
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be between 0 and 1; got {confidence!r}")
    if int(n_resamples) < 1:
        raise InputError(f"n_resamples must be at least 1; got {n_resamples!r}")
    shared = _shared_pairs(qrels_a, qrels_b)
    # whole-number grades stay int64; real-valued labels (either file) make every grade a float
    grades = np.array(sorted(set(shared["rel"].to_list()) | set(shared["rel_b"].to_list())))
    k = len(grades)
    position = {g: i for i, g in enumerate(grades.tolist())}
    topics, topic_index = np.unique(shared["topic"].to_numpy(), return_inverse=True)
    counts = np.zeros((len(topics), k, k))
    np.add.at(counts, (topic_index, [position[g] for g in shared["rel"].to_list()],
                       [position[g] for g in shared["rel_b"].to_list()]), 1.0)
    point = _statistics(counts.sum(axis=0), grades)
    rng = generator(seed)
    draws = rng.integers(0, len(topics), (int(n_resamples), len(topics)))
    multiplicity = np.zeros((int(n_resamples), len(topics)))
    np.add.at(multiplicity, (np.repeat(np.arange(int(n_resamples)), len(topics)), draws.ravel()), 1.0)
    resampled = _statistics(np.einsum("bt,tij->bij", multiplicity, counts), grades)
    tail = (1 - confidence) / 2
    with np.errstate(invalid="ignore"):
        low = np.nanquantile(resampled, tail, axis=0)
        high = np.nanquantile(resampled, 1 - tail, axis=0)
    statistics = pl.DataFrame({"statistic": list(STATISTICS), "value": point, "ci_low": low, "ci_high": high})
    total = counts.sum(axis=0)
    confusion = pl.DataFrame({"grade_a": grades, **{f"b={g}": total[:, i] for i, g in enumerate(grades.tolist())}})
    per_topic_kappa = _kappa(counts, (np.arange(k)[:, None] != np.arange(k)[None, :]).astype(float))
    per_topic = pl.DataFrame({"topic": topics.astype(str), "pairs": counts.sum(axis=(1, 2)).astype(np.int64),
                              "cohen_kappa": per_topic_kappa})
    return LabelAgreement(statistics, confusion, per_topic, int(n_resamples), float(confidence), seed_label(seed))




# --------------------------------------------------------------------------- conclusions

CONCLUSION_STATISTICS = ("kendall_tau_b", "tau_ap", "pearson_r", "top1_same", "significant_pairs_agree")


def _pair_conclusions(x: np.ndarray, alpha: float) -> np.ndarray:
    """Per system pair (i < j): +1 (i significantly better, paired t at alpha), −1, or 0, for
    every leading index of x (…, systems, topics)."""
    from irstats.stats.closed_form import paired_t_rows

    s = x.shape[-2]
    i, j = np.triu_indices(s, 1)
    d = x[..., i, :] - x[..., j, :]
    rows = paired_t_rows(d.reshape(-1, d.shape[-1]))
    sign = np.sign(rows.mean) * (rows.p_value < alpha)
    return sign.reshape(d.shape[:-1])


def _conclusion_statistics(a: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """CONCLUSION_STATISTICS of score matrices a (…, S, T_a) and b (…, S, T_b): (…, 5)."""
    from irstats.meta.correlation import kendall_tau_b, pearson, tau_ap

    mean_a, mean_b = a.mean(axis=-1), b.mean(axis=-1)
    tau = kendall_tau_b(mean_a, mean_b)
    ap = np.array([tau_ap(x, y, warn_ties=False) for x, y in zip(mean_a.reshape(-1, mean_a.shape[-1]),
                                                                 mean_b.reshape(-1, mean_b.shape[-1]))])
    top = (np.argmax(mean_a, axis=-1) == np.argmax(mean_b, axis=-1)).astype(float)
    agree = (_pair_conclusions(a, alpha) == _pair_conclusions(b, alpha)).mean(axis=-1)
    return np.stack([tau, ap.reshape(tau.shape), pearson(mean_a, mean_b), top, agree], axis=-1)


@dataclass(frozen=True)
class ConclusionAgreement(Result):
    """Do two collections (or two qrels over the same runs) order the systems alike? Per
    measure: τ-b, τ_AP and Pearson's r of the system means, whether the best system is the
    same, and the share of system pairs whose paired-t significance and direction agree; with
    percentile bootstrap intervals over topics."""

    statistics: pl.DataFrame  # measure statistic value ci_low ci_high
    systems: tuple[str, ...]
    all_topics: bool
    n_resamples: int
    confidence: float
    alpha: float
    changes: pl.DataFrame  # measure system mean_a mean_b rank_a rank_b rank_gain

    def gains(self, measure: str | None = None) -> pl.DataFrame:
        """Per system, its mean and rank (1 = best) under A and B and ``rank_gain`` =
        rank_a − rank_b (> 0: placed higher under B), largest gains first."""
        frame = self.changes if measure is None else self.changes.filter(pl.col("measure") == measure)
        if frame.height == 0:
            raise InputError(f"no measure {measure!r}; measures: {', '.join(self.changes['measure'].unique())}")
        return frame.sort(["measure", "rank_gain", "rank_b"], descending=[False, True, False])

    def plot(self, measure: str | None = None, ax=None, labels: tuple[str, str] = ("A", "B")):
        """Which systems gain or lose most under B: each system's rank under A and under B,
        joined by a line (a slope chart), the largest movers labelled. Returns the Axes."""
        from irstats.plots.agreement import plot_rank_changes

        name = measure or self.changes["measure"][0]
        return plot_rank_changes(self.gains(name), ax=ax, labels=labels)

    @property
    def title(self) -> str:
        topics = "each collection's own topics" if self.all_topics else "the topics both share"
        return (f"Agreement of conclusions ({len(self.systems)} systems, {topics}; "
                f"{100 * self.confidence:g}% bootstrap intervals)")

    def to_frame(self) -> pl.DataFrame:
        return self.statistics


def conclusion_agreement(scores_a, scores_b, measures=None, *, all_topics: bool = False, alpha: float = 0.05,
                         n_resamples: int = 1000, confidence: float = 0.95, seed=0) -> ConclusionAgreement:
    """How far the system orderings and significance conclusions under two score sets agree.

    ``scores_a``/``scores_b``: ScoreMatrix mappings (e.g. from ``irstats.evaluate`` with two
    qrels over the same runs, or two score files). Systems both have are compared; topics:
    those both have, or with ``all_topics`` each set's own (necessary when they differ, as
    for an LLM-judged and a human-judged topic set). Topics with a missing score for some
    system are left out.
    """
    from irstats.scores import score_matrices

    a_all = {m.measure: m for m in score_matrices(scores_a)}
    b_all = {m.measure: m for m in score_matrices(scores_b)}
    names = list(measures) if measures else [m for m in a_all if m in b_all]
    if not names:
        raise InputError("the two score sets share no measure")
    rng = generator(seed)
    rows = []
    changes = []
    systems: tuple[str, ...] = ()
    for name in names:
        if name not in a_all or name not in b_all:
            raise InputError(f"measure {name!r} is not in both score sets")
        a, b = a_all[name], b_all[name]
        systems = tuple(s for s in a.systems if s in set(b.systems))
        if len(systems) < 2:
            raise InputError(f"{name}: the two score sets share {len(systems)} system(s); at least 2 are needed")
        xa = a.values[[a.systems.index(s) for s in systems]]
        xb = b.values[[b.systems.index(s) for s in systems]]
        if not all_topics:
            shared = [t for t in a.topics if t in set(b.topics)]
            if len(shared) < 2:
                raise InputError(f"{name}: the two score sets share {len(shared)} topic(s); use all_topics for "
                                 "collections over different topics")
            xa = xa[:, [a.topics.index(t) for t in shared]]
            xb = xb[:, [b.topics.index(t) for t in shared]]
        xa = xa[:, ~np.isnan(xa).any(axis=0)]
        xb = xb[:, ~np.isnan(xb).any(axis=0)]
        point = _conclusion_statistics(xa, xb, alpha)
        mean_a, mean_b = xa.mean(axis=1), xb.mean(axis=1)
        rank_a, rank_b = _ranks(mean_a), _ranks(mean_b)
        changes.append(pl.DataFrame({"measure": [name] * len(systems), "system": list(systems), "mean_a": mean_a,
                                     "mean_b": mean_b, "rank_a": rank_a, "rank_b": rank_b,
                                     "rank_gain": rank_a - rank_b}))
        boot = np.empty((int(n_resamples), len(CONCLUSION_STATISTICS)))
        for r in range(int(n_resamples)):
            ia = rng.integers(0, xa.shape[1], xa.shape[1])
            ib = ia if (not all_topics and xa.shape[1] == xb.shape[1]) else rng.integers(0, xb.shape[1], xb.shape[1])
            boot[r] = _conclusion_statistics(xa[:, ia], xb[:, ib], alpha)
        tail = (1 - confidence) / 2
        with np.errstate(invalid="ignore"):
            low, high = np.nanquantile(boot, tail, axis=0), np.nanquantile(boot, 1 - tail, axis=0)
        rows += [{"measure": name, "statistic": s, "value": float(point[k]), "ci_low": float(low[k]),
                  "ci_high": float(high[k])} for k, s in enumerate(CONCLUSION_STATISTICS)]
    return ConclusionAgreement(pl.DataFrame(rows), systems, bool(all_topics), int(n_resamples), float(confidence),
                               float(alpha), pl.concat(changes))


def _ranks(means: np.ndarray) -> np.ndarray:
    """1 = best; equal means share the best of their ranks (competition ranking)."""
    return np.array([int((means > m).sum()) + 1 for m in means], dtype=np.int64)


__all__ = ["CONCLUSION_STATISTICS", "ConclusionAgreement", "LabelAgreement", "STATISTICS", "conclusion_agreement",
           "label_agreement"]
