"""The sections of the study report, each built from public API calls only."""

from __future__ import annotations

import contextlib
import math
import warnings
from typing import Any

import numpy as np
import polars as pl

from irstats.errors import InputError, MeasureError, some
from irstats.measures import Role, measure_for, parse_measure
from irstats.report.document import Items, Note, Section, Table, Text
from irstats.report.model import (JUDGED_DEPTHS, SectionBuilder, Study, command_line, environment, input_files,
                                  traded)
from irstats.standardize import apply_factors, fit_factors, write_factors
from irstats.stats import compare, t_interval

# A run whose top 100 is less than half judged is evaluated far below the judging pool.
SHALLOW_JUDGED_SHARE = 0.5


def collection(study: Study) -> Section:
    """1. Topics, judgments, relevant documents per topic, judged share of each run's top k."""
    qrels = study.collection.qrels
    level = study.settings.options["rel_level"]
    if qrels["rel"].dtype.is_float():  # real-valued labels: their mean and spread, not a column per value
        judged_label = pl.col("rel").filter(pl.col("rel") >= 0)
        by_label = [judged_label.mean().alias("mean label"), judged_label.min().alias("min label"),
                    judged_label.max().alias("max label")]
    else:
        by_label = [(pl.col("rel") == g).sum().alias(f"grade_{g}") for g in sorted(qrels["rel"].unique().to_list())]
    per_topic = (
        qrels.group_by("topic")
        .agg(pl.len().alias("judged"), (pl.col("rel") >= level).sum().alias("relevant"), *by_label)
        .sort("topic")
    )
    relevant = per_topic["relevant"].to_numpy()
    retrieved_matrix = study.scores[measure_for(Role.RETRIEVED)]
    judged_share = measure_for(Role.JUDGED_SHARE)
    summary = pl.DataFrame({
        "quantity": ["topics", "judged documents", "relevant documents", "relevant per topic (median)",
                     "relevant per topic (min)", "relevant per topic (max)", "topics without relevant documents",
                     "runs"],
        "value": [_amount(v) for v in (per_topic.height, qrels.height, relevant.sum(), np.median(relevant),
                                         relevant.min(), relevant.max(), (relevant == 0).sum(),
                                         len(retrieved_matrix.systems))],
    })
    retrieved = retrieved_matrix.values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a run with no topic at all: NaN
        fewest, most = np.nanmin(retrieved, axis=1), np.nanmax(retrieved, axis=1)
    judged = pl.DataFrame({"system": list(retrieved_matrix.systems),
                           **{f"judged@{k}": study.scores[f"{judged_share}@{k}"].means() for k in JUDGED_DEPTHS},
                           "retrieved per topic (min)": fewest, "retrieved per topic (max)": most})
    section = Section("The collection", "collection")
    section.add(Text(f"Relevance: grade ≥ {level}. Judged share of a run's top k: the share of its first "
                     "min(k, n) documents that are judged (n: the documents it retrieved for the topic), averaged "
                     "over topics; and the fewest and most documents it retrieved for a topic."),
                Table("collection_summary", summary, "The collection at a glance", digits=1),
                Table("relevant_per_topic", per_topic, "Judged and relevant documents per topic", digits=0),
                Table("judged_share", judged.sort("judged@100", descending=True),
                      "Judged share of each run's top 10, 100 and 1000"))
    shallow = judged.filter(pl.col("judged@100") < SHALLOW_JUDGED_SHARE).sort("judged@100")
    if shallow.height:
        runs = listing([f"{r['system']} ({r['judged@100']:.2f})" for r in shallow.iter_rows(named=True)])
        deep = [m for m in study.measures if (parse_measure(m).cutoff or math.inf) > 100]
        which = (f"Their {listing(deep)} scores (no cut-off, or one past 100) are" if deep else
                 "Deep measures (AP, R@1000, nDCG without a cut-off) are")
        section.add(Note(f"{shallow.height} of {judged.height} runs have less than {SHALLOW_JUDGED_SHARE:.0%} of "
                         f"their top 100 documents judged (judged share in brackets): {runs}. {which} computed far "
                         "below the judging pool for them, where unjudged documents count as non-relevant, so they "
                         "are likely underestimated against deeper-judged runs. Compare these runs by measures cut "
                         "at the judged depth (e.g. nDCG@10, P@10) or with unjudged documents removed (`irstats "
                         "eval -J`), and see how their scores move with depth in [Volatility over evaluation "
                         "depth](#volatility)."))
    return section


def _amount(value) -> str:
    """A quantity of the collection summary: whole numbers without decimals, others with one."""
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.1f}"


#: Most names a warning lists before saying how many more there are.
NAMES_SHOWN = 12


def listing(names, limit: int = NAMES_SHOWN, sep: str = ", ") -> str:
    """``a, b and c``; past ``limit`` names, the first ones and how many more. ``sep``
    between items that hold commas or "and" themselves: ``"; "``."""
    names = [str(n) for n in names]
    last = "; and " if sep == "; " else " and "
    if len(names) > limit:
        return sep.join(names[:limit]) + f"{last}{len(names) - limit} more"
    if len(names) <= 2:
        return last.join(names)
    return sep.join(names[:-1]) + last + names[-1]


def check_baselines(baselines, systems) -> None:
    """Every ``--baseline`` is one of the runs (checked once the runs are read, before any section)."""
    from irstats.errors import did_you_mean

    for name in baselines:
        if name not in systems:
            raise InputError(f"unknown baseline {name!r}: no run has that name (runs: "
                             f"{some(systems, limit=8, quote=False)}){did_you_mean(name, systems)}")


