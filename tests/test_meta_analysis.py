"""Meta-analysis over collections (issue 38): the pooled estimates against statsmodels'
``combine_effects`` to 1e-9 (τ² truncated at 0, as the estimators define it), each
collection's effect against a plain computation, the command line's printers and its bad input."""

from __future__ import annotations

import io

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from irstats.trec_eval.read import read_trec_eval
from irstats.scores import ScoreMatrix
from irstats.stats.meta_analysis import collection_effect, meta_analysis, pool
from tests.conftest import best_and_median, examples, run_cli

TOL = 1e-9
FORMATS = ("table", "markdown", "latex", "tsv", "csv", "json")
COLUMNS = ["measure", "system", "baseline", "method", "effect", "ci_low", "ci_high", "tau2", "i2", "q", "q_p",
           "collection"]
TRACKS = ("robust04", "robust05", "web2012")


def statsmodels_rows(effects, variances, confidence=0.95):
    """What statsmodels gives for each of irstats' methods: (effect, ci_low, ci_high, tau2), and
    (q, q_p, i2). DerSimonian–Laird is ``method_re="chi2"``, Paule–Mandel ``"iterated"`` iterated
    to convergence; where chi2's τ² is negative, the estimators' τ² is 0 and the estimate the fixed one."""
    from statsmodels.stats.meta_analysis import combine_effects

    alpha = 1 - confidence
    dl = combine_effects(effects, variances, method_re="chi2", alpha=alpha)
    pm = paule_mandel(effects, variances, alpha)
    fixed_ci = dl.conf_int(alpha=alpha)[0]
    rows = {"fixed": (dl.mean_effect_fe, *fixed_ci, 0.0)}
    for name, res in (("dl", dl), ("pm", pm)):
        if res.tau2 < 0:
            rows[name] = rows["fixed"]
            hk = res.conf_int(alpha=alpha, use_t=True)[2]  # the fixed estimate, its HK (WLS scale) interval
        else:
            ci = res.conf_int(alpha=alpha)[1]
            rows[name] = (res.mean_effect_re, *ci, res.tau2)
            hk = res.conf_int(alpha=alpha, use_t=True)[3]
        rows[f"{name}_hk"] = (rows[name][0], *hk, rows[name][3])
    test = dl.test_homogeneity()
    return rows, (dl.q, test.pvalue, max(0.0, dl.i2))


def paule_mandel(effects, variances, alpha):
    """statsmodels' Paule–Mandel fit at the tightest tolerance its iteration survives: it stops
    when |Σ w_i (y_i − μ̂)² − (k − 1)| < atol and sets τ² to 0 whenever that turns negative,
    which near the machine's precision happens at the root itself (a rounding error after a
    Newton step); then the next looser tolerance is taken, up to statsmodels' default 1e-5
    (its τ² then lies within about 1e-10 of the root: its steps converge quadratically)."""
    from statsmodels.stats.meta_analysis import combine_effects

    w = 1 / variances
    q = w @ (effects - w @ effects / w.sum()) ** 2
    for atol in (1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5):  # 1e-5: its default
        res = combine_effects(effects, variances, method_re="iterated", alpha=alpha, atol=atol, maxiter=10_000)
        if res.tau2 > 0 or q <= effects.size - 1:
            return res
    raise AssertionError("statsmodels' Paule–Mandel iteration did not converge")


def assert_equal_to_statsmodels(effects, variances, confidence=0.95):
    ours = pool(effects, variances, confidence, hartung_knapp=True)
    rows, (q, q_p, i2) = statsmodels_rows(np.asarray(effects), np.asarray(variances), confidence)
    for method, expected in rows.items():
        got = (ours.effect[method], ours.ci_low[method], ours.ci_high[method], ours.tau2[method])
        assert np.allclose(got, expected, rtol=TOL, atol=TOL), (method, got, expected)
    # I² = max(0, (Q − (k − 1)) / Q), truncated at 0 as Higgins & Thompson define it: statsmodels' own
    # i2 is (Q − df)/Q untruncated, which is nonsense when Q rounds to ±1e-18 (equal effects)
    k = len(effects)
    i2 = max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0
    assert np.allclose((ours.q, ours.q_p, ours.i2), (q, q_p, i2), rtol=TOL, atol=TOL)
    if ours.tau2["pm"] > 0:  # and Paule–Mandel's τ² solves its equation, Σ w_i (y_i − μ̂)² = k − 1
        w = 1 / (np.asarray(variances) + ours.tau2["pm"])
        y = np.asarray(effects)
        assert w @ (y - w @ y / w.sum()) ** 2 == pytest.approx(y.size - 1, rel=1e-12)


@settings(max_examples=examples(120), deadline=None)
@given(st.integers(2, 9).flatmap(lambda k: st.tuples(
    st.lists(st.floats(-0.3, 0.3), min_size=k, max_size=k),
    st.lists(st.floats(1e-5, 1e-2), min_size=k, max_size=k))), st.sampled_from([0.9, 0.95]))
