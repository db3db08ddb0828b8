"""Plain-Python reference of the diversity measures (ndeval's, as irstats.measures.diversity
computes them): one topic and one ranking at a time, every sum a loop. It must never import
``irstats``; rankings come from tests/reference.py.

Subtopic qrels: ``{topic: {docno: {subtopic: grade}}}`` (a pair judged twice keeps its largest
grade). A document is relevant to a subtopic when its grade there is >= ``rel``; S is the
number of the topic's subtopics with a relevant document; with c_s(r) the documents above
rank r relevant to s, gain(r) = Σ_s J(r, s)·(1 − α)^{c_s(r)}.
"""

from __future__ import annotations

import math

from tests.reference import _data_lines, _id_bytes, process_run, read_run

CUT = {"alpha_DCG": True, "alpha_nDCG": True, "ERR_IA": True, "nERR_IA": True, "P_IA": True, "StRecall": True,
       "NRBP": False, "nNRBP": False}


def read_subtopic_qrels(path) -> dict:
    qrels: dict = {}
    for number, fields in _data_lines(path):
        if len(fields) != 4:
            raise ValueError(f"line {number}: {len(fields)} fields")
        topic, subtopic, docno, grade = fields
        grades = qrels.setdefault(topic, {}).setdefault(docno, {})
        grades[subtopic] = max(grades.get(subtopic, -math.inf), int(grade))
    return qrels


def parse(name: str) -> tuple[str, int | None]:
    family, _, cutoff = name.partition("@")
    if family not in CUT or CUT[family] != bool(cutoff):
        raise ValueError(name)
    return family, int(cutoff) if cutoff else None


def _relevant_sets(topic_qrels: dict, rel) -> dict:
    """docno -> the set of subtopics it is relevant to."""
    return {docno: {s for s, g in grades.items() if g >= rel} for docno, grades in topic_qrels.items()}


def gains(ranked: list, relevant: dict, alpha: float) -> list[float]:
    seen: dict = {}
    out = []
    for docno in ranked:
        gain = 0.0
        for s in sorted(relevant.get(docno, ())):
            gain += (1.0 - alpha) ** seen.get(s, 0)
        for s in relevant.get(docno, ()):
            seen[s] = seen.get(s, 0) + 1
        out.append(gain)
    return out


def ideal_gains(relevant: dict, alpha: float) -> list[float]:
    """ndeval's greedy ideal: at each rank the document of largest gain, the larger docno
    (bytes) among equals; documents relevant to nothing never enter."""
    left = [d for d, subs in relevant.items() if subs]
    seen: dict = {}
    out = []
    while left:
        best, best_gain = None, -1.0
        for docno in left:
            gain = 0.0
            for s in sorted(relevant[docno]):
                gain += (1.0 - alpha) ** seen.get(s, 0)
            if gain > best_gain or (gain == best_gain and _id_bytes(docno) > _id_bytes(best)):
                best, best_gain = docno, gain
        out.append(best_gain)
        for s in relevant[best]:
            seen[s] = seen.get(s, 0) + 1
        left.remove(best)
    return out


def topic_value(name: str, ranked: list, topic_qrels: dict, rel=1, alpha: float = 0.5, beta: float = 0.5,
                ideal_cache: dict | None = None) -> float:
    family, k = parse(name)
    relevant = _relevant_sets(topic_qrels, rel)
    subtopics = len(set().union(*relevant.values())) if relevant else 0
    if subtopics == 0:
        return 0.0
    run = gains(ranked, relevant, alpha)
    key = (id(topic_qrels), rel, alpha)
    if ideal_cache is not None and key in ideal_cache:
        ideal = ideal_cache[key]
    else:
        ideal = ideal_gains(relevant, alpha)
        if ideal_cache is not None:
            ideal_cache[key] = ideal
    if family in ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA"):
        def discount(r):  # r: 1-based rank
            return 1.0 / math.log2(r + 1.0) if "DCG" in family else 1.0 / r

        value = sum(g * discount(r) for r, g in enumerate(run[:k], start=1))
        if family in ("alpha_nDCG", "nERR_IA"):
            best = sum(g * discount(r) for r, g in enumerate(ideal[:k], start=1))
            return value / best if value and best else 0.0
        if k == 1:
            return value
        return value / sum(subtopics * (1.0 - alpha) ** (r - 1) * discount(r) for r in range(1, k + 1))
    if family in ("NRBP", "nNRBP"):
        scale = (1.0 - (1.0 - alpha) * beta) / subtopics
        value = scale * sum(g * beta ** (r - 1) for r, g in enumerate(run, start=1))
        if family == "nNRBP":
            best = scale * sum(g * beta ** (r - 1) for r, g in enumerate(ideal, start=1))
            return value / best if best else 0.0
        return value
    top = ranked[:k]
    if family == "P_IA":
        return sum(len(relevant.get(d, ())) for d in top) / (k * subtopics)
    covered = set()
    for d in top:
        covered |= relevant.get(d, set())
    return len(covered) / subtopics


def evaluate(qrels_path, run_path, measures, rel=1, alpha: float = 0.5, beta: float = 0.5, depth=None,
             judged_only: bool = False, judged: dict | None = None) -> dict:
    """{(topic, measure): value} for the topics both the subtopic qrels and the run have, the
    run ranked as trec_eval ranks it (score descending, docno descending); ``judged_only``
    keeps the documents of ``judged`` ({topic: {docno: grade}}, default: the subtopic-judged
    ones)."""
    qrels = read_subtopic_qrels(qrels_path)
    run = read_run(run_path)
    cache: dict = {}
    out = {}
    for topic in sorted(qrels):
        if topic not in run:
            continue
        judged_topic = None
        if judged_only:
            judged_topic = judged.get(topic, {}) if judged is not None else {d: 0 for d in qrels[topic]}
        ranked = process_run(run[topic], depth=depth, judged_only=judged_only, qrels_topic=judged_topic)
        for name in measures:
            out[(topic, name)] = topic_value(name, ranked, qrels[topic], rel, alpha, beta, cache)
    return out