def systems(study: Study) -> Section:
    """2. Means with 95% CIs, significance against the baseline(s) or, by default, each measure's
    best system (Holm), wins/ties/losses, heatmap."""
    rows = []
    baselines = study.settings.baselines
    for measure in study.measures:
        matrix = study.scores[measure]
        intervals = {s: t_interval(v[~np.isnan(v)]) for s, v in zip(matrix.systems, matrix.values)}
        residual_measure = parse_measure(measure).residual
        residual = study.scores.get(str(residual_measure)) if residual_measure is not None else None
        residuals = dict(zip(residual.systems, residual.means().tolist())) if residual is not None else {}
        for baseline in baselines or (None,):
            with taking(lambda w: "s_d = 0" in str(w.message)):  # named in full by constant_pairs_note below
                result = compare({measure: matrix}, baseline=baseline, test=study.settings.test, correction="holm",
                                 alpha=study.settings.alpha)
            for row in result.frame.iter_rows(named=True):
                tested = not row["is_baseline"]
                interval = intervals[row["system"]]
                rows.append({
                    "measure": measure, "system": row["system"], "mean": row["mean"], "ci_low": interval.low,
                    "ci_high": interval.high, "baseline": baseline, "delta": row["delta"],
                    "p_holm": row["p_adjusted"] if tested else None,
                    "significant": ("yes" if row["significant"] else "no") if tested else "",
                    "residual": residuals.get(row["system"]), "effect_size": row["effect_size"] if tested else None,
                    **{k: row[k] if tested else None for k in ("wins", "ties", "losses")}})
    table = pl.DataFrame(rows, schema={
        "measure": pl.String, "system": pl.String, "mean": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
        "baseline": pl.String, "delta": pl.Float64, "p_holm": pl.Float64, "significant": pl.String,
        "residual": pl.Float64, "effect_size": pl.Float64, "wins": pl.Int64, "ties": pl.Int64, "losses": pl.Int64})
    if not baselines:  # against each measure's best system: the columns say so
        table = table.drop("baseline").rename({"delta": "delta_to_best", "p_holm": "p_holm_vs_best",
                                               "effect_size": "effect_size_vs_best"})
    first = study.scores[study.measures[0]]
    against_whom = (f"the baseline {listing(baselines, limit=len(baselines), sep=', ')}" if baselines
                    else "the measure's best system")
    section = Section("Systems", "systems")
    section.add(Text(f"Per measure, systems sorted by mean with a 95% t-interval over topics. Each system is "
                     f"compared with {against_whom} by a two-sided {study.settings.test.replace('_', ' ')}"
                     f" test; p-values are Holm-adjusted over those comparisons (α = {study.settings.alpha:g}). "
                     "Wins, ties and losses count the topics where the system scores above, the same as, or below "
                     "it. For RBP the residual is the most the score could rise if unjudged documents were "
                     "relevant. The effect size is d_z, the mean difference in standard deviations of the "
                     "per-topic differences."),
                Table("system_means", table, f"Means, 95% intervals and tests against {against_whom}"),
                study.figure("system_means", f"{first.measure}: system means with 95% t-intervals",
                             lambda: _with_data(_meta_plots().plot_system_means(first))),
                study.figure("system_topic_heatmap",
                             f"{first.measure} per system (rows) and topic (columns); lighter is higher",
                             lambda: _with_data(_meta_plots().plot_score_heatmap(first))))
    note = constant_pairs_note({m: study.scores[m] for m in study.measures})
    if note is not None:
        section.add(note)
    return section


def risk(study: Study) -> Section | None:
    """Risk against each ``--baseline`` (URisk, TRisk; ZRisk and GeoRisk within the set): only
    when the report has a baseline."""
    from irstats.stats.risk import risk as risk_of

    if not study.settings.baselines:
        return None
    frames = [risk_of(study.scores[m], b).to_frame() for b in study.settings.baselines for m in study.measures]
    table = pl.concat(frames).filter(pl.col("system") != pl.col("baseline")).sort(
        ["baseline", "measure", "urisk"], descending=[False, False, True], maintain_order=True)
    table = table.select("measure", "baseline", "system", "urisk", "trisk", "zrisk", "georisk")
    section = Section("Risk against the baseline", "risk")
    section.add(Text("URisk is the mean per-topic difference to the baseline with each loss counted twice (α = 1); "
                     "TRisk is URisk in standard errors: below −2 a system is significantly riskier than the "
                     "baseline, above 2 significantly safer (|TRisk| > 2, about p < 0.05, two-sided). ZRisk and "
                     "GeoRisk measure risk within the set of all systems (Dinçer, Macdonald & Ounis, SIGIR 2014 "
                     "and 2016)."),
                Table("risk", table, "Risk against the baseline (α = 1); |TRisk| > 2 is significant", fold=False))
    return section


@contextlib.contextmanager
def taking(predicate):
    """Keep the warnings for which ``predicate`` holds (the section writes its own, fuller note
    about them) in the list this yields; every other warning goes on to the section's notes."""
    taken: list = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield taken
    for w in caught:
        if predicate(w):
            taken.append(w)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _meta_plots():
    """:mod:`irstats.plots.meta`, imported when a figure is drawn (a report without figures
    never imports matplotlib)."""
    from irstats.plots import meta

    return meta


def _with_data(ax) -> tuple:
    """A figure of :mod:`irstats.plots.meta` with the numbers it shows (its CSV)."""
    return ax, _meta_plots().figure_data(ax)


def _with_own_data(ax) -> tuple:
    """A result's own figure (``result.plot()``) with the numbers it keeps on the Axes."""
    return ax, ax.irstats_data


def constant_pairs(matrix) -> list[tuple[str, str, float]]:
    """The pairs of systems whose per-topic scores differ by the same amount on every topic
    (s_d = 0: the paired t-test's degenerate case, by the statistics core's one rule), with
    that difference (0: identical scores)."""
    from irstats.stats.closed_form import paired_t_rows

    names = list(matrix.systems)
    order = sorted(range(len(names)), key=lambda k: names[k])
    i, j = np.triu_indices(len(order), 1)
    i, j = np.asarray(order)[i], np.asarray(order)[j]
    if i.size == 0:
        return []
    with np.errstate(invalid="ignore"):
        rows = paired_t_rows(matrix.values[i] - matrix.values[j])
    from irstats.stats.degenerate import ZERO_TOL

    return [(names[a], names[b], 0.0 if abs(d) <= ZERO_TOL else float(d))
            for a, b, d, k in zip(i, j, rows.mean, rows.degenerate) if k]


