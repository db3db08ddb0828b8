"""The study report: every table equals the API that makes it; the page renders in Chromium."""

from __future__ import annotations

import gzip
import math
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tests.conftest import chromium

import irstats
from conftest import run_cli
from irstats.demo import make_demo_collection
from irstats.errors import IrstatsError
from irstats.report import build_report
from irstats.standardize import apply_factors, fit_factors, read_factors
from irstats.stats import compare, t_interval

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)"]
#: The measures the report evaluates beside MEASURES that the tests read.
SUPPORT = ["RBPresid(p=0.8)", "Judged@10", "Judged@100", "Judged@1000", "NumRel"]
report_inputs: dict = {}  # report folder -> (qrels, runs), for tests that recompute a section


def read_table(report, name) -> pl.DataFrame:
    return pl.read_csv(report.out_dir / "tables" / f"{name}.tsv", separator="\t", infer_schema_length=None,
                       schema_overrides={"topic": pl.String, "system": pl.String})


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    """A quick report of a synthetic collection, with the figures --quick leaves out: the
    figure tests read it (quick's resample counts keep it cheap)."""
    base = tmp_path_factory.mktemp("demo")
    demo = make_demo_collection(base / "collection", seed=5)
    report = build_report(demo.qrels, demo.runs, base / "report", quick=True, figures=True, progress=False)
    report_inputs[report.out_dir] = (demo.qrels, demo.runs)
    return demo.qrels, demo.runs, report


@pytest.fixture(scope="module")
def dl19_report(reference_data, tmp_path_factory):
    """The quick report of the DL 2019 runs, as ``irstats report --quick`` makes it (no figures)."""
    base = reference_data / "trec-dl-2019-passage"
    qrels, runs = base / "qrels.dl19-passage.txt", sorted((base / "runs").glob("*.run.gz"))
    report = build_report(qrels, runs, tmp_path_factory.mktemp("dl19") / "report", quick=True, progress=False,
                          rel_level=2)
    report_inputs[report.out_dir] = (qrels, runs)
    return qrels, runs, report


@pytest.fixture(scope="module")
def small_collection(tmp_path_factory):
    """8 topics × 4 runs: a report of it takes little more than the imports."""
    return make_demo_collection(tmp_path_factory.mktemp("small") / "c", seed=1, n_topics=8, n_runs=4, run_depth=50,
                                pool_depth=5)


@pytest.fixture(scope="module")
def dl19_scores(dl19_report):
    """The DL 2019 scores by ``irstats.evaluate``, once for the module."""
    qrels, runs, _ = dl19_report
    return irstats.evaluate(qrels, runs, MEASURES + SUPPORT, rel_level=2)


@pytest.fixture(scope="module", params=["demo", "dl19"])
def built(request, demo_report, dl19_report, dl19_scores):
    if request.param == "dl19":
        return dl19_report[2], dl19_scores, {"rel_level": 2}
    qrels, runs, report = demo_report
    return report, irstats.evaluate(qrels, runs, MEASURES + SUPPORT), {}


def test_outputs_exist(built):
    report, _, _ = built
    for name in ("index.html", "report.md", "factors.tsv"):
        assert (report.out_dir / name).stat().st_size > 0
    html = (report.out_dir / "index.html").read_text()
    assert "http://" not in html and "https://" not in html  # self-contained: nothing to fetch
    for table in report.tables:
        assert (report.out_dir / "tables" / f"{table}.tsv").exists()
        assert f'data-name="{table}"' in html


def test_judged_share_table(built):
    report, scores, _ = built
    table = read_table(report, "judged_share")
    for k in (10, 100, 1000):
        expected = dict(zip(scores[f"Judged@{k}"].systems, scores[f"Judged@{k}"].means()))
        for system, value in zip(table["system"], table[f"judged@{k}"]):
            assert value == pytest.approx(expected[system], abs=1e-12)


def test_system_means_table(built):
    report, scores, _ = built
    table = read_table(report, "system_means")
    for measure in MEASURES:
        rows = table.filter(pl.col("measure") == measure)
        matrix = scores[measure]
        comparison = compare({measure: matrix}, test="paired_t", correction="holm").frame
        p_adjusted = dict(zip(comparison["system"], comparison["p_adjusted"]))
        assert rows.height == len(matrix.systems)
        assert rows["mean"].to_list() == sorted(rows["mean"].to_list(), reverse=True)
        for row in rows.iter_rows(named=True):
            values = matrix.system(row["system"])
            assert row["mean"] == pytest.approx(float(np.nanmean(values)), abs=1e-12)
            interval = t_interval(values[~np.isnan(values)])
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((interval.low, interval.high), abs=1e-12)
            if row["p_holm_vs_best"] is not None:
                assert row["p_holm_vs_best"] == pytest.approx(p_adjusted[row["system"]], abs=1e-12)
                best = matrix.system(rows["system"][0])
                d = values - best
                d = d[~np.isnan(d)]
                sd = d.std(ddof=1)
                # d_z; a constant difference follows METHODS §5.6's rule (0 when it is 0, else ±∞)
                expected_dz = d.mean() / sd if sd > 0 else (0.0 if d.mean() == 0 else math.copysign(math.inf, d.mean()))
                assert row["effect_size_vs_best"] == pytest.approx(expected_dz, abs=1e-12)
        residuals = rows["residual"].to_list()
        if measure.startswith("RBP("):
            resid = scores["RBPresid(p=0.8)"]
            expected = dict(zip(resid.systems, resid.means()))
            assert residuals == pytest.approx([expected[s] for s in rows["system"]], abs=1e-12)


