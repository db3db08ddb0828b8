"""The study report: every table equals the API that makes it; the page renders in Chromium."""

from __future__ import annotations

import math

import shutil

import numpy as np
import polars as pl
import pytest

import irstats
from irstats.demo import make_demo_collection
from irstats.errors import IrstatsError
from irstats.report import build_report
from irstats.standardize import apply_factors, fit_factors, read_factors
from irstats.stats import compare, t_interval

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)"]
report_inputs: dict = {}  # report folder -> (qrels, runs), for tests that recompute a section


def read_table(report, name) -> pl.DataFrame:
    return pl.read_csv(report.out_dir / "tables" / f"{name}.tsv", separator="\t", infer_schema_length=None,
                       schema_overrides={"topic": pl.String, "system": pl.String})


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    base = tmp_path_factory.mktemp("demo")
    demo = make_demo_collection(base / "collection", seed=5)
    report = build_report(demo.qrels, demo.runs, base / "report", quick=True, progress=False)
    report_inputs[report.out_dir] = (demo.qrels, demo.runs)
    return demo.qrels, demo.runs, report


@pytest.fixture(scope="module")
def dl19_report(shared_data, tmp_path_factory):
    base = shared_data / "trec-dl-2019-passage"
    qrels, runs = base / "qrels.dl19-passage.txt", sorted((base / "runs").glob("*.run.gz"))
    report = build_report(qrels, runs, tmp_path_factory.mktemp("dl19") / "report", quick=True, progress=False,
                          rel_level=2)
    report_inputs[report.out_dir] = (qrels, runs)
    return qrels, runs, report


@pytest.fixture(params=["demo", "dl19"])
def built(request, demo_report, dl19_report):
    qrels, runs, report = demo_report if request.param == "demo" else dl19_report
    options = {"rel_level": 2} if request.param == "dl19" else {}
    scores = irstats.evaluate(qrels, runs, MEASURES + ["RBPresid(p=0.8)", "Judged@10", "Judged@100",
                                                      "Judged@1000", "NumRel"], **options)
    return report, scores, options


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


def test_every_table_as_latex_and_figure_as_pdf(built):
    report, _, _ = built
    for name in report.tables:
        tex = (report.out_dir / "tables" / f"{name}.tex").read_text()
        # a comment naming the packages, then one float per part (tests/test_latex_compile.py compiles them)
        assert tex.startswith("% needs \\usepackage{booktabs}") and "\\begin{table" in tex
        assert "\\midrule" in tex and tex.rstrip().endswith(("\\end{table}", "\\end{table*}"))
    pngs = sorted((report.out_dir / "figures").glob("*.png"))
    assert pngs
    for png in pngs:
        assert png.with_suffix(".pdf").read_bytes().startswith(b"%PDF")


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


def test_failed_stage_leaves_no_report(tmp_path, monkeypatch, demo_report):
    qrels, runs, _ = demo_report
    from irstats.report import sections

    def broken(study):
        raise RuntimeError("boom")

    # systems draws figures (their PDFs in a child process) before the broken stage fails
    monkeypatch.setattr(sections, "STAGES", [("collection", sections.collection), ("systems", sections.systems),
                                             ("broken", broken)])
    target = tmp_path / "out"
    with pytest.raises(IrstatsError, match="broken"):
        build_report(qrels, runs, target, quick=True, progress=False)
    assert not target.exists()
    assert not list(tmp_path.glob(".out.partial-*"))
    _assert_no_child_left()


def _assert_no_child_left():
    import os

    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return  # no child at all: every PDF writer was reaped
    raise AssertionError("a PDF-writing child process was left behind")


def test_a_figure_that_cannot_be_written_fails_the_report(tmp_path, monkeypatch, demo_report):
    qrels, runs, _ = demo_report
    from irstats.report import model, sections

    def no_pdf(figure, path):
        raise OSError("disk full")

    monkeypatch.setattr(model, "_write_pdf", no_pdf)  # the forked child inherits it
    monkeypatch.setattr(sections, "STAGES", [("systems", sections.systems)])
    target = tmp_path / "out"
    with pytest.raises(IrstatsError, match="could not write the figure"):
        build_report(qrels, runs, target, quick=True, progress=False)
    assert not target.exists() and not list(tmp_path.glob(".out.partial-*"))
    _assert_no_child_left()


def test_cli_report(tmp_path, demo_report, capsys):
    from irstats.cli.main import main

    qrels, runs, _ = demo_report
    main(["report", "--qrels", str(qrels), "--runs", str(runs[0].parent), "--quick", "--quiet",
          "-o", str(tmp_path / "r")])
    assert "index.html" in capsys.readouterr().out


def test_renders_in_chromium(demo_report, tmp_path):
    """Every section and figure renders with the network off, without console errors."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("Chromium is not installed: it is Debian's 'chromium' package, installed by ./install.sh")
    from playwright.sync_api import sync_playwright

    _, _, report = demo_report
    html = report.out_dir / "index.html"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        requests: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
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
    n_splits = 200  # the --quick setting the fixtures use
    expected = predictive_power({m: scores[m] for m in MEASURES}, MEASURES, by="AP", n_splits=n_splits, seed=0)
    assert got["measure"].to_list() == list(expected.measures)
    for j, measure in enumerate(expected.measures):
        np.testing.assert_allclose(got[measure].to_numpy(), expected.phi[:, j], rtol=0, atol=1e-12)


def test_agreement_section_with_a_second_qrels(tmp_path):
    """report --qrels-b: label and conclusion agreement tables equal the agreement API; a
    second qrels over other topics gives conclusions only (each qrels on its own topics)."""
    from irstats.agreement import conclusion_agreement, label_agreement

    demo = make_demo_collection(tmp_path / "collection", seed=5)
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
    report = build_report(demo.qrels, demo.runs, tmp_path / "report", quick=True, progress=False, qrels_b=qrels_b,
                          measures=["AP", "P@10"])
    labels = label_agreement(demo.qrels, qrels_b, n_resamples=200, seed=0)
    table = read_table(report, "agreement_labels")
    np.testing.assert_allclose(table["value"].to_numpy(), labels.statistics["value"].to_numpy(), atol=1e-12)
    a = irstats.evaluate(demo.qrels, demo.runs, ["AP", "P@10"])
    b = irstats.evaluate(qrels_b, demo.runs, ["AP", "P@10"])
    conclusions = conclusion_agreement(a, b, ["AP", "P@10"], n_resamples=200, seed=0)
    table = read_table(report, "agreement_conclusions")
    np.testing.assert_allclose(table["value"].to_numpy(), conclusions.statistics["value"].to_numpy(), atol=1e-12)
    np.testing.assert_allclose(table["ci_low"].to_numpy(), conclusions.statistics["ci_low"].to_numpy(), atol=1e-12)
    assert read_table(report, "agreement_gains")["rank_gain"].to_list() == conclusions.gains()["rank_gain"].to_list()
    assert (report.out_dir / "figures" / "agreement_gains.pdf").exists()
    assert 'id="agreement"' in report.html.read_text()

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
    expected = conclusion_agreement(irstats.evaluate(qrels_1, demo.runs, ["AP"]),
                                    irstats.evaluate(qrels_2, demo.runs, ["AP"]), ["AP"], all_topics=True,
                                    n_resamples=200, seed=0)
    np.testing.assert_allclose(read_table(report, "agreement_conclusions")["value"].to_numpy(),
                               expected.statistics["value"].to_numpy(), atol=1e-12)
