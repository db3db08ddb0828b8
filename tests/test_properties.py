"""Property tests of the vectorised engine (``irstats.evaluate``) against the plain-loop
reference implementation (tests/reference.py) and against invariants of METHODS.md §1–2.

Every example is a small random collection written to temporary files: 1–4 topics with
opaque string ids ("1" and "01" are different topics), graded qrels −1..3 (−1 = in the pool
but unjudged), 1–3 runs of 0–30 documents per topic with deliberately tied scores and
ranks, runs that miss some qrels topics and runs that hold a topic the qrels lack.
"""

from __future__ import annotations

import math
import os
import struct
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import irstats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import process_run, reference_evaluate  # noqa: E402
from tests.conftest import examples  # noqa: E402

# --------------------------------------------------------------------------- measures

MEASURES = [
    "P@5", "P@10", "RR", "RR@3", "AP", "AP@5", "AP_min@3", "AP_min@10", "SP", "Rprec",
    "R@5", "R@10", "DCG", "DCG@5", "nDCG", "nDCG@5", "nDCG(gain=exp)", "nDCG(gain=exp)@5",
    "RBP(p=0.8)", "RBP(p=0.8,rel=1)", "RBP(p=0.8)@5", "RBPresid(p=0.8)", "RBPresid(p=0.8)@5",
    "ERR@5", "ERR@20", "Q(beta=1)", "Q(beta=1)@5", "Q(beta=1,norm=min)@5", "Q(beta=1,norm=min)",
    "Bpref", "Judged@5", "Judged@10", "NumRet", "NumRel", "NumRelRet",
    "P(rel=2)@10", "RR(rel=2)", "AP(rel=2)", "Bpref(rel=2)", "RBP(p=0.8,rel=2)",
]
UNBOUNDED = {"SP", "DCG", "DCG@5", "NumRet", "NumRel", "NumRelRet"}
BOUNDED = [m for m in MEASURES if m not in UNBOUNDED]

OPTION_SETS = [
    {},
    {"rel_level": 2},
    {"depth": 5},
    {"judged_only": True},
    {"order": "rank"},
    {"complete": True},
    {"order": "file", "judged_only": True, "depth": 5, "rel_level": 2, "complete": True},
]

FAST = settings(max_examples=examples(40), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])

# --------------------------------------------------------------------------- strategy

TOPIC_POOL = ["1", "01", "2", "10", "b"]
EXTRA_TOPIC = "99"  # appears in runs only: ignored with a warning
DOC_POOL = ([f"d{i}" for i in range(1, 25)]
            + ["d01", "d001", "D1", "D10", "x", "X", "d#7", "é1", "e1", "Z", "z9", "ä", "d-1"])
SCORES = [-1.0, 0.0, 0.0, 0.25, 0.5, 0.5, 1.0, 1.0, 1.0, 2.0, 3.5, 1e-3, 10.0]


@st.composite
def collections(draw):
    """A random collection: ``{"qrels": {topic: {docno: grade}}, "runs": [run, ...]}``.

    A run is ``{"tag": str, "lines": [(topic, docno, rank, score), ...]}`` in file order.
    """
    topics = draw(st.lists(st.sampled_from(TOPIC_POOL), min_size=1, max_size=4, unique=True))
    qrels = {
        t: draw(st.dictionaries(st.sampled_from(DOC_POOL), st.integers(-1, 3), min_size=1, max_size=15))
        for t in topics
    }
    n_runs = draw(st.integers(1, 3))
    runs = []
    for r in range(n_runs):
        run_topics = draw(st.lists(st.sampled_from(topics + [EXTRA_TOPIC]), max_size=5, unique=True))
        # at least one topic in common with the qrels, holding at least one document
        first = draw(st.sampled_from(topics))
        if first in run_topics:
            run_topics.remove(first)
        lines = []
        for i, t in enumerate([first] + run_topics):
            docs = draw(st.lists(st.sampled_from(DOC_POOL), unique=True, min_size=1 if i == 0 else 0, max_size=30))
            for pos, d in enumerate(docs):
                score = draw(st.sampled_from(SCORES))
                # ranks: mostly the position, sometimes a tied or shuffled small number
                rank = draw(st.one_of(st.just(pos + 1), st.integers(1, 6)))
                lines.append((t, d, rank, score))
        if draw(st.booleans()):
            lines = draw(st.permutations(lines))  # topics interleaved in the file
        runs.append({"tag": f"run{r}", "lines": lines})
    # file layout: separator, extra trailing run fields, a comment header (fast and careful readers)
    # "mixed": every gap between fields of every line is drawn from a list of blanks
    style = {"sep": draw(st.sampled_from([" ", " ", "\t", "  ", " \t", "mixed"])), "extra": draw(st.booleans()),
             "comment": draw(st.booleans()),
             "gaps": draw(st.lists(st.sampled_from([" ", " ", " ", "  ", "\t", " \t "]), min_size=1, max_size=7))}
    return {"qrels": qrels, "runs": runs, "style": style}


