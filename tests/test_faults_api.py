"""Fault suite, the Python API: every misuse of a public function raises an IrstatsError that
names the argument and what it accepts — never a raw numpy, polars or Python exception from
deep inside. Bad values are :class:`ArgumentError` (also ``ValueError``), wrong kinds of
value :class:`ArgumentTypeError` (also ``TypeError``), names a result does not hold
:class:`NotFoundError` (also ``KeyError``); all are :class:`InputError`, so the command line
reports them as bad input (exit 2).

One test (or one parametrised group) per class found by the API fault sweep:
- text where scores are expected (aggregate, the tests, ScoreMatrix) ... test_text_as_scores
- an unknown score-file format ....................................... test_read_scores_unknown_format
- a pandas run whose system column holds None ........................ test_null_system_in_a_pandas_run
- a polars LazyFrame as qrels or run ................................. test_lazyframe_as_qrels_or_run
- a list (or struct) column as ids or scores ......................... test_nested_column_in_a_frame
- a dict run with text scores ........................................ test_dict_run_with_text_scores
- null docnos in a run frame (and a null docno never counts) ........ test_null_docno_in_a_run_frame
- seeds: one rule for every experiment, checked on entry ............. test_every_experiment_checks_its_seed
- names of tests, corrections, methods, designs … .................... test_unknown_or_mistyped_names
- counts (resamples, splits, partitions, batches, ddof, depths) ...... test_counts_are_whole_numbers
- levels and tolerances (alpha, confidence, epsilon, top …) ......... test_levels_are_numbers_in_range
- options of evaluate that do not exist .............................. test_unknown_evaluate_option
- qrels and runs of the wrong kind, empty lists ...................... test_qrels_and_runs_of_the_wrong_kind
- a ScoreMatrix expected, something else given ....................... test_score_matrix_expected
- names a result does not hold ....................................... test_names_not_found
- shapes that do not fit ............................................. test_shapes_that_do_not_fit
- file names of the wrong type ....................................... test_paths_of_the_wrong_type
- empty and NaN-only inputs give NaN, not an exception ............... test_empty_and_nan_only_inputs
- any argument of the API replaced by a bad value .................... test_every_argument_refuses_bad_values_cleanly
- evaluate(measures=None or 5): still raw (evaluate.py, strict xfail) . test_evaluate_measures_of_the_wrong_kind
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

import irstats
import irstats.depth
import irstats.diversity
import irstats.io
import irstats.meta.comparability
import irstats.meta.correlation
import irstats.meta.predictive
import irstats.meta.robustness
import irstats.meta.splithalf
import irstats.meta.splits
import irstats.meta.transforms
import irstats.preferences
import irstats.random
import irstats.standardize
import irstats.stats.anova
import irstats.stats.risk
import irstats.stats.topicset
from irstats import ArgumentError, ArgumentTypeError, InputError, IrstatsError, NotFoundError, ScoreMatrix
from irstats import aggregate as agg
from irstats import stats

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"e1": 1, "e2": 0}}
RUNS = {"a": {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"e1": 1.0}}, "b": {"q1": {"d3": 3.0}, "q2": {"e2": 1.0}}}
QRELS_FRAME = pl.DataFrame({"topic": ["q1", "q1", "q1"], "docno": ["d1", "d2", "d3"], "rel": [1, 0, 2]})
RUN_FRAME = pl.DataFrame({"topic": ["q1", "q1"], "docno": ["d1", "d2"], "score": [2.0, 1.0]})
A = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
B = [0.2, 0.2, 0.1, 0.5, 0.4, 0.7]
TEXT = np.array([["a", "b", "c"], ["d", "e", "f"]])


def matrix(systems=4, topics=6, measure="AP", seed=0) -> ScoreMatrix:
    values = np.random.default_rng(seed).random((systems, topics))
    return ScoreMatrix(values, tuple(f"s{i}" for i in range(systems)), tuple(f"t{j}" for j in range(topics)),
                       measure)


def misuse(call, argument: str, kind: type[Exception] = ValueError, *words: str) -> IrstatsError:
    """``call()`` raises an IrstatsError that is also ``kind``, names ``argument`` (in its message,
    and as ``.argument`` when it is an ArgumentError) and says each of ``words``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(IrstatsError) as info:
            call()
    error = info.value
    assert isinstance(error, InputError), type(error).__mro__
    assert isinstance(error, kind), (type(error).__mro__, str(error))
    assert argument in str(error), (argument, str(error))
    if isinstance(error, ArgumentError):
        assert error.argument == argument, (error.argument, argument, str(error))
    for word in words:
        assert word in str(error), (word, str(error))
    assert "\n" not in str(error), str(error)
    return error


