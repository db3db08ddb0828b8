"""Property: a valid run/qrels pair corrupted at a random line in a random way (an empty
field, an extra field, a bad number, bad bytes) is either evaluated exactly as the
plain-loop reference (tests/reference.py, which reads bytes as trec_eval does) evaluates
it, or rejected with an InputError naming that file and that line. Never a wrong number.
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import irstats
from irstats import InputError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_properties import assert_same, collections, engine, reference, write_collection  # noqa: E402
from tests.conftest import examples  # noqa: E402

MEASURES = ["AP", "P@5", "RR", "nDCG@5", "Rprec", "Bpref", "RBP(p=0.8)", "ERR@5", "NumRet", "NumRel"]
BAD_NUMBERS = [b"abc", b"1.2.3", b"--1", b"1e", b"0x10", b"1,5", b"nan", b"\xff", b"1_0"]
BAD_BYTES = [b"\xff", b"\xe9", b"\x00", b"\x1f", b"\xc3\xa9", b"\xa0", b"\x85", b"\x0b"]
CORRUPTIONS = ["empty_field", "extra_field", "bad_number", "bad_bytes"]


def corrupt(line: bytes, how: str, field: int, choice: int, is_run: bool) -> bytes:
    """``line`` (one content line, single-space separated fields) corrupted as ``how`` says."""
    fields = line.rstrip(b"\n").split()
    field %= len(fields)
    if how == "empty_field":
        fields[field] = b""  # two separators in a row (or a leading/trailing one)
    elif how == "extra_field":
        fields.insert(field + 1, b"extra")
    elif how == "bad_number":
        fields[4 if is_run else 3] = BAD_NUMBERS[choice % len(BAD_NUMBERS)]
    else:
        bad = BAD_BYTES[choice % len(BAD_BYTES)]
        fields[field] = fields[field][:1] + bad + fields[field][1:]
    return b" ".join(fields) + b"\n"


@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(coll=collections(), target=st.integers(0, 10), where=st.integers(0, 10**6),
       how=st.sampled_from(CORRUPTIONS), field=st.integers(0, 7), choice=st.integers(0, 50))
@example(coll={"qrels": {"1": {"d1": 0}}, "runs": [{"tag": "run0", "lines": [("1", "d1", 1, -1.0)]}]},
         target=0, where=0, how="bad_bytes", field=0, choice=0)  # the only topic renamed in the qrels
def test_corrupted_line_is_exact_or_named(coll, target, where, how, field, choice):
    coll["style"] = {"sep": " ", "extra": False, "comment": False, "gaps": [" "]}
    with tempfile.TemporaryDirectory() as directory:
        qrels, runs = write_collection(directory, coll)
        files = [qrels, *runs]
        victim = Path(files[target % len(files)])
        lines = victim.read_bytes().splitlines(keepends=True)
        index = where % len(lines)
        lines[index] = corrupt(lines[index], how, field, choice, is_run=victim != Path(qrels))
        victim.write_bytes(b"".join(lines))
        try:
            want = reference(qrels, runs, [r["tag"] for r in coll["runs"]], MEASURES)
        except ValueError:
            want = None  # the reference refuses the file: irstats must name the line
        try:
            got = engine(qrels, runs, MEASURES)
        except InputError as exc:
            if want is not None and "no topic in common" in str(exc):
                # The corruption renamed the only shared topic: the reference scores nothing either.
                assert not any(want[m][r["tag"]] for m in MEASURES for r in coll["runs"]
                               if str(exc.path).endswith(f"{r['tag']}.run")), str(exc)
                return
            assert want is None, f"{how}: irstats refused a file the reference reads: {exc}"
            if "twice" not in str(exc):  # a duplicate is reported at its second occurrence
                assert (exc.path, exc.line) == (str(victim), index + 1), f"{how}: {exc}"
            return
        assert want is not None, f"{how} on {victim.name}:{index + 1} was accepted: {lines[index]!r}"
        # The corrupted line may have renamed the run's tag (bad bytes in field 6); values count.
        assert_same({m: dict(zip(want[m], got[m].values())) for m in MEASURES}, want, how)


def test_tag_with_bad_bytes_names_the_run_as_text(tmp_path):
    """Bytes past ASCII in a tag are shown as readable text, never as a decoding error."""
    (tmp_path / "q").write_bytes(b"1 0 a 1\n")
    (tmp_path / "r").write_bytes(b"1 Q0 a 1 1.0 r\xff\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = irstats.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["AP"])
    assert scores["AP"].systems == ("r\\xff",)
