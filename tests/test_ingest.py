"""The compiled ingest path (irstats._ingest) makes exactly the judgments tensor of the
Python readers, and hands every file it does not take as it is back to them.

The reference here is the Python path (polars scan + careful line reader), which the
conformance suites hold equal to trec_eval; these tests hold the C path equal to it on
trec_eval's own test files, on the TREC DL 2019 runs of tests/data under several options, and on
hypothesis-generated runs full of ties, foreign topics, odd whitespace and odd scores.
"""

from __future__ import annotations

import gzip
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irstats.ingest as ingest
from irstats import extension
from irstats.collection import Collection, EvalOptions, RunSet
from irstats.errors import InputError
from irstats.evaluate import Evaluator
from tests.conftest import DL19_RUNS, examples, spread

pytestmark = pytest.mark.filterwarnings("ignore::irstats.errors.IrstatsWarning")


def test_extension_is_built():
    """pip builds the extension from the project's own files (README's install command)."""
    assert ingest._ingest is not None, "irstats._ingest is not built: reinstall with `pip install -e .` and gcc"


def as_plain_files(runset: RunSet) -> RunSet:
    """The run set with every run marked as a plain file, so that the C path sees all of them
    (the engine only offers it files whose first 64 KiB are single-separator text)."""
    for part in runset.parts:
        part.frame, part.separator = None, part.separator or " "
    return runset


def both_paths(qrels, runs, monkeypatch, force: bool = False, **options):
    """(compiled or None, engine, python) judgments of the same inputs. ``force``: the C
    path's result is compared even for files the engine would read carefully anyway."""
    collection = Collection.load(qrels)
    runset = RunSet.load(runs)
    opts = EvalOptions(**options)
    used = ingest.compiled_judgments(collection, as_plain_files(runset) if force else runset, opts,
                                     list(range(len(runset.parts))))
    compiled = used if force and used is not None else Evaluator(collection, opts).judgments(RunSet.load(runs))
    monkeypatch.setattr(extension, "ENABLED", False)
    python = Evaluator(Collection.load(qrels), opts).judgments(RunSet.load(runs))
    monkeypatch.setattr(extension, "ENABLED", True)
    return used, compiled, python


def assert_same(a, b):
    assert a.systems == b.systems and a.topics == b.topics
    width = max(a.grades.shape[2], b.grades.shape[2])

    def padded(g):
        return np.pad(g.astype(np.int64), ((0, 0), (0, 0), (0, width - g.shape[2])), constant_values=-2)

    np.testing.assert_array_equal(padded(a.grades), padded(b.grades))
    np.testing.assert_array_equal(a.n_ret, b.n_ret)
    np.testing.assert_array_equal(a.present, b.present)


