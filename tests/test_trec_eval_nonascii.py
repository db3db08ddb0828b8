"""``irstats trec_eval`` on non-ASCII ids: the very bytes trec_eval 10 prints.

trec_eval reads ids as C strings: fields split at C's isspace() in the "C" locale (never at
0x85, 0xa0 or 0x1c-0x1f), compared and sorted with strcmp (byte order), printed as read.
Latin-1 ``caf\\xe9`` and UTF-8 ``caf\\xc3\\xa9`` are two different documents. Every expected
stdout and exit code below was captured from trec_eval 10 (the NIST binary, built from
usnistgov/trec_eval) on the same files; the binary is not needed to run these tests.
bench/fuzz_trec_eval.py compares the two on random files.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import run_cli

#: (options, qrels bytes, run bytes, trec_eval's exit code, trec_eval's stdout bytes)
CASES = [
    # Latin-1 docno: the UTF-8 spelling of the same word is another (unjudged) document
    pytest.param(
        ["-q", "-m", "num_rel_ret", "-m", "recip_rank", "-m", "P.2"],
        b"1 0 caf\xe9 1\n1 0 cafe 0\n1 0 caf\xc3\xa9x 1\n",
        b"1 Q0 caf\xc3\xa9 1 3 r\n1 Q0 caf\xe9 2 2 r\n1 Q0 cafe 3 1 r\n",
        0,
        b"num_rel_ret           \t1\t1\nrecip_rank            \t1\t0.5000\nP_2                   \t1\t0.5000\n"
        b"num_rel_ret           \tall\t1\nrecip_rank            \tall\t0.5000\nP_2                   \tall\t0.5000\n",
        id="latin1-docno"),
    # UTF-8 docnos (é, ï, an emoji); the Latin-1 spellings in the run are unjudged
    pytest.param(
        ["-q", "-m", "num_rel_ret", "-m", "recip_rank", "-m", "P.2"],
        b"7 0 caf\xc3\xa9 2\n7 0 na\xc3\xafve 0\n7 0 \xf0\x9f\x98\x80 1\n",
        b"7 Q0 caf\xe9 1 5 r\n7 Q0 caf\xc3\xa9 2 4 r\n7 Q0 na\xefve 3 3 r\n7 Q0 \xf0\x9f\x98\x80 4 2 r\n",
        0,
        b"num_rel_ret           \t7\t2\nrecip_rank            \t7\t0.5000\nP_2                   \t7\t0.5000\n"
        b"num_rel_ret           \tall\t2\nrecip_rank            \tall\t0.5000\nP_2                   \tall\t0.5000\n",
        id="utf8-docno"),
    # U+FFFC, U+FFFD (what a lossy decoder makes of \xff) and a lone \xbf are three documents
    pytest.param(
        ["-m", "num_rel_ret", "-m", "num_ret", "-m", "map", "-m", "bpref"],
        b"1 0 d\xef\xbf\xbc 1\n1 0 d\xef\xbf\xbd 0\n1 0 d\xff 1\n",
        b"1 Q0 d\xef\xbf\xbd 1 3 r\n1 Q0 d\xef\xbf\xbc 2 2 r\n1 Q0 d\xbf 3 1 r\n",
        0,
        b"num_ret               \tall\t3\nnum_rel_ret           \tall\t1\nmap                   \tall\t0.2500\n"
        b"bpref                 \tall\t0.0000\n",
        id="ufffc-docno"),
    # bytes that are whitespace to Unicode (NEL 0x85, NBSP 0xa0 as Latin-1, 0x1f) but not to
    # C's isspace(): inside ids, in a topic id and in docnos
    pytest.param(
        ["-q", "-m", "num_rel_ret", "-m", "P.5"],
        b"t\xa0\x85 0 a\x85b 1\nt\xa0\x85 0 a\xa0b 1\nt\xa0\x85 0 a\x1fb 1\nt\xa0\x85 0 a\xc2\xa0b 0\n",
        b"t\xa0\x85 Q0 a\x85b 1 4 r\nt\xa0\x85 Q0 a\xc2\xa0b 2 3 r\nt\xa0\x85 Q0 a\x1fb 3 2 r\nt\xa0\x85 Q0 a 4 1 r\n",
        0,
        b"num_rel_ret           \tt\xa0\x85\t2\nP_5                   \tt\xa0\x85\t0.4000\n"
        b"num_rel_ret           \tall\t2\nP_5                   \tall\t0.4000\n",
        id="unicode-whitespace-bytes-in-ids"),
    # non-ASCII topic ids with -q: printed as the raw bytes, in byte order (strcmp)
    pytest.param(
        ["-q", "-m", "num_ret", "-m", "P.5"],
        b"caf\xc3\xa9 0 a 1\ncaf\xe9 0 a 1\n\xf0\x9f\x98\x80 0 b 1\nt\xff 0 a 1\nZ 0 a 1\n",
        b"t\xff Q0 a 1 1 r\ncaf\xe9 Q0 a 1 1 r\ncaf\xe9 Q0 b 2 0 r\ncaf\xc3\xa9 Q0 b 1 1 r\n"
        b"\xf0\x9f\x98\x80 Q0 b 1 1 r\nZ Q0 a 1 1 r\n",
        0,
        b"num_ret               \tZ\t1\nP_5                   \tZ\t0.2000\n"
        b"num_ret               \tcaf\xc3\xa9\t1\nP_5                   \tcaf\xc3\xa9\t0.0000\n"
        b"num_ret               \tcaf\xe9\t2\nP_5                   \tcaf\xe9\t0.2000\n"
        b"num_ret               \tt\xff\t1\nP_5                   \tt\xff\t0.2000\n"
        b"num_ret               \t\xf0\x9f\x98\x80\t1\nP_5                   \t\xf0\x9f\x98\x80\t0.2000\n"
        b"num_ret               \tall\t6\nP_5                   \tall\t0.1600\n",
        id="topics-q-raw-bytes"),
    # a run tag of Latin-1, UTF-8, U+FFFC, an invalid byte and an emoji: the runid line
    pytest.param(
        ["-m", "runid", "-m", "num_q", "-m", "P.5"],
        b"1 0 a 1\n2 0 b 1\n",
        b"1 Q0 a 1 1 \xe9t\xc3\xa9\xef\xbf\xbc\xff\xf0\x9f\x98\x80\n2 Q0 b 1 1 \xe9t\xc3\xa9\xef\xbf\xbc\xff\xf0\x9f\x98\x80\n",
        0,
        b"runid                 \tall\t\xe9t\xc3\xa9\xef\xbf\xbc\xff\xf0\x9f\x98\x80\n"
        b"num_q                 \tall\t2\nP_5                   \tall\t0.2000\n",
        id="run-tag"),
    # relstring on non-ASCII topics and docnos (-l 2; '-' unjudged, '.' judged -1)
    pytest.param(
        ["-q", "-m", "relstring.6", "-l", "2"],
        b"q\xe9 0 d\xe9 2\nq\xe9 0 d\xc3\xa9 1\nq\xe9 0 d\xef\xbf\xbc 3\nq\xe9 0 d- -1\n"
        b"q\xc3\xa9 0 d\xe9 0\nq\xc3\xa9 0 d\xc3\xa9 4\n",
        b"q\xe9 Q0 d\xc3\xa9 1 6 r\xe9\nq\xe9 Q0 d\xe9 2 5 r\xe9\nq\xe9 Q0 dx 3 4 r\xe9\nq\xe9 Q0 d\xef\xbf\xbc 4 3 r\xe9\n"
        b"q\xe9 Q0 d- 5 2 r\xe9\nq\xc3\xa9 Q0 d\xe9 1 1 r\xe9\nq\xc3\xa9 Q0 d\xc3\xa9 2 1 r\xe9\n",
        0,
        b"relstring_6           \tq\xc3\xa9\t'04'\nrelstring_6           \tq\xe9\t'12-3.'\n",
        id="relstring"),
    # -c: the UTF-8 topic the run does not answer (it answers the Latin-1 one, and a\xea,
    # which is not judged) is scored as trec_eval's made-up ranking
    pytest.param(
        ["-c", "-q", "-m", "num_ret", "-m", "num_rel", "-m", "P.5", "-m", "relstring.3", "-m", "runid"],
        b"a\xe9 0 x 1\na\xc3\xa9 0 x 1\na\xc3\xa9 0 y 1\nb 0 x 1\n",
        b"a\xe9 Q0 x 1 1 t\xc3\xa9\nb Q0 y 1 1 t\xc3\xa9\na\xea Q0 x 1 1 t\xc3\xa9\n",
        0,
        b"num_ret               \ta\xc3\xa9\t0\nnum_rel               \ta\xc3\xa9\t2\nP_5                   \ta\xc3\xa9\t0.0000\n"
        b"relstring_3           \ta\xc3\xa9\t'-'\n"
        b"num_ret               \ta\xe9\t1\nnum_rel               \ta\xe9\t1\nP_5                   \ta\xe9\t0.2000\n"
        b"relstring_3           \ta\xe9\t'1'\n"
        b"num_ret               \tb\t1\nnum_rel               \tb\t1\nP_5                   \tb\t0.0000\n"
        b"relstring_3           \tb\t'-'\n"
        b"runid                 \tall\tt\xc3\xa9\nnum_ret               \tall\t2\nnum_rel               \tall\t4\n"
        b"P_5                   \tall\t0.0667\n",
        id="complete-nonascii-topic-missing"),
    # … and without -c: the topics before the Latin-1 one, then exit 4
    pytest.param(
        ["-q", "-m", "num_ret", "-m", "P.5"],
        b"a\xe9 0 x 1\na\xc3\xa9 0 x 1\nb 0 x 1\na 0 x 1\n",
        b"a\xc3\xa9 Q0 x 1 1 t\nb Q0 y 1 1 t\na Q0 x 1 1 t\na\xea Q0 x 1 1 t\n",
        4,
        b"num_ret               \ta\t1\nP_5                   \ta\t0.2000\n"
        b"num_ret               \ta\xc3\xa9\t1\nP_5                   \ta\xc3\xa9\t0.2000\n",
        id="nonascii-topic-missing-exit4"),
    # -R qrels_prefs: the runid line of a tag that is not UTF-8
    pytest.param(
        ["-R", "qrels_prefs", "-m", "runid", "-m", "prefs_simp"],
        b"1 0 a 1\n1 0 b 0\n",
        b"1 Q0 a 1 2 r\xff\n1 Q0 b 2 1 r\xff\n",
        0,
        b"runid                 \tall\tr\xff\nprefs_simp            \tall\t1.0000\n",
        id="prefs-run-tag-not-utf8"),
    # several tags in one results file: trec_eval prints the last line's (found by the fuzz)
    pytest.param(
        ["-m", "runid", "-m", "num_ret"],
        b"1 0 a 1\n",
        b"1 Q0 a 1 1 r1\n1 Q0 b 2 0 r\xe92\n",
        0,
        b"runid                 \tall\tr\xe92\nnum_ret               \tall\t2\n",
        id="last-line-run-tag"),
]


@pytest.mark.parametrize("options, qrels, run, code, expected", CASES)
def test_nonascii_ids_byte_for_byte(tmp_path, capsysbinary, options, qrels, run, code, expected):
    (tmp_path / "qrels").write_bytes(qrels)
    (tmp_path / "run").write_bytes(run)
    got_code, out, err = run_cli(["trec_eval", *options, tmp_path / "qrels", tmp_path / "run"], capsysbinary)
    assert (got_code, out) == (code, expected), err
    assert b"Traceback" not in err


def test_nonascii_bytes_reach_a_real_stdout_in_the_c_locale(tmp_path):
    """The same bytes through a real process stdout, whatever the locale's encoding."""
    qrels = b"caf\xc3\xa9 0 d\xe9 1\ncaf\xe9 0 d\xc3\xa9 1\n"
    run = b"caf\xc3\xa9 Q0 d\xe9 1 1 t\xff\ncaf\xe9 Q0 d\xe9 1 1 t\xff\n"
    (tmp_path / "qrels").write_bytes(qrels)
    (tmp_path / "run").write_bytes(run)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8")}
    env.update(LC_ALL="C", LANG="C")
    done = subprocess.run([sys.executable, "-m", "irstats", "trec_eval", "-q", "-m", "num_rel_ret", "-m", "runid",
                           str(tmp_path / "qrels"), str(tmp_path / "run")], capture_output=True, env=env)
    # trec_eval 10's output on these files
    assert (done.returncode, done.stdout) == (
        0, b"num_rel_ret           \tcaf\xc3\xa9\t1\nnum_rel_ret           \tcaf\xe9\t0\n"
           b"runid                 \tall\tt\xff\nnum_rel_ret           \tall\t1\n"), done.stderr
