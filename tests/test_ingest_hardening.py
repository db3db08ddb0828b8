"""The compiled reader (irstats._ingest) at its edges: a table is built once, its buffers
are int64 arrays it can read as they are, nothing narrows to int32 silently, and no score
token, however pathological, parses differently from the Python reader.

tests/test_ingest.py holds the two paths equal on real and generated runs; here each class
of fault the C code could hide (issue 24, item 10) has its own test.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import mmap
import os
import sys
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstats.ingest as ingest
from irstats.collection import Collection, EvalOptions, RunSet
from irstats.errors import InputError
from irstats.evaluate import Evaluator
from tests.test_ingest import assert_same, both_paths
from tests.conftest import examples

pytestmark = [
    pytest.mark.filterwarnings("ignore::irstats.errors.IrstatsWarning"),
    pytest.mark.skipif(ingest._ingest is None, reason="irstats._ingest is not built (test_ingest.py fails for that)"),
]

INT32_MAX = 2**31 - 1


def qrels_table(docs=(b"a", b"b"), codes=(1, 0)):
    """A table of topic 1 with the given documents and codes."""
    return ingest._ingest.QrelsTable([b"1"], np.zeros(len(docs), np.int64), b"\n".join(docs),
                                     np.array(codes, np.int64))


def grades(result):
    return None if result is None else np.frombuffer(result[2], np.int64).tolist()


RUN = b"1 Q0 b 1 1.0 t\n1 Q0 a 2 3.0 t\n1 Q0 z 3 2.0 t\n"
RANKED = [1, -1, 0]  # a (3.0), z (unjudged, 2.0), b (1.0)


# ----------------------------------------------------------------------------- built once

def test_second_init_of_a_built_table_is_refused():
    table = qrels_table()
    assert grades(table.rank(RUN, b"t", -1, False, False)) == RANKED
    with pytest.raises(RuntimeError, match="already built and cannot be initialised again"):
        table.__init__([b"2"], np.array([0], np.int64), b"z", np.array([5], np.int64))
    with pytest.raises(RuntimeError, match="already built"):  # refused before its arguments are even read
        table.__init__()
    assert grades(table.rank(RUN, b"t", -1, False, False)) == RANKED  # the table is untouched


def test_rank_refuses_a_table_never_built():
    table = ingest._ingest.QrelsTable.__new__(ingest._ingest.QrelsTable)
    with pytest.raises(RuntimeError, match="never built"):
        table.rank(RUN, b"t", -1, False, False)


def test_a_failed_init_leaves_an_empty_table_that_can_then_be_built():
    table = ingest._ingest.QrelsTable.__new__(ingest._ingest.QrelsTable)
    with pytest.raises(ValueError, match="twice"):  # fails after allocating: everything is freed again
        table.__init__([b"1"], np.array([0, 0], np.int64), b"a\na", np.array([1, 0], np.int64))
    with pytest.raises(RuntimeError, match="never built"):
        table.rank(RUN, b"t", -1, False, False)
    table.__init__([b"1"], np.array([0, 0], np.int64), b"a\nb", np.array([1, 0], np.int64))
    assert grades(table.rank(RUN, b"t", -1, False, False)) == RANKED


def test_init_on_a_table_that_threads_are_ranking_with_is_refused_and_changes_nothing():
    """rank() reads the table without the GIL: an __init__ meanwhile must not free or change it."""
    docs = [f"d{i}".encode() for i in range(2000)]
    table = qrels_table(docs, [i % 4 for i in range(2000)])
    run = b"".join(b"1 Q0 d%d %d %d t\n" % (i, i, (i * 7919) % 1000) for i in range(0, 4000, 3))
    expected = table.rank(run, b"t", -1, False, False)
    results, stop = [], threading.Event()

    def rank_until_stopped():
        while not stop.is_set():
            results.append(table.rank(run, b"t", -1, False, False))

    threads = [threading.Thread(target=rank_until_stopped) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(300):
            with pytest.raises(RuntimeError, match="already built"):
                table.__init__([b"1"], np.array([0], np.int64), b"x", np.array([1], np.int64))
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert results and all(r == expected for r in results)


# ----------------------------------------------------------------------------- int64 buffers

def misaligned(a):
    raw = bytearray(a.nbytes + 1)
    raw[1:] = a.tobytes()
    return np.frombuffer(raw, np.int64, count=len(a), offset=1)  # right values, one byte off


@pytest.mark.parametrize("make, error, message", [
    (misaligned, ValueError, "must start on an 8-byte boundary"),
    (lambda a: a.astype(np.int32), TypeError, r"must be an int64 array .*format 'i' with 4-byte items"),
    (lambda a: a.astype(np.float64), TypeError, r"must be an int64 array .*format 'd'"),  # 8-byte items all the same
    (lambda a: a.astype(np.uint64), TypeError, "must be an int64 array"),
    (lambda a: a.astype(">i8" if sys.byteorder == "little" else "<i8"), TypeError, "must be an int64 array"),
    (lambda a: a.tobytes(), TypeError, r"must be an int64 array .*format 'B'"),
    (lambda a: np.repeat(a, 2)[::2], ValueError, "must be C-contiguous"),
    (lambda a: a.reshape(1, -1), ValueError, "must be one-dimensional, not 2-dimensional"),
    (lambda a: a.tolist(), TypeError, "bytes-like object is required"),
], ids=["misaligned", "int32", "float64", "uint64", "other-byte-order", "bytes", "strided", "2-d", "list"])
@pytest.mark.parametrize("argument", ["line_topic", "codes"])
def test_buffers_that_are_not_aligned_int64_arrays_are_refused(make, error, message, argument):
    line_topic, codes = np.array([0, 0], np.int64), np.array([1, 0], np.int64)
    if argument == "line_topic":
        line_topic = make(line_topic)
    else:
        codes = make(codes)
    prefix = "" if error is TypeError and "bytes-like" in message else f"QrelsTable: {argument} "
    with pytest.raises(error, match=prefix + message):
        ingest._ingest.QrelsTable([b"1"], line_topic, b"a\nb", codes)


def test_int64_buffers_of_any_spelling_are_taken():
    """numpy's int64 ('l' on LP64, '=q' when unaligned) and a memoryview cast to 'q' are the same numbers."""
    expected = grades(qrels_table().rank(RUN, b"t", -1, False, False))
    line_topic = memoryview(bytearray(16)).cast("q")
    codes = memoryview(bytearray(np.array([1, 0], np.int64).tobytes())).cast("q")
    table = ingest._ingest.QrelsTable([b"1"], line_topic, b"a\nb", codes)
    assert grades(table.rank(RUN, b"t", -1, False, False)) == expected
    table = ingest._ingest.QrelsTable([b"1"], np.array([0, 0], dtype="=i8"), b"a\nb", np.array([1, 0], dtype="<i8"))
    assert grades(table.rank(RUN, b"t", -1, False, False)) == expected


