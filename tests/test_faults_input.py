"""Fault suite, inputs and values: every class of bad input found by the careless-user sweep
(issue "never print a wrong number with exit 0") gets a wrong number nowhere: either the
exact value of the plain-loop reference (tests/reference.py, which reads bytes as trec_eval
does) or one line naming the file and line.

One test (or one parametrised group) per class:
- empty fields on every reader path .................. test_empty_field_is_an_error_on_every_path
- ids compared as bytes (Latin-1, UTF-8, 0x1f) ....... test_ids_are_compared_as_bytes
- grades past 2^31 / ERR past 2^1023 ................. test_large_grades_are_exact, test_err_*, test_exp_gain_*
- measure parameters checked when parsed ............. test_measure_parameters_are_range_checked
- options mean the same everywhere ................... test_options_*, test_report_pool_depth_*
- score files ........................................ test_score_file_*
- absurd resampling work ............................. test_randomization_*
- binary, gzip, UTF-16, folders, unreadable files .... test_unreadable_inputs_*
- standard input and pipes ........................... test_standard_input_*, test_pipe_*
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import irstats
from irstats import InputError, MeasureError
from irstats.errors import ResourceError

sys.path.insert(0, str(Path(__file__).parent))
from conftest import run_cli  # noqa: E402
from reference import reference_evaluate  # noqa: E402

QRELS = b"1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 e1 1\n2 0 e2 0\n2 0 e3 1\n"
RUN = b"1 Q0 d1 1 3.0 r\n1 Q0 d9 2 2.0 r\n1 Q0 d3 3 1.0 r\n2 Q0 e2 1 2.0 r\n2 Q0 e1 2 1.0 r\n2 Q0 e3 3 0.5 r\n"
MEASURES = ("AP", "P@2", "RR", "nDCG", "Rprec")


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def evaluate(qrels, run, measures=MEASURES, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return irstats.evaluate(str(qrels), str(run), list(measures), **options)


def assert_reference(scores, qrels, run, measures=MEASURES, **options):
    """Every per-topic value equals the plain-loop reference on the same files."""
    for name in measures:
        expected = reference_evaluate(str(qrels), str(run), name, **options)
        matrix = scores[name]
        got = {t: v for t, v in zip(matrix.topics, matrix.values[0]) if not np.isnan(v)}
        shown = {t.encode("latin-1").decode("utf-8", "backslashreplace"): v for t, v in expected.items()}
        assert got.keys() == shown.keys(), name
        for topic, value in shown.items():
            assert got[topic] == pytest.approx(value, abs=1e-12), (name, topic)


def one_line_error(code, out, err, *names):
    """A CLI failure: exit 2 (or 1), one line on stderr naming each of ``names``, no traceback."""
    assert code in (1, 2), (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("irstats: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    for name in names:
        assert str(name) in lines[0], (name, lines[0])


# ----------------------------------------------------------------------------- empty fields


@pytest.mark.parametrize("layout", ["space", "tab", "mixed"])
@pytest.mark.parametrize("field", range(6))
def test_empty_field_is_an_error_on_every_path(tmp_path, layout, field):
    """Two separators in a row leave a field empty: trec_eval's 'Malformed line', never a shift."""
    sep = {"space": b" ", "tab": b"\t", "mixed": b"\t"}[layout]
    lines = [line.split(b" ") for line in RUN.strip().split(b"\n")]
    lines[3][field] = b""
    text = b"\n".join(sep.join(fields) for fields in lines) + b"\n"
    if layout == "mixed":  # a file the fast scanner does not take: the careful reader's path
        text = text.replace(b"\t", b" ", 1)
    run = write(tmp_path / "bad.run", text)
    qrels = write(tmp_path / "q.txt", QRELS)
    with pytest.raises(InputError) as info:
        evaluate(qrels, run)
    assert info.value.path == str(run) and info.value.line == 4, str(info.value)