def constant_pairs_note(matrices: dict) -> Note | None:
    """One warning for every pair of systems with a constant difference under any measure:
    which pairs, under which measures, what it does to the p-values, and what to do."""
    identical: dict[tuple[str, str], list[str]] = {}
    shifted: list[str] = []
    for measure, matrix in matrices.items():
        for a, b, d in constant_pairs(matrix):
            if d == 0.0:
                identical.setdefault((a, b), []).append(measure)
            else:
                ahead, behind = (a, b) if d > 0 else (b, a)
                shifted.append(f"{ahead} is ahead of {behind} by {abs(d):.4f} on every topic by {measure}")
    if not identical and not shifted:
        return None
    parts = [f"{a} and {b} score the same on every topic by {listing(ms)}" for (a, b), ms in identical.items()]
    count = len(identical) + len(shifted)
    text = (f"{count} pair(s) of systems differ by the same amount on every topic (s_d = 0): "
            f"{listing(parts + shifted, sep='; ')}. The paired t-test is undefined for them, and its p-value is set by "
            "convention (1 when the scores are identical, 0 otherwise), in the tests against the best system and "
            "in the robustness to the scale.")
    if identical:
        text += (" Identical scores usually mean the same ranking was submitted twice: check these runs and keep one "
                 "of each pair (or say that they tie).")
    if shifted:
        text += " For a constant non-zero difference, report the difference itself rather than a p-value."
    return Note(text)


def agreement(study: Study) -> Section | None:
    """How far a second qrels (``--qrels-b``) agrees: its labels on the pairs both judge,
    and the system orderings and significance conclusions it leads to (METHODS.md §5.7)."""
    qrels_b = study.settings.qrels_b
    if qrels_b is None:
        return None
    from irstats.agreement import NoSharedPairsError, conclusion_agreement, label_agreement
    from irstats.errors import InputError
    from irstats.evaluate import evaluate
    from irstats.judgments import NoTopicInCommon

    section = Section("Agreement with a second qrels", "agreement")
    boot: dict[str, Any] = dict(n_resamples=study.settings.effort.bootstrap_resamples, seed=study.settings.seed)
    text = (f"qrels A: `{study.qrels_path}`; qrels B: `{qrels_b}`. Intervals: percentile bootstrap over topics. ")
    try:
        labels = label_agreement(study.qrels_path, qrels_b, **boot)
    except NoSharedPairsError as exc:  # e.g. different topics: only the conclusions are compared
        labels = None
        text += f"Labels are not compared: {exc}. "
    try:
        with taking(lambda w: "not in the qrels are ignored" in str(w.message)) as outside:  # said below, by topic
            b_scores = evaluate(qrels_b, study.runs, list(study.measures), **study.settings.options)
    except NoTopicInCommon as exc:
        raise InputError(f"--qrels-b judges none of the topics of a run: {exc}", path=str(qrels_b)) from None
    a_scores = {m: study.scores[m] for m in study.measures}
    a_topics, b_topics = set(a_scores[study.measures[0]].topics), set(b_scores[study.measures[0]].topics)
    shared = a_topics & b_topics
    all_topics = len(shared) < 2
    conclusions = conclusion_agreement(a_scores, b_scores, list(study.measures), all_topics=all_topics,
                                       alpha=study.settings.alpha, **boot)
    text += ("The conclusions are compared on " + ("each qrels' own topics (they share fewer than two)."
                                                   if all_topics else f"the {len(shared)} topics both judge."))
    section.add(Text(text + " Cohen's κ and Krippendorff's α measure label agreement beyond chance; "
                     "τ-b, τ_AP and r compare the system orderings by mean; significant_pairs_agree is the share "
                     f"of system pairs whose paired-t conclusion (α = {study.settings.alpha:g}) and direction agree."))
    if labels is not None:
        section.add(Table("agreement_labels", labels.statistics, "Label agreement on the pairs both qrels judge",
                          counts=("pairs",)))
        if labels.confusion is not None:  # None: real-valued labels, too many values for a table by grade
            section.add(Table("agreement_confusion", labels.confusion, "Pairs by grade (rows: A, columns: B)",
                              digits=0))
    section.add(Table("agreement_conclusions", conclusions.to_frame(), "Agreement of the conclusions, per measure"),
                Table("agreement_gains", conclusions.gains(), "Each system's mean and rank under A and B "
                      "(rank_gain > 0: placed higher under B)"))
    section.add(study.figure("agreement_gains", f"{study.measures[0]}: which systems gain or lose rank under B",
                             lambda: _with_own_data(conclusions.plot(study.measures[0]))))
    missing = sorted(a_topics - b_topics)
    if outside and missing:  # topics outside both qrels are ignored under A as well: nothing new to say
        compared = "on each qrels' own topics" if all_topics else f"on the {len(shared)} topics both judge"
        section.add(Note(f"qrels B does not judge {len(missing)} of the {len(a_topics)} topics qrels A judges "
                         f"({listing(repr(t) for t in missing)}): under B every run's scores on them are ignored, so "
                         f"the means of {listing(study.measures)} under A and B rest on different topics; the "
                         f"conclusions above are compared {compared}. To compare A and B on the same topics, judge "
                         "these topics in B, or give the report a qrels A restricted to B's topics."))
    return section


def repro_pairing(orig, reproduced) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The report's original/reproduced pairing (``--repro-orig``, ``--repro-run``): one or two
    runs each (baseline[, advanced]), as paths; None when neither is given."""
    from irstats.checks import names as name_list

    if orig is None and reproduced is None:
        return None
    if orig is None or reproduced is None:
        raise InputError("give the original runs and their reproductions together (--repro-orig and --repro-run)")
    orig = tuple(str(p) for p in name_list(orig, "repro_orig", what="runs"))
    reproduced = tuple(str(p) for p in name_list(reproduced, "repro_run", what="runs"))
    if not 1 <= len(orig) <= 2 or len(orig) != len(reproduced):
        raise InputError(f"the reproduction needs a baseline run and, optionally, an advanced run on each side, in "
                         f"the same order; got {len(orig)} original and {len(reproduced)} reproduced run(s)")
    return orig, reproduced


def reproduction(study: Study) -> Section | None:
    """How far the reproduced runs (``--repro-run``) reproduce the original ones
    (``--repro-orig``): Breuer et al.'s measures, as ``irstats repro`` computes them."""
    if study.settings.repro is None:
        return None
    from irstats.repro import reproducibility

    orig, reproduced = study.settings.repro
    options = {k: v for k, v in study.settings.options.items() if k != "complete"}  # repro's own rule, as repro_eval
    result = reproducibility(study.qrels_path, list(orig), list(reproduced), list(study.measures), **options)
    section = Section("Reproduction", "reproduction")
    pairs = "; ".join(f"{run}: `{o}` reproduced by `{r}`" for run, o, r in zip(result.runs, orig, reproduced))
    section.add(Text(f"{pairs}. Measures of Breuer et al. (SIGIR 2020), as repro_eval computes them except KTU, which "
                     "follows the paper's Eq. (1) (docs/repro.md): KTU and RBO compare the document rankings "
                     "(1: identical), RMSE the per-topic scores (0: identical), ER and ΔRI the advanced run's "
                     "improvement over the baseline (1 and 0: the same effect), p the paired t-test of the original "
                     "against the reproduced scores."))
    section.add(Table("repro_summary", result.summary(), " ".join([result.title + ".", *result.legend()])),
                Table("repro_per_topic", result.per_topic(), "KTU and RBO of every topic"))
    section.add(study.figure("repro_order", "Order of documents, original against reproduced, per topic",
                             lambda: _with_own_data(result.plot_order())))
    if result.er is not None:
        section.add(study.figure("repro_effects", "Effect ratio against ΔRI per measure (best at 1, 0)",
                                 lambda: _with_own_data(result.plot_effects())))
    return section


