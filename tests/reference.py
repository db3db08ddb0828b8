"""Plain-Python reference implementation of the irstats measures (METHODS.md §1-§2).

This module is deliberately slow and literal: every measure is a loop that
transcribes its formula from METHODS.md §2, so that it can be checked by eye and
used by the tests as an oracle for the vectorised engine.  It must never import
``irstats``.

Notation used in the code (METHODS.md §2):

* ``ranked``  -- the processed list d_1..d_n (ordered, truncated, condensed);
* ``grade(d)`` -- the qrels grade of d, or ``None`` (⊥) when d is unjudged,
  i.e. has no qrels line or a negative grade (§1.1);
* ``b[i]``    -- 1 iff d_{i+1} is judged and its grade >= the relevance level;
* ``R`` / ``N`` -- number of qrels documents with grade >= level / 0 <= grade < level.
"""

from __future__ import annotations

import gzip
import math
import re
import struct

# --------------------------------------------------------------------------
# Measure names
# --------------------------------------------------------------------------

FAMILIES = {
    "P", "RR", "AP", "AP_min", "SP", "Rprec", "R", "DCG", "nDCG", "RBP",
    "RBPresid", "ERR", "Q", "Bpref", "Judged", "NumRet", "NumRel", "NumRelRet",
}
ALIASES = {"SumP": "SP"}
NEEDS_CUTOFF = {"P", "R", "AP_min", "Judged"}   # only defined as Family@k
def _level(text: str):
    """A relevance level: whole numbers as int, real levels (for real-valued labels) as float."""
    value = float(text)
    return int(value) if value.is_integer() else value


PARAM_TYPES = {"p": float, "rel": _level, "gain": str, "beta": float, "norm": str}

_NAME_RE = re.compile(r"^([A-Za-z_]+)(?:\(([^()]*)\))?(?:@(\d+))?$")


def parse_measure(name: str) -> tuple[str, dict]:
    """Split a canonical measure name into ``(family, params)``.

    Grammar: ``Family``, ``Family@k``, ``Family(key=value,...)``,
    ``Family(key=value,...)@k``.  The cutoff, when present, is returned as
    ``params["k"]`` (an int).  Known keys are converted: ``p``/``beta`` to
    float, ``rel`` to int, ``gain``/``norm`` kept as strings.

    >>> parse_measure("RBP(p=0.8,rel=1)@10")
    ('RBP', {'p': 0.8, 'rel': 1, 'k': 10})
    """
    match = _NAME_RE.match(name.replace(" ", ""))
    if match is None:
        raise ValueError(f"cannot parse measure name {name!r}")
    family, arglist, cutoff = match.groups()
    family = ALIASES.get(family, family)
    if family not in FAMILIES:
        raise ValueError(f"unknown measure family {family!r} in {name!r}")
    params: dict = {}
    if arglist:
        for item in arglist.split(","):
            key, sep, value = item.partition("=")
            if not sep or key not in PARAM_TYPES:
                raise ValueError(f"bad parameter {item!r} in {name!r}")
            params[key] = PARAM_TYPES[key](value)
    if cutoff is not None:
        params["k"] = int(cutoff)
    elif family in NEEDS_CUTOFF:
        raise ValueError(f"{family} needs a cutoff: {family}@k")
    return family, params


# --------------------------------------------------------------------------
# One topic
# --------------------------------------------------------------------------

def _grade(qrels_topic: dict, docno: str):
    """Grade of ``docno``, or None (⊥) if unjudged: no qrels line or negative grade."""
    g = qrels_topic.get(docno)
    if g is None or g < 0:
        return None
    return g