def test_leaderboard(built):
    """Issue 16: the report opens with systems × measures, mean [95% interval] and † for a
    significant loss to the best system — checked against scipy and statsmodels directly."""
    from scipy import stats as sps
    from statsmodels.stats.multitest import multipletests

    report, scores, _ = built
    table = read_table(report, "leaderboard")
    first = scores[MEASURES[0]]
    assert table["system"].to_list() == sorted(first.systems, key=lambda s: -np.nanmean(first.system(s)))
    for measure in MEASURES:
        matrix = scores[measure]
        means = {s: np.nanmean(matrix.system(s)) for s in matrix.systems}
        best = max(means, key=means.get)
        others = [s for s in matrix.systems if s != best]
        p = [sps.ttest_rel(matrix.system(s), matrix.system(best), nan_policy="omit").pvalue for s in others]
        worse = dict(zip(others, multipletests(np.nan_to_num(p, nan=1.0), alpha=0.05, method="holm")[0]))
        for row in table.iter_rows(named=True):
            values = matrix.system(row["system"])
            values = values[~np.isnan(values)]
            assert row[measure] == pytest.approx(values.mean(), abs=1e-12)
            if values.std() > 0:
                low, high = sps.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=sps.sem(values))
                assert (row[f"{measure} ci_low"], row[f"{measure} ci_high"]) == pytest.approx((low, high), abs=1e-10)
            expected = "best" if row["system"] == best else ("worse" if worse[row["system"]]
                                                              else "not significantly different")
            assert row[f"{measure} vs best"] == expected, (measure, row["system"])
    tex = (report.out_dir / "tables" / "leaderboard.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex and "$^{\\dagger}$" in tex
    html = (report.out_dir / "index.html").read_text()
    assert html.index('id="leaderboard"') < html.index('id="collection"')
    assert "<sup>†</sup>" in html


def test_every_table_as_latex(built):
    report, _, _ = built
    for name in report.tables:
        tex = (report.out_dir / "tables" / f"{name}.tex").read_text()
        # a comment naming the packages, then one float per part (tests/test_latex_compile.py compiles them)
        assert tex.startswith("% needs \\usepackage{booktabs}") and "\\begin{table" in tex
        assert "\\midrule" in tex and tex.rstrip().endswith(("\\end{table}", "\\end{table*}"))


#: The figures of a report without a second qrels or a reproduction, in the page's order.
FIGURES = ["system_means", "system_topic_heatmap", "split_half_tau", "score_densities", "predictive_power",
           "scale_robustness", "volatility_trajectories", "volatility_summary"]


def test_every_figure_as_png_pdf_and_csv(demo_report):
    """Each figure of the page is a PNG, the same figure as PDF (drawn by the forked writers,
    one after the other) and its data as CSV; the page shows them in order."""
    _, _, report = demo_report
    folder = report.out_dir / "figures"
    assert sorted(p.stem for p in folder.glob("*.png")) == sorted(FIGURES)
    for name in FIGURES:
        assert (folder / f"{name}.png").read_bytes().startswith(b"\x89PNG")
        assert (folder / f"{name}.pdf").read_bytes().startswith(b"%PDF")
        assert pl.read_csv(folder / f"{name}.csv").height > 0
    html = report.html.read_text()
    assert [html.index(f'<figure data-name="{name}"') for name in FIGURES] == \
        sorted(html.index(f'<figure data-name="{name}"') for name in FIGURES)


def test_standardization_tables(built):
    report, scores, _ = built
    factors = fit_factors({m: scores[m] for m in MEASURES})
    written = read_factors(report.out_dir / "factors.tsv")
    expected = {(t, m): (mu, sd) for t, m, mu, sd in zip(factors.topics, factors.measures, factors.mean, factors.sd)}
    got = {(t, m): (mu, sd) for t, m, mu, sd in zip(written.topics, written.measures, written.mean, written.sd)}
    assert got.keys() == expected.keys()
    for key, (mu, sd) in expected.items():
        assert got[key] == pytest.approx((mu, sd), abs=1e-15, nan_ok=True)
    table = read_table(report, "standardized_means")
    for measure in MEASURES:
        standardized = apply_factors(scores[measure], factors)
        expected = dict(zip(standardized.systems, standardized.means()))
        for row in table.filter(pl.col("measure") == measure).iter_rows(named=True):
            assert row["std_mean"] == pytest.approx(expected[row["system"]], abs=1e-12)


def test_collection_summary(built):
    report, scores, options = built
    table = dict(read_table(report, "collection_summary").iter_rows())
    num_rel = scores["NumRel"]
    assert float(table["runs"]) == len(num_rel.systems)
    per_topic = read_table(report, "relevant_per_topic")
    reference = dict(zip(num_rel.topics, np.nanmax(num_rel.values, axis=0)))
    for topic, relevant in zip(per_topic["topic"], per_topic["relevant"]):
        if topic in reference:
            assert relevant == reference[topic]


def test_failed_stage_leaves_no_report(tmp_path, monkeypatch, demo_report, forked):
    qrels, runs, _ = demo_report
    from irstats.report import sections

    def broken(study):
        raise RuntimeError("boom")

    # systems draws figures (their PDFs in a child process) before the broken stage fails
    monkeypatch.setattr(sections, "STAGES", [("collection", sections.collection), ("systems", sections.systems),
                                             ("broken", broken)])
    target = tmp_path / "out"
    with pytest.raises(IrstatsError, match="broken"):
        build_report(qrels, runs, target, quick=True, figures=True, progress=False)
    assert not target.exists()
    assert not list(tmp_path.glob(".out.partial-*"))
    _assert_no_child_left(forked)


@pytest.fixture
def forked(monkeypatch):
    """The process ids of the children forked during the test (the report's PDF writers)."""
    import os

    pids = []
    fork = os.fork

    def recording_fork():
        pid = fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recording_fork)
    return pids


def _assert_no_child_left(pids):
    """Every PDF writer the report forked was reaped (other children of the test process —
    a Dask cluster's helpers from another test module — are not the report's)."""
    import os

    assert pids, "the report forked no PDF writer: the test checks nothing"
    for pid in pids:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue  # reaped by the report, as it must be
        raise AssertionError(f"a PDF-writing child process was left behind ({'running' if done == 0 else 'unreaped'})")


def test_a_figure_that_cannot_be_written_fails_the_report(tmp_path, monkeypatch, demo_report, forked):
    qrels, runs, _ = demo_report
    from irstats.report import model, sections

    def no_pdf(figure, path):
        raise OSError("disk full")

    monkeypatch.setattr(model, "_write_pdf", no_pdf)  # the forked child inherits it
    monkeypatch.setattr(sections, "STAGES", [("systems", sections.systems)])
    target = tmp_path / "out"
    with pytest.raises(IrstatsError, match="could not write the figure"):
        build_report(qrels, runs, target, quick=True, figures=True, progress=False)
    assert not target.exists() and not list(tmp_path.glob(".out.partial-*"))
    _assert_no_child_left(forked)


def test_cli_report(tmp_path, demo_report, capsys):
    from irstats.cli.main import main

    qrels, runs, _ = demo_report
    main(["report", "--qrels", str(qrels), "--runs", str(runs[0].parent), "--quick", "--quiet",
          "-o", str(tmp_path / "r")])
    assert "index.html" in capsys.readouterr().out