# ----------------------------------------------------------------------------- int32 narrowing

PROT_NONE, MAP_FIXED = 0, 0x10  # Linux values; the mmap module has no MAP_FIXED


@contextlib.contextmanager
def huge_buffer(head: bytes, fill: bytes, size: int, tail: bytes):
    """A ``size``-byte buffer: ``head``, ``fill`` bytes, ``tail``. One 1 MiB memfd is mapped
    over and over (copy-on-write), so a 2 GiB docno costs about 1 MiB of memory."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    chunk = 1 << 20
    total = -(-size // chunk) * chunk
    fd = os.memfd_create("irstats-huge-docno")
    try:
        os.pwrite(fd, fill * chunk, 0)
        base = libc.mmap(None, total, PROT_NONE, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
        if base in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        try:
            for k in range(total // chunk):
                at = libc.mmap(base + k * chunk, chunk, mmap.PROT_READ | mmap.PROT_WRITE,
                               mmap.MAP_PRIVATE | MAP_FIXED, fd, 0)
                if at != base + k * chunk:
                    raise OSError(ctypes.get_errno(), "mmap")
            ctypes.memmove(base, head, len(head))
            ctypes.memmove(base + size - len(tail), tail, len(tail))
            yield (ctypes.c_char * size).from_address(base)
        finally:
            libc.munmap(base, total)
    finally:
        os.close(fd)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="maps one memfd page over 2 GiB (Linux)")
@pytest.mark.parametrize("length", [INT32_MAX, INT32_MAX + 1])
def test_a_docno_past_int32_raises_instead_of_wrapping(length):
    """An Entry holds a docno's length as int32: 2**31 bytes would wrap to -2**31."""
    head, tail = b"1 Q0 b 1 2.0 t\n1 Q0 ", b" 2 1.0 t\n"
    table = qrels_table()
    with huge_buffer(head, b"x", len(head) + length + len(tail), tail) as data:
        if length <= INT32_MAX:
            assert grades(table.rank(data, b"t", -1, False, False)) == [0, -1]  # b, then the long unjudged docno
        else:
            with pytest.raises(OverflowError, match=r"^line 2 of the run: a docno of 2147483648 bytes; the compiled "
                                                    r"reader holds docno lengths as 32-bit integers"):
                table.rank(data, b"t", -1, False, False)


