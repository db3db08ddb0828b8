"""Conformance with NTCIREVAL (Sakai) expected outputs (tests/data/conformance/ntcireval).

The NTCIR inputs are converted to TREC files in ``tmp_path``:

* qrels: ``topic docID Lk`` (test.qrels) or ``docID Lk`` (sample.rel, topic "1") becomes
  ``topic 0 docID g``, where g is the gain NTCIREVAL's ``-g`` option gives level Lk
  (``-g 1:2:3``, ``-g 1:2``, ``-g 1``: Lk → grade k; ``-g 1:4:9``: L1, L2, L3 → 1, 4, 9;
  L0 → 0);
* runs: the ranked list in FILE order (sample.lab / sample-j.lab, the lists ``ntcir_eval
  compute`` read; TRECRUN split per topic in file order, first 1000 documents, as
  TRECsplitruns does). The runs get equal scores (sample) or keep TRECRUN's own columns, and
  irstats reads them with ``order="file"``.

Measures, per the folder README ("Measure definitions"):

=====================  ==============================  =======================================
NTCIREVAL              irstats                         why they coincide
=====================  ==============================  =======================================
``AP``                 ``AP``                          SP / R
``AP@k``               ``AP_min@k``                    SP@k / min(k, R)
``Q-measure``          ``Q(beta=1)``                   β = 1, gain = level gain, divides by R
``Q@k``                ``Q(beta=1,norm=min)@k``        divides by min(k, R)
``MSnDCG@k``           ``nDCG@k``                      gain/log(r+1), linear gains, ideal at k
``P@k``                ``P@k``
``RR``                 ``RR``
``Hit@k``              ``Success@k``                   1 if a relevant doc is in the top k
``RBP`` / ``RBP@k``    ``RBP(p=0.95)`` / ``@k``        gain/hgain = grade/g_max, g_max = hgain
``ERR`` / ``ERR@k``    ``ERR@1000`` / ``ERR@k``        only when g/(hgain+1) = (2^g−1)/2^hgain
                                                       for every grade present (binary -g 1)
``syslen`` / ``jrel``  ``NumRet`` / ``NumRel``
=====================  ==============================  =======================================

Not compared (irstats has no such measure, or a different one): O-measure, P-measure, P-plus,
NCU*, EBR*, nERR* (irstats has no normalised ERR), nDCG@k (Järvelin–Kekäläinen: no discount for
r ≤ b), jnonrel, r1/rp, the bpref family (its definition is not documented in the README), and
ERR* wherever the stop probabilities g/(hgain+1) differ from irstats' (2^g−1)/2^g_max, i.e. under
every setting here but ``-g 1`` (``-g 1:2`` on L1-only data: 1/3 vs 1/4).

Gains: irstats' graded measures use the grade itself as the gain (linear), and its binary
measures count grade ≥ 1 as relevant, as NTCIREVAL counts every level ≥ L1. Writing each level's
declared (integer) gain as the grade therefore reproduces any ``-g`` setting for the measures
above: for ``-g 1:2:3``, ``-g 1:2`` and ``-g 1`` that is Lk → k; for ``-g 1:4:9`` (gains that
are not the level numbers) it is L1, L2, L3 → 1, 4, 9, with g_max = hgain = 9.

Tolerance: 5e-5 (the files print 4 decimals).
"""

from __future__ import annotations

import re

import pytest

import irstats
from irstats import parse_measure

TOL = 5e-5 + 1e-9
SAMPLE_TOPIC = "1"
TREC_DEPTH = 1000  # TRECsplitruns keeps the first 1000 documents per topic

# (expected file, input, gains, options) — see generated/commands.txt.
CASES = [
    ("generated/sample.g1-2-3.out", "pyntcireval-tests/sample.lab", "1:2:3", {}),
    ("generated/sample.g1-2-3.cut2.out", "pyntcireval-tests/sample.lab", "1:2:3", {}),
    ("generated/sample.g1-2-3.cut1-10-100-1000.out", "pyntcireval-tests/sample.lab", "1:2:3", {}),
    ("generated/sample-j.g1-2-3.out", "pyntcireval-tests/sample-j.lab", "1:2:3", {}),
    # The condensed list made by irstats itself (judged_only=True, trec_eval -J) from sample.lab.
    ("generated/sample-j.g1-2-3.out", "pyntcireval-tests/sample.lab", "1:2:3", {"judged_only": True}),
    ("generated/sample-j.g1-2-3.bpref-family.out", "pyntcireval-tests/sample-j.lab", "1:2:3", {}),
    ("pyntcireval-tests/res_test_compute.txt", "pyntcireval-tests/sample.lab", "1:2:3", {}),
    ("pyntcireval-tests/res_test_compute_cutoff.txt", "pyntcireval-tests/sample.lab", "1:2:3", {}),
    ("pyntcireval-tests/res_test_compute_label_j.txt", "pyntcireval-tests/sample-j.lab", "1:2:3", {}),
    ("upstream-190111/TRECRUN.test.nev", "upstream-190111/TRECRUN", "1:2", {}),
    ("generated/TRECRUN.g1.nev", "upstream-190111/TRECRUN", "1", {}),
    # -g 1:4:9 through grades = declared gains (L1, L2, L3 → 1, 4, 9).
    ("generated/sample.g1-4-9.out", "pyntcireval-tests/sample.lab", "1:4:9", {}),
    ("pyntcireval-tests/res_test_compute_grade.txt", "pyntcireval-tests/sample.lab", "1:4:9", {}),
]

