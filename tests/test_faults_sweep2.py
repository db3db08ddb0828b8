"""Fault suite, second sweep (issue 22): one test (or parametrised group) per class found.

- wrong numbers with exit 0
  - non-ASCII ids in the trec_eval drop-in .......... tests/test_trec_eval_nonascii.py
  - a run answering some of the qrels' topics ........ test_partial_run_is_warned_of_*
  - a top grade that dwarfs every other .............. test_outlying_top_grade_is_warned_of
  - nominal agreement on real-valued labels .......... tests/test_agreement.py
                                                       ::test_real_valued_labels_equal_the_reference_packages
- stuck
  - --ties expected on a list of equal scores ........ test_expected_ties_refused_up_front
  - the drop-in on many topics ....................... test_drop_in_is_linear_in_topics
- messages
  - huge numbers ..................................... test_huge_numbers_*
  - hints naming the right option and file ........... test_duplicate_hint_*, test_qrels_b_*,
                                                       test_compare_notes_blank_p_values,
                                                       test_report_figure_on_a_full_disk_*
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import irstats
from irstats import MeasureError
from irstats.errors import IrstatsWarning

sys.path.insert(0, str(Path(__file__).parent))
from conftest import run_cli  # noqa: E402
from test_faults_output import full_disk, mounted  # noqa: E402,F401  (fixtures: a real full tmpfs)

DL19 = "trec-dl-2019-passage"


# ----------------------------------------------------------------------------- wrong numbers

def _first_topics(run: Path, keep: int, out: Path) -> Path:
    """The lines of the first ``keep`` topics of a gzip run."""
    import gzip

    seen: list[bytes] = []
    lines = []
    for line in gzip.decompress(run.read_bytes()).splitlines(keepends=True):
        topic = line.split()[0]
        if topic not in seen:
            seen.append(topic)
        if seen.index(topic) < keep:
            lines.append(line)
    out.write_bytes(b"".join(lines))
    return out


def test_partial_run_is_warned_of_once_naming_it_and_the_counts(reference_data, tmp_path):
    """A run answering 21 of DL 2019's 43 topics is averaged over those 21 (trec_eval's rule,
    kept) — with one warning naming the run, both counts and -c; none with complete=True."""
    qrels = reference_data / DL19 / "qrels.dl19-passage.txt"
    run = _first_topics(reference_data / DL19 / "runs" / "bm25base_p.run.gz", 21, tmp_path / "half.run")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = irstats.evaluate(str(qrels), str(run), ["AP"])
    partial = [str(w.message) for w in caught if issubclass(w.category, IrstatsWarning) and "answers" in str(w.message)]
    assert partial == ["run 'bm25base_p' answers 21 of the qrels' 43 topics: its means are over those 21 "
                       "(trec_eval's rule); complete=True (-c) scores the other 22 as 0"]
    assert scores["AP"].values.shape == (1, 21)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IrstatsWarning)
        complete = irstats.evaluate(str(qrels), str(run), ["AP"], complete=True)
    assert complete["AP"].values.shape == (1, 43)
    # the mean over 43 is the mean over 21 scaled by 21/43 (the other topics score 0)
    assert complete["AP"].means()[0] == pytest.approx(scores["AP"].means()[0] * 21 / 43, rel=1e-12)


def test_partial_run_is_warned_of_on_the_command_line(reference_data, tmp_path, capsys):
    qrels = reference_data / DL19 / "qrels.dl19-passage.txt"
    run = _first_topics(reference_data / DL19 / "runs" / "bm25base_p.run.gz", 5, tmp_path / "five.run")
    code, out, err = run_cli(["eval", qrels, run, "-m", "AP"], capsys)
    assert code == 0
    assert err.count("answers 5 of the qrels' 43 topics") == 1 and "-c scores" in err and "complete=" not in err
    code, out, err = run_cli(["eval", qrels, run, "-m", "AP", "-c"], capsys)
    assert code == 0 and "answers" not in err


@pytest.mark.parametrize("top", ["2147483648", "1e308"])
def test_outlying_top_grade_is_warned_of(tmp_path, top):
    """ERR and graded RBP scale by the collection's top grade: one absurd grade makes every
    other document count ~0. The values stay the definition's; a warning names the grade."""
    qrels = tmp_path / "q"
    qrels.write_text(f"1 0 a 1\n1 0 b {top}\n1 0 c 2\n2 0 a 3\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 3 r\n1 Q0 c 2 2 r\n2 Q0 a 1 1 r\n")
    with pytest.warns(IrstatsWarning, match=rf"top grade {top.replace('e', 'e[+]')}\S* is over 1000 times the next "
                                            r"largest \(3(\.0)?\).*g_max="):
        scores = irstats.evaluate(str(qrels), str(run), ["ERR", "RBP"])
    assert scores["ERR@20"].values.max() < 1e-6
    with warnings.catch_warnings():  # an ordinary top grade: no word
        warnings.simplefilter("error", IrstatsWarning)
        qrels.write_text("1 0 a 1\n1 0 b 4\n1 0 c 2\n2 0 a 3\n")
        irstats.evaluate(str(qrels), str(run), ["ERR", "RBP"])