def join(fields: list[str], style: dict, i: int) -> str:
    """Line i of a file: the fields separated as the style says."""
    sep = style.get("sep", " ")
    if sep != "mixed":
        return sep.join(fields) + "\n"
    gaps = style["gaps"]
    out = fields[0]
    for j, f in enumerate(fields[1:]):
        out += gaps[(3 * i + j) % len(gaps)] + f
    return out + "\n"


def qrels_lines(qrels: dict, style: dict | None = None) -> list[str]:
    style = style or {}
    rows = [(t, "0", d, str(g)) for t, docs in qrels.items() for d, g in docs.items()]
    return [join(list(r), style, i) for i, r in enumerate(rows)]


def run_lines(run: dict, style: dict | None = None) -> list[str]:
    style = style or {}
    out = []
    for i, (t, d, rank, score) in enumerate(run["lines"]):
        fields = [t, "Q0", d, str(rank), repr(score), run["tag"]]
        if style.get("extra"):
            fields += ["x"] * (i % 3)  # 0, 1 or 2 ignored trailing fields
        out.append(join(fields, style, i))
    return out


def write(directory: str, name: str, lines: list[str]) -> str:
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(lines)
    return path


def write_collection(directory: str, coll: dict, qrels_order=None, run_orders=None) -> tuple[str, list[str]]:
    """Write qrels and runs (optionally with lines permuted); return (qrels path, run paths)."""
    style = coll.get("style", {})
    ql = qrels_lines(coll["qrels"], style)
    if qrels_order is not None:
        ql = [ql[i] for i in qrels_order]
    header = ["# header\n", "\n"] if style.get("comment") else []
    qpath = write(directory, "qrels.txt", header + ql)
    rpaths = []
    for i, run in enumerate(coll["runs"]):
        rl = run_lines(run, style)
        if run_orders is not None:
            rl = [rl[j] for j in run_orders[i]]
        rpaths.append(write(directory, f"{run['tag']}.run", header + rl))
    return qpath, rpaths


# --------------------------------------------------------------------------- helpers


