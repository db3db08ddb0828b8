"""Conformance with rbp_eval's test vectors (tests/data/conformance/rbp_eval).

rbp_eval (Moffat & Zobel's reference RBP evaluator) reports, per query and averaged over the
judged queries, at each depth d and persistence p, ``sum`` (RBP) and ``err`` (the residual).
They are compared with

* ``sum`` ↔ ``RBP(p=P,rel=L)@d`` when rbp_eval's relevance transform is binary at threshold L
  (default ``-a`` on integral qrels, ``-B``, ``-b T``), or graded ``RBP(p=P)@d`` with
  ``g_max=G`` when the transformed relevance is grade/G (``-f 1/G`` on integer grades, or
  fractional values used as is);
* ``err`` ↔ ``RBPresid(p=P)@d`` (irstats' default residual, NOT ``trec_eval_compat``: rbp_eval
  keeps the p^d tail even when nothing is unjudged);
* ``num_ret`` ↔ ``NumRet``; for binary transforms also ``num_rel`` ↔ ``NumRel(rel=L)`` and
  ``num_rel_ret`` at depth d ↔ d·``P(rel=L)@d``.

Ordering follows the spec's flag: ``-s`` or none (the code's default, see the README) → score
(``order="score"``), ``-r`` → ``order="rank"``, ``-o`` → ``order="file"``.

Ties. rbp_eval gives each document of a tied group (equal score under -s, equal rank under -r)
the mean weight of the positions the group covers, and a group straddling the cut-off d counts
only in proportion to its part inside d. irstats breaks ties (by docno under score order, by
file order under rank order) and does not average. A value is therefore compared only where no
tie can matter: every tied group that lies inside the top d is homogeneous in the quantity
(equal gains for ``sum``/``num_rel_ret``, all judged or all unjudged for ``err``), and every
group straddling d has zero gain (``sum``) or no unjudged document (``err``). An average is
compared only when every query's value is. ``_tie_free`` decides this from the files.
(tests/test_ties.py compares every input, 6.spec included, with ``ties="expected"``.)

Fractional qrels (frac.qrels: 0, 0.25, 0.5, 1) cannot be read by irstats (grades are
integers). They are exactly mult.qrels/4 (asserted below), so the test writes them scaled by 4
to a temporary integer qrels file; "as is" relevance is then graded RBP with g_max=4 and
``-b 0.25`` is binary at grade 1. Values match within 1e-4 (rbp_eval's tester, MARGIN_OF_ERROR).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

import irstats
from irstats import parse_measure

MARGIN = 1e-4

# Inputs none of whose RBP / residual values can be compared, with the reason.
# test_unusable_inputs_have_no_tie_free_value checks the claim (and the counts they still hold).
UNUSABLE = {
    # manyties.run under -r (6.spec): topic 1 rank groups {2 ×6: U,0,U,0,1,U}, {8 ×4: 0,U,1,1};
    # topic 2 {1 ×3: U,0,1}, {4 ×2: U,1}, {6 ×3: 1,0,U}, {10 ×2: U,0}. Every depth 2, 5, 10 of
    # both topics contains or cuts a group that mixes gains and mixes judged/unjudged documents.
    "6.spec": "every RBP and residual value depends on rbp_eval's tie averaging (manyties.run)",
    # The same file by score at full depth: topic 1 {99 ×6: U,0,U,0,1,U}, {92 ×3: U,1,1};
    # topic 2 {100 ×3: U,0,1}, {97 ×2: U,1}, {95 ×3: 1,0,U}, {91 ×2: U,0}: all mixed.
    "default-manyties.out": "every RBP and residual value depends on rbp_eval's tie averaging (manyties.run)",
}

# Inputs with ties that are compared only in part (decided by _tie_free from the files):
#   5.spec / 11.spec (ties.run / ties-jumbled.run, score order): topic 1 groups {99: U,0},
#     {96: 0,1}, {92: U,1}; topic 2 {100: U,0}, {91: U,0}. Every residual mixes judged and
#     unjudged documents in a tie; `sum` is compared for topic 1 at d=2 (the straddling group
#     has no gain) and topic 2 at every depth; averages at d=2.
#   default-ties.out: topic 2's `sum` at full depth.
USABLE_SPECS = [s for s in (f"{i}.spec" for i in range(1, 12)) if s not in UNUSABLE]
USABLE_DEFAULTS = [s for s in ("default-noties.out", "default-ties.out") if s not in UNUSABLE]

# Minimum number of values each input must contribute (the counts when written): per query and
# for the averages, num_rel, num_ret and, per depth, num_rel_ret and sum/err for each p.
MIN_COMPARED = {
    "1.spec": 69, "2.spec": 69, "3.spec": 69, "4.spec": 69, "5.spec": 26,
    "7.spec": 57, "8.spec": 69, "9.spec": 57, "10.spec": 69, "11.spec": 26,
    "default-noties.out": 18, "default-ties.out": 3,
}


@pytest.fixture(scope="module")
def rbp_dir(reference_data):
    folder = reference_data / "conformance" / "rbp_eval"
    assert folder.is_dir(), f"rbp_eval test vectors missing: {folder.resolve()}"
    return folder


# ---------------------------------------------------------------------------
# Reading the inputs
# ---------------------------------------------------------------------------

def _read_qrels(path):
    """{topic: {docno: Fraction(value)}} — values kept exact."""
    qrels: dict[str, dict[str, Fraction]] = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields:
            qrels.setdefault(fields[0], {})[fields[2]] = Fraction(fields[3])
    return qrels


def _read_run(path):
    """[(topic, docno, rank, score)] in file order."""
    rows = []
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields:
            rows.append((fields[0], fields[2], int(fields[3]), float(fields[4])))
    return rows


def _parse_options(text):
    tokens = text.split()
    opts = {"depths": [0], "ps": [0.5, 0.8, 0.95], "order": "score", "rel": ("auto", None)}
    files = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "-d":
            opts["depths"] = [int(x) for x in tokens[i + 1].split(",")]
            i += 1
        elif tok == "-p":
            opts["ps"] = [float(x) for x in tokens[i + 1].split(",")]
            i += 1
        elif tok in ("-s", "-r", "-o"):
            opts["order"] = {"-s": "score", "-r": "rank", "-o": "file"}[tok]
        elif tok == "-B":
            opts["rel"] = ("binary", Fraction(1))
        elif tok == "-b":
            opts["rel"] = ("binary", Fraction(tokens[i + 1]))
            i += 1
        elif tok == "-f":
            opts["rel"] = ("scale", Fraction(tokens[i + 1]))
            i += 1
        elif tok == "-F":
            opts["rel"] = ("asis", None)
        elif tok == "-a":
            opts["rel"] = ("auto", None)
        elif tok.startswith("-"):
            raise AssertionError(f"unknown rbp_eval option {tok!r} in {text!r}")
        else:
            files.append(tok)
        i += 1
    assert len(files) == 2, text
    opts["qrels"], opts["run"] = files
    return opts


def _parse_spec(path):
    lines = [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return _parse_options(lines[0]), [float(tok) for ln in lines[1:] for tok in ln.split()]


# ---------------------------------------------------------------------------
# rbp_eval's relevance transform as an irstats configuration
# ---------------------------------------------------------------------------

def _integer_scale(qrels):
    """Smallest c such that every qrels value times c is an integer."""
    c = 1
    for docs in qrels.values():
        for v in docs.values():
            c = c * v.denominator // math.gcd(c, v.denominator)
    return c


def _configure(opts, qrels):
    """(integer scale c, rbp_eval gain of a raw value, binary level or None, g_max or None)."""
    c = _integer_scale(qrels)
    kind, arg = opts["rel"]
    integral = c == 1
    if kind == "auto":
        kind, arg = ("binary", Fraction(1)) if integral else ("asis", None)
    if kind == "binary":
        level = arg * c
        assert level.denominator == 1, "threshold not expressible as an integer grade"
        return c, (lambda v: Fraction(int(v >= arg))), int(level), None
    factor = arg if kind == "scale" else Fraction(1)
    # gain = v·factor = grade·factor/c = grade/g_max with g_max = c/factor
    g_max = Fraction(c) / factor
    assert g_max.denominator == 1, "scaled gain is not grade/g_max for an integer g_max"
    assert all(v * factor <= 1 for docs in qrels.values() for v in docs.values()), "gains above 1 would be clipped"
    return c, (lambda v: v * factor), None, int(g_max)


def _ordered(run_rows, order):
    """{topic: [(docno, tie key)]} in irstats' order; under file order the key is the position (no ties)."""
    by_topic: dict[str, list] = {}
    for topic, doc, rank, score in run_rows:
        by_topic.setdefault(topic, []).append((doc, rank, score))
    out = {}
    for topic, docs in by_topic.items():
        if order == "score":
            docs = sorted(docs, key=lambda d: d[0], reverse=True)       # docno descending …
            docs = sorted(docs, key=lambda d: d[2], reverse=True)       # … within score descending
            out[topic] = [(d[0], d[2]) for d in docs]
        elif order == "rank":
            docs = sorted(docs, key=lambda d: d[1])
            out[topic] = [(d[0], d[1]) for d in docs]
        else:
            out[topic] = [(d[0], i) for i, d in enumerate(docs)]
    return out


