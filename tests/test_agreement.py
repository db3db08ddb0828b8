"""Agreement between two qrels (METHODS.md §5.7) against scikit-learn's cohen_kappa_score and
the krippendorff package, on random labels, systematically perturbed labels and DL 2019."""

from __future__ import annotations

import krippendorff
import numpy as np
import polars as pl
import pytest

from irstats.errors import IrstatsWarning
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from irstats.agreement import label_agreement
from irstats.errors import InputError
from tests.conftest import DL19_RUNS, examples, run_cli


def _frames(topics, a, b):
    docs = [f"d{i}" for i in range(len(a))]
    return (pl.DataFrame({"topic": topics, "docno": docs, "rel": a}),
            pl.DataFrame({"topic": topics, "docno": docs, "rel": b}))


def _check(a, b, result, categories=None, nominal=True):
    """``categories``: how scikit-learn is to see the labels (it refuses floats as "continuous";
    fixed-width strings of values in [0, 1] sort as the numbers do). ``nominal=False``:
    real-valued labels, whose nominal statistics are not computed (NaN)."""
    values = dict(zip(result.statistics["statistic"], result.statistics["value"]))
    if not nominal:
        assert np.isnan(values.pop("cohen_kappa")) and np.isnan(values.pop("krippendorff_alpha_nominal"))
    assert values["pairs"] == len(a)
    ca, cb = (a, b) if categories is None else ([categories(x) for x in a], [categories(x) for x in b])
    for name, weights in (("cohen_kappa", None), ("cohen_kappa_linear", "linear"),
                          ("cohen_kappa_quadratic", "quadratic")):
        if name not in values:
            continue
        expected = cohen_kappa_score(ca, cb, weights=weights)
        assert values[name] == pytest.approx(expected, abs=1e-12, nan_ok=True), name
    for level in ("nominal", "ordinal", "interval") if nominal else ("ordinal", "interval"):
        expected = krippendorff.alpha(reliability_data=[a, b], level_of_measurement=level)
        assert values[f"krippendorff_alpha_{level}"] == pytest.approx(expected, abs=1e-12), level


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(0, 10**6), st.floats(0.0, 0.9), st.integers(2, 5))
def test_kappa_and_alpha_equal_the_reference_packages(seed, agree, grades):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 120))
    a = rng.integers(0, grades, n)
    b = np.where(rng.random(n) < agree, a, rng.integers(0, grades, n))
    b = np.where(rng.random(n) < 0.2, np.minimum(b + 1, grades - 1), b)  # a systematic upward drift
    if len(set(a.tolist()) | set(b.tolist())) < 2:
        return
    topics = [str(t) for t in rng.integers(0, 6, n)]
    _check(a.tolist(), b.tolist(), label_agreement(*_frames(topics, a.tolist(), b.tolist()), n_resamples=20))


def test_dl19_qrels_against_a_seeded_perturbation(reference_data, tmp_path):
    qrels = reference_data / "trec-dl-2019-passage" / "qrels.dl19-passage.txt"
    frame = pl.read_csv(qrels, separator=" ", has_header=False, new_columns=["topic", "iter", "docno", "rel"],
                        schema_overrides={"topic": pl.String, "docno": pl.String})
    rng = np.random.default_rng(7)
    rel = frame["rel"].to_numpy()
    noisy = np.where(rng.random(len(rel)) < 0.25, np.clip(rel + rng.choice([-1, 1], len(rel)), 0, 3), rel)
    other = tmp_path / "perturbed.qrels"
    frame.with_columns(pl.Series("rel", noisy)).write_csv(other, separator=" ", include_header=False)
    result = label_agreement(qrels, other, n_resamples=200, seed=3)
    _check(rel.tolist(), noisy.tolist(), result)
    stats = result.statistics
    assert (stats["ci_low"] <= stats["value"]).all() and (stats["value"] <= stats["ci_high"]).all()
    again = label_agreement(qrels, other, n_resamples=200, seed=3)
    assert again.statistics.equals(stats)  # the same seed, the same intervals
    assert result.per_topic.height == 43


