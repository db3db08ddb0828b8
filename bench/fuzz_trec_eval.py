#!/usr/bin/env python3
"""Differential fuzz of ``irstats trec_eval`` against a trec_eval 10 binary.

Each case writes a random qrels file and a random run file, picks one of about 30 option
sets, runs both programs on the very same files and compares their stdout bytes and exit
codes (stderr wording differs between the two, so only the exit code stands for it).

The inputs are those trec_eval accepts -- integer grades -1..4, numeric scores with ties,
topics missing from the run (exit 4 unless -c) or from the qrels (ignored) -- and ids made
of ASCII, Latin-1 bytes, UTF-8 (é, U+FFFC, emoji, NBSP, NEL...), invalid UTF-8 sequences,
ASCII control bytes that are not C whitespace, ids differing only in a high byte, files
mixing ASCII and non-ASCII ids. No NUL and no C whitespace byte (space, \\t \\n \\v \\f \\r)
is ever put inside an id: trec_eval splits fields at C's isspace(). A few cases are
malformed on purpose (too few fields, duplicate documents, empty file, a blank qrels line);
those compare the exit code and whatever stdout was printed before the failure.

Usage::

    python3 bench/fuzz_trec_eval.py --trec-eval /tmp/te/trec_eval --cases 300 --seed 1 [--keep DIR]
    python3 bench/fuzz_trec_eval.py --trec-eval /tmp/te/trec_eval --suite parameters --cases 120
    python3 bench/fuzz_trec_eval.py --trec-eval /tmp/te/trec_eval --suite rbp-pairs --cases 440

The trec_eval binary: trec_eval 10.0 (github.com/usnistgov/trec_eval, tag v10.0 or later) built
by its own Makefile (``make`` in a copy of the sources, gcc, no other flags), never committed here.
``--suite parameters`` tries measure parameters trec_eval refuses or reads oddly (``P.0``,
``P.5,5``, ``rbp.0.8``, ``relstring.0``); ``--suite rbp-pairs`` every measure with rbp, each in
turn: where trec_eval's rbp reads what the measure before it left (m_rbp.c's uninitialised
``min``, ``max``) and irstats warns so, a difference in the rbp lines is a documented departure,
counted apart from the mismatches.

prints ``N cases, M mismatches`` and, for each mismatch, the option set, the case's
features and the folder kept for it (qrels, run, cmd.sh, both stdouts and stderrs).
``--case I`` re-runs a single case of a seed; ``--exclude FEATURE`` skips the cases with
that feature (``malformed``, ``multi_tag``, ``qdocs=latin1``...); ``--minimise K`` shrinks the first mismatch
of up to K distinct kinds to a few lines (kept next to the case as min-qrels, min-run).

A developer tool: not collected by pytest (its name does not start with test_).
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# --------------------------------------------------------------------------------------
# option sets

OPTION_SETS: list[list[str]] = [
    [],
    ["-q"],
    ["-q", "-c"],
    ["-n", "-q"],
    ["-n"],
    ["-q", "-l", "0"],
    ["-q", "-l", "2"],
    ["-l", "3", "-q", "-c"],
    ["-M", "0"],
    ["-q", "-M", "1"],
    ["-q", "-M", "3", "-c"],
    ["-M", "50", "-q"],
    ["-q", "-J"],
    ["-q", "-J", "-c", "-l", "2"],
    ["-m", "official", "-q"],
    ["-m", "all_trec", "-q"],
    ["-m", "all_trec", "-q", "-c"],
    ["-m", "all_trec", "-q", "-l", "2", "-J"],
    ["-m", "all_trec", "-q", "-c", "-M", "3", "-l", "0"],
    ["-m", "P.5,10", "-q"],
    ["-m", "ndcg_cut.5", "-q", "-l", "2"],
    ["-m", "recip_rank", "-q", "-M", "3"],
    ["-m", "num_rel_ret", "-m", "num_rel", "-m", "num_ret", "-q", "-c"],
    ["-m", "relstring", "-q"],
    ["-m", "relstring.5", "-q", "-c", "-l", "2"],
    ["-m", "relstring", "-m", "runid", "-m", "num_q", "-q", "-n", "-J"],
    ["-m", "utility.2,-1,0,0", "-q"],
    ["-m", "utility.1,-1,0.5,0.25", "-N", "50", "-q", "-c"],
    ["-m", "P.5,10", "-m", "ndcg_cut.5", "-m", "recip_rank", "-q", "-J", "-M", "3"],
    ["-m", "map", "-m", "bpref", "-m", "infAP", "-m", "Rprec", "-q", "-l", "0"],
    ["-m", "gm_map", "-m", "ndcg", "-m", "success.1,5", "-m", "recall.5", "-q", "-c", "-M", "50"],
    ["-m", "iprec_at_recall..1,.5", "-m", "11pt_avg", "-m", "set_F", "-q", "-l", "3"],
    ["-m", "runid", "-m", "relstring.3", "-m", "P.1", "-c", "-q", "-M", "1", "-J"],
    # the qrels read as judgment groups (the second field) and as preferences
    ["-R", "qrels_jg", "-m", "qrels_jg", "-q"],
    ["-R", "qrels_prefs", "-m", "all_prefs", "-q", "-c"],
]

#: ``--suite parameters``: measure parameters trec_eval refuses (exit 2: "Negative cutoff
#: detected", "duplicate cutoffs detected", "malformed pair parameters"), reads as 0 (atol/atof of
#: no number) or cannot calculate with (utility: exit 4), and the first of several -m of a measure.
PARAMETER_SETS: list[list[str]] = [
    ["-m", "P.0"], ["-m", "P.a", "-q"], ["-m", "P.5,0"], ["-m", "P.5,5"], ["-m", "P.10,5", "-q"],
    ["-m", "ndcg_cut.0"], ["-m", "success.-1"], ["-m", "map_cut.3,3"], ["-m", "recall.1e20", "-q"],
    ["-m", "iprec_at_recall.x"], ["-m", "iprec_at_recall..5,0.5"], ["-m", "Rprec_mult.0.5,.5", "-q"],
    ["-m", "rbp.0.8"], ["-m", "rbp.p=0.8,"], ["-m", "rbp.p==0.8"], ["-m", "rbp.p=0.5,=3", "-q"], ["-m", "rbp.q=0.5"],
    ["-m", "rbp_resid.0.5"], ["-m", "ndcg.1=2,=3", "-q"], ["-m", "ndcg.x"],
    ["-m", "relstring.0", "-q"], ["-m", "relstring.-3", "-q"], ["-m", "relstring.a", "-q"],
    ["-m", "relstring.2,7", "-q"],
    ["-m", "set_F.x"], ["-m", "utility.1,2"], ["-m", "utility.a,b,c,d", "-q"],
    ["-m", "P.0", "-m", "nope"], ["-m", "ndcg_cut.0", "-m", "P.0"], ["-m", "P.5", "-m", "P.0", "-q"],
]


def rbp_pairs() -> list[list[str]]:
    """``--suite rbp-pairs``: every trec_eval measure that reads the qrels, each with rbp (and
    rbp.p=0.5): trec_eval's m_rbp.c reads two uninitialised variables, so its rbp may depend on
    the measure computed before it — where irstats warns that it may (the README's departure),
    a difference in the rbp lines is counted as documented, not as a mismatch."""
    from irstats.trec_eval.table import TABLE

    names = [m.name for m in TABLE if m.reads == "qrels" and m.name not in ("runid", "rbp")]
    return [["-q", "-m", name, "-m", rbp] for rbp in ("rbp", "rbp.p=0.5") for name in names]


#: irstats' warning where trec_eval's rbp reads what the measure before it left (m_rbp.c).
RBP_WARNING = b"irstats: warning: rbp is printed as trec_eval computes it alone"


def documented(te, ir) -> bool:
    """A difference the README documents: the rbp lines after a measure whose leftovers
    trec_eval's rbp reads, where irstats said so in its warning."""
    if te[0] != ir[0] or RBP_WARNING not in ir[2]:
        return False
    a, b = te[1].splitlines(), ir[1].splitlines()
    return len(a) == len(b) and all(x == y or x.split(b"\t")[0].strip().startswith(b"rbp") for x, y in zip(a, b))


# --------------------------------------------------------------------------------------
# ids

ASCII = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:/"
#: C-locale non-whitespace controls (0x1c-0x1f split Python's str.split(), not C's isspace)
CONTROLS = bytes([1, 2, 7, 8, 0x0e, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x7f])
#: single bytes 0x80-0xff, weighted to the ones Unicode calls whitespace when decoded as Latin-1
HIGH = bytes(range(0x80, 0x100)) + b"\x85\xa0\x85\xa0\xe9\xff"
UTF8 = [ch.encode("utf-8") for ch in
        "é\u00e9ü\u00a0\u0085\u2028\u2029\u3000\u200b\ufeff\ufffc\ufffd€中文日本😀🎉\U0010ffff\u1680\u2003"]
INVALID = [b"\x80", b"\xbf", b"\xc3", b"\xc0\xaf", b"\xe2\x82", b"\xed\xa0\x80", b"\xf5\x80\x80\x80",
           b"\xf0\x9f\x98", b"\xfe", b"\xff", b"\xc3\x28", b"\xe9\x80", b"\xf8\x88\x80\x80\x80"]
ID_MODES = ["ascii", "latin1", "utf8", "invalid", "control", "mixed"]


def _piece(rng: random.Random, mode: str) -> bytes:
    if mode == "latin1":
        return bytes([rng.choice(HIGH)])
    if mode == "utf8":
        return rng.choice(UTF8)
    if mode == "invalid":
        return rng.choice(INVALID)
    if mode == "control":
        return bytes([rng.choice(CONTROLS)])
    return _piece(rng, rng.choice(["latin1", "utf8", "invalid", "control"]))  # mixed


def make_id(rng: random.Random, mode: str, prefix: bytes = b"") -> bytes:
    """An id of 1..8 pieces; non-ASCII modes put their bytes at the start, middle or end."""
    n = rng.randint(1, 5)
    parts = [bytes([rng.choice(ASCII)]) for _ in range(n)]
    if mode != "ascii":
        for _ in range(rng.randint(1, 3)):
            parts.insert(rng.choice([0, len(parts), rng.randint(0, len(parts))]), _piece(rng, mode))
    out = prefix + b"".join(parts)
    if out.startswith(b"#"):  # a comment line start
        out = b"x" + out
    return out


def near_miss(rng: random.Random, ident: bytes) -> bytes:
    """An id that differs from ``ident`` only in (high) bytes: the same text in Latin-1 and
    UTF-8, one high byte for another, a high byte added or dropped."""
    choice = rng.randrange(5)
    if choice == 0:
        try:  # UTF-8 id -> its Latin-1 bytes, or Latin-1 -> UTF-8
            return ident.decode("utf-8").encode("latin-1")
        except (UnicodeDecodeError, UnicodeEncodeError):
            return ident.decode("latin-1").encode("utf-8")
    if choice == 1:
        highs = [i for i, b in enumerate(ident) if b >= 0x80]
        if highs:
            i = rng.choice(highs)
            new = (ident[i] + rng.choice([1, 0x7f, -1])) % 0x80 + 0x80
            return ident[:i] + bytes([new]) + ident[i + 1:]
    if choice == 2:
        return ident + bytes([rng.choice(HIGH)])
    if choice == 3:
        return bytes([rng.choice(HIGH)]) + ident
    return ident.replace(b"a", b"\xe1", 1) if b"a" in ident else ident + b"\x80"


# --------------------------------------------------------------------------------------
# files


def make_score(rng: random.Random, style: str) -> bytes:
    if style == "int":
        return b"%d" % rng.randint(-2, 6)
    if style == "tie":
        return rng.choice([b"1", b"1.0", b"2", b"2.00", b"0.5", b".5", b"1e0", b"-0", b"0"])
    value = rng.uniform(-3, 10)
    fmt = rng.choice(["%.1f", "%.3f", "%.6f", "%g", "%.2e", "%.10f", "%d"])
    text = (fmt % value) if fmt != "%d" else "%d" % int(value)
    return text.encode()


def make_case(seed: int, index: int, option_set: int | None = None,
              option_sets: list[list[str]] | None = None) -> dict:
    """One case, a function of (seed, index) only (and of the option set when one is forced);
    ``option_sets``: the list it is drawn from (default :data:`OPTION_SETS`)."""
    rng = random.Random(f"{seed}:{index}")
    features: list[str] = []
    q_topic_mode = rng.choice(ID_MODES)
    q_doc_mode = rng.choice(ID_MODES)
    # mixed files: the run's own ids (unjudged docs, extra topics, its tag) in another mode
    r_mode = rng.choice(ID_MODES) if rng.random() < 0.5 else q_doc_mode
    tag_mode = rng.choice(ID_MODES)
    features += [f"qtopics={q_topic_mode}", f"qdocs={q_doc_mode}", f"run={r_mode}", f"tag={tag_mode}"]

    n_topics = rng.randint(1, 5)
    topics: list[bytes] = []
    while len(topics) < n_topics:
        t = make_id(rng, q_topic_mode) if rng.random() < 0.8 else b"%d" % rng.randint(1, 999)
        if topics and rng.random() < 0.25:
            t = near_miss(rng, rng.choice(topics))
        if t not in topics:
            topics.append(t)

    qrels_lines: list[bytes] = []
    run_lines: list[bytes] = []
    score_style = rng.choice(["int", "tie", "float", "float"])
    features.append(f"scores={score_style}")
    tag = make_id(rng, tag_mode)
    multi_tag = rng.random() < 0.04
    if multi_tag:
        features.append("multi_tag")
    iter_field = rng.choice([b"Q0", b"0", b"q", make_id(rng, r_mode)])
    judged_by_topic: dict[bytes, list[bytes]] = {}
    for t in topics:
        docs: list[bytes] = []
        for _ in range(rng.randint(1, 12)):
            d = make_id(rng, q_doc_mode)
            if docs and rng.random() < 0.3:
                d = near_miss(rng, rng.choice(docs))
            if d not in docs:
                docs.append(d)
        judged_by_topic[t] = docs
        for d in docs:
            grade = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3, 4])
            qiter = rng.choice([b"0", b"0", b"1", b"Q0", make_id(rng, q_doc_mode)])
            qrels_lines.append(b"%s %s %s %d" % (t, qiter, d, grade))

    run_topics = list(topics)
    if rng.random() < 0.3 and len(run_topics) > 1:  # a qrels topic without results
        run_topics.remove(rng.choice(run_topics))
        features.append("qrels_topic_not_in_run")
    if rng.random() < 0.3:  # a run topic without qrels (ignored by trec_eval)
        extra = near_miss(rng, rng.choice(topics)) if rng.random() < 0.5 else make_id(rng, r_mode)
        if extra not in topics:
            run_topics.append(extra)
            judged_by_topic[extra] = []
            features.append("run_topic_not_in_qrels")
    for t in run_topics:
        pool = list(judged_by_topic[t])
        rng.shuffle(pool)
        retrieved = pool[:rng.randint(0, len(pool))]
        for _ in range(rng.randint(0, 8)):  # unjudged documents, some near misses of judged ones
            d = near_miss(rng, rng.choice(pool)) if pool and rng.random() < 0.4 else make_id(rng, r_mode)
            if d not in retrieved:
                retrieved.append(d)
        if not retrieved:
            retrieved.append(make_id(rng, r_mode))
        rng.shuffle(retrieved)
        for rank, d in enumerate(retrieved, 1):
            line_tag = make_id(rng, tag_mode) if multi_tag and rng.random() < 0.5 else tag
            rank_field = rng.choice([b"%d" % rank, b"%d" % rank, b"0", b"%d" % rng.randint(1, 99)])
            run_lines.append(b"%s %s %s %s %s %s" % (t, iter_field, d, rank_field, make_score(rng, score_style),
                                                     line_tag))

    # line order and separators
    if rng.random() < 0.5:
        rng.shuffle(qrels_lines)
    if rng.random() < 0.5:
        rng.shuffle(run_lines)
    sep = rng.choice([b" ", b" ", b"\t", b"  ", b" \t"])
    if sep != b" ":
        features.append("separator=%r" % sep.decode())
        qrels_lines = [line.replace(b" ", sep) for line in qrels_lines]
        run_lines = [line.replace(b" ", sep) for line in run_lines]
    if rng.random() < 0.1:
        features.append("crlf")
        qrels_lines = [line + b"\r" for line in qrels_lines]
        run_lines = [line + b"\r" for line in run_lines]

    malformed = None
    if rng.random() < 0.06:
        malformed = rng.choice(["qrels_3_fields", "run_5_fields", "dup_run_doc", "dup_qrels_doc",
                                "empty_run", "empty_qrels", "qrels_blank_line"])
        features.append(f"malformed={malformed}")
        if malformed == "qrels_3_fields":
            i = rng.randrange(len(qrels_lines))
            qrels_lines[i] = b" ".join(qrels_lines[i].split()[:3])
        elif malformed == "run_5_fields":
            i = rng.randrange(len(run_lines))
            run_lines[i] = b" ".join(run_lines[i].split()[:5])
        elif malformed == "dup_run_doc":
            run_lines.append(rng.choice(run_lines))
        elif malformed == "dup_qrels_doc":
            qrels_lines.append(rng.choice(qrels_lines))
        elif malformed == "empty_run":
            run_lines = []
        elif malformed == "empty_qrels":
            qrels_lines = []
        elif malformed == "qrels_blank_line":
            qrels_lines.insert(rng.randrange(len(qrels_lines) + 1), b"")

    def join(lines: list[bytes]) -> bytes:
        if not lines:
            return b""
        return b"\n".join(lines) + (b"\n" if rng.random() < 0.9 else b"")

    option_sets = OPTION_SETS if option_sets is None else option_sets
    option_set = rng.randrange(len(option_sets)) if option_set is None else option_set
    options = list(option_sets[option_set])
    files_first = rng.random() < 0.1  # GNU getopt permutes: the files before the options
    return {"seed": seed, "index": index, "qrels": join(qrels_lines), "run": join(run_lines),
            "options": options, "files_first": files_first, "features": features}


