"""Compare systems with a baseline across measures: the API behind ``irstats compare``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import polars as pl

from irstats.result import Result, provides
from irstats.checks import kind_of, names, share
from irstats.random import Seed, check_seed, seed_label
from irstats.errors import ArgumentError, ArgumentTypeError, did_you_mean, some
from irstats.scores import ScoreMatrix, score_matrices
from irstats.stats.corrections import CORRECTIONS, adjust
from irstats.stats.pairwise import TESTS, PairwiseResult, _pairwise

if TYPE_CHECKING:  # pragma: no cover
    from irstats.distributed import Job
    from irstats.render import Table

#: Per system, a finished interval of its difference: (low, high, d_z).
_Intervals = Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]
#: A score matrix's measures as :func:`compare` and :func:`compare_pairs` take them.
_Scores = Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix] | ScoreMatrix
#: One measure's plan in :func:`compare_pairs`: its test, pairs, family, their rows, their intervals.
_PairsPlan = tuple[Callable[[], PairwiseResult], list[tuple[str, str]], str, np.ndarray, np.ndarray, _Intervals]

#: Readable names of the corrections, for legends (BH and BY control the false discovery rate).
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini–Hochberg",
                    "by": "Benjamini–Yekutieli"}

#: Second significance level, as a fraction of alpha (marked † where * marks alpha).
STRONG_FACTOR = 0.2


@dataclass(frozen=True)
class Comparison(Result):
    """Systems compared with a baseline, per measure.

    ``frame`` has one row per (measure, system): ``measure, system, mean, delta`` (mean −
    baseline mean), ``p_value`` (the test against the baseline), ``p_adjusted`` (after
    ``correction`` over the comparisons with the baseline within the measure),
    ``significant`` (p_adjusted < alpha), ``marker`` (``†`` if p_adjusted < alpha/5, ``*``
    if < alpha, else empty), ``is_baseline``, the interval of Δ and d_z, and ``wins``, ``ties``,
    ``losses``: the topics (of those both have) where the system scores above, within
    ``tie_tolerance`` of, or below the baseline. Rows follow ``systems`` (best first by the
    first measure). ``pairwise`` holds every measure's all-pairs result;
    ``discriminative_power`` the share of system pairs with p < alpha per measure.
    """

    frame: pl.DataFrame
    baseline: str
    systems: tuple[str, ...]
    measures: tuple[str, ...]
    test: str
    correction: str
    alpha: float
    n_resamples: int
    seed: int | str
    pairwise: dict[str, PairwiseResult] = field(default_factory=dict)
    discriminative_power: dict[str, float] = field(default_factory=dict)
    significant_pairs: dict[str, int] = field(default_factory=dict)
    n_pairs: dict[str, int] = field(default_factory=dict)
    baseline_chosen: bool = False
    tie_tolerance: float = 0.0

    @property
    def strong_alpha(self) -> float:
        """The level marked with ``†``."""
        return self.alpha * STRONG_FACTOR

    MARKERS = True

    def legend(self) -> list[str]:
        """What a reader needs to read the table, as one caption sentence: Δ, the wins/ties/losses,
        the test and correction, what * and † mean."""
        return [line for line, _ in self._legend()]

    def _legend(self) -> list[tuple[str, str | None]]:
        """The legend's lines, each with the kind of column it explains (None: the whole table)."""
        how = f" (the best by {self.measures[0]})" if self.baseline_chosen else ""
        spec = TESTS[self.test]
        test = spec.label
        if spec.resamples:
            test += f", B = {self.n_resamples}, seed {self.seed}"
        family = len(self.systems) - 1
        if spec.familywise:
            corr = "p-values familywise over all pairs"
        elif self.correction == "none":
            corr = "p-values not adjusted"
        else:
            corr = (f"p-values {CORRECTION_NAMES[self.correction]}-adjusted over the {family} comparisons with the "
                    "baseline per measure")
        which = "adjusted p" if not spec.familywise and self.correction != "none" else "p"
        ties = "the same as" if self.tie_tolerance == 0 else f"within {self.tie_tolerance:g} of"
        return [(f"Δ = system mean − mean of the baseline {self.baseline}{how}", "delta"),
                (f"+/=/− = topics where the system scores above, {ties}, or below the baseline", "wins"),
                (f"{test}, two-sided, against the baseline {self.baseline}{how}; {corr}", None),
                (f"* {which} < {self.alpha:g}, † {which} < {self.strong_alpha:g}", None)]

    def remarks(self) -> list[str]:
        """Discriminative power per measure, and why a p-value is blank."""
        spec = TESTS[self.test]
        powers = ", ".join(f"{m} {100 * self.discriminative_power[m]:.1f}% ({self.significant_pairs[m]}/"
                           f"{self.n_pairs[m]})" if self.discriminative_power[m] == self.discriminative_power[m]
                           else f"{m} undefined (no pair of the {self.n_pairs[m]} could be tested: every p is "
                                f"undefined, as with one topic)" for m in self.measures)
        qualifier = spec.label if spec.familywise else f"{self.test}, unadjusted"
        return [f"discriminative power (share of system pairs with p < {self.alpha:g}, {qualifier}): {powers}",
                *self._undefined_notes()]

    def _undefined_notes(self) -> list[str]:
        """Why a p-value is blank: the test is undefined on the topics the pair shares (the
        t-tests need two, so that the differences have a spread)."""
        notes = []
        base = self.systems.index(self.baseline) if self.baseline in self.systems else None
        for measure in self.measures:
            rows = self.frame.filter((pl.col("measure") == measure) & ~pl.col("is_baseline")
                                     & pl.col("p_value").is_nan())
            if rows.height == 0:
                continue
            pairs = self.pairwise.get(measure)
            shared = ""
            if pairs is not None and base is not None:
                counts = sorted({int(pairs.n[base, pairs.index(s)]) for s in rows["system"]})
                shared = f" (topics shared with the baseline: {', '.join(map(str, counts))})"
            spec = TESTS[self.test]
            notes.append(f"{measure}: no p-value for {some(rows['system'], limit=3)}: the {spec.label} is undefined "
                         f"on fewer than {spec.min_topics} topic{'s' if spec.min_topics > 1 else ''}{shared}; evaluate more topics")
        return notes

    def to_frame(self) -> pl.DataFrame:
        """One row per measure and system: mean, Δ, p-values, marker, interval and d_z."""
        return self.frame

    def display_table(self, digits: int = 4, markers: str = "mean") -> Table:
        """The paper table: a row per system; per measure its mean (the best in bold), Δ to the
        baseline, the adjusted p-value and the topics won, tied and lost (+, =, −; in LaTeX only
        when asked for). The significance marker (* or †) of a system's test against the baseline
        is a superscript on its mean (``markers="mean"``, as SIGIR and TOIS tables put it), on its
        Δ (``"delta"``) or on both."""
        from irstats.render import Cell, Table, latex_escape, number_cell, p_cell

        header, header_latex, groups = ["system"], ["System"], ["system"]
        for m in self.measures:
            header += [m, f"Δ{m}", f"p({m})", f"+({m})", f"=({m})", f"−({m})"]
            header_latex += [latex_escape(m), r"$\Delta$", "$p$", "$+$", "$=$", "$-$"]
            groups += ["mean", "delta", "p", "wins", "wins", "wins"]
        values = {(r["measure"], r["system"]): r for r in self.frame.iter_rows(named=True)}
        best = {m: max((r["mean"] for (mm, _), r in values.items() if mm == m and r["mean"] == r["mean"]),
                       default=None) for m in self.measures}
        on_mean, on_delta = markers in ("mean", "both"), markers in ("delta", "both")
        rows = []
        for s in self.systems:
            cells = [Cell(s)]
            for m in self.measures:
                r = values.get((m, s))
                if r is None:
                    cells += [Cell("")] * 6
                    continue
                mean = number_cell(r["mean"], digits, marker=r["marker"] if on_mean else "")
                mean = Cell(mean.text, mean.latex, bold=r["mean"] == best[m])
                if r["is_baseline"]:
                    cells += [mean, Cell("baseline", r"\textit{baseline}"), Cell(""), Cell(""), Cell(""), Cell("")]
                else:
                    cells += [mean, number_cell(r["delta"], digits, sign=True, marker=r["marker"] if on_delta else ""),
                              p_cell(r["p_adjusted"]), *(Cell(str(r[k])) for k in ("wins", "ties", "losses"))]
            rows.append(cells)
        legend = self._legend()
        return Table.of(header, rows, [False] + [True] * (len(header) - 1), title=self.title,
                        legend=[line for line, _ in legend], legend_groups=[group for _, group in legend],
                        remarks=self.remarks(), header_latex=header_latex, label="tab:compare", groups=groups,
                        latex_optional=["wins"])

    @property
    def title(self) -> str:
        return f"Systems against the baseline {self.baseline}"