class _Overflowing:
    """What QrelsTable and rank() do past their int32 fields."""

    def __init__(self, *args):
        raise OverflowError("QrelsTable: 2147483648 topics")

    def rank(self, *args):
        raise OverflowError("line 1 of the run: a docno of 2147483648 bytes")


def test_an_overflow_hands_the_run_to_the_python_readers(tmp_path, monkeypatch):
    """ingest.py turns the C reader's OverflowError into None: the Python readers take the
    run, and either evaluate it or name the file and line."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 1.0 t\n1 Q0 a 2 3.0 t\n")
    runset = RunSet.load(tmp_path / "r")
    reference = Evaluator(Collection.load(tmp_path / "q")).judgments(RunSet.load(tmp_path / "r"))

    monkeypatch.setattr(ingest, "qrels_table", lambda collection, options: _Overflowing.__new__(_Overflowing))
    assert ingest.compiled_judgments(Collection.load(tmp_path / "q"), runset, EvalOptions(), [0]) is None
    assert_same(Evaluator(Collection.load(tmp_path / "q")).judgments(RunSet.load(tmp_path / "r")), reference)
    monkeypatch.undo()

    monkeypatch.setattr(ingest._ingest, "QrelsTable", _Overflowing)
    assert ingest.compiled_judgments(Collection.load(tmp_path / "q"), runset, EvalOptions(), [0]) is None
    assert_same(Evaluator(Collection.load(tmp_path / "q")).judgments(RunSet.load(tmp_path / "r")), reference)


# ----------------------------------------------------------------------------- score tokens

def neighbours(token: str, float32: bool) -> list[tuple[bytes, str, float]]:
    """(docno, token, value) for the token and, when it is a finite number v, the shortest
    spellings of v and of the doubles just above and below it: if the C reader's value for
    the token were one ulp off, the token's document would change places with one of them."""
    def value(text):
        v = float(text)
        with np.errstate(over="ignore"):  # past float32's range: inf, as C's (float) gives
            return float(np.float32(v)) if float32 else v
    lines = [(b"a", token, None)]
    try:
        v = float(token)
    except ValueError:
        return lines
    if math.isfinite(v):
        lines += [(doc, repr(x), value(repr(x))) for doc, x in
                  ((b"b", v), (b"c", math.nextafter(v, math.inf)), (b"d", math.nextafter(v, -math.inf)))
                  if math.isfinite(x)]
    lines[0] = (b"a", token, value(token))
    return lines