def _watch(page) -> tuple[list[str], list[str]]:
    """The page's console errors and the URLs it requests."""
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    return errors, requests


def test_renders_in_chromium(demo_report, tmp_path):
    """Every section and figure renders with the network off, without console errors."""
    from playwright.sync_api import sync_playwright

    _, _, report = demo_report
    html = report.out_dir / "index.html"
    with sync_playwright() as p:
        browser = chromium(p)
        context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors, requests = _watch(page)
        page.goto(html.as_uri())
        page.wait_for_load_state("load")
        anchors = page.eval_on_selector_all("section", "els => els.map(e => e.id)")
        leaderboard_visible = page.locator('table[data-name="leaderboard"]').is_visible()
        page_width = page.evaluate("document.documentElement.scrollWidth")
        viewport_width = page.evaluate("window.innerWidth")
        table_right = page.eval_on_selector_all(
            "main table", "els => els.map(e => Math.min(e.getBoundingClientRect().right,"
            " e.parentElement.getBoundingClientRect().right))")
        images = page.eval_on_selector_all("figure img", "els => els.map(e => [e.complete, e.naturalWidth])")
        page.screenshot(path=str(tmp_path / "report.png"), full_page=False)
        browser.close()
    assert anchors == ["leaderboard", "collection", "systems", "aggregation", "standardization", "predictive",
                       "scale", "volatility", "provenance"]
    assert leaderboard_visible  # open on the page, not folded away
    assert page_width <= viewport_width  # no table makes the page scroll sideways: wide ones scroll inside it
    assert max(table_right) <= viewport_width
    figures = sorted(p.stem for p in (report.out_dir / "figures").glob("*.png"))
    assert len(images) == len(figures) >= 7
    assert all(complete and width > 0 for complete, width in images)
    assert not errors
    assert all(url.startswith(("file:", "data:")) for url in requests)
    assert (tmp_path / "report.png").stat().st_size > 10_000


#: The tables a reader of the report needs whole at 1400 px: none may scroll sideways.
KEY_TABLES = ("leaderboard", "system_means", "collection_summary", "judged_share", "aggregates", "split_half",
              "standardized_means", "predictive_power", "scale_robustness", "volatility_summary")


def test_dl19_report_and_notebook_tables_in_chromium(dl19_report, tmp_path):
    """Issue 23's browser test, network off: the DL 2019 report (quick) at 800 and 1400 px — no
    sideways scroll of the page at either width, the leaderboard, the system means and the
    other key tables whole at 1400 px (each table's scrollWidth within its container's
    clientWidth), every table's TSV and LaTeX link resolving to its file; and the notebook
    display of an ``irstats.evaluate`` result and of a ``stats.compare`` result as tables (no
    polars dtype row), their means checked against numpy."""
    from playwright.sync_api import sync_playwright

    qrels, runs, report = dl19_report
    html = report.out_dir / "index.html"
    widths: dict[int, dict] = {}
    with sync_playwright() as p:
        browser = chromium(p)
        for width in (800, 1400):
            context = browser.new_context(offline=True, viewport={"width": width, "height": 1000})
            page = context.new_page()
            errors, requests = _watch(page)
            page.goto(html.as_uri())
            page.wait_for_load_state("load")
            widths[width] = {
                "page": page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]"),
                "tables": dict(page.eval_on_selector_all(  # a wide table scrolls inside its container
                    "main table", "els => els.map(e => [e.dataset.name, [e.scrollWidth, e.parentElement.clientWidth,"
                    " e.parentElement.getBoundingClientRect().right]])")),
                "links": page.eval_on_selector_all(".files", "els => els.map(e => [e.dataset.table, "
                                                   "Array.from(e.querySelectorAll('a')).map(a => a.href)])"),
                "errors": errors, "requests": requests,
            }
            if width == 1400:
                page.screenshot(path=str(tmp_path / "report-1400.png"), clip={"x": 0, "y": 0, "width": 1400,
                                                                               "height": 1000})
            context.close()

        e = irstats.evaluate(qrels, runs[:5], ["AP", "nDCG@10"], rel_level=2)
        comparison = compare({"AP": e["AP"]}, test="paired_t", correction="holm")
        notebook = {}
        page = browser.new_page()
        for name, result in (("evaluate", e), ("compare", comparison)):
            page.set_content(f"<!DOCTYPE html><html><body>{result._repr_html_()}</body></html>")
            notebook[name] = page.evaluate("""() => Array.from(document.querySelectorAll('table')).map(t =>
                Array.from(t.rows).map(r => Array.from(r.cells).map(c => c.textContent.trim())))""")
        browser.close()

    for width, seen in widths.items():
        document_width, viewport = seen["page"]
        assert document_width <= viewport, f"the page scrolls sideways at {width} px"
        assert max(right for _, _, right in seen["tables"].values()) <= viewport  # containers within the page
        assert not seen["errors"] and all(url.startswith(("file:", "data:")) for url in seen["requests"])
        assert set(seen["tables"]) == set(report.tables)
        for name, hrefs in seen["links"]:
            assert [Path(url.removeprefix("file://")).name for url in hrefs] == [f"{name}.tsv", f"{name}.tex"]
            assert all(Path(url.removeprefix("file://")).is_file() for url in hrefs)
    scroll, room, _ = widths[800]["tables"]["leaderboard"]
    assert scroll <= room  # the leaderboard fits even at 800 px
    for name in KEY_TABLES:
        scroll, room, _ = widths[1400]["tables"][name]
        assert scroll <= room, f"{name} needs a sideways scroll at 1400 px ({scroll} > {room})"
    assert (tmp_path / "report-1400.png").stat().st_size > 10_000

    dtypes = {"str", "f64", "f32", "i64", "i32", "u32", "bool", "---", "null"}
    [evaluated] = notebook["evaluate"]
    assert evaluated[0] == ["system", "AP", "nDCG@10"]
    assert len(evaluated) - 1 == 5
    for row in evaluated[1:]:
        assert not dtypes & set(row) and not any(cell.startswith('"') for cell in row)
        for measure, cell in zip(("AP", "nDCG@10"), row[1:]):
            assert cell == f"{np.nanmean(e[measure].system(row[0])):.4f}"
    assert {row[0] for row in evaluated[1:]} == set(e["AP"].systems)
    [compared] = notebook["compare"]
    assert compared[0][0] == "system" and len(compared) - 1 == 5
    for row in compared[1:]:
        assert not dtypes & set(row) and not any(cell.startswith('"') for cell in row)
    assert compared[0][3] == "p(AP)"
    p_cells = [row[3] for row in compared[1:] if row[3]]
    assert p_cells and all(re.fullmatch(r"< 0\.001|[01]\.\d{3}", cell) for cell in p_cells)