def standardization(study: Study) -> Section:
    """4. Factors (written to factors.tsv), standardized means, rank changes."""
    from irstats.standardize import ZeroVarianceWarning

    matrices = {m: study.scores[m] for m in study.measures}
    with taking(lambda w: issubclass(w.category, ZeroVarianceWarning)) as zero_variance:
        factors = fit_factors(matrices, reference=study.settings.reference)
        standardized = {measure: apply_factors(matrix, factors) for measure, matrix in matrices.items()}
    write_factors(factors, study.out_dir / "factors.tsv")
    factor_table = pl.DataFrame({"topic": list(factors.topics), "measure": list(factors.measures),
                                 "mean": factors.mean, "sd": factors.sd, "n": factors.n})
    rows = []
    for measure, matrix in matrices.items():
        raw, std = matrix.means(), standardized[measure].means()
        raw_rank = _ranks(raw)
        std_rank = _ranks(std)
        for i, system in enumerate(matrix.systems):
            rows.append({"measure": measure, "system": system, "mean": raw[i], "std_mean": std[i],
                         "rank": raw_rank[i], "std_rank": std_rank[i]})
    means = pl.DataFrame(rows).sort(["measure", "std_mean"], descending=[False, True])
    first = study.measures[0]
    who = ("all systems" if study.settings.reference is None
           else f"{len(study.settings.reference)} reference systems")
    section = Section("Standardization", "standardization")
    section.add(Text(f"Per topic and measure, scores are standardized as z = (x − mean)/sd over {who} and mapped "
                     "through the normal CDF (std(M) = Φ(z)); a system's standardized score is the mean of "
                     "std(M) over topics. The factors are in `factors.tsv` (reusable with "
                     "`irstats standardize apply`)."),
                Table("standardized_means", means, "Raw and standardized means, with ranks (1 = best)"),
                study.figure("score_densities", f"Per-topic scores of all systems: {first} raw and standardized",
                             lambda: _with_data(_meta_plots().plot_score_density(
                                 {first: matrices[first], f"std({first})": standardized[first]}))),
                Table("factors", factor_table, "Standardization factors per topic"))
    if zero_variance:
        section.add(zero_variance_note([w.message for w in zero_variance], study.settings.reference))
    return section


def zero_variance_note(found, reference) -> Note:
    """One warning for the topics on which every reference system scored the same, per
    measure (from the ZeroVarianceWarnings of fitting and applying the factors): which, what
    standardization does with them, and what to do."""
    by_measure: dict[str, list[str]] = {}
    for warning in found:
        topics = by_measure.setdefault(str(warning.measure), [])
        topics.extend(t for t in warning.topics if t not in topics)
    parts = [f"the same {measure} on topic(s) {listing(repr(t) for t in topics)}"
             for measure, topics in by_measure.items()]
    who = "every system" if reference is None else "every reference system"
    return Note(f"Zero variance: {who} has {listing(parts, sep='; ')}. Standardization cannot place a system on "
                "such a topic: by trec_eval's rule z = 0 (std = 0.5) at that score and NaN for any other, so the "
                "topic adds nothing to the differences between standardized means. Leave these topics out when "
                "comparing standardized scores, or fit the factors on more varied reference systems (`irstats "
                "report --reference`).")


def _ranks(values: np.ndarray) -> np.ndarray:
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")
    ranks = np.empty(len(values), dtype=np.int64)
    ranks[order] = np.arange(1, len(values) + 1)
    return ranks


AGGREGATION_METHODS = ("am", "egm", "gm_trec_eval", "median")


def _decimal(value: float) -> str:
    """A small constant as a plain decimal (0.00001, not 1e-05)."""
    return np.format_float_positional(value, trim="-")


def _split_half_columns() -> dict:
    """The split-half table's headers and writers: the experiments' usual ones (as ``irstats
    splithalf`` prints them), ε as the plain decimal each method used."""
    from irstats.render import SUMMARY_COLUMNS, Cell

    columns = {k: v for k, v in SUMMARY_COLUMNS.items() if k in ("pct_zero", "pct_low", "hard_easy", "middle_rest")}
    columns["epsilon"] = ("ε", lambda v: Cell(_decimal(v)))
    return columns