def compared_matrices(scores: _Scores) -> tuple[dict[str, ScoreMatrix], tuple[str, ...]]:
    """What a comparison starts from: the score matrices by measure (one at least) and their
    systems, the best first by the first measure's mean (undefined means last, ties in order) —
    for :func:`compare`, :func:`compare_pairs` and :func:`irstats.stats.bayes.bayes`."""
    items = score_matrices(scores)  # checks that every item is a ScoreMatrix
    matrices = dict(zip(scores, items)) if isinstance(scores, Mapping) else {m.measure: m for m in items}
    if not matrices:
        raise ArgumentError("no scores to compare: scores holds no ScoreMatrix", argument="scores")
    first = next(iter(matrices.values()))
    order = np.argsort(-np.nan_to_num(first.means(), nan=-np.inf), kind="stable")
    return matrices, tuple(first.systems[i] for i in order)


def _check_options(test: str, correction: object, interval: object, alpha: float, confidence: float,
                   seed: Seed) -> str:
    """The checks shared by :func:`compare` and :func:`compare_pairs`; the correction to use."""
    from irstats.stats.closed_form import _check_confidence
    from irstats.stats.effects import INTERVAL_METHODS
    from irstats.stats.pairwise import check_test

    check_test(test)
    if not (isinstance(interval, str) and interval in ("t", *INTERVAL_METHODS)):
        error = ArgumentError if isinstance(interval, str) else ArgumentTypeError
        raise error(f"unknown interval {interval!r}; expected one of t, {', '.join(INTERVAL_METHODS)}",
                    argument="interval")
    if correction is None:
        correction = "none" if TESTS[test].familywise else "holm"
    if not (isinstance(correction, str) and correction in CORRECTIONS):
        error = ArgumentError if isinstance(correction, str) else ArgumentTypeError
        raise error(f"unknown correction {correction!r}; expected one of {', '.join(CORRECTIONS)}",
                    argument="correction")
    if TESTS[test].familywise and correction != "none":
        raise ArgumentError("Tukey HSD p-values are already familywise; use correction='none' (--correction none) "
                            "with test='tukey'", argument="correction")
    share(alpha, "alpha")
    _check_confidence(confidence)
    check_seed(seed)
    return correction