def test_errors_and_cli(tmp_path, capsys):
    a = tmp_path / "a.qrels"
    b = tmp_path / "b.qrels"
    a.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n2 0 d4 1\n")
    b.write_text("1 0 d1 1\n1 0 d2 1\n2 0 d3 2\n2 0 d4 0\n")
    code, out, err = run_cli(["agreement", a, b, "--format", "tsv", "-n", "50"], capsys)
    assert code == 0, err
    frame = pl.read_csv(out.encode(), separator="\t")
    assert frame.columns == ["statistic", "value", "ci_low", "ci_high"]
    assert frame["value"][1] == pytest.approx(cohen_kappa_score([1, 0, 2, 1], [1, 1, 2, 0]))
    c = tmp_path / "c.qrels"
    c.write_text("9 0 x 1\n")
    with pytest.raises(InputError, match="share no judged"):
        label_agreement(a, c)
    code, out, err = run_cli(["agreement", a, c], capsys)
    assert code == 2 and "Traceback" not in err
    code, out, err = run_cli(["agreement", a, b, "--plot", tmp_path / "g.png"], capsys)
    assert code == 2 and "--runs" in err
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, docs in {"r1": ["d1", "d2", "d3", "d4"], "r2": ["d2", "d1", "d4", "d3"], "r3": ["d4", "d3", "d2", "d1"]}.items():
        (runs / name).write_text("".join(f"{t} Q0 {d} {k} {10 - k} {name}\n" for t in (1, 2)
                                         for k, d in enumerate(docs, 1)))
    code, out, err = run_cli(["agreement", a, b, "--runs", runs, "-m", "P@1", "-n", "20", "--plot", tmp_path / "g.png",
                              "--gains", tmp_path / "g.tsv"], capsys)
    assert code == 0, err
    gains = pl.read_csv(tmp_path / "g.tsv", separator="\t")
    assert gains.columns == ["measure", "system", "mean_a", "mean_b", "rank_a", "rank_b", "rank_gain"]
    assert (tmp_path / "g.png").stat().st_size > 0 and (tmp_path / "g.csv").exists()


def tau_ap(x, y):
    """Yilmaz et al.'s τ_AP by a direct loop: y's ordering judged against x's, both directions averaged."""
    def one(x, y):
        order = sorted(range(len(x)), key=lambda i: -x[i])
        total = 0.0
        for pos in range(1, len(order)):
            item = order[pos]
            total += sum(1 for above in order[:pos] if y[above] > y[item]) / pos
        return 2 * total / (len(x) - 1) - 1
    return (one(x, y) + one(y, x)) / 2