def aggregation(study: Study) -> Section:
    """3. AM, εGM, GM_trec_eval, median and standardized AM, their split-half consistency."""
    from irstats.aggregate import GM_TREC_EVAL_FLOOR, aggregate
    from irstats.meta.splithalf import split_half
    from irstats.standardize import standardized_name

    from irstats.standardize import ZeroVarianceWarning

    eps = study.settings.epsilon
    matrices = {m: study.scores[m] for m in study.measures}
    with taking(lambda w: issubclass(w.category, ZeroVarianceWarning)):  # the standardization section names them
        factors = fit_factors(matrices, reference=study.settings.reference)
        standardized = {standardized_name(m): apply_factors(matrix, factors) for m, matrix in matrices.items()}
    rows = []
    with _quiet_warnings():
        for measure, matrix in matrices.items():
            values = {method: aggregate(matrix, method, epsilon=eps if method == "egm" else None).values
                      for method in AGGREGATION_METHODS}
            values["std_am"] = aggregate(standardized[standardized_name(measure)], "am").values
            for i, system in enumerate(matrix.systems):
                rows.append({"measure": measure, "system": system, **{k: float(v[i]) for k, v in values.items()}})
        aggregates = pl.DataFrame(rows).sort(["measure", "am"], descending=[False, True])
        result = split_half({**matrices, **{f"std({m})": standardized[standardized_name(m)] for m in matrices}},
                            [("am", None), ("egm", eps), ("gm_trec_eval", None), ("median", None)],
                            n_splits=study.settings.effort.split_half_halvings, seed=study.settings.seed,
                            progress=study.keep_drawing)
    consistency = result.summary()
    section = Section("Aggregation", "aggregation")
    section.add(Text(f"Each system's per-topic scores aggregated by the arithmetic mean (am), the ε-adjusted "
                     f"geometric mean (egm, ε = {_decimal(eps)}), trec_eval's GM (gm_trec_eval: scores floored at "
                     f"ε = {_decimal(GM_TREC_EVAL_FLOOR)}) and the median, and the AM of "
                     f"standardized scores (std_am). Split-half consistency: over {result.n_splits} random halvings "
                     "of the topics, Kendall's τ between the systems' orderings on the two halves (higher: the "
                     "method ranks systems more consistently); ε is the floor or offset each method used (none for "
                     "am and the median); hard/easy and middle/rest are the single splits by topic difficulty; "
                     "%zero and %low the share of scores equal to 0 and below 0.1 (seed 000)."),
                Table("aggregates", aggregates, "Aggregated scores per system"),
                Table("split_half", consistency, "Split-half consistency of each aggregation", digits=3,
                      columns=_split_half_columns(), blank_nan=True),
                study.figure("split_half_tau", f"Distribution of split-half τ per aggregation, {study.measures[0]}",
                             lambda: _with_data(_meta_plots().plot_tau_density(
                                 result, [v for v in result.variants if v.measure == study.measures[0]]))))
    return section


#: The measure predictive power keeps its top systems by when the report has it, else the
#: report's first measure: the default measure's (AP, predictive_power's own default).
PREDICTIVE_TOP_BY = measure_for(Role.DEFAULT)


def predictive(study: Study) -> Section:
    """5. Predictive power φ between the chosen measures (seed 002)."""
    from irstats.meta.predictive import predictive_power

    by = PREDICTIVE_TOP_BY if PREDICTIVE_TOP_BY in study.measures else study.measures[0]
    matrices = {m: study.scores[m] for m in study.measures}
    with _quiet_warnings():
        result = predictive_power(matrices, list(study.measures), by=by,
                                  n_splits=study.settings.effort.predictive_halvings, seed=study.settings.seed,
                                  progress=study.keep_drawing)
    section = Section("Predictive power", "predictive")
    section.add(Text(f"φ(A, B): over {result.n_splits} random halvings of the topics, the mean Kendall's τ between "
                     "the ordering of systems by measure A on one half and by measure B on the other, averaged "
                     f"over both orientations (seed 002). Systems: the top {result.top:.0%} by {by}. The diagonal "
                     "is each measure's self-predictivity; a measure that predicts another as well as that one "
                     "predicts itself makes it redundant."),
                Table("predictive_power", result.matrix_frame(), "φ: rows predict columns"),
                study.figure("predictive_power", "Predictive power φ (rows: predictor on one half)",
                             lambda: _with_data(_meta_plots().plot_phi_heatmap(result))))
    return section


def scale(study: Study) -> Section:
    """6. Do the conclusions survive a change of scale? (seed 001: log, logit, ranks, Φ(z))."""
    from irstats.meta.transforms import transform_robustness

    results = []
    for measure in study.measures:
        matrix = study.scores[measure]
        with _quiet_warnings():
            try:
                results.append(transform_robustness(matrix, alpha=study.settings.alpha))
            except InputError:  # e.g. a measure outside [0, 1] has no logit: check the others
                results.append(transform_robustness(matrix, ("raw", "log", "ranks", "standardized"),
                                                    alpha=study.settings.alpha))
    table = pl.concat([r.to_frame() for r in results])
    section = Section("Robustness to the scale", "scale")
    section.add(Text("Robertson (seed 001): MAP and GMAP differ only in which part of the scale they emphasise, "
                     "so a conclusion should hold under other monotone transformations of the per-topic scores. "
                     "For every pair of systems, the paired t-test (α = "
                     f"{study.settings.alpha:g}) on the raw scores is compared with the same test on log(x + 0.01), "
                     "logit, per-topic ranks and standardized scores; 'changed' counts the pairs whose direction "
                     "or significance differs from the raw scores', 'reversed' those whose direction flips with "
                     "significance on one side."),
                Table("scale_robustness", table, "Pairs whose conclusion changes under each transformation"),
                study.figure("scale_robustness", f"{results[0].measure}: share of pairs whose conclusion changes",
                             lambda: _with_own_data(results[0].plot())))
    return section


@contextlib.contextmanager
def _quiet_warnings():
    """Silence expected warnings (zero-variance topics, GM of zeros): the text states the rules."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def swept_measures(measures) -> list[str]:
    """The depth-sweep names of the report's measures (cut-offs dropped: the sweep sets k)."""
    from irstats.depth import parse_swept_measure

    names = []
    for measure in measures:
        try:
            names.append(parse_swept_measure(str(parse_measure(measure).at(None))).name)
        except MeasureError:  # a measure the sweep does not offer is left out of this section
            continue
    return list(dict.fromkeys(names))