def marker(p_adjusted: float, alpha: float) -> str:
    """``†`` if p < alpha/5, ``*`` if p < alpha, else an empty string (NaN: empty)."""
    if not np.isfinite(p_adjusted):
        return ""
    if p_adjusted < alpha * STRONG_FACTOR:
        return "†"
    return "*" if p_adjusted < alpha else ""


def _delta_intervals(matrix: ScoreMatrix, b: int, interval: str, confidence: float, n_resamples: int,
                     seed: Seed, job: Job | None) -> _Intervals:
    """Per system: the interval of its mean difference to system ``b`` and d_z (NaN for b), as
    a function to call once ``job``'s batches (the bootstrap's resampled means) have run."""
    differences = matrix.values - matrix.values[b][None, :]
    intervals = _difference_intervals(matrix, differences, interval, confidence, n_resamples, seed, job)

    def finish() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        low, high, effect = (a.copy() for a in intervals())
        for arr in (low, high, effect):
            arr[b] = np.nan
        return low, high, effect

    return finish


def _difference_intervals(matrix: ScoreMatrix, differences: np.ndarray, interval: str, confidence: float,
                          n_resamples: int, seed: Seed, job: Job | None) -> _Intervals:
    """The interval of each row of mean ``differences`` and its d_z: the paired t-interval on the
    topics the row has, or a bootstrap interval on the topics every system of ``matrix`` has
    (its resampled means submitted to ``job`` when given); returned by the function given back."""
    from irstats.stats.closed_form import paired_t_rows

    rows = paired_t_rows(differences, confidence=confidence)
    if interval == "t" or not len(differences):
        return lambda: (rows.ci_low, rows.ci_high, rows.effect_size)
    from irstats.stats.effects import _bootstrap_mean_intervals

    complete = ~np.isnan(matrix.values).any(axis=0)
    boot = _bootstrap_mean_intervals(differences[:, complete], n_resamples, confidence, interval, seed, job)

    def finish() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        intervals = boot()
        return intervals.low, intervals.high, rows.effect_size

    return finish