def test_pool_equals_statsmodels(data, confidence):
    effects, variances = data
    assert_equal_to_statsmodels(np.array(effects), np.array(variances), confidence)


def test_dl_truncated_at_zero():
    effects, variances = np.array([0.05, 0.051, 0.049]), np.array([1e-3, 2e-3, 1.5e-3])  # Q far below k − 1
    ours = pool(effects, variances)
    assert ours.tau2["dl"] == ours.tau2["pm"] == 0.0
    assert ours.effect["dl"] == ours.effect["fixed"] and ours.ci_low["dl"] == ours.ci_low["fixed"]
    assert ours.i2 == 0.0
    assert_equal_to_statsmodels(effects, variances)


@pytest.mark.parametrize("effect", ["md", "dz"])
def test_collection_effect_is_the_plain_formula(effect):
    rng = np.random.default_rng(4)
    values = rng.beta(2, 3, (2, 30))
    values[0, 3] = np.nan  # a topic the system lacks: left out
    matrix = ScoreMatrix(values, ("sys", "base"), tuple(map(str, range(30))), "AP")
    d = [a - b for a, b in zip(values[0], values[1]) if a == a]
    n = len(d)
    mean = sum(d) / n
    sd = (sum((x - mean) ** 2 for x in d) / (n - 1)) ** 0.5
    expected = (mean, sd**2 / n) if effect == "md" else (mean / sd, 1 / n + (mean / sd) ** 2 / (2 * n))
    got = collection_effect(matrix, "sys", "base", effect)
    assert got[2] == n == 29
    assert got[:2] == pytest.approx(expected, rel=1e-12)


@pytest.fixture(scope="module")
def tracks(reference_data):
    base = reference_data / "confint-score-matrices"
    return {name: read_trec_eval(base / name) for name in TRACKS}


@pytest.mark.parametrize("effect", ["md", "dz"])
def test_worked_example_equals_statsmodels(tracks, effect):
    pairs = {name: best_and_median(scores["AP"]) for name, scores in tracks.items()}
    result = meta_analysis(tracks, {n: p[0] for n, p in pairs.items()}, {n: p[1] for n, p in pairs.items()}, ["AP"],
                           effect=effect, hartung_knapp=True, per_collection=True)
    effects, variances = [], []
    for name, (system, baseline) in pairs.items():
        d = tracks[name]["AP"].system(system) - tracks[name]["AP"].system(baseline)
        n, mean, sd = d.size, d.mean(), d.std(ddof=1)
        effects.append(mean if effect == "md" else mean / sd)
        variances.append(sd**2 / n if effect == "md" else 1 / n + (mean / sd) ** 2 / (2 * n))
    rows, (q, q_p, i2) = statsmodels_rows(np.array(effects), np.array(variances))
    frame = result.to_frame()
    assert frame.columns == COLUMNS
    assert frame["method"].to_list() == ["fixed", "dl", "pm", "dl_hk", "pm_hk", "collection", "collection",
                                         "collection"]
    for row in frame.filter(pl.col("method") != "collection").iter_rows(named=True):
        got = (row["effect"], row["ci_low"], row["ci_high"], row["tau2"], row["q"], row["q_p"], row["i2"])
        assert np.allclose(got, (*rows[row["method"]], q, q_p, i2), rtol=TOL, atol=TOL), row
    own = frame.filter(pl.col("method") == "collection")
    assert own["effect"].to_numpy() == pytest.approx(effects, rel=1e-12)
    assert own["collection"].to_list() == list(TRACKS)


@pytest.fixture(scope="module")
def score_files(tmp_path_factory):
    """Three collections of 5 systems; system names differ per collection."""
    rng = np.random.default_rng(38)
    folder = tmp_path_factory.mktemp("meta")
    paths = {}
    for c, prefix in enumerate(("a", "b", "c")):
        lines = ["system\ttopic\tmeasure\tvalue"]
        for s in range(5):
            for t in range(12 + 4 * c):
                value = min(1.0, rng.beta(2 + s * 0.4 + c * 0.2, 3))
                lines.append(f"{prefix}{s}\t{t}\tAP\t{value:.6f}")
                lines.append(f"{prefix}{s}\t{t}\tP@10\t{min(1.0, value + 0.1):.6f}")
        paths[prefix] = folder / f"{prefix}.tsv"
        paths[prefix].write_text("\n".join(lines) + "\n")
    return paths


def _args(paths, *extra):
    out = []
    for name, path in paths.items():
        out += ["--collection", f"{name}={path}", "--system", f"{name}={name}4", "--baseline", f"{name}={name}0"]
    return [*out, *extra]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("per_collection", [False, True])