def engine(qrels, runs, measures, **opts) -> dict:
    """``{measure: {system: {topic: value}}}`` from irstats.evaluate (NaN cells left out)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = irstats.evaluate(qrels, runs, measures, **opts)
    out = {}
    for m in measures:
        key = str(irstats.parse_measure(m))
        sm = result[key]
        assert sm.values.shape == (len(sm.systems), len(sm.topics))
        out[m] = {
            s: {t: float(sm.values[i, j]) for j, t in enumerate(sm.topics) if not np.isnan(sm.values[i, j])}
            for i, s in enumerate(sm.systems)
        }
    return out


def reference(qrels_path, run_paths, tags, measures, **opts) -> dict:
    return {m: {tag: reference_evaluate(qrels_path, path, m, **opts) for tag, path in zip(tags, run_paths)}
            for m in measures}


def assert_same(got: dict, want: dict, context: str, tol: float = 1e-12):
    for m, by_sys in want.items():
        assert set(got[m]) == set(by_sys), f"{context} {m}: systems {sorted(got[m])} != {sorted(by_sys)}"
        for s, by_topic in by_sys.items():
            g = got[m][s]
            assert set(g) == set(by_topic), \
                f"{context} {m} {s}: topics evaluated {sorted(g)} != reference {sorted(by_topic)}"
            for t, v in by_topic.items():
                assert math.isclose(g[t], v, rel_tol=0, abs_tol=tol), \
                    f"{context} {m} system {s} topic {t!r}: engine {g[t]!r} != reference {v!r}"


def grade(qrels_topic: dict, docno: str):
    g = qrels_topic.get(docno)
    return None if g is None or g < 0 else g


# --------------------------------------------------------------------------- properties


@FAST
@given(collections())
def test_engine_matches_reference(coll):
    """Every measure, every run and topic, under each option set: engine == reference (1e-12)."""
    tags = [r["tag"] for r in coll["runs"]]
    with tempfile.TemporaryDirectory() as d:
        qpath, rpaths = write_collection(d, coll)
        for opts in OPTION_SETS:
            got = engine(qpath, rpaths, MEASURES, **opts)
            want = reference(qpath, rpaths, tags, MEASURES, **opts)
            assert_same(got, want, f"options={opts}")


@FAST
@given(collections())
def test_bounded_measures_in_unit_interval(coll):
    with tempfile.TemporaryDirectory() as d:
        qpath, rpaths = write_collection(d, coll)
        for opts in ({}, {"judged_only": True}, {"depth": 5, "complete": True}, {"rel_level": 2}):
            got = engine(qpath, rpaths, BOUNDED, **opts)
            for m in BOUNDED:
                for s, by_topic in got[m].items():
                    for t, v in by_topic.items():
                        # 1e-12: float rounding, e.g. a residual (1-p)(1+p+...+p^(n-1)) + p^n
                        assert -1e-12 <= v <= 1.0 + 1e-12, f"options={opts} {m} {s} {t!r}: {v} outside [0, 1]"
            for rbp, resid in (("RBP(p=0.8)", "RBPresid(p=0.8)"), ("RBP(p=0.8,rel=1)", "RBPresid(p=0.8)"),
                               ("RBP(p=0.8)@5", "RBPresid(p=0.8)@5")):
                for s, by_topic in got[rbp].items():
                    for t, v in by_topic.items():
                        assert v + got[resid][s][t] <= 1 + 1e-12, f"options={opts} {rbp} + {resid} > 1 ({s}, {t!r})"


@FAST
@given(collections(), st.integers(0, 3))
def test_perfect_ranking_scores_one(coll, n_extra):
    """All relevant documents on top in descending grade order: AP = nDCG = Rprec = 1."""
    qrels = coll["qrels"]
    good = {t: docs for t, docs in qrels.items() if any(g >= 1 for g in docs.values())}
    assume(good)
    lines = []
    for t, docs in good.items():
        rel = sorted((d for d, g in docs.items() if g >= 1), key=lambda d: -docs[d])
        others = [d for d in DOC_POOL if d not in rel][:n_extra]
        for i, d in enumerate(rel + others):
            lines.append(f"{t} Q0 {d} {i + 1} {100 - i} perfect\n")
    with tempfile.TemporaryDirectory() as d:
        qpath = write(d, "qrels.txt", qrels_lines(qrels))
        rpath = write(d, "perfect.run", lines)
        got = engine(qpath, rpath, ["AP", "nDCG", "Rprec", "nDCG(gain=exp)", "Bpref", "RR"])
    for m in ("AP", "nDCG", "Rprec", "nDCG(gain=exp)", "Bpref", "RR"):
        assert set(got[m]["perfect"]) == set(good)
        for t, v in got[m]["perfect"].items():
            assert math.isclose(v, 1.0, abs_tol=1e-12), f"{m} topic {t!r}: {v} != 1 for a perfect ranking"


@FAST
@given(collections(), st.data())
def test_shuffling_input_lines_changes_nothing(coll, data):
    """Default order (score desc, docno desc) makes the result independent of line order."""
    nq = sum(len(docs) for docs in coll["qrels"].values())
    q_perm = data.draw(st.permutations(range(nq)))
    r_perms = [data.draw(st.permutations(range(len(r["lines"])))) for r in coll["runs"]]
    with tempfile.TemporaryDirectory() as d:
        qpath, rpaths = write_collection(d, coll)
        base = engine(qpath, rpaths, MEASURES)
    with tempfile.TemporaryDirectory() as d:
        qpath, rpaths = write_collection(d, coll, q_perm, r_perms)
        shuffled = engine(qpath, rpaths, MEASURES)
    assert shuffled == base


@FAST
@given(collections(), st.data())
def test_whitespace_layout_changes_nothing(coll, data):
    """Fields are separated by any run of blanks: widening some gaps in some lines (the
    file otherwise single-space separated), or adding leading/trailing blanks, changes nothing."""
    coll["style"] = {"sep": " "}
    blanks = st.sampled_from(["  ", "   ", " \t", "\t", "\t\t"])
    edits = []
    for run in coll["runs"]:
        n = len(run["lines"])
        edits.append(data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(-1, 5), blanks),
                                        min_size=1, max_size=4)) if n else [])
    with tempfile.TemporaryDirectory() as d:
        qpath, rpaths = write_collection(d, coll)
        base = engine(qpath, rpaths, MEASURES)
        for path, run_edits in zip(rpaths, edits):
            with open(path, encoding="utf-8") as fh:
                rows = [line.split() for line in fh]
            layout = [{"lead": "", "gaps": [" "] * (len(f) - 1), "trail": ""} for f in rows]
            for i, j, gap in run_edits:
                if j == -1:
                    layout[i]["lead"] = gap
                elif j == 5:
                    layout[i]["trail"] = gap
                else:
                    layout[i]["gaps"][j] = gap
            text = []
            for f, lay in zip(rows, layout):
                line = f[0] + "".join(g + x for g, x in zip(lay["gaps"], f[1:]))
                text.append(lay["lead"] + line + lay["trail"] + "\n")
            write(d, os.path.basename(path), text)
        edited = engine(qpath, rpaths, MEASURES)
    assert edited == base, f"edits {edits}"


def condensed_collection(coll: dict, depth) -> dict:
    """The runs with every unjudged document removed, after ordering and truncation to depth."""
    qrels = coll["qrels"]
    runs = []
    for run in coll["runs"]:
        by_topic: dict = {}
        for line in run["lines"]:
            by_topic.setdefault(line[0], []).append(line)
        kept = []
        for t, lines in by_topic.items():
            if t not in qrels:
                continue  # every document of a topic outside the qrels is unjudged
            ranked = process_run(lines, depth=depth)
            score = {line[1]: line for line in lines}
            kept.extend(score[doc] for doc in ranked if grade(qrels[t], doc) is not None)
        runs.append({"tag": run["tag"], "lines": kept})
    return {"qrels": qrels, "runs": runs, "style": coll.get("style", {})}


@FAST
@given(collections(), st.sampled_from([None, 1000, 5, 3]))
def test_condensed_equals_removing_unjudged(coll, depth):
    """judged_only=True == evaluating the run with its unjudged documents deleted (§1.7:
    order, truncate to M, then condense), for every measure."""
    cond = condensed_collection(coll, depth)
    keep = [i for i, r in enumerate(cond["runs"]) if r["lines"]]
    assume(keep)
    with tempfile.TemporaryDirectory() as d:
        qpath, rpaths = write_collection(d, coll)
        rpaths = [rpaths[i] for i in keep]
        full = engine(qpath, rpaths, MEASURES, judged_only=True, depth=depth, complete=True)
        partial = engine(qpath, rpaths, MEASURES, judged_only=True, depth=depth)
    cond["runs"] = [cond["runs"][i] for i in keep]
    with tempfile.TemporaryDirectory() as d:
        qpath, rpaths = write_collection(d, cond)
        filtered_full = engine(qpath, rpaths, MEASURES, depth=None, complete=True)
        filtered = engine(qpath, rpaths, MEASURES, depth=None)
    # complete=True: a topic whose documents are all unjudged is an empty list either way
    assert_same(full, filtered_full, f"judged_only depth={depth} complete=True")
    # default: every topic of the filtered run is scored identically by the condensed run
    for m, by_sys in filtered.items():
        for s, by_topic in by_sys.items():
            for t, v in by_topic.items():
                assert math.isclose(partial[m][s][t], v, abs_tol=1e-12), (m, s, t, partial[m][s][t], v)


# --------------------------------------------------------------------------- §1.4 float32


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def test_float32_score_example(tmp_path):
    """METHODS §1.4 [REF-D]: a→1, b→0; scores 0.30000002 / 0.30000001: RR 1.0 (float64),
    0.5 (float32: the scores tie and docno descending puts b first)."""
    assert _f32(0.30000002) == _f32(0.30000001)
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 0.30000002 r\n1 Q0 b 2 0.30000001 r\n")
    r64 = irstats.evaluate(str(qrels), str(run), ["RR", "AP"])
    r32 = irstats.evaluate(str(qrels), str(run), ["RR", "AP"], score_dtype="float32")
    assert r64["RR"].values[0, 0] == 1.0
    assert r32["RR"].values[0, 0] == 0.5
    assert r32["AP"].values[0, 0] == 0.5
    assert reference_evaluate(str(qrels), str(run), "RR", score_dtype="float32") == {"1": 0.5}
    assert reference_evaluate(str(qrels), str(run), "RR") == {"1": 1.0}


@FAST
@given(collections())
def test_float32_matches_reference(coll):
    """score_dtype='float32' with scores that are distinct doubles but equal floats."""
    for run in coll["runs"]:
        run["lines"] = [(t, d, rank, 0.30000001 if s > 0.5 else (0.30000002 if s > 0 else s))
                        for t, d, rank, s in run["lines"]]
    tags = [r["tag"] for r in coll["runs"]]
    with tempfile.TemporaryDirectory() as d:
        qpath, rpaths = write_collection(d, coll)
        for dtype in ("float32", "float64"):
            got = engine(qpath, rpaths, ["RR", "AP", "nDCG@5", "RBP(p=0.8)"], score_dtype=dtype)
            want = reference(qpath, rpaths, tags, ["RR", "AP", "nDCG@5", "RBP(p=0.8)"], score_dtype=dtype)
            assert_same(got, want, f"score_dtype={dtype}")