@pytest.mark.parametrize("field", range(4))
def test_empty_qrels_field_is_an_error(tmp_path, field):
    lines = [line.split(b" ") for line in QRELS.strip().split(b"\n")]
    lines[2][field] = b""
    qrels = write(tmp_path / "q.txt", b"\n".join(b" ".join(f) for f in lines) + b"\n")
    with pytest.raises(InputError) as info:
        evaluate(qrels, write(tmp_path / "r.run", RUN))
    assert (info.value.path, info.value.line) == (str(qrels), 3)


def test_empty_field_from_the_command_line(tmp_path, capsys):
    run = write(tmp_path / "bad.run", RUN.replace(b"e1 2 1.0", b"e1  1.0"))
    code, out, err = run_cli(["eval", write(tmp_path / "q.txt", QRELS), run, "-m", "AP"], capsys)
    one_line_error(code, out, err, f"{run}:5:")
    assert out == ""


# ----------------------------------------------------------------------------- ids as bytes


def test_ids_are_compared_as_bytes(tmp_path):
    """Latin-1 docnos that a lossy UTF-8 decoding would merge stay distinct; ties are broken
    by the docnos' bytes (trec_eval's strcmp); UTF-8, Latin-1 and 0x1f ids all work."""
    docs = [b"d\xe9", b"d\xe8", b"d\xff", b"caf\xc3\xa9", b"x\x1fy", b"plain", b"\xc3\xa9t\xc3\xa9"]
    topics = [b"1", b"t\xe9", "日本".encode()]
    qrels, run = [], []
    for t_index, topic in enumerate(topics):
        for d_index, doc in enumerate(docs):
            qrels.append(b"%s 0 %s %d\n" % (topic, doc, (d_index + t_index) % 3))
            # Every score tied: the order is the docnos' bytes, descending.
            run.append(b"%s Q0 %s %d 1.0 tag\xe9\n" % (topic, doc, d_index + 1))
    q = write(tmp_path / "q.txt", b"".join(qrels))
    r = write(tmp_path / "r.run", b"".join(run))
    measures = ("AP", "P@1", "P@3", "RR", "nDCG@3", "NumRet", "NumRel")
    scores = evaluate(q, r, measures)
    assert_reference(scores, q, r, measures)
    assert scores["NumRet"].values.tolist() == [[7.0, 7.0, 7.0]]
    assert set(scores["AP"].topics) == {"1", "t\\xe9", "日本"}
    assert scores["AP"].systems == ("tag\\xe9",)


def test_ids_from_frames_meet_ids_from_files(tmp_path):
    """A qrels DataFrame with Unicode ids and a run file with the same ids in UTF-8 agree."""
    q = pl.DataFrame({"topic": ["é1", "é1", "2"], "docno": ["cafè", "b", "x"], "rel": [1, 0, 1]})
    r = write(tmp_path / "r.run", "é1 Q0 cafè 1 2.0 run\né1 Q0 b 2 1.0 run\n2 Q0 x 1 1.0 run\n".encode())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = irstats.evaluate(q, str(r), ["AP"])
    assert scores["AP"].topics == ("2", "é1")
    assert scores["AP"].values.tolist() == [[1.0, 1.0]]


# ----------------------------------------------------------------------------- grades


def test_large_grades_are_exact(tmp_path):
    """Grades of 2^31 and above are held exactly (no wrap in the judgments tensor)."""
    q = write(tmp_path / "q.txt", b"1 0 a 2147483648\n1 0 b 3\n1 0 c 0\n1 0 d 1099511627776\n")
    r = write(tmp_path / "r.run", b"1 Q0 a 1 4 t\n1 Q0 c 2 3 t\n1 Q0 b 3 2 t\n1 Q0 d 4 1 t\n")
    measures = ("AP", "P@2", "nDCG", "DCG@3", "Rprec", "NumRel")
    scores = evaluate(q, r, measures)
    assert_reference(scores, q, r, measures)
    assert scores["DCG@3"].values[0, 0] == pytest.approx(2147483648 + 3 / 2)


