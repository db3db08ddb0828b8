"""C/W/L measures (INST, INSQ, SDCG@k) against cwl_eval through ir_measures' cwl_eval provider
on TREC DL 2019 runs, per topic, and against a plain loop written from cwl_eval's formulas."""

from __future__ import annotations

import gzip
import math

import ir_measures
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import BPM, INSQ, INST, NERR8, NERR9, NERR10, NERR11, SDCG

import irstats
from tests.conftest import examples, spread

PAIRS = [(INST(T=1, max_rel=3), "INST(T=1,max_rel=3)"), (INST(T=2, max_rel=3), "INST(T=2,max_rel=3)"),
         (INSQ(T=1, max_rel=3), "INSQ(T=1,max_rel=3)"), (INSQ(T=3, max_rel=3), "INSQ(T=3,max_rel=3)"),
         (SDCG(max_rel=3)@5, "SDCG(max_rel=3)@5"), (SDCG(max_rel=3)@10, "SDCG(max_rel=3)@10"),
         (INST(T=1, min_rel=1, max_rel=3), "INST(T=1,min_rel=1,max_rel=3)"),
         (BPM(T=1, max_rel=3)@10, "BPM(T=1,max_rel=3)@10"), (BPM(T=2, max_rel=3)@20, "BPM(T=2,max_rel=3)@20"),
         (NERR8(max_rel=3)@10, "NERR8(max_rel=3)@10"), (NERR9(max_rel=3)@10, "NERR9(max_rel=3)@10"),
         (NERR10(p=0.8, max_rel=3), "NERR10(p=0.8,max_rel=3)"), (NERR11(T=2, max_rel=3), "NERR11(T=2,max_rel=3)")]


def _scores_descend_in_file_order(path) -> bool:
    """cwl_eval (through ir_measures) sorts each topic by score, keeping file order for ties:
    the same as irstats' order='file' when the file is written in score order."""
    last = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            topic, _, _, _, score, _ = line.split()
            if float(score) > last.get(topic, math.inf):
                return False
            last[topic] = float(score)
    return True


def test_equal_to_cwl_eval_on_dl19(reference_data):
    folder = reference_data / "trec-dl-2019-passage"
    qrels_path = folder / "qrels.dl19-passage.txt"
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    runs = [p for p in sorted((folder / "runs").glob("*.run.gz")) if _scores_descend_in_file_order(p)][:8]
    assert len(runs) == 8
    runs = spread(runs, 3)  # cwl_eval is slow: 3 of the 8 in the quick test budget
    compared = 0
    for path in runs:
        run = list(ir_measures.read_trec_run(str(path)))
        reference = {(m.query_id, str(m.measure)): m.value
                     for m in ir_measures.cwl_eval.iter_calc([p[0] for p in PAIRS], qrels, run)}
        ours = irstats.evaluate(qrels_path, path, [p[1] for p in PAIRS], order="file")
        for measure, name in PAIRS:
            matrix = ours[name]
            for topic, value in zip(matrix.topics, matrix.values[0]):
                assert value == pytest.approx(reference[(topic, str(measure))], abs=1e-9), (path.name, name, topic)
                compared += 1
    assert compared == len(runs) * len(PAIRS) * 43


def plain_cwl(gains: list[float], kind: str, t: float = 1.0, k: int = 10, n: int = 1000) -> float:
    """cwl_eval's definitions with loops: pad to n, C vector, W, expected utility."""
    g = (gains + [0.0] * n)[:n]
    continuation = []
    total = 0.0
    for i in range(1, n + 1):
        total += g[i - 1]
        if kind == "INST":
            remaining = t - total
            continuation.append(((i + t + remaining - 1) / (i + t + remaining)) ** 2)
        elif kind == "INSQ":
            continuation.append(((i + 2 * t - 1) / (i + 2 * t)) ** 2)
        else:
            continuation.append(math.log(i + 1, 2) / math.log(i + 2, 2) if i < k else 0.0)
    reach = [1.0]
    for c in continuation[:-1]:
        reach.append(reach[-1] * c)
    return sum(r * x for r, x in zip(reach, g)) / sum(reach)


@settings(max_examples=examples(60), deadline=None)
@given(grades=st.lists(st.sampled_from([-1, 0, 1, 2, 3]), min_size=1, max_size=30),
       t=st.sampled_from([0.5, 1.0, 2.0, 5.0]), k=st.integers(1, 12))
def test_equal_to_a_plain_loop(grades, t, k):
    docs = [f"d{i}" for i in range(len(grades))]
    qrels = {"1": {d: g for d, g in zip(docs, grades) if g >= 0}}
    if not qrels["1"]:
        qrels["1"]["other"] = 0
    run = {"1": {d: float(len(docs) - i) for i, d in enumerate(docs)}}
    names = [f"INST(T={t:g},max_rel=3)", f"INSQ(T={t:g},max_rel=3)", f"SDCG(max_rel=3)@{k}"]
    ours = irstats.evaluate(qrels, run, names)
    gains = [max(g, 0) / 3 for g in grades]
    for name, kind in zip(names, ("INST", "INSQ", "SDCG")):
        assert ours[name].values[0, 0] == pytest.approx(plain_cwl(gains, kind, t, k), abs=1e-12), name
    assert np.isfinite(ours[names[0]].values).all()
