"""``irstats trec_eval`` prints trec_eval 10's output byte for byte.

Expected outputs are trec_eval's own: the test suite's files (quicktest-commands.txt) and
trec_eval 10's `-q -m all_trec -l 1|2` output for the DL 2019 runs of tests/data. A subset of measures
prints exactly that subset of the lines (trec_eval prints each requested measure's lines in
its table order), which checks parameters against the meas_params file.
"""

from __future__ import annotations

import gzip

import pytest

from tests.conftest import DL19_RUNS, run_cli, run_drop_in

@pytest.mark.parametrize("options, qrels, run, expected", [
    ([], "qrels.test", "results.test", "out.test"),
    ([], "qrels.test.with-comments", "results.test", "out.test"),
    ([], "qrels.comment.test", "results.comment.test.gz", "out.comment.test"),
    (["-m", "all_trec"], "qrels.test", "results.test", "out.test.a"),
    (["-m", "all_trec", "-q"], "qrels.test", "results.test", "out.test.aq"),
    (["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc", "out.test.aqc"),
    (["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc", "out.test.aqcM"),
    (["-m", "all_trec", "-mrelstring.20", "-q", "-l2"], "qrels.rel_level", "results.test", "out.test.aql"),
    (["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000", "-m",
      "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75", "-mndcg.1=3,2=9,4=4.5",
      "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20"], "qrels.test", "results.test", "out.test.meas_params"),
    (["-m", "all_prefs", "-q", "-R", "prefs"], "prefs.test", "prefs.results.test", "out.test.prefs"),
    (["-m", "all_prefs", "-q", "-R", "prefs"], "prefs.comment.test", "prefs.results.test", "out.test.prefs"),
    (["-m", "all_prefs", "-q", "-R", "qrels_prefs"], "qrels.test", "results.test", "out.test.qrels_prefs"),
    (["-m", "qrels_jg", "-q", "-R", "qrels_jg"], "qrels.123", "results.test", "out.test.qrels_jg"),
    (["-m", "qrels_jg", "-q", "-R", "qrels_jg"], "qrels.comments.123", "results.test", "out.test.qrels_jg"),
])
def test_quicktest_commands_byte_for_byte(te, options, qrels, run, expected):
    """Every command of trec_eval's quicktest-commands.txt, run as `irstats trec_eval …`."""
    code, out = run_drop_in([*options, te / qrels, te / run])
    assert code == 0
    assert out == (te / expected).read_text()


@pytest.mark.parametrize("level", [1, 2])
def test_dl19_all_trec_byte_for_byte(reference_data, tmp_path, level):
    """`irstats trec_eval -q -m all_trec -l L` = trec_eval 10's output for every DL 2019 run of tests/data."""
    d = reference_data / "trec-dl-2019-passage"
    runs = sorted((d / "runs").glob("*.gz"))
    assert len(runs) == len(DL19_RUNS)
    for path in runs:
        tag = path.name.split(".")[0]
        with gzip.open(path, "rb") as f:
            (tmp_path / "run").write_bytes(f.read())  # trec_eval read the run decompressed
        with gzip.open(d / "trec_eval10-all_trec" / f"{tag}.l{level}.gz", "rt") as f:
            expected = f.read()
        code, out = run_drop_in(["-q", "-m", "all_trec", f"-l{level}", d / "qrels.dl19-passage.txt", tmp_path / "run"])
        assert code == 0, out
        assert out == expected, tag


def test_options_as_getopt_reads_them(te):
    """-l2 and -l 2, options after the file names (GNU getopt permutes), -m repeated."""
    a = run_drop_in(["-q", "-l", "2", "-m", "map", "-m", "P.5,10", te / "qrels.rel_level", te / "results.test"])
    b = run_drop_in([te / "qrels.rel_level", te / "results.test", "-l2", "-mmap", "-mP.5,10", "-q"])
    assert a == b and a[0] == 0
    lines = a[1].splitlines()
    assert lines[0].startswith("map ") and lines[1].startswith("P_5 ") and lines[2].startswith("P_10 ")


def test_errors_and_exit_codes(te, tmp_path, capsys):
    code, out, err = run_cli(["trec_eval", "-m", "nope", te / "qrels.test", te / "results.test"], capsys)
    assert code == 1 and "illegal measure 'nope'" in err and "Traceback" not in err
    code, out, err = run_cli(["trec_eval", "-R", "prefs", "-m", "map", te / "prefs.test",
                              te / "prefs.results.test"], capsys)  # map needs qrels, not preferences
    # trec_eval cannot calculate a measure from other judgments than it reads: exit 4
    assert (code, out) == (4, "") and "Traceback" not in err and "Can't calculate measure 'map'" in err
    code, out, err = run_cli(["trec_eval", "-m", "prefs_simp", te / "qrels.test", te / "results.test"], capsys)
    assert (code, out) == (4, "") and "Traceback" not in err and "-R prefs or qrels_prefs" in err
    code, out, err = run_cli(["trec_eval", "-m", "P_avgjg", te / "qrels.test", te / "results.test"], capsys)
    assert (code, out) == (4, "") and "Can't calculate measure 'P_avgjg'" in err
    code, out, err = run_cli(["trec_eval", "-R", "qrels_jg", "-m", "map", te / "qrels.123", te / "results.test"],
                             capsys)
    assert (code, out) == (4, "") and "Can't calculate measure 'map'" in err
    code, out, err = run_cli(["trec_eval", "-R", "qrels_weird", te / "qrels.test", te / "results.test"], capsys)
    assert code in (1, 2) and "Traceback" not in err and "qrels_weird" in err
    code, out, err = run_cli(["trec_eval", te / "qrels.test"], capsys)
    assert code == 1 and "Usage" in err
    run = tmp_path / "run"
    run.write_text("\n".join(line for line in (te / "results.test").read_text().splitlines()
                             if line.split()[0] != "302") + "\n")
    code, out, err = run_cli(["trec_eval", te / "qrels.test", run], capsys)
    assert code == 4 and "result qid '302' not found" in err  # trec_eval: a qrels topic without results
    code, out, err = run_cli(["trec_eval", "-c", te / "qrels.test", run], capsys)  # … unless -c
    assert code == 0 and out.splitlines()[1].split() == ["num_q", "all", "3"]


def test_measure_parameters_as_trec_eval_reads_them(te):
    """quicktest's meas_params command, restricted to the measures irstats computes: P.5,7,3,
    recall.20,2000, Rprec_mult.5.0,0.2,0.35, success.2,5,20, iprec_at_recall..10,.20,.25,.75,.50."""
    names = {"P", "recall", "Rprec_mult", "success", "iprec_at_recall"}

    def base(printed: str) -> str | None:
        for name in sorted(names, key=len, reverse=True):
            if printed == name or printed.startswith(name + "_"):
                return name
        return None

    expected = "".join(line + "\n" for line in (te / "out.test.meas_params").read_text().splitlines()
                       if base(line.split("\t")[0].rstrip()))
    code, out = run_drop_in(["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
                      "-m", "Rprec_mult.5.0,0.2,0.35", "-msuccess.2,5,20", te / "qrels.test", te / "results.test"])
    assert code == 0
    assert out == expected


def test_utility_with_collection_size(te):
    """-N N feeds utility's d·(N + C − n − R); checked by hand from trec_eval's own counts."""
    counts = {}
    for line in (te / "out.test.aq").read_text().splitlines():
        name, topic, value = line.split()
        if name in ("num_ret", "num_rel", "num_rel_ret") and topic != "all":
            counts.setdefault(topic, {})[name] = int(value)
    code, out = run_drop_in(["-q", "-m", "utility.1,-1,0,1", "-N", "1000", te / "qrels.test", te / "results.test"])
    assert code == 0
    for line in out.splitlines()[:-1]:
        name, topic, value = line.split()
        c, n, r = counts[topic]["num_rel_ret"], counts[topic]["num_ret"], counts[topic]["num_rel"]
        assert float(value) == pytest.approx(c - (n - c) + (1000 + c - n - r))


def test_zscores_byte_for_byte(te):
    """trec_eval -q -m all_trec -Z zscores_file qrels.test results.test > out.test.aqZ"""
    code, out = run_drop_in(["-q", "-m", "all_trec", "-Z", te / "zscores_file", te / "qrels.test", te / "results.test"])
    assert code == 0
    assert out == (te / "out.test.aqZ").read_text()


#: Small cases where trec_eval 10.0 (usnistgov/trec_eval f425365, built with its Makefile)
#: departs from the obvious, with what it printed (stdout) and its exit code.
QRELS_TWO_TOPICS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n2 0 d 0\n2 0 e 3\n"
RUN_TOPIC_2_UNJUDGED = "1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 c 3 1 r\n2 Q0 y 1 3 r\n2 Q0 z 2 2 r\n"
TREC_EVAL_EDGES = [
    # -J leaves topic 2 with no document: iprec_at_recall's precision 0/0 stays at every recall
    # level that rounds to 0 of its 2 relevant documents, 11pt_avg adds it in; x86-64 prints -nan
    (["-q", "-J", "-m", "iprec_at_recall.0,0.2,0.5", "-m", "11pt_avg", "-m", "P.2"], QRELS_TWO_TOPICS,
     RUN_TOPIC_2_UNJUDGED, 0,
     "iprec_at_recall_0.00  \t1\t1.0000\niprec_at_recall_0.20  \t1\t1.0000\niprec_at_recall_0.50  \t1\t1.0000\n"
     "P_2                   \t1\t1.0000\n11pt_avg              \t1\t1.0000\n"
     "iprec_at_recall_0.00  \t2\t  -nan\niprec_at_recall_0.20  \t2\t  -nan\niprec_at_recall_0.50  \t2\t0.0000\n"
     "P_2                   \t2\t0.0000\n11pt_avg              \t2\t  -nan\n"
     "iprec_at_recall_0.00  \tall\t  -nan\niprec_at_recall_0.20  \tall\t  -nan\n"
     "iprec_at_recall_0.50  \tall\t0.5000\nP_2                   \tall\t0.5000\n11pt_avg              \tall\t  -nan\n"),
    # -M 0 leaves every topic with no document
    (["-M", "0", "-m", "iprec_at_recall.0,0.5", "-m", "11pt_avg"], QRELS_TWO_TOPICS, RUN_TOPIC_2_UNJUDGED, 0,
     "iprec_at_recall_0.00  \tall\t  -nan\niprec_at_recall_0.50  \tall\t0.0000\n11pt_avg              \tall\t  -nan\n"),
    # Rndcg is 0 on a topic with no document at the relevance level, whatever the lower grades' gain
    (["-q", "-l", "2", "-m", "Rndcg", "-m", "ndcg"], "1 0 a 0\n1 0 b 1\n", "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n", 0,
     "ndcg                  \t1\t0.6309\nRndcg                 \t1\t0.0000\n"
     "ndcg                  \tall\t0.6309\nRndcg                 \tall\t0.0000\n"),
    # … and divides 0 by 0 on a topic with a relevant document (-l 0) but no positive gain
    (["-q", "-l", "0", "-m", "Rndcg"], "1 0 a 0\n1 0 b 0\n2 0 a 1\n", "1 Q0 a 1 3 r\n2 Q0 a 1 3 r\n", 0,
     "Rndcg                 \t1\t  -nan\nRndcg                 \t2\t1.0000\nRndcg                 \tall\t  -nan\n"),
    # the first topic's grades all negative: its grade counts get no memory, the first measure
    # that ranks it fails (exit 4, nothing printed) …
    (["-q", "-m", "num_q", "-m", "P.5", "-m", "ndcg"], "1 0 a -1\n1 0 b -2\n2 0 a 1\n",
     "1 Q0 a 1 3 r\n2 Q0 a 1 3 r\n", 4, ""),
    # … a later one is evaluated, with no relevant document
    (["-q", "-m", "P.5", "-m", "ndcg"], "1 0 a 1\n2 0 a -1\n", "1 Q0 a 1 3 r\n2 Q0 a 1 3 r\n", 0,
     "P_5                   \t1\t0.2000\nndcg                  \t1\t1.0000\nP_5                   \t2\t0.0000\n"
     "ndcg                  \t2\t0.0000\nP_5                   \tall\t0.1000\nndcg                  \tall\t0.5000\n"),
    # -c on a run that answers none of the judged topics: every topic as failed …
    (["-c", "-m", "P.5", "-m", "map", "-m", "num_ret", "-m", "num_rel"], "1a 0 a 1\n1a 0 b 0\n", "1 Q0 a 1 3 r\n", 0,
     "num_ret               \tall\t0\nnum_rel               \tall\t1\nmap                   \tall\t0.0000\n"
     "P_5                   \tall\t0.0000\n"),
    # … and without -c, trec_eval's exit 4
    (["-m", "P.5"], "1a 0 a 1\n1a 0 b 0\n", "1 Q0 a 1 3 r\n", 4, ""),
    # rbp_resid's mean is 0.96355 up to its last bit: only trec_eval's own arithmetic (p^i by
    # repeated products, (1 − p) applied once) prints 0.9636 (found by a fuzz against it)
    (["-m", "rbp_resid", "-m", "rbp"],
     "4 0 D5 3\n4 0 D14 3\n4 0 D10 1\n4 0 D18 0\n4 0 D9 2\n4 0 D8 4\n6 0 D3 1\n6 0 D4 4\n6 0 D2 2\n"
     "6 0 D18 1\n6 0 D12 2\n6 0 D17 4\n6 0 D15 3\n6 0 D7 0\n",
     "4 Q0 D1 1 0.18 tag\n6 Q0 D6 2 0.78 tag\n6 Q0 D11 3 1 tag\n6 Q0 D20 5 0.31 tag\n4 Q0 D7 2 0.12 tag\n"
     "6 Q0 D1 4 0.69 tag\n6 Q0 D19 1 2.0 tag\n6 Q0 D24 0 3 tag\n4 Q0 D16 0 2.0 tag\n6 Q0 D17 6 0.93 tag\n"
     "4 Q0 D12 3 0.91 tag\n", 0,
     "rbp                   \tall\t0.0364\nrbp_resid             \tall\t0.9636\n"),
    # gain maps (name=value pairs) on every measure that takes them, printed with their text; the
    # grade levels in trec_eval's order: qsort with a comparator truncating the gain difference
    # to int puts 0 above 0.5 and 0.7, so ndcg's ideal stops after the grade-3 documents (0.8552;
    # the true ideal gives 0.5400)
    (["-m", "ndcg.1=0.5,2=0.7,3=1.4", "-m", "G.0=1,3=0.2", "-m", "Rndcg.2=-1,1=2.5", "-m", "ndcg_rel.1=1.5,2=1.2",
      "-m", "rbp.p=0.6", "-m", "rbp_resid.p=0.95,x=1"],
     "1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d 3\n1 0 e 1\n2 0 a 2\n2 0 d 0\n2 0 e 3\n2 0 f 1\n",
     "1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 c 3 1 r\n1 Q0 d 4 0.5 r\n2 Q0 f 1 3 r\n2 Q0 a 2 2 r\n2 Q0 z 3 1 r\n", 0,
     "G_0=1,3=0.2           \tall\t0.5052\nndcg_1=0.5,2=0.7,3=1.4\tall\t0.8552\n"
     "ndcg_rel_1=1.5,2=1.2  \tall\t0.5522\nRndcg_2=-1,1=2.5      \tall\t0.6046\n"
     "rbp_p=0.6             \tall\t0.3045\nrbp_resid_p=0.95,x=1  \tall\t0.8823\n"),
    # … and the walk down that order passes over levels without documents (here 0 and 3, sorted
    # above 4=0.5), so grade 4 still counts in the ideal
    (["-m", "ndcg.1=3,2=9,4=0.5"], "1 0 a 1\n1 0 b 1\n1 0 c 4\n", "1 Q0 c 1 3 r\n1 Q0 x 2 2 r\n1 Q0 a 3 1 r\n", 0,
     "ndcg_1=3,2=9,4=0.5    \tall\t0.3889\n"),
    # the first -m name.params of a measure sets its parameters; later ones are ignored
    (["-m", "P.5", "-m", "P.10", "-m", "ndcg.1=2", "-m", "ndcg.1=5"],
     "1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d 3\n1 0 e 1\n2 0 a 2\n2 0 d 0\n2 0 e 3\n2 0 f 1\n",
     "1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 c 3 1 r\n1 Q0 d 4 0.5 r\n2 Q0 f 1 3 r\n2 Q0 a 2 2 r\n2 Q0 z 3 1 r\n", 0,
     "P_5                   \tall\t0.5000\nndcg_1=2              \tall\t0.6604\n"),
    # -c: trec_eval ranks one made-up document (not in the qrels) for a topic without results,
    # then resets utility, rbp_resid and relstring by their plain names only
    (["-c", "-q", "-N", "100", "-m", "utility.2,-1,0.5,0.25", "-m", "rbp_resid.p=0.5", "-m", "relstring.3"],
     "1 0 d1 1\n2 0 d1 1\n2 0 d2 0\n", "1 Q0 d1 1 3 r\n1 Q0 d9 2 2 r\n", 0,
     "relstring_3           \t1\t'1-'\nutility_2,-1,0.5,0.25 \t1\t25.5000\nrbp_resid_p=0.5       \t1\t0.5000\n"
     "relstring_3           \t2\t'-'\nutility_2,-1,0.5,0.25 \t2\t24.0000\nrbp_resid_p=0.5       \t2\t1.0000\n"
     "utility_2,-1,0.5,0.25 \tall\t24.7500\nrbp_resid_p=0.5       \tall\t0.7500\n"),
    # -c: num_rel's "all" counts every qrels line with grade > 0, whatever -l is (m_num_rel.c)
    (["-c", "-l", "3", "-q", "-m", "num_rel"], "1 0 a 1\n1 0 b 3\n2 0 a 3\n2 0 b 1\n2 0 c 2\n", "1 Q0 a 1 3 r\n", 0,
     "num_rel               \t1\t1\nnum_rel               \t2\t1\nnum_rel               \tall\t5\n"),
    # -R qrels_jg: a judgment group whose topics the run does not answer stops at its first topic,
    # after the -q lines of the topics before it
    (["-R", "qrels_jg", "-q", "-m", "P_avgjg.2", "-m", "map_avgjg"], "1 0 a 1\n1 0 b 0\n2 1 a 1\n2 1 c 0\n",
     "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n", 4, "map_avgjg             \t1\t1.0000\nP_avgjg_2             \t1\t0.5000\n"),
    # set_F's β printed with its text
    (["-m", "set_F.0.30"], "1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d 3\n1 0 e 1\n2 0 a 2\n2 0 d 0\n2 0 e 3\n2 0 f 1\n",
     "1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 c 3 1 r\n1 Q0 d 4 0.5 r\n2 Q0 f 1 3 r\n2 Q0 a 2 2 r\n2 Q0 z 3 1 r\n", 0,
     "set_F_0.30            \tall\t0.7083\n"),
    # a qrels topic without results: the topics before it are printed, then exit 4
    (["-q", "-m", "P.5"], QRELS_TWO_TOPICS, "1 Q0 a 1 3 r\n", 4, "P_5                   \t1\t0.2000\n"),
]


@pytest.mark.parametrize("options, qrels, run, code, expected", TREC_EVAL_EDGES)
def test_trec_eval_edge_cases_byte_for_byte(tmp_path, capsys, options, qrels, run, code, expected):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    got_code, out, err = run_cli(["trec_eval", *options, tmp_path / "qrels", tmp_path / "run"], capsys)
    assert (got_code, out) == (code, expected), err
    assert "Traceback" not in err
    if code == 4:
        assert err.startswith("trec_eval: ")


def test_rbp_with_a_gain_map_is_refused(tmp_path, capsys):
    """trec_eval's rbp scales a gain map's gains with uninitialised variables (m_rbp.c): not
    reproducible, so refused in one line rather than printed from a guess."""
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 3 r\n")
    code, out, err = run_cli(["trec_eval", "-m", "rbp.p=0.8,1=2", tmp_path / "qrels", tmp_path / "run"], capsys)
    assert code == 1 and out == "" and "gain map" in err and "Traceback" not in err


@pytest.mark.parametrize("spec", ["ndcg.1=3,1=4", "G.-1=2"])
def test_gain_maps_trec_eval_reads_inconsistently_are_refused(tmp_path, capsys, spec):
    """A level given twice (trec_eval's ideal ranking takes one gain, the run another) or a
    negative level (it reaches trec_eval's codes for unjudged documents): refused in one line."""
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 3 r\n")
    code, out, err = run_cli(["trec_eval", "-m", spec, tmp_path / "qrels", tmp_path / "run"], capsys)
    assert code == 1 and out == "" and "Traceback" not in err and ("twice" in err or "negative level" in err)