def err_exact(grades, g_max, k=20):
    """ERR@k with exact rationals: stop probability (2^g − 1)/2^g_max."""
    total, reach = Fraction(0), Fraction(1)
    for rank, g in enumerate(grades[:k], start=1):
        stop = Fraction(2 ** max(g, 0) - 1, 2 ** g_max)
        total += reach * stop / rank
        reach *= 1 - stop
    return float(total)


def test_err_is_exact_for_grades_past_1023(tmp_path):
    q = write(tmp_path / "q.txt", b"1 0 a 1100\n1 0 b 1099\n1 0 c 0\n1 0 d 1\n2 0 a 1\n2 0 b 2\n")
    r = write(tmp_path / "r.run", b"1 Q0 b 1 4 t\n1 Q0 c 2 3 t\n1 Q0 a 3 2 t\n1 Q0 d 4 1 t\n"
                                  b"2 Q0 b 1 2 t\n2 Q0 a 2 1 t\n")
    values = evaluate(q, r, ["ERR@20"])["ERR@20"].values[0]
    assert np.all(np.isfinite(values))
    assert values[0] == pytest.approx(err_exact([1099, 0, 1100, 1], 1100), rel=1e-12)
    assert values[1] == pytest.approx(err_exact([2, 1], 1100), abs=1e-300)