OPTION_SETS = [
    {},
    {"depth": None},
    {"depth": 10, "judged_only": True},
    {"depth": 0},
    {"score_dtype": "float32"},
    {"negative_rel": "nonrel", "complete": True},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_dl19_all_runs_equal_python_path(reference_data, monkeypatch, options):
    """The compiled reader equals the Python reader on the DL 2019 runs: all 14 with the default
    options; with the other option sets, all 14 in the full test budget, 10 spread over them in
    the quick one (the options change what is kept of a run, not how its bytes are parsed)."""
    folder = reference_data / "trec-dl-2019-passage"
    runs = sorted((folder / "runs").glob("*.run.gz"))
    assert len(runs) == len(DL19_RUNS)
    if options:
        runs = spread(runs, 10)
    used, compiled, python = both_paths(folder / "qrels.dl19-passage.txt", runs, monkeypatch, **options)
    assert used is not None, "the compiled path declined the DL 2019 runs"
    assert_same(compiled, python)


def test_trec_eval_suite_equal_python_path(reference_data, monkeypatch):
    te = reference_data / "conformance" / "trec_eval-test"
    for qrels, run in [("qrels.test", "results.test"),
                       ("qrels.rel_level", "results.test"), ("qrels-302.test", "results-302.test"),
                       ("qrels.test", "results.trunc")]:
        for options in ({}, {"judged_only": True}, {"depth": 50, "complete": True}):
            _, compiled, python = both_paths(te / qrels, te / run, monkeypatch, **options)
            assert_same(compiled, python)


# ----------------------------------------------------------------------------- generated runs

SCORES = st.one_of(
    st.integers(-5, 5).map(str),
    st.sampled_from(["0.1", "0.10", "1e-1", "0.100000000000000001", "0.10000000000000001", "+0.1", ".1", "1.",
                     "1E0", "10e-1", "0.30000000000000004", "0.3", "123456789012345678901234", "1.5e300", "0",
                     "0.0", "2.2250738585072014e-308", "4.9e-324", "-1.5", "00012.5000"]),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(repr),
    st.decimals(-100, 100, places=6, allow_nan=False, allow_infinity=False).map(str),
)
BLANKS = st.sampled_from([" ", "\t", "  ", " \t", "\t\t"])


@st.composite
def collections(draw):
    topics = draw(st.lists(st.sampled_from(["1", "2", "10", "301", "q\xe9"]), min_size=1, max_size=4, unique=True))
    docs = [f"d{i}" for i in range(12)] + ["D1", "d1a", "\xe9t\xe9", "d"]
    qrels_lines = []
    for topic in topics:
        for doc in draw(st.lists(st.sampled_from(docs), max_size=10, unique=True)):
            qrels_lines.append(f"{topic} 0 {doc} {draw(st.integers(-2, 3))}")
    if not qrels_lines:
        qrels_lines.append(f"{topics[0]} 0 d0 1")
    runs = []
    for r in range(draw(st.integers(1, 3))):
        tag = f"run{r}"
        lines = []
        for topic in topics + draw(st.lists(st.sampled_from(["999", "foreign"]), max_size=2)):
            for doc in draw(st.lists(st.sampled_from(docs), max_size=12, unique=True)):
                sep = draw(BLANKS)
                lines.append(sep.join([topic, "Q0", doc, str(draw(st.integers(0, 99))), draw(SCORES), tag]))
        lines = draw(st.permutations(lines))  # topics interleaved, scores unsorted
        end = draw(st.sampled_from(["\n", "\r\n"]))
        runs.append((tag, end.join(lines) + (end if draw(st.booleans()) else "")))
    return "\n".join(qrels_lines) + "\n", runs


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=collections(), options=st.sampled_from(OPTION_SETS + [{"depth": 3}, {"depth": 1, "judged_only": True}]))
def test_generated_runs_equal_python_path(tmp_path_factory, monkeypatch, data, options):
    qrels_text, runs = data
    folder = tmp_path_factory.mktemp("gen")
    (folder / "qrels").write_bytes(qrels_text.encode("latin-1"))
    judged_topics = {line.split()[0] for line in qrels_text.splitlines()}
    paths = []
    for tag, text in runs:
        path = folder / f"{tag}.run"
        if not any(line.split()[0] in judged_topics for line in text.splitlines() if line.strip()):
            return  # no qrels topic: both paths raise (test_declined_files_get_the_careful_readers_errors)
        path.write_bytes(text.encode("latin-1"))
        paths.append(path)
    used, compiled, python = both_paths(folder / "qrels", paths, monkeypatch, force=True, **options)
    signed_zero = any(float(line.split()[4]) == 0 and line.split()[4].startswith("-")
                      for _, text in runs for line in text.splitlines() if line.strip())
    assert used is not None or signed_zero  # all else here (whitespace, foreign topics, ties) is the C path's
    assert_same(compiled, python)


# ----------------------------------------------------------------------------- declined files

def rank(text: str, tag="t"):
    """The C ranking of one run against the qrels ``1 0 a 1`` / ``1 0 b 0``."""
    table = ingest._ingest.QrelsTable([b"1"], np.array([0, 0]), b"a\nb", np.array([1, 0]))
    return table.rank(text.encode("latin-1"), tag.encode(), 1000, False, False)


