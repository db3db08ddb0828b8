"""The compiled qrels reader (``irstats._ingest.read_qrels``, issue 25) reads exactly what the
careful Python reader reads, and hands back every file it does not take as it is.

The reference is :func:`irstats.io.trec.read_qrels` (polars, file:line errors), which the
conformance suites hold equal to trec_eval. Held equal here: on every file of
``tests/data`` (qrels or not: whatever the compiled reader takes, the careful reader reads
the same; whatever the careful reader refuses, the compiled reader declines, so the error a
user sees is the careful reader's, naming the file and line), on hand-made edge cases, and
on hypothesis-generated qrels full of odd whitespace, comments, odd grades, duplicates and
non-ASCII ids — in both grade modes (``labels="real"`` and trec_eval's ``"atol"``). And the
command-line path from plain TREC files to printed numbers imports no frame library.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstats.ingest as ingest
from irstats import extension
from irstats.collection import Collection, EvalOptions
from irstats.errors import InputError
from irstats.evaluate import Evaluator
from irstats.io.trec import read_qrels
from irstats.judgments import qrels_facts
from tests.conftest import examples

pytestmark = pytest.mark.filterwarnings("ignore::irstats.errors.IrstatsWarning")
SRC = Path(__file__).resolve().parents[1] / "src"


def careful(path, labels: str = "real"):
    """The careful reader's frame, or its error's text."""
    try:
        return read_qrels(path, labels=labels)
    except InputError as exc:
        return f"InputError: {exc}"


def check_file(path, labels: str = "real") -> bool:
    """The compiled reader's frame equals the careful reader's, or it declines; it never takes a
    file the careful reader refuses. Returns whether the compiled reader took it."""
    expected = careful(path, labels)
    arrays = ingest.read_qrels_arrays(path)
    if arrays is None:
        return False
    assert not isinstance(expected, str), f"{path}: the compiled reader took a file the careful reader refuses " \
                                          f"({expected})"
    got = arrays.frame()
    assert got.schema == expected.schema
    assert got.equals(expected), path
    assert arrays.topics == tuple(sorted(expected.get_column("topic").unique().to_list()))
    return True


def reference_files(reference_data: Path) -> list[Path]:
    return sorted(p for p in reference_data.rglob("*") if p.is_file() and p.stat().st_size < (4 << 20))


def test_every_reference_file(reference_data):
    """Every file of tests/data: the same frame in both grade modes, or declined."""
    taken = []
    for path in reference_files(reference_data):
        if check_file(path):
            taken.append(path.name)
        check_file(path, "atol")
    # the qrels the tests use are all taken (so the command line reads them without polars)
    for name in ("qrels.test", "qrels.rel_level", "qrels-302.test", "qrels.comment.test", "qrels.test.with-comments",
                 "qrels.dl19-passage.txt", "gpt4.dl19-passage.qrels", "basic.qrels", "mult.qrels"):
        assert name in taken, name
    # the careful reader's: real-valued grades, pairs judged twice (an error, or --qrels-duplicate),
    # NTCIR's three-field qrels (an error)
    for name in ("frac.qrels", "qrels.123", "qrels.comments.123", "test.qrels"):
        assert name not in taken, name


def test_collection_equal_either_way(reference_data, monkeypatch):
    """A Collection loaded through the compiled reader holds the same topics, frame, grades and
    facts as one loaded by the careful reader, and evaluates runs the same."""
    dl19 = reference_data / "trec-dl-2019-passage"
    qrels = dl19 / "qrels.dl19-passage.txt"
    runs = sorted((dl19 / "runs").iterdir())[:3]
    fast = Collection.load(qrels)
    assert fast.arrays is not None and fast._qrels is None
    monkeypatch.setattr(extension, "ENABLED", False)
    slow = Collection.load(qrels)
    monkeypatch.setattr(extension, "ENABLED", True)
    assert slow.arrays is None
    assert fast.topic_keys == slow.topic_keys and fast.topics == slow.topics
    assert fast.g_max == slow.g_max and fast.labels is None and slow.labels is None
    assert np.array_equal(fast.line_topics(), slow.line_topics())
    assert np.array_equal(fast.line_grades(), slow.line_grades())
    assert fast.docno_blob() == slow.docno_blob()
    options = EvalOptions(negative_rel="nonrel")
    a, b = qrels_facts(fast, options), qrels_facts(slow, options)
    assert np.array_equal(a.topic_index, b.topic_index) and np.array_equal(a.rel, b.rel)
    assert fast._qrels is None  # nothing so far needed the frame
    for measures in (["AP", "nDCG@10", "RBP(p=0.8)", "Bpref"],):
        x = Evaluator(fast).score(runs, measures)
        y = Evaluator(slow).score(runs, measures)
        for name in measures:
            assert np.array_equal(x[name].values, y[name].values, equal_nan=True)
    assert fast.qrels.equals(slow.qrels)  # and the frame, built on demand


EDGE_CASES = {
    "unsorted topics and docnos": b"9 0 b 1\n10 0 a 2\n9 0 a 0\n10 0 c -1\n",
    "comments and blank lines": b"# a comment\n\n   \n1 0 d1 1\n  # indented comment\n1 0 d2 0\n",
    "odd whitespace": b"1\t0  d1 \t1\r\n\v1 0 d2\f2\n1 0 d3 3",
    "signs and zeros": b"1 0 a +3\n1 0 b -0\n1 0 c 007\n1 0 d -2\n",
    "18 digits": b"1 0 a 999999999999999999\n",
    "non-ASCII ids": "é 0 dé 1\ne 0 d 1\nz 0 ü 2\n".encode("latin-1"),
    "UTF-8 ids": "é 0 dé 1\ne 0 d 1\n".encode("utf-8"),
    "a docno starting with #": b"1 0 #d 1\n",
    # declined: the careful reader decides
    "a pair judged twice": b"1 0 a 1\n1 0 a 2\n",
    "five fields": b"1 0 a 1 x\n",
    "three fields": b"1 0 a\n",
    "a real grade": b"1 0 a 2.5\n",
    "an exponent": b"1 0 a 1e3\n",
    "19 digits": b"1 0 a 9999999999999999999\n",
    "text grade": b"1 0 a x\n",
    "a NUL byte": b"1 0 a 1\n1 0 b\x00 1\n",
    "empty": b"",
    "only comments": b"# nothing\n",
    "UTF-16": "1 0 a 1\n".encode("utf-16"),
}
DECLINED = {"a pair judged twice", "five fields", "three fields", "a real grade", "an exponent", "19 digits",
            "text grade", "a NUL byte", "empty", "only comments", "UTF-16"}


@pytest.mark.parametrize("name", list(EDGE_CASES))
def test_edge_cases(name, tmp_path):
    path = tmp_path / "qrels"
    path.write_bytes(EDGE_CASES[name])
    assert check_file(path) == (name not in DECLINED)
    check_file(path, "atol")


def test_gzip_and_errors_through_collection(tmp_path):
    """gzip is read by both; an error is the careful reader's (file and line), whichever path."""
    path = tmp_path / "qrels.gz"
    path.write_bytes(gzip.compress(b"2 0 b 1\n1 0 a 0\n"))
    assert check_file(path)
    bad = tmp_path / "bad"
    bad.write_bytes(b"1 0 a 1\n1 0 b 1\n1 0 a 2\n")
    with pytest.raises(InputError) as compiled:
        Collection.load(bad)
    assert str(compiled.value).startswith(f"{bad}:3: duplicate judgment")
    assert str(compiled.value) == careful(bad)[len("InputError: "):]