# ----------------------------------------------------------------------------- stuck

@pytest.mark.parametrize("measure", ["IPrec@0.5", "IPrecAvg"])
def test_expected_ties_refused_up_front(reference_data, tmp_path, measure, monkeypatch):
    """DL 2019's bm25base_p with every score 1.0: the exact expectation of IPrec over 1,000
    tied documents is refused before any list is computed (not discovered by running),
    naming the measure, the run and the topic."""
    import gzip

    from irstats.measures import interpolated

    lines = gzip.decompress((reference_data / DL19 / "runs" / "bm25base_p.run.gz").read_bytes()).splitlines()
    run = tmp_path / "tied.run"
    run.write_bytes(b"".join(b" ".join(line.split()[:4] + [b"1.0", b"bm25base_p"]) + b"\n" for line in lines))

    def never(*args, **kwargs):
        raise AssertionError("an expectation was computed before the refusal")

    monkeypatch.setattr(interpolated, "_expected_best_precision", never)
    with pytest.raises(MeasureError, match=rf"{measure.replace('.', '[.]')}: ties='expected' is refused: run "
                                           r"'bm25base_p', topic '\d+' .* tie group of 1000 documents"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            irstats.evaluate(str(reference_data / DL19 / "qrels.dl19-passage.txt"), str(run), [measure],
                             ties="expected", depth=None)


def test_expected_ties_small_groups_still_exact(tmp_path):
    """Below the budget nothing changes: one tie group of 4 with 2 relevant, E[IPrec@0] by
    hand over its 6 equally likely arrangements."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 1\n1 0 c 0\n1 0 d 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 r\n1 Q0 b 2 1 r\n1 Q0 c 3 1 r\n1 Q0 d 4 1 r\n")
    # relevant places {1,2}: 1; {1,3}: 1; {1,4}: 1; {2,3}: 2/3; {2,4}: 1/2; {3,4}: 1/2
    expected = (1 + 1 + 1 + 2 / 3 + 1 / 2 + 1 / 2) / 6
    scores = irstats.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["IPrec@0"], ties="expected")
    assert scores["IPrec@0"].values[0, 0] == pytest.approx(expected, abs=1e-12)


def test_drop_in_is_linear_in_topics(tmp_path, capsys):
    """20,000 topics of one document each: -q lines for every topic and measure, each value
    known by hand (a lookup per topic and line made 10^5 topics take > 300 s)."""
    n = 20_000
    grades = [t % 3 for t in range(n)]  # 0: the one document is not relevant
    (tmp_path / "q").write_text("".join(f"{t} 0 d{t} {g}\n" for t, g in enumerate(grades)))
    (tmp_path / "r").write_text("".join(f"{t} Q0 d{t} 1 1.0 run\n" for t in range(n)))
    code, out, err = run_cli(["trec_eval", "-q", "-m", "map", "-m", "P.5", "-m", "num_rel_ret",
                              tmp_path / "q", tmp_path / "r"], capsys)
    assert code == 0
    topics = sorted(range(n), key=lambda t: str(t).encode())  # trec_eval's order: the ids' bytes
    expected = []
    for t in topics:
        hit = grades[t] > 0
        expected += [f"{'num_rel_ret':<22}\t{t}\t{int(hit)}\n", f"{'map':<22}\t{t}\t{1.0 if hit else 0.0:6.4f}\n",
                     f"{'P_5':<22}\t{t}\t{0.2 if hit else 0.0:6.4f}\n"]
    hits = sum(g > 0 for g in grades)
    expected += [f"{'num_rel_ret':<22}\tall\t{hits}\n", f"{'map':<22}\tall\t{hits / n:6.4f}\n",
                 f"{'P_5':<22}\tall\t{0.2 * hits / n:6.4f}\n"]
    got = out.splitlines(keepends=True)
    assert len(got) == len(expected)
    # -q lines come in trec_eval's table order (num_rel_ret, map, P_5 as the table lists them)
    order = [line.split("\t")[0].strip() for line in got[:3]]
    by_name = {name: i for i, name in enumerate(order)}
    expected_sorted = []
    for i in range(0, len(expected) - 3, 3):
        block = expected[i:i + 3]
        expected_sorted += sorted(block, key=lambda line: by_name[line.split("\t")[0].strip()])
    expected_sorted += sorted(expected[-3:], key=lambda line: by_name[line.split("\t")[0].strip()])
    assert got == expected_sorted


# ----------------------------------------------------------------------------- messages

@pytest.mark.parametrize("args, says", [
    (["-m", "P@99999999999999999999"], "the cut-off must be at most 9223372036854775807"),
    (["-M", "99999999999999999999"], "depth"),
    (["-M", "9223372036854775808"], "depth"),
    (["-l", "99999999999999999999"], "--rel-level"),
])
def test_huge_numbers_are_one_line_exit_2(tmp_path, capsys, args, says):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 r\n")
    code, out, err = run_cli(["eval", tmp_path / "q", tmp_path / "r", *args], capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("irstats: error:") and says in err
    assert "internal error" not in err


def test_huge_numbers_in_the_drop_in_read_as_atol(tmp_path, capsys):
    """trec_eval reads numbers with atol, clamped to a long: P.99999999999999999999 is
    P_9223372036854775807 (the expected lines are trec_eval 10's), -M 1e20 is -M 1."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n2 Q0 a 1 1 r\n2 Q0 c 2 1 r\n")
    code, out, _ = run_cli(["trec_eval", "-m", "P.99999999999999999999", tmp_path / "q", tmp_path / "r"], capsys)
    assert (code, out) == (0, "P_9223372036854775807 \tall\t0.0000\n")
    code, out, _ = run_cli(["trec_eval", "-m", "num_ret", "-M", "1e20", tmp_path / "q", tmp_path / "r"], capsys)
    assert (code, out) == (0, "num_ret               \tall\t2\n")


def test_duplicate_hint_names_the_flag_every_command_has(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 a 2\n1 0 b 0\n")
    (tmp_path / "q2").write_text("1 0 a 1\n1 0 b 1\n")
    code, _, err = run_cli(["agreement", tmp_path / "q", tmp_path / "q2"], capsys)
    assert code == 2 and "--qrels-duplicate max|last" in err and "on_duplicate=" not in err
    code, out, err = run_cli(["agreement", tmp_path / "q", tmp_path / "q2", "--qrels-duplicate", "max",
                              "--format", "tsv", "-n", "10"], capsys)
    assert code == 0, err
    assert "statistic\tvalue" in out


def test_qrels_b_without_shared_topics_names_the_qrels_b_file(reference_data, tmp_path, capsys):
    dl = reference_data / DL19
    (tmp_path / "other.qrels").write_text("999 0 x 1\n998 0 y 0\n")
    out_dir = tmp_path / "report"
    code, _, err = run_cli(["report", "--qrels", dl / "qrels.dl19-passage.txt", "--runs",
                            dl / "runs" / "bm25base_p.run.gz", "--runs", dl / "runs" / "test1.run.gz",
                            "--qrels-b", tmp_path / "other.qrels", "--out", out_dir, "-m", "AP", "--quick"], capsys)
    assert code == 2
    assert "other.qrels" in err and "--qrels-b" in err and err.count("\n") == 1
    assert not out_dir.exists() and [p.name for p in tmp_path.iterdir()] == ["other.qrels"]


def test_compare_notes_blank_p_values(tmp_path, capsys):
    (tmp_path / "one.tsv").write_text("system\ttopic\tmeasure\tvalue\na\t1\tAP\t0.5\nb\t1\tAP\t0.3\n")
    code, out, err = run_cli(["compare", tmp_path / "one.tsv", "--baseline", "a"], capsys)
    assert code == 0
    assert "AP: no p-value for 'b': the paired t-test is undefined on fewer than 2 topics" in out
    from irstats.stats import compare

    result = compare({"AP": irstats.read_scores(tmp_path / "one.tsv")["AP"]}, baseline="a")
    assert np.isnan(result.to_frame().filter(~result.to_frame()["is_baseline"])["p_value"][0])


def test_report_figure_on_a_full_disk_names_the_path_and_cause(full_disk):
    """The report draws each figure's PDF in a forked child: on a full disk its one line (path
    and "No space left on device") reaches the parent, exit 1 as every other full disk."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from irstats.errors import ResourceError
    from irstats.report.model import BackgroundPdfs

    folder = full_disk("64k")
    fig, ax = plt.subplots()
    ax.plot(range(1000), range(1000))
    target = folder / "system_means.pdf"
    with pytest.raises(ResourceError) as caught:
        with BackgroundPdfs() as pdfs:
            pdfs.submit(fig, target)
            pdfs.wait()
    assert caught.value.exit_code == 1
    assert str(target) in str(caught.value) and "No space left on device" in str(caught.value)
    assert not target.exists()


@pytest.mark.parametrize("option, judgments, measure", [
    ("--subtopic-qrels", "zz 1 d1 1\n", "alpha_nDCG@20"),
    ("--prefs", "zz a x d1 2\nzz a x d2 1\n", "PrefsSimp"),
])
def test_judgments_beyond_the_qrels_on_none_of_its_topics(tmp_path, capsys, option, judgments, measure):
    """Subtopic or preference judgments that judge none of the qrels' topics are one line
    naming their file (exit 2), not an internal error from an empty array."""
    qrels, run, extra = tmp_path / "qrels", tmp_path / "run", tmp_path / "extra"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    extra.write_text(judgments)
    code, out, err = run_cli(["eval", qrels, run, option, extra, "-m", measure], capsys)
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert str(extra) in err and "share no topic with the qrels" in err