def _tie_free(ranked, values, depth):
    """True when rbp_eval's tie averaging cannot change a quantity at this depth.

    ``ranked``: [(docno, tie key)], ``values``: the quantity per document (gain, or 1 if
    unjudged for the residual), ``depth``: d (already ≤ len(ranked))."""
    start = 0
    while start < len(ranked) and start < depth:
        end = start
        while end + 1 < len(ranked) and ranked[end + 1][1] == ranked[start][1]:
            end += 1
        group = [values[i] for i in range(start, end + 1)]
        if end < depth:                      # group inside the top d
            if len(set(group)) > 1:
                return False
        elif any(v != 0 for v in group):     # group straddles d
            return False
        start = end + 1
    return True


def _write_int_qrels(qrels, scale, path):
    with open(path, "w") as out:
        for topic, docs in qrels.items():
            for doc, value in docs.items():
                grade = value * scale
                assert grade.denominator == 1
                out.write(f"{topic} 0 {doc} {int(grade)}\n")
    return path


# ---------------------------------------------------------------------------
# The comparison
# ---------------------------------------------------------------------------

def _run_case(rbp_dir, tmp_path, opts, expected_rows):
    """Compare rbp_eval's values with irstats.

    ``expected_rows``: {(qid or "all", depth, p): (sum, err)} plus optional
    {(qid or "all", "num_ret"|"num_rel"): value} and {(qid or "all", "num_rel_ret", depth): value}.
    Returns (labels of the values compared, mismatches)."""
    qrels = _read_qrels(rbp_dir / opts["qrels"])
    run_rows = _read_run(rbp_dir / opts["run"])
    scale, gain_of, level, g_max = _configure(opts, qrels)
    qrels_path = rbp_dir / opts["qrels"] if scale == 1 else _write_int_qrels(qrels, scale, tmp_path / "scaled.qrels")
    ranked = _ordered(run_rows, opts["order"])
    queries = list(dict.fromkeys(t for t, *_ in run_rows))            # order of first appearance
    judged = [q for q in queries if q in qrels]

    def rbp_name(p, d):
        rel = f",rel={level}" if level is not None else ""
        return str(parse_measure(f"RBP(p={p}{rel})" + (f"@{d}" if d else "")))

    def resid_name(p, d):
        return str(parse_measure(f"RBPresid(p={p})" + (f"@{d}" if d else "")))

    measures = {"NumRet"}
    for key in expected_rows:
        if len(key) == 3 and key[1] != "num_rel_ret":
            _, d, p = key
            measures |= {rbp_name(p, d), resid_name(p, d)}
        elif key[1] == "num_rel_ret" and level is not None:
            measures.add(f"P(rel={level})@{key[2]}")
    if level is not None:
        measures.add(f"NumRel(rel={level})")
    options = {"order": opts["order"]}
    if g_max is not None:
        options["g_max"] = g_max
    scores = irstats.evaluate(qrels_path, rbp_dir / opts["run"], sorted(measures), **options)

    def value(name, qid):
        matrix = scores[str(parse_measure(name))]
        if qid == "all":
            return matrix.summaries()[0]
        return matrix.values[0, matrix.topics.index(qid)]

    def free(qid, depth, kind):
        qids = judged if qid == "all" else [qid]
        for q in qids:
            docs = ranked[q]
            d = depth or len(docs)
            assert d <= len(docs), "depth beyond the list: rbp_eval's tail would need checking"
            if kind == "err":
                vals = [int(doc not in qrels[q]) for doc, _ in docs]
            else:
                vals = [gain_of(qrels[q][doc]) if doc in qrels[q] else 0 for doc, _ in docs]
            if not _tie_free(docs, vals, d):
                return False
        return True

    compared, mismatches = [], []

    def check(label, got, want):
        compared.append(label)
        if not abs(got - want) <= MARGIN:
            mismatches.append(f"{label}: rbp_eval {want}, irstats {got!r}")

    for key, want in expected_rows.items():
        qid = key[0]
        if key[1] == "num_ret":
            check(f"{qid} num_ret", value("NumRet", qid), want)
        elif key[1] == "num_rel":
            if level is not None:
                check(f"{qid} num_rel", value(f"NumRel(rel={level})", qid), want)
        elif key[1] == "num_rel_ret":
            d = key[2]
            if level is not None and free(qid, d, "sum"):
                got = value(f"P(rel={level})@{d}", qid) * d
                if qid == "all":
                    got *= len(judged)                                 # a total, not a mean
                check(f"{qid} num_rel_ret d={d}", got, want)
        else:
            _, d, p = key
            want_sum, want_err = want
            if free(qid, d, "sum"):
                check(f"{qid} d={d or 'full'} p={p} sum", value(rbp_name(p, d), qid), want_sum)
            if free(qid, d, "err"):
                check(f"{qid} d={d or 'full'} p={p} err", value(resid_name(p, d), qid), want_err)
    return compared, mismatches