# ------------------------------------------------------------------ generated qrels

IDS = st.text(alphabet=st.sampled_from(list("ab019#é\x85\xa0_")), min_size=1, max_size=4)
GRADES = st.one_of(st.integers(-3, 5).map(str), st.sampled_from(["+1", "007", "-0", "2.5", "1e2", "x", "nan", "",
                                                                 "9999999999999999999", "123456789012345678"]))
BLANKS = st.sampled_from([" ", "\t", "  ", " \t", "\r", "\v", "\f"])


@st.composite
def qrels_text(draw) -> bytes:
    lines = []
    pairs = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["line"] * 8 + ["blank", "comment", "repeat", "fields"]))
        if kind == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t", "\r"])))
        elif kind == "comment":
            lines.append(draw(st.sampled_from(["#", "# x y z w", "  #c"])))
        elif kind == "repeat" and pairs:
            topic, docno = draw(st.sampled_from(pairs))
            lines.append(f"{topic} 0 {docno} {draw(GRADES)}")
        else:
            topic, docno = draw(IDS), draw(IDS)
            pairs.append((topic, docno))
            fields = [topic, draw(st.sampled_from(["0", "Q0", "1"])), docno, draw(GRADES)]
            if kind == "fields":
                fields = fields[:draw(st.integers(1, 3))] + ["extra"] * draw(st.integers(0, 2))
            fields = [f for f in fields if f]
            sep = [draw(BLANKS) for _ in fields]
            lead = draw(st.sampled_from(["", "", " ", "\t"]))
            lines.append(lead + "".join(f + s for f, s in zip(fields, sep[:-1] + [""])))
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))
    return text.encode(draw(st.sampled_from(["latin-1", "utf-8"])))


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_text())
def test_generated_qrels(tmp_path_factory, data):
    path = tmp_path_factory.getbasetemp() / "generated.qrels"
    path.write_bytes(data)
    check_file(path)
    check_file(path, "atol")


# ------------------------------------------------------------------ no frame library on the way

def _modules_after(args: list[str]) -> set[str]:
    probe = ("import sys, io, contextlib\nfrom irstats.cli.main import main\n"
             "with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):\n"
             f"    try:\n        main({args!r})\n    except SystemExit as exc:\n        assert not exc.code, exc.code\n"
             "sys.__stdout__.write('\\n'.join(sorted(sys.modules)))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]))
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


FRAMES = ("polars", "pandas", "pyarrow")


@pytest.mark.parametrize("command", [["eval"], ["trec_eval"], ["trec_eval", "-q", "-m", "all_trec"],
                                     ["eval", "-q", "-m", "AP", "-m", "nDCG@10"]])
def test_command_line_imports_no_frame_library(command, reference_data):
    te = reference_data / "conformance" / "trec_eval-test"
    modules = _modules_after([*command, str(te / "qrels.test"), str(te / "results.test")])
    assert "irstats.evaluate" in modules
    assert sorted(m for m in modules if m.split(".")[0] in FRAMES) == []


def test_frame_library_when_the_careful_reader_is_needed(reference_data, tmp_path):
    """A qrels file the compiled reader declines still evaluates (through polars)."""
    te = reference_data / "conformance" / "trec_eval-test"
    qrels = tmp_path / "qrels"
    qrels.write_bytes((te / "qrels.test").read_bytes().replace(b" 1\n", b" 1.0\n", 1))
    assert ingest.read_qrels_arrays(qrels) is None
    modules = _modules_after(["trec_eval", str(qrels), str(te / "results.test")])
    assert "polars" in modules
