"""Bad input: every error names the file and the 1-based line (METHODS.md §1.1–1.2, §1.6).

``InputError`` carries ``.path``, ``.line`` and ``.message``; ``str(e)`` is
``"path:line: message"``. Line numbers count every physical line of the file, comment and
blank lines included, and are the same for gzip files.
"""

from __future__ import annotations

import gzip
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import irstats
from irstats import InputError, MeasureError

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 e1 1\n2 0 e2 0\n"
RUN = "1 Q0 d1 1 3.0 r\n1 Q0 d9 2 2.0 r\n1 Q0 d3 3 1.0 r\n2 Q0 e2 1 2.0 r\n2 Q0 e1 2 1.0 r\n"


def write(path: Path, text: str) -> Path:
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode("utf-8")))
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def qrels(tmp_path):
    return write(tmp_path / "good.qrels", QRELS)


@pytest.fixture
def run(tmp_path):
    return write(tmp_path / "good.run", RUN)


def evaluate(q, r, measures=("AP", "RR"), **opts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return irstats.evaluate(_path(q), _path(r), list(measures), **opts)


def _path(x):
    return str(x) if isinstance(x, Path) else x


def check(exc: InputError, path: Path, line: int | None, *words: str):
    """The error locates path (and line) and says something helpful (any of ``words``)."""
    text = str(exc)
    assert exc.path is not None and str(exc.path).endswith(path.name), f"path {exc.path!r} does not name {path}"
    assert str(path.name) in text, text
    if line is not None:
        assert exc.line == line, f"line {exc.line} != {line}: {text}"
        assert f"{exc.path}:{line}:" in text, text
        assert f"{path.name}:{line}" in text, text
    if words:
        low = text.lower()
        assert any(w.lower() in low for w in words), f"none of {words} in {text!r}"


def raises_input_error(q, r, **opts) -> InputError:
    with pytest.raises(InputError) as info:
        evaluate(q, r, **opts)
    return info.value


# ----------------------------------------------------------------------------- field counts


def test_run_with_five_fields(tmp_path, qrels):
    bad = write(tmp_path / "five.run", RUN + "2 Q0 e3 3 0.5\n")
    check(raises_input_error(qrels, bad), bad, 6, "field")


def test_run_with_five_fields_in_the_middle(tmp_path, qrels):
    lines = RUN.splitlines(keepends=True)
    bad = write(tmp_path / "mid.run", "".join(lines[:2]) + "1 Q0 d4 3 0.5\n" + "".join(lines[2:]))
    check(raises_input_error(qrels, bad), bad, 3, "field")


def test_run_with_four_fields_last_line(tmp_path, qrels):
    bad = write(tmp_path / "four.run", RUN + "2 Q0 e3 3")
    check(raises_input_error(qrels, bad), bad, 6, "field")


def test_run_with_extra_fields_is_accepted(tmp_path, qrels, run):
    # METHODS §1.2: at least 6 fields; extra fields are ignored.
    extra = write(tmp_path / "extra.run", RUN.replace(" r\n", " r x\n", 1).replace("e1 2 1.0 r\n", "e1 2 1.0 r y z\n"))
    measures = ["AP", "NumRet"]
    a, b = evaluate(qrels, extra, measures), evaluate(qrels, run, measures)
    assert a["AP"].systems == ("r",)
    for m in measures:
        assert np.array_equal(a[m].values, b[m].values), m


def test_qrels_with_three_fields(tmp_path, run):
    bad = write(tmp_path / "three.qrels", "1 0 d1 1\n1 0 d2\n")
    check(raises_input_error(bad, run), bad, 2, "field")


def test_qrels_with_five_fields(tmp_path, run):
    bad = write(tmp_path / "five.qrels", "1 0 d1 1\n1 0 d2 0\n1 0 d3 1 extra\n")
    check(raises_input_error(bad, run), bad, 3, "field")


# ----------------------------------------------------------------------------- values


@pytest.mark.parametrize("score", ["abc", "1,5", "--1", "0x"])
def test_non_numeric_score(tmp_path, qrels, score):
    bad = write(tmp_path / "score.run", RUN + f"2 Q0 e3 3 {score} r\n")
    check(raises_input_error(qrels, bad), bad, 6, "score")


@pytest.mark.parametrize("score", ["nan", "NaN", "NAN", "-nan"])
def test_nan_score(tmp_path, qrels, score):
    bad = write(tmp_path / "nan.run", "1 Q0 d1 1 3.0 r\n1 Q0 d2 2 " + score + " r\n")
    check(raises_input_error(qrels, bad), bad, 2, "score", "nan")


@pytest.mark.parametrize("grade", ["x", "one", "nan", "inf", "1.5.2"])
def test_non_numeric_grade(tmp_path, run, grade):
    """Grades are numbers (whole or real-valued labels); anything else names its line."""
    bad = write(tmp_path / "grade.qrels", "1 0 d1 1\n2 0 e1 0\n1 0 d2 " + grade + "\n")
    check(raises_input_error(bad, run), bad, 3, "grade", "number", "rel")


def test_non_integer_rank_under_rank_order(tmp_path, qrels):
    bad = write(tmp_path / "rank.run", "1 Q0 d1 1 3.0 r\n1 Q0 d2 two 2.0 r\n")
    check(raises_input_error(qrels, bad, order="rank"), bad, 2, "rank")


# ----------------------------------------------------------------------------- empty files


def test_empty_run(tmp_path, qrels):
    bad = write(tmp_path / "empty.run", "")
    check(raises_input_error(qrels, bad), bad, None, "empty", "no run", "no line")


def test_empty_qrels(tmp_path, run):
    bad = write(tmp_path / "empty.qrels", "")
    check(raises_input_error(bad, run), bad, None, "empty", "no qrels", "no judgment", "no line")


def test_whitespace_only_run(tmp_path, qrels):
    bad = write(tmp_path / "blank.run", "\n  \n\t\n")
    check(raises_input_error(qrels, bad), bad, None, "empty", "no run", "blank", "no line")


def test_comment_only_run(tmp_path, qrels):
    bad = write(tmp_path / "comments.run", "# a run\n# nothing here\n\n")
    check(raises_input_error(qrels, bad), bad, None, "comment", "empty", "no run")


def test_comment_only_qrels(tmp_path, run):
    bad = write(tmp_path / "comments.qrels", "# qrels\n   # indented comment\n")
    check(raises_input_error(bad, run), bad, None, "comment", "empty", "no qrels")


# ----------------------------------------------------------------------------- duplicates


def test_duplicate_qrels_pair_names_second_line(tmp_path, run):
    bad = write(tmp_path / "dup.qrels", "1 0 d1 1\n1 0 d2 0\n2 0 e1 1\n1 0 d1 2\n")
    e = raises_input_error(bad, run)
    check(e, bad, 4, "duplicate")
    assert "d1" in str(e)


def test_duplicate_qrels_pair_resolved_by_option(tmp_path, run):
    bad = write(tmp_path / "dup.qrels", "1 0 d1 1\n1 0 d2 0\n2 0 e1 1\n1 0 d1 0\n")
    last = evaluate(bad, run, ["RR", "NumRel"], qrels_duplicate="last")
    best = evaluate(bad, run, ["RR", "NumRel"], qrels_duplicate="max")
    t = last["RR"].topics.index("1")
    assert last["NumRel"].values[0, t] == 0.0   # d1 -> 0 (last line)
    assert best["NumRel"].values[0, t] == 1.0   # d1 -> 1 (max)
    assert best["RR"].values[0, t] == 1.0


def test_same_docno_in_two_topics_is_not_a_duplicate(tmp_path):
    q = write(tmp_path / "q.qrels", "1 0 d1 1\n2 0 d1 0\n")
    r = write(tmp_path / "r.run", "1 Q0 d1 1 1.0 r\n2 Q0 d1 1 1.0 r\n")
    res = evaluate(q, r, ["RR"])
    assert res["RR"].values.tolist() == [[1.0, 0.0]]


def test_duplicate_docno_in_run_topic_is_an_error(tmp_path, qrels):
    bad = write(tmp_path / "dup.run", "1 Q0 d1 1 1.0 r\n1 Q0 d2 2 2.0 r\n2 Q0 e1 1 1.0 r\n1 Q0 d1 3 3.0 r\n")
    e = raises_input_error(qrels, bad)
    check(e, bad, 4, "duplicate", "twice", "repeated")
    assert "d1" in str(e)


def test_duplicate_docno_in_run_first_keeps_first_after_ordering(tmp_path, qrels):
    # ordered by score: d1 (3.0, line 4), d2 (2.0), d1 (1.0, line 1): the first occurrence
    # after ordering is d1 at rank 1, so RR = 1 and two documents remain.
    dup = write(tmp_path / "dup.run", "1 Q0 d1 1 1.0 r\n1 Q0 d2 2 2.0 r\n2 Q0 e1 1 1.0 r\n1 Q0 d1 3 3.0 r\n")
    with pytest.warns(Warning):
        res = irstats.evaluate(str(qrels), str(dup), ["RR", "NumRet", "AP", "NumRelRet"], on_duplicate="first")
    t = res["RR"].topics.index("1")
    assert res["RR"].values[0, t] == 1.0
    assert res["NumRet"].values[0, t] == 2.0
    assert res["NumRelRet"].values[0, t] == 1.0
    assert math.isclose(res["AP"].values[0, t], 0.5, abs_tol=1e-12)   # R = 2 (d1, d3)
    other = res["RR"].topics.index("2")
    assert res["NumRet"].values[0, other] == 1.0


def test_duplicate_docno_in_other_run_file_still_names_that_file(tmp_path, qrels, run):
    bad = write(tmp_path / "second.run", "1 Q0 d1 1 1.0 s\n1 Q0 d1 2 0.5 s\n")
    with pytest.raises(InputError) as info:
        evaluate(qrels, [str(run), str(bad)])
    check(info.value, bad, 2, "duplicate", "twice", "repeated")


# ----------------------------------------------------------------------------- topics and paths


def test_run_without_common_topic_names_run_file(tmp_path, qrels, run):
    bad = write(tmp_path / "elsewhere.run", "7 Q0 d1 1 1.0 other\n8 Q0 d2 1 1.0 other\n")
    with pytest.raises(InputError) as info:
        evaluate(qrels, [str(run), str(bad)])
    check(info.value, bad, None, "common", "topic")


def test_topic_ids_are_opaque(tmp_path):
    # "01" in the run is not topic "1" of the qrels
    q = write(tmp_path / "q.qrels", "1 0 d1 1\n")
    r = write(tmp_path / "r.run", "01 Q0 d1 1 1.0 r\n")
    check(raises_input_error(q, r), r, None, "common", "topic")


def test_missing_run_file(tmp_path, qrels):
    missing = tmp_path / "nope.run"
    check(raises_input_error(qrels, missing), missing, None, "no such", "not found", "cannot", "exist")


def test_missing_qrels_file(tmp_path, run):
    missing = tmp_path / "nope.qrels"
    check(raises_input_error(missing, run), missing, None, "no such", "not found", "cannot", "exist")


def test_glob_matching_nothing(tmp_path, qrels):
    pattern = str(tmp_path / "runs" / "*.run")
    with pytest.raises(InputError) as info:
        evaluate(qrels, pattern)
    e = info.value
    assert e.path == pattern
    assert pattern in str(e)
    assert "match" in str(e).lower()


def test_glob_and_directory_work(tmp_path, qrels):
    d = tmp_path / "runs"
    d.mkdir()
    write(d / "a.run", RUN.replace(" r\n", " a\n"))
    write(d / "b.run", RUN.replace(" r\n", " b\n").replace("3.0", "0.5"))
    by_glob = evaluate(qrels, str(d / "*.run"))
    by_dir = evaluate(qrels, str(d))
    assert by_glob["AP"].systems == by_dir["AP"].systems == ("a", "b")
    assert np.array_equal(by_glob["AP"].values, by_dir["AP"].values)


# ----------------------------------------------------------------------------- gzip


def test_gzip_input_works_like_plain(tmp_path, qrels, run):
    qgz = write(tmp_path / "good.qrels.gz", QRELS)
    rgz = write(tmp_path / "good.run.gz", RUN)
    measures = ["AP", "nDCG", "RR", "P@5", "NumRet", "Bpref", "RBPresid(p=0.8)"]
    plain = evaluate(qrels, run, measures)
    for q, r in ((qgz, rgz), (qgz, run), (qrels, rgz)):
        res = evaluate(q, r, measures)
        for m in plain:
            assert res[m].systems == plain[m].systems == ("r",)
            assert res[m].topics == plain[m].topics
            assert np.array_equal(res[m].values, plain[m].values), m


def test_line_number_in_gzip_run(tmp_path, qrels):
    bad = write(tmp_path / "bad.run.gz", "# header\n\n" + RUN + "1 Q0 d5 9 abc r\n")
    check(raises_input_error(qrels, bad), bad, 8, "score")


def test_line_number_in_gzip_qrels(tmp_path, run):
    bad = write(tmp_path / "bad.qrels.gz", "1 0 d1 1\n# c\n1 0 d2 0\n1 0 d3\n")
    check(raises_input_error(bad, run), bad, 4, "field")


# ----------------------------------------------------------------------------- comments and blank lines


def test_line_numbers_count_comment_lines_run(tmp_path, qrels):
    text = "# comment one\n# comment two\n1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0 r\n1 Q0 d3 3 1.0\n"
    bad = write(tmp_path / "c.run", text)
    check(raises_input_error(qrels, bad), bad, 5, "field")


def test_line_numbers_count_comment_and_blank_lines_qrels(tmp_path, run):
    text = "# qrels\n\n1 0 d1 1\n   \n1 0 d2 zero\n"
    bad = write(tmp_path / "c.qrels", text)
    check(raises_input_error(bad, run), bad, 5, "grade", "integer")


def test_comments_and_blank_lines_are_skipped(tmp_path, qrels, run):
    q = write(tmp_path / "c.qrels", "# judged by hand\n\n" + QRELS.replace("1 0 d2 0\n", "1 0 d2 0\n\n  # indented\n"))
    r = write(tmp_path / "c.run", "#run\n" + RUN + "\n\n# trailing comment\n")
    measures = ["AP", "NumRet", "NumRel"]
    a, b = evaluate(q, r, measures), evaluate(qrels, run, measures)
    for m in measures:
        assert np.array_equal(a[m].values, b[m].values), m


@pytest.mark.parametrize("header", ["# header\n", "# header\n\n", "# a b c d e f g\n", "\n", "   # x\n"])
def test_run_name_comes_from_first_data_line(tmp_path, qrels, header):
    # METHODS §1.2: the run is named by the tag of its first run line; comments are not run lines.
    r = write(tmp_path / "named.run", header + RUN.replace(" r\n", " myrun\n"))
    res = evaluate(qrels, r, ["NumRet"])
    assert res["NumRet"].systems == ("myrun",)
    assert res["NumRet"].values.tolist() == [[3.0, 2.0]]


@pytest.mark.parametrize("layout", ["  ", " \t", "\t\t", "lead", "trail"])
def test_run_name_with_irregular_whitespace(tmp_path, qrels, layout):
    # fields are separated by any run of whitespace (METHODS §1.1–1.2)
    text = RUN.replace(" r\n", " myrun\n")
    if layout == "lead":
        text = "".join("  " + line for line in text.splitlines(keepends=True))
    elif layout == "trail":
        text = text.replace("\n", " \t\n")
    else:
        text = text.replace(" ", layout)
    r = write(tmp_path / "ws.run", text)
    res = evaluate(qrels, r, ["NumRet", "AP"])
    assert res["NumRet"].systems == ("myrun",)
    assert res["NumRet"].values.tolist() == [[3.0, 2.0]]
    plain = evaluate(qrels, write(tmp_path / "plain.run", RUN), ["AP"])
    assert np.array_equal(res["AP"].values, plain["AP"].values)


def test_irregular_whitespace_inside_one_line(tmp_path):
    # Only the second line has a double blank (before the rank): its score is still 0.4, so
    # d1 (0.5, non-relevant) ranks above d3 (0.4, relevant) and P@1 = 0.
    q = write(tmp_path / "q.qrels", "1 0 d1 0\n1 0 d3 1\n")
    for i, line2 in enumerate(["1 Q0 d3  2 0.4 r\n", "1 Q0 d3 2  0.4 r\n", "1  Q0 d3 2 0.4 r\n",
                               "1 Q0\td3 2 0.4 r\n", "1 Q0 d3 2 0.4 r \n"]):
        r = write(tmp_path / f"mixed{i}.run", "1 Q0 d1 1 0.5 r\n" + line2)
        res = evaluate(q, r, ["P@1", "RR", "NumRet"])
        assert res["NumRet"].values.tolist() == [[2.0]], line2
        assert res["P@1"].values.tolist() == [[0.0]], f"line {line2!r} misread"
        assert res["RR"].values.tolist() == [[0.5]], f"line {line2!r} misread"


def test_hash_inside_docno_is_not_a_comment(tmp_path):
    q = write(tmp_path / "h.qrels", "1 0 #d1 1\n1 0 d#2 1\n1 0 d3# 0\n")
    r = write(tmp_path / "h.run", "1 Q0 #d1 1 3.0 r\n1 Q0 d#2 2 2.0 r\n1 Q0 d3# 3 1.0 r\n")
    res = evaluate(q, r, ["AP", "NumRet", "NumRel", "NumRelRet", "Judged@3"])
    assert res["NumRel"].values[0, 0] == 2.0
    assert res["NumRet"].values[0, 0] == 3.0
    assert res["NumRelRet"].values[0, 0] == 2.0
    assert res["AP"].values[0, 0] == 1.0
    assert res["Judged@3"].values[0, 0] == 1.0


def test_crlf_and_tabs_are_accepted(tmp_path, qrels, run):
    q = write(tmp_path / "crlf.qrels", QRELS.replace(" ", "\t").replace("\n", "\r\n"))
    r = write(tmp_path / "crlf.run", RUN.replace("\n", "\r\n").replace(" Q0 ", "\tQ0  "))
    measures = ["AP", "NumRet", "NumRel"]
    a, b = evaluate(q, r, measures), evaluate(qrels, run, measures)
    assert a["AP"].systems == ("r",)
    for m in measures:
        assert np.array_equal(a[m].values, b[m].values), m


def test_error_in_second_qrels_file_names_it(tmp_path, run):
    first = write(tmp_path / "a.qrels", "1 0 d1 1\n")
    second = write(tmp_path / "b.qrels", "# part two\n2 0 e1 1\n2 0 e2 high\n")
    with pytest.raises(InputError) as info:
        evaluate([str(first), str(second)], run)
    check(info.value, second, 3, "grade", "number")


# ----------------------------------------------------------------------------- measures


@pytest.mark.parametrize("name", ["foo", "MAP@", "AP(p=0.8", "nDCG(gain=cubic)@5", "RBP(p=x)", "P@-1", ""])
def test_unknown_or_malformed_measure(qrels, run, name):
    with pytest.raises(MeasureError):
        evaluate(qrels, run, [name])


@pytest.mark.parametrize("name", ["P", "R", "AP_min"])  # Judged alone is every retrieved document (ir_measures)
def test_measure_needing_cutoff(qrels, run, name):
    with pytest.raises(MeasureError) as info:
        evaluate(qrels, run, [name])
    assert "cut" in str(info.value).lower() or "@" in str(info.value)


def test_measure_error_is_not_input_error():
    with pytest.raises(MeasureError):
        irstats.parse_measure("NoSuchMeasure@10")
