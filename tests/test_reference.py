"""Tests of the plain-Python reference implementation (tests/reference.py).

The expected numbers come from METHODS.md §1.10 (worked example), §1.4, §2.9
(trec_eval's bpref_bug note), §2.11 (edge cases) and from rbp_eval's own test
vectors in tests/data/conformance/rbp_eval (1.spec and 4.spec).
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import parse_measure, process_run, reference_evaluate, topic_score  # noqa: E402

TOL6 = 5e-7   # values printed with 6 decimals
TOL4 = 5e-5   # values printed with 4 decimals
RBP_EVAL_MARGIN = 1e-4   # rbp_eval tester.c MARGIN_OF_ERROR; its 4-decimal values are rounded (0.15625 -> 0.1562)

RBP_DIR = Path(__file__).resolve().parent / "data" / "conformance" / "rbp_eval"

# ---------------------------------------------------------------------------
# §1.10 worked example
# ---------------------------------------------------------------------------

EXAMPLE_QRELS = {
    "1": {"d1": 2, "d2": 0, "d3": 1, "d4": 1, "d5": 0, "d6": 2, "d9": 1},
    "2": {"e1": 0, "e2": 1, "e3": 0},
    "3": {"f1": 1},
}
EXAMPLE_RUN = {
    "1": [("d3", 10), ("d2", 9), ("d7", 9), ("d1", 8), ("d8", 7), ("d5", 6), ("d6", 5), ("d4", 4)],
    "2": [("e1", 3), ("e4", 2), ("e3", 1)],
    "4": [("g1", 1)],
}


@pytest.fixture
def example(tmp_path):
    """Write the §1.10 qrels and run to files; return (qrels_path, run_path)."""
    qrels = tmp_path / "example.qrels"
    qrels.write_text("# worked example, METHODS.md 1.10\n\n" + "".join(
        f"{topic} 0 {doc} {rel}\n" for topic, docs in EXAMPLE_QRELS.items()
        for doc, rel in docs.items()))
    run = tmp_path / "example.run"
    run.write_text("".join(
        f"{topic} Q0 {doc} {rank} {score} example\n" for topic, docs in EXAMPLE_RUN.items()
        for rank, (doc, score) in enumerate(docs, start=1)))
    return str(qrels), str(run)


# (measure, value, tolerance) for topic 1, default options.
TOPIC1 = [
    ("AP", 0.485714, TOL6),
    ("AP@5", 0.3, TOL6),
    ("P@5", 0.4, TOL6),
    ("R@10", 0.8, TOL6),
    ("Rprec", 0.4, TOL6),
    ("Bpref", 0.3, TOL6),
    ("RR", 1.0, TOL6),
    ("nDCG", 0.620931, TOL6),
    ("nDCG@5", 0.406463, TOL6),
    ("RBP(p=0.8)", 0.275800, TOL6),
    ("RBP(p=0.8,rel=1)", 0.396772, TOL6),
    ("RBPresid(p=0.8)", 0.409692, TOL6),
    ("ERR@5", 0.390625, TOL6),
    ("ERR@20", 0.412179, TOL6),
    ("Q(beta=1)", 0.480952, TOL6),
    ("Q(beta=1)@5", 0.233333, TOL6),
    ("AP_min@3", 0.333333, TOL6),
    ("Judged@5", 0.6, TOL6),
]


@pytest.mark.parametrize("measure,expected,tol", TOPIC1)
def test_worked_example_topic1(example, measure, expected, tol):
    scores = reference_evaluate(*example, measure)
    assert set(scores) == {"1", "2"}          # topic 3 not in run, topic 4 not in qrels
    assert scores["1"] == pytest.approx(expected, abs=tol)


def test_worked_example_ordering(example):
    qrels, run = example
    lines = [("1", doc, rank, float(score))
             for rank, (doc, score) in enumerate(EXAMPLE_RUN["1"], start=1)]
    assert process_run(lines) == ["d3", "d7", "d2", "d1", "d8", "d5", "d6", "d4"]
    assert process_run(lines, order="rank") == [doc for doc, _ in EXAMPLE_RUN["1"]]
    assert process_run(lines, order="file") == [doc for doc, _ in EXAMPLE_RUN["1"]]
    assert reference_evaluate(qrels, run, "NumRel")["1"] == 5


@pytest.mark.parametrize("measure,expected", [
    ("AP", 0.5867), ("P@5", 0.6), ("Rprec", 0.6), ("nDCG", 0.6835),
    ("nDCG@5", 0.6057), ("Bpref", 0.3), ("NumRet", 6),
])
def test_worked_example_judged_only(example, measure, expected):
    """trec_eval -J line of §1.10."""
    scores = reference_evaluate(*example, measure, judged_only=True)
    assert scores["1"] == pytest.approx(expected, abs=TOL4)


@pytest.mark.parametrize("measure,expected", [("AP", 0.3), ("nDCG", 0.4065), ("NumRelRet", 2)])
def test_worked_example_depth5(example, measure, expected):
    """trec_eval -M 5 line of §1.10."""
    scores = reference_evaluate(*example, measure, depth=5)
    assert scores["1"] == pytest.approx(expected, abs=TOL4)


@pytest.mark.parametrize("measure,expected", [
    ("AP", 0.2679), ("RR", 0.25), ("Rprec", 0.0), ("Bpref", 0.0), ("NumRel", 2), ("nDCG", 0.6209),
])
def test_worked_example_level2(example, measure, expected):
    """trec_eval -l 2 line of §1.10 (nDCG ignores the level)."""
    scores = reference_evaluate(*example, measure, rel_level=2)
    assert scores["1"] == pytest.approx(expected, abs=TOL4)
    # rel=2 in the measure name must give the same value as the global level
    family, params = parse_measure(measure)
    if family in ("AP", "RR", "Rprec", "Bpref", "NumRel"):
        assert reference_evaluate(*example, f"{family}(rel=2)")["1"] == pytest.approx(
            expected, abs=TOL4)


@pytest.mark.parametrize("measure", [m for m, _, _ in TOPIC1 if not m.startswith(("Judged", "RBPresid"))]
                         + ["SP", "DCG", "R@10", "RR@5", "Q(beta=1,norm=min)@5", "NumRelRet"])
def test_worked_example_topic2_zero(example, measure):
    assert reference_evaluate(*example, measure)["2"] == 0.0


def test_worked_example_topic2_residual(example):
    assert reference_evaluate(*example, "RBPresid(p=0.8)")["2"] == pytest.approx(0.672, abs=TOL6)


def test_worked_example_summaries(example):
    """Means and sums of §1.10 (default topics {1, 2}; -c topics {1, 2, 3})."""
    ap = reference_evaluate(*example, "AP")
    assert sum(ap.values()) / len(ap) == pytest.approx(0.2429, abs=TOL4)
    assert sum(reference_evaluate(*example, "NumRet").values()) == 11
    assert sum(reference_evaluate(*example, "NumRel").values()) == 6
    ap_c = reference_evaluate(*example, "AP", complete=True)
    assert set(ap_c) == {"1", "2", "3"}
    assert sum(ap_c.values()) / len(ap_c) == pytest.approx(0.1619, abs=TOL4)
    assert sum(reference_evaluate(*example, "NumRel", complete=True).values()) == 7
    assert reference_evaluate(*example, "RBPresid(p=0.8)", complete=True)["3"] == 1.0


# ---------------------------------------------------------------------------
# Other values stated in METHODS.md
# ---------------------------------------------------------------------------

def test_bpref_bug_note():
    """§2.9: R = 6, N = 4; the run is 1 judged non-relevant then 4 relevant -> 0.5."""
    qrels = {f"r{i}": 1 for i in range(6)} | {f"n{i}": 0 for i in range(4)}
    ranked = ["n0", "r0", "r1", "r2", "r3"]
    assert topic_score(ranked, qrels, "Bpref") == pytest.approx(0.5, abs=1e-12)


def test_score_precision_example(tmp_path):
    """§1.4: a=0.30000002, b=0.30000001 tie in float32 and b (docno desc) goes first."""
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 0.30000002 t\n1 Q0 b 2 0.30000001 t\n")
    assert reference_evaluate(str(qrels), str(run), "RR")["1"] == 1.0
    assert reference_evaluate(str(qrels), str(run), "RR", score_dtype="float32")["1"] == 0.5


def test_empty_run_edge_cases():
    """§2.11: n = 0 gives 0 everywhere, Judged@k = 0 and residual 1."""
    qrels = {"a": 2, "b": 1, "c": 0}
    for measure in ["P@5", "RR", "AP", "AP@5", "AP_min@5", "SP", "Rprec", "R@5", "DCG", "nDCG",
                    "nDCG@5", "RBP(p=0.8)", "RBP(p=0.8,rel=1)", "ERR@20", "Q(beta=1)", "Bpref",
                    "Judged@5", "NumRet", "NumRelRet"]:
        assert topic_score([], qrels, measure, g_max=2) == 0.0, measure
    assert topic_score([], qrels, "RBPresid(p=0.8)") == 1.0
    assert topic_score([], qrels, "NumRel") == 2


def test_parse_measure():
    assert parse_measure("P@10") == ("P", {"k": 10})
    assert parse_measure("P(rel=2)@10") == ("P", {"rel": 2, "k": 10})
    assert parse_measure("AP_min@3") == ("AP_min", {"k": 3})
    assert parse_measure("nDCG(gain=exp)@5") == ("nDCG", {"gain": "exp", "k": 5})
    assert parse_measure("RBP(p=0.8,rel=1)") == ("RBP", {"p": 0.8, "rel": 1})
    assert parse_measure("Q(beta=1,norm=min)@5") == ("Q", {"beta": 1.0, "norm": "min", "k": 5})
    assert parse_measure("SumP") == ("SP", {})
    for bad in ["Foo", "P", "AP(x=1)", "AP@", "RBP(p)"]:
        with pytest.raises(ValueError):
            parse_measure(bad)


# ---------------------------------------------------------------------------
# rbp_eval test vectors (1.spec: noties.run, 4.spec: the same run jumbled)
# ---------------------------------------------------------------------------

def read_spec(path):
    """Parse an rbp_eval .spec file.

    Returns (depths, ps, qrels_path, run_path, queries, averages), where each
    query block is a dict with num_rel, num_ret and, per depth, num_rel_ret and
    a list of (sum, err) per p; ``queries`` is keyed by qid in run order.
    """
    lines = [ln.strip() for ln in Path(path).read_text().splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    args = lines[0].split()
    depths = [int(x) for x in args[args.index("-d") + 1].split(",")]
    ps = [float(x) for x in args[args.index("-p") + 1].split(",")]
    qrels_path, run_path = path.parent / args[-2], path.parent / args[-1]
    assert all(a.startswith("-") or a.replace(",", "").replace(".", "").isdigit()
               for a in args[:-2]), "spec uses options this parser does not model"
    qids = []
    for ln in run_path.read_text().splitlines():
        if ln.split() and ln.split()[0] not in qids:
            qids.append(ln.split()[0])
    values = iter(lines[1:])

    def block():
        out = {"num_rel": float(next(values)), "num_ret": float(next(values)), "depths": {}}
        for d in depths:
            rel_ret = float(next(values))
            out["depths"][d] = (rel_ret, [tuple(map(float, next(values).split())) for _ in ps])
        return out

    queries = {q: block() for q in qids}
    averages = block()
    assert next(values, None) is None
    return depths, ps, qrels_path, run_path, queries, averages


@pytest.mark.parametrize("spec", ["1.spec", "4.spec"])
def test_rbp_eval_spec(spec):
    depths, ps, qrels, run, queries, averages = read_spec(RBP_DIR / spec)
    qrels, run = str(qrels), str(run)
    for q, exp in queries.items():
        assert reference_evaluate(qrels, run, "NumRel")[q] == exp["num_rel"]
        assert reference_evaluate(qrels, run, "NumRet")[q] == exp["num_ret"]
    for d in depths:
        rel_ret = reference_evaluate(qrels, run, "NumRelRet", depth=d)
        assert sum(rel_ret.values()) == averages["depths"][d][0]
        for j, p in enumerate(ps):
            rbp = reference_evaluate(qrels, run, f"RBP(p={p},rel=1)@{d}")
            resid = reference_evaluate(qrels, run, f"RBPresid(p={p})@{d}")
            for q, exp in queries.items():
                assert rel_ret[q] == exp["depths"][d][0]
                exp_sum, exp_err = exp["depths"][d][1][j]
                assert rbp[q] == pytest.approx(exp_sum, abs=RBP_EVAL_MARGIN), (q, d, p)
                assert resid[q] == pytest.approx(exp_err, abs=RBP_EVAL_MARGIN), (q, d, p)
            avg_sum, avg_err = averages["depths"][d][1][j]
            assert sum(rbp.values()) / len(rbp) == pytest.approx(avg_sum, abs=RBP_EVAL_MARGIN)
            assert sum(resid.values()) / len(resid) == pytest.approx(avg_err, abs=RBP_EVAL_MARGIN)