def volatility(study: Study) -> Section:
    """6. Scores and orderings over evaluation depth, against the (simulated) pool depth."""
    from irstats.collection import EvalOptions
    from irstats.depth import judged_depth, sweep_judgments
    from irstats.depth import volatility as volatility_statistics
    from irstats.depth.volatility import SUMMARY_COLUMNS, SUMMARY_LEGEND

    measures = swept_measures(study.measures)
    options = EvalOptions(**study.settings.options)
    # The real qrels, not a simulated pool: the section shows how the study's own scores move.
    judgments = study.judgments
    pool_depth = study.settings.pool_depth
    if pool_depth is None:
        pool_depth = judged_depth(judgments)
    result = sweep_judgments(judgments, measures, pool_depth=pool_depth, options=options, progress=study.keep_drawing)
    stats = volatility_statistics(result, alpha=study.settings.alpha, progress=study.keep_drawing)
    section = Section("Volatility over evaluation depth", "volatility")
    how = ("given" if study.settings.pool_depth is not None else
           "estimated: the median run is judged down to this depth on every topic")
    section.add(Text(f"Mean scores recomputed at every evaluation depth k, with unjudged documents as non-relevant "
                     f"and with condensed lists (unjudged documents removed). Pool depth d = {pool_depth} "
                     f"({how}). Above d the runs' documents are judged; past it the scores rest on fewer and "
                     "fewer judgments, and orderings that still move there are volatile. " + SUMMARY_LEGEND),
                Table("volatility_summary", stats.summary(), "Volatility statistics per measure and form", digits=3,
                      columns={name: (short, None) for name, short in SUMMARY_COLUMNS.items()}))

    def trajectories():
        from irstats.plots.volatility import plot_data, trajectory_grid

        grid = trajectory_grid(result, measures)
        return grid.flat[0], plot_data(grid)

    def summary():
        from irstats.plots.volatility import plot_data, volatility_summary

        axes = volatility_summary(stats, measures)
        return axes[0], plot_data(axes)

    section.add(study.figure("volatility_trajectories", "System means against depth k (log); dark lines: best, "
                             "quartile and worst systems at the largest k; red dashed line: pool depth d",
                             trajectories),
                study.figure("volatility_summary", "τ between each depth's ordering and the deepest one (left); "
                             "pair swaps per step (right)", summary))
    return section


def provenance(study: Study, command, seconds: float) -> Section:
    """How it was made: the exact command, every input file (absolute path, size, SHA-256),
    the settings, seeds and versions."""
    import os

    s = study.settings
    files = input_files(study)
    settings = {
        "qrels": files.filter(pl.col("role") == "qrels")["path"][0] if files.height else study.qrels_path,
        **({"qrels B": os.path.abspath(s.qrels_b)} if s.qrels_b else {}),
        **({"reproduction": "; ".join(f"{os.path.abspath(o)} → {os.path.abspath(r)}" for o, r in zip(*s.repro))}
           if s.repro else {}),
        "runs": f"{(files['role'] == 'run').sum()} run file(s), listed with their SHA-256 above",
        "working directory": os.getcwd(),
        "measures": ", ".join(s.measures),
        "reference systems": "all" if s.reference is None else ", ".join(s.reference),
        "quick": str(s.quick),
        "seed": str(s.seed),
        "split-half halvings": str(s.effort.split_half_halvings),
        "predictive-power halvings": str(s.effort.predictive_halvings),
        **({"bootstrap resamples (agreement)": str(s.effort.bootstrap_resamples)} if s.qrels_b else {}),
        "figures": "drawn" if s.effort.figures else "none",
        "significance test": f"{s.test}, Holm, alpha {s.alpha:g}",
        "epsilon (εGM)": f"{s.epsilon:g}",
        **{f"option {k}": str(v) for k, v in s.options.items()},
        **{f"version {k}": v for k, v in environment().items()},
        "seconds": f"{seconds:.1f}",
    }
    table = pl.DataFrame({"setting": list(settings), "value": list(settings.values())})
    section = Section("How it was made", "provenance")
    section.add(Text(f"Command: `{command_line(command, study.call)}`"),
                Table("inputs", files, "Input files: absolute path, size in bytes and SHA-256 of the bytes read",
                      fold=False),
                Table("provenance", table, "Settings, seeds and versions"))
    return section


#: Marks a mean significantly below the measure's best system (Holm-adjusted), in the leaderboard.
WORSE_THAN_BEST = "†"


def leaderboard(study: Study, built: list[Section]) -> Section:
    """The opening section: what the study found, systems × measures (mean, 95% interval, and a
    marker when significantly different from the baseline — by default, † when significantly below
    the measure's best system) and every warning, read from the tables and notes the other sections
    made — it computes nothing of its own, so it cannot disagree with them.

    Its LaTeX comes in two forms: ``leaderboard.tex``, page-wide floats (mean ± the interval's
    half-width per measure, split into several floats where the measures or the rows would not
    fit at 7 in without shrinking the text), and ``leaderboard-column.tex``, the means alone with
    their markers, for a 3.33 in column."""
    from irstats.stats.compare import marker

    tables = {b.name: b.frame for section in built for b in section.blocks if isinstance(b, Table)}
    means = tables["system_means"]
    first = study.measures[0]
    settings = study.settings
    baseline = settings.baselines[0] if settings.baselines else None
    if baseline is not None:
        means = means.filter(pl.col("baseline") == baseline)
    order = means.filter(pl.col("measure") == first).sort("mean", descending=True,
                                                          maintain_order=True)["system"].to_list()
    data: dict[str, list] = {"system": order}
    shown: dict[str, list] = {"system": order}
    paper: dict[str, list] = {"system": order}
    column: dict[str, list] = {"system": order}

    def mark(row) -> str:
        if baseline is None:
            return WORSE_THAN_BEST if row["significant"] == "yes" else ""
        return marker(row["p_holm"], settings.alpha) if row["p_holm"] is not None else ""

    for measure in study.measures:
        rows = {r["system"]: r for r in means.filter(pl.col("measure") == measure).iter_rows(named=True)}
        data[measure] = [rows[s]["mean"] for s in order]
        data[f"{measure} ci_low"] = [rows[s]["ci_low"] for s in order]
        data[f"{measure} ci_high"] = [rows[s]["ci_high"] for s in order]
        if baseline is None:
            data[f"{measure} vs best"] = [_versus_best(rows[s]) for s in order]
        else:
            data[f"{measure} vs {baseline}"] = [_versus_baseline(rows[s]) for s in order]
        marks = [mark(rows[s]) for s in order]
        shown[measure] = [f"{rows[s]['mean']:.3f} [{rows[s]['ci_low']:.3f}, {rows[s]['ci_high']:.3f}]"
                          + (f"^{m}" if m else "") for s, m in zip(order, marks)]
        paper[measure] = [f"{rows[s]['mean']:.3f}" + (f"^{m}" if m else "")
                          + _half_width(rows[s]) for s, m in zip(order, marks)]
        column[measure] = [f"{rows[s]['mean']:.3f}" + (f"^{m}" if m else "") for s, m in zip(order, marks)]
    section = Section("Leaderboard and findings", "leaderboard")
    trades = traded(settings.effort, agreement=settings.qrels_b is not None)
    if trades:  # said first: every number below is read with it
        what = "Quick report (`--quick`)" if settings.quick else "Traded for time"
        section.add(Text(f"{what}: {listing(trades, limit=len(trades), sep='; ')}. Every other number is the full "
                         "report's" + (" (run without `--quick` for it)." if settings.quick else ".")))
    from irstats.stats.pairwise import TESTS

    test = TESTS[settings.test].label
    if baseline is None:
        section.add(Text(f"What the study found (each measure's best system is tested against every other by a "
                         f"two-sided {test}, Holm-adjusted, α = {settings.alpha:g}):"))
        markers = (f"{WORSE_THAN_BEST} significantly below the measure's best system ({test}, Holm, "
                   f"α = {settings.alpha:g})")
    else:
        section.add(Text(f"What the study found (every system is tested against the baseline {baseline} by a "
                         f"two-sided {test}, Holm-adjusted, α = {settings.alpha:g}):"))
        markers = (f"* significantly different from the baseline {baseline} ({test}, Holm, p < {settings.alpha:g}), "
                   f"† p < {settings.alpha / 5:g}")

    def caption(cells: str) -> str:  # the leaderboard's caption, for what its cells show
        return f"Systems by {first}: {cells} per measure; {markers}"

    section.add(Items(findings(study, tables)))
    section.add(Table("leaderboard", pl.DataFrame(data), caption("mean [95% t-interval]"), display=pl.DataFrame(shown),
                      markers=True, fold=False, paper=pl.DataFrame(paper),
                      paper_caption=caption("mean ± half-width of the 95% t-interval"),
                      column=pl.DataFrame(column), column_caption=caption("mean")))
    notes = [(b.text, s) for s in built for b in s.blocks if isinstance(b, Note)]  # each once (see drop_repeated_notes)
    if notes:
        section.add(Text(f"{len(notes)} warning(s), each also in the section it concerns:"),
                    *(Note(f"{text} (In [{s.title}](#{s.anchor}).)") for text, s in notes))
    else:
        section.add(Text("No warnings were raised."))
    return section


