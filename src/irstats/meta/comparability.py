"""Cross-collection comparability of system scores (METHODS.md §5.4; *Score Standardization* §5).

The same systems measured on two collections C and D should get similar scores.

- **dRMSE** (:func:`drmse`): RMSE = √(Σ_s (m^C_s − m^D_s)²/|S|) of the system means,
  divided by the mean of the two sds of the system means (ddof = 1).
- **False positives**: a system significantly different from itself between C and D under a
  two-tailed two-sample t-test at α = 0.05 (Welch by default). The FP rate is their share.
- **Randomised baseline** (:func:`randomized_baseline`): repeated random 50/50 partitions of
  one topic pool give pairs of identically sampled collections; the dRMSE distribution (mean;
  2.5, 97.5 and 99% quantiles) and the FP-rate distribution (mean; 97.5% quantile).
- **Observed collections** (:func:`compare_collections`): dRMSE between every pair of real
  collections and the *Score Standardization* Table 4 count of systems significantly better
  on the row collection than on the column one (one-tailed, α = 0.025).
- **Discriminative power**: the share of system pairs with p < 0.05 under the paired t-test
  (:func:`irstats.stats.discriminative_power`).

Each is meant to be run for the three **forms** of a metric (:func:`metric_forms`): raw
(P@10, binary RBP, SP, DCG), R-normalised (§4.7: P@10 ÷ min(R,10)/10, RBP ÷ (1 − p^min(R,m)),
AP = SP/R, nDCG = DCG/IDCG) and standardized (Φ(z), §4). R-normalisation needs the per-topic
R (:func:`num_relevant`, :func:`num_relevant_from_qrels`) and for DCG the ideal DCG
(:func:`ideal_scores_from_qrels`).

Randomness (METHODS.md §5): topics are sorted bytewise; a halving is
``perm = rng.permutation(t)`` from one ``Generator(PCG64(seed))``, H₁ = the first ⌊t/2⌋
topics of ``perm``, H₂ the rest (:func:`halving_permutations`). Every form and metric uses the
same list of halvings, and the dRMSE partitions are the first ``n_partitions`` of the
false-positive ones. Each halving's statistics are computed from its own rows, so results
do not depend on the batch size.

Example
-------
>>> scores = irstats.io.read_trec_eval("robust04/")                        # doctest: +SKIP
>>> forms = metric_forms(scores["AP"], num_rel=scores["NumRel"])  # doctest: +SKIP
>>> result = randomized_baseline(forms, n_partitions=1000, seed=0)         # doctest: +SKIP
>>> result.to_frame()                                                       # doctest: +SKIP
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.checks import numbers, resample_count, score_matrix, share, whole
from irstats.random import Seed, check_seed, generator, seed_label
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, IrstatsWarning, MeasureError, some, warn
from irstats.ids import bytewise_unique as _bytewise
from irstats.meta.splits import random_permutations
from irstats.progress import Progress, progress_bar
from irstats.scores import ScoreMatrix
from irstats.standardize import Factors, ZeroVarianceWarning, apply_factors, fit_factors
from irstats.stats.resampling import batch_slices
from irstats.stats.closed_form import row_moments, two_sample_t_rows

#: The names of the three forms of a metric, in display order.
METRIC_FORMS = ("raw", "R-normalised", "standardized")

#: The depth M that a score matrix without recorded options was evaluated to (METHODS.md §1.5).
DEFAULT_DEPTH = 1000

_DUMMY_DOC = "__irstats_no_document__"


# --------------------------------------------------------------------------- helpers


def halving_permutations(n_topics: int, count: int, seed: Seed = 0) -> np.ndarray:
    """``count`` random permutations of ``range(n_topics)``, one per row (METHODS.md §5).

    Row b is ``rng.permutation(n_topics)`` (the b-th call); H₁ = its first ⌊t/2⌋ entries,
    H₂ the rest (for odd t, H₁ is the smaller half).
    """
    check_seed(seed)
    n_topics = whole(n_topics, "n_topics")
    count = whole(count, "count", minimum=1)
    if n_topics < 4:
        raise ArgumentError(f"a random halving needs at least 4 topics (2 per half), not {n_topics}",
                            argument="n_topics")
    return random_permutations(n_topics, count, generator(seed)).astype(np.int64, copy=False)


# --------------------------------------------------------------------------- dRMSE


def _means(x) -> np.ndarray:
    return x.means() if isinstance(x, ScoreMatrix) else numbers(x, "a or b (system means)")


def _aligned_means(a, b) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(a, ScoreMatrix) and isinstance(b, ScoreMatrix):
        common = [s for s in _bytewise(a.systems) if s in set(b.systems)]
        lost = len(set(a.systems) ^ set(b.systems))
        if len(common) < 2:
            raise InputError("the two score matrices share fewer than 2 systems")
        if lost:
            warn(f"{lost} system(s) are in only one of the two score matrices and are left out")
        return a.subset(common).means(), b.subset(common).means()
    ma, mb = _means(a), _means(b)
    if ma.shape != mb.shape:
        raise InputError(f"system means of different shapes: {ma.shape} and {mb.shape}")
    return ma, mb


def rmse_rows(m1: np.ndarray, m2: np.ndarray, ddof: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """RMSE and dRMSE over the first axis (systems) of two arrays of system means."""
    m1, m2 = numbers(m1, "m1"), numbers(m2, "m2")
    if m1.ndim == 0 or m1.shape != m2.shape:
        raise ArgumentError(f"m1 and m2 must be arrays of system means of one shape, got {m1.shape} and {m2.shape}",
                            argument="m2")
    s = m1.shape[0]
    diff = m1 - m2
    rmse = np.sqrt((diff * diff).sum(axis=0) / s)
    sd1 = np.sqrt(((m1 - m1.sum(axis=0) / s) ** 2).sum(axis=0) / (s - ddof))
    sd2 = np.sqrt(((m2 - m2.sum(axis=0) / s) ** 2).sum(axis=0) / (s - ddof))
    with np.errstate(invalid="ignore", divide="ignore"):
        d = 2.0 * rmse / (sd1 + sd2)
    return rmse, d


def rmse(a: ScoreMatrix | np.ndarray, b: ScoreMatrix | np.ndarray) -> float:
    """√(Σ_s (m^C_s − m^D_s)²/|S|) between two score matrices (common systems) or two
    vectors of system means (same order)."""
    ma, mb = _aligned_means(a, b)
    return float(rmse_rows(ma, mb)[0])


def drmse(a: ScoreMatrix | np.ndarray, b: ScoreMatrix | np.ndarray, ddof: int = 1) -> float:
    """dRMSE = 2·RMSE/(sd(m^C) + sd(m^D)) (Eq. 4; sd with ``ddof``, default 1)."""
    ddof = whole(ddof, "ddof", minimum=0)
    ma, mb = _aligned_means(a, b)
    if ma.shape[0] <= ddof:
        raise InputError(f"dRMSE needs more than {ddof} systems")
    return float(rmse_rows(ma, mb, ddof)[1])


# --------------------------------------------------------------------------- two-sample t


# --------------------------------------------------------------------------- R-normalisation


def num_relevant(source, topics: Sequence[str]) -> np.ndarray:
    """Per-topic R aligned with ``topics``.

    ``source`` is a NumRel ScoreMatrix (R is constant per topic: any system's value; rows
    that disagree are an error), a mapping topic → R, or an array already aligned with
    ``topics``.
    """
    topics = list(topics)
    if isinstance(source, ScoreMatrix):
        lacking = [t for t in topics if t not in set(source.topics)]
        if lacking:
            raise InputError(f"no {source.measure} for topic(s) {some(lacking)}")
        v = source.subset(None, topics).values
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            lo, hi = np.nanmin(v, axis=0), np.nanmax(v, axis=0)
        if np.isnan(lo).any():
            t = topics[int(np.flatnonzero(np.isnan(lo))[0])]
            raise InputError(f"no {source.measure} value for topic {t!r}")
        if (lo != hi).any():
            t = topics[int(np.flatnonzero(lo != hi)[0])]
            raise InputError(f"{source.measure} differs between systems on topic {t!r} ({lo[topics.index(t)]:g} "
                             f"vs {hi[topics.index(t)]:g}); R must be constant per topic")
        return lo.astype(np.float64)
    if isinstance(source, Mapping):
        lacking = [t for t in topics if t not in source]
        if lacking:
            raise InputError(f"no R for topic(s) {some(lacking)}")
        return numbers([source[t] for t in topics], "num_rel").astype(np.float64)
    values = numbers(source, "num_rel").ravel()
    if values.shape != (len(topics),):
        raise InputError(f"expected one R per topic ({len(topics)}), got {values.size} values")
    return values


def _qrels_topics(qrels) -> pl.DataFrame:
    from irstats.io.trec import read_qrels

    return read_qrels(qrels)


def _dummy_run(topics: Sequence[str]) -> pl.DataFrame:
    return pl.DataFrame({"system": ["ideal"] * len(topics), "topic": list(topics),
                         "docno": [_DUMMY_DOC] * len(topics), "score": [0.0] * len(topics)})


def num_relevant_from_qrels(qrels, runs=None, **options) -> dict[str, float]:
    """R per topic from the qrels (:meth:`irstats.evaluate.Evaluator.num_relevant`).

    With ``runs``, only the topics some run retrieves for (those a score matrix of the runs
    holds); without, every qrels topic. ``options`` are evaluation options (``rel_level`` …).
    """
    from irstats.evaluate import Evaluator
    from irstats.measures.registry import Role, measure_for

    if runs is None:
        counts = Evaluator(qrels, **options).num_relevant()
        return {t: float(r) for t, r in counts.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrstatsWarning)
        r_per_topic = measure_for(Role.R_PER_TOPIC)
        matrix = Evaluator(qrels, **options).score(runs, [r_per_topic])[r_per_topic]
    r = num_relevant(matrix, matrix.topics)
    return dict(zip(matrix.topics, r.tolist()))


def ideal_scores_from_qrels(qrels, measure: str = "DCG", **options) -> dict[str, float]:
    """The score of an ideal ranking per topic: ``measure`` (e.g. ``DCG``, ``DCG@10``) of a
    run that ranks every positively graded qrels document by grade, evaluated with
    ``irstats.evaluate`` at unlimited depth — for DCG this is the IDCG that nDCG divides by.
    """
    from irstats.evaluate import evaluate

    q = _qrels_topics(qrels)
    positive = q.filter(pl.col("rel") > 0).select("topic", "docno", pl.col("rel").cast(pl.Float64).alias("score"))
    topics = _bytewise(q.get_column("topic").unique().to_list())
    missing = sorted(set(topics) - set(positive.get_column("topic").unique().to_list()))
    run = pl.concat([positive.with_columns(pl.lit("ideal").alias("system")).select("system", "topic", "docno",
                                                                                      "score"),
                     _dummy_run(missing)]) if missing else positive.with_columns(pl.lit("ideal").alias("system"))
    options = {"depth": None} | dict(options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrstatsWarning)
        matrix = next(iter(evaluate(qrels, run, [measure], **options).values()))
    return dict(zip(matrix.topics, matrix.values[0].tolist()))


@dataclass(frozen=True)
class _Normalisation:
    raw: str  # name of the raw measure
    normalised: str  # name of the R-normalised measure
    needs: str  # "R" or "ideal"
    ideal: Callable[[np.ndarray], np.ndarray] | None  # R → ideal score (None when needs == "ideal")
    grouped: bool  # both forms are measures of their own (SP/AP, DCG/nDCG): the group names both


def normalisation_of(measure: str, depth: int | None = DEFAULT_DEPTH) -> _Normalisation:
    """How a measure (raw or R-normalised) relates to its other form (METHODS.md §4.7), as the
    raw family declares it (:class:`irstats.measures.registry.RNormalisation`)."""
    from irstats.measures.registry import r_normalisation

    try:
        raw, rule, _ = r_normalisation(measure)
    except MeasureError as exc:
        raise InputError(str(exc)) from None
    ideal = rule.ideal
    ideal_of_r = None if ideal is None else lambda r: ideal(raw, r, depth)
    return _Normalisation(str(raw), rule.partner_name(raw), "ideal" if ideal is None else "R", ideal_of_r,
                          rule.partner_is_family)


def _depth_of(matrix: ScoreMatrix) -> int | None:
    return matrix.options.get("depth", DEFAULT_DEPTH) if matrix.options else DEFAULT_DEPTH


def _ideal_values(matrix: ScoreMatrix, rule: _Normalisation, num_rel, ideal) -> np.ndarray:
    topics = list(matrix.topics)
    if rule.ideal is None:  # needs the ideal ranking's own score
        if ideal is None:
            raise InputError(f"R-normalising {rule.raw} needs the ideal score per topic (ideal=, e.g. from "
                             "ideal_scores_from_qrels)")
        return num_relevant(ideal, topics)
    if num_rel is None:
        raise InputError(f"R-normalising {matrix.measure} needs R per topic (num_rel=, e.g. a NumRel score matrix)")
    return rule.ideal(num_relevant(num_rel, topics))


def _rescaled(matrix: ScoreMatrix, factor: np.ndarray, divide: bool, name: str) -> ScoreMatrix:
    x = matrix.values
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(factor[None, :] == 0, np.where(np.isnan(x), np.nan, 0.0),
                          x / factor[None, :] if divide else x * factor[None, :])
    options = dict(matrix.options)
    options["r_normalisation"] = "divided by the ideal score" if divide else "multiplied by the ideal score"
    return ScoreMatrix(values, matrix.systems, matrix.topics, name, options, "mean")


def r_normalize(matrix: ScoreMatrix, num_rel=None, ideal=None) -> ScoreMatrix:
    """The R-normalised form of a raw measure: its score divided by an ideal ranking's (§4.7).

    SP → AP (÷ R); DCG → nDCG (÷ IDCG, give ``ideal``); P@k → ``nP@k`` (÷ min(R, k)/k);
    binary RBP(p) at depth m (its cut-off, else the evaluation depth, 1000 by default) →
    ``nRBP(…)`` (÷ (1 − p^min(R, m))). Where the ideal score is 0 the result is 0.
    ``num_rel``/``ideal``: see :func:`num_relevant`.
    """
    score_matrix(matrix)
    rule = normalisation_of(matrix.measure, _depth_of(matrix))
    if matrix.measure != rule.raw:
        raise InputError(f"{matrix.measure} is already R-normalised (its raw form is {rule.raw})")
    return _rescaled(matrix, _ideal_values(matrix, rule, num_rel, ideal), True, rule.normalised)


def r_denormalize(matrix: ScoreMatrix, num_rel=None, ideal=None) -> ScoreMatrix:
    """The raw form of an R-normalised measure (AP → SP = AP·R, nDCG → DCG = nDCG·IDCG …)."""
    rule = normalisation_of(matrix.measure, _depth_of(matrix))
    if matrix.measure != rule.normalised:
        raise InputError(f"{matrix.measure} is not R-normalised (its R-normalised form is {rule.normalised})")
    return _rescaled(matrix, _ideal_values(matrix, rule, num_rel, ideal), False, rule.raw)


def metric_group(measure: str) -> str:
    """The label of a metric's group of forms: ``SP/AP``, ``DCG/nDCG``, ``P@10``, ``RBP(p=0.95,rel=1)``.

    Standardized names (``std(AP)``, ``z(AP)``) and R-normalised ones belong to the group of
    their measure. A name irstats does not know is its own group.
    """
    name = measure
    for wrap in ("std(", "z("):
        if name.startswith(wrap) and name.endswith(")"):
            name = name[len(wrap):-1]
    try:
        rule = normalisation_of(name)
    except InputError:
        return name
    if rule.grouped:
        return f"{rule.raw}/{rule.normalised}"
    return rule.raw


def metric_forms(matrix: ScoreMatrix, num_rel=None, ideal=None, factors: Factors | None = None,
                 reference: Sequence[str] | None = None, ddof: int = 1,
                 zero_sd: str = "trec_eval") -> dict[str, ScoreMatrix]:
    """The raw, R-normalised and standardized forms of one metric: ``{form: matrix}``.

    ``matrix`` is either form (SP or AP, DCG or nDCG, P@k, binary RBP); the other is derived
    with ``num_rel``/``ideal`` (§4.7) and left out, with a warning, when they are not given.
    The standardized form is Φ(z) of ``matrix`` — the same for both forms (§4.6) — with
    ``factors`` if given (e.g. from a collection's original systems), else fitted on the
    ``reference`` systems (default: all).
    """
    score_matrix(matrix)
    out: dict[str, ScoreMatrix] = {}
    try:
        rule = normalisation_of(matrix.measure, _depth_of(matrix))
    except InputError as exc:
        warn(f"{exc.message}: only the measure as given and its standardized form are compared")
        rule = None
    if rule is not None:
        is_raw = matrix.measure == rule.raw
        try:
            other = (r_normalize if is_raw else r_denormalize)(matrix, num_rel, ideal)
        except InputError as exc:
            warn(f"{exc.message}; the {'R-normalised' if is_raw else 'raw'} form is left out")
            other = None
        raw, norm = (matrix, other) if is_raw else (other, matrix)
        if raw is not None:
            out["raw"] = raw
        if norm is not None:
            out["R-normalised"] = norm
    else:
        out["raw"] = matrix
    if factors is None:
        factors = fit_factors(matrix, reference=reference, ddof=ddof)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        out["standardized"] = apply_factors(matrix, factors, zero_sd=zero_sd)
    return out


# --------------------------------------------------------------------------- randomised baseline


Key = tuple[str, str]


def _as_groups(scores) -> dict[Key, ScoreMatrix]:
    """(group, form) → matrix from a ScoreMatrix, a ``{form: matrix}`` mapping (one metric,
    e.g. :func:`metric_forms`), or ``{group: {form: matrix}}``."""
    if isinstance(scores, ScoreMatrix):
        return {(metric_group(scores.measure), "score"): scores}
    if not isinstance(scores, Mapping) or not scores:
        raise InputError("expected a ScoreMatrix, {form: ScoreMatrix} or {group: {form: ScoreMatrix}}")
    values = list(scores.values())
    if all(isinstance(v, ScoreMatrix) for v in values):
        group = metric_group(values[0].measure)
        return {(group, str(form)): m for form, m in scores.items()}
    out: dict[Key, ScoreMatrix] = {}
    for group, forms in scores.items():
        if isinstance(forms, ScoreMatrix):
            out[(str(group), "score")] = forms
        else:
            for form, m in forms.items():
                if not isinstance(m, ScoreMatrix):
                    raise InputError(f"{group}/{form}: expected a ScoreMatrix, not {type(m).__name__}")
                out[(str(group), str(form))] = m
    return out


def _canonical(matrix: ScoreMatrix) -> ScoreMatrix:
    return matrix.subset(_bytewise(matrix.systems), _bytewise(matrix.topics))


def halving_statistics(X: np.ndarray, perms: np.ndarray, alpha: float = 0.05, equal_var: bool = False,
                       batch_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """dRMSE and false-positive rate of each halving: two arrays of length ``len(perms)``.

    ``X`` is systems × topics; ``perms`` a (B, t) array of topic permutations (H₁ = the first
    ⌊t/2⌋). The halves' system means, variances and two-sample t-tests are computed for a
    batch of halvings at once, each from its own rows (batch-size independent).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    s, t = X.shape
    half = t // 2
    B = perms.shape[0]
    d = np.empty(B)
    fp = np.empty(B)
    for batch in batch_slices(B, batch_size, s * t):
        Xp = X[:, perms[batch]]  # (s, b, t)
        test = two_sample_t_rows(Xp[..., :half], Xp[..., half:], equal_var=equal_var)
        d[batch] = rmse_rows(test.mean_x, test.mean_y)[1]
        with np.errstate(invalid="ignore"):
            fp[batch] = (np.nan_to_num(test.p_value, nan=1.0) < alpha).sum(axis=0) / s
    return d, fp


@dataclass(frozen=True)
class BaselineResult(Result):
    """Output of :func:`randomized_baseline`, keyed by (group, form).

    ``drmse[key]``: dRMSE of each of the first ``n_partitions`` halvings; ``fp_rate[key]``:
    false-positive rate of each of ``n_fp_partitions`` halvings; ``discriminative_power[key]``:
    paired-t share of system pairs with p < ``alpha`` on the whole topic pool (NaN if not
    computed).
    """

    keys: list[Key]
    measures: dict[Key, str]
    drmse: dict[Key, np.ndarray]
    fp_rate: dict[Key, np.ndarray]
    discriminative_power: dict[Key, float]
    n_systems: dict[Key, int]
    topics: tuple[str, ...]
    n_partitions: int
    n_fp_partitions: int
    seed: int | str
    alpha: float
    equal_var: bool
    quantiles: tuple[float, ...] = (0.025, 0.975, 0.99)
    fp_quantile: float = 0.975

    def to_frame(self) -> pl.DataFrame:
        """One row per (group, form): ``group, form, measure, systems, topics, drmse_mean,
        drmse_q2.5, drmse_q97.5, drmse_q99, fp_mean, fp_q97.5, discriminative_power``."""
        rows = []
        for key in self.keys:
            d, fp = self.drmse[key], self.fp_rate[key]
            row = {"group": key[0], "form": key[1], "measure": self.measures[key], "systems": self.n_systems[key],
                   "topics": len(self.topics), "drmse_mean": float(np.mean(d))}
            for q in self.quantiles:
                row[f"drmse_q{100 * q:g}"] = float(np.quantile(d, q))
            row["fp_mean"] = float(np.mean(fp))
            row[f"fp_q{100 * self.fp_quantile:g}"] = float(np.quantile(fp, self.fp_quantile))
            row["discriminative_power"] = float(self.discriminative_power.get(key, np.nan))
            rows.append(row)
        return pl.DataFrame(rows)

    def to_dict(self) -> dict:
        """Settings and the summary rows, JSON-ready."""
        return {"topics": len(self.topics), "n_partitions": self.n_partitions,
                "n_fp_partitions": self.n_fp_partitions, "seed": self.seed, "alpha": self.alpha,
                "equal_var": self.equal_var, "rows": self.to_frame().to_dicts()}

    def __repr__(self) -> str:
        return (f"BaselineResult({len(self.keys)} metric forms, {len(self.topics)} topics, "
                f"{self.n_partitions}/{self.n_fp_partitions} partitions)")



def randomized_baseline(scores, n_partitions: int = 1000, n_fp_partitions: int = 2000,
                        seed: Seed = 0, alpha: float = 0.05, equal_var: bool = False,
                        discriminative: bool = True, batch_size: int | None = None,
                        progress: Progress = None) -> BaselineResult:
    """The randomised comparability baseline of one topic pool (METHODS.md §5.4).

    Parameters
    ----------
    scores:
        A ScoreMatrix; ``{form: matrix}`` of one metric (e.g. :func:`metric_forms`); or
        ``{group: {form: matrix}}`` for several metrics. Every matrix must cover the same
        topics (the pool); systems may differ between groups.
    n_partitions:
        Random 50/50 partitions for the dRMSE distribution (the paper's 1,000).
    n_fp_partitions:
        Partitions for the false-positive rates (2,000); the first ``n_partitions`` of them
        are the dRMSE partitions.
    seed:
        Integer seed (or Generator) of the partitions; all forms share them.
    alpha, equal_var:
        The two-tailed two-sample t-test of each system against itself: level, and pooled
        instead of Welch.
    discriminative:
        Also compute each form's paired-t discriminative power on the whole pool.
    batch_size:
        Partitions per batch (default: by memory budget); results do not depend on it.
    progress:
        The progress convention of every experiment (:mod:`irstats.progress`): None shows a bar
        when stderr is a terminal, True/False always/never, a callable gets the halvings done.
    """
    P = resample_count(n_partitions, "n_partitions")
    P_fp = resample_count(n_fp_partitions, "n_fp_partitions")
    share(alpha, "alpha")
    check_seed(seed)
    groups = {k: _canonical(m) for k, m in _as_groups(scores).items()}
    topic_sets = {m.topics for m in groups.values()}
    if len(topic_sets) != 1:
        raise InputError("the score matrices of a randomised baseline must cover the same topics")
    topics = next(iter(topic_sets))
    for key, m in groups.items():
        if len(m.systems) < 2:
            raise InputError(f"{key[0]} ({key[1]}): dRMSE needs at least 2 systems")
    perms = halving_permutations(len(topics), max(P, P_fp), seed)
    drmse_out, fp_out, power, sizes, measures = {}, {}, {}, {}, {}
    with progress_bar(len(groups) * len(perms), progress, "comparability", unit="halving") as bar:
        for key, m in groups.items():
            d, fp = halving_statistics(m.values, perms, alpha, equal_var, batch_size)
            drmse_out[key], fp_out[key] = d[:P], fp[:P_fp]
            sizes[key], measures[key] = len(m.systems), m.measure
            if discriminative:
                power[key] = discriminative_power_complete(m, alpha=alpha)
            bar.update(len(perms))
    return BaselineResult(list(groups), measures, drmse_out, fp_out, power, sizes, topics, P, P_fp,
                          seed_label(seed), float(alpha),
                          bool(equal_var))


def discriminative_power_complete(matrix: ScoreMatrix, test: str = "paired_t", alpha: float = 0.05) -> float:
    """Sakai's discriminative power (share of system pairs with p < alpha) on the topics every
    system has — :func:`irstats.stats.discriminative_power` (same arguments, same order) after
    leaving out the topics some system lacks, as the comparability baseline needs."""
    from irstats import stats

    keep = ~np.isnan(matrix.values).any(axis=0)
    if not keep.all():
        matrix = matrix.subset(None, [t for t, k in zip(matrix.topics, keep) if k])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IrstatsWarning)
        return float(stats.discriminative_power(matrix, test=test, alpha=alpha))