# Expected files not compared, with the reason. (None: every gain setting in the folder uses
# integer gains, which the grade = gain conversion expresses.)
SKIPPED: dict[str, str] = {}

# Minimum number of values compared per case (counts when written).
MIN_COMPARED = {
    "generated/sample.g1-2-3.out": 12,
    "generated/sample.g1-2-3.cut2.out": 12,
    "generated/sample.g1-2-3.cut1-10-100-1000.out": 30,
    "generated/sample-j.g1-2-3.out": 12,
    "generated/sample-j.g1-2-3.bpref-family.out": 12,
    "pyntcireval-tests/res_test_compute.txt": 11,
    "pyntcireval-tests/res_test_compute_cutoff.txt": 11,
    "pyntcireval-tests/res_test_compute_label_j.txt": 11,
    "upstream-190111/TRECRUN.test.nev": 54,
    "generated/TRECRUN.g1.nev": 63,
    "generated/sample.g1-4-9.out": 12,
    "pyntcireval-tests/res_test_compute_grade.txt": 11,
}

_NAME = re.compile(r"^(?P<base>[^@]+?)(?:@(?P<k>\d+))?$")


@pytest.fixture(scope="module")
def ntcir_dir(reference_data):
    folder = reference_data / "conformance" / "ntcireval"
    assert folder.is_dir(), f"NTCIREVAL test data missing: {folder.resolve()}"
    return folder


# ---------------------------------------------------------------------------
# Reading NTCIREVAL files
# ---------------------------------------------------------------------------

def _parse_output(path, default_topic):
    """{(topic, name): value} from a compute output (optionally prefixed by the topic, -out T)."""
    values = {}
    for line in path.read_text().splitlines():
        tokens = line.split()
        if not tokens:
            continue
        topic = default_topic
        if tokens[0] != "#" and "=" not in tokens[0]:
            topic = tokens.pop(0)
        if tokens[0] == "#":
            for item in tokens[1:]:
                key, value = item.split("=")
                values[(topic, key)] = float(value)
        else:
            assert len(tokens) == 2 and tokens[0].endswith("="), line
            values[(topic, tokens[0][:-1])] = float(tokens[1])
    assert values, f"{path} holds no values"
    return values


def _level_gains(spec):
    """``-g 1:4:9`` → {0: 0, 1: 1, 2: 4, 3: 9}; L0 has gain 0."""
    gains = {0: 0}
    for level, text in enumerate(spec.split(":"), start=1):
        gain = float(text)
        assert gain.is_integer()
        gains[level] = int(gain)
    return gains


def _grade(label, gains):
    match = re.fullmatch(r"L(\d+)", label)
    assert match, f"bad NTCIR relevance label {label!r}"
    return gains[int(match[1])]  # the declared gain is written as the grade


def _convert(ntcir_dir, tmp_path, source, gains):
    """Write TREC qrels and run files; returns (qrels path, run path, {topic: list length})."""
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    lengths = {}
    if source.endswith(".lab"):
        with open(qrels_path, "w") as out:
            for line in (ntcir_dir / "upstream-190111" / "sample.rel").read_text().splitlines():
                if line.strip():
                    doc, label = line.split()
                    out.write(f"{SAMPLE_TOPIC} 0 {doc} {_grade(label, gains)}\n")
        docs = [line.split()[0] for line in (ntcir_dir / source).read_text().splitlines() if line.strip()]
        with open(run_path, "w") as out:
            for rank, doc in enumerate(docs, start=1):
                # Equal scores: only file order gives NTCIREVAL's ranking (score order would sort by docno).
                out.write(f"{SAMPLE_TOPIC} Q0 {doc} {rank} 0 sample\n")
        lengths[SAMPLE_TOPIC] = len(docs)
    else:
        folder = ntcir_dir / "upstream-190111"
        topics = (folder / "test.qrels.tid").read_text().split()
        with open(qrels_path, "w") as out:
            for line in (folder / "test.qrels").read_text().splitlines():
                if line.strip():
                    topic, doc, label = line.split()
                    out.write(f"{topic} 0 {doc} {_grade(label, gains)}\n")
        with open(run_path, "w") as out:
            for line in (ntcir_dir / source).read_text().splitlines():
                fields = line.split()
                if not fields or fields[0] not in topics:
                    continue
                if lengths.get(fields[0], 0) < TREC_DEPTH:  # TRECsplitruns: first 1000 in file order
                    lengths[fields[0]] = lengths.get(fields[0], 0) + 1
                    out.write(line.rstrip("\n") + "\n")
        assert set(lengths) == set(topics)
    return qrels_path, run_path, lengths


