"""Paper-ready figures (issue 23): every figure irstats draws, at column (3.33 in) and page
(7 in) width, has TrueType fonts only in its PDF (``pdffonts``: no Type 3), no text below
7 pt, no legend over the data, and is no taller than 9 in; the report's figures are drawn at
page width and its HTML shows PNG renders of the same drawings as its PDFs."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import irstats
from irstats import plots
from irstats.plots.common import MAX_HEIGHT, MIN_FONT_SIZE, SIZES
from tests.conftest import DL19_RUNS

DL19 = "trec-dl-2019-passage"
MEASURES = ["AP", "nDCG@10", "P@10", "RR"]


def pdffonts(path) -> list[tuple[str, str]]:
    """(name, type) of every font in a PDF, read by poppler's ``pdffonts``."""
    tool = shutil.which("pdffonts")
    if tool is None:
        pytest.fail("pdffonts is missing: it is Debian's 'poppler-utils', installed by ./install.sh")
    out = subprocess.run([tool, str(path)], capture_output=True, text=True, check=True).stdout.splitlines()
    # name, then the type (which may be two words: "CID TrueType", "Type 1C") before the encoding
    rows = []
    for line in out[2:]:
        match = re.match(r"(\S+)\s+(Type 1C|Type 1|Type 3|CID TrueType|CID Type 0C?|TrueType|Type 0)\s", line)
        assert match, line
        rows.append((match.group(1), match.group(2)))
    return rows


def assert_true_type_only(path):
    fonts = pdffonts(path)
    assert fonts, f"{path}: no font embedded"
    assert not [f for f in fonts if f[1] == "Type 3"], f"{path}: Type 3 fonts {fonts}"


# --------------------------------------------------------------------------- the figures


@pytest.fixture(scope="module")
def dl19(reference_data):
    base = reference_data / DL19
    runs = sorted((base / "runs").glob("*.run.gz"))
    qrels = base / "qrels.dl19-passage.txt"
    return qrels, runs


@pytest.fixture(scope="module")
def results(dl19):
    """Small experiments on DL 2019 (a few resamples): what every figure function draws from."""
    from irstats.agreement import conclusion_agreement
    from irstats.depth import simulate_pool, volatility
    from irstats.depth import sweep as sweep_depths
    from irstats.evaluate import Evaluator
    from irstats.meta.comparability import metric_forms, metric_group, randomized_baseline
    from irstats.meta.predictive import predictive_curve, predictive_power
    from irstats.meta.robustness import standardization_robustness
    from irstats.meta.splithalf import epsilon_sweep, split_half
    from irstats.meta.transforms import transform_robustness
    from irstats.repro import reproducibility
    from irstats.standardize import apply_factors, fit_factors

    qrels, runs = dl19
    evaluator = Evaluator(qrels, rel_level=2)
    judgments = evaluator.judgments(runs)
    scores = evaluator.score_judgments(judgments, MEASURES + ["NumRel"])
    loose = irstats.evaluate(qrels, runs, MEASURES, rel_level=1)
    ap = scores["AP"]
    std = apply_factors(ap, fit_factors(ap))
    names = sorted(ap.systems, key=str.encode)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {
            "scores": scores, "ap": ap, "std": std,
            "split": split_half({"AP": ap, std.measure: std}, ["am", "egm", "gm_trec_eval"], n_splits=20, seed=0),
            "split_p10": split_half(scores["P@10"], ["am", "egm"], n_splits=10, seed=0),
            "sweep": epsilon_sweep(ap, n_splits=6),
            "phi": predictive_power({m: scores[m] for m in MEASURES}, MEASURES, n_splits=20, seed=0),
            "curve": predictive_curve({m: scores[m] for m in ("nDCG@10", "P@10")}, sizes=(5, 10, 20), n_splits=20,
                                      by="nDCG@10"),
            "robust": standardization_robustness(ap, names[::2], names[1::2], sizes=[2, 4, 6], n_samples=20, seed=0),
            "baseline": randomized_baseline({metric_group(n): metric_forms(scores[n], num_rel=scores["NumRel"])
                                             for n in ("AP", "P@10")}, n_partitions=20, n_fp_partitions=20, seed=0,
                                            discriminative=False),
            "agreement": conclusion_agreement({m: scores[m] for m in MEASURES}, loose, MEASURES, n_resamples=20),
            "transforms": transform_robustness(ap),
            "repro": reproducibility(qrels, [runs[0], runs[1]], [runs[2], runs[3]], ["AP", "P@10"], order_depth=100,
                                     rel_level=2),
        }
        pool = simulate_pool(qrels, runs, 10, [run.name.split(".")[0] for run in runs[::2]], rel_level=2)
        sweep = sweep_depths(pool, ["AP", "nDCG", "P", "RR", "AP_pool"])
        out["depth"] = sweep
        out["volatility"] = volatility(sweep, significance=False)
    return out


