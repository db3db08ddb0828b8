"""Prediction-powered means from cheap labels (METHODS.md §5.8): a few topics judged by
people, every topic judged by a cheap labeller (an LLM), and per system a mean over all
topics with an honest interval.

:func:`ppi` evaluates the runs twice — under the gold (human) qrels, whose topics are the gold
topics G, and under the cheap (auto) qrels, which must judge every gold topic and others
besides (U = T \\ G) — and gives, per system and measure, the prediction-powered mean with
its 1 − α interval (:mod:`irstats.stats.ppi`, equal to ``ppi_py``'s ``ppi_mean_pointestimate``
and ``ppi_mean_ci`` with Y = gold scores on G, Ŷ = auto scores on G, Ŷ_unlabeled = auto scores
on U); beside it the gold-only classical interval, the auto-only estimate, λ and the effective
number of gold topics. :func:`ppi_scores` does the same from score matrices (score files).

Differences between systems are means too: d_t = a_t − b_t per topic, under either labels, for
every system against a ``baseline`` or for ``all_pairs``; their intervals are
Bonferroni-adjusted over the comparisons of a measure unless ``correction="none"``.

:func:`degrade_qrels` makes realistic cheap labels from good ones (a confusion of grades and
a topic-dependent leniency), for simulations such as docs/examples/ppi_coverage.py.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import polars as pl

from irstats.checks import names, real, share
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, NotFoundError, did_you_mean, some, warn
from irstats.result import Result

#: How the intervals of differences may be adjusted for the comparisons of a measure.
CORRECTIONS = ("bonferroni", "none")

#: The columns of :meth:`PPIResult.to_frame`.
COLUMNS = ("system", "measure", "versus", "estimate", "ci_low", "ci_high", "gold_estimate", "gold_ci_low",
           "gold_ci_high", "auto_estimate", "lam", "n_gold", "n_other", "n_effective", "confidence")

_SHOWN = ("system", "measure", "versus", "estimate", "ci_low", "ci_high", "gold_ci_low", "gold_ci_high",
          "auto_estimate", "lam", "n_effective")


@dataclass(frozen=True)
class PPIResult(Result):
    """Prediction-powered means (rows with no ``versus``) and differences ``system − versus``
    of each system and measure: ``estimate ci_low ci_high`` (PPI), ``gold_estimate
    gold_ci_low gold_ci_high`` (the gold topics alone, classical CLT interval),
    ``auto_estimate`` (the cheap labels alone, every topic), ``lam`` (λ), ``n_gold``,
    ``n_other``, ``n_effective`` (the gold topics a classical interval would need to be as
    narrow) and ``confidence`` (the interval's level, after any adjustment)."""

    table: pl.DataFrame
    alpha: float
    lam: float | None  # None: PPI++'s tuned λ, per row
    baseline: str | None
    all_pairs: bool
    correction: str
    gold_topics: tuple[str, ...]
    other_topics: tuple[str, ...]

    @property
    def means(self) -> pl.DataFrame:
        """The rows of the systems' means."""
        return self.table.filter(pl.col("versus").is_null())

    @property
    def differences(self) -> pl.DataFrame:
        """The rows of differences ``system − versus`` (empty without a baseline or all_pairs)."""
        return self.table.filter(pl.col("versus").is_not_null())

    def _method(self) -> str:
        if self.lam is None:
            return "PPI++, λ tuned per row"
        if self.lam == 1:
            return "classic PPI, λ = 1"
        if self.lam == 0:
            return "gold topics only, λ = 0"
        return f"PPI, λ = {self.lam:g}"

    def comparisons_note(self) -> str:
        """How the differences' intervals are adjusted for multiple comparisons ('' without any)."""
        diffs = self.differences
        if diffs.height == 0:
            return ""
        per_measure = diffs.group_by("measure").len()["len"]
        m = int(per_measure.to_numpy().max())
        family = (f"differences system − versus to the baseline {self.baseline}" if self.baseline is not None
                  else "differences system − versus for all pairs")
        if self.correction == "none":
            return f"{family}: intervals not adjusted for the {m} comparisons per measure"
        level = 100 * (1 - self.alpha / m)
        return (f"{family}: Bonferroni-adjusted intervals over the {m} comparisons per measure "
                f"(each at {level:.6g}%, together at least {100 * (1 - self.alpha):g}%)")

    @property
    def title(self) -> str:
        n, other = _count_range(self.table["n_gold"]), _count_range(self.table["n_other"])
        head = (f"Prediction-powered means ({self._method()}; {100 * (1 - self.alpha):g}% CLT intervals; "
                f"{n} gold topics, {other} other topics)")
        note = self.comparisons_note()
        return head + (f"; {note}" if note else "")

    def to_frame(self) -> pl.DataFrame:
        return self.table

    def summary(self) -> pl.DataFrame:
        """The printed columns: the estimate and both intervals, the auto-only estimate, λ and
        the effective number of gold topics (``versus`` only when there are differences)."""
        shown = [c for c in _SHOWN if c != "versus" or self.differences.height]
        return self.table.select(shown)

    @staticmethod
    def _formats() -> dict:
        def fixed(digits: int):
            def write(value) -> str:
                if value is None or (isinstance(value, float) and math.isnan(value)):
                    return "nan"
                return "inf" if math.isinf(value) else f"{value:.{digits}f}"
            return write

        return {"lam": fixed(3), "n_effective": fixed(1)}

    def display_table(self, digits: int = 4):
        """The printed columns (:meth:`summary`) with λ to 3 decimals and n_eff to 1, their LaTeX
        headers as math; a page-wide float in LaTeX (eleven columns)."""
        from dataclasses import replace

        from irstats.render import latex_escape, table_of_frame

        table = table_of_frame(self.summary(), title=self.title, formats=self._formats(), digits=digits,
                               label="tab:ppi")
        return replace(table, header_latex=tuple(_LATEX_HEADER.get(h, latex_escape(h)) for h in table.header))


_LATEX_HEADER = {"ci_low": r"CI$_\mathrm{low}$", "ci_high": r"CI$_\mathrm{high}$",
                 "gold_ci_low": r"gold CI$_\mathrm{low}$", "gold_ci_high": r"gold CI$_\mathrm{high}$",
                 "auto_estimate": "auto", "lam": r"$\lambda$", "n_effective": r"$n_\mathrm{eff}$",
                 "estimate": r"$\hat\theta$"}


def _count_range(values: pl.Series) -> str:
    counts = values.to_numpy()  # counts of topics: never null
    low, high = int(counts.min()), int(counts.max())
    return str(low) if low == high else f"{low}–{high}"


# --------------------------------------------------------------------------- checks


def _check_options(alpha, lam, baseline, all_pairs, correction) -> tuple[float, float | None, str]:
    alpha = share(alpha, "alpha")
    if lam is not None:
        lam = real(lam, "lam", low=0.0, high=1.0)
    if baseline is not None and not isinstance(baseline, str):
        raise ArgumentTypeError(f"baseline must be a system's name; got {baseline!r}", argument="baseline")
    if not isinstance(all_pairs, (bool, np.bool_)):
        raise ArgumentTypeError(f"all_pairs must be True or False; got {all_pairs!r}", argument="all_pairs")
    if all_pairs and baseline is not None:
        raise ArgumentError("give a baseline or all_pairs=True, not both", argument="all_pairs")
    if not (isinstance(correction, str) and correction in CORRECTIONS):
        error = ArgumentError if isinstance(correction, str) else ArgumentTypeError
        raise error(f"correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}", argument="correction")
    return alpha, lam, correction


def _measure_names(measures) -> tuple[str, ...]:
    chosen = names(measures, "measures", what="measure names")
    if not chosen:
        raise ArgumentError("measures must name at least one measure", argument="measures")
    for name in chosen:
        if not isinstance(name, str):
            from irstats.measures import Measure

            if not isinstance(name, Measure):
                raise ArgumentTypeError(f"measures must be measure names; got {name!r}", argument="measures")
    return chosen


# --------------------------------------------------------------------------- the experiment


def ppi(gold_qrels, auto_qrels, runs, measures, *, alpha: float = 0.05, lam: float | None = None,
        baseline: str | None = None, all_pairs: bool = False, correction: str = "bonferroni", options=None,
        **eval_options) -> PPIResult:
    """Prediction-powered means of every run and measure (METHODS.md §5.8).

    ``gold_qrels``: the human judgments; the topics they judge are the gold topics G.
    ``auto_qrels``: the cheap labels (an LLM's), judging every gold topic and the others U.
    ``runs``: anything :func:`irstats.evaluate` takes. ``measures``: measure names.
    ``alpha``: 1 − the intervals' level. ``lam``: None for PPI++'s power-tuned λ (per system,
    measure and difference), or a number in [0, 1] (1: classic PPI; 0: the gold topics only).
    ``baseline``: a run's name, to add each run's difference to it; ``all_pairs``: the
    differences of every pair instead; ``correction``: ``"bonferroni"`` (the default) adjusts
    the differences' intervals for the comparisons of a measure, ``"none"`` does not.
    ``options``/``eval_options``: the evaluation options (:class:`irstats.EvalOptions` or its
    fields, e.g. ``rel_level=2``), the same for both qrels.

    >>> result = ppi("human.qrels", "llm.qrels", "runs/", ["nDCG@10"])   # doctest: +SKIP
    >>> result.to_frame()        # system measure versus estimate ci_low ci_high …   # doctest: +SKIP
    """
    alpha, lam, correction = _check_options(alpha, lam, baseline, all_pairs, correction)
    chosen = _measure_names(measures)
    from irstats.collection import RunSet
    from irstats.evaluate import Evaluator

    auto = Evaluator(auto_qrels, options, **eval_options)
    gold = Evaluator(gold_qrels, auto.options)
    runset = runs if isinstance(runs, RunSet) else RunSet.load(runs)
    from irstats.errors import IrstatsWarning

    with warnings.catch_warnings():  # the other topics are outside the gold qrels by design
        warnings.filterwarnings("ignore", message=r".*topic\(s\).* not in the qrels are ignored",
                                category=IrstatsWarning)
        gold_scores = gold.score(runset, chosen)
    auto_scores = auto.score(runset, chosen)
    return ppi_scores(gold_scores, auto_scores, alpha=alpha, lam=lam, baseline=baseline, all_pairs=all_pairs,
                      correction=correction)


def ppi_scores(gold_scores, auto_scores, measures=None, *, alpha: float = 0.05, lam: float | None = None,
               baseline: str | None = None, all_pairs: bool = False,
               correction: str = "bonferroni") -> PPIResult:
    """:func:`ppi` from per-topic scores: ``gold_scores`` (ScoreMatrix objects, or a
    ``{measure: ScoreMatrix}`` mapping, over the gold topics) and ``auto_scores`` (the same
    systems and measures under the cheap labels, over every topic). The gold topics are
    ``gold_scores``' topics; the other topics are those of ``auto_scores`` not among them.
    ``measures``: default every measure both hold."""
    from irstats.scores import score_matrices
    from irstats.stats.ppi import ppi_mean_rows

    alpha, lam, correction = _check_options(alpha, lam, baseline, all_pairs, correction)
    gold_all = {m.measure: m for m in score_matrices(gold_scores, "gold_scores")}
    auto_all = {m.measure: m for m in score_matrices(auto_scores, "auto_scores")}
    chosen = (_measure_names(measures) if measures is not None
              else tuple(m for m in auto_all if m in gold_all))
    if not chosen:
        raise ArgumentError("gold_scores and auto_scores share no measure", argument="auto_scores")
    frames = []
    gold_topics: dict[str, None] = {}  # ordered sets of the topics
    other_topics: dict[str, None] = {}
    for name in chosen:
        name = _stored_name(name, gold_all, auto_all)
        if name not in gold_all or name not in auto_all:
            where = "gold_scores" if name not in gold_all else "auto_scores"
            held = gold_all if where == "gold_scores" else auto_all
            raise NotFoundError(f"measure {name!r} is not in {where} (it holds {', '.join(held)})"
                                f"{did_you_mean(name, held)}", argument="measures")
        g, a = gold_all[name], auto_all[name]
        gold_systems = set(g.systems)
        systems = [s for s in a.systems if s in gold_systems]
        left = sorted(set(a.systems) ^ set(g.systems))
        if not systems:
            raise InputError(f"{name}: the gold and the auto scores share no system")
        if left:
            warn(f"{name}: {len(left)} system(s) scored under only one of the two labels are left out: {some(left)}")
        G = list(g.topics)
        auto_topics = set(a.topics)
        missing = [t for t in G if t not in auto_topics]
        if missing:
            raise InputError(f"{name}: the auto labels do not cover {len(missing)} gold topic(s) ({some(missing)}); "
                             "prediction-powered means need the cheap labels on every gold topic"
                             + (" (are the gold and the auto labels the other way round?)"
                                if auto_topics < set(G) else ""))
        gold_set = set(G)
        U = [t for t in a.topics if t not in gold_set]
        if len(G) < 2:
            raise InputError(f"{name}: {len(G)} gold topic(s); at least 2 are needed for an interval")
        if not U:
            raise InputError(f"{name}: the auto labels judge no topic beyond the {len(G)} gold ones; prediction-"
                             "powered means need other topics (evaluate the gold topics on their own)")
        for t in G:
            gold_topics.setdefault(t, None)
        for t in U:
            other_topics.setdefault(t, None)
        gi = [g.systems.index(s) for s in systems]
        ai = [a.systems.index(s) for s in systems]
        y = g.values[gi]
        a_cols = {t: j for j, t in enumerate(a.topics)}
        f = a.values[ai][:, [a_cols[t] for t in G]]
        fu = a.values[ai][:, [a_cols[t] for t in U]]
        means = ppi_mean_rows(y, f, fu, alpha=alpha, lam=lam)
        order = np.argsort(-np.nan_to_num(means.estimate, nan=-np.inf), kind="stable")
        ranked = [systems[i] for i in order]
        frames.append(_frame(means, ranked, name, None, np.full(len(order), alpha), order))
        if baseline is not None or all_pairs:
            if baseline is not None and baseline not in systems:
                raise NotFoundError(f"baseline {baseline!r} is not a system of {name} (systems: {some(systems)})"
                                    f"{did_you_mean(baseline, systems)}", argument="baseline")
            if baseline is not None:
                b = systems.index(baseline)
                first = np.array([i for i in order if i != b], dtype=int)
                second = np.full(len(first), b, dtype=int)
            else:
                i, j = np.triu_indices(len(order), 1)
                first, second = order[i], order[j]
            if len(first):
                m = len(first)
                level = alpha / m if correction == "bonferroni" else alpha
                rows = ppi_mean_rows(y[first] - y[second], f[first] - f[second], fu[first] - fu[second],
                                     alpha=level, lam=lam)
                frames.append(_frame(rows, [systems[k] for k in first], name, [systems[k] for k in second],
                                     np.full(m, level), None))
    table = pl.concat(frames)
    # means first, then the differences, each in measure order
    return PPIResult(table, float(alpha), lam, baseline, bool(all_pairs), correction, tuple(gold_topics),
                     tuple(other_topics))


def _stored_name(name, *stores) -> str:
    """A measure as the score matrices name it: as given, else its canonical form (``map`` →
    ``AP``) when that is what they hold."""
    text = str(name)
    if all(text in store for store in stores):
        return text
    try:
        from irstats.measures import canonical_name

        canonical = canonical_name(name)
    except Exception:  # noqa: BLE001 - not a measure name irstats parses: reported as not found
        return text
    return canonical if any(canonical in store for store in stores) else text


def _frame(rows, systems: list[str], measure: str, versus: list[str] | None, level: np.ndarray,
           order: np.ndarray | None) -> pl.DataFrame:
    def pick(values):
        return values if order is None else values[order]

    n = len(systems)
    return pl.DataFrame({
        "system": systems, "measure": [measure] * n, "versus": versus if versus is not None else [None] * n,
        "estimate": pick(rows.estimate), "ci_low": pick(rows.ci_low), "ci_high": pick(rows.ci_high),
        "gold_estimate": pick(rows.gold_estimate), "gold_ci_low": pick(rows.gold_ci_low),
        "gold_ci_high": pick(rows.gold_ci_high), "auto_estimate": pick(rows.auto_estimate), "lam": pick(rows.lam),
        "n_gold": pick(rows.n_gold), "n_other": pick(rows.n_other), "n_effective": pick(rows.n_effective),
        "confidence": 1.0 - level,
    }, schema={"system": pl.String, "measure": pl.String, "versus": pl.String, **{
        c: (pl.Int64 if c in ("n_gold", "n_other") else pl.Float64) for c in COLUMNS[3:]}})


# --------------------------------------------------------------------------- simulated cheap labels

#: P(cheap grade | true grade) for grades 0–3 (rows: the true grade): a lenient judge that
#: often calls non-relevant passages somewhat relevant and blurs the upper grades, with
#: agreement of the order reported for LLM judges on TREC DL (quadratic κ about 0.5–0.6).
DEFAULT_CONFUSION = ((0.70, 0.20, 0.08, 0.02),
                     (0.25, 0.40, 0.25, 0.10),
                     (0.08, 0.22, 0.45, 0.25),
                     (0.03, 0.07, 0.30, 0.60))


def degrade_qrels(qrels, confusion=DEFAULT_CONFUSION, *, leniency: float = 0.15, seed=0) -> pl.DataFrame:
    """Cheap labels made from good ones, for simulations: every judged (topic, docno) pair's
    grade g becomes grade h with probability ``confusion[g][h]`` (rows sum to 1), then moves
    one grade up (at most to the top grade) with a probability drawn for each topic uniformly
    from [0, 2·leniency] — a judge more lenient on some topics than others, so its errors do
    not average out over topics. Unjudged (negative) grades are kept. Returns ``topic docno
    rel`` sorted by topic and docno; the same ``seed`` gives the same labels."""
    from irstats.io.trec import read_qrels
    from irstats.random import generator

    table = np.asarray(confusion, dtype=float)
    if table.ndim != 2 or table.shape[0] != table.shape[1] or table.shape[0] < 2:
        raise ArgumentError(f"confusion must be a square table of probabilities (k × k grades); got shape "
                            f"{table.shape}", argument="confusion")
    if (table < 0).any() or not np.allclose(table.sum(axis=1), 1.0):
        raise ArgumentError("confusion's rows must be probabilities summing to 1", argument="confusion")
    leniency = real(leniency, "leniency", low=0.0, high=0.5)
    rng = generator(seed)
    frame = read_qrels(qrels).sort(["topic", "docno"])
    grades = frame["rel"].to_numpy()
    k = table.shape[0]
    judged = grades >= 0
    if (grades[judged] != np.floor(grades[judged])).any() or grades[judged].max(initial=0) >= k:
        raise ArgumentError(f"qrels grades must be whole numbers 0–{k - 1} (the confusion table's grades)",
                            argument="qrels")
    topics, topic_index = np.unique(frame["topic"].to_numpy(), return_inverse=True)
    lenient = rng.uniform(0.0, 2.0 * leniency, len(topics))
    draw, shift = rng.random(len(grades)), rng.random(len(grades))
    cumulative = np.cumsum(table, axis=1)
    cumulative[:, -1] = 1.0
    true = np.where(judged, grades, 0).astype(np.int64)
    cheap = (draw[:, None] >= cumulative[true]).sum(axis=1)
    cheap = np.minimum(cheap + (shift < lenient[topic_index]), k - 1)
    out = np.where(judged, cheap, grades).astype(np.int64)
    return frame.with_columns(pl.Series("rel", out, dtype=pl.Int64))


__all__ = ["COLUMNS", "CORRECTIONS", "DEFAULT_CONFUSION", "PPIResult", "degrade_qrels", "ppi", "ppi_scores"]