def evaluate(qrels, runs, measures=("AP", "num_ret"), **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return irstats.evaluate(qrels, runs, list(measures), **options)


# ----------------------------------------------------------------------------- text as scores


@pytest.mark.parametrize("call, argument", [
    (lambda: agg.aggregate(TEXT, "am"), "matrix"),
    (lambda: agg.aggregate(["a", "b"], "am"), "matrix"),
    (lambda: stats.paired_t(["a"] * 6, B), "a"),
    (lambda: stats.paired_t(A, np.array(["x"] * 6)), "b"),
    (lambda: stats.wilcoxon(A, [None, "b", 1, 2, 3, 4]), "b"),
    (lambda: stats.randomization_test(["a"] * 6, B), "a"),
    (lambda: stats.bootstrap_test(["a"] * 6, B), "a"),
    (lambda: stats.two_sample_t(["a"], B), "x"),
    (lambda: stats.t_interval(["a", "b"]), "x"),
    (lambda: stats.holm(["0.01"]), "pvalues"),
    (lambda: stats.pairwise(TEXT), "scores"),
    (lambda: stats.tukey_hsd(TEXT), "scores"),
    (lambda: ScoreMatrix(TEXT, ("a", "b"), ("1", "2", "3"), "AP"), "values"),
    (lambda: stats.paired_t(np.array(A) + 1j, B), "a"),  # complex: the imaginary part is never dropped
    (lambda: irstats.meta.correlation.kendall_tau_b(["a", "b"], [1, 2]), "x"),
    (lambda: irstats.depth.total_variation(TEXT), "means"),
    (lambda: irstats.stats.risk.zrisk(TEXT), "matrix"),
])
def test_text_as_scores(call, argument):
    error = misuse(call, argument, TypeError, "must hold numbers")
    assert isinstance(error, ArgumentTypeError) and isinstance(error, ValueError)  # numpy raised ValueError


# ----------------------------------------------------------------------------- score files


def test_read_scores_unknown_format(tmp_path):
    path = tmp_path / "scores.tsv"
    irstats.write_scores(matrix(), path)
    misuse(lambda: irstats.read_scores(path, fmt="xml"), "fmt", ValueError, "xml", "tsv")
    misuse(lambda: irstats.read_scores(path, fmt=3), "fmt", TypeError)
    assert set(irstats.read_scores(path, fmt="TSV")) == {"AP"}  # a format name in capitals is the same format
    misuse(lambda: irstats.write_scores(matrix(), None, "xml"), "fmt", ValueError, "jsonl")


# ----------------------------------------------------------------------------- frames


def test_null_system_in_a_pandas_run():
    for systems, row in (([None, None], 1), (["a", None], 2)):
        run = pd.DataFrame({"topic": ["q1", "q1"], "docno": ["d1", "d2"], "score": [1.0, 2.0], "system": systems})
        misuse(lambda run=run: evaluate(QRELS, run), "runs", ValueError, "'system'", f"row {row}")


@pytest.mark.parametrize("which", ["qrels", "runs"])
def test_lazyframe_as_qrels_or_run(which):
    qrels = QRELS_FRAME.lazy() if which == "qrels" else QRELS_FRAME
    runs = RUN_FRAME.lazy() if which == "runs" else RUN_FRAME
    misuse(lambda: evaluate(qrels, runs), which, TypeError, "LazyFrame", ".collect()")
    misuse(lambda: evaluate(QRELS_FRAME, {"r": RUN_FRAME.lazy()}), "runs", TypeError, "run 'r'", ".collect()")


@pytest.mark.parametrize("which, column, value", [
    ("runs", "docno", [["d1"], ["d2"]]),
    ("runs", "score", [[1.0], [2.0]]),
    ("runs", "topic", [{"id": 1}, {"id": 1}]),
    ("runs", "rank", [[1], [2]]),
    ("runs", "system", [["a"], ["a"]]),
    ("qrels", "rel", [[1], [0], [2]]),
    ("qrels", "docno", [["d1"], ["d2"], ["d3"]]),
])
def test_nested_column_in_a_frame(which, column, value):
    frame = (RUN_FRAME if which == "runs" else QRELS_FRAME).with_columns(pl.Series(column, value))
    qrels, runs = (QRELS_FRAME, frame) if which == "runs" else (frame, RUN_FRAME)
    misuse(lambda: evaluate(qrels, runs), which, TypeError, f"column {column!r}")


@pytest.mark.parametrize("runs, where", [
    ({"q1": {"d1": "high"}}, "run dict"),
    ({"r": {"q1": {"d1": "x"}}}, "run 'r'"),
    ({"q1": {"d1": "1.5"}}, "run dict"),  # text that reads as a number is text all the same
    ({"q1": {"d1": None}}, "run dict"),
    ({"q1": {"d1": [1.0]}}, "run dict"),
    ([("q1", "d1", "x")], "run records"),
])
def test_dict_run_with_text_scores(runs, where):
    misuse(lambda: evaluate(QRELS, runs), "runs", ValueError, where, "scores must be numbers", "'q1'", "'d1'")


def test_null_docno_in_a_run_frame():
    two = pl.DataFrame({"topic": ["q1", "q1", "q1"], "docno": ["d1", None, None], "score": [3.0, 2.0, 1.0]})
    misuse(lambda: evaluate(QRELS, two), "runs", ValueError, "'docno'", "row 2")
    # pandas: a None docno was a retrieved document (NumRet 2 here); it is an error naming its row
    one = pd.DataFrame({"topic": ["q1", "q1"], "docno": [None, "d1"], "score": [3.0, 2.0]})
    misuse(lambda: evaluate(QRELS, one), "runs", ValueError, "'docno'", "row 1")
    nan_topic = pd.DataFrame({"topic": ["q1", np.nan], "docno": ["d2", "d1"], "score": [3.0, 2.0]})
    misuse(lambda: evaluate(QRELS, nan_topic), "runs", ValueError, "'topic'", "row 2")
    qrels = pl.DataFrame({"topic": ["q1", None], "docno": ["d1", "d2"], "rel": [1, 0]})
    misuse(lambda: evaluate(qrels, RUN_FRAME), "qrels", ValueError, "'topic'", "row 2")
    # the same run without the null row scores as before: nothing else changed
    good = pd.DataFrame({"topic": ["q1"], "docno": ["d1"], "score": [2.0]})
    assert evaluate(QRELS, good)["NumRet"].values.tolist() == [[1.0]]


# ----------------------------------------------------------------------------- seeds


def _experiments(tmp_path):
    from irstats.demo import make_demo_collection
    from irstats.meta import comparability, predictive, robustness, splithalf, splits
    from irstats.stats.effects import bootstrap_mean_intervals

    m, ms = matrix(), {"AP": matrix(), "P@10": matrix(measure="P@10", seed=1)}
    halvings = splits.random_halvings(m.topics, 5)
    sweep = irstats.depth.depth_sweep(QRELS, RUNS, ["AP"], depths=[1, 2])
    return {
        "randomization_test": lambda seed: stats.randomization_test(A, B, seed=seed),  # exact: no draw, still checked
        "randomization_test (Monte Carlo)": lambda seed: stats.randomization_test(A * 5, B * 5, 100, seed=seed),
        "bootstrap_test": lambda seed: stats.bootstrap_test(A, B, 100, seed=seed),
        "pairwise paired_t": lambda seed: stats.pairwise(m, "paired_t", seed=seed),
        "pairwise bootstrap": lambda seed: stats.pairwise(m, "bootstrap", 50, seed=seed),
        "tukey_hsd": lambda seed: stats.tukey_hsd(m, 50, seed=seed),
        "discriminative_power": lambda seed: stats.discriminative_power(m, seed=seed),
        "compare": lambda seed: stats.compare(m, seed=seed),
        "bootstrap_mean_intervals": lambda seed: bootstrap_mean_intervals([A], 100, seed=seed),
        "split_half": lambda seed: splithalf.split_half(m, n_splits=5, seed=seed),
        "split_half (given splits)": lambda seed: splithalf.split_half(m, splits=halvings, seed=seed),
        "predictive_power": lambda seed: predictive.predictive_power(ms, n_splits=5, seed=seed, by=None),
        "predictive_curve": lambda seed: predictive.predictive_curve(ms, sizes=[2], n_splits=5, seed=seed, by=None),
        "random_halvings": lambda seed: splits.random_halvings(10, 5, seed=seed),
        "random_subsets": lambda seed: splits.random_subsets(10, [2], 5, seed=seed),
        "halving_permutations": lambda seed: comparability.halving_permutations(10, 5, seed=seed),
        "randomized_baseline": lambda seed: comparability.randomized_baseline(m, 5, 5, seed=seed),
        "standardization_robustness": lambda seed: robustness.standardization_robustness(m, sizes=[2],
                                                                                         n_samples=5, seed=seed),
        "volatility": lambda seed: irstats.depth.volatility(sweep, seed=seed),
        "pairwise_p_values": lambda seed: irstats.depth.pairwise_p_values(np.ones((2, 3, 2)), "bootstrap",
                                                                         n_resamples=5, seed=seed),
        "generator": lambda seed: irstats.random.generator(seed),
        "seed_label": lambda seed: irstats.random.seed_label(seed),
        "fixed_seed": lambda seed: irstats.random.fixed_seed(seed),
        "make_demo_collection": lambda seed: make_demo_collection(tmp_path / "demo", seed=seed, n_topics=3,
                                                                  n_runs=2, n_docs=20, run_depth=5, pool_depth=2),
    }


@pytest.mark.parametrize("bad, kind", [("abc", ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError),
                                       ([1], TypeError)])
def test_every_experiment_checks_its_seed(tmp_path, bad, kind):
    """One rule (irstats.random.check_seed) everywhere, on entry: also where no random number
    would be drawn (an exact test, a closed-form test, splits given)."""
    for name, run in _experiments(tmp_path).items():
        error = misuse(lambda: run(bad), "seed", kind)
        assert "whole number" in str(error) or ">= 0" in str(error), (name, str(error))
    assert not (tmp_path / "demo").exists()  # refused before the folder was made
    assert irstats.random.generator("7").random() == irstats.random.generator(7).random()  # text from a command line


# ----------------------------------------------------------------------------- further misuse


@pytest.mark.parametrize("call, argument, kind", [
    (lambda: stats.pairwise(matrix(), test="ttest"), "test", ValueError),
    (lambda: stats.pairwise(matrix(), test=None), "test", TypeError),
    (lambda: stats.compare(matrix(), correction="fdr"), "correction", ValueError),
    (lambda: stats.compare(matrix(), correction=3), "correction", TypeError),
    (lambda: stats.compare(matrix(), test="tukey", correction="holm"), "correction", ValueError),
    (lambda: stats.compare(matrix(), interval="x"), "interval", ValueError),
    (lambda: stats.compare(matrix(), baseline=3), "baseline", TypeError),
    (lambda: stats.compare(matrix(), baseline="nobody"), "baseline", ValueError),
    (lambda: stats.adjust([0.1], None), "method", TypeError),
    (lambda: stats.adjust([0.1], "sidak"), "method", ValueError),
    (lambda: stats.paired_t(A, B, alternative=1), "alternative", TypeError),
    (lambda: agg.aggregate(matrix(), None), "method", TypeError),
    (lambda: agg.aggregate(matrix(), "mode"), "method", ValueError),
    (lambda: agg.aggregate_many(matrix(), 3), "methods", TypeError),
    (lambda: agg.aggregate_many(matrix(), []), "methods", ValueError),
    (lambda: agg.aggregate_many(matrix(), [("egm",)]), "methods", ValueError),
    (lambda: irstats.difficulty.topic_difficulty(matrix(), method=None), "method", ValueError),
    (lambda: irstats.meta.splithalf.split_half(matrix(), correlation="spearman", n_splits=5), "correlation",
     ValueError),
    (lambda: irstats.meta.splithalf.split_half(matrix(), nan_policy="skip", n_splits=5), "nan_policy", ValueError),
    (lambda: irstats.meta.splithalf.split_half(matrix(), methods=3, n_splits=5), "methods", TypeError),
    (lambda: irstats.stats.topicset.power(10, 0.1, 0.01, design="z"), "design", ValueError),
    (lambda: irstats.stats.anova.anova(matrix(), design=2), "design", TypeError),
    (lambda: irstats.standardize.standardized_name("AP", form="x"), "form", ValueError),
    (lambda: irstats.depth.depth_sweep(QRELS, RUNS, 3), "measures", TypeError),
    (lambda: irstats.io.read_qrels(QRELS_FRAME, on_duplicate="keep"), "on_duplicate", ValueError),
    (lambda: irstats.io.read_qrels(QRELS_FRAME, labels="int"), "labels", ValueError),
])
def test_unknown_or_mistyped_names(call, argument, kind):
    misuse(call, argument, kind)


@pytest.mark.parametrize("call, argument, kind", [
    (lambda: stats.bootstrap_test(A, B, n_resamples=-1), "n_resamples", ValueError),
    (lambda: stats.bootstrap_test(A, B, n_resamples=1.5), "n_resamples", TypeError),
    (lambda: stats.randomization_test(A, B, n_resamples=-1, exact=True), "n_resamples", ValueError),
    (lambda: stats.randomization_test(A, B, n_resamples="100"), "n_resamples", TypeError),
    (lambda: stats.pairwise(matrix(), n_resamples=0), "n_resamples", ValueError),
    (lambda: stats.tukey_hsd(matrix(), n_resamples=-5), "n_resamples", ValueError),
    (lambda: stats.bootstrap_test(A, B, 10, batch_size="x"), "batch_size", TypeError),
    (lambda: stats.randomization_test(A * 5, B * 5, 10, batch_size=0), "batch_size", ValueError),
    (lambda: irstats.meta.splithalf.split_half(matrix(), n_splits=-1), "n_splits", ValueError),
    (lambda: irstats.meta.splithalf.split_half(matrix(), n_splits=5, batch_size="x"), "batch_size", TypeError),
    (lambda: irstats.meta.splits.random_halvings(2.5, 5), "topics", TypeError),
    (lambda: irstats.meta.splits.random_subsets(10, ["x"], 5), "sizes", TypeError),
    (lambda: irstats.meta.comparability.halving_permutations(10, -1), "count", ValueError),
    (lambda: irstats.meta.comparability.randomized_baseline(matrix(), n_partitions=-1), "n_partitions", ValueError),
    (lambda: irstats.meta.robustness.standardization_robustness(matrix(), sizes="x"), "sizes", TypeError),
    (lambda: irstats.difficulty.topic_difficulty(matrix(), ddof="x"), "ddof", TypeError),
    (lambda: irstats.stats.topicset.power("10", 0.1, 0.01), "n", TypeError),
    (lambda: irstats.stats.topicset.power(-1, 0.1, 0.01), "n", ValueError),
    (lambda: irstats.depth.default_depths(None, grid=["x"]), "grid", TypeError),
    (lambda: irstats.depth.depth_sweep(QRELS, RUNS, ["AP"], depths=[1.5]), "depths", TypeError),
    (lambda: irstats.depth.tau_reference(np.ones((2, 3)), ref=10), "ref", ValueError),
    (lambda: irstats.preferences.evaluate_preferences(QRELS_FRAME, RUNS, depth="x", from_qrels=True), "depth",
     TypeError),
    (lambda: evaluate(QRELS, RUNS, depth=-1), "depth", ValueError),
])
def test_counts_are_whole_numbers(call, argument, kind):
    misuse(call, argument, kind)


@pytest.mark.parametrize("call, argument, kind", [
    (lambda: stats.paired_t(A, B, confidence="0.9"), "confidence", TypeError),
    (lambda: stats.t_interval(A, confidence=None), "confidence", TypeError),
    (lambda: stats.compare(matrix(), confidence=5), "confidence", ValueError),
    (lambda: stats.compare(matrix(), alpha="x"), "alpha", TypeError),
    (lambda: stats.discriminative_power(matrix(), alpha=2), "alpha", ValueError),
    (lambda: agg.aggregate(matrix(), "egm", epsilon="x"), "epsilon", TypeError),
    (lambda: agg.aggregate_many(matrix(), ["egm"], epsilon=-1), "epsilon", ValueError),
    (lambda: irstats.meta.splithalf.split_half(matrix(), n_splits=5, tie_rtol="x"), "tie_rtol", TypeError),
    (lambda: irstats.meta.splithalf.split_half(matrix(), n_splits=5, low_threshold="x"), "low_threshold",
     TypeError),
    (lambda: irstats.meta.splithalf.epsilon_sweep(matrix(), epsilons=["x"], n_splits=5), "epsilons", TypeError),
    (lambda: irstats.meta.predictive.predictive_power([matrix()], n_splits=5, top="x"), "top", TypeError),
    (lambda: irstats.meta.comparability.randomized_baseline(matrix(), 5, 5, alpha="x"), "alpha", TypeError),
    (lambda: irstats.meta.robustness.standardization_robustness(matrix(), quantiles=["x"]), "quantiles",
     TypeError),
    (lambda: irstats.meta.transforms.transform_robustness(matrix(), epsilon="x"), "epsilon", TypeError),
    (lambda: irstats.meta.correlation.kendall_tau_b([1, 2], [1, 2], tie_rtol="x"), "tie_rtol", TypeError),
    (lambda: irstats.stats.risk.risk(matrix(), "s0", alpha="x"), "alpha", TypeError),
    (lambda: irstats.stats.topicset.power(10, 0.1, "x"), "variance", TypeError),
    (lambda: irstats.diversity.evaluate_diversity(QRELS, RUNS, alpha="x"), "alpha", TypeError),
    (lambda: evaluate(QRELS, RUNS, rel_level="2"), "rel_level", ValueError),
])
def test_levels_are_numbers_in_range(call, argument, kind):
    misuse(call, argument, kind)


def test_unknown_evaluate_option():
    error = misuse(lambda: evaluate(QRELS, RUNS, rel_levle=2), "rel_levle", TypeError, "did you mean rel_level")
    assert "depth" in str(error)  # the options are listed
    misuse(lambda: irstats.depth.depth_sweep(QRELS, RUNS, ["AP"], foo=1), "foo", TypeError)
    misuse(lambda: irstats.EvalOptions(ties=["docno"]), "ties", ValueError)


@pytest.mark.parametrize("qrels, runs, argument, kind", [
    (None, RUNS, "qrels", TypeError),
    (5, RUNS, "qrels", TypeError),
    ([], RUNS, "qrels", ValueError),
    (QRELS, None, "runs", TypeError),
    (QRELS, 5, "runs", TypeError),
    (QRELS, [1, 2], "runs", TypeError),
    (QRELS, [], "runs", ValueError),
])
def test_qrels_and_runs_of_the_wrong_kind(qrels, runs, argument, kind):
    misuse(lambda: evaluate(qrels, runs), argument, kind)


@pytest.mark.parametrize("call, argument", [
    (lambda: agg.check_complete(np.ones((2, 2))), "matrix"),
    (lambda: agg.aggregate_many(np.ones((2, 2)), ["am"]), "scores"),
    (lambda: stats.compare("AP"), "scores"),
    (lambda: stats.compare([matrix(), "AP"]), "scores"),
    (lambda: stats.pairwise({"AP": matrix()}), "scores"),
    (lambda: irstats.write_scores(None, None), "matrices"),
    (lambda: irstats.difficulty.topic_difficulty(np.ones((2, 2))), "matrix"),
    (lambda: irstats.stats.anova.anova(np.ones((3, 3))), "matrix"),
    (lambda: irstats.stats.risk.risk(np.ones((2, 2)), "a"), "matrix"),
    (lambda: irstats.meta.transforms.transform_robustness(np.ones((2, 2))), "matrix"),
    (lambda: irstats.standardize.standardize(None), "scores"),
    (lambda: irstats.standardize.apply_factors(matrix(), None), "factors"),
    (lambda: irstats.standardize.write_factors(None, None), "factors"),
    (lambda: irstats.depth.volatility(None), "result"),
    (lambda: ScoreMatrix.from_frame(RUN_FRAME.lazy()), "frame"),
    (lambda: ScoreMatrix(np.ones((1, 1)), None, ("t",), "AP"), "systems"),
])
def test_score_matrix_expected(call, argument):
    misuse(call, argument, TypeError)


def test_names_not_found():
    m = matrix()
    for call, argument in ((lambda: m.system("nobody"), "name"), (lambda: m.subset(["s0", "nobody"]), "systems"),
                           (lambda: m.subset(topics=["t9"]), "topics"),
                           (lambda: agg.aggregate(m, "am")["nobody"], "system"),
                           (lambda: stats.pairwise(m).p("s0", "nobody"), "name")):
        error = misuse(call, argument, KeyError, "nobody" if argument != "topics" else "t9")
        assert isinstance(error, NotFoundError) and isinstance(error, ValueError)
        assert not str(error).startswith(("'", '"'))  # a message, not a KeyError repr


@pytest.mark.parametrize("call, argument", [
    (lambda: ScoreMatrix(np.zeros((2, 2)), ("a",), ("1", "2"), "AP"), "values"),
    (lambda: stats.paired_t(A, B[:3]), "b"),
    (lambda: stats.paired_t([[0.1, 0.2], [0.1]], B), "a"),
    (lambda: agg.aggregate(np.ones((2, 2, 2)), "am"), "matrix"),
    (lambda: irstats.meta.correlation.kendall_tau_b([1, 2, 3], [1, 2]), "y"),
    (lambda: irstats.meta.comparability.rmse_rows(np.ones(2), np.ones(3)), "m2"),
    (lambda: irstats.depth.overturn_rates(np.ones((2, 3)), np.ones((2, 2))), "delta"),
])
def test_shapes_that_do_not_fit(call, argument):
    misuse(call, argument, ValueError)


@pytest.mark.parametrize("call", [
    lambda: irstats.read_scores(None),
    lambda: irstats.read_scores(3),
    lambda: irstats.write_scores(matrix(), 3),
    lambda: matrix().to_jsonl(None),
    lambda: irstats.io.read_run_file(None),
    lambda: irstats.standardize.read_factors(None),
    lambda: irstats.standardize.read_any_factors(None),
    lambda: irstats.standardize.write_factors(irstats.standardize.fit_factors(matrix()), 3),
])
def test_paths_of_the_wrong_type(call):
    misuse(call, "path", TypeError, "file name")


def test_empty_and_nan_only_inputs():
    """No data is not a misuse: NaN (with a warning where irstats warns), never a raw exception."""
    nan = ScoreMatrix(np.full((3, 4), np.nan), ("a", "b", "c"), ("1", "2", "3", "4"), "AP")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(agg.aggregate(nan, "am").values).all()
        assert np.isnan(stats.pairwise(nan).p_value).all()
        assert np.isnan(stats.paired_t([], []).p_value)
        assert np.isnan(stats.randomization_test([np.nan] * 3, [1, 2, 3]).p_value)
        assert np.isnan(float(irstats.meta.correlation.kendall_tau_b([], [])))
        assert np.isnan(float(irstats.meta.correlation.tau_ap([], [])))
        assert stats.holm([]).size == 0
    with pytest.raises(InputError, match="complete topics"):  # Tukey's test needs one topic every system has
        stats.tukey_hsd(nan, n_resamples=10)


# ----------------------------------------------------------------------------- every argument

BAD_VALUES = [None, "abc", -1, 1.5, [], {}, float("nan"), object(), True, ["zz"], np.array([["x"]])]


def _api_calls(tmp_path):
    """(function, valid keyword arguments): each argument in turn is replaced by a bad value."""
    import importlib

    from irstats.depth import pooling
    from irstats.meta import comparability as cp, correlation as cr, predictive as pr, robustness as rb
    from irstats.meta import splithalf as sh, splits as spl, transforms as tf
    from irstats.stats import anova as an, effects as ef, risk as rk, topicset as ts

    compare_module = importlib.import_module("irstats.stats.compare")
    m, ms = matrix(), {"AP": matrix(), "P@10": matrix(measure="P@10", seed=1)}
    x, y = list(np.random.default_rng(2).random(8)), list(np.random.default_rng(3).random(8))
    factors = irstats.standardize.fit_factors(m)
    sweep = irstats.depth.depth_sweep(QRELS, RUNS, ["AP"], depths=[1, 2])
    qrels_file = tmp_path / "q.txt"
    qrels_file.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    return [
        (stats.paired_t, dict(a=x, b=y, alternative="two-sided", confidence=0.95)),
        (stats.wilcoxon, dict(a=x, b=y)),
        (stats.bootstrap_test, dict(a=x, b=y, n_resamples=50, seed=0, confidence=0.95, batch_size=None)),
        (stats.randomization_test, dict(a=x, b=y, n_resamples=50, seed=0, exact=False, batch_size=None)),
        (stats.two_sample_t, dict(x=x, y=y, equal_var=False, alternative="two-sided", confidence=0.95)),
        (stats.t_interval, dict(x=x, confidence=0.95)),
        (stats.adjust, dict(pvalues=[0.1, 0.2], method="holm")),
        (stats.pairwise, dict(scores=m, test="paired_t", n_resamples=20, seed=0, batch_size=None)),
        (stats.tukey_hsd, dict(scores=m, n_resamples=20, seed=0, batch_size=None)),
        (stats.discriminative_power, dict(scores=m, test="paired_t", alpha=0.05, n_resamples=20, seed=0)),
        (stats.compare, dict(scores=ms, baseline=None, test="paired_t", correction=None, alpha=0.05,
                             n_resamples=20, seed=0, interval="t", confidence=0.95)),
        (compare_module.compare_pairs, dict(scores=ms, baselines=None, test="paired_t", alpha=0.05, seed=0)),
        (stats.pairwise(m).significant, dict(alpha=0.05)),
        (stats.paired_t(x, y).significant, dict(alpha=0.05)),
        (agg.aggregate, dict(matrix=m, method="egm", epsilon=None)),
        (agg.aggregate_many, dict(scores=ms, methods=["am"], epsilon=None)),
        (irstats.write_scores, dict(matrices=ms, path=None, fmt="tsv")),
        (irstats.read_scores, dict(path=tmp_path / "none.tsv", fmt=None)),
        (ScoreMatrix.from_frame, dict(frame=m.to_frame(), measure=None)),
        (m.subset, dict(systems=["s0"], topics=None)),
        (irstats.standardize.standardize, dict(matrix_or_scores=m, reference=None, ddof=1, form="cdf")),
        (irstats.standardize.apply_factors, dict(matrix=m, factors=factors, form="cdf", missing="warn")),
        (irstats.standardize.write_factors, dict(factors=factors, path=None)),
        (irstats.difficulty.topic_difficulty, dict(matrix=m, method="max_mean_sd", ddof=1)),
        (an.anova, dict(matrix=m, design="two-way", confidence=0.95)),
        (ts.topics_needed, dict(min_diff=0.1, variance=0.01, design="paired_t", alpha=0.05, beta=0.2)),
        (ts.power, dict(n=10, min_diff=0.1, variance=0.01, design="paired_t", alpha=0.05)),
        (rk.risk, dict(matrix=m, baseline="s0", alpha=1.0)),
        (ef.bootstrap_mean_intervals, dict(values=[x], n_resamples=50, confidence=0.95, method="percentile",
                                           seed=0)),
        (sh.split_half, dict(scores=m, methods=("am",), n_splits=5, seed=0, splits=None, correlation="kendall",
                             difficulty="auto", low_threshold=0.1, batch_size=None)),
        (sh.low_score_share, dict(matrix=m, threshold=0.1)),
        (pr.predictive_power, dict(scores=ms, measures=None, top=0.75, by="AP", n_splits=5, seed=0, splits=None)),
        (cp.randomized_baseline, dict(scores=m, n_partitions=5, n_fp_partitions=5, seed=0, alpha=0.05)),
        (cp.drmse, dict(a=m, b=ms["P@10"], ddof=1)),
        (cp.metric_forms, dict(matrix=m, num_rel=None)),
        (rb.standardization_robustness, dict(matrix=m, standardizing=None, sizes=[2], n_samples=5, seed=0,
                                             quantiles=(0.5,))),
        (rb.factor_longevity, dict(evaluated=m, first=["s0", "s1"], second=["s2", "s3"], systems=None)),
        (rb.correlate_means, dict(first=m, second=ms["P@10"])),
        (tf.transform_robustness, dict(matrix=m, transforms=("raw", "log"), alpha=0.05, epsilon=0.01)),
        (cr.kendall_tau_b, dict(x=x, y=y, nan_policy="propagate", tie_rtol=0.0)),
        (cr.tau_ap, dict(x=x, y=y)),
        (spl.random_halvings, dict(topics=10, n_splits=5, seed=0)),
        (spl.random_subsets, dict(topics=10, sizes=[2], n_splits=5, seed=0)),
        (spl.fixed_split, dict(topics=["a", "b", "c"], first=["a"], second=None)),
        (irstats.depth.volatility, dict(result=sweep, test="paired_t", alpha=0.05, seed=0, tol=1e-12)),
        (irstats.depth.depth_sweep, dict(qrels=QRELS, runs=RUNS, measures=["AP"], contributing=None,
                                         depths=[1, 2], forms=("judged-as-nonrel",))),
        (irstats.depth.sweep, dict(pool=pooling.given_pool(QRELS, RUNS, pool_depth=2), measures=("AP",),
                                   depths=[1, 2], systems=None)),
        (irstats.depth.crossings, dict(means=np.ones((2, 3)), tol=1e-12)),
        (irstats.depth.overturn_rates, dict(p=np.ones((2, 3)), delta=np.ones((2, 3)), alpha=0.05, ref=-1)),
        (irstats.diversity.evaluate_diversity, dict(qrels=QRELS, runs=RUNS, measures=("alpha_nDCG@20",),
                                                    alpha=0.5, beta=0.5)),
        (irstats.preferences.measure_name, dict(name="PrefsSimp")),
        (irstats.io.read_qrels, dict(source=qrels_file, on_duplicate="error", labels="real")),
        (irstats.io.read_trec_eval, dict(source=qrels_file)),
        (irstats.Collection.load, dict(qrels=QRELS, qrels_duplicate="error")),
        (irstats.RunSet.load, dict(runs=RUNS)),
        (irstats.EvalOptions, dict(rel_level=1, depth=1000, order="score", ties="docno", g_max=None)),
        (irstats.evaluate, dict(qrels=QRELS, runs=RUNS)),
    ]


def test_every_argument_refuses_bad_values_cleanly(tmp_path, monkeypatch):
    """Each argument of the functions above, replaced in turn by None, text, a negative or
    fractional number, an empty list or dict, NaN, an object, a bool, a list of an unknown
    name or an array of text: the call works or raises an IrstatsError, never a raw exception."""
    monkeypatch.chdir(tmp_path)  # a path given as "abc" is written here
    raw = []
    for function, arguments in _api_calls(tmp_path):
        for name in arguments:
            for bad in BAD_VALUES:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        function(**{**arguments, name: bad})
                except IrstatsError:
                    pass
                except Exception as exc:  # noqa: BLE001 - what the test is looking for
                    raw.append(f"{getattr(function, '__qualname__', function)}({name}={bad!r:.20}): "
                               f"{type(exc).__name__}: {exc}")
    assert not raw, "\n".join(raw[:20])


@pytest.mark.parametrize("measures", [None, 5])
def test_evaluate_measures_of_the_wrong_kind(measures):
    misuse(lambda: irstats.evaluate(QRELS, RUNS, measures), "measures", TypeError)