def draw_all(r, size: str) -> dict:
    """Every figure function of irstats.plots (and the results' plot methods) at ``size``."""
    from irstats.plots import agreement as fa
    from irstats.plots import meta as fm
    from irstats.plots import repro as fr
    from irstats.plots import standardization as fs
    from irstats.plots import volatility as fv

    measures = ["AP", "nDCG", "P", "RR"]
    drawn = {
        "f1_tau_density": fm.plot_tau_density(r["split"], size=size),
        "f2_epsilon_sweep": fm.plot_epsilon_sweep(r["sweep"], size=size),
        "f3_score_density": fm.plot_score_density({"AP": r["ap"], "std(AP)": r["std"]}, size=size),
        "f4_delta_low": fm.plot_delta_low({"dl19": r["split"], "dl19-p10": r["split_p10"]}, size=size),
        "f5_phi_heatmap": fm.plot_phi_heatmap(r["phi"], size=size),
        "f6_phi_curve": fm.plot_phi_curve(r["curve"], size=size),
        "f7_tau_quantiles": fs.plot_tau_quantiles(r["robust"], reference_lines={"topic sets": 0.742}, size=size),
        "f8_drmse": fs.plot_drmse(r["baseline"], size=size),
        "f9_false_positives": fs.plot_false_positives(r["baseline"], size=size),
        "f10_score_heatmap": fm.plot_score_heatmap(r["ap"], size=size),
        "f11_system_means": fm.plot_system_means(r["ap"], size=size),
        "f12_trajectories": fv.trajectories(r["depth"], "AP", size=size),
        "f12_trajectory_grid": fv.trajectory_grid(r["depth"], measures, size=size),
        "f13_ap_variants": fv.ap_variants(r["depth"], size=size),
        "f14_volatility_summary": fv.volatility_summary(r["volatility"], measures, size=size),
        "agreement_rank_changes": fa.plot_rank_changes(r["agreement"].gains("AP"), size=size),
        "repro_order": fr.plot_order(r["repro"], size=size),
        "repro_effects": fr.plot_effects([r["repro"], r["repro"]], labels=["one", "two"], size=size),
    }
    with plots.style(size):  # a result's own plot method, drawn in the style
        drawn["scale_robustness"] = r["transforms"].plot()
    return drawn


def figure_of(drawn):
    first = drawn.flat[0] if isinstance(drawn, np.ndarray) else drawn
    return first.figure


def check_figure(fig, name, width=None):
    """No text below 7 pt, no legend over any Axes' data area, at most 9 in tall (``width``: in inches)."""
    from matplotlib.text import Text

    fig.canvas.draw()  # tick labels exist once drawn
    w, h = fig.get_size_inches()
    if width is not None:
        assert w * 72 == pytest.approx(width * 72, abs=0.01), name
    assert h <= MAX_HEIGHT + 1e-9, f"{name}: {h:.2f} in tall"
    small = [(t.get_text(), t.get_fontsize()) for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip() and t.get_fontsize() < MIN_FONT_SIZE - 1e-9]
    assert not small, f"{name}: text below {MIN_FONT_SIZE} pt: {small[:5]}"
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    data_axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in data_axes:
            area = ax.get_window_extent(renderer)
            assert not box.overlaps(area), f"{name}: a legend lies over the data of {ax.get_title()!r}"
        assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= fig.bbox.x1 + 1 and box.y1 <= fig.bbox.y1 + 1, \
            f"{name}: a legend leaves the figure"
    # every text drawn lies inside the canvas (nothing clipped by the figure's edge)
    canvas = fig.bbox
    for text in drawn_texts(fig):
        box = text.get_window_extent(renderer)
        assert (box.x0 >= canvas.x0 - 1 and box.y0 >= canvas.y0 - 1 and box.x1 <= canvas.x1 + 1
                and box.y1 <= canvas.y1 + 1), f"{name}: text {text.get_text()!r} leaves the figure ({box} in {canvas})"
    # tick labels on one axis never overlap each other (thinned or rotated)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            boxes = [t.get_window_extent(renderer) for t in axis.get_ticklabels() if t.get_visible() and t.get_text()]
            for a, b in zip(boxes, boxes[1:]):
                assert not _overlap(a, b), f"{name}: tick labels overlap ({ax.get_title()!r})"