def test_cli_prints_the_results_own_printer(score_files, capsys, fmt, per_collection):
    import irstats

    code, out, err = run_cli(["meta-analysis", *_args(score_files, "-m", "AP", "-m", "P@10", "--format", fmt,
                                                      *(["--per-collection"] if per_collection else []))], capsys)
    assert code == 0, err
    scores = {name: irstats.read_scores(path) for name, path in score_files.items()}
    result = meta_analysis(scores, {n: f"{n}4" for n in scores}, {n: f"{n}0" for n in scores}, ["AP", "P@10"],
                           per_collection=per_collection)
    assert out == result.format(fmt)
    if fmt == "tsv":
        import pandas as pd

        frame = pd.read_csv(io.StringIO(out), sep="\t")
        assert list(frame.columns) == COLUMNS
        assert len(frame) == 2 * (3 + 3 * per_collection)
        assert list(frame["method"][:3]) == ["fixed", "dl", "pm"]
    if fmt == "latex":
        assert out.count(r"\begin{table") == out.count(r"\caption{") == out.count(r"\label{") == 1


def test_one_run_name_for_every_collection(tmp_path, capsys):
    paths = {}
    rng = np.random.default_rng(1)
    for name in ("x", "y"):
        lines = ["system\ttopic\tmeasure\tvalue"] + [f"{s}\t{t}\tAP\t{rng.random():.4f}" for s in ("bm25", "rm3")
                                                     for t in range(10)]
        paths[name] = tmp_path / f"{name}.tsv"
        paths[name].write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(["meta-analysis", "--collection", f"x={paths['x']}", "--collection", f"y={paths['y']}",
                              "-m", "AP", "--system", "rm3", "--baseline", "bm25", "--format", "tsv"], capsys)
    assert code == 0, err
    frame = pl.read_csv(io.StringIO(out), separator="\t")
    assert frame["system"].unique().to_list() == ["rm3"] and frame["baseline"].unique().to_list() == ["bm25"]


def test_forest_plot(score_files, tmp_path, capsys):
    code, _, err = run_cli(["meta-analysis", *_args(score_files, "-m", "AP", "--hartung-knapp", "--plot",
                                                    tmp_path / "forest.pdf", "--plot-size", "column")], capsys)
    assert code == 0, err
    data = pl.read_csv(tmp_path / "forest.csv")
    assert data.height == 3 + 5 and (data["ci_low"] <= data["effect"]).all() and (data["effect"] <= data["ci_high"]).all()


def _write(path, rows):
    path.write_text("system\ttopic\tmeasure\tvalue\n" + "".join(f"{s}\t{t}\tAP\t{v}\n" for s, t, v in rows))
    return path


@pytest.mark.parametrize("case, expected", [
    ("one collection", "at least two --collection"),
    ("one system", "has one system"),
    ("constant", "variance 0"),
    ("apart", "share no topics"),
    ("unnamed", "names no run for collection(s) b"),
    ("bad collection", "--collection takes NAME=SCORES"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, case, expected):
    good = _write(tmp_path / "good.tsv", [(s, t, (t * 7 % 5) / 10 + (s == "y") * 0.01 * t) for s in "xy"
                                          for t in range(6)])
    other = {"one system": _write(tmp_path / "one.tsv", [("x", t, 0.1 * t) for t in range(6)]),
             "constant": _write(tmp_path / "const.tsv", [(s, t, 0.1 * t + (s == "y") * 0.05) for s in "xy"
                                                          for t in range(6)]),
             "apart": _write(tmp_path / "apart.tsv", [("x", t, 0.1) for t in range(3)] + [("y", t, 0.2)
                                                                                    for t in range(3, 6)])}
    args = ["meta-analysis", "--collection", f"a={good}", "-m", "AP", "--system", "y", "--baseline", "x"]
    if case in other:
        args += ["--collection", f"b={other[case]}"]
    elif case == "unnamed":
        args = ["meta-analysis", "--collection", f"a={good}", "--collection", f"b={good}", "-m", "AP", "--system",
                "a=y", "--baseline", "x"]
    elif case == "bad collection":
        args += ["--collection", str(good)]
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == "", err
    assert expected in err and len(err.strip().splitlines()) == 1, err


def test_collections_from_qrels_and_runs(reference_data, tmp_path, capsys):
    """NAME=QRELS:RUNS evaluates the runs: here DL 2019's topics split in two "collections"."""
    import irstats

    base = reference_data / "trec-dl-2019-passage"
    runs = sorted((base / "runs").glob("*.run.gz"))[:3]
    lines = (base / "qrels.dl19-passage.txt").read_text().splitlines()
    topics = sorted({line.split()[0] for line in lines})
    halves = {}
    for name, part in (("first", topics[::2]), ("second", topics[1::2])):
        halves[name] = tmp_path / f"{name}.qrels"
        halves[name].write_text("".join(line + "\n" for line in lines if line.split()[0] in set(part)))
    names = [p.name.removesuffix(".run.gz") for p in runs]
    args = ["meta-analysis", *(x for n, q in halves.items() for x in ("--collection", f"{n}={q}:{runs[0]},{runs[1]}")),
            "-m", "nDCG@10", "--system", names[1], "--baseline", names[0], "--format", "tsv"]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    scores = {n: irstats.evaluate(q, runs[:2], ["nDCG@10"]) for n, q in halves.items()}
    assert out == meta_analysis(scores, names[1], names[0], ["nDCG@10"]).to_tsv()
