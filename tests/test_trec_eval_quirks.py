"""trec_eval's behaviour around its measures, each held in one place (issue 24 item 3): the
-nan of iprec_at_recall / 11pt_avg on an empty list and of Rndcg without ideal gain (in the
families, behind trec_eval_compat), the made-up document of a topic -c adds and the reset of
plain names after it, num_rel's total under -c (declared on the measures' TrecEvalName).

Expected bytes: trec_eval 10's output on these files (usnistgov/trec_eval at its 10.0 tag,
built from source), recorded once.
"""

from __future__ import annotations

import math

import pytest

import irstats
from irstats.cli.main import cli
from click.testing import CliRunner

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 1\n2 0 d5 0\n3 0 d6 0\n3 0 d7 -1\n4 0 d8 3\n"
# topic 2: one document outside the qrels (-J leaves it empty); topic 4: not answered (-c adds it)
RUN = "1 Q0 d1 1 3.0 tagA\n1 Q0 dx 2 2.0 tagA\n2 Q0 dz 1 1.0 tagA\n3 Q0 d6 1 1.0 tagA\n"

TREC_EVAL_10 = [
    ('-q -c -N 50 -m utility.2,-1,0,1 -m rbp_resid.p=0.5 -m relstring.5 -m num_rel -m num_ret',
     (
        'num_ret               \t1\t2\n'
        'num_rel               \t1\t2\n'
        "relstring_5           \t1\t'1-'\n"
        'utility_2,-1,0,1      \t1\t48.0000\n'
        'rbp_resid_p=0.5       \t1\t0.5000\n'
        'num_ret               \t2\t1\n'
        'num_rel               \t2\t1\n'
        "relstring_5           \t2\t'-'\n"
        'utility_2,-1,0,1      \t2\t47.0000\n'
        'rbp_resid_p=0.5       \t2\t1.0000\n'
        'num_ret               \t3\t1\n'
        'num_rel               \t3\t0\n'
        "relstring_5           \t3\t'0'\n"
        'utility_2,-1,0,1      \t3\t48.0000\n'
        'rbp_resid_p=0.5       \t3\t0.0000\n'
        'num_ret               \t4\t0\n'
        'num_rel               \t4\t1\n'
        "relstring_5           \t4\t'-'\n"
        'utility_2,-1,0,1      \t4\t47.0000\n'
        'rbp_resid_p=0.5       \t4\t1.0000\n'
        'num_ret               \tall\t4\n'
        'num_rel               \tall\t4\n'
        'utility_2,-1,0,1      \tall\t47.5000\n'
        'rbp_resid_p=0.5       \tall\t0.6250\n'
     )),
    ('-q -c -m utility -m rbp_resid -m relstring -m num_ret',
     (
        'num_ret               \t1\t2\n'
        "relstring             \t1\t'1-'\n"
        'utility               \t1\t0.0000\n'
        'rbp_resid             \t1\t0.9000\n'
        'num_ret               \t2\t1\n'
        "relstring             \t2\t'-'\n"
        'utility               \t2\t-1.0000\n'
        'rbp_resid             \t2\t1.0000\n'
        'num_ret               \t3\t1\n'
        "relstring             \t3\t'0'\n"
        'utility               \t3\t-1.0000\n'
        'rbp_resid             \t3\t0.0000\n'
        'num_ret               \t4\t0\n'
        "relstring             \t4\t''\n"
        'utility               \t4\t0.0000\n'
        'rbp_resid             \t4\t0.0000\n'
        'num_ret               \tall\t4\n'
        'utility               \tall\t-0.5000\n'
        'rbp_resid             \tall\t0.4750\n'
     )),
    ('-q -J -c -m iprec_at_recall.0,0.5 -m 11pt_avg',
     (
        'iprec_at_recall_0.00  \t1\t1.0000\n'
        'iprec_at_recall_0.50  \t1\t1.0000\n'
        '11pt_avg              \t1\t0.7273\n'
        'iprec_at_recall_0.00  \t2\t  -nan\n'
        'iprec_at_recall_0.50  \t2\t0.0000\n'
        '11pt_avg              \t2\t  -nan\n'
        'iprec_at_recall_0.00  \t3\t0.0000\n'
        'iprec_at_recall_0.50  \t3\t0.0000\n'
        '11pt_avg              \t3\t0.0000\n'
        'iprec_at_recall_0.00  \t4\t  -nan\n'
        'iprec_at_recall_0.50  \t4\t0.0000\n'
        '11pt_avg              \t4\t  -nan\n'
        'iprec_at_recall_0.00  \tall\t  -nan\n'
        'iprec_at_recall_0.50  \tall\t0.2500\n'
        '11pt_avg              \tall\t  -nan\n'
     )),
    ('-q -c -l 0 -m Rndcg.1=0,2=0',
     (
        'Rndcg_1=0,2=0         \t1\t  -nan\n'
        'Rndcg_1=0,2=0         \t2\t  -nan\n'
        'Rndcg_1=0,2=0         \t3\t  -nan\n'
        'Rndcg_1=0,2=0         \t4\t0.0000\n'
        'Rndcg_1=0,2=0         \tall\t  -nan\n'
     )),
]


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.parametrize("options, expected", TREC_EVAL_10, ids=[c for c, _ in TREC_EVAL_10])
def test_drop_in_prints_trec_eval_10s_bytes(files, options, expected):
    qrels, run = files
    result = CliRunner().invoke(cli, ["trec_eval", *options.split(), str(qrels), str(run)])
    assert result.exit_code == 0, result.output
    assert result.stdout == "".join(expected)


def test_the_nan_quirks_are_the_families_under_trec_eval_compat(files):
    """The engine itself gives trec_eval's -nan (NaN: undefined, left out of means) under
    trec_eval_compat, and irstats' own 0 without it."""
    qrels, run = files
    options = dict(judged_only=True, complete=True)
    compat = irstats.evaluate(qrels, run, ["IPrec@0", "IPrec@0.5"], trec_eval_compat=True, **options)
    own = irstats.evaluate(qrels, run, ["IPrec@0"], **options)
    assert math.isnan(compat["IPrec@0"].value(0, "2")) and math.isnan(compat["IPrec@0"].value(0, "4"))
    assert compat["IPrec@0.5"].value(0, "2") == 0.0  # lround(0.5 · 1) = 1: no 0/0
    assert own["IPrec@0"].value(0, "2") == 0.0 and own["IPrec@0"].value(0, "4") == 0.0
    rndcg = irstats.evaluate(qrels, run, ["RnDCG(gain=1:0;2:0)"], trec_eval_compat=True, complete=True,
                            rel_level=0)
    assert [math.isnan(rndcg["RnDCG(gain=1:0;2:0)"].value(0, t)) for t in "1234"] == [True, True, True, False]
