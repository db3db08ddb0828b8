"""The expected values of the peers' own tests, reproduced by irstats.

The inputs and expected values below are transcribed (they are test vectors, not code) from
terrierteam/ir_measures at commit dc04a88f (Apache-2.0):

- tests/test_cwl_eval.py with tests/cwl.qrels and tests/cwl.run: values "based on a manual
  execution of cwl-eval", to 4 decimals;
- tests/test_pyndeval.py: ERR-IA@20 of pyndeval (ndeval) on its inline subtopic qrels.

(Its Compat test reads 2,200 lines of qrels and run; Compat is held to that provider on DL 2019
in tests/test_compat.py instead.)
"""

from __future__ import annotations

import pytest

import irstats
from irstats.diversity import evaluate_diversity

CWL_QRELS = """T1 00 D1 1\nT1 00 D2 0\nT1 00 D3 1\nT1 00 D4 1\nT1 00 D7 1\nT1 00 D8 0\nT1 00 D9 1\nT1 00 D10 0
T2 00 D1 1\nT2 00 D2 1\nT2 00 D5 1\nT2 00 D6 0\nT2 00 D7 1\nT2 00 D8 1\nT2 00 D9 1\nT2 00 D10 0
T3 00 D4 0\nT3 00 D5 0\nT3 00 D6 1\nT3 00 D7 1\nT3 00 D8 1\nT3 00 D9 0\nT3 00 D10 1
"""
CWL_SCORES = [4.3, 4.2, 4.1, 3.9, 3.8, 3.7, 3.6, 3.5, 3.4, 3.3]
CWL_RUN = "".join(f"{t} Q0 D{i + 1} {i + 1} {s} R1\n" for t in ("T1", "T2", "T3") for i, s in enumerate(CWL_SCORES))

#: ir_measures' tests/test_cwl_eval.py (cwl-eval's values), in irstats' names
CWL_EXPECTED = {
    "BPM(T=1,max_rel=1)@20": (1.0000, 1.0000, 0.1667),
    "BPM(T=2,max_rel=1)@10": (0.6667, 1.0000, 0.2857),
    "INSQ(T=1,max_rel=1)": (0.5872, 0.6629, 0.0880),
    "INSQ(T=2,max_rel=1)": (0.4513, 0.5068, 0.1292),
    "INST(T=1,max_rel=1)": (0.7934, 0.9226, 0.0888),
    "INST(T=2,max_rel=1)": (0.5994, 0.6924, 0.1397),
    "SDCG(max_rel=1)@10": (0.5645, 0.6531, 0.2848),
    "NERR8(max_rel=1)@10": (1.0000, 1.0000, 0.1667),
    "NERR9(max_rel=1)@10": (1.0000, 1.0000, 0.0680),
    "NERR10(p=0.8,max_rel=1)": (1.0000, 1.0000, 0.0888),
    "NERR11(T=2,max_rel=1)": (1.0000, 1.0000, 0.0691),
    "P@1": (1.0000, 1.0000, 0.0000),
    "P@5": (0.6000, 0.6000, 0.0000),
    "P@10": (0.5000, 0.6000, 0.4000),
    "P@20": (0.2500, 0.3000, 0.2000),
    "RBP(p=0.9,rel=1)": (0.3501, 0.3996, 0.1988),
    "RR": (1.0000, 1.0000, 0.1667),
}


def test_cwl_eval_expected_values(tmp_path):
    (tmp_path / "qrels").write_text(CWL_QRELS)
    (tmp_path / "run").write_text(CWL_RUN)
    scores = irstats.evaluate(tmp_path / "qrels", tmp_path / "run", list(CWL_EXPECTED))
    for name, expected in CWL_EXPECTED.items():
        matrix = scores[name]
        assert matrix.topics == ("T1", "T2", "T3")
        for topic, value, want in zip(matrix.topics, matrix.values[0], expected):
            assert value == pytest.approx(want, abs=0.5e-4 + 1e-12), (name, topic)


PYNDEVAL_QRELS = "0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 1 D2 1\n0 1 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 1 D5 2\n"
PYNDEVAL_RUN = ("0 0 D0 1 0.8 run\n0 0 D2 2 0.7 run\n0 0 D1 3 0.3 run\n0 0 D3 4 0.4 run\n0 0 D4 5 0.1 run\n"
                "1 0 D1 1 0.8 run\n1 0 D3 2 0.7 run\n1 0 D4 3 0.3 run\n1 0 D2 4 0.4 run\n")


def test_pyndeval_expected_values(tmp_path):
    """ir_measures' test_pyndeval.py: ERR-IA@20 is 0.4659 on topic 0 and 0.1803 on topic 1
    (mean 0.3231)."""
    (tmp_path / "qrels").write_text(PYNDEVAL_QRELS)
    (tmp_path / "run").write_text(PYNDEVAL_RUN)
    scores = evaluate_diversity(tmp_path / "qrels", tmp_path / "run", ["ERR_IA@20"])["ERR_IA@20"]
    assert scores.topics == ("0", "1")
    assert scores.values[0].tolist() == pytest.approx([0.4659, 0.1803], abs=0.5e-4)
    assert scores.means()[0] == pytest.approx(0.3231, abs=0.5e-4)