def topic_score(ranked: list, qrels_topic: dict, measure: str,
                rel_level: int = 1, g_max: int | None = None) -> float:
    """Score one topic's processed list ``ranked`` with ``measure`` (METHODS.md §2).

    ``qrels_topic`` maps docno -> grade for this topic (negative = ⊥); grades may be
    real-valued labels (0.37, 2.5), compared and used as gains as they are.
    ``rel_level`` is the global relevance level ℓ; a ``rel=`` parameter in the
    measure name overrides it.  ``g_max`` is the collection-wide largest grade
    (§2.6); when None, the largest grade of ``qrels_topic`` is used.
    Any zero denominator gives 0.
    """
    family, params = parse_measure(measure)
    level = params.get("rel", rel_level)
    if g_max is None:
        g_max = max(qrels_topic.values(), default=0)

    n = len(ranked)
    k = params.get("k")              # None = no cutoff
    m = n if k is None else min(k, n)  # number of list positions the measure looks at
    grades = [_grade(qrels_topic, d) for d in ranked]
    b = [1 if g is not None and g >= level else 0 for g in grades]
    R = sum(1 for g in qrels_topic.values() if g >= level and g >= 0)
    N = sum(1 for g in qrels_topic.values() if 0 <= g < level)

    def C(i):
        """Number of relevant documents in the top i positions (b_i = 0 beyond n)."""
        return sum(b[:i])

    def div(a, d):
        return a / d if d else 0.0

    def sum_prec(cut):
        """SP@cut = sum over i <= min(cut, n) of b_i * C(i) / i."""
        return sum(b[i - 1] * C(i) / i for i in range(1, min(cut, n) + 1))

    # ---- §2.1 -- 2.4: binary measures ----
    if family == "P":
        return div(C(k), k)
    if family == "RR":
        for i in range(1, m + 1):
            if b[i - 1]:
                return 1.0 / i
        return 0.0
    if family in ("AP", "SP"):
        total = sum_prec(m)
        return total if family == "SP" else div(total, R)
    if family == "AP_min":
        return div(sum_prec(k), min(k, R))
    if family == "Rprec":
        return div(C(min(R, n)), R)
    if family == "R":
        return div(C(m), R)

    # ---- §2.5: DCG / nDCG (graded, ignore ℓ) ----
    if family in ("DCG", "nDCG"):
        if params.get("gain", "lin") not in ("lin", "exp"):
            raise ValueError(f"unknown gain in {measure!r}")
        exp_gain = params.get("gain", "lin") == "exp"

        def gain(g):
            if g is None or g <= 0:
                return 0.0
            return float(2 ** g - 1) if exp_gain else float(g)

        dcg = sum(gain(grades[i - 1]) / math.log2(i + 1) for i in range(1, m + 1))
        if family == "DCG":
            return dcg
        ideal = sorted((gain(g) for g in qrels_topic.values() if gain(g) > 0), reverse=True)
        ideal_len = len(ideal) if k is None else min(k, len(ideal))  # nDCG: ideal not cut at n
        idcg = sum(ideal[i - 1] / math.log2(i + 1) for i in range(1, ideal_len + 1))
        return div(dcg, idcg)

    # ---- §2.6: RBP and residual ----
    if family == "RBP":
        p = params.get("p", 0.8)
        if "rel" in params:
            gains = [float(x) for x in b]                    # binary at level rel=
        else:
            gains = [div(min(max(g, 0), g_max), g_max) if g is not None else 0.0
                     for g in grades]                        # graded, clip(rel,0,g_max)/g_max
        return (1 - p) * sum(gains[i - 1] * p ** (i - 1) for i in range(1, m + 1))
    if family == "RBPresid":
        p = params.get("p", 0.8)
        unjudged = sum(p ** (i - 1) for i in range(1, m + 1) if grades[i - 1] is None)
        return (1 - p) * unjudged + p ** m

    # ---- §2.7: ERR@k ----
    if family == "ERR":
        kk = 20 if k is None else k
        total, not_stopped = 0.0, 1.0
        for r in range(1, min(kk, n) + 1):
            g = 0 if grades[r - 1] is None else max(grades[r - 1], 0)
            stop = (2 ** g - 1) / 2 ** g_max
            total += not_stopped * stop / r
            not_stopped *= 1 - stop
        return total

    # ---- §2.8: Q-measure ----
    if family == "Q":
        beta = params.get("beta", 1.0)
        gains = [0 if g is None else max(g, 0) for g in grades]
        ideal = sorted((g for g in qrels_topic.values() if g > 0), reverse=True)
        total = 0.0
        for r in range(1, m + 1):
            if b[r - 1]:
                cg = sum(gains[:r])
                cg_star = sum(ideal[:r])   # constant once r > |I|
                total += (C(r) + beta * cg) / (r + beta * cg_star)
        if params.get("norm", "R") == "min":
            D = min(n if k is None else k, R)
        else:
            D = R
        return div(total, D)

    # ---- §2.9: bpref (m_bpref.c) ----
    if family == "Bpref":
        if R == 0:
            return 0.0
        if N == 0:
            return C(n) / R
        nonrel_so_far, total = 0, 0.0
        for g in grades:
            if g is None:
                continue
            if g < level:
                nonrel_so_far += 1
            elif nonrel_so_far == 0:
                total += 1.0
            else:
                total += 1.0 - min(nonrel_so_far, R) / min(N, R)
        return total / R

    # ---- §2.10: Judged@k and counts ----
    if family == "Judged":
        return div(sum(1 for g in grades[:m] if g is not None), m)  # min(k, n): ir_measures >= 0.3.1
    if family == "NumRet":
        return float(n)
    if family == "NumRel":
        return float(R)
    if family == "NumRelRet":
        return float(C(n))
    raise ValueError(f"unsupported measure {measure!r}")


# --------------------------------------------------------------------------
# Runs and files
# --------------------------------------------------------------------------