def test_scale_robustness_table(built):
    """Section 6 (seed 001): each measure's change counts equal the API's transform_robustness."""
    from irstats.meta.transforms import transform_robustness

    report, scores, _ = built
    table = read_table(report, "scale_robustness")
    for measure in MEASURES:
        rows = table.filter(pl.col("measure") == measure)
        try:
            expected = transform_robustness(scores[measure])
        except Exception:  # noqa: BLE001 - a measure without a logit: the report checks the others
            expected = transform_robustness(scores[measure], ("raw", "log", "ranks", "standardized"))
        assert rows["transform"].to_list() == expected.to_frame()["transform"].to_list()
        assert rows["changed"].to_list() == expected.to_frame()["changed"].to_list()


def test_volatility_table(built):
    report, _, options = built
    from irstats.collection import Collection, EvalOptions, RunSet
    from irstats.depth import judged_depth, sweep_judgments, volatility
    from irstats.judgments import build_judgments
    from irstats.report.sections import swept_measures

    table = read_table(report, "volatility_summary")
    study_options = EvalOptions(**options)
    qrels, runs = report_inputs[report.out_dir]
    judgments = build_judgments(Collection.load(qrels), RunSet.load(runs), study_options)
    depth = judged_depth(judgments)
    expected = volatility(sweep_judgments(judgments, swept_measures(MEASURES), pool_depth=depth,
                                          options=study_options)).summary()
    assert table.columns == expected.columns
    for column in expected.columns:
        if expected[column].dtype == pl.String:
            assert table[column].to_list() == expected[column].to_list()
        else:
            np.testing.assert_allclose(table[column].cast(pl.Float64).to_numpy(),
                                       expected[column].cast(pl.Float64).to_numpy(), rtol=0, atol=1e-12)


def test_aggregation_tables(built):
    report, scores, _ = built
    import warnings

    from irstats.aggregate import aggregate
    from irstats.meta.splithalf import split_half
    from irstats.standardize import standardized_name

    matrices = {m: scores[m] for m in MEASURES}
    factors = fit_factors(matrices)
    table = read_table(report, "aggregates")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for measure in MEASURES:
            rows = table.filter(pl.col("measure") == measure)
            for method in ("am", "egm", "gm_trec_eval", "median"):
                result = aggregate(scores[measure], method)
                expected = dict(zip(result.systems, result.values))
                np.testing.assert_allclose(rows[method].to_numpy(), [expected[s] for s in rows["system"]],
                                           rtol=0, atol=1e-12)
            std = aggregate(apply_factors(scores[measure], factors), "am")
            expected = dict(zip(std.systems, std.values))
            np.testing.assert_allclose(rows["std_am"].to_numpy(), [expected[s] for s in rows["system"]], atol=1e-12)
        standardized = {f"std({m})": apply_factors(scores[m], factors) for m in MEASURES}
        n_splits = int(read_table(report, "split_half")["n"][0])
        result = split_half({**matrices, **standardized},
                            [("am", None), ("egm", 0.01), ("gm_trec_eval", None), ("median", None)],
                            n_splits=n_splits, seed=0)
    expected = result.summary()
    got = read_table(report, "split_half")
    assert got["measure"].to_list() == expected["measure"].to_list()
    assert got["method"].to_list() == expected["method"].to_list()
    for column in ("mean", "sd", "hard_easy", "middle_rest", "pct_zero", "pct_low"):
        np.testing.assert_allclose(got[column].to_numpy(), expected[column].to_numpy(), rtol=0, atol=1e-12)
    assert standardized_name("AP") == "std(AP)"


def test_predictive_table(built):
    report, scores, _ = built
    from irstats.meta.predictive import predictive_power

    got = read_table(report, "predictive_power")
    n_splits = int(dict(read_table(report, "provenance").iter_rows())["predictive-power halvings"])
    assert n_splits == 200  # --quick's
    expected = predictive_power({m: scores[m] for m in MEASURES}, MEASURES, by="AP", n_splits=n_splits, seed=0)
    assert got["measure"].to_list() == list(expected.measures)
    for j, measure in enumerate(expected.measures):
        np.testing.assert_allclose(got[measure].to_numpy(), expected.phi[:, j], rtol=0, atol=1e-12)


