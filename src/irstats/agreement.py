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

Every statistic is a function of per-topic sums over the pairs and per-topic grade marginals,
so a bootstrap resample is a weighted sum of them, and nothing grows with the square of the
number of grades: real-valued labels with thousands of distinct values (an LLM's
probabilities) cost what four grades cost. No confusion matrix is made for more than
MAX_CONFUSION_GRADES distinct labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from irstats.checks import names, resample_count, share
from irstats.errors import InputError, warn
from irstats.random import generator, seed_label
from irstats.result import Result, provided

STATISTICS = ("pairs", "cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic", "krippendorff_alpha_nominal",
              "krippendorff_alpha_ordinal", "krippendorff_alpha_interval")


#: Labels with more distinct values than this are real-valued in practice (an LLM's
#: probabilities): no confusion matrix by grade is made for them.
MAX_CONFUSION_GRADES = 30
_CHUNK_VALUES = 1 << 22  # per-pair ordinal terms formed at once (resamples × pairs), ~32 MiB


class NoSharedPairsError(InputError):
    """The two qrels judge no (topic, docno) pair in common — typically two collections over
    different topics, whose conclusions can still be compared (``all_topics``)."""


@dataclass(frozen=True)
class _Pairs:
    """The shared pairs: each one's topic, and its grades' positions in the sorted union of grades."""

    topic: np.ndarray  # (n,) topic index
    a: np.ndarray  # (n,) grade position under A
    b: np.ndarray  # (n,) grade position under B
    grades: np.ndarray  # (k,) the grades, ascending
    n_topics: int

    def per_topic(self, values: np.ndarray) -> np.ndarray:
        """Σ over each topic's pairs of a per-pair quantity: (T,)."""
        return np.bincount(self.topic, weights=values, minlength=self.n_topics)

    def marginals(self, positions: np.ndarray) -> np.ndarray:
        """How many of each topic's pairs have each grade position: (T, k)."""
        k = len(self.grades)
        flat = np.bincount(self.topic * k + positions, minlength=self.n_topics * k)
        return flat.reshape(self.n_topics, k).astype(float)