# --------------------------------------------------------------------------------------
# running


def argv(options: list[str], qrels: Path, run: Path, files_first: bool) -> list[str]:
    return [str(qrels), str(run), *options] if files_first else [*options, str(qrels), str(run)]


def run_both(trec_eval: str, irstats: list[str], options, qrels_bytes: bytes, run_bytes: bytes, workdir: Path,
             files_first: bool = False, timeout: float = 120):
    qrels, run = workdir / "qrels", workdir / "run"
    qrels.write_bytes(qrels_bytes)
    run.write_bytes(run_bytes)
    args = argv(options, qrels, run, files_first)
    results = []
    for cmd in ([trec_eval, *args], [*irstats, "trec_eval", *args]):
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
            results.append((p.returncode, p.stdout, p.stderr))
        except subprocess.TimeoutExpired as exc:
            results.append((-999, exc.stdout or b"", b"timeout"))
    return results[0], results[1]


def same(a, b) -> bool:
    return a[0] == b[0] and a[1] == b[1]


def kind(te, ir) -> str:
    """A coarse class of the mismatch, to minimise one of each."""
    if te[0] != ir[0]:
        return f"exit {te[0]} vs {ir[0]}"
    a, b = te[1].splitlines(), ir[1].splitlines()
    for x, y in zip(a, b):
        if x != y:
            name = x.split(b"\t")[0].strip().decode("latin-1")
            return f"line {name} differs"
    return f"{len(a)} vs {len(b)} lines"