def _half_width(row: dict) -> str:
    """`` ± h``: half the width of the (symmetric) t-interval, or nothing where it is undefined."""
    half = (row["ci_high"] - row["ci_low"]) / 2
    return f" ± {half:.3f}" if math.isfinite(half) else ""


def _versus_best(row: dict) -> str:
    if row["significant"] == "":
        return "best"
    return "worse" if row["significant"] == "yes" else "not significantly different"


def _versus_baseline(row: dict) -> str:
    if row["significant"] == "":
        return "baseline"
    if row["significant"] != "yes":
        return "not significantly different"
    return "better" if row["delta"] > 0 else "worse"


def findings(study: Study, tables: dict[str, pl.DataFrame]) -> list[str]:
    """What the study found, one sentence with its numbers each, read from the sections' tables:
    the collection, the best system per measure and how many it beats, the most and least
    consistent aggregation, the robustness to the scale and the volatility over depth."""
    s = study.settings
    out = []
    summary = tables.get("collection_summary")
    if summary is not None:
        q = dict(zip(summary["quantity"], summary["value"]))
        out.append(f"The collection: {q['topics']} topics and {q['runs']} runs; {q['relevant documents']} of the "
                   f"{q['judged documents']} judged documents are relevant (grade ≥ {s.options['rel_level']}), "
                   f"{q['relevant per topic (median)']} per topic at the median.")
    means = tables["system_means"]
    for baseline in s.baselines:
        for measure in study.measures:
            rows = means.filter((pl.col("measure") == measure) & (pl.col("baseline") == baseline))
            base = rows.filter(pl.col("system") == baseline).row(0, named=True)
            tested = rows.filter(pl.col("significant") != "")
            better = tested.filter((pl.col("significant") == "yes") & (pl.col("delta") > 0)).height
            worse = tested.filter((pl.col("significant") == "yes") & (pl.col("delta") < 0)).height
            out.append(f"{measure}: against the baseline {baseline} ({base['mean']:.3f}), {better} of the "
                       f"{tested.height} other systems are significantly better and {worse} significantly worse; "
                       f"{tested.height - better - worse} are not significantly different from it.")
    for measure in study.measures if not s.baselines else ():
        rows = means.filter(pl.col("measure") == measure)
        best = rows.filter(pl.col("significant") == "")
        if not best.height:
            continue
        top = best.row(0, named=True)
        others = rows.height - 1
        beaten = rows.filter(pl.col("significant") == "yes").height
        out.append(f"{measure}: {top['system']} has the highest mean, {top['mean']:.3f} (95% CI {top['ci_low']:.3f} "
                   f"to {top['ci_high']:.3f}); it is significantly better than {beaten} of the {others} other "
                   f"systems, and {others - beaten} are not significantly different from it.")
    split_half = tables.get("split_half")
    if split_half is not None and split_half.height:
        ranked = split_half.sort("mean")
        low, high = ranked.row(0, named=True), ranked.row(-1, named=True)
        out.append(f"Over {int(high['n'])} random halvings of the topics, {high['measure']} aggregated by "
                   f"{high['method']} orders the systems most consistently (mean split-half τ {high['mean']:.3f}), "
                   f"{low['measure']} by {low['method']} least ({low['mean']:.3f}).")
    scale = tables.get("scale_robustness")
    if scale is not None:
        changed = scale.filter(pl.col("transform") != "raw")
        if changed.height:
            most = changed.sort("change_rate", descending=True).row(0, named=True)
            fewest, most_rate = changed.select(pl.col("change_rate").min().alias("fewest"),
                                               pl.col("change_rate").max().alias("most")).row(0)
            out.append(f"A change of scale (log, logit, ranks, standardized) changes the conclusion of "
                       f"{fewest:.0%} to {most_rate:.0%} of the system "
                       f"pairs; most for {most['measure']} under {most['transform']} ({most['changed']} of "
                       f"{most['pairs']} pairs).")
    volatility = tables.get("volatility_summary")
    if volatility is not None and volatility.height:
        judged = volatility.filter(pl.col("form") == volatility["form"][0]).sort("tau_ref_at_d")
        low, high = judged.row(0, named=True), judged.row(-1, named=True)
        out.append(f"Between the pool depth and the deepest evaluation, the order of the systems changes least by "
                   f"{high['measure']}@k (τ = {high['tau_ref_at_d']:.3f} between the two orders) and most by "
                   f"{low['measure']}@k (τ = {low['tau_ref_at_d']:.3f}), unjudged documents counting as "
                   "non-relevant.")
    return out