def _spec_rows(opts, numbers, queries):
    """Lay rbp_eval's spec numbers out as {key: value} (the layout of README.md)."""
    rows, it = {}, iter(numbers)
    for qid in [*queries, "all"]:
        rows[(qid, "num_rel")] = next(it)
        rows[(qid, "num_ret")] = next(it)
        for d in opts["depths"]:
            rows[(qid, "num_rel_ret", d)] = next(it)
            for p in opts["ps"]:
                rows[(qid, d, p)] = (next(it), next(it))
    assert next(it, None) is None, "spec has more numbers than its layout"
    return rows


def _spec_case(rbp_dir, spec):
    opts, numbers = _parse_spec(rbp_dir / spec)
    queries = list(dict.fromkeys(row[0] for row in _read_run(rbp_dir / opts["run"])))
    return opts, _spec_rows(opts, numbers, queries)


def _default_case(rbp_dir, name):
    """`rbp_eval -q -H basic.qrels RUN` (cli-generated/commands.txt): p = 0.5, 0.8, 0.95 at full
    depth, score order, binary at 1."""
    run = {"default-noties.out": "noties.run", "default-ties.out": "ties.run",
           "default-manyties.out": "manyties.run"}[name]
    return _parse_options(f"basic.qrels {run}"), _cli_rows(rbp_dir / "cli-generated" / name)