def first_difference(te_out: bytes, ir_out: bytes) -> str:
    a, b = te_out.splitlines(keepends=True), ir_out.splitlines(keepends=True)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {i + 1}: trec_eval {x!r} irstats {y!r}"
    if len(a) != len(b):
        i = min(len(a), len(b))
        extra = a[i] if len(a) > len(b) else b[i]
        return f"line {i + 1}: only {'trec_eval' if len(a) > len(b) else 'irstats'} prints {extra!r}"
    return "same stdout"


def keep(case_dir: Path, case: dict, te, ir, trec_eval: str, irstats: list[str]) -> None:
    case_dir.mkdir(parents=True, exist_ok=True)
    (case_dir / "qrels").write_bytes(case["qrels"])
    (case_dir / "run").write_bytes(case["run"])
    args = argv(case["options"], Path("qrels"), Path("run"), case["files_first"])
    (case_dir / "cmd.sh").write_text(
        f"# seed {case['seed']} case {case['index']}; features: {' '.join(case['features'])}\n"
        f"cd \"$(dirname \"$0\")\"\n"
        f"{shlex.quote(trec_eval)} {shlex.join(args)} > trec_eval.out; echo \"trec_eval exit $?\"\n"
        f"{shlex.join(irstats)} trec_eval {shlex.join(args)} > irstats.out; echo \"irstats exit $?\"\n"
        f"cmp trec_eval.out irstats.out\n")
    for name, res in (("trec_eval", te), ("irstats", ir)):
        (case_dir / f"{name}.out").write_bytes(res[1])
        (case_dir / f"{name}.err").write_bytes(res[2] + b"\n[exit %d]\n" % res[0])