def drawn_texts(fig) -> list:
    """Every visible, non-empty text of ``fig`` that is drawn: the tick labels of the ticks in
    view only (matplotlib keeps labels of ticks outside the view, which it does not draw)."""
    from matplotlib.text import Text

    ticks, shown = set(), []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            every = axis.get_major_ticks() + axis.get_minor_ticks()
            ticks |= {id(label) for tick in every for label in (tick.label1, tick.label2)}
            if not (ax.axison and axis.get_visible()):
                continue  # an axis turned off draws no tick label
            for tick in axis._update_ticks():  # the ticks matplotlib draws
                shown += [label for label in (tick.label1, tick.label2) if label.get_visible()]
    texts = [t for t in fig.findobj(Text) if id(t) not in ticks and t.get_visible()] + shown
    return [t for t in texts if t.get_text().strip()]


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5


@pytest.mark.parametrize("size", ["column", "page"])
def test_every_figure_at_column_and_page_width(results, size, tmp_path):
    """Each figure at 3.33 in or 7 in wide, ≤ 9 in tall, text ≥ 7 pt, legends outside the
    data, and its PDF embeds TrueType fonts only."""
    drawn = draw_all(results, size)
    for name, what in drawn.items():
        fig = figure_of(what)
        check_figure(fig, name, SIZES[size])
        path = plots.save(fig, tmp_path / f"{name}.pdf")
        assert_true_type_only(path)


def test_figures_on_given_axes_keep_legends_outside(results):
    """On the caller's own Axes a legend goes right of them, not over the data."""
    import matplotlib.pyplot as plt

    from irstats.plots import meta as fm

    fig, (left, right) = plt.subplots(1, 2, figsize=(7, 3), layout="constrained")
    assert fm.plot_tau_density(results["split"], ax=left) is left
    fm.plot_score_density({"AP": results["ap"]}, ax=right, size="column")
    check_figure(fig, "given axes")
    assert left.get_legend() is not None
    plt.close(fig)


def test_style_is_a_context_not_a_global(results, tmp_path):
    """The paper style applies inside irstats' calls only; save() embeds TrueType fonts even
    for a figure drawn outside it."""
    import matplotlib
    import matplotlib.pyplot as plt

    before = matplotlib.rcParams["pdf.fonttype"], matplotlib.rcParams["font.size"]
    with plots.style("column") as width:
        assert width == 3.33 and matplotlib.rcParams["pdf.fonttype"] == 42
    assert (matplotlib.rcParams["pdf.fonttype"], matplotlib.rcParams["font.size"]) == before
    fig, ax = plt.subplots()
    ax.set_title("drawn by the user: τ, ε, ΔRI")
    assert_true_type_only(plots.save(fig, tmp_path / "mine.pdf"))
    with pytest.raises(irstats.errors.IrstatsError, match="size"):
        with plots.style("poster"):
            pass


# --------------------------------------------------------------------------- the report


@pytest.fixture(scope="module")
def dl19_report(dl19, tmp_path_factory):
    from irstats.report import build_report

    qrels, runs = dl19
    return build_report(qrels, runs, tmp_path_factory.mktemp("paper") / "report", quick=True, figures=True,
                        progress=False, rel_level=2)


def test_report_figures_are_page_wide_true_type_and_shown(dl19_report):
    """Every figure PDF of the DL 2019 report: TrueType fonts only, 7 in wide, ≤ 9 in tall;
    the HTML embeds the PNG drawn from the same figure (same proportions)."""
    from PIL import Image

    folder = dl19_report.out_dir / "figures"
    pdfs = sorted(folder.glob("*.pdf"))
    assert len(pdfs) >= 8
    html = (dl19_report.out_dir / "index.html").read_text()
    shown = {name: base64.b64decode(data) for name, data in
             re.findall(r'<figure data-name="([^"]+)"><img alt="[^"]*" src="data:image/png;base64,([^"]+)"', html)}
    assert set(shown) == {p.stem for p in pdfs}
    for pdf in pdfs:
        assert_true_type_only(pdf)
        width, height = _media_box(pdf)
        assert width == pytest.approx(7.0 * 72, abs=0.5), pdf.name
        assert height <= MAX_HEIGHT * 72 + 0.5, pdf.name
        png = pdf.with_suffix(".png")
        assert shown[pdf.stem] == png.read_bytes()  # the page shows the saved PNG itself
        with Image.open(png) as image:
            assert image.width / image.height == pytest.approx(width / height, rel=0.01), pdf.name