# --------------------------------------------------------------------------- observed collections


@dataclass(frozen=True)
class CollectionComparison(Result):
    """Output of :func:`compare_collections` (k collections, the systems they share).

    Square k × k arrays indexed like ``labels``: ``drmse`` and ``rmse`` (symmetric, NaN on
    the diagonal); ``better[i, j]`` = systems significantly better on collection i than on
    j (one-tailed two-sample t at ``one_tailed_alpha``); ``fp_rate[i, j]`` = share of systems
    significantly different between i and j (two-tailed, at ``alpha``). ``means[i]`` are the
    system means on collection i.
    """

    labels: tuple[str, ...]
    systems: tuple[str, ...]
    measure: str
    means: np.ndarray
    drmse: np.ndarray
    rmse: np.ndarray
    better: np.ndarray
    fp_rate: np.ndarray
    alpha: float
    one_tailed_alpha: float
    equal_var: bool
    topics: dict[str, int] = field(default_factory=dict)

    def to_frame(self) -> pl.DataFrame:
        """One row per ordered pair (row ≠ column): ``row, column, drmse, rmse, better, fp_rate``."""
        rows = []
        k = len(self.labels)
        for i in range(k):
            for j in range(k):
                if i != j:
                    rows.append({"row": self.labels[i], "column": self.labels[j], "drmse": float(self.drmse[i, j]),
                                 "rmse": float(self.rmse[i, j]), "better": int(self.better[i, j]),
                                 "fp_rate": float(self.fp_rate[i, j])})
        return pl.DataFrame(rows, schema={"row": pl.String, "column": pl.String, "drmse": pl.Float64,
                                          "rmse": pl.Float64, "better": pl.Int64, "fp_rate": pl.Float64})

    def square(self, what: str = "drmse") -> pl.DataFrame:
        """A k × k table (``drmse``, ``rmse``, ``better`` or ``fp_rate``) with a ``collection`` column."""
        data = {"drmse": self.drmse, "rmse": self.rmse, "better": self.better, "fp_rate": self.fp_rate}[what]
        return pl.DataFrame({"collection": list(self.labels),
                             **{lab: data[:, j].tolist() for j, lab in enumerate(self.labels)}})



