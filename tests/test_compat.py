"""Compat (Clarke, Vtyurina & Smucker 2021) against ir_measures' compat provider: on TREC DL
2019 runs per topic, and on random runs (hypothesis) against its ``compatibility`` function.

ir_measures' compat is pure Python (a set intersection per rank per topic): the 14 runs of
tests/data take half a minute, so the quick test budget compares 8 of them, the full one (``--full``) all 14."""

from __future__ import annotations

import gzip

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import Compat
from ir_measures.providers.compat_provider import compatibility

import irstats
from tests.conftest import DL19_RUNS, examples, spread


def _in_compats_order(source, target):
    """ir_measures' compat ranks by score, then docno ascending: write the run that way, and
    evaluate it in file order (irstats' own tie rule is trec_eval's, docno descending)."""
    rows = [line.split() for line in gzip.open(source, "rt") if line.strip()]
    rows.sort(key=lambda r: (r[0], -float(r[4]), r[2]))
    target.write_text("".join(" ".join(r) + "\n" for r in rows))
    return rows


def _comparable_topics(rows, grades) -> set:
    """Topics where compat's ideal ranking is the definition's: ir_measures orders equally
    relevant documents by their run score with 0.0 for unretrieved ones, so a relevant
    document with a score ≤ 0 lands after the unretrieved ones, and equal scores fall back
    to the qrels file's order. irstats puts retrieved documents first, in the run's order
    (Clarke et al.'s tie rule). Topics with such documents are left out of the comparison."""
    bad = set()
    seen: dict = {}
    for topic, _, docno, _, score, _ in rows:
        grade = grades.get((topic, docno), 0)
        if grade > 0:
            key = (topic, grade, score)
            if float(score) <= 0 or key in seen:
                bad.add(topic)
            seen[key] = True
    return {r[0] for r in rows} - bad


def test_equal_to_ir_measures_on_dl19(reference_data, tmp_path):
    folder = reference_data / "trec-dl-2019-passage"
    qrels_path = folder / "qrels.dl19-passage.txt"
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    grades = {(q.query_id, q.doc_id): q.relevance for q in qrels}
    pairs = [(Compat(p=0.95), "Compat(p=0.95)"), (Compat(p=0.8), "Compat(p=0.8)"),
             (Compat(p=0.95, normalize=False), "Compat(p=0.95,normalize=false)")]
    sources = sorted((folder / "runs").glob("*.run.gz"))
    assert len(sources) == len(DL19_RUNS)
    sources = spread(sources, 8)
    compared = 0
    for k, source in enumerate(sources):
        path = tmp_path / f"{k}.run"
        topics = _comparable_topics(_in_compats_order(source, path), grades)
        run = list(ir_measures.read_trec_run(str(path)))
        ours = irstats.evaluate(qrels_path, path, [p[1] for p in pairs], order="file", depth=None)
        for measure, name in pairs:
            reference = {m.query_id: m.value for m in ir_measures.compat.iter_calc([measure], qrels, run)}
            matrix = ours[name]
            for topic, value in zip(matrix.topics, matrix.values[0]):
                if topic in topics:
                    assert value == pytest.approx(reference[topic], abs=1e-12), (source.name, name, topic)
                    compared += 1
    # Of the 14 runs × 43 topics × 3 variants, 597 are comparable (counted by _comparable_topics
    # alone); of the quick budget's 8 runs, 351 (of all 37 official runs, 2,253).
    assert compared >= (597 if len(sources) == len(DL19_RUNS) else 351)


@settings(max_examples=examples(80), deadline=None)
@given(grades=st.lists(st.sampled_from([-1, 0, 1, 2, 3]), min_size=1, max_size=25),
       extra=st.lists(st.sampled_from([0, 1, 2, 3]), max_size=8), p=st.sampled_from([0.5, 0.8, 0.95]),
       normalize=st.booleans())
def test_equal_to_the_reference_function(grades, extra, p, normalize):
    """Run documents with distinct positive scores (grade −1: unjudged) and judged documents the
    run does not retrieve (``extra``)."""
    docs = [f"d{i:02d}" for i in range(len(grades))]
    judged = {d: g for d, g in zip(docs, grades) if g >= 0}
    judged.update({f"x{i}": g for i, g in enumerate(extra)})
    if not judged:
        judged["x"] = 0
    run = {d: float(len(docs) - i) for i, d in enumerate(docs)}
    name = f"Compat(p={p:g},normalize={'true' if normalize else 'false'})"
    (matrix,) = irstats.evaluate({"1": judged}, {"1": run}, [name], depth=None).values()
    ours = matrix.values[0, 0]
    assert ours == pytest.approx(compatibility(judged, run, p, normalize), abs=1e-12)
