"""Reproducibility measures (irstats.repro, issue 28) against repro_eval itself and against plain
loops of Breuer et al.'s equations (SIGIR 2020) where repro_eval departs from them.

Data: DL 2019 passage runs as the original baseline (bm25base_p) and advanced run (p_bert) on 8
topics; the "reproduced" runs are perturbed copies — swapped documents and documents replaced
by new ones (baseline), jittered scores re-sorted (advanced), one topic dropped from both — and
a second qrels with perturbed NIST grades and one topic fewer is the "other collection" of the
replication. repro_eval's measures are its 58 trec_eval measures (``-m repro_eval``).
"""

from __future__ import annotations

import gzip
import math
import random
from itertools import combinations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from irstats.repro import (Rankings, kendall_tau_union, rank_biased_overlap, replicability, repro_measures,
                           reproducibility)
from tests.conftest import run_cli

repro_eval = pytest.importorskip("repro_eval", reason="repro-eval is in the [test] extra")

# repro_eval imports scipy.stats.stats and ir_measures' deprecated names, and divides by zero
# where a baseline's mean is 0: its warnings, not irstats'.
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning")]

BASELINE, ADVANCED = "bm25base_p", "p_bert"
N_TOPICS = 8
DROPPED = None  # the topic the reproduced runs lack (set by the data fixture)
TOL = 1e-9


# ----------------------------------------------------------------------------- data

def _read_run(path) -> dict[str, list[tuple[str, float]]]:
    """topic → [(docno, score)] in file order (the runs are written in score order)."""
    out: dict[str, list] = {}
    with gzip.open(path, "rt") as fh:
        for line in fh:
            topic, _, doc, _, score, _ = line.split()
            out.setdefault(topic, []).append((doc, float(score)))
    return out


def _write_run(path, run: dict[str, list[tuple[str, float]]], tag: str) -> str:
    with open(path, "w") as fh:
        for topic in sorted(run):
            for rank, (doc, score) in enumerate(run[topic], start=1):
                fh.write(f"{topic} Q0 {doc} {rank} {score!r} {tag}\n")
    return str(path)