def compare_collections(collections: Mapping[str, ScoreMatrix], alpha: float = 0.05,
                        one_tailed_alpha: float = 0.025, equal_var: bool = False) -> CollectionComparison:
    """dRMSE, RMSE, "better on row than column" counts and FP rates for every pair of
    collections (METHODS.md §5.4 Tables 3–5), over the systems all collections share."""
    share(alpha, "alpha")
    share(one_tailed_alpha, "one_tailed_alpha")
    if not isinstance(collections, Mapping) or not all(isinstance(m, ScoreMatrix) for m in collections.values()):
        raise ArgumentTypeError("collections must be a {label: ScoreMatrix} dict", argument="collections")
    if len(collections) < 2:
        raise InputError("comparing collections needs at least 2 score matrices")
    labels = tuple(str(k) for k in collections)
    mats = list(collections.values())
    common = set(mats[0].systems)
    for m in mats[1:]:
        common &= set(m.systems)
    systems = _bytewise(common)
    if len(systems) < 2:
        raise InputError("the collections share fewer than 2 systems; dRMSE needs the same systems on both")
    dropped = sum(len(set(m.systems) - common) for m in mats)
    if dropped:
        warn(f"{dropped} system score row(s) are not shared by every collection and are left out")
    values = [m.subset(systems, _bytewise(m.topics)).values for m in mats]
    k = len(mats)
    means = np.stack([row_moments(v)[1] for v in values])
    d = np.full((k, k), np.nan)
    r = np.full((k, k), np.nan)
    better = np.zeros((k, k), dtype=np.int64)
    fp = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            r[i, j], d[i, j] = rmse_rows(means[i], means[j])
            one = two_sample_t_rows(values[i], values[j], equal_var, "greater").p_value
            better[i, j] = int((np.nan_to_num(one, nan=1.0) < one_tailed_alpha).sum())
            two = two_sample_t_rows(values[i], values[j], equal_var, "two-sided").p_value
            fp[i, j] = float((np.nan_to_num(two, nan=1.0) < alpha).sum() / len(systems))
    return CollectionComparison(labels, tuple(systems), mats[0].measure, means, d, r, better, fp, float(alpha),
                                float(one_tailed_alpha), bool(equal_var),
                                {lab: len(m.topics) for lab, m in zip(labels, mats)})