def _to_float32(x: float) -> float:
    """Round a double to the nearest IEEE single (as C ``float`` does)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def process_run(lines: list, order: str = "score", depth: int | None = 1000,
                judged_only: bool = False, qrels_topic: dict | None = None,
                score_dtype: str = "float64") -> list:
    """Turn ONE topic's run lines into the processed list of docnos (METHODS.md §1.4-1.7).

    Each element of ``lines`` is a tuple ``(topic, docno, rank, score)`` --
    the run file's columns 1, 3, 4 and 5 -- given in file order.

    1. Order (§1.4): ``"score"`` (alias ``"trec_eval"``): score descending,
       ties by docno descending comparing bytes; ``"rank"``: rank
       ascending, ties in file order; ``"file"``: file order.  With
       ``score_dtype="float32"`` scores are rounded to float32 first.
    2. Truncate to ``depth`` documents (None = unlimited) (§1.5).
    3. A docno occurring twice in what is left is an error (§1.6).
    4. If ``judged_only``, drop documents unjudged in ``qrels_topic`` (§1.7).
    """
    if order in ("score", "trec_eval"):
        def score(line):
            return _to_float32(line[3]) if score_dtype == "float32" else line[3]
        ordered = sorted(lines, key=lambda line: (score(line), _id_bytes(line[1])),
                         reverse=True)
    elif order == "rank":
        ordered = sorted(lines, key=lambda line: _parse_rank(line[2]))  # sorted() is stable
    elif order == "file":
        ordered = list(lines)
    else:
        raise ValueError(f"unknown order {order!r}")
    docnos = [line[1] for line in ordered]
    if depth is not None:
        docnos = docnos[:depth]
    if len(set(docnos)) != len(docnos):
        raise ValueError("duplicate docno in run")
    if judged_only:
        qrels_topic = qrels_topic or {}
        docnos = [d for d in docnos if _grade(qrels_topic, d) is not None]
    return docnos


def _id_bytes(text: str) -> bytes:
    """The bytes of an id: ids read from files are Latin-1 text (one character per byte)."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8")


def _data_lines(path: str):
    """Yield the fields of every non-blank, non-``#`` line, as trec_eval reads them.

    Fields are split at ASCII whitespace (C's isspace) and kept byte for byte: each is
    returned as Latin-1 text, one character per byte. A NUL byte is an error.
    """
    path = str(path)
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    for number, line in enumerate(data.split(b"\n"), start=1):
        if b"\x00" in line:
            raise ValueError(f"line {number}: NUL byte")
        fields = line.split()  # bytes.split(): ASCII whitespace only
        if not fields or fields[0].startswith(b"#"):
            continue
        yield number, [f.decode("latin-1") for f in fields]


_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_NUMBER = re.compile(r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)$", re.IGNORECASE)


def read_qrels(path: str) -> dict:
    """Read a TREC qrels file into {topic: {docno: grade}} (§1.1): exactly 4 fields a line."""
    qrels: dict = {}
    for number, fields in _data_lines(path):
        if len(fields) != 4:
            raise ValueError(f"line {number}: {len(fields)} qrels fields")
        topic, _iter, docno, rel = fields
        if not _INTEGER.match(rel):
            raise ValueError(f"line {number}: grade {rel!r}")
        docs = qrels.setdefault(topic, {})
        if docno in docs:
            raise ValueError(f"duplicate qrels entry {topic} {docno}")
        docs[docno] = int(rel)
    return qrels


def _parse_rank(text):
    if not isinstance(text, str):
        return text
    try:
        return int(text)
    except ValueError:
        return float(text)


def read_run(path: str) -> dict:
    """Read a TREC run file into {topic: [(topic, docno, rank, score), ...]} in file order (§1.2).

    At least 6 fields a line (trec_eval ignores the rest); the rank stays text, read only
    when ranks order the list.
    """
    run: dict = {}
    for number, fields in _data_lines(path):
        if len(fields) < 6:
            raise ValueError(f"line {number}: {len(fields)} run fields")
        topic, _q0, docno, rank, score = fields[:5]
        if not _NUMBER.match(score) or math.isnan(float(score)):
            raise ValueError(f"line {number}: score {score!r}")
        run.setdefault(topic, []).append((topic, docno, rank, float(score)))
    return run


def reference_evaluate(qrels_path: str, run_path: str, measure: str, rel_level: int = 1,
                       depth: int | None = 1000, judged_only: bool = False,
                       order: str = "score", score_dtype: str = "float64",
                       complete: bool = False) -> dict:
    """Evaluate one run file with one measure; return {topic: score}.

    Topics (§1.8): those in both qrels and run; with ``complete=True`` every
    qrels topic, a topic missing from the run being scored as an empty run.
    g_max is the largest grade in the whole qrels file (§2.6).
    """
    qrels = read_qrels(qrels_path)
    run = read_run(run_path)
    g_max = max((g for docs in qrels.values() for g in docs.values()), default=0)
    topics = qrels if complete else [t for t in qrels if t in run]
    scores = {}
    for topic in topics:
        ranked = process_run(run.get(topic, []), order=order, depth=depth,
                             judged_only=judged_only, qrels_topic=qrels[topic],
                             score_dtype=score_dtype)
        scores[topic] = topic_score(ranked, qrels[topic], measure,
                                    rel_level=rel_level, g_max=g_max)
    return scores