def test_report_pdfs_embed_fonts_whose_text_reads_back(dl19_report):
    """The fonts embedded without their layout tables (``plots.common._lean_embedded_fonts``)
    still carry every glyph: poppler lists them embedded, and ``pdftotext`` reads back every
    run's name from the figure of the systems' means; fontTools' own defaults are untouched."""
    from fontTools import subset

    tool = shutil.which("pdftotext")
    if tool is None:
        pytest.fail("pdftotext is missing: it is Debian's 'poppler-utils', installed by ./install.sh")
    folder = dl19_report.out_dir / "figures"
    for pdf in sorted(folder.glob("*.pdf")):
        listed = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
        for line in listed.splitlines()[2:]:
            assert line.split()[-5] == "yes", f"{pdf.name}: a font not embedded: {line}"
    text = subprocess.run([tool, str(folder / "system_means.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    words = set(text.split())
    import polars as pl

    systems = pl.read_csv(folder / "system_means.csv")["system"].to_list()  # the data the figure draws
    assert len(systems) == len(DL19_RUNS)
    missing = [name for name in systems if name not in words]
    assert not missing, f"not read back from the PDF: {missing}"
    assert not {"GSUB", "GPOS", "GDEF"} & set(subset.Options().drop_tables)


def _media_box(path) -> tuple[float, float]:
    text = path.read_bytes()
    match = re.search(rb"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]", text)
    assert match, path
    x0, y0, x1, y1 = map(float, match.groups())
    return x1 - x0, y1 - y0


# --------------------------------------------------------------------------- the command line


def test_every_command_that_plots_takes_plot_size():
    """A command with a figure option (--plot, --plot-order, …) has --plot-size column|page."""
    import click

    from irstats.cli.main import COMMANDS, cli, load_commands
    from irstats.cli.output import OutputFile

    load_commands()
    plotting = []
    for name in COMMANDS:
        command = cli.commands[name]
        commands = command.commands.values() if isinstance(command, click.Group) else [command]
        for sub in commands:
            params = {p.name: p for p in sub.params}
            figures = [p for p in sub.params if isinstance(p.type, OutputFile) and p.type.figure]
            if figures:
                plotting.append(name)
                assert "plot_size" in params, f"{name}: --plot without --plot-size"
                assert list(params["plot_size"].type.choices) == ["column", "page"]
                assert params["plot_size"].default == "page"
    assert {"agreement", "splithalf", "predictive", "robustness", "comparability", "volatility", "repro"} <= set(
        plotting)


@pytest.mark.parametrize("size", ["column", "page"])
def test_cli_plot_size(size, reference_data, tmp_path, capsys):
    """``--plot-size`` sets the figure's width; the PDF embeds TrueType fonts."""
    from conftest import run_cli

    base = reference_data / DL19
    runs = sorted((base / "runs").glob("*.run.gz"))[:6]
    scores = tmp_path / "scores.tsv"
    from irstats.scores import write_scores

    write_scores(irstats.evaluate(base / "qrels.dl19-passage.txt", runs, ["AP"], rel_level=2), scores)
    figure = tmp_path / "splithalf.pdf"
    code, _, err = run_cli(["splithalf", scores, "-n", "10", "--plot", figure, "--plot-size", size, "-q"], capsys)
    assert code == 0, err
    assert_true_type_only(figure)
    assert _media_box(figure)[0] == pytest.approx(SIZES[size] * 72, abs=0.5)
    code, _, err = run_cli(["splithalf", scores, "--plot", tmp_path / "x.pdf", "--plot-size", "poster"], capsys)
    assert code == 2 and "poster" in err


@pytest.mark.parametrize("size", ["column", "page"])
def test_figures_of_systems_name_every_system(reference_data, size):
    """Issue 33: the figures whose axis names the systems draw every name at both widths (the
    figure grows in height instead of thinning the labels), each inside the canvas — for the 37
    TREC DL 2019 runs (their per-topic AP as trec_eval 10 printed it)."""
    import irstats
    from irstats.plots import meta as fm
    from irstats.plots.common import LABEL_CHARACTERS, short_label

    ap = irstats.read_scores(reference_data / "trec-dl-2019-passage" / "all-runs-4-measures.tsv")["AP"]
    systems = ap.systems
    assert len(systems) == 37
    for name, ax in (("system means", fm.plot_system_means(ap, size=size)),
                     ("heatmap", fm.plot_score_heatmap(ap, size=size))):
        fig = ax.figure
        check_figure(fig, name, SIZES[size])
        drawn = {t.get_text() for t in drawn_texts(fig)}
        missing = [s for s in systems if short_label(s, LABEL_CHARACTERS[size]) not in drawn]
        assert not missing, f"{name} at {size}: {len(missing)} system names not drawn ({missing[:3]})"