def test_exp_gain_past_1023_is_a_clear_error(tmp_path, capsys):
    q = write(tmp_path / "q.txt", b"1 0 a 1100\n1 0 b 1\n")
    r = write(tmp_path / "r.run", b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    code, out, err = run_cli(["eval", q, r, "-m", "nDCG(gain=exp)@10"], capsys)
    one_line_error(code, out, err, "gain=exp", "1100")


# ----------------------------------------------------------------------------- measure parameters


@pytest.mark.parametrize("name, words", [
    ("RBP(p=2)", ("RBP(p=2)", "p must be in (0, 1)")),
    ("RBP(p=1)", ("p must be in (0, 1)",)),
    ("RBP(p=0)", ("p must be in (0, 1)",)),
    ("RBP(p=nan)", ("p must be in (0, 1)",)),
    ("RBP(p=-inf)", ("p must be in (0, 1)",)),
    ("rbp.p=1.5", ("p must be in (0, 1)",)),
    ("Q(beta=-1)", ("Q(beta=-1)", "beta must be in [0, inf)")),
    ("P(rel=-2)@5", ("rel must be in [0, inf)",)),
    ("RBP(p=0.5,p=0.8)", ("'p' is given twice",)),
    ("", ("empty measure name",)),
    ("   ", ("empty measure name",)),
])
def test_measure_parameters_are_range_checked(name, words):
    with pytest.raises(MeasureError) as info:
        irstats.parse_measure(name)
    for word in words:
        assert word in str(info.value)


def test_bad_measure_names_from_the_command_line(tmp_path, capsys):
    q, r = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.run", RUN)
    for name in ("RBP(p=2)", "", "Q(beta=nan)"):
        code, out, err = run_cli(["eval", q, r, "-m", name], capsys)
        one_line_error(code, out, err)
        assert out == ""


# ----------------------------------------------------------------------------- options


def test_options_depth_zero_keeps_no_document(tmp_path, capsys):
    """-M 0 means no documents, as in trec_eval (it used to mean 'unlimited')."""
    q, r = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.run", RUN)
    scores = evaluate(q, r, ["NumRet", "AP", "P@2"], depth=0)
    assert scores["NumRet"].values.tolist() == [[0.0, 0.0]]
    assert scores["AP"].values.tolist() == [[0.0, 0.0]]
    code, out, err = run_cli(["eval", q, r, "-M", "0", "-m", "NumRet", "--format", "tsv"], capsys)
    assert code == 0 and out.splitlines()[1].split("\t") == ["r", "NumRet", "0.0"]
    code, out, err = run_cli(["eval", q, r, "-M", "none", "-m", "NumRet", "--format", "tsv"], capsys)
    assert code == 0 and out.splitlines()[1].split("\t")[-1] == "6.0"


@pytest.mark.parametrize("options, word", [
    ({"depth": 1.5}, "depth"), ({"depth": -1}, "depth"), ({"depth": True}, "depth"),
    ({"rel_level": -1}, "rel_level"), ({"rel_level": float("nan")}, "rel_level"), ({"rel_level": "2"}, "rel_level"),
    ({"g_max": 0}, "g_max"),
    ({"complete": "yes"}, "complete"), ({"order": "random"}, "order"),
])
def test_options_are_validated_in_the_api(tmp_path, options, word):
    q, r = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.run", RUN)
    with pytest.raises(InputError, match=word):
        evaluate(q, r, **options)


@pytest.mark.parametrize("args, word", [(["-l", "-1"], "--rel-level"), (["-M", "-5"], "--depth"),
                                        (["-M", "1.5"], "--depth")])
def test_options_are_validated_on_the_command_line(tmp_path, capsys, args, word):
    q, r = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.run", RUN)
    code, out, err = run_cli(["eval", q, r, *args], capsys)
    one_line_error(code, out, err, word)


def test_options_qrels_frame_grades_must_be_numbers(tmp_path):
    """Real-valued labels (0.5) are grades too; NaN, infinity and text are not."""
    r = write(tmp_path / "r.run", RUN)
    for rel in ([1.0, float("nan")], ["1", "x"], [float("inf"), 1.0]):
        frame = pl.DataFrame({"topic": ["1", "1"], "docno": ["d1", "d2"], "rel": rel})
        with pytest.raises(InputError, match="must hold numbers"):
            irstats.evaluate(frame, str(r), ["AP"])
    frame = pl.DataFrame({"topic": ["1", "1"], "docno": ["d1", "d3"], "rel": [1.0, 2.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert irstats.evaluate(frame, str(r), ["AP"])["AP"].values[0, 0] == pytest.approx((1 + 2 / 3) / 2)


def test_options_per_topic_table(tmp_path, capsys):
    """``eval -q`` with the default table format prints one row per system and topic."""
    q, r = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.run", RUN)
    code, out, err = run_cli(["eval", q, r, "-q", "-m", "AP", "-m", "NumRet"], capsys)
    assert code == 0
    assert out.splitlines()[0] == "Scores per system and topic (AP, NumRet)"
    rows = [line.split() for line in out.splitlines()[3:]]
    expected = reference_evaluate(str(q), str(r), "AP")
    assert [(row[0], row[1]) for row in rows] == [("r", "1"), ("r", "2")]
    assert [float(row[2]) for row in rows] == pytest.approx([expected["1"], expected["2"]], abs=5e-5)
    assert [row[3] for row in rows] == ["3", "3"]


@pytest.mark.parametrize("depth", ["-5", "0", "5000"])
def test_report_pool_depth_is_checked_like_volatility(tmp_path, capsys, depth):
    q, r = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.run", RUN)
    code, out, err = run_cli(["volatility", q, r, "--pool-depth", depth], capsys)
    one_line_error(code, out, err, "pool")
    volatility_message = err
    out_dir = tmp_path / "study"
    code, out, err = run_cli(["report", "--qrels", q, "--runs", r, "--pool-depth", depth, "-o", out_dir,
                              "--quiet"], capsys)
    one_line_error(code, out, err, "pool")
    assert err == volatility_message
    assert not out_dir.exists()


# ----------------------------------------------------------------------------- score files


def test_score_file_row_with_a_missing_field(tmp_path, capsys):
    path = tmp_path / "s.tsv"
    path.write_text("system\ttopic\tmeasure\tvalue\nA\t1\tAP\t0.5\nA\t2\tAP\nB\t1\tAP\t0.3\nB\t2\tAP\t0.1\n")
    for extra in ([], ["--skipna"]):
        code, out, err = run_cli(["aggregate", path, "-m", "AP", *extra], capsys)
        one_line_error(code, out, err, f"{path}:3:")


def test_score_file_non_numeric_values(tmp_path, capsys):
    tsv = tmp_path / "s.tsv"
    tsv.write_text("# a comment\nsystem\ttopic\tmeasure\tvalue\nA\t1\tAP\t0.5\nA\t2\tAP\t1_0\n")
    code, out, err = run_cli(["aggregate", tsv, "-m", "AP"], capsys)
    one_line_error(code, out, err, f"{tsv}:4:", "1_0")
    js = tmp_path / "s.json"
    js.write_text('[{"system": "A", "topic": "1", "measure": "AP", "value": 0.5},'
                  ' {"system": "A", "topic": "2", "measure": "AP", "value": "high"}]')
    code, out, err = run_cli(["aggregate", js, "-m", "AP"], capsys)
    one_line_error(code, out, err, str(js), "record 2")


def test_score_file_skipna_skips_only_missing_values(tmp_path, capsys):
    path = tmp_path / "s.tsv"
    path.write_text("system\ttopic\tmeasure\tvalue\nA\t1\tAP\t0.5\nA\t2\tAP\tNaN\nA\t3\tAP\t\n"
                    "B\t1\tAP\t0.3\nB\t2\tAP\t0.1\nB\t3\tAP\t0.2\n")
    code, out, err = run_cli(["aggregate", path, "-m", "AP", "--method", "am", "--skipna", "--format", "tsv"],
                             capsys)
    assert code == 0, err
    values = {line.split("\t")[0]: float(line.split("\t")[-1]) for line in out.splitlines()[1:]}
    assert values == {"A": pytest.approx(0.5), "B": pytest.approx(0.2)}


def test_score_file_trec_eval_without_per_topic_rows(tmp_path, capsys):
    path = tmp_path / "run.eval"
    path.write_text("runid                 \tall\tr\nmap                   \tall\t0.5\nP_10                  \tall\t0.3\n")
    code, out, err = run_cli(["aggregate", path, "-m", "AP"], capsys)
    one_line_error(code, out, err, str(path), "-q")


# ----------------------------------------------------------------------------- resampling work


def test_randomization_enumerates_when_that_is_cheaper():
    a, b = [0.1, 0.5, 0.3, 0.9], [0.2, 0.1, 0.1, 0.4]
    with pytest.warns(irstats.IrstatsWarning, match="exact"):
        result = irstats.stats.randomization_test(a, b, n_resamples=10**12)
    d = np.subtract(a, b)
    signs = np.array(np.meshgrid(*[[-1, 1]] * 4)).reshape(4, -1).T
    count = np.sum(np.abs((signs * d).mean(axis=1)) >= abs(d.mean()) - 1e-12)
    assert result.details["exact"] and result.p_value == count / 16


def test_randomization_refuses_absurd_work():
    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match="resamples"):
        irstats.stats.randomization_test(rng.random(50), rng.random(50), n_resamples=10**12)
    with pytest.raises(InputError, match="resamples"):
        irstats.stats.bootstrap_test(rng.random(50), rng.random(50), n_resamples=10**12)


# ----------------------------------------------------------------------------- unreadable inputs


@pytest.mark.parametrize("kind", ["binary", "gzip-of-garbage", "utf16", "folder-as-score-file", "nul-in-line"])
def test_unreadable_inputs_name_the_file(tmp_path, capsys, kind):
    q, r = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.run", RUN)
    rng = np.random.default_rng(1)
    garbage = rng.integers(0, 256, 4000, dtype=np.uint8).tobytes()
    if kind == "binary":
        bad = write(tmp_path / "bad.run", garbage)
        args = ["eval", q, bad]
    elif kind == "gzip-of-garbage":
        bad = write(tmp_path / "bad.run.gz", garbage)
        args = ["eval", q, bad]
    elif kind == "utf16":
        bad = write(tmp_path / "bad.run", RUN.decode().encode("utf-16"))
        args = ["eval", q, bad]
    elif kind == "folder-as-score-file":
        bad = tmp_path / "folder"
        bad.mkdir()
        (bad / "x.tsv").write_text("system\ttopic\tmeasure\tvalue\n")
        args = ["aggregate", bad, "-m", "AP"]
    else:
        bad = write(tmp_path / "bad.qrels", QRELS.replace(b"e2 0", b"e\x002 0"))
        args = ["eval", bad, r]
    code, out, err = run_cli(args, capsys)
    one_line_error(code, out, err, bad)
    assert "new_columns" not in err
    if kind == "utf16":
        assert "UTF-8" in err
    if kind == "nul-in-line":
        assert f"{bad}:5:" in err


def test_unit_separator_in_a_docno_is_an_ordinary_byte(tmp_path):
    """trec_eval accepts a 0x1f byte in a docno; so does irstats, exactly."""
    q = write(tmp_path / "q.txt", QRELS.replace(b"d3", b"d\x1f3"))
    r = write(tmp_path / "r.run", RUN.replace(b"d3", b"d\x1f3"))
    assert_reference(evaluate(q, r), q, r)


def test_unreadable_run_file_is_an_environment_error(tmp_path, capsys, monkeypatch):
    q, r = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.run", RUN)
    real_open = open

    def refusing_open(file, *args, **kwargs):
        if os.fspath(file) == str(r):
            raise PermissionError(13, "Permission denied", str(r))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refusing_open)
    with pytest.raises(ResourceError, match="Permission denied"):
        evaluate(q, r)
    code, out, err = run_cli(["eval", q, r], capsys)
    assert code == 1
    one_line_error(code, out, err, str(r), "cannot read")


# ----------------------------------------------------------------------------- stdin and pipes


def _irstats(args, **kwargs):
    return subprocess.run([sys.executable, "-m", "irstats", *map(str, args)], capture_output=True, timeout=120,
                          **kwargs)


def test_standard_input_as_the_run(tmp_path):
    q, r = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.run", RUN)
    direct = _irstats(["eval", q, r, "-m", "AP", "-q", "--format", "tsv"])
    piped = _irstats(["eval", q, "-", "-m", "AP", "-q", "--format", "tsv"], input=RUN)
    assert direct.returncode == 0 and piped.returncode == 0, piped.stderr
    assert piped.stdout == direct.stdout
    qrels_piped = _irstats(["eval", "-", r, "-m", "AP", "-q", "--format", "tsv"], input=QRELS)
    assert qrels_piped.stdout == direct.stdout


def test_pipe_inputs_are_read_once(tmp_path):
    """A named pipe (what ``<(zcat run.gz)`` gives) is read once and evaluated exactly."""
    q, r = write(tmp_path / "q.txt", QRELS), write(tmp_path / "r.run", RUN)
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    command = (f"{sys.executable} -m irstats eval {q} {fifo} -m AP -q --format tsv & "
               f"cat {r} > {fifo}; wait")
    piped = subprocess.run(["bash", "-c", command], capture_output=True, timeout=120)
    direct = _irstats(["eval", q, r, "-m", "AP", "-q", "--format", "tsv"])
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.replace(b"run.fifo", b"r") == direct.stdout.replace(b"r.run", b"r")
    gz = write(tmp_path / "r.run.gz", RUN)
    substituted = subprocess.run(["bash", "-c", f"{sys.executable} -m irstats eval {q} <(zcat {gz}) -m AP -q "
                                                "--format tsv"], capture_output=True, timeout=120)
    assert substituted.returncode == 0, substituted.stderr
    assert substituted.stdout == direct.stdout