def test_agreement_section_with_a_second_qrels(tmp_path, monkeypatch, demo_report):
    """report --qrels-b: label and conclusion agreement tables equal the agreement API, and the
    section draws its figure; a second qrels over other topics gives conclusions only (each
    qrels on its own topics)."""
    from types import SimpleNamespace

    from irstats.agreement import conclusion_agreement, label_agreement
    from irstats.report import sections

    qrels, runs, _ = demo_report
    demo = SimpleNamespace(qrels=qrels, runs=runs)
    lines = demo.qrels.read_text().splitlines()
    rng = np.random.default_rng(3)
    noisy = []
    for line in lines:
        topic, it, doc, rel = line.split()
        rel = int(rel)
        if rng.random() < 0.25:
            rel = max(0, rel + int(rng.choice([-1, 1])))
        noisy.append(f"{topic} {it} {doc} {rel}")
    qrels_b = tmp_path / "b.qrels"
    qrels_b.write_text("\n".join(noisy) + "\n")
    with monkeypatch.context() as patch:  # the sections the agreement needs, with their figures
        patch.setattr(sections, "STAGES", [("collection", sections.collection), ("systems", sections.systems),
                                           ("agreement", sections.agreement)])
        report = build_report(demo.qrels, demo.runs, tmp_path / "report", quick=True, figures=True, progress=False,
                              qrels_b=qrels_b, measures=["AP", "P@10"])
    resamples = int(dict(read_table(report, "provenance").iter_rows())["bootstrap resamples (agreement)"])
    assert resamples == 200  # --quick's
    labels = label_agreement(demo.qrels, qrels_b, n_resamples=resamples, seed=0)
    table = read_table(report, "agreement_labels")
    np.testing.assert_allclose(table["value"].to_numpy(), labels.statistics["value"].to_numpy(), atol=1e-12)
    a = irstats.evaluate(demo.qrels, demo.runs, ["AP", "P@10"])
    b = irstats.evaluate(qrels_b, demo.runs, ["AP", "P@10"])
    conclusions = conclusion_agreement(a, b, ["AP", "P@10"], n_resamples=resamples, seed=0)
    table = read_table(report, "agreement_conclusions")
    np.testing.assert_allclose(table["value"].to_numpy(), conclusions.statistics["value"].to_numpy(), atol=1e-12)
    np.testing.assert_allclose(table["ci_low"].to_numpy(), conclusions.statistics["ci_low"].to_numpy(), atol=1e-12)
    assert read_table(report, "agreement_gains")["rank_gain"].to_list() == conclusions.gains()["rank_gain"].to_list()
    assert (report.out_dir / "figures" / "agreement_gains.pdf").exists()
    assert 'id="agreement"' in report.html.read_text()
    # the shared pairs are a count: whole numbers in the table (interval too), as counted by hand
    a_labels, b_labels = _qrels_by_hand(demo.qrels), _qrels_by_hand(qrels_b)
    shared = sum(doc in b_labels.get(topic, {}) for topic, docs in a_labels.items() for doc in docs)
    pairs_row = next(row for row in _page(report).tables["agreement_labels"]["rows"] if row[0] == "pairs")
    assert pairs_row[1] == str(shared) and all(_whole(cell) for cell in pairs_row[1:])
    kappa_row = next(row for row in _page(report).tables["agreement_labels"]["rows"] if row[0] == "cohen_kappa")
    assert all(re.fullmatch(r"-?\d\.\d{4}", cell) for cell in kappa_row[1:])

    # two collections of the same runs over different topics (as an LLM-judged topic set
    # beside a human-judged one): no shared pair, conclusions on each qrels' own topics
    topics = sorted({line.split()[0] for line in lines})
    first, second = set(topics[::2]), set(topics[1::2])
    qrels_1, qrels_2 = tmp_path / "one.qrels", tmp_path / "two.qrels"
    qrels_1.write_text("\n".join(x for x in lines if x.split()[0] in first) + "\n")
    qrels_2.write_text("\n".join(x for x in noisy if x.split()[0] in second) + "\n")
    report = build_report(qrels_1, demo.runs, tmp_path / "report2", quick=True, progress=False, qrels_b=qrels_2,
                          measures=["AP"])
    assert "agreement_labels" not in report.tables and "Labels are not compared" in report.markdown.read_text()
    # the topics B lacks are named (from the files), with what to do; the bare "ignored" warning is not a note
    notes = [text for section, text in _page(report).notes if section == "agreement"]
    lacking = sorted(set(_qrels_by_hand(qrels_1)) - set(_qrels_by_hand(qrels_2)))
    [note] = notes
    assert note.startswith(f"qrels B does not judge {len(lacking)} of the {len(lacking)} topics qrels A judges")
    assert all(f"'{t}'" in note for t in lacking[:12]) and "judge these topics in B" in note and "AP" in note
    assert "are ignored" not in " ".join(t for _, t in _page(report).notes if not t.startswith("qrels B"))
    expected = conclusion_agreement(irstats.evaluate(qrels_1, demo.runs, ["AP"]),
                                    irstats.evaluate(qrels_2, demo.runs, ["AP"]), ["AP"], all_topics=True,
                                    n_resamples=200, seed=0)
    np.testing.assert_allclose(read_table(report, "agreement_conclusions")["value"].to_numpy(),
                               expected.statistics["value"].to_numpy(), atol=1e-12)


# ------------------------------------------------ a report that reads like a results section (issue 23)

class _Page(HTMLParser):
    """The report page as data: every table (its name, header and cell texts), the caption
    line before it, every note (warning) with the section it is in, every list item."""

    def __init__(self):
        super().__init__()
        self.tables: dict[str, dict] = {}
        self.notes: list[tuple[str, str]] = []
        self.items: dict[str, list[str]] = {}
        self.links: dict[str, list[str]] = {}  # table name -> hrefs in the caption line before it
        self._section = ""
        self._stack: list[str] = []
        self._text: list[str] | None = None
        self._hrefs: list[str] = []
        self._table = None
        self._row: list[str] | None = None
        self._in_note = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self._section = attrs.get("id", "")
        elif tag in ("p", "summary"):
            self._hrefs = []
        elif tag == "a" and attrs.get("href", "").startswith("tables/"):
            self._hrefs.append(attrs["href"])
        elif tag == "table":
            self._table = {"header": [], "rows": []}
            self.tables[attrs["data-name"]] = self._table
            self.links[attrs["data-name"]] = list(self._hrefs)
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th", "li"):
            self._text = []
        elif tag == "div" and attrs.get("class") == "note":
            self._in_note, self._text = True, []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._text is not None and self._row is not None:
            self._row.append("".join(self._text).strip())
            self._text = None
        elif tag == "tr" and self._table is not None and self._row is not None:
            if self._table["header"]:
                self._table["rows"].append(self._row)
            else:
                self._table["header"] = self._row
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "li" and self._text is not None:
            self.items.setdefault(self._section, []).append("".join(self._text).strip())
            self._text = None
        elif tag == "div" and self._in_note:
            self.notes.append((self._section, "".join(self._text).strip().removeprefix("Warning.").strip()))
            self._in_note, self._text = False, None

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def column(self, table: str, name: str) -> list[str]:
        t = self.tables[table]
        k = t["header"].index(name)
        return [row[k] for row in t["rows"]]


def _page(report) -> _Page:
    page = _Page()
    page.feed((report.out_dir / "index.html").read_text())
    return page