def gold_topic_list(gold_topics, qrels_b) -> tuple[str, ...] | None:
    """The gold topics of the PPI section, checked before anything is computed."""
    if gold_topics is None:
        return None
    from irstats.checks import names
    from irstats.errors import ArgumentError

    topics = tuple(str(t) for t in names(gold_topics, "gold_topics", what="topic ids"))
    if qrels_b is None:
        raise ArgumentError("gold_topics goes with qrels_b: the cheap labels (e.g. an LLM's) of every topic, "
                            "the gold ones' labels being qrels'", argument="gold_topics")
    if len(topics) < 2:
        raise ArgumentError("gold_topics: prediction-powered means need at least 2 gold topics", argument="gold_topics")
    return topics


def prediction_powered(study: Study) -> Section | None:
    """Prediction-powered means (METHODS.md §5.8): people's labels (``qrels``) on the gold
    topics, the cheap labels (``qrels_b``) on every topic; each system's mean with its
    interval, beside the gold-only and the cheap-only estimates."""
    gold = study.settings.gold_topics
    if not gold or study.settings.qrels_b is None:
        return None
    import polars as pl

    from irstats.ppi import ppi

    from irstats.io.trec import id_of

    gold_keys = [id_of(t) for t in gold]  # the qrels hold ids as the bytes read
    kept = study.collection.qrels.filter(pl.col("topic").is_in(gold_keys))
    missing = sorted(t for t, key in zip(gold, gold_keys) if key not in set(kept.get_column("topic").unique().to_list()))
    if missing:
        raise InputError(f"gold topic(s) {some(missing)} have no line in the qrels", path=str(study.qrels_path))
    result = ppi(kept, study.settings.qrels_b, study.runs, list(study.measures), alpha=1 - 0.95,
                 **study.settings.options)
    frame = result.to_frame()
    shown = frame.select("measure", "system", "estimate", "ci_low", "ci_high", "gold_estimate", "gold_ci_low",
                         "gold_ci_high", "auto_estimate", "n_effective")
    section = Section("Prediction-powered means", "ppi")
    section.add(Text(f"People's labels on {len(gold)} gold topics (qrels A), cheap labels on every topic "
                     f"(qrels B: `{study.settings.qrels_b}`). Each system's mean is estimated from both with "
                     "PPI++ (power-tuned λ, 95% intervals): the cheap labels' mean over all topics, corrected by "
                     "their error on the gold topics. Beside it the gold-only interval and the cheap-only estimate; "
                     "n_effective is the number of gold topics the intervals are worth."),
                Table("ppi_means", shown, result.title))
    return section


def bayes_rope(rope, bayes) -> float | None:
    """The report's ROPE (``--rope``), checked before anything is computed: a number >= 0, and
    only with the Bayesian section."""
    if rope is None:
        return None
    from irstats.stats.bayes import check_rope

    if not bayes:
        raise InputError("--rope (rope=) is the Bayesian section's: give --bayes (bayes=True) too")
    return check_rope(rope)


def bayesian(study: Study) -> Section | None:
    """Bayesian comparison of every system with the baseline (``--baseline``) or else each
    measure's best (``--bayes``): the posterior probabilities that the baseline is better, that
    the two are practically equivalent (within ±ROPE) or that the system is better
    (:func:`irstats.stats.bayes.bayes`)."""
    if not study.settings.bayes:
        return None
    from irstats.stats.bayes import DEFAULT_SAMPLES, bayes

    baseline = study.settings.baselines[0] if study.settings.baselines else None
    whom = f"the baseline {baseline}" if baseline is not None else "the best system"
    results = {m: bayes(study.scores[m], baseline=baseline, rope=study.settings.rope, seed=study.settings.seed)
               for m in study.measures}
    frame = pl.concat([r.frame for r in results.values()])
    first = results[study.measures[0]]
    ropes = ", ".join(f"{m} ±{r.ropes[m]:g}" for m, r in results.items())
    section = Section(f"Bayesian comparison with {whom}", "bayes")
    against = f"the baseline {baseline}" if baseline is not None else "the system with the best mean"
    section.add(Text(f"Per measure, every system against {against}, by the Bayesian signed-rank "
                     f"test (Benavoli et al., ICML 2014; {DEFAULT_SAMPLES:,} Monte-Carlo samples, seed "
                     f"{study.settings.seed}): p_baseline_better is the probability that {whom} is better by "
                     "more than the region of practical equivalence (ROPE), p_rope that the two are practically "
                     "equivalent, p_system_better that the system is better; the interval is the 95% posterior "
                     f"interval of the mean difference system − {'baseline' if baseline else 'best'}. ROPE: {ropes}."),
                Table("bayes", frame, f"Posterior probabilities against {whom}"))
    if first.frame.height:
        corner = "baseline" if baseline is not None else "best"
        section.add(study.figure("bayes_simplex", f"{study.measures[0]}: each system's three probabilities in the "
                                 f"simplex (corners: {corner} better, ROPE, system better)",
                                 lambda: _with_own_data(first.plot_simplex())),
                    study.figure("bayes_posterior", f"{study.measures[0]}: posterior of the mean difference of the "
                                 f"closest system to the {corner}, ROPE shaded",
                                 lambda: _with_own_data(first.plot_posterior())))
    return section


#: Stages computed before the others, though the page shows them later: the volatility
#: section's figures take longest to write as PDF, so they are drawn first, while the other
#: sections compute, rather than last, when the report would wait for them.
COMPUTED_FIRST = ("volatility",)

STAGES: list[tuple[str, SectionBuilder]] = [
    ("collection", collection),
    ("systems", systems),
    ("risk", risk),
    ("agreement", agreement),
    ("prediction-powered means", prediction_powered),
    ("reproduction", reproduction),
    ("bayesian comparison", bayesian),
    ("aggregation", aggregation),
    ("standardization", standardization),
    ("predictive power", predictive),
    ("scale", scale),
    ("volatility", volatility),
]