# ---------------------------------------------------------------------------
# The mapping
# ---------------------------------------------------------------------------

def _err_coincides(grades, hgain):
    """NTCIREVAL's ERR stop probability g/(hgain+1) equals irstats' (2^g − 1)/2^g_max
    (g_max = hgain) for every grade that occurs."""
    return all(g / (hgain + 1) == (2 ** g - 1) / 2 ** hgain for g in grades if g > 0)


def _irstats_name(name, err_ok, max_len):
    """irstats' measure for an NTCIREVAL name, or None when it is not shared."""
    if name == "syslen":
        return "NumRet"
    if name == "jrel":
        return "NumRel"
    match = _NAME.match(name)
    base, k = match["base"], match["k"]
    cut = f"@{int(k)}" if k else ""
    if base == "RR" and not k:
        return "RR"
    if base == "AP":
        return f"AP_min{cut}" if k else "AP"
    if base == "Q-measure" and not k:
        return "Q(beta=1)"
    if base == "Q" and k:
        return f"Q(beta=1,norm=min){cut}"
    if base == "MSnDCG" and k:
        return f"nDCG{cut}"
    if base == "P" and k:
        return f"P{cut}"
    if base == "Hit" and k:
        return f"Success{cut}"
    if base == "RBP":
        return f"RBP(p=0.95){cut}"
    if base == "ERR" and err_ok:
        return f"ERR{cut}" if k else f"ERR@{max_len}"
    return None


def _case_id(case):
    expected, source, gains, options = case
    return f"{expected}[{source.split('/')[-1]}{',J' if options.get('judged_only') else ''}]"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_ntcireval_expected_output(ntcir_dir, tmp_path, case):
    expected_file, source, gain_spec, options = case
    gains = _level_gains(gain_spec)
    hgain = max(gains.values())
    qrels_path, run_path, lengths = _convert(ntcir_dir, tmp_path, source, gains)
    max_len = max(lengths.values())
    assert max_len <= TREC_DEPTH  # so ERR over the whole list is ERR@1000
    grades = {int(line.split()[3]) for line in qrels_path.read_text().splitlines()}
    err_ok = _err_coincides(grades, hgain)

    expected = _parse_output(ntcir_dir / expected_file, SAMPLE_TOPIC)
    wanted = {(topic, name): _irstats_name(name, err_ok, TREC_DEPTH) for topic, name in expected}
    names = sorted({str(parse_measure(n)) for n in wanted.values() if n})
    scores = irstats.evaluate(qrels_path, run_path, names, order="file", depth=None, g_max=hgain, **options)

    compared, mismatches = 0, []
    for (topic, ntcir_name), value in expected.items():
        name = wanted[(topic, ntcir_name)]
        if name is None:
            continue
        matrix = scores[str(parse_measure(name))]
        got = matrix.values[0, matrix.topics.index(topic)]
        compared += 1
        if not abs(got - value) <= TOL:
            mismatches.append(f"topic {topic} {ntcir_name} (irstats {name}): NTCIREVAL {value}, irstats {got!r}")
    print(f"{_case_id(case)}: {compared} values compared")
    assert not mismatches, f"{expected_file}: {len(mismatches)} of {compared} differ:\n" + "\n".join(mismatches)
    assert compared >= MIN_COMPARED[expected_file], f"{expected_file}: only {compared} values compared"


def test_every_expected_file_is_used_or_listed(ntcir_dir):
    """Every expected output in the folder is either compared or skipped with a reason."""
    outputs = {str(p.relative_to(ntcir_dir)) for p in ntcir_dir.rglob("*")
               if p.suffix in (".out", ".nev", ".txt") and p.name not in ("commands.txt",)}
    used = {c[0] for c in CASES}
    assert outputs == used | set(SKIPPED), sorted(outputs ^ (used | set(SKIPPED)))
    assert not used & set(SKIPPED)