@provides("irstats.evaluation.Evaluation", "compare")  # scores.compare(...): an evaluation sits below stats/
def compare(scores: Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix] | ScoreMatrix, baseline: str | None = None,
            test: str = "paired_t", correction: str | None = None, alpha: float = 0.05, n_resamples: int = 10000,
            seed: Seed = 0, batch_size: int | None = None, interval: str = "t",
            confidence: float = 0.95, *, tie_tolerance: float = 0.0, client: Any = None) -> Comparison:
    """Compare every system with a baseline on each measure, and measure discriminative power.

    ``baseline`` defaults to the system with the best mean on the first measure (ties: the
    first in order). ``test`` is one of ``paired_t``, ``wilcoxon``, ``sign``, ``bootstrap``,
    ``randomization``, ``tukey``; ``correction`` one of ``holm``, ``bonferroni``, ``bh``, ``by``, ``none``
    (default ``holm``; with ``tukey``, whose p-values are already familywise, ``none``).

    Every measure's systems are tested pairwise once (:func:`irstats.stats.pairwise`); the
    p-values against the baseline are read from that, and the discriminative power is the
    share of all pairs with p < alpha.

    Each difference to the baseline comes with an interval (``delta_low``, ``delta_high``) at
    ``confidence`` and the paired effect size d_z (``effect_size``): ``interval="t"`` is the
    paired t-interval on the topics both systems have; ``"percentile"`` and ``"bca"`` are
    bootstrap intervals of the mean difference (:func:`irstats.stats.effects.bootstrap_mean_intervals`,
    ``n_resamples`` and ``seed`` as for the tests) on the topics every system has.

    ``client`` (a ``distributed.Client``): the resample batches of every measure's test
    (bootstrap, randomisation, Tukey) and of its bootstrap intervals run on its Dask cluster as
    one job (:mod:`irstats.distributed`); the p-values and intervals are the same to the last bit.

    Per system and measure, ``wins``, ``ties`` and ``losses`` count the topics both have where
    the system scores above the baseline by more than ``tie_tolerance``, within it, or below
    (default 0: only equal scores tie).
    """
    correction = _check_options(test, correction, interval, alpha, confidence, seed)
    from irstats.checks import real

    real(tie_tolerance, "tie_tolerance", low=0.0)
    if baseline is not None and not isinstance(baseline, str):
        raise ArgumentTypeError(f"baseline must be a system name or None; got {kind_of(baseline)}",
                                argument="baseline")
    matrices, systems = compared_matrices(scores)
    measures = tuple(matrices)
    if len(systems) < 2:
        raise ArgumentError(f"comparing needs at least two systems; the scores have {len(systems)}",
                            argument="scores")
    chosen = baseline is None
    if chosen:
        baseline = systems[0]
    for name, matrix in matrices.items():
        if baseline not in matrix.systems:
            known = some(matrix.systems, limit=8, quote=False)
            raise ArgumentError(f"unknown baseline {baseline!r}: no such system for {name} (systems: {known})"
                                f"{did_you_mean(baseline, matrix.systems)}", argument="baseline")
    rows = []
    results: dict[str, PairwiseResult] = {}
    power: dict[str, float] = {}
    sig_pairs: dict[str, int] = {}
    n_pairs: dict[str, int] = {}

    def plan(job: Job | None) -> Callable[[], dict[str, tuple[Callable[[], PairwiseResult], _Intervals]]]:
        # per measure, its pairwise test, then its intervals: the order of the random draws
        parts = {name: (_pairwise(matrix, test, n_resamples, seed, False, batch_size, job),
                        _delta_intervals(matrix, matrix.systems.index(baseline), interval, confidence, n_resamples,
                                         seed, job)) for name, matrix in matrices.items()}
        return lambda: parts

    from irstats.distributed import planned

    parts = planned(client, "compare", plan, unit="resample")
    for name, matrix in matrices.items():
        finish, intervals = parts[name]
        res = finish()
        low, high, effect = intervals()
        results[name] = res
        power[name] = res.discriminative_power(alpha)
        i, j = np.triu_indices(len(res.systems), 1)
        sig_pairs[name] = int(res.significant(alpha)[i, j].sum())
        n_pairs[name] = res.n_pairs
        b = matrix.systems.index(baseline)
        means = matrix.means()
        wins, ties, losses = wins_ties_losses(matrix.values, matrix.values[b], tie_tolerance)
        p = res.p_value[:, b].copy()
        p[b] = np.nan
        p_adj = adjust(p, correction)
        for s in systems:
            if s not in matrix.systems:
                continue
            k = matrix.systems.index(s)
            rows.append({"measure": name, "system": s, "mean": float(means[k]), "delta": float(means[k] - means[b]),
                         "p_value": float(p[k]), "p_adjusted": float(p_adj[k]),
                         "significant": bool(p_adj[k] < alpha) if k != b else False,
                         "marker": marker(p_adj[k], alpha), "is_baseline": k == b,
                         "delta_low": float(low[k]), "delta_high": float(high[k]), "effect_size": float(effect[k]),
                         "wins": int(wins[k]), "ties": int(ties[k]), "losses": int(losses[k])})
    frame = pl.DataFrame(rows, schema={"measure": pl.String, "system": pl.String, "mean": pl.Float64,
                                       "delta": pl.Float64, "p_value": pl.Float64, "p_adjusted": pl.Float64,
                                       "significant": pl.Boolean, "marker": pl.String, "is_baseline": pl.Boolean,
                                       "delta_low": pl.Float64, "delta_high": pl.Float64,
                                       "effect_size": pl.Float64, "wins": pl.Int64, "ties": pl.Int64,
                                       "losses": pl.Int64})
    assert baseline is not None  # given, or chosen above
    return Comparison(frame, baseline, systems, measures, test, correction, alpha, n_resamples,
                      seed_label(seed), results, power, sig_pairs,
                      n_pairs, chosen, float(tie_tolerance))