def minimise(case: dict, trec_eval: str, irstats: list[str], workdir: Path, budget: int = 150):
    """Greedy delta debugging: drop chunks of qrels lines, run lines and options while the
    two programs still disagree in the same way. Returns (qrels, run, options, te, ir)."""
    qrels = case["qrels"].splitlines(keepends=True)
    run = case["run"].splitlines(keepends=True)
    options = list(case["options"])
    calls = 0

    wanted = kind(*run_both(trec_eval, irstats, options, case["qrels"], case["run"], workdir, case["files_first"]))

    def fails(q, r, o):  # the same kind of mismatch, not just any
        nonlocal calls
        calls += 1
        te, ir = run_both(trec_eval, irstats, o, b"".join(q), b"".join(r), workdir, case["files_first"])
        return (not same(te, ir) and kind(te, ir) == wanted), te, ir

    def shrink(items: list, build) -> list:
        nonlocal calls
        chunk = max(1, len(items) // 2)
        while chunk >= 1 and calls < budget:
            i = 0
            changed = False
            while i < len(items) and calls < budget:
                trial = items[:i] + items[i + chunk:]
                if trial and fails(*build(trial))[0]:
                    items = trial
                    changed = True
                else:
                    i += chunk
            if not changed:
                chunk //= 2
        return items

    qrels = shrink(qrels, lambda q: (q, run, options))
    run = shrink(run, lambda r: (qrels, r, options))
    # options: drop whole option words (with their argument)
    words: list[list[str]] = []
    it = iter(options)
    for o in it:
        words.append([o, next(it)] if o in ("-m", "-l", "-M", "-N") else [o])
    i = 0
    while i < len(words) and calls < budget:
        trial = words[:i] + words[i + 1:]
        flat = [x for w in trial for x in w]
        if fails(qrels, run, flat)[0]:
            words = trial
        else:
            i += 1
    options = [x for w in words for x in w]
    _, te, ir = fails(qrels, run, options)
    return b"".join(qrels), b"".join(run), options, te, ir


def rng_choice(allowed: list[int] | None, seed: int, index: int) -> int | None:
    return None if not allowed else random.Random(f"options:{seed}:{index}").choice(allowed)


def main(argv_: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL", "trec_eval"))
    ap.add_argument("--irstats", default=f"{shlex.quote(sys.executable)} -m irstats",
                    help="the irstats command (default: this python -m irstats)")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--case", type=int, help="run only this case index of the seed")
    ap.add_argument("--keep", type=Path, help="folder for the mismatching cases (default: a new temp folder)")
    ap.add_argument("--minimise", type=int, default=0, metavar="K",
                    help="shrink the first mismatch of up to K distinct kinds")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--option-set", type=int, action="append", metavar="I",
                    help="use only these option sets (indices into OPTION_SETS); repeatable")
    ap.add_argument("--exclude", action="append", default=[], metavar="FEATURE",
                    help="skip the cases with a feature starting so (e.g. malformed, multi_tag); repeatable")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    ap.add_argument("--suite", choices=("options", "parameters", "rbp-pairs"), default="options",
                    help="the option sets: OPTION_SETS, PARAMETER_SETS (measure-parameter errors), or every "
                         "trec_eval measure with rbp, each in turn (rbp_pairs)")
    args = ap.parse_args(argv_)
    suite = {"options": OPTION_SETS, "parameters": PARAMETER_SETS, "rbp-pairs": None}[args.suite]
    if suite is None:
        suite = rbp_pairs()
    irstats = shlex.split(args.irstats)
    keep_dir = args.keep or Path(tempfile.mkdtemp(prefix="fuzz_trec_eval_"))
    indices = [args.case] if args.case is not None else range(args.cases)
    mismatches: list[str] = []
    minimised: dict[str, Path] = {}
    start = time.monotonic()
    exits: dict[int, int] = {}  # trec_eval's exit codes, to see what the cases reached
    departures = 0  # documented differences (rbp after a measure whose leftovers it reads)
    with tempfile.TemporaryDirectory(prefix="fuzz_trec_eval_work_") as work:
        workdir = Path(work)
        n = 0
        for index in indices:
            chosen = index % len(suite) if args.suite == "rbp-pairs" else rng_choice(args.option_set, args.seed, index)
            case = make_case(args.seed, index, chosen, suite)
            if any(f.startswith(x) for f in case["features"] for x in args.exclude):
                continue
            te, ir = run_both(args.trec_eval, irstats, case["options"], case["qrels"], case["run"], workdir,
                              case["files_first"], args.timeout)
            n += 1
            exits[te[0]] = exits.get(te[0], 0) + 1
            if not args.quiet and n % 50 == 0:
                print(f"  ({n} cases, {time.monotonic() - start:.0f}s)", file=sys.stderr, flush=True)
            if same(te, ir):
                continue
            if documented(te, ir):
                departures += 1
                continue
            case_dir = keep_dir / f"seed{args.seed}-case{index}"
            keep(case_dir, case, te, ir, args.trec_eval, irstats)
            k = kind(te, ir)
            report = (f"MISMATCH seed {args.seed} case {index}: options {shlex.join(case['options'])!s} "
                      f"[{' '.join(case['features'])}] exit trec_eval {te[0]} irstats {ir[0]}; "
                      f"{first_difference(te[1], ir[1])}; kind: {k}; kept in {case_dir}")
            if len(minimised) < args.minimise and k not in minimised:
                q, r, o, mte, mir = minimise(case, args.trec_eval, irstats, workdir)
                small = {**case, "qrels": q, "run": r, "options": o}
                keep(case_dir / "min", small, mte, mir, args.trec_eval, irstats)
                minimised[k] = case_dir / "min"
                report += f"\n    minimised: options {shlex.join(o)}; qrels {q!r}; run {r!r}; " \
                          f"trec_eval exit {mte[0]} stdout {mte[1]!r}; irstats exit {mir[0]} stdout {mir[1]!r}" \
                          f"\n    irstats stderr: {mir[2][-300:]!r}"
            mismatches.append(report)
            print(report, flush=True)
    print(f"{n} cases, {len(mismatches)} mismatches" + (f", {departures} documented departures (rbp's "
                                                          f"uninitialised read, warned)" if departures else ""))
    print(f"trec_eval exit codes: {dict(sorted(exits.items()))}; {time.monotonic() - start:.0f}s", file=sys.stderr)
    if mismatches:
        print(f"kept in {keep_dir}")
    elif args.keep is None:
        keep_dir.rmdir()
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