def check_token(tmp_path, monkeypatch, token: str, float32: bool = False):
    """The C reader parses ``token`` as the Python reader does, or leaves the file to it.
    Returns whether the C reader took it."""
    lines = neighbours(token, float32)
    run = "".join(f"1 Q0 {doc.decode()} {k} {text} t\n" for k, (doc, text, _) in enumerate(lines)).encode()
    codes = {b"a": 1, b"b": 2, b"c": 3, b"d": 4}
    table = qrels_table(tuple(codes), tuple(codes.values()))
    taken = table.rank(run, b"t", -1, False, float32)
    if taken is not None:
        # trec_eval's order by the values Python gives the tokens: score, then docno, descending
        order = sorted(lines, key=lambda line: (line[2], line[0]), reverse=True)
        assert grades(taken) == [codes[doc] for doc, _, _ in order], token[:80]

    (tmp_path / "q").write_text("".join(f"1 0 {doc.decode()} {code}\n" for doc, code in codes.items()))
    (tmp_path / "r").write_bytes(run)
    options = {"score_dtype": "float32"} if float32 else {}
    try:
        used, compiled, python = both_paths(tmp_path / "q", tmp_path / "r", monkeypatch, force=True, **options)
    except InputError:  # the Python reader refuses the token: so must the C reader have
        assert taken is None, token[:80]
        return False
    if taken is not None:  # the same ranking as the Python reader's
        assert grades(taken) == python.grades[0, 0, :python.n_ret[0, 0]].tolist(), token[:80]
    assert_same(compiled, python)  # also when the engine offers the C reader the whole run (used)
    return taken is not None


@pytest.mark.parametrize("token", [
    "0" * 1000 + "1.5",                  # leading zeros do not count as digits
    "0." + "0" * 15 + "15",              # nor zeros after the point (power -17)
    "1e" + "0" * 50 + "1",               # nor an exponent's leading zeros
    "+000.000e+0000",
    "1e-" + str(10**30),                 # an exponent of -10^30: 0.0, as Python reads it
    "123456789012345e7",
    "-" + "0" * 200 + "9.25E-3",
], ids=lambda token: token if len(token) < 30 else f"{token[:12]}..{token[-12:]}({len(token)})")
def test_long_tokens_the_c_reader_takes_parse_exactly(tmp_path, monkeypatch, token):
    assert check_token(tmp_path, monkeypatch, token)


@pytest.mark.parametrize("token", [
    "1" * 400,                                   # 400 significant digits
    "0." + "0" * 400 + "1",
    "1e" + str(10**30),                          # an exponent of 10^30
    "1" + "0" * 10**6,                           # a million digits: scale 10^6
    "0." + "0" * 10**6 + "1",
    "0." + "0" * 99999 + "1e1000000",            # once read as 1.0 (the exponent capped at 100000): it is inf
    "0." + "0" * 99999 + "1e" + str(10**30),
    "0." + "0" * (10**6 + 5) + "1e1000006",      # 1.0 exactly, but past the fast path's reach
], ids=lambda token: token if len(token) < 30 else f"{token[:12]}..{token[-12:]}({len(token)})")
def test_pathological_tokens_go_to_the_python_reader(tmp_path, monkeypatch, token):
    assert not check_token(tmp_path, monkeypatch, token)


DIGITS = "0123456789"


@st.composite
def numeric_tokens(draw):
    """Plain decimals at their worst: hundreds of digits, runs of zeros before and after the
    point, huge or zero-padded exponents; now and then not a number at all."""
    sign = draw(st.sampled_from(["", "+", "-"]))
    whole = "0" * draw(st.sampled_from([0, 0, 1, 30, 400])) + draw(st.text(DIGITS, max_size=400))
    fraction = None
    if draw(st.booleans()):
        fraction = "0" * draw(st.sampled_from([0, 0, 1, 20, 300])) + draw(st.text(DIGITS, max_size=400))
    exponent = ""
    if draw(st.booleans()):
        value = draw(st.one_of(st.integers(0, 400), st.integers(0, 10**40),
                               st.sampled_from([22, 23, 308, 309, 324, 325, 99999, 10**5, 10**6, 10**30])))
        exponent = (draw(st.sampled_from("eE")) + draw(st.sampled_from(["", "+", "-"]))
                    + "0" * draw(st.sampled_from([0, 0, 3, 60])) + str(value))
    token = sign + whole + ("" if fraction is None else "." + fraction) + exponent
    return token or "0"


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(token=numeric_tokens(), float32=st.booleans())
def test_generated_pathological_tokens_parse_as_the_python_reader(tmp_path_factory, monkeypatch, token, float32):
    check_token(tmp_path_factory.mktemp("token"), monkeypatch, token, float32)