def _swapped(run, rng: random.Random) -> dict:
    """Documents swapped between ranks (scores stay with the ranks) and some replaced by new ones."""
    out = {}
    for topic, ranking in run.items():
        docs, scores = [d for d, _ in ranking], [s for _, s in ranking]
        for _ in range(len(docs) // 20):
            i, j = rng.randrange(len(docs)), rng.randrange(len(docs))
            docs[i], docs[j] = docs[j], docs[i]
        for k in rng.sample(range(len(docs)), len(docs) // 30):
            docs[k] = f"new{topic}x{k}"
        out[topic] = list(zip(docs, scores))
    return out


def _jittered(run, rng: random.Random) -> dict:
    """Scores jittered by 5% of the topic's spread, then the ranking re-sorted by score."""
    out = {}
    for topic, ranking in run.items():
        spread = float(np.std([s for _, s in ranking])) or 1.0
        noisy = [(d, s + rng.gauss(0.0, 0.05 * spread)) for d, s in ranking]
        out[topic] = sorted(noisy, key=lambda ds: (-ds[1], ds[0]))
    return out


@pytest.fixture(scope="module")
def data(reference_data, tmp_path_factory):
    root = reference_data / "trec-dl-2019-passage"
    folder = tmp_path_factory.mktemp("repro")
    base, adv = (_read_run(root / "runs" / f"{name}.run.gz") for name in (BASELINE, ADVANCED))
    qrels_lines = (root / "qrels.dl19-passage.txt").read_text().splitlines()
    topics = sorted({line.split()[0] for line in qrels_lines} & set(base) & set(adv))[:N_TOPICS]
    base, adv = ({t: run[t] for t in topics} for run in (base, adv))
    rng = random.Random(28)
    global DROPPED
    DROPPED = dropped = topics[3]
    rep_base = {t: r for t, r in _swapped(base, rng).items() if t != dropped}
    rep_adv = {t: r for t, r in _jittered(adv, rng).items() if t != dropped}
    qrels = [line for line in qrels_lines if line.split()[0] in topics]
    repl_qrels = []
    for line in qrels:  # NIST's grades moved by one level for a third of the pairs, one topic fewer
        topic, q0, doc, grade = line.split()
        if topic == topics[-1]:
            continue
        if rng.random() < 1 / 3:
            grade = str(min(3, max(0, int(grade) + rng.choice((-1, 1)))))
        repl_qrels.append(f"{topic} {q0} {doc} {grade}")
    paths = {
        "qrels": folder / "qrels.txt", "qrels_repl": folder / "qrels_repl.txt",
        "orig_b": _write_run(folder / "orig_b.run", base, BASELINE),
        "orig_a": _write_run(folder / "orig_a.run", adv, ADVANCED),
        "rep_b": _write_run(folder / "rep_b.run", rep_base, "rep_b"),
        "rep_a": _write_run(folder / "rep_a.run", rep_adv, "rep_a"),
    }
    paths["qrels"].write_text("\n".join(qrels) + "\n")
    paths["qrels_repl"].write_text("\n".join(repl_qrels) + "\n")
    paths = {k: str(v) for k, v in paths.items()}
    return {**paths, "topics": topics, "dropped": dropped,
            "runs": {"orig_b": base, "orig_a": adv, "rep_b": rep_base, "rep_a": rep_adv}}


def _measure_names() -> dict[str, str]:
    """repro_eval's (ir_measures') measure names → irstats' canonical names."""
    import ir_measures

    from irstats.repro import REPRO_EVAL_TREC_MEASURES
    from irstats.trec_eval.table import BY_NAME

    out = {}
    for trec in REPRO_EVAL_TREC_MEASURES:
        ours = [m for _, m in BY_NAME[trec].values()]
        theirs = [str(ir_measures.parse_measure(m)) for m in ir_measures.convert_trec_name(trec)]
        assert len(ours) == len(theirs)
        out.update(zip(theirs, ours))
    return out


NAMES = None


def _names():
    global NAMES
    if NAMES is None:
        NAMES = _measure_names()
    return NAMES


def _values(result, statistic, run="advanced", topic="all") -> dict[str, float]:
    frame = result.to_frame().filter((pl.col("statistic") == statistic) & (pl.col("run") == run)
                                     & (pl.col("topic") == topic))
    return dict(zip(frame["measure"], frame["value"]))


def _per_topic(result, statistic, run) -> dict[str, float]:
    frame = result.to_frame().filter((pl.col("statistic") == statistic) & (pl.col("run") == run)
                                     & (pl.col("topic") != "all"))
    return dict(zip(frame["topic"], frame["value"]))


def _close(a, b, tol=TOL) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


@pytest.fixture(scope="module")
def rpd(data):
    """repro_eval's reproducibility evaluator on the data, trimmed and evaluated as its CLI does."""
    import warnings

    from repro_eval.Evaluator import RpdEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = RpdEvaluator(qrels_orig_path=data["qrels"], run_b_orig_path=data["orig_b"],
                          run_a_orig_path=data["orig_a"], run_b_rep_path=data["rep_b"], run_a_rep_path=data["rep_a"])
        ev.trim()
        ev.evaluate()
    return ev


@pytest.fixture(scope="module")
def ours(data):
    with pytest.warns(Warning):  # the reproduced runs answer 7 of the 8 topics
        return reproducibility(data["qrels"], [data["orig_b"], data["orig_a"]], [data["rep_b"], data["rep_a"]],
                               "repro_eval", ktu_method="union")


@pytest.fixture(scope="module")
def ours_as_repro_eval(data):
    with pytest.warns(Warning):
        return reproducibility(data["qrels"], [data["orig_b"], data["orig_a"]], [data["rep_b"], data["rep_a"]],
                               ["AP"], ktu_method="repro_eval")


# ----------------------------------------------------------------------------- against repro_eval

def test_the_measures_are_repro_evals(ours):
    from repro_eval.util import load_measures

    assert len(repro_measures("repro_eval")) == len(load_measures()) == 58
    assert set(ours.measures) == set(_names().values())


def test_ktu_as_repro_eval(rpd, ours_as_repro_eval):
    theirs = rpd.ktu(per_topic=True)
    assert theirs["baseline"] and theirs["advanced"]
    for run in ("baseline", "advanced"):
        mine = _per_topic(ours_as_repro_eval, "ktu", run)
        assert set(mine) == set(theirs[run])  # the topics both answer: one is dropped
        for topic, value in theirs[run].items():
            assert _close(mine[topic], value), (run, topic, mine[topic], value)
        assert _close(_values(ours_as_repro_eval, "ktu", run)["-"], rpd.ktu()[run])


def test_rbo_as_repro_eval(rpd, ours):
    theirs = rpd.rbo(per_topic=True)
    for run in ("baseline", "advanced"):
        mine = _per_topic(ours, "rbo", run)
        assert set(mine) == set(theirs[run])
        for topic, value in theirs[run].items():
            assert _close(mine[topic], value), (run, topic, mine[topic], value)
        assert _close(_values(ours, "rbo", run)["-"], rpd.rbo()[run])
        assert 0.5 < _values(ours, "rbo", run)["-"] < 1.0  # perturbed, not unrelated


#: Measures whose per-topic scores pytrec_eval (trec_eval 9.x, under repro_eval) computes
#: otherwise than trec_eval 10 (irstats): the interpolated precisions, whose recall cut-offs
#: trec_eval 9 rounds as (long)(r·R + 0.9) and trec_eval 10 as lround(r·R)
#: (tests/test_pytrec_eval.py). Their statistics are compared on irstats' scores only.
ENGINE_DIFFERS = {f"IPrec@0.{k}" for k in range(1, 10)}


def _score_dicts(data, keys, qrels="qrels") -> list[dict]:
    """irstats' per-topic scores of the runs ``keys`` in repro_eval's form, {topic: {measure:
    value}} with ir_measures' names; a qrels topic a run lacks scores 0, as ir_measures does."""
    import warnings

    import irstats

    names = _names()
    out = []
    for key in keys:
        with warnings.catch_warnings():  # the qrels may lack one of the run's topics
            warnings.simplefilter("ignore")
            scores = irstats.evaluate(data[qrels], data[key], list(names.values()), complete=True)
        topics = scores["AP"].topics
        out.append({t: {theirs: float(scores[ours].values[0, j]) for theirs, ours in names.items()}
                    for j, t in enumerate(topics)})
    return out


def _pairs_of_scores(ev, data, qrels="qrels"):
    """(run, original scores, reproduced scores) as repro_eval evaluated them, and as irstats did."""
    mine = _score_dicts(data, ("orig_b", "rep_b", "orig_a", "rep_a"), qrels)
    mine[0], mine[2] = _score_dicts(data, ("orig_b", "orig_a"))  # the originals: always the first qrels
    theirs = [("baseline", ev.run_b_orig_score, ev.run_b_rep_score), ("advanced", ev.run_a_orig_score,
                                                                       ev.run_a_rep_score)]
    ours = [("baseline", mine[0], mine[1]), ("advanced", mine[2], mine[3])]
    return theirs, ours


def _agree(mine: dict, theirs: dict, what, end_to_end: bool) -> int:
    names = _names()
    checked = 0
    for measure, value in theirs.items():
        if end_to_end and measure in ENGINE_DIFFERS:
            continue
        assert _close(mine[names[measure]], value), (what, measure, mine[names[measure]], value)
        checked += 1
    return checked


def test_rmse_as_repro_eval(rpd, ours, data):
    """End to end (repro_eval's evaluation) for the 49 measures pytrec_eval scores as trec_eval
    10, and repro_eval's RMSE on irstats' per-topic scores for all 58."""
    from repro_eval.measure.effectiveness import RMSE

    theirs, on_ours = _pairs_of_scores(rpd, data)
    assert rpd.run_b_rep_score[DROPPED]["AP"] == 0.0  # repro_eval scores the topic the reproduction lacks 0
    for (run, orig, rep), (_, my_orig, my_rep) in zip(theirs, on_ours):
        mine = _values(ours, "rmse", run)
        assert _agree(mine, RMSE(orig, rep), run, True) == 49
        assert _agree(mine, RMSE(my_orig, my_rep), run, False) == 58


def test_er_and_dri_as_repro_eval(rpd, ours, data):
    from repro_eval.measure.overall_effects import DRI, ER

    _, on_ours = _pairs_of_scores(rpd, data)
    (_, ob, rb), (_, oa, ra) = on_ours
    mine_er, mine_dri = _values(ours, "er"), _values(ours, "dri")
    assert _agree(mine_er, rpd.er(), "er", True) == 49
    assert _agree(mine_dri, rpd.dri(), "dri", True) == 49
    kwargs = dict(orig_score_b=ob, orig_score_a=oa, rep_score_b=rb, rep_score_a=ra)
    assert _agree(mine_er, ER(**kwargs), "er", False) == 58
    assert _agree(mine_dri, DRI(**kwargs), "dri", False) == 58


def _ttest(orig, rep, rpd: bool) -> dict:
    import warnings

    from repro_eval.measure.statistics import ttest

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ttest(orig, rep, rpd=rpd)


def test_paired_t_as_repro_eval(rpd, ours, data):
    """Equal wherever repro_eval's p is a number. Where every per-topic difference is 0 (the
    order-free measures of the re-sorted advanced run: P@1000, SetP …) scipy's p is NaN and
    repro_eval keeps it; irstats' one degenerate rule gives 1."""
    theirs, on_ours = _pairs_of_scores(rpd, data)
    names = _names()
    degenerate = 0
    for (run, orig, rep), (_, my_orig, my_rep) in zip(theirs, on_ours):
        mine = _values(ours, "p_value", run)
        for reference, end_to_end in ((_ttest(orig, rep, True), True), (_ttest(my_orig, my_rep, True), False)):
            nan = {m for m, v in reference.items() if math.isnan(v)}
            for measure in nan:
                assert mine[names[measure]] == 1.0 and _values(ours, "rmse", run)[names[measure]] == 0.0
            degenerate += len(nan)
            checked = _agree(mine, {m: v for m, v in reference.items() if m not in nan}, run, end_to_end)
            assert checked + len(nan) == (49 if end_to_end else 58) - (len(nan & ENGINE_DIFFERS) if end_to_end else 0)
    assert degenerate > 0


@pytest.fixture(scope="module")
def rpl(data):
    import warnings

    from repro_eval.Evaluator import RplEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = RplEvaluator(qrels_orig_path=data["qrels"], run_b_orig_path=data["orig_b"],
                          run_a_orig_path=data["orig_a"], run_b_rep_path=data["rep_b"], run_a_rep_path=data["rep_a"],
                          qrels_rpl_path=data["qrels_repl"])
        ev.trim()
        ev.evaluate()
    return ev


def test_replicability_as_repro_eval(rpl, data):
    with pytest.warns(Warning):
        ours = replicability(data["qrels"], [data["orig_b"], data["orig_a"]], data["qrels_repl"],
                             [data["rep_b"], data["rep_a"]], "repro_eval")
    assert ours.n_topics == (N_TOPICS, N_TOPICS - 1)  # the other qrels judge one topic fewer
    assert set(ours.to_frame()["statistic"]) == {"er", "dri", "p_value"}
    theirs, on_ours = _pairs_of_scores(rpl, data, "qrels_repl")
    (_, ob, rb), (_, oa, ra) = on_ours
    from repro_eval.measure.overall_effects import DRI, ER

    kwargs = dict(orig_score_b=ob, orig_score_a=oa, rep_score_b=rb, rep_score_a=ra)
    assert _agree(_values(ours, "er"), rpl.er(), "er", True) == 49
    assert _agree(_values(ours, "dri"), rpl.dri(), "dri", True) == 49
    assert _agree(_values(ours, "er"), ER(**kwargs), "er", False) == 58
    assert _agree(_values(ours, "dri"), DRI(**kwargs), "dri", False) == 58
    for (run, orig, rep), (_, my_orig, my_rep) in zip(theirs, on_ours):
        mine = _values(ours, "p_value", run)
        assert _agree(mine, _ttest(orig, rep, False), run, True) == 49
        assert _agree(mine, _ttest(my_orig, my_rep, False), run, False) == 58


def test_replicability_welch(rpl, data):
    with pytest.warns(Warning):
        ours = replicability(data["qrels"], [data["orig_b"], data["orig_a"]], data["qrels_repl"],
                             [data["rep_b"], data["rep_a"]], ["AP", "P@10"], equal_var=False)
    for run, orig, rep in (("baseline", rpl.run_b_orig_score, rpl.run_b_rep_score),
                           ("advanced", rpl.run_a_orig_score, rpl.run_a_rep_score)):
        for theirs_name, ours_name in (("AP", "AP"), ("P@10", "P@10")):
            x = [orig[t][theirs_name] for t in orig]
            y = [rep[t][theirs_name] for t in rep]
            expected = stats.ttest_ind(x, y, equal_var=False).pvalue
            assert _close(_values(ours, "p_value", run)[ours_name], expected)


# ----------------------------------------------------------------------------- the paper's equations

def _ranking(run: dict, topic: str, depth: int) -> list[str]:
    """The engine's (trec_eval's) order: score descending, then docno descending."""
    return [d for d, _ in sorted(run[topic], key=lambda ds: (ds[1], ds[0]), reverse=True)][:depth]


def _tau_union_loop(a: list[str], b: list[str]) -> float:
    """Eq. (1) on the union: P, Q and the one-sided ties U, V counted pair by pair."""
    rank_a = {d: i for i, d in enumerate(a, 1)}
    rank_b = {d: i for i, d in enumerate(b, 1)}
    union = sorted(set(a) | set(b))
    x = {d: rank_a.get(d, len(a) + 1) for d in union}
    y = {d: rank_b.get(d, len(b) + 1) for d in union}
    P = Q = U = V = 0
    for d, e in combinations(union, 2):
        dx, dy = x[d] - x[e], y[d] - y[e]
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            U += 1
        elif dy == 0:
            V += 1
        elif (dx > 0) == (dy > 0):
            P += 1
        else:
            Q += 1
    return (P - Q) / math.sqrt((P + Q + U) * (P + Q + V))


def test_ktu_is_the_papers_equation(data):
    """Eq. (1) on the top 100 of each ranking (a plain pair loop); on the top 1000 τ-b of the
    union's rank vectors, which is Eq. (1) (scipy)."""
    runs = data["runs"]
    with pytest.warns(Warning):
        shallow = reproducibility(data["qrels"], [data["orig_b"], data["orig_a"]], [data["rep_b"], data["rep_a"]],
                                  ["AP"], order_depth=100)
    for run, orig, rep in (("baseline", "orig_b", "rep_b"), ("advanced", "orig_a", "rep_a")):
        mine = _per_topic(shallow, "ktu", run)
        assert len(mine) == N_TOPICS - 1
        for topic in mine:
            expected = _tau_union_loop(_ranking(runs[orig], topic, 100), _ranking(runs[rep], topic, 100))
            assert _close(mine[topic], expected), (run, topic, mine[topic], expected)


def test_ktu_union_differs_from_repro_evals(data):
    """The departure: repro_eval correlates, rank by rank, the documents' alphabetical positions.
    A reproduction that ranks one new document first and shifts every other down one rank keeps
    the order of all documents but one (Eq. (1): τ near 1); repro_eval's KTU falls to 0.02–0.5."""
    from repro_eval.measure.document_order import KTU

    runs = data["runs"]
    original = {t: _ranking(runs["orig_b"], t, 1000) for t in data["topics"]}
    shifted = {t: ["a-new-document"] + docs[:-1] for t, docs in original.items()}
    rankings = Rankings.of(list(original.values()), list(shifted.values()))
    union, by_rank = kendall_tau_union(rankings), kendall_tau_union(rankings, "repro_eval")
    as_run = {t: {d: float(len(docs) - i) for i, d in enumerate(docs)} for t, docs in original.items()}
    as_rep = {t: {d: float(len(docs) - i) for i, d in enumerate(docs)} for t, docs in shifted.items()}
    theirs = KTU(as_run, as_rep, per_topic=True)
    assert np.allclose(by_rank, [theirs[t] for t in original], rtol=0, atol=TOL)
    assert (union > 0.99).all() and by_rank.mean() < 0.3
    for j, t in enumerate(list(original)[:2]):  # Eq. (1) by the pair loop (the top 300: quick)
        assert _close(kendall_tau_union(Rankings.of([original[t][:300]], [shifted[t][:300]]))[0],
                      _tau_union_loop(original[t][:300], shifted[t][:300]))


def _rbo_ext_loop(a: list[str], b: list[str], p: float) -> float:
    """Webber et al.'s RBO_ext (TOIS 2010, Eq. 32), with the overlap X_d counted by sets."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    s, l = len(short), len(long)

    def overlap(d: int) -> int:
        return len(set(short[:d]) & set(long[:d]))

    x = {d: overlap(d) for d in range(1, l + 1)}
    total = sum(x[d] / d * p ** d for d in range(1, l + 1))
    total += sum(x[s] * (d - s) / (s * d) * p ** d for d in range(s + 1, l + 1))
    return (1 - p) / p * total + ((x[l] - x[s]) / l + x[s] / s) * p ** l


def test_extrapolated_rbo_is_webbers_equation(data):
    runs = data["runs"]
    with pytest.warns(Warning):
        ext = reproducibility(data["qrels"], [data["orig_b"], data["orig_a"]], [data["rep_b"], data["rep_a"]],
                              ["AP"], order_depth=200, rbo_p=0.8, rbo_method="extrapolated")
    for run, orig, rep in (("baseline", "orig_b", "rep_b"), ("advanced", "orig_a", "rep_a")):
        for topic, value in _per_topic(ext, "rbo", run).items():
            expected = _rbo_ext_loop(_ranking(runs[orig], topic, 200), _ranking(runs[rep], topic, 200), 0.8)
            assert _close(value, expected), (run, topic, value, expected)


def test_rbo_on_lists_of_different_lengths():
    """Both methods against their plain loops, where one list is shorter than the other and the
    depth (repro_eval's ``_rbo`` walks D ranks whatever the lengths)."""
    rng = random.Random(5)
    a_lists, b_lists = [], []
    for _ in range(30):
        docs = [f"d{i}" for i in range(40)]
        a_lists.append(rng.sample(docs, rng.randint(1, 25)))
        b_lists.append(rng.sample(docs, rng.randint(1, 25)))
    rankings = Rankings.of(a_lists, b_lists)
    from repro_eval.measure.document_order import _rbo

    theirs = [_rbo(b, a, p=0.9, depth=30) for a, b in zip(a_lists, b_lists)]
    assert np.allclose(rank_biased_overlap(rankings, 0.9, 30), theirs, rtol=0, atol=TOL)
    ext = [_rbo_ext_loop(a, b, 0.9) for a, b in zip(a_lists, b_lists)]
    assert np.allclose(rank_biased_overlap(rankings, 0.9, 30, "extrapolated"), ext, rtol=0, atol=TOL)
    union = [_tau_union_loop(a, b) for a, b in zip(a_lists, b_lists)]
    assert np.allclose(kendall_tau_union(rankings), union, rtol=0, atol=TOL)
    # repro_eval's KTU needs equal lengths (scipy raises otherwise): NaN there
    same = np.array([len(a) == len(b) for a, b in zip(a_lists, b_lists)])
    assert np.isnan(kendall_tau_union(rankings, "repro_eval")[~same]).all()


@pytest.mark.parametrize("complete", [True, False])
def test_effects_are_the_papers_equations(data, complete):
    """Eqs. (3)–(6) by plain loops over the per-topic scores of the runs (irstats' engine,
    checked against trec_eval elsewhere): a topic a run lacks scores 0 (``complete``, the
    default, as repro_eval) or is left out of each comparison."""
    import irstats

    names = ["AP", "nDCG@10", "P@10"]
    with pytest.warns(Warning):
        ours = reproducibility(data["qrels"], [data["orig_b"], data["orig_a"]], [data["rep_b"], data["rep_a"]], names,
                               complete=complete)
        scores = {k: irstats.evaluate(data["qrels"], data[k], names) for k in ("orig_b", "orig_a", "rep_b", "rep_a")}

    def per_topic(key, measure):
        m = scores[key][measure]
        answered = {t: float(v) for t, v in zip(m.topics, m.values[0]) if not math.isnan(v)}
        return {t: answered.get(t, 0.0) for t in data["topics"]} if complete else answered

    def mean(values):
        return sum(values) / len(values)

    for measure in names:
        ob, oa, rb, ra = (per_topic(k, measure) for k in ("orig_b", "orig_a", "rep_b", "rep_a"))
        assert len(rb) == (N_TOPICS if complete else N_TOPICS - 1)
        gain_o, gain_r = mean([oa[t] - ob[t] for t in ob]), mean([ra[t] - rb[t] for t in rb])
        assert _close(_values(ours, "er")[measure], gain_r / gain_o)
        ri_o = (mean(oa.values()) - mean(ob.values())) / mean(ob.values())
        ri_r = (mean(ra.values()) - mean(rb.values())) / mean(rb.values())
        assert _close(_values(ours, "dri")[measure], ri_o - ri_r)
        for run, o, r in (("baseline", ob, rb), ("advanced", oa, ra)):
            shared = [t for t in o if t in r]
            rmse = math.sqrt(sum((o[t] - r[t]) ** 2 for t in shared) / len(shared))
            assert _close(_values(ours, "rmse", run)[measure], rmse)
            d = [o[t] - r[t] for t in shared]
            sd = math.sqrt(sum((x - mean(d)) ** 2 for x in d) / (len(d) - 1))
            expected = 1.0 if sd == 0 else 2 * stats.t.sf(abs(mean(d) / (sd / math.sqrt(len(d)))), len(d) - 1)
            assert _close(_values(ours, "p_value", run)[measure], expected)


def test_rankings_come_from_scores_not_from_the_file_order(data, tmp_path):
    """repro_eval ranks KTU/RBO documents in file order; irstats by score (trec_eval's order):
    a file with its lines shuffled within topics gives irstats the same numbers."""
    run = data["runs"]["orig_b"]
    rng = random.Random(3)
    shuffled = {t: rng.sample(r, len(r)) for t, r in run.items()}
    path = _write_run(tmp_path / "shuffled.run", shuffled, BASELINE)
    with pytest.warns(Warning):
        plain = reproducibility(data["qrels"], data["orig_b"], data["rep_b"], ["AP"])
        mixed = reproducibility(data["qrels"], path, data["rep_b"], ["AP"])
    assert plain.to_frame().equals(mixed.to_frame())


# ----------------------------------------------------------------------------- the result and the command

def test_result_prints_itself(ours):
    frame = ours.to_frame()
    assert frame.columns == ["measure", "statistic", "run", "topic", "value"]
    assert set(frame["statistic"]) == {"ktu", "rbo", "rmse", "er", "dri", "p_value"}
    assert set(frame["run"]) == {"baseline", "advanced"}
    assert set(frame.filter(pl.col("statistic").is_in(["er", "dri"]))["run"]) == {"advanced"}
    assert frame.filter(pl.col("statistic").is_in(["rmse", "er", "dri", "p_value"]))["topic"].unique().to_list() == ["all"]
    assert frame.filter(pl.col("statistic") == "ktu").height == 2 * (N_TOPICS - 1) + 2
    text = str(ours)
    assert text.startswith("Reproduction of") and "KTU" in text and "ΔRI" in text
    assert "\\begin{table" in ours.to_latex() and "\\label{tab:reproducibility-" in ours.to_latex()
    assert ours.to_markdown().startswith("**Reproduction")
    assert ours.to_tsv().splitlines()[0] == "measure\tstatistic\trun\ttopic\tvalue"
    assert ours.summary().columns == ["measure", "statistic", "baseline", "advanced"]


def test_figures(ours):
    import matplotlib.pyplot as plt

    from irstats.plots.repro import plot_effects

    ax = ours.plot_order()
    assert ax.irstats_data.columns == ["topic", "run", "ktu", "rbo"]
    _, given = plt.subplots()
    assert ours.plot_effects(ax=given) is given
    ax = plot_effects([ours, ours], labels=["one", "two"], measures=["AP", "P@10"])
    assert ax.irstats_data.height == 4
    plt.close("all")


def test_command_line(data, capsys, tmp_path):
    code, out, err = run_cli(["repro", "--qrels", data["qrels"], "--orig", data["orig_b"], data["orig_a"],
                              "--repro", data["rep_b"], data["rep_a"], "-m", "map", "-m", "P.5,10", "--format", "tsv",
                              "--plot-effects", tmp_path / "er.png"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "measure\tstatistic\trun\ttopic\tvalue"
    assert {line.split("\t")[0] for line in lines[1:]} == {"-", "AP", "P@5", "P@10"}
    assert (tmp_path / "er.png").exists() and (tmp_path / "er.csv").exists()
    code, out, err = run_cli(["repro", "--qrels", data["qrels"], "--qrels-repl", data["qrels_repl"], "--orig",
                              data["orig_b"], "--repl", data["rep_b"], "--welch"], capsys)
    assert code == 0, err
    assert out.startswith("Replication of") and "Welch" in out
    code, _, err = run_cli(["repro", "--qrels", data["qrels"], "--orig", data["orig_b"], data["orig_a"],
                            "--repro", data["rep_b"]], capsys)
    assert code == 2 and "1 run(s) for 2 original run(s)" in err
    code, _, err = run_cli(["repro", "--qrels", data["qrels"], "--orig", data["orig_b"], "--repl", data["rep_b"]],
                           capsys)
    assert code == 2 and "--qrels-repl" in err


def test_spread_run_lists():
    from irstats.cli.repro_cmd import spread_run_lists

    assert spread_run_lists(["--orig", "b", "a", "--repro", "-", "x", "-m", "AP"]) == [
        "--orig", "b", "--orig", "a", "--repro", "-", "--repro", "x", "-m", "AP"]


def test_report_section(data, tmp_path):
    """``irstats report --repro-orig … --repro-run …``: the section, its tables and figures."""
    from irstats.report import build_report

    result = build_report(data["qrels"], [data["orig_b"], data["orig_a"]], tmp_path / "study", measures=["AP"],
                          quick=True, figures=True, progress=False, repro_orig=[data["orig_b"], data["orig_a"]],
                          repro_run=[data["rep_b"], data["rep_a"]])
    summary = result.tables["repro_summary"]
    assert summary.columns == ["measure", "statistic", "baseline", "advanced"]
    with pytest.warns(Warning):  # the reproduced runs lack a topic (the report keeps it as a note)
        alone = reproducibility(data["qrels"], [data["orig_b"], data["orig_a"]], [data["rep_b"], data["rep_a"]],
                                ["AP"])
    assert summary.filter(pl.col("statistic") == "er")["advanced"][0] == pytest.approx(alone.er[0], abs=TOL)
    for name in ("repro_order", "repro_effects"):
        assert (tmp_path / "study" / "figures" / f"{name}.png").exists()
    assert "## " in (tmp_path / "study" / "report.md").read_text() and "Reproduction" in (
        tmp_path / "study" / "report.md").read_text()
    with pytest.raises(Exception, match="--repro-orig and --repro-run"):
        build_report(data["qrels"], data["orig_b"], tmp_path / "other", repro_orig=[data["orig_b"]])