def union_topics(first: ScoreMatrix, second: ScoreMatrix, labels: tuple[str, str] = ("A", "B")) -> ScoreMatrix:
    """One matrix over the systems both share and the topics of both (the pooled topic set
    of a randomised baseline for two collections). A topic id in both is renamed
    ``label:topic`` in each, with a warning."""
    common = _bytewise(set(first.systems) & set(second.systems))
    if len(common) < 2:
        raise InputError("the two score matrices share fewer than 2 systems")
    a, b = first.subset(common), second.subset(common)
    clash = set(a.topics) & set(b.topics)
    ta = [f"{labels[0]}:{t}" if t in clash else t for t in a.topics]
    tb = [f"{labels[1]}:{t}" if t in clash else t for t in b.topics]
    if clash:
        warn(f"{len(clash)} topic id(s) are in both collections; they are kept apart as "
             f"{labels[0]}:<topic> and {labels[1]}:<topic>")
    return ScoreMatrix(np.hstack([a.values, b.values]), tuple(common), tuple(ta + tb), first.measure,
                       dict(first.options), first.over_topics)



# --------------------------------------------------------------------------- a whole study


def forms_by_group(matrices: Sequence[ScoreMatrix], num_rel=None, ideals: Mapping[str, object] | None = None,
                   factors: Factors | None = None, reference: Sequence[str] | None = None
                   ) -> dict[str, dict[str, ScoreMatrix]]:
    """``{metric group: {form: matrix}}`` for several measures of one collection
    (:func:`metric_forms` of each; ``ideals`` maps a raw measure to its ideal scores)."""
    ideals = ideals or {}
    groups: dict[str, dict[str, ScoreMatrix]] = {}
    for m in matrices:
        ideal = None
        try:
            ideal = ideals.get(normalisation_of(m.measure).raw)
        except InputError:
            pass
        groups[metric_group(m.measure)] = metric_forms(m, num_rel=num_rel, ideal=ideal, factors=factors,
                                                       reference=reference)
    return groups