def test_conclusion_agreement_against_scipy_and_plain_loops(reference_data):
    """τ-b = scipy's kendalltau of the system means; τ_AP by a direct loop; top-1; and the
    share of pairs whose scipy ttest_rel significance and direction agree."""
    import math

    import irstats
    from scipy import stats as sps

    from irstats.agreement import conclusion_agreement

    d = reference_data / "trec-dl-2019-passage"
    runs = sorted((d / "runs").glob("*"))[:12]
    frame = pl.read_csv(d / "qrels.dl19-passage.txt", separator=" ", has_header=False,
                        new_columns=["topic", "iter", "docno", "rel"],
                        schema_overrides={"topic": pl.String, "docno": pl.String})
    rng = np.random.default_rng(5)
    rel = frame["rel"].to_numpy()
    noisy = np.where(rng.random(len(rel)) < 0.3, np.clip(rel + rng.choice([-1, 1], len(rel)), 0, 3), rel)
    a = irstats.evaluate(d / "qrels.dl19-passage.txt", runs, ["AP"])["AP"]
    b = irstats.evaluate(frame.select("topic", "docno").with_columns(pl.Series("rel", noisy)), runs, ["AP"])["AP"]
    result = conclusion_agreement({"AP": a}, {"AP": b}, n_resamples=50, seed=1)
    got = dict(zip(result.statistics["statistic"], result.statistics["value"]))
    ma, mb = a.values.mean(axis=1), b.values.mean(axis=1)
    assert got["kendall_tau_b"] == pytest.approx(sps.kendalltau(ma, mb).statistic, abs=1e-12)
    assert got["pearson_r"] == pytest.approx(sps.pearsonr(ma, mb).statistic, abs=1e-12)
    assert got["top1_same"] == float(np.argmax(ma) == np.argmax(mb))

    assert got["tau_ap"] == pytest.approx(tau_ap(ma.tolist(), mb.tolist()), abs=1e-12)
    agree = []
    for i in range(len(ma)):
        for j in range(i + 1, len(ma)):
            def verdict(x):
                test = sps.ttest_rel(x[i], x[j])
                return 0 if not test.pvalue < 0.05 else int(math.copysign(1, np.mean(x[i] - x[j])))
            agree.append(verdict(a.values) == verdict(b.values))
    assert got["significant_pairs_agree"] == pytest.approx(np.mean(agree), abs=1e-12)
    for row in result.statistics.iter_rows(named=True):
        assert row["ci_low"] <= row["value"] + 1e-12 or row["statistic"] == "top1_same"
    # which systems gain or lose: ranks as scipy's rankdata (competition ranking of −mean)
    gains = result.gains("AP")
    rank_a = dict(zip(a.systems, sps.rankdata(-ma, method="min")))
    rank_b = dict(zip(b.systems, sps.rankdata(-mb, method="min")))
    for row in gains.iter_rows(named=True):
        assert (row["rank_a"], row["rank_b"]) == (rank_a[row["system"]], rank_b[row["system"]])
        assert row["rank_gain"] == rank_a[row["system"]] - rank_b[row["system"]]
    assert gains["rank_gain"].to_list() == sorted(gains["rank_gain"].to_list(), reverse=True)
    ax = result.plot()
    assert len(ax.lines) == len(a.systems) and ax.irstats_data.height == len(a.systems)