def _run_lines(path):
    """(topic, docno, score) of every line of a run file, read by hand."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as fh:
        for line in fh:
            fields = line.split()
            if fields:
                yield fields[0], fields[2], float(fields[4])


def _qrels_by_hand(path):
    judged: dict[str, dict[str, int]] = {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            topic, _, doc, grade = line.split()
            judged.setdefault(topic, {})[doc] = int(grade)
    return judged


def _best_and_beaten(matrix):
    """The best system by mean, and how many others a paired t-test (Holm) finds below it —
    scipy and statsmodels, not irstats."""
    from scipy import stats as sps
    from statsmodels.stats.multitest import multipletests

    means = {s: np.nanmean(matrix.system(s)) for s in matrix.systems}
    best = max(means, key=means.get)
    others = [s for s in matrix.systems if s != best]
    with np.errstate(invalid="ignore", divide="ignore"):
        p = [sps.ttest_rel(matrix.system(s), matrix.system(best), nan_policy="omit").pvalue for s in others]
    worse = multipletests(np.nan_to_num(p, nan=1.0), alpha=0.05, method="holm")[0]
    return best, means[best], int(worse.sum()), len(others)


def test_findings_are_a_short_list_of_sentences_with_numbers(dl19_report, dl19_scores):
    """The findings: one sentence per item, each with its numbers, checked against the qrels
    read by hand and the tests recomputed with scipy and statsmodels."""
    from scipy import stats as sps

    qrels, runs, report = dl19_report
    items = _page(report).items["leaderboard"]
    assert 5 <= len(items) <= 10
    for item in items:
        assert re.search(r"\d", item) and item.endswith(".") and len(item) < 320, item
        assert ". " not in item.replace("e.g. ", ""), f"one sentence per item: {item}"
    markdown = report.markdown.read_text()
    assert all(f"- {item}" in markdown for item in items)

    judged = _qrels_by_hand(qrels)
    relevant = [sum(g >= 2 for g in docs.values()) for docs in judged.values()]
    assert items[0] == (f"The collection: {len(judged)} topics and {len(runs)} runs; {sum(relevant)} of the "
                        f"{sum(len(d) for d in judged.values())} judged documents are relevant (grade ≥ 2), "
                        f"{np.median(relevant):g} per topic at the median.")
    scores = dl19_scores
    for measure in MEASURES:
        best, mean, beaten, others = _best_and_beaten(scores[measure])
        values = scores[measure].system(best)
        low, high = sps.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=sps.sem(values))
        expected = (f"{measure}: {best} has the highest mean, {mean:.3f} (95% CI {low:.3f} to {high:.3f}); it is "
                    f"significantly better than {beaten} of the {others} other systems, and {others - beaten} are "
                    "not significantly different from it.")
        assert expected in items, (expected, items)
    split_half = read_table(report, "split_half").sort("mean")
    top, bottom = split_half.row(-1, named=True), split_half.row(0, named=True)
    assert any(f"{top['measure']} aggregated by {top['method']} orders the systems most consistently (mean "
               f"split-half τ {top['mean']:.3f})" in item and f"{bottom['measure']} by {bottom['method']} least"
               in item for item in items)


def _constant_pairs_by_hand(scores):
    """{(a, b): [measures]} of the pairs whose per-topic scores are equal on every topic."""
    pairs: dict[tuple[str, str], list[str]] = {}
    for measure in MEASURES:
        matrix = scores[measure]
        names = sorted(matrix.systems)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                d = matrix.system(a) - matrix.system(b)
                d = d[~np.isnan(d)]
                if d.size and np.all(np.abs(d - d[0]) < 1e-12):
                    assert abs(d[0]) < 1e-12  # on DL 2019, every constant difference is 0: duplicate runs
                    pairs.setdefault((a, b), []).append(measure)
    return pairs


def test_every_warning_names_what_and_says_what_to_do(dl19_report, dl19_scores):
    """Each warning names the measure and the systems or topics (found here from the scores and
    the run files read by hand) and what to do; none is repeated."""
    qrels, runs, report = dl19_report
    page = _page(report)
    section_notes = [(s, text) for s, text in page.notes if s != "leaderboard"]
    texts = [text for _, text in section_notes]
    assert texts and len(texts) == len(set(texts)), "a warning is repeated"
    top = [text for s, text in page.notes if s == "leaderboard"]
    assert len(top) == len(texts) and all(any(t.startswith(x) for t in top) for x in texts)
    scores = dl19_scores

    # systems that score the same on every topic: the pairs and their measures, once
    pairs = _constant_pairs_by_hand(scores)
    assert pairs  # DL 2019 has duplicate runs (TUA1-1 and test1)
    [note] = [t for s, t in section_notes if "s_d = 0" in t]
    assert note.startswith(f"{len(pairs)} pair(s) of systems")
    for (a, b), measures in pairs.items():
        ms = measures[0] if len(measures) == 1 else ", ".join(measures[:-1]) + " and " + measures[-1]
        assert f"{a} and {b} score the same on every topic by {ms}" in note
    assert "keep one of each pair" in note

    # topics on which every system scores the same: standardization's zero variance
    flat = {m: [t for k, t in enumerate(scores[m].topics) if np.nanstd(scores[m].values[:, k]) == 0]
            for m in MEASURES}
    [note] = [t for s, t in section_notes if t.startswith("Zero variance")]
    for measure, topics in flat.items():
        for topic in topics:
            assert f"the same {measure} on topic(s)" in note and f"'{topic}'" in note
    assert "Leave these topics out" in note and dict(section_notes)["standardization"] == note

    # runs judged shallowly: named, from the qrels and run files read by hand
    judged = _qrels_by_hand(qrels)
    shallow = {}
    for path in runs:
        per_topic: dict[str, list] = {}
        for topic, doc, score in _run_lines(path):
            per_topic.setdefault(topic, []).append((score, doc))
        shares = []
        for topic, docs in per_topic.items():
            if topic in judged:
                top100 = sorted(docs, key=lambda x: (x[0], x[1]), reverse=True)[:100]
                shares.append(np.mean([doc in judged[topic] for _, doc in top100]))
        if np.mean(shares) < 0.5:
            shallow[path.name.removesuffix(".run.gz")] = np.mean(shares)
    [note] = [t for s, t in section_notes if "top 100 documents judged" in t]
    assert note.startswith(f"{len(shallow)} of {len(runs)} runs")
    for run, share in shallow.items():
        assert f"{run} ({share:.2f})" in note
    assert "nDCG@10" in note and "irstats eval -J" in note

    for text in texts:  # what to do, in every one
        assert re.search(r"\b(check|compare|leave|keep|report|fit|see)\b", text, re.I), text


def _whole(text: str) -> bool:
    return re.fullmatch(r"−?-?\d+", text) is not None


def test_counts_are_whole_numbers(dl19_report):
    """Counts print without decimals in HTML, Markdown and LaTeX: every column whose data (the
    TSV) holds only whole numbers, one above 1; the documents retrieved per topic, counted
    here from the run files."""
    qrels, runs, report = dl19_report
    page = _page(report)
    checked = 0
    for name in report.tables:
        frame = read_table(report, name)
        for column, dtype in frame.schema.items():
            if not dtype.is_numeric():
                continue
            values = frame[column].drop_nulls().cast(pl.Float64).to_numpy()
            values = values[np.isfinite(values)]
            if values.size and np.all(values == np.round(values)) and np.abs(values).max() > 1:
                header = page.tables[name]["header"][frame.columns.index(column)]
                cells = [c for c in page.column(name, header) if c]
                assert cells and all(_whole(c) for c in cells), (name, column, cells[:3])
                checked += 1
    assert checked >= 8
    judged_topics = set(_qrels_by_hand(qrels))
    retrieved = {}
    for path in runs:
        counts: dict[str, int] = {}
        for topic, _, _ in _run_lines(path):
            if topic in judged_topics:
                counts[topic] = counts.get(topic, 0) + 1
        retrieved[path.name.removesuffix(".run.gz")] = (min(counts.values()), max(counts.values()))
    table = read_table(report, "judged_share")
    shown = dict(zip(page.column("judged_share", "system"),
                     zip(page.column("judged_share", "retrieved per topic (min)"),
                         page.column("judged_share", "retrieved per topic (max)"))))
    for row in table.iter_rows(named=True):
        fewest, most = retrieved[row["system"]]
        assert (row["retrieved per topic (min)"], row["retrieved per topic (max)"]) == (fewest, most)
        assert shown[row["system"]] == (str(fewest), str(most))
    assert page.column("factors", "n")[0] == str(len(runs))  # systems per topic, not 14.0000
    summary = dict(zip(page.column("collection_summary", "quantity"), page.column("collection_summary", "value")))
    assert summary["judged documents"] == str(sum(len(d) for d in _qrels_by_hand(qrels).values()))
    markdown = report.markdown.read_text()
    assert "1000.0000" not in markdown and f"{len(runs)}.0000" not in markdown
    assert f"{len(runs)}.0000" not in (report.out_dir / "tables" / "factors.tex").read_text()


def test_split_half_epsilon_is_what_each_method_used(dl19_report, dl19_scores):
    """ε per method: none for am and the median, the ε-GM's 0.01, trec_eval's floor 0.00001 —
    the floors checked by aggregating the scores by hand with them."""
    _, _, report = dl19_report
    scores = dl19_scores
    aggregates = read_table(report, "aggregates")
    for measure in MEASURES:
        rows = aggregates.filter(pl.col("measure") == measure)
        for row in rows.iter_rows(named=True):
            x = scores[measure].system(row["system"])
            x = x[~np.isnan(x)]
            assert row["gm_trec_eval"] == pytest.approx(np.exp(np.mean(np.log(np.maximum(x, 1e-5)))), rel=1e-12)
            assert row["egm"] == pytest.approx(np.exp(np.mean(np.log(x + 0.01))) - 0.01, abs=1e-12)
    page = _page(report)
    epsilon = dict(zip(page.column("split_half", "method"), page.column("split_half", "ε")))
    assert epsilon == {"am": "", "egm": "0.01", "gm_trec_eval": "0.00001", "median": ""}
    methods, shown = page.column("split_half", "method"), page.column("split_half", "ε")
    assert len(shown) == read_table(report, "split_half").height and "nan" not in shown and "0.0000" not in shown
    expected = {"am": "", "egm": "0.01", "gm_trec_eval": "0.00001", "median": ""}
    assert all(expected[m] == e for m, e in zip(methods, shown))
    tex = (report.out_dir / "tables" / "split_half.tex").read_text()
    assert "0.00001" in tex and "nan" not in tex
    assert "0.00001" in report.markdown.read_text().split("tables/split_half.tsv")[1].split("\n\n")[1]


def test_every_table_links_its_tsv_and_latex(dl19_report):
    """Next to each table, in the HTML and the Markdown: links to its TSV and LaTeX files, which
    hold that table."""
    _, _, report = dl19_report
    page = _page(report)
    markdown = report.markdown.read_text()
    assert set(page.tables) == set(report.tables)
    for name in report.tables:
        assert page.links[name] == [f"tables/{name}.tsv", f"tables/{name}.tex"], name
        for href in page.links[name]:
            assert (report.out_dir / href).is_file()
        assert read_table(report, name).height == len(page.tables[name]["rows"])
        assert f"[TSV](tables/{name}.tsv) · [LaTeX](tables/{name}.tex)" in markdown
        # the links come right before the table they belong to
        after = markdown.split(f"[LaTeX](tables/{name}.tex))")[1].lstrip("\n").split("\n")[0]
        assert after.startswith("| ") and "\\label{tab:" + name.replace("_", "-") in \
            (report.out_dir / "tables" / f"{name}.tex").read_text()


def test_provenance_names_every_input_its_hash_the_versions_and_the_call(dl19_report):
    """Absolute paths and SHA-256 (hashlib on the files), the versions of irstats and its key
    dependencies (importlib.metadata), and the exact API call."""
    import hashlib
    from importlib.metadata import version

    qrels, runs, report = dl19_report
    inputs = read_table(report, "inputs")
    expected = [("qrels", Path(os.path.abspath(qrels)))] + [("run", Path(os.path.abspath(r))) for r in runs]
    assert list(zip(inputs["role"], inputs["path"])) == [(role, str(path)) for role, path in expected]
    for row, (_, path) in zip(inputs.iter_rows(named=True), expected):
        assert Path(row["path"]).is_absolute()
        assert row["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert row["bytes"] == path.stat().st_size
    settings = dict(read_table(report, "provenance").iter_rows())
    assert settings["qrels"] == os.path.abspath(qrels)
    for package in ("numpy", "scipy", "polars", "matplotlib"):
        assert settings[f"version {package}"] == version(package)
    assert settings["version irstats"] == irstats.__version__ == version("irstats")
    call = (f"irstats.report.build_report({str(qrels)!r}, [{', '.join(repr(str(r)) for r in runs)}], "
            f"{str(report.out_dir)!r}, quick=True, rel_level=2)")
    assert f"Command: `{call}`" in report.markdown.read_text()
    html = (report.out_dir / "index.html").read_text()
    assert all(row["sha256"] in html for row in inputs.iter_rows(named=True))


def test_provenance_of_the_command_line(tmp_path, small_collection):
    """Run as ``python -m irstats report …``, the report prints that command line (sys.argv as
    Python saw it); run through ``main([...])`` in-process, ``irstats report …``."""
    import shlex
    import subprocess
    import sys

    from irstats.cli.main import main

    demo = small_collection
    args = ["report", "--qrels", str(demo.qrels), "--runs", str(demo.runs[0].parent), "--quick", "--quiet",
            "-m", "AP", "-m", "P@10"]
    command = [sys.executable, "-m", "irstats", *args, "-o", str(tmp_path / "cli")]
    subprocess.run(command, check=True, capture_output=True, cwd=tmp_path)
    markdown = (tmp_path / "cli" / "report.md").read_text()
    assert f"Command: `{shlex.join(command)}`" in markdown
    settings = dict(pl.read_csv(tmp_path / "cli" / "tables" / "provenance.tsv", separator="\t").iter_rows())
    assert settings["working directory"] == str(tmp_path)
    main([*args, "-o", str(tmp_path / "in-process")])
    assert f"Command: `{shlex.join(['irstats', *args, '-o', str(tmp_path / 'in-process')])}`" in \
        (tmp_path / "in-process" / "report.md").read_text()


# ------------------------------------------------ what --quick trades, and the full report's counts (issue 25)

#: What --quick trades, as the issue asks it to be said (not read from irstats' declaration).
QUICK_TRADES = ["200 split-half halvings instead of 2,000", "200 predictive-power halvings instead of 1,000",
                "no figures"]


def test_a_quick_report_says_what_it_trades_and_draws_no_figure(dl19_report):
    """The quick report says first what it traded; its tables and provenance hold those
    counts; it has no figure (no folder, none on the page); nothing else is left out."""
    _, _, report = dl19_report
    page = _page(report)
    markdown = report.markdown.read_text()
    first = markdown.split("## 1. Leaderboard and findings", 1)[1].strip().split("\n\n")[0]
    assert first.startswith("Quick report (`--quick`): ")
    assert all(trade in first for trade in QUICK_TRADES) and "bootstrap" not in first  # no second qrels here
    assert first.endswith("Every other number is the full report's (run without `--quick` for it).")
    # 200 halvings; n counts those with a defined τ, fewer where a half ties every system (RR's median)
    assert read_table(report, "split_half")["n"].max() == 200
    settings = dict(read_table(report, "provenance").iter_rows())
    assert (settings["quick"], settings["split-half halvings"], settings["predictive-power halvings"],
            settings["figures"]) == ("True", "200", "200", "none")
    assert not (report.out_dir / "figures").exists() and "<figure" not in report.html.read_text()
    assert "![" not in markdown
    assert re.findall(r'<section id="([a-z]+)"', report.html.read_text()) == [
        "leaderboard", "collection", "systems", "aggregation", "standardization", "predictive", "scale", "volatility",
        "provenance"]
    assert set(page.tables) == set(report.tables)


def test_quick_help_says_what_it_trades(capsys):
    code, out, _ = run_cli(["report", "--help"], capsys)
    assert code == 0
    text = " ".join(out.split())
    quick = text.split("--quick", 1)[1].split("--figures / --no-figures", 1)[0]
    assert all(trade in quick for trade in QUICK_TRADES)
    assert "200 bootstrap resamples (agreement with a second qrels) instead of 1,000" in quick


def test_the_full_report_keeps_its_counts(small_collection, tmp_path):
    """Without --quick: 2,000 split-half and 1,000 predictive-power halvings (the tables equal
    the API's with those counts and seed 0); without figures (figures=False), the report says
    that one trade and nothing else."""
    from irstats.meta.predictive import predictive_power

    demo = small_collection
    report = build_report(demo.qrels, demo.runs, tmp_path / "full", figures=False, progress=False)
    settings = dict(read_table(report, "provenance").iter_rows())
    assert (settings["quick"], settings["split-half halvings"], settings["predictive-power halvings"],
            settings["figures"]) == ("False", "2000", "1000", "none")
    assert read_table(report, "split_half")["n"].unique().to_list() == [2000]
    scores = irstats.evaluate(demo.qrels, demo.runs, MEASURES)
    expected = predictive_power({m: scores[m] for m in MEASURES}, MEASURES, by="AP", n_splits=1000, seed=0)
    got = read_table(report, "predictive_power")
    for j, measure in enumerate(expected.measures):
        np.testing.assert_allclose(got[measure].to_numpy(), expected.phi[:, j], rtol=0, atol=1e-12)
    first = report.markdown.read_text().split("## 1. Leaderboard and findings", 1)[1].strip().split("\n\n")[0]
    assert first == ("Traded for time: no figures (no PNG, PDF or figure CSV; the tables hold every number). Every "
                     "other number is the full report's.")


def test_a_quick_report_imports_no_matplotlib(small_collection, tmp_path):
    """``irstats report --quick`` draws nothing, so it never imports matplotlib (``-X
    importtime`` lists every module the process imported)."""
    import subprocess
    import sys

    demo = small_collection
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "irstats", "report", "--qrels", str(demo.qrels),
                           "--runs", str(demo.runs[0].parent), "--quick", "--quiet", "-o", str(tmp_path / "q")],
                          capture_output=True, text=True, check=True)
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time")]
    assert "irstats.report.sections" in imported and "numpy" in imported  # the listing is complete
    assert not [name for name in imported if name.split(".")[0] == "matplotlib"]
    assert (tmp_path / "q" / "index.html").exists() and not (tmp_path / "q" / "figures").exists()


@pytest.mark.parametrize("given, expected", [(None, "1"), ("2", "2")])
def test_report_command_runs_numpy_with_one_blas_thread(given, expected):
    """The report draws its PDFs in a child on the other core, so its command loads numpy with
    one BLAS thread — unless the user chose a number; other commands leave the BLAS alone.
    How many threads numpy's BLAS has is asked of it (threadpoolctl), in a fresh process."""
    import subprocess
    import sys

    probe = ("import sys; from irstats.cli.main import cli; cli.get_command(None, sys.argv[1]); "
             "import os, numpy, threadpoolctl; "
             "blas = [p['num_threads'] for p in threadpoolctl.threadpool_info() if p['user_api'] == 'blas']; "
             "print(os.environ.get('OPENBLAS_NUM_THREADS'), os.environ.get('OMP_NUM_THREADS'), *blas)")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    report = subprocess.run([sys.executable, "-c", probe, "report"], env=env, capture_output=True, text=True, check=True)
    variable, omp, *pools = report.stdout.split()
    assert (variable, omp) == (expected, "1") and pools and set(pools) == {expected}  # scikit-learn's threadpoolctl
    other = subprocess.run([sys.executable, "-c", probe, "eval"], env=env, capture_output=True, text=True, check=True)
    assert other.stdout.split()[:2] == [str(given), "None"]