def ideal_measures(matrices: Sequence[ScoreMatrix]) -> set[str]:
    """The raw measures whose R-normalisation needs the ideal ranking's score (DCG)."""
    out = set()
    for m in matrices:
        try:
            rule = normalisation_of(m.measure)
        except InputError:
            continue
        if rule.needs == "ideal":
            out.add(rule.raw)
    return out


@dataclass(frozen=True)
class ComparabilityStudy(Result):
    """The randomised baseline of one topic pool, and — for two collections — their observed
    comparison placed in it (``observed``: one row per metric group and form with the
    observed dRMSE, RMSE, systems better on each side, FP rate and the dRMSE's percentile in
    the baseline)."""

    baseline: BaselineResult
    observed: pl.DataFrame | None
    labels: tuple[str, ...]

    @property
    def title(self) -> str:
        what = " vs ".join(self.labels)
        return f"Comparability: {what}" if len(self.labels) > 1 else f"Comparability baseline: {what}"

    def to_frame(self) -> pl.DataFrame:
        """The baseline's rows, with the observed comparison's columns when there is one."""
        frame = self.baseline.to_frame()
        if self.observed is None:
            return frame
        return frame.join(self.observed, on=["group", "form"], how="left", maintain_order="left")

    def legend(self) -> list[str]:
        b = self.baseline
        systems = sorted(set(b.to_frame()["systems"].to_list()))
        return [f"Randomised baseline: {len(b.topics)} topics in random 50/50 partitions, "
                f"{'/'.join(map(str, systems))} systems; {b.n_partitions} partitions for dRMSE, "
                f"{b.n_fp_partitions} for false positives; seed {b.seed}; "
                f"{'pooled' if b.equal_var else 'Welch'} two-sample t, α = {b.alpha:g}"]

    def display_table(self, digits: int = 4):
        """The baseline per metric form: dRMSE's mean and quantiles, false positives,
        discriminative power."""
        from irstats.render import Cell, Table, number_cell

        header = ["metric", "form", "measure", "dRMSE", "2.5%", "97.5%", "99%", "FP mean", "FP 97.5%", "disc. power"]
        columns = ["drmse_mean", "drmse_q2.5", "drmse_q97.5", "drmse_q99", "fp_mean", "fp_q97.5",
                   "discriminative_power"]
        rows = [[Cell(r["group"]), Cell(r["form"]), Cell(r["measure"]), *(number_cell(r[c], digits) for c in columns)]
                for r in self.baseline.to_frame().iter_rows(named=True)]
        return Table.of(header, rows, [False] * 3 + [True] * 7, title=self.title, legend=self.legend(),
                        label="tab:comparability")

    def observed_table(self, digits: int = 4):
        """Two collections: the observed dRMSE against the baseline, the systems significantly
        better on each side, the FP rate (None for one collection)."""
        if self.observed is None:
            return None
        from irstats.render import Cell, Table, number_cell

        a, b = self.labels
        header = ["metric", "form", "dRMSE", "baseline mean", "baseline 99%", "percentile", f"{a}>{b}", f"{b}>{a}",
                  "FP rate"]
        frame = self.to_frame()
        rows = [[Cell(r["group"]), Cell(r["form"]), number_cell(r["observed_drmse"], digits),
                 number_cell(r["drmse_mean"], digits), number_cell(r["drmse_q99"], digits),
                 number_cell(r["observed_percentile"], 3), Cell(str(r["better_first"])),
                 Cell(str(r["better_second"])), number_cell(r["observed_fp_rate"], digits)]
                for r in frame.iter_rows(named=True)]
        return Table.of(header, rows, [False] * 2 + [True] * 7,
                        title=f"Observed: {a} vs {b}",
                        legend=["dRMSE against the baseline on their pooled topics (share of baseline values at or "
                                "below it); counts of systems significantly better on one than the other "
                                "(one-tailed, α = 0.025); FP = two-tailed rate at α"], label="tab:comparability-observed")

    def to_text(self, digits: int | None = None, **options) -> str:
        observed = self.observed_table(self.DIGITS if digits is None else digits)
        return super().to_text(digits, **options) + ("" if observed is None else "\n" + observed.text())

    def to_markdown(self, digits: int | None = None, **options) -> str:
        observed = self.observed_table(self.DIGITS if digits is None else digits)
        return super().to_markdown(digits, **options) + ("" if observed is None else "\n" + observed.markdown())

    def to_latex(self, digits: int | None = None, *, wide: bool | None = None, **options) -> str:
        observed = self.observed_table(self.DIGITS if digits is None else digits)
        text = super().to_latex(digits, wide=wide, **options)
        return text + ("" if observed is None else "\n" + observed.latex(wide=wide))

    def to_json(self) -> str:
        """The settings with the rows (and the collections compared)."""
        import json

        data = self.baseline.to_dict()
        if self.observed is not None:
            data["collections"] = list(self.labels)
            data["rows"] = self.to_frame().to_dicts()
        return json.dumps(data, indent=1, default=lambda v: v.item() if hasattr(v, "item") else str(v)) + "\n"


