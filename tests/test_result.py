"""Every experiment returns a frozen result with the same methods (issue 11, item 3):
to_frame() (polars), to_pandas(), summary(), to_markdown(), to_latex() and a readable str()."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
import pytest

import irstats
from irstats.aggregate import aggregate
from irstats.demo import make_demo_collection
from irstats.depth import simulate_pool, sweep, volatility
from irstats.difficulty import topic_difficulty
from irstats.meta.comparability import compare_collections, randomized_baseline
from irstats.meta.predictive import predictive_curve, predictive_power
from irstats.meta.robustness import factor_longevity, standardization_robustness
from irstats.meta.splithalf import split_half
from irstats.meta.transforms import transform_robustness
from irstats.result import Result
from irstats.stats import compare, pairwise
from irstats.stats.anova import anova
from irstats.stats.risk import risk
from irstats.stats.topicset import design_topic_set


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return make_demo_collection(tmp_path_factory.mktemp("results"), seed=2, n_topics=12, n_runs=8, n_docs=200,
                                run_depth=60, pool_depth=10)


@pytest.fixture(scope="module")
def scores(demo):
    return irstats.evaluate(demo.qrels, demo.runs, ["AP", "nDCG@10", "P@10"])


def _results(demo, scores):
    ap = scores["AP"]
    systems = list(ap.systems)
    pool = simulate_pool(demo.qrels, demo.runs, 10)
    swept = sweep(pool, ["AP", "nDCG"], depths=[5, 10, 20])
    return {
        "aggregate": aggregate(ap, "egm"),
        "difficulty": topic_difficulty(ap),
        "pairwise": pairwise(ap),
        "compare": compare(scores),
        "split_half": split_half(ap, ["am", "egm"], n_splits=50, seed=0),
        "predictive_power": predictive_power(scores, n_splits=40, seed=0),
        "predictive_curve": predictive_curve(scores, sizes=[2, 4], n_splits=20, seed=0),
        "robustness": standardization_robustness(ap, systems[:6], systems[6:], sizes=[3, 4], n_samples=20, seed=0),
        "longevity": factor_longevity(ap, systems[:4], systems[4:]),
        "baseline": randomized_baseline(ap, n_partitions=20, n_fp_partitions=20, seed=0),
        "collections": compare_collections({"A": ap.subset(None, ap.topics[:6]), "B": ap.subset(None, ap.topics[6:])}),
        "sweep": swept,
        "volatility": volatility(swept, significance=False),
        "risk": risk(ap, systems[0]),
        "anova": anova(ap),
        "topicset": design_topic_set(ap, min_diff=0.05),
        "transforms": transform_robustness(ap),
    }


def test_every_experiment_result_has_the_same_methods(demo, scores):
    import pandas as pd

    for name, result in _results(demo, scores).items():
        assert isinstance(result, Result), name
        assert dataclasses.is_dataclass(result) and type(result).__dataclass_params__.frozen, name
        field = dataclasses.fields(result)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(result, field, None)
        frame = result.to_frame()
        assert isinstance(frame, pl.DataFrame) and frame.height > 0, name
        pandas_frame = result.to_pandas()
        assert isinstance(pandas_frame, pd.DataFrame) and list(pandas_frame.columns) == frame.columns, name
        assert len(pandas_frame) == frame.height
        summary = result.summary() if callable(result.summary) else None
        assert isinstance(summary, pl.DataFrame), name
        markdown = result.to_markdown()
        table_lines = [line for line in markdown.splitlines() if line.startswith("|")]
        shown = result.display_table()
        assert len(table_lines) == len(shown.rows) + 2, name  # header, rule, one line per row
        latex = result.to_latex()
        assert r"\toprule" in latex and r"\bottomrule" in latex, name
        floats = latex.count(r"\begin{table")  # one, or one per part of a long table
        assert floats == latex.count(r"\caption{") == latex.count(r"\label{") >= 1, name
        assert floats == -(-len(shown.rows) // 40) or (floats == 1 and not shown.rows), name
        # one printer: every format of people is laid out from the one display table
        paper = result.paper_table(latex=True)  # the display table less the columns LaTeX shows on request
        assert (result.format("table"), result.format("markdown"), result.format("latex")) == (
            shown.text(), shown.markdown(), paper.latex(label=result.latex_label(paper))), name
        for fmt in ("tsv", "csv", "json"):  # the data only, nothing else
            assert result.format(fmt) == getattr(result, f"to_{fmt}")(), name
            assert "#" not in result.format(fmt).splitlines()[0], name
        text = str(result)
        assert text.strip() and "Traceback" not in text, name


def test_str_shows_title_and_every_column(demo, scores):
    """The default str(): the title, then every column of summary() as a header."""
    result = pairwise(scores["AP"])
    text = str(result)
    assert text.splitlines()[0].startswith(result.title)
    header = text.splitlines()[1]
    for column in result.summary().columns:
        assert column in header




def test_results_and_score_matrices_render_as_valid_html_in_notebooks(demo, scores):
    from html.parser import HTMLParser

    class Checker(HTMLParser):
        """Fails on a closing tag that does not close the innermost open element."""

        VOID = {"br", "hr", "img", "meta", "link", "input", "col"}

        def __init__(self):
            super().__init__()
            self.stack: list[str] = []

        def handle_starttag(self, tag, attrs):
            if tag not in self.VOID:
                self.stack.append(tag)

        def handle_endtag(self, tag):
            assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
            self.stack.pop()

    objects = [scores["AP"], pairwise(scores["AP"]), risk(scores["AP"], scores["AP"].systems[0])]
    for obj in objects:
        text = obj._repr_html_()
        checker = Checker()
        checker.feed(text)
        checker.close()
        assert checker.stack == [] and "<table" in text
    assert scores["AP"].systems[0] in scores["AP"]._repr_html_()


def test_evaluate_returns_an_evaluation_that_shows_itself(reference_data):
    """irstats.evaluate returns one result: still a dict of ScoreMatrix, with labelled means
    (equal to pytrec_eval's on trec_eval's own test files), a notebook table with the best
    value in bold and no dtype row."""
    import pytrec_eval

    import irstats
    from irstats import stats

    te = reference_data / "conformance" / "trec_eval-test"
    scores = irstats.evaluate(te / "qrels.test", te / "results.test", ["AP", "P@5"])
    assert isinstance(scores, irstats.Evaluation) and isinstance(scores["AP"], irstats.ScoreMatrix)
    means = scores.means()
    assert means.columns == ["system", "AP", "P@5"]
    qrels, run = {}, {}
    for line in (te / "qrels.test").read_text().splitlines():
        t, _, d, g = line.split()
        qrels.setdefault(t, {})[d] = int(g)
    for line in (te / "results.test").read_text().splitlines():
        t, _, d, _, s, _ = line.split()
        run.setdefault(t, {})[d] = float(s)
    per_topic = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5"}).evaluate(run)
    assert means["AP"][0] == pytest.approx(np.mean([v["map"] for v in per_topic.values()]), abs=1e-6)
    assert means["P@5"][0] == pytest.approx(np.mean([v["P_5"] for v in per_topic.values()]), abs=1e-6)
    html = scores._repr_html_()
    assert "<b>" in html and "<table>" in html and "dtype" not in html and "str" not in html.split("<table>")[1][:80]
    assert scores.to_pandas().index.name == "system"
    assert scores.per_topic().columns == ["system", "topic", "measure", "value"]


def test_experiment_is_evaluate_and_compare_in_one_call(reference_data):
    """irstats.experiment: the labelled comparison frame of pt.Experiment in one call; its
    p-values (and those of the evaluation's own compare()) are scipy's paired t on the per-topic
    scores; to_latex(columns=) drops columns."""
    from scipy import stats as sps

    base = reference_data / "trec-dl-2019-passage"
    runs = sorted((base / "runs").glob("*.run.gz"))[:4]
    result = irstats.experiment(base / "qrels.dl19-passage.txt", runs, ["AP", "nDCG@10"], correction="none")
    scores = irstats.evaluate(base / "qrels.dl19-passage.txt", runs, ["AP", "nDCG@10"])
    frame = result.to_pandas()
    assert list(frame.columns[:4]) == ["measure", "system", "mean", "delta"] and len(frame) == 8
    for row in frame[~frame["is_baseline"]].itertuples():
        a, b = scores[row.measure].system(row.system), scores[row.measure].system(result.baseline)
        assert row.p_value == pytest.approx(sps.ttest_rel(a, b).pvalue, rel=1e-9)
    # Evaluation.compare: the comparison stats/ registers for an evaluation (irstats.result.provided)
    by_method = scores.compare(baseline=result.baseline, correction="none").to_pandas()
    assert len(by_method) == 8
    for row in by_method[~by_method["is_baseline"]].itertuples():
        a, b = scores[row.measure].system(row.system), scores[row.measure].system(result.baseline)
        assert row.p_value == pytest.approx(sps.ttest_rel(a, b).pvalue, rel=1e-9)
    latex = result.to_latex(columns=["system", "AP", "ΔAP"])
    assert r"\begin{tabular}{lrr}" in latex and "p(" not in latex.split(r"\midrule")[0]
    with pytest.raises(irstats.ArgumentError, match="no column 'nope'"):
        result.to_latex(columns=["nope"])
