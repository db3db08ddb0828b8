"""Conformance with trec_eval 10.0's own test suite (tests/data/conformance/trec_eval-test).

Every expected file below was produced by the trec_eval command listed in that folder's
``quicktest-commands.txt``. For each expected file the test parses every
``measure  topic  value`` line and compares every line whose measure irstats shares:

* measures with a trec_eval name (``irstats.measures.registry.trec_eval_alias``), per topic and
  on the ``all`` row (means; sums for num_ret / num_rel / num_rel_ret);
* ``runid`` (the run's name);
* ``gm_map`` / ``gm_bpref``: exp(mean(log(max(x, 1e-5)))) over the evaluated topics, computed
  here from irstats' per-topic AP / bpref (METHODS.md §3, GM_trec_eval);

Options mirror the command: ``depth=None`` (trec_eval's -M default is unlimited; -M100 gives
``depth=100``), ``complete=True`` for -c, ``rel_level=2`` for -l2, and
``trec_eval_compat=True`` (trec_eval's rbp_resid is 0 when nothing retrieved is unjudged).

Tolerance: the files print 4 decimals, so |irstats − printed| ≤ 5e-5 (+1e-9 for the binary
representation of the printed value); integers must be equal.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import irstats
from irstats.measures.registry import trec_eval_alias

TOL = 5e-5 + 1e-9
INTEGER_MEASURES = {"num_ret", "num_rel", "num_rel_ret", "num_q", "num_nonrel_judged_ret"}
GM_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN

# expected file -> list of (qrels, run, options); see quicktest-commands.txt.
CASES = {
    "out.test": [("qrels.test", "results.test", {}),
                 ("qrels.test.with-comments", "results.test", {})],
    "out.test.a": [("qrels.test", "results.test", {})],
    "out.test.aq": [("qrels.test", "results.test", {})],
    "out.test.aqc": [("qrels.test", "results.trunc", {"complete": True})],
    "out.test.aqcM": [("qrels.test", "results.trunc", {"complete": True, "depth": 100})],
    "out.test.aql": [("qrels.rel_level", "results.test", {"rel_level": 2})],
    "out.test.meas_params": [("qrels.test", "results.test", {})],
    "out.comment.test": [("qrels.comment.test", "results.comment.test.gz", {})],
}

# Lower bounds on the number of values compared per expected file (the counts at the time of
# writing), so that the test cannot pass by comparing nothing. They may only grow.
MIN_COMPARED = {
    "out.test": 30,
    "out.test.a": 99,
    "out.test.aq": 384,
    "out.test.aqc": 384,
    "out.test.aqcM": 384,
    "out.test.aql": 381,
    "out.test.meas_params": 76,
    "out.comment.test": 30,
}

# Values irstats does not reproduce by design. Keep this minimal; every entry must still differ
# (checked below), so a stale exclusion fails the test.
EXCLUDED: set = set()  # trec_eval's graded `rbp` is irstats' RBP(p=…,scale=topic): nothing is excluded

def _parse_expected(path):
    rows = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        measure, topic, value = line.split()
        rows.append((measure, topic, value))
    assert rows, f"{path} holds no values"
    return rows


def _needed_measures(rows):
    names = {"AP", "Bpref", "NumRet"}
    for measure, _, _ in rows:
        alias = trec_eval_alias(measure)
        if alias is not None:
            names.add(irstats.canonical_name(alias))
    return sorted(names)


def _geometric_mean(values):
    values = values[~np.isnan(values)]
    return math.exp(float(np.mean(np.log(np.maximum(values, GM_FLOOR)))))


def _irstats_value(scores, measure, topic):
    """irstats' value for a trec_eval output line, or None when irstats does not share it."""
    ap = scores["AP"]
    if measure == "runid":
        return ap.systems[0]
    if measure in ("gm_map", "gm_bpref"):
        if topic != "all":
            return None
        return _geometric_mean(scores["AP" if measure == "gm_map" else "Bpref"].values[0])
    alias = trec_eval_alias(measure)
    if alias is None:
        return None
    matrix = scores[irstats.canonical_name(alias)]
    if topic == "all":
        return matrix.summaries()[0]
    return matrix.values[0, matrix.topics.index(topic)]


def _params():
    for expected, variants in CASES.items():
        for qrels, run, options in variants:
            yield pytest.param(expected, qrels, run, options, id=f"{expected}[{qrels}]")


@pytest.fixture(scope="module")
def te_dir(reference_data):
    folder = reference_data / "conformance" / "trec_eval-test"
    assert folder.is_dir(), f"trec_eval test suite missing: {folder.resolve()}"
    return folder


def _evaluate(te_dir, qrels, run, options, measures):
    opts = {"depth": None, "trec_eval_compat": True, **options}
    return irstats.evaluate(te_dir / qrels, te_dir / run, measures, **opts)


@pytest.mark.filterwarnings("ignore:run 'comment.test'")  # its 270 unjudged topics, ignored as by trec_eval
@pytest.mark.parametrize("expected, qrels, run, options", list(_params()))
def test_trec_eval_expected_output(te_dir, expected, qrels, run, options):
    rows = _parse_expected(te_dir / expected)
    scores = _evaluate(te_dir, qrels, run, options, _needed_measures(rows))

    compared, mismatches, excluded_seen = 0, [], []
    for measure, topic, text in rows:
        got = _irstats_value(scores, measure, topic)
        if got is None:
            continue
        key = (expected, measure, topic)
        if measure == "runid":
            ok = got == text
        elif measure in INTEGER_MEASURES:
            ok = float(got) == float(int(text))
        else:
            ok = abs(float(got) - float(text)) <= TOL
        if key in EXCLUDED:
            excluded_seen.append(key)
            assert not ok, f"exclusion {key} is stale: irstats now reproduces {text} (got {got}); remove it"
            continue
        compared += 1
        if not ok:
            mismatches.append(f"{measure} {topic}: trec_eval {text}, irstats {got!r}")

    assert not mismatches, f"{expected} ({qrels}, {run}, {options}): {len(mismatches)} of {compared} differ:\n" + \
        "\n".join(mismatches)
    assert set(excluded_seen) == {k for k in EXCLUDED if k[0] == expected}, "an exclusion no longer occurs"
    print(f"{expected} [{qrels}]: {compared} values compared")
    assert compared >= MIN_COMPARED[expected], f"{expected}: only {compared} values compared"


def test_aql_graded_rbp_is_per_topic_rescaling(te_dir):
    """trec_eval's graded `rbp` (out.test.aql) is irstats' graded RBP with g_max set to each
    topic's top grade — what RBP(p=…,scale=topic) computes (METHODS.md §2.6 keeps the
    collection-wide g_max as irstats' default)."""
    rows = _parse_expected(te_dir / "out.test.aql")
    expected = {topic: float(v) for m, topic, v in rows if m == "rbp"}
    top_grade = {"301": 4, "302": 3, "303": 2}
    per_topic = {}
    for topic, g_max in top_grade.items():
        matrix = _evaluate(te_dir, "qrels.rel_level", "results.test", {"rel_level": 2, "g_max": g_max},
                           ["RBP(p=0.9)"])["RBP(p=0.9)"]
        per_topic[topic] = matrix.values[0, matrix.topics.index(topic)]
        assert abs(per_topic[topic] - expected[topic]) <= TOL, (topic, per_topic[topic], expected[topic])
    assert abs(np.mean(list(per_topic.values())) - expected["all"]) <= TOL