def test_two_collections_over_different_topics(reference_data, tmp_path, capsys):
    """SynDL's comparison (docs/agreement.md): the same runs under two qrels that judge
    different topics — here NIST's DL 2019 qrels split into two topic sets. The labels are
    left out with a note, each run's topics outside a qrels are warned of in one line for all
    runs, and the conclusions on each set's own topics equal scipy's statistics of
    pytrec_eval's system means."""
    import gzip

    import pytrec_eval
    from scipy import stats as sps

    d = reference_data / "trec-dl-2019-passage"
    lines = (d / "qrels.dl19-passage.txt").read_text().splitlines()
    topics = sorted({line.split()[0] for line in lines})
    halves = {"a": set(topics[::2]), "b": set(topics[1::2])}
    paths, judged = {}, {}
    for name, chosen in halves.items():
        mine = [line for line in lines if line.split()[0] in chosen]
        paths[name] = tmp_path / f"{name}.qrels"
        paths[name].write_text("\n".join(mine) + "\n")
        judged[name] = {}
        for line in mine:
            topic, _, docno, grade = line.split()
            judged[name].setdefault(topic, {})[docno] = int(grade)
    code, out, err = run_cli(["agreement", paths["a"], paths["b"], "--runs", d / "runs", "-m", "nDCG@10",
                              "--all-topics", "--format", "tsv", "-n", "30"], capsys)
    assert code == 0, err
    assert "share no judged (topic, docno) pair" in err and "labels are not compared" in err
    outside = [line for line in err.splitlines() if "not in the qrels are ignored" in line]
    assert len(outside) == 2 and all(f"{len(DL19_RUNS)} runs" in line for line in outside), outside
    frame = pl.read_csv(out.encode(), separator="\t")
    assert frame["measure"].unique().to_list() == ["nDCG@10"]  # no label statistics
    got = dict(zip(frame["statistic"], frame["value"]))
    means = {"a": [], "b": []}
    for run in sorted((d / "runs").glob("*.run.gz")):
        ranking = {}
        with gzip.open(run, "rt") as handle:
            for line in handle:
                topic, _, docno, _, score, _ = line.split()
                ranking.setdefault(topic, {})[docno] = float(score)
        for name in means:
            per_topic = pytrec_eval.RelevanceEvaluator(judged[name], {"ndcg_cut.10"}).evaluate(ranking)
            assert len(per_topic) == len(halves[name])
            means[name].append(np.mean([values["ndcg_cut_10"] for values in per_topic.values()]))
    ma, mb = np.array(means["a"]), np.array(means["b"])
    assert got["kendall_tau_b"] == pytest.approx(sps.kendalltau(ma, mb).statistic, abs=1e-9)
    assert got["pearson_r"] == pytest.approx(sps.pearsonr(ma, mb).statistic, abs=1e-6)
    assert got["tau_ap"] == pytest.approx(tau_ap(ma.tolist(), mb.tolist()), abs=1e-9)
    assert got["top1_same"] == float(np.argmax(ma) == np.argmax(mb))
    # without --all-topics the two sets share no topic: one line saying what to do
    code, out, err = run_cli(["agreement", paths["a"], paths["b"], "--runs", d / "runs", "-m", "nDCG@10"], capsys)
    assert code == 2 and "--all-topics" in err and "Traceback" not in err


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(0, 10**6), st.integers(31, 200))
def test_real_valued_labels_equal_the_reference_packages(seed, distinct):
    """Real-valued labels (an LLM's probabilities against averaged grades): many distinct values,
    every statistic still equal to scikit-learn and krippendorff; no confusion matrix."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 300))
    values = np.round(np.sort(rng.random(distinct)), 6)
    a = values[rng.integers(0, distinct, n)]
    b = np.clip(np.round(a + rng.normal(0, 0.1, n), 2), 0, 1) + 0.0  # + 0.0: no −0 (a string of its own)
    topics = [str(t) for t in rng.integers(0, 8, n)]
    with pytest.warns(IrstatsWarning, match="real-valued labels.*cohen_kappa and krippendorff_alpha_nominal"):
        result = label_agreement(*_frames(topics, a.tolist(), b.tolist()), n_resamples=20)
    _check(a.tolist(), b.tolist(), result, categories=lambda x: f"{x:.17f}", nominal=False)
    assert result.confusion is None


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(0, 10**6))
@example(16779)  # a resample without one of the grades: κ's positions are those of the grades present
def test_weighted_topics_equal_the_replicated_pairs(seed):
    """A bootstrap resample weights each topic by how often it was drawn: the statistics of those
    weights equal the reference packages on the pairs replicated that many times."""
    from irstats.agreement import _Pairs, _statistics

    rng = np.random.default_rng(seed)
    n, n_topics = int(rng.integers(30, 90)), 5
    a = rng.integers(0, 4, n)
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 4, n))
    topic = rng.integers(0, n_topics, n)
    weights = rng.integers(0, 3, n_topics).astype(float)
    if weights.sum() == 0:
        weights[0] = 1
    grades = np.unique(np.concatenate([a, b]))
    pairs = _Pairs(topic, np.searchsorted(grades, a), np.searchsorted(grades, b), grades, n_topics)
    got = _statistics(pairs, weights[None, :])[0]
    repeat = weights[topic].astype(int)
    ra, rb = np.repeat(a, repeat).tolist(), np.repeat(b, repeat).tolist()
    if len(set(ra) | set(rb)) < 2:
        return
    expected = [len(ra), cohen_kappa_score(ra, rb), cohen_kappa_score(ra, rb, weights="linear"),
                cohen_kappa_score(ra, rb, weights="quadratic")]
    expected += [krippendorff.alpha(reliability_data=[ra, rb], level_of_measurement=level)
                 for level in ("nominal", "ordinal", "interval")]
    assert got.tolist() == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_confusion_of_real_valued_labels_is_refused(tmp_path, capsys):
    a, b = tmp_path / "a.qrels", tmp_path / "b.qrels"
    a.write_text("".join(f"1 0 d{i} {i / 100:.2f}\n" for i in range(40)))
    b.write_text("".join(f"1 0 d{i} {(i % 7) / 7:.3f}\n" for i in range(40)))
    code, out, err = run_cli(["agreement", a, b, "--confusion"], capsys)
    assert code == 2 and "bin the labels" in err and "Traceback" not in err
    code, out, err = run_cli(["agreement", a, b, "--format", "tsv"], capsys)
    assert code == 0 and out.splitlines()[1].startswith("pairs\t40")
