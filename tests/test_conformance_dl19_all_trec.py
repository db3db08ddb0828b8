"""Every value irstats shares with trec_eval 10's `-q -m all_trec` output on the TREC DL 2019
runs of tests/data (14 of the 37 official ones), at -l 1 and -l 2 (tests/data/trec-dl-2019-passage/trec_eval10-all_trec/, made by
trec_eval 10.0 itself: `trec_eval -q -m all_trec -l 1|2 qrels.dl19-passage.txt <run>`).

Options mirror trec_eval's defaults: no depth limit, and its quirks on (trec_eval_compat).
The files print 4 decimals, so |irstats − printed| ≤ 5e-5 (+1e-9); counts must be equal.
Excluded by design: graded `rbp` (trec_eval rescales each topic's gains by that topic's own
top grade, irstats by the collection's; tests/test_conformance_trec_eval.py pins that down).
"""

from __future__ import annotations

import gzip
import math

import pytest

import irstats
from irstats.measures.registry import trec_eval_alias
from tests.conftest import DL19_RUNS

TOL = 5e-5 + 1e-9
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_q", "num_nonrel_judged_ret"}
NOT_SHARED_BY_DESIGN: set = set()


@pytest.fixture(scope="module")
def dl19(reference_data):
    folder = reference_data / "trec-dl-2019-passage"
    assert (folder / "trec_eval10-all_trec").is_dir(), f"trec_eval 10 outputs missing in {folder}"
    return folder


def _expected(path):
    rows = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.strip():
                measure, topic, value = line.split()
                rows.append((measure, topic, value))
    return rows


@pytest.mark.parametrize("level", [1, 2])
def test_every_shared_value_of_all_trec_on_dl19(dl19, level):
    runs = sorted((dl19 / "runs").glob("*"))
    files = {p.name.split(".")[0]: p for p in (dl19 / "trec_eval10-all_trec").glob(f"*.l{level}.gz")}
    assert sorted(files) == sorted(DL19_RUNS) and len(runs) == len(DL19_RUNS)
    first = _expected(next(iter(files.values())))
    names = sorted({irstats.canonical_name(a) for a in (trec_eval_alias(m) for m, _, _ in first) if a is not None})
    scores = irstats.evaluate(dl19 / "qrels.dl19-passage.txt", runs, names, depth=None, rel_level=level,
                              trec_eval_compat=True)
    compared, mismatches = 0, []
    for tag, path in files.items():
        for measure, topic, text in _expected(path):
            alias = trec_eval_alias(measure)
            if alias is None or measure in NOT_SHARED_BY_DESIGN:
                continue
            matrix = scores[irstats.canonical_name(alias)]
            s = matrix.systems.index(tag)
            got = matrix.summaries()[s] if topic == "all" else matrix.values[s, matrix.topics.index(topic)]
            ok = float(got) == float(text) if measure in COUNTS else abs(float(got) - float(text)) <= TOL
            compared += 1
            if not ok and not (math.isnan(got) and text == "nan"):
                mismatches.append(f"{tag} {measure} {topic}: trec_eval {text}, irstats {got!r}")
    assert not mismatches, f"-l {level}: {len(mismatches)} of {compared} differ:\n" + "\n".join(mismatches[:40])
    # The count when the runs were trimmed to tests/data's 14 (4,181 shared values per run, the
    # `all` lines included): it may only grow, so the test cannot pass by comparing nothing.
    assert compared >= 58_534, compared