def wins_ties_losses(values: np.ndarray, baseline: np.ndarray, tolerance: float = 0.0
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per system (row of ``values``): the topics where it scores above ``baseline`` by more than
    ``tolerance`` (wins), within it (ties) and below (losses), over the topics both have.

    >>> w, t, l = wins_ties_losses(np.array([[0.5, 0.2, 0.3, np.nan]]), np.array([0.4, 0.2, 0.35, 0.1]))
    >>> int(w[0]), int(t[0]), int(l[0])
    (1, 1, 1)
    """
    difference = values - baseline[None, :]
    both = ~np.isnan(difference)
    wins = (both & (difference > tolerance)).sum(axis=1)
    losses = (both & (difference < -tolerance)).sum(axis=1)
    return wins, both.sum(axis=1) - wins - losses, losses


@dataclass(frozen=True)
class PairComparison(Result):
    """Chosen pairs of systems compared per measure: against several baselines, or all pairs.

    ``frame`` has one row per (measure, pair): ``measure, system_a, system_b, delta`` (mean of
    a − mean of b over the topics both have), ``p_value``, ``p_adjusted`` (``correction``
    over the pairs of that measure: the family), ``significant``, ``marker``, ``delta_low``,
    ``delta_high`` (the interval of the difference) and ``effect_size`` (d_z). ``family``
    says which comparisons were adjusted together.
    """

    frame: pl.DataFrame
    systems: tuple[str, ...]
    measures: tuple[str, ...]
    baselines: tuple[str, ...] | None  # None: all pairs
    test: str
    correction: str
    alpha: float
    family: str

    @property
    def title(self) -> str:
        return "All pairs" if self.baselines is None else f"Against {', '.join(self.baselines)}"

    def to_frame(self) -> pl.DataFrame:
        return self.frame

    def display_table(self, digits: int = 4) -> Table:
        """Per measure, a system × system block of Δ (row − column) with its marker."""
        from irstats.render import Cell, Table, latex_escape, number_cell

        columns = list(self.baselines) if self.baselines is not None else list(self.systems)
        rows = []
        for measure in self.measures:
            cell = {}
            for r in self.frame.filter(pl.col("measure") == measure).iter_rows(named=True):
                a, b = r["system_a"], r["system_b"]
                cell[(a, b)] = number_cell(r["delta"], digits, sign=True, marker=r["marker"])
                # the same comparison, read the other way
                cell.setdefault((b, a), number_cell(-r["delta"], digits, sign=True, marker=r["marker"]))
            rows += [[Cell(measure), Cell(a), *(cell.get((a, b), Cell("")) for b in columns)] for a in self.systems]
        header = ["measure", "row − column", *columns]
        return Table.of(header, rows, [False, False] + [True] * len(columns), title=self.title,
                        legend=self.legend(), header_latex=["Measure", r"Row $-$ column",
                                                             *(latex_escape(c) for c in columns)],
                        label="tab:compare-pairs")

    def matrix(self, measure: str, value: str = "delta") -> pl.DataFrame:
        """A system × system table of ``value`` (``delta``, ``p_value`` or ``p_adjusted``) for one
        measure: row a, column b holds a − b (p-values symmetric); empty where not compared."""
        rows = self.frame.filter(pl.col("measure") == measure)
        cells = {(r["system_a"], r["system_b"]): r[value] for r in rows.iter_rows(named=True)}
        sign = -1.0 if value == "delta" else 1.0
        data = {"system": list(self.systems)}
        for b in self.systems:
            column = []
            for a in self.systems:
                if (a, b) in cells:
                    column.append(cells[(a, b)])
                elif (b, a) in cells:
                    column.append(sign * cells[(b, a)] if cells[(b, a)] is not None else None)
                else:
                    column.append(None)
            data[b] = column
        return pl.DataFrame(data, schema={"system": pl.String, **{b: pl.Float64 for b in self.systems}})

    def legend(self) -> list[str]:
        corr = "not adjusted" if self.correction == "none" else f"{CORRECTION_NAMES[self.correction]}-adjusted"
        return [f"test: {TESTS[self.test].label}, two-sided; p-values {corr} over the family: {self.family}",
                f"* adjusted p < {self.alpha:g}, † adjusted p < {self.alpha * STRONG_FACTOR:g}"]


def compare_pairs(scores: Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix] | ScoreMatrix,
                  baselines: Sequence[str] | None = None, test: str = "paired_t", correction: str | None = None,
                  alpha: float = 0.05, n_resamples: int = 10000, seed: Seed = 0,
                  interval: str = "t", confidence: float = 0.95, *, client: Any = None) -> PairComparison:
    """Compare every system with each of several ``baselines`` — or, with ``baselines=None``,
    every pair of systems — per measure, adjusting the p-values over that family.

    Pairs are tested with :func:`irstats.stats.pairwise` (``test``); ``correction`` (default
    Holm; none for Tukey, which is familywise already) runs over all pairs printed for a
    measure, and the family is stated in the result (``family``, ``legend()``). ``client``: the
    resample batches on a Dask cluster, as for :func:`compare`.
    """
    correction = _check_options(test, correction or None, interval, alpha, confidence, seed)
    matrices, systems = compared_matrices(scores)
    measures = tuple(matrices)
    if baselines is not None:
        baselines = tuple(dict.fromkeys(names(baselines, "baselines", what="system names")))
        for name, matrix in matrices.items():
            unknown = [b for b in baselines if b not in matrix.systems]
            if unknown:
                raise ArgumentError(f"unknown baseline {unknown[0]!r}: no such system for {name} "
                                    f"(systems: {some(matrix.systems, limit=8, quote=False)})"
                                    f"{did_you_mean(unknown[0], matrix.systems)}", argument="baselines")
    rows = []
    family = ""

    def plan(job: Job | None) -> Callable[[], dict[str, _PairsPlan]]:
        # per measure, its pairwise test, then its intervals: the order of the random draws
        parts: dict[str, _PairsPlan] = {}
        for name, matrix in matrices.items():
            finish = _pairwise(matrix, test, n_resamples, seed, False, None, job)
            pairs, family = _chosen_pairs(matrix, systems, baselines)
            index = {s: k for k, s in enumerate(matrix.systems)}
            a_idx = np.array([index[a] for a, _ in pairs], dtype=np.int64)
            b_idx = np.array([index[b] for _, b in pairs], dtype=np.int64)
            parts[name] = (finish, pairs, family, a_idx, b_idx,
                           _difference_intervals(matrix, matrix.values[a_idx] - matrix.values[b_idx], interval,
                                                 confidence, n_resamples, seed, job))
        return lambda: parts

    from irstats.distributed import planned

    for name, (finish, pairs, family, a_idx, b_idx, intervals) in planned(client, "compare", plan,
                                                                          unit="resample").items():
        res = finish()
        low, high, effect = intervals()
        p = res.p_value[a_idx, b_idx]
        p_adj = adjust(p, correction)
        for k, (a, b) in enumerate(pairs):
            rows.append({"measure": name, "system_a": a, "system_b": b, "delta": float(res.delta[a_idx[k], b_idx[k]]),
                         "p_value": float(p[k]), "p_adjusted": float(p_adj[k]),
                         "significant": bool(p_adj[k] < alpha), "marker": marker(p_adj[k], alpha),
                         "delta_low": float(low[k]), "delta_high": float(high[k]), "effect_size": float(effect[k])})
    frame = pl.DataFrame(rows, schema={"measure": pl.String, "system_a": pl.String, "system_b": pl.String,
                                       "delta": pl.Float64, "p_value": pl.Float64, "p_adjusted": pl.Float64,
                                       "significant": pl.Boolean, "marker": pl.String, "delta_low": pl.Float64,
                                       "delta_high": pl.Float64, "effect_size": pl.Float64})
    return PairComparison(frame, systems, measures, baselines, test, correction, alpha, family)


def _chosen_pairs(matrix: ScoreMatrix, systems: Sequence[str],
                  baselines: Sequence[str] | None) -> tuple[list[tuple[str, str]], str]:
    """The pairs (a, b) :func:`compare_pairs` tests for one measure, and the family in words."""
    known = set(matrix.systems)
    present = [s for s in systems if s in known]
    if baselines is None:
        pairs = [(a, b) for i, a in enumerate(present) for b in present[i + 1:]]
        return pairs, f"all {len(pairs)} pairs of systems, per measure"
    pairs = []
    seen: set[frozenset[str]] = set()
    for b in baselines:
        for s in present:
            if s != b and frozenset((s, b)) not in seen:  # two baselines are compared once
                seen.add(frozenset((s, b)))
                pairs.append((s, b))
    return pairs, f"{len(pairs)} comparisons with {len(baselines)} baseline(s), per measure"