def comparability_study(forms: Mapping[str, Mapping[str, Mapping[str, ScoreMatrix]]], n_partitions: int = 1000,
                        n_fp_partitions: int = 2000, seed: Seed = 0,
                        alpha: float = 0.05, equal_var: bool = False, progress: Progress = None
                        ) -> ComparabilityStudy:
    """The comparability study of one or two collections (METHODS.md §5.4).

    ``forms``: per collection label, ``{metric group: {form: matrix}}`` (:func:`forms_by_group`).
    One collection: the randomised baseline on its topics. Two (the same systems): every
    group and form they share is compared (:func:`compare_collections`), and the baseline is
    run on the union of their topics; each observed dRMSE gets its percentile there.
    """
    check_seed(seed)
    share(alpha, "alpha")
    resample_count(n_partitions, "n_partitions")
    resample_count(n_fp_partitions, "n_fp_partitions")
    if not isinstance(forms, Mapping):
        raise ArgumentTypeError("forms must be {collection: {metric group: {form: ScoreMatrix}}} "
                                "(see forms_by_group)", argument="forms")
    labels = tuple(forms)
    if len(labels) not in (1, 2):
        raise ArgumentError(f"a comparability study takes one or two collections, not {len(labels)}",
                            argument="forms")
    observed = None
    pooled: Mapping[str, Mapping[str, ScoreMatrix]]
    if len(labels) == 1:
        pooled = forms[labels[0]]
    else:
        a, b = labels
        any_a = next(iter(next(iter(forms[a].values())).values()))
        any_b = next(iter(next(iter(forms[b].values())).values()))
        shared = set(any_a.systems) & set(any_b.systems)
        if len(shared) < 2:
            raise InputError(f"{a} and {b} share {len(shared)} system(s); comparing collections needs the same "
                             "systems on both")
        pooled_topics: dict[str, dict[str, ScoreMatrix]] = {}
        rows = []
        for group in forms[a]:
            for form in forms[a][group]:
                if form not in forms[b].get(group, {}):
                    continue
                ma, mb = forms[a][group][form], forms[b][group][form]
                pooled_topics.setdefault(group, {})[form] = union_topics(ma, mb, (a, b))
                comp = compare_collections({a: ma, b: mb}, alpha=alpha, equal_var=equal_var)
                rows.append({"group": group, "form": form, "observed_drmse": float(comp.drmse[0, 1]),
                             "observed_rmse": float(comp.rmse[0, 1]), "better_first": int(comp.better[0, 1]),
                             "better_second": int(comp.better[1, 0]), "observed_fp_rate": float(comp.fp_rate[0, 1])})
        if not rows:
            raise InputError(f"{a} and {b} have no measure form in common")
        observed = pl.DataFrame(rows)
        pooled = pooled_topics
    baseline = randomized_baseline(pooled, n_partitions, n_fp_partitions, seed, alpha, equal_var, progress=progress)
    if observed is not None:
        percentile = [float(np.mean(baseline.drmse[(r["group"], r["form"])] <= r["observed_drmse"]))
                      for r in observed.iter_rows(named=True)]
        observed = observed.with_columns(pl.Series("observed_percentile", percentile))
    return ComparabilityStudy(baseline, observed, labels)

__all__ = ["BaselineResult", "CollectionComparison", "ComparabilityStudy", "comparability_study", "forms_by_group",
           "ideal_measures", "METRIC_FORMS", "compare_collections", "discriminative_power_complete",
           "drmse", "halving_statistics", "ideal_scores_from_qrels", "metric_forms", "metric_group",
           "normalisation_of", "num_relevant", "num_relevant_from_qrels", "r_denormalize", "r_normalize",
           "halving_permutations", "randomized_baseline", "rmse", "rmse_rows", "two_sample_t_rows", "union_topics"]  # two_sample_t_rows: irstats.stats.closed_form