def _spread(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Σ_c Σ_d n_c n_d (v_c − v_d)² for rows of counts n (…, k) over values v (k,) or (…, k):
    2·N·Σ n v² − 2·(Σ n v)², so never the k × k matrix."""
    total = counts.sum(axis=-1)
    return 2.0 * total * (counts * values ** 2).sum(axis=-1) - 2.0 * (counts * values).sum(axis=-1) ** 2


def _cross_abs(rows: np.ndarray, cols: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Σ_i Σ_j r_i c_j |x_i − x_j| for rows of r and c (…, k) and positions x (…, k)
    non-decreasing along the grades, by prefix sums."""
    before = np.cumsum(rows, axis=-1) - rows  # Σ_{i<j} r_i
    before_index = np.cumsum(rows * index, axis=-1) - rows * index  # Σ_{i<j} i·r_i
    total, total_index = rows.sum(axis=-1, keepdims=True), (rows * index).sum(axis=-1, keepdims=True)
    per_j = 2 * index * before - 2 * before_index + total_index - index * total  # Σ_i r_i |i − j|
    return (cols * per_j).sum(axis=-1)


def _statistics(pairs: _Pairs, weights: np.ndarray | None) -> np.ndarray:
    """The STATISTICS of the pairs weighted by topic (weights (B, T): ones for the point
    estimate, a bootstrap resample's multiplicities otherwise; None: each topic on its own,
    (T, 7)): (B, 7).

    κ = 1 − Σ w·O / Σ w·E and α = 1 − D_o/D_e as scikit-learn and krippendorff compute them,
    written with sums over pairs and grade marginals: Krippendorff's ordinal metric between
    grades c < d is (M_d − M_c)² with M_g the midpoint of grade g's rank block, so it is an
    interval metric over M."""
    value = pairs.grades.astype(float)
    diff = (pairs.a - pairs.b).astype(float)
    value_diff = value[pairs.a] - value[pairs.b]
    sums = np.stack([pairs.per_topic(np.ones(len(diff))), pairs.per_topic((diff != 0).astype(float)),
                     pairs.per_topic(value_diff ** 2)])
    def weighted(per_topic: np.ndarray) -> np.ndarray:
        return per_topic if weights is None else weights @ per_topic

    n, disagree, value_squared = weighted(sums.T).T
    rows, cols = weighted(pairs.marginals(pairs.a)), weighted(pairs.marginals(pairs.b))  # (B, k)
    both = rows + cols  # the coincidence marginals n_c
    # κ's weights |i − j| and (i − j)² are over the positions of the grades present in the
    # pairs counted (a resample, a topic), as scikit-learn numbers the labels it is given: a
    # grade no counted pair has does not widen the distances
    present = both > 0
    position = np.cumsum(present, axis=-1) - present
    absolute = _pair_terms(pairs, weights, position, 1)
    squared = _pair_terms(pairs, weights, position, 2)
    big_n = 2.0 * n
    with np.errstate(invalid="ignore", divide="ignore"):
        chance = (rows * cols).sum(axis=-1) / n ** 2
        kappa = 1.0 - (disagree / n) / (1.0 - chance)
        linear = 1.0 - (absolute / n) / (_cross_abs(rows, cols, position) / n ** 2)
        cross_sq = ((rows * position ** 2).sum(-1) * n + (cols * position ** 2).sum(-1) * n
                    - 2 * (rows * position).sum(-1) * (cols * position).sum(-1))
        quadratic = 1.0 - (squared / n) / (cross_sq / n ** 2)
        expected_pairs = big_n * (big_n - 1.0)
        nominal = 1.0 - (disagree / n) / ((big_n ** 2 - (both ** 2).sum(axis=-1)) / expected_pairs)
        interval = 1.0 - (value_squared / n) / (_spread(both, value) / expected_pairs)
        midpoint = np.cumsum(both, axis=-1) - both / 2.0  # M_g
        ordinal = 1.0 - (_pair_terms(pairs, weights, midpoint, 2) / n) / (_spread(both, midpoint) / expected_pairs)
    return np.stack([n, kappa, linear, quadratic, nominal, ordinal, interval], axis=-1)


def _pair_terms(pairs: _Pairs, weights: np.ndarray | None, table: np.ndarray, power: int) -> np.ndarray:
    """Σ_pairs w |x_a − x_b|^power with x a per-grade table that depends on the resample (or
    the topic: rows of ``table``), so the per-pair terms are formed per resample, a chunk of
    resamples at a time (Krippendorff's ordinal midpoints, κ's positions)."""
    if weights is None:  # each topic with its own table
        terms = np.abs(table[pairs.topic, pairs.a] - table[pairs.topic, pairs.b]) ** power
        return pairs.per_topic(terms)
    out = np.empty(len(weights))
    chunk = max(1, _CHUNK_VALUES // max(len(pairs.a), 1))
    for start in range(0, len(weights), chunk):
        w, m = weights[start:start + chunk], table[start:start + chunk]
        out[start:start + len(w)] = (np.abs(m[:, pairs.a] - m[:, pairs.b]) ** power * w[:, pairs.topic]).sum(axis=1)
    return out


@dataclass(frozen=True)
class LabelAgreement(Result):
    """Agreement of two qrels on their shared pairs: statistics with bootstrap intervals, the
    confusion matrix by grade and per-topic κ."""

    statistics: pl.DataFrame  # statistic value ci_low ci_high
    confusion: pl.DataFrame | None  # grade_a, then one column per grade of B (None: real-valued labels)
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

    def display_table(self, digits: int = 4):
        """The statistics with their intervals; the count of pairs as a whole number."""
        from irstats.render import table_of_frame

        table = table_of_frame(self.statistics, title=self.title, legend=self.legend(), digits=digits)
        pairs = self.statistics["statistic"].to_list().index("pairs")
        whole = tuple(type(c)(f"{float(c.text):.0f}") if c.text not in ("", "nan") else c
                      for c in table.rows[pairs][1:])
        rows = table.rows[:pairs] + ((table.rows[pairs][0], *whole),) + table.rows[pairs + 1:]
        return type(table)(table.header, rows, table.right, table.title, table.legend, table.header_latex,
                           table.label)


def _shared_pairs(qrels_a, qrels_b, qrels_duplicate: str = "error") -> pl.DataFrame:
    from irstats.io.trec import read_qrels

    a = read_qrels(qrels_a, on_duplicate=qrels_duplicate).filter(pl.col("rel") >= 0)
    b = read_qrels(qrels_b, on_duplicate=qrels_duplicate).filter(pl.col("rel") >= 0)
    shared = a.join(b, on=["topic", "docno"], how="inner", suffix="_b")
    if shared.height == 0:
        raise NoSharedPairsError("the two qrels share no judged (topic, docno) pair")
    return shared


def label_agreement(qrels_a, qrels_b, *, n_resamples: int = 1000, confidence: float = 0.95,
                    seed=0, qrels_duplicate: str = "error") -> LabelAgreement:
    """Cohen's κ (three weightings) and Krippendorff's α (three levels) of two qrels on the
    pairs both judge, with percentile bootstrap intervals over topics. ``qrels_duplicate``: a
    (topic, docno) judged twice in one qrels is an error, or keeps the ``"max"`` or ``"last"``
    grade (as in :func:`irstats.evaluate`)."""
    share(confidence, "confidence")
    n_resamples = resample_count(n_resamples)
    shared = _shared_pairs(qrels_a, qrels_b, qrels_duplicate)
    resample_count(n_resamples, values_per_resample=shared.height)
    # whole-number grades stay int64; real-valued labels (either file) make every grade a float
    grades = np.unique(np.concatenate([shared["rel"].to_numpy(), shared["rel_b"].to_numpy()]))
    topics, topic_index = np.unique(shared["topic"].to_numpy(), return_inverse=True)
    pairs = _Pairs(topic_index, np.searchsorted(grades, shared["rel"].to_numpy()),
                   np.searchsorted(grades, shared["rel_b"].to_numpy()), grades, len(topics))
    point = _statistics(pairs, np.ones((1, len(topics))))[0]
    rng = generator(seed)
    draws = rng.integers(0, len(topics), (int(n_resamples), len(topics)))
    multiplicity = np.zeros((int(n_resamples), len(topics)))
    np.add.at(multiplicity, (np.repeat(np.arange(int(n_resamples)), len(topics)), draws.ravel()), 1.0)
    resampled = _statistics(pairs, multiplicity)
    tail = (1 - confidence) / 2
    with np.errstate(invalid="ignore"):
        low = np.nanquantile(resampled, tail, axis=0)
        high = np.nanquantile(resampled, 1 - tail, axis=0)
    by_topic = _statistics(pairs, None)
    if _real_valued(grades):
        # every distinct probability its own category: nominal agreement would be near 0 however
        # close the labels are (κ 0.13 on DL 2019 with probability labels). Not computed.
        nominal = [STATISTICS.index(name) for name in NOMINAL_STATISTICS]
        point[nominal] = low[nominal] = high[nominal] = np.nan
        warn(f"real-valued labels (e.g. {_a_real_label(grades)!r}): {' and '.join(NOMINAL_STATISTICS)} treat each "
             f"distinct value as a category and are not computed (NaN); the quadratic κ and interval α fit "
             f"continuous labels (or bin the labels to grades first)")
    statistics = pl.DataFrame({"statistic": list(STATISTICS), "value": point, "ci_low": low, "ci_high": high})
    per_topic = pl.DataFrame({"topic": topics.astype(str), "pairs": np.bincount(topic_index).astype(np.int64),
                              "cohen_kappa": by_topic[:, 1], "cohen_kappa_quadratic": by_topic[:, 3]})
    return LabelAgreement(statistics, _confusion(pairs), per_topic, int(n_resamples), float(confidence),
                          seed_label(seed))


#: The statistics that treat every label as a category: meaningless on real-valued labels.
NOMINAL_STATISTICS = ("cohen_kappa", "krippendorff_alpha_nominal")


def _real_valued(grades: np.ndarray) -> bool:
    """Labels with a fractional value (0.37, 2.5): real-valued, not grades."""
    return np.issubdtype(grades.dtype, np.floating) and bool((grades != np.floor(grades)).any())


def _a_real_label(grades: np.ndarray) -> float:
    return float(grades[grades != np.floor(grades)][0])


def _confusion(pairs: _Pairs) -> pl.DataFrame | None:
    """Pairs by grade (rows: A); None for labels with more than MAX_CONFUSION_GRADES values."""
    k = len(pairs.grades)
    if k > MAX_CONFUSION_GRADES:
        return None
    total = np.bincount(pairs.a * k + pairs.b, minlength=k * k).reshape(k, k)
    return pl.DataFrame({"grade_a": pairs.grades, **{f"b={g}": total[:, i] for i, g in enumerate(pairs.grades.tolist())}})




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
        joined by a line (a slope chart), the largest movers labelled
        (:func:`irstats.plots.agreement.plot_rank_changes`). Returns the Axes."""
        name = measure or self.changes["measure"][0]
        return provided(self, "plot", "irstats.plots")(self.gains(name), ax=ax, labels=labels)

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
    chosen = list(names(measures, "measures", text=True)) if measures else [m for m in a_all if m in b_all]
    if not chosen:
        raise InputError("the two score sets share no measure")
    share(alpha, "alpha")
    share(confidence, "confidence")
    n_resamples = resample_count(n_resamples)
    rng = generator(seed)
    rows = []
    changes = []
    systems: tuple[str, ...] = ()
    for name in chosen:
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
                raise InputError(f"{name}: the two score sets share {len(shared)} topic(s); collections over "
                                 "different topics are compared each on its own (all_topics=True, --all-topics)")
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