@pytest.mark.parametrize("text", [
    "# a comment\n1 Q0 a 1 2.0 t\n",            # comments: the careful reader's rules
    "1 Q0 a 1 2.0\n",                            # five fields
    "1 Q0 a 1 2.0 t extra\n",                    # seven fields
    "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 other\n",      # the tag changes
    "1 Q0 a 1 nan t\n", "1 Q0 a 1 inf t\n", "1 Q0 a 1 0x1p3 t\n", "1 Q0 a 1 1e999 t\n",
    "1 Q0 a 1 -0 t\n", "1 Q0 a 1 -0.0e5 t\n", "1 Q0 a 1 -1e-400 t\n", "1 Q0 a 1 2,5 t\n", "1 Q0 a 1 . t\n",
    "1 Q0 a 1 1e t\n",
    "1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n",         # a document twice
    "1 Q0 a\x001 1 2.0 t\n",                     # a NUL byte
    "2 Q0 a 1 2.0 t\n",                          # no qrels topic
    "",
])
def test_declines_what_it_does_not_take(text):
    assert rank(text) is None


def test_takes_plain_files():
    n_lines, n_kept, grades, outside = rank("1 Q0 b 1 1.0 t\n\n1 Q0 a 2 1.0 t\n7 Q0 x 1 9 t\n")
    assert np.frombuffer(n_lines, np.int64).tolist() == [2]
    assert np.frombuffer(grades, np.int64).tolist() == [0, 1]  # tie: docno descending, b before a
    assert outside == [b"7"]


@pytest.mark.parametrize("text, message", [
    ("1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n", "appears twice"),
    ("1 Q0 a 1 2.0\n", r"r:1: expected 6 fields"),
    ("1 Q0 a 1 nan t\n", r"r:1: "),
])
def test_declined_files_get_the_careful_readers_errors(tmp_path, text, message):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text(text)
    with pytest.raises(InputError, match=message):
        Evaluator(Collection.load(tmp_path / "q")).judgments(RunSet.load(tmp_path / "r"))


def test_gzip_and_many_runs_in_two_threads(tmp_path, monkeypatch):
    (tmp_path / "q").write_text("".join(f"{t} 0 d{d} {d % 3}\n" for t, d in itertools.product(range(5), range(30))))
    rng = np.random.default_rng(1)
    runs = []
    for r in range(9):
        lines = [f"{t} Q0 d{d} {k} {rng.integers(0, 5) / 4} r{r}\n" for t in range(6)
                 for k, d in enumerate(rng.permutation(40)[:25])]
        path = tmp_path / f"r{r}.gz"
        path.write_bytes(gzip.compress("".join(lines).encode()))
        runs.append(path)
    used, compiled, python = both_paths(tmp_path / "q", runs, monkeypatch)
    assert used is not None
    assert_same(compiled, python)


def test_qrels_table_checks_its_input():
    table = ingest._ingest.QrelsTable
    with pytest.raises(ValueError, match="more ids"):
        table([b"1"], np.array([0]), b"a\nb", np.array([1]))
    with pytest.raises(ValueError, match="one id per line"):
        table([b"1"], np.array([0, 0]), b"a\n\nb", np.array([1, 0]))
    with pytest.raises(ValueError, match="twice"):
        table([b"1"], np.array([0, 0]), b"a\na", np.array([1, 0]))
    with pytest.raises(ValueError, match="out of range"):
        table([b"1"], np.array([3]), b"a", np.array([1]))
    with pytest.raises(ValueError, match="differ in length"):
        table([b"1"], np.array([0, 0]), b"a\nb", np.array([1]))


def test_real_valued_labels_equal_python_path(reference_data, tmp_path, monkeypatch):
    """Real-valued labels (DL 2019's grades g as g/3 and a few negative ones): the compiled
    path holds the same label codes as the Python path."""
    folder = reference_data / "trec-dl-2019-passage"
    lines = (folder / "qrels.dl19-passage.txt").read_text().splitlines()
    labels = []
    for i, line in enumerate(lines):
        topic, it, docno, grade = line.split()
        labels.append(f"{topic} {it} {docno} {-0.5 if i % 97 == 0 else int(grade) / 3:.6f}")
    (tmp_path / "labels").write_text("\n".join(labels) + "\n")
    runs = sorted((folder / "runs").glob("*.run.gz"))[:8]
    used, compiled, python = both_paths(tmp_path / "labels", runs, monkeypatch, rel_level=0.5)
    assert used is not None, "the compiled path declined real-valued labels"
    assert_same(compiled, python)
    assert compiled.qrels.labels is not None and len(compiled.qrels.labels) == 4