def _case(rbp_dir, name):
    return _spec_case(rbp_dir, name) if name.endswith(".spec") else _default_case(rbp_dir, name)


@pytest.mark.parametrize("name", USABLE_SPECS + USABLE_DEFAULTS)
def test_rbp_eval(rbp_dir, tmp_path, name):
    opts, rows = _case(rbp_dir, name)
    compared, mismatches = _run_case(rbp_dir, tmp_path, opts, rows)
    print(f"{name}: {len(compared)} values compared")
    assert not mismatches, f"{name}: {len(mismatches)} of {len(compared)} differ:\n" + "\n".join(mismatches)
    assert len(compared) >= MIN_COMPARED[name], f"{name}: only {len(compared)} values compared"


@pytest.mark.parametrize("name", sorted(UNUSABLE))
def test_unusable_inputs_have_no_tie_free_value(rbp_dir, tmp_path, name):
    """The inputs listed in UNUSABLE really have no RBP/residual value free of tie effects;
    whatever they still offer (num_rel, num_ret) must match."""
    opts, rows = _case(rbp_dir, name)
    compared, mismatches = _run_case(rbp_dir, tmp_path, opts, rows)
    assert not mismatches, f"{name}: " + "\n".join(mismatches)
    rbp_values = [label for label in compared if label.endswith((" sum", " err"))]
    assert not rbp_values, f"{name} is listed as unusable but these values are tie-free: {rbp_values}"


def _cli_rows(path):
    rows = {}
    for line in path.read_text().splitlines():
        f = line.split()
        if not f:
            continue
        # p= 0.50 q=    1 d= full rbp= 0.5166 +0.3232
        assert f[0] == "p=" and f[2] == "q=" and f[4] == "d=" and f[6] == "rbp=", line
        depth = 0 if f[5] == "full" else int(f[5])
        rows[(f[3], depth, float(f[1]))] = (float(f[7]), float(f[8].lstrip("+")))
    assert rows, path
    return rows


def test_frac_qrels_are_mult_qrels_over_four(rbp_dir):
    """The integer scaling used for frac.qrels is exact: frac.qrels = mult.qrels / 4."""
    frac, mult = _read_qrels(rbp_dir / "frac.qrels"), _read_qrels(rbp_dir / "mult.qrels")
    assert {t: {d: v * 4 for d, v in docs.items()} for t, docs in frac.items()} == mult
