"""``irstats trec_eval`` prints trec_eval 10's output byte for byte.

Expected outputs are trec_eval's own: the test suite's files (quicktest-commands.txt) and
trec_eval 10's `-q -m all_trec -l 1|2` output for the 37 DL 2019 runs, restricted to the
measures asked for (trec_eval prints each requested measure's lines in its table order, so
asking for a subset prints exactly that subset of the all_trec lines).
"""

from __future__ import annotations

import gzip

import pytest
from click.testing import CliRunner

from irstats.cli.main import cli
from irstats.trec_eval.table import TABLE
from tests.conftest import run_cli

#: every trec_eval measure irstats computes on graded qrels as trec_eval does (graded `rbp`
#: rescales per topic in trec_eval: tests/test_conformance_trec_eval.py pins that down).
SUPPORTED = ["official", "recall", "unj", "rbp_resid", "gm_bpref", "11pt_avg", "ndcg", "relative_P", "Rprec_mult",
             "success", "map_cut", "ndcg_cut", "binG", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
             "num_nonrel_judged_ret", "ndcg_rel", "Rndcg", "G"]
OFFICIAL = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P"}


def _run(args) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["trec_eval", *map(str, args)])
    return result.exit_code, result.output


def _base_names() -> dict[str, str]:
    """printed name (P_5, iprec_at_recall_0.10 …) → trec_eval measure (P, iprec_at_recall …)."""
    out = {}
    for measure in TABLE:
        for printed, _ in measure.values(None):
            out[printed] = measure.name
    return out


@pytest.fixture(scope="module")
def te(shared_data):
    return shared_data / "conformance" / "trec_eval-test"


@pytest.mark.parametrize("qrels, run, expected", [
    ("qrels.test", "results.test", "out.test"),
    ("qrels.test.with-comments", "results.test", "out.test"),
    ("qrels.comment.test", "results.comment.test", "out.comment.test"),
])
def test_quicktest_commands_byte_for_byte(te, qrels, run, expected):
    code, out = _run([te / qrels, te / run])
    assert code == 0
    assert out == (te / expected).read_text()


@pytest.mark.parametrize("level", [1, 2])
def test_dl19_every_supported_measure_byte_for_byte(shared_data, tmp_path, level):
    d = shared_data / "trec-dl-2019-passage"
    wanted = {m for m in SUPPORTED if m != "official"} | OFFICIAL
    base = _base_names()
    runs = sorted((d / "runs").glob("*.gz"))
    assert len(runs) == 37
    args = ["-q", f"-l{level}"] + [a for m in SUPPORTED for a in ("-m", m)]
    for path in runs:
        tag = path.name.split(".")[0]
        with gzip.open(path, "rb") as f:
            (tmp_path / "run").write_bytes(f.read())  # trec_eval read the run decompressed
        with gzip.open(d / "trec_eval10-all_trec" / f"{tag}.l{level}.gz", "rt") as f:
            expected = "".join(line for line in f if base.get(line.split("\t")[0].rstrip()) in wanted)
        code, out = _run([*args, d / "qrels.dl19-passage.txt", tmp_path / "run"])
        assert code == 0, out
        assert out == expected, tag


def test_options_as_getopt_reads_them(te):
    """-l2 and -l 2, options after the file names (GNU getopt permutes), -m repeated."""
    a = _run(["-q", "-l", "2", "-m", "map", "-m", "P.5,10", te / "qrels.rel_level", te / "results.test"])
    b = _run([te / "qrels.rel_level", te / "results.test", "-l2", "-mmap", "-mP.5,10", "-q"])
    assert a == b and a[0] == 0
    lines = a[1].splitlines()
    assert lines[0].startswith("map ") and lines[1].startswith("P_5 ") and lines[2].startswith("P_10 ")


def test_errors_and_exit_codes(te, tmp_path, capsys):
    code, out, err = run_cli(["trec_eval", "-m", "nope", te / "qrels.test", te / "results.test"], capsys)
    assert code == 1 and "illegal measure 'nope'" in err and "Traceback" not in err
    code, out, err = run_cli(["trec_eval", "-m", "infAP", te / "qrels.test", te / "results.test"], capsys)
    assert code == 2 and "not computed by irstats yet" in err
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
    code, out = _run(["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
                      "-m", "Rprec_mult.5.0,0.2,0.35", "-msuccess.2,5,20", te / "qrels.test", te / "results.test"])
    assert code == 0
    assert out == expected
