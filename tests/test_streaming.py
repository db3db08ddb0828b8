"""Bounded memory (issue 25): what is printed a piece at a time, and what is evaluated a block of
topics at a time, equals what the paths it replaces make whole — byte for byte, value for value.

The printers' reference is the whole-table printer (:class:`irstats.render.Table`, the tidy
frame written at once); the block-by-block evaluation's reference is the in-memory evaluation of
the same file (itself held to trec_eval elsewhere) and, for shuffled files, a plain loop here.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from irstats.evaluation import Evaluation, PerTopicScores
from irstats.render import Cell, Table, number_cell
from irstats.render_stream import StreamedTable
from irstats.scores import ScoreMatrix, score_chunks, scores_to_frame, write_frame
from tests.conftest import DL19_RUNS, run_cli

DL19 = "trec-dl-2019-passage"


# ----------------------------------------------------------------------------- printers

def _cells(rng: np.random.Generator, n_rows: int) -> list[list[Cell]]:
    """Rows of every kind of cell the tables print: names with Markdown and LaTeX specials,
    numbers (negative, -0.0, whole, huge), blanks, bold cells."""
    names = ["bm25", "a|b", "x*y", "under_score", "100%", "ünï", "-", ""]
    rows = []
    for r in range(n_rows):
        value = float(rng.choice([0.0, -0.0, 1.0, -2.5, 1234.56789, 1e-9, math.inf, rng.normal() * 10 ** r % 7]))
        rows.append([Cell(names[r % len(names)]), number_cell(value), number_cell(value, whole=True),
                     Cell("-") if r % 3 else number_cell(-value, 2, sign=True, marker="*"),
                     Cell("0.5000", bold=r % 4 == 0)])
    return rows


@pytest.mark.parametrize("n_rows", [0, 1, 39, 40, 41, 80, 97])
@pytest.mark.parametrize("block", [1, 7, 1000])
@pytest.mark.parametrize("title, legend", [(None, ()), ("Scores (AP, P@10)", ("one note", "", "  ")),
                                           ("x_y & z", ("note | with * marks",))])
def test_streamed_table_prints_as_the_whole_table(n_rows, block, title, legend):
    rows = _cells(np.random.default_rng(n_rows), n_rows)
    header, right = ("system", "AP", "NumRet", "Δ", "b"), (False, True, True, True, True)
    whole = Table.of(header, rows, right, title=title, legend=legend, label="tab:x")
    streamed = StreamedTable(header, right, lambda: (rows[k:k + block] for k in range(0, len(rows), block)),
                             n_rows, title=title, legend=legend, label="tab:x")
    assert "".join(streamed.text()) == whole.text()
    assert "".join(streamed.markdown()) == whole.markdown()
    assert "".join(streamed.latex()) == whole.latex()
    assert "".join(streamed.latex(caption="c", label="l", wide=True)) == whole.latex(caption="c", label="l",
                                                                                      wide=True)


def _evaluation(n_systems: int, n_topics: int, seed: int = 0) -> Evaluation:
    """Scores with holes: a system without some topics (NaN in every measure), a measure
    undefined on some topics (NaN in one), counts summed, negative and -0.0 values."""
    rng = np.random.default_rng(seed)
    systems = tuple(f"run{s}" if s != 1 else "run|1*" for s in range(n_systems))
    topics = tuple(f"q{t}" for t in range(n_topics))
    evaluation = Evaluation()
    missing = rng.random((n_systems, n_topics)) < 0.2
    for name, summary in (("AP", "mean"), ("NumRet", "sum"), ("Accuracy", "mean")):
        values = rng.random((n_systems, n_topics)).round(rng.integers(1, 6))
        if summary == "sum":
            values = np.floor(values * 1000)
        if name == "Accuracy":
            values[rng.random(values.shape) < 0.3] = np.nan
            values[values < 0.1] = -0.0
            values[values > 0.9] *= -3
        values[missing] = np.nan
        evaluation[name] = ScoreMatrix(values, systems, topics, name, over_topics=summary)
    return evaluation


def _reference_table(evaluation: Evaluation, digits: int = 4) -> Table:
    """The per-topic table as one Table, cell by cell in a plain loop (the printer before blocks)."""
    items = list(evaluation.values())
    rows = []
    for i, system in enumerate(items[0].systems):
        for j, topic in enumerate(items[0].topics):
            values = [m.values[i, j] for m in items]
            if all(np.isnan(v) for v in values):
                continue
            rows.append([Cell(system), Cell(topic), *(Cell("-") if np.isnan(v) else
                                                       number_cell(v, digits, whole=m.over_topics == "sum")
                                                       for m, v in zip(items, values))])
    return Table.of(["system", "topic", *evaluation], rows, [False, False] + [True] * len(items),
                    title=f"Scores per system and topic ({', '.join(evaluation)})", label="tab:per-topic")


@pytest.mark.parametrize("n_systems, n_topics", [(1, 0), (1, 1), (3, 45), (2, 130)])
def test_per_topic_scores_print_a_block_at_a_time_as_one_table(monkeypatch, n_systems, n_topics):
    monkeypatch.setattr(PerTopicScores, "ROWS_PER_BLOCK", 4)
    monkeypatch.setattr(PerTopicScores, "COLUMN_ROWS", 4)
    evaluation = _evaluation(n_systems, n_topics)
    result = evaluation.per_topic_result()
    table = _reference_table(evaluation)
    assert result.display_table(4) == table
    assert result.format("table") == table.text()
    assert result.format("markdown") == table.markdown()
    label = result.latex_label(table)  # tab:per-topic and the measures: two tables of a paper differ
    assert result.format("latex") == table.latex(label=label)
    assert "".join(result.format_chunks("latex", 2)) == _reference_table(evaluation, 2).latex(label=label)
    assert result.to_latex(columns=["system", "AP"]) == table.select(["system", "AP"]).latex(label=label)
    assert "".join(result.format_chunks("tsv")) == result.to_tsv()


@pytest.mark.parametrize("fmt", ["tsv", "csv", "json", "jsonl"])
@pytest.mark.parametrize("rows", [1, 5, 1000])
@pytest.mark.parametrize("per_topic", [True, False])
def test_score_chunks_write_the_whole_frame(fmt, rows, per_topic):
    scores = _evaluation(3, 17)
    scores["weird"] = ScoreMatrix(np.full((3, 17), np.nan), scores.systems, scores["AP"].topics, 'a,"b"\tc')
    expected = write_frame(scores_to_frame(scores, per_topic=per_topic), None, fmt)
    assert "".join(score_chunks(scores, fmt, per_topic=per_topic, rows=rows)) == expected
    empty = {"AP": ScoreMatrix(np.full((2, 3), np.nan), ("a", "b"), ("1", "2", "3"), "AP")}
    assert "".join(score_chunks(empty, fmt, rows=rows)) == write_frame(scores_to_frame(empty), None, fmt)


@pytest.mark.filterwarnings("ignore:run 'ICT-CKNRM_B' answers")
@pytest.mark.parametrize("fmt", ["table", "markdown", "latex", "tsv", "csv", "json", "jsonl", "trec_eval"])
def test_eval_prints_what_the_whole_printers_print(reference_data, capsys, monkeypatch, tmp_path, fmt):
    """``irstats eval -q`` on DL 2019 runs (one of them missing a third of the topics), printed in
    pieces, is the text of the result's printer (or the frame's, or trec_eval's layout) whole."""
    import gzip

    import irstats
    from irstats.trec_eval import printer
    from tests import reference_output

    monkeypatch.setattr(PerTopicScores, "ROWS_PER_BLOCK", 7)
    monkeypatch.setattr(PerTopicScores, "COLUMN_ROWS", 7)
    monkeypatch.setattr(printer, "BLOCK_LINES", 5)
    folder = reference_data / DL19
    partial = tmp_path / "partial.run"
    lines = gzip.decompress((folder / "runs" / "ICT-CKNRM_B.run.gz").read_bytes()).decode().splitlines(True)
    partial.write_text("".join(line for line in lines if int(line.split()[0]) % 3))
    runs = [folder / "runs" / "ICT-BERT2.run.gz", partial]
    qrels = folder / "qrels.dl19-passage.txt"
    measures = ["AP", "NumRet", "nDCG@10", "Rprec"]
    scores = irstats.evaluate(qrels, runs, measures)
    names, kinds = printer.printed_names(tuple(scores))
    whole = {"trec_eval": reference_output.trec_eval_layout(
        scores.systems, scores["AP"].topics,
        [(name, kind.name, m.values.tolist()) for name, kind, m in zip(names, kinds, scores.values())], True)}
    table = _reference_table(scores)
    whole.update({"table": table.text(), "markdown": table.markdown(),
                  "latex": table.latex(label="tab:per-topic-ap-numret-ndcg-10-rprec")})
    whole.update({f: write_frame(scores_to_frame(scores, per_topic=True), None, f)
                  for f in ("tsv", "csv", "json", "jsonl")})
    code, out, err = run_cli(["eval", qrels, *runs, "-q", "--format", fmt, *sum((["-m", m] for m in measures), [])],
                             capsys)
    assert code == 0, err
    assert out == whole[fmt]
    target = tmp_path / f"out.{fmt}"
    code, _, err = run_cli(["eval", qrels, *runs, "-q", "--format", fmt, "-o", target,
                            *sum((["-m", m] for m in measures), [])], capsys)
    assert code == 0, err
    # the same, but a LaTeX float is labelled by the file's name (tab:out)
    assert target.read_text() == (table.latex(label="tab:out") if fmt == "latex" else whole[fmt])


# ----------------------------------------------------------------------------- a run read a block of topics at a time

needs_block_reader = pytest.mark.skipif(
    not __import__("irstats.extension", fromlist=["available"]).available()
    or not hasattr(__import__("irstats.extension", fromlist=["module"]).module, "partition_lines"),
    reason="the compiled reader reads runs a block at a time (irstats._ingest with partition_lines)")


@pytest.fixture
def small_blocks(monkeypatch):
    """Every run streamed, in blocks of a few kB and tensors of a few topics: many blocks, and
    the run sorted by blocks deals its parts again. Returns the calls to the sort by blocks."""
    from irstats import ingest

    monkeypatch.setattr(ingest, "STREAM_BYTES", 0)
    monkeypatch.setattr(ingest, "BLOCK_BYTES", 20_000)
    monkeypatch.setattr(ingest, "BLOCK_CELLS", 4000)
    dealt = []
    deal = ingest._deal

    def spy(blocks, size, folder, seed):
        dealt.append(seed)
        return deal(blocks, size, folder, seed)

    monkeypatch.setattr(ingest, "_deal", spy)
    return dealt


def _whole(monkeypatch, qrels, runs, measures, **options):
    """The in-memory evaluation (every run read whole), warnings kept."""

    from irstats import ingest

    with monkeypatch.context() as m, warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        m.setattr(ingest, "STREAMING", False)
        return irstats_evaluate(qrels, runs, measures, **options), [str(w.message) for w in seen]


def _streamed(qrels, runs, measures, **options):

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        return irstats_evaluate(qrels, runs, measures, **options), [str(w.message) for w in seen]


def irstats_evaluate(qrels, runs, measures, **options):
    import irstats

    return irstats.evaluate(qrels, runs, measures, **options)


def _assert_same(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for name in a:
        assert a[name].topics == b[name].topics and a[name].systems == b[name].systems, name
        np.testing.assert_array_equal(a[name].values, b[name].values, err_msg=name)  # bit for bit, NaN where NaN


@needs_block_reader
def test_every_dl19_run_streamed_scores_all_trec_as_read_whole(reference_data, monkeypatch, small_blocks):
    """The DL 2019 runs, each read in blocks of ~20 kB and scored ~4 topics at a time, give
    every all_trec score of the run read whole, to the last bit."""
    from irstats.measures.registry import expand_measures

    folder = reference_data / DL19
    names = expand_measures(["all_trec"])
    runs = sorted((folder / "runs").glob("*.run.gz"))
    assert len(runs) == len(DL19_RUNS)
    for run in runs:
        whole, whole_warnings = _whole(monkeypatch, folder / "qrels.dl19-passage.txt", [run], names)
        streamed, streamed_warnings = _streamed(folder / "qrels.dl19-passage.txt", [run], names)
        _assert_same(whole, streamed)
        assert streamed_warnings == whole_warnings
    assert not small_blocks  # DL 2019 runs are written topic by topic: never sorted by blocks


def _shuffled(source, target, seed: int, outside: int = 0) -> None:
    """``source``'s lines (gzip or not) in random order, with ``outside`` lines of topics the qrels lack."""
    import gzip
    import random

    data = source.read_bytes()
    lines = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("latin-1").splitlines(True)
    tag = lines[0].split()[5]
    lines += [f"9{k % 7}99 Q0 doc{k} 1 {k}.5 {tag}\n" for k in range(outside)]
    random.Random(seed).shuffle(lines)
    target.write_bytes("".join(lines).encode("latin-1"))


@needs_block_reader
@pytest.mark.parametrize("options", [{}, {"complete": True}, {"judged_only": True, "depth": 50},
                                     {"rel_level": 2, "depth": None}])
def test_shuffled_runs_are_sorted_by_blocks_and_score_as_read_whole(reference_data, monkeypatch, tmp_path,
                                                                    small_blocks, options):
    """DL 2019 runs with their lines shuffled (and topics the qrels lack): the topics come back
    after others, so the run is sorted by blocks on disk; every all_trec score and warning is
    that of the run read whole, and of the plain-loop reference for the usual measures."""
    from irstats.measures.registry import expand_measures
    from tests.reference import reference_evaluate

    folder = reference_data / DL19
    qrels = folder / "qrels.dl19-passage.txt"
    names = expand_measures(["all_trec"])
    for k, name in enumerate(["TUA1-1", "ICT-BERT2", "runid2"]):
        run = tmp_path / f"{name}.run"
        _shuffled(folder / "runs" / f"{name}.run.gz", run, seed=k, outside=40)
        whole, whole_warnings = _whole(monkeypatch, qrels, [run], names, **options)
        streamed, streamed_warnings = _streamed(qrels, [run], names, **options)
        _assert_same(whole, streamed)
        assert streamed_warnings == whole_warnings and any("not in the qrels" in w for w in streamed_warnings)
        for measure in ("AP", "nDCG@10", "P@10", "RR", "R@1000"):
            expected = reference_evaluate(str(qrels), str(run), measure, **options)
            got = dict(zip(streamed[measure].topics, streamed[measure].values[0]))
            assert got.keys() == expected.keys()
            for topic, value in expected.items():
                assert got[topic] == pytest.approx(value, abs=1e-12), (name, measure, topic)
    assert 0 in small_blocks and any(seed > 0 for seed in small_blocks)  # dealt, and a large part dealt again
    assert not list(tmp_path.parent.glob("irstats-run-*"))


@needs_block_reader
def test_a_streamed_run_is_never_read_whole(monkeypatch, tmp_path, small_blocks):
    """Streaming reads the file a block at a time: reading it whole (what the in-memory path
    does) is not needed, for a plain and a gzip run, sorted or not."""
    import gzip

    from irstats.io import trec

    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"t{t} 0 d{d} {(t + d) % 3}\n" for t in range(300) for d in range(0, 40, 4)))
    text = "".join(f"t{t} Q0 d{d} {d + 1} {100 - d / 7:.4f} tag\n" for t in range(300) for d in range(60))
    runs = [tmp_path / "plain.txt", tmp_path / "packed.gz"]
    runs[0].write_text(text)
    runs[1].write_bytes(gzip.compress(text.encode()))
    whole, _ = _whole(monkeypatch, qrels, runs, ["AP", "nDCG@10", "NumRet"])
    read_bytes = trec.read_bytes

    def refuse(path):
        assert str(path) not in map(str, runs), "a streamed run read whole"
        return read_bytes(path)

    monkeypatch.setattr(trec, "read_bytes", refuse)
    streamed, _ = _streamed(qrels, runs, ["AP", "nDCG@10", "NumRet"])
    _assert_same(whole, streamed)


@needs_block_reader
@pytest.mark.parametrize("bad, code, message", [
    ("t250 Q0 d999 4 1.5 tag extra\n", 0, None),             # a seventh field: the careful reader takes it
    ("# a comment\n", 0, None),                               # so does it a comment
    ("t250 Q0 d999 4 1.5 other\n", 0, ":{line}: run tag differs"),  # another tag: a warning naming the line
    ("t250 Q0 d0 4 1.5 tag\n", 2, ":{line}: document 'd0' appears twice"),  # an error naming the line
    ("t250 Q0 d999 4 x tag\n", 2, ":{line}:"),                # not a number
])
def test_what_the_block_reader_does_not_take_is_read_whole(monkeypatch, tmp_path, capsys, small_blocks, bad, code,
                                                           message):
    """A line deep in a streamed run that the compiled reader does not take as it is: the run is
    read whole by the careful reader, which evaluates it or names the file and line — exactly as
    without streaming (the command's output, error and exit code alike)."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"t{t} 0 d{d} {(t + d) % 3}\n" for t in range(300) for d in range(0, 40, 4)))
    lines = [f"t{t} Q0 d{d} {d + 1} {100 - d / 7:.4f} tag\n" for t in range(300) for d in range(60)]
    at = 250 * 60 + 10
    lines.insert(at, bad)
    run = tmp_path / "run.txt"
    run.write_text("".join(lines))
    from irstats import ingest

    def command():
        with warnings.catch_warnings():  # each run warns afresh (not once per process)
            return run_cli(["eval", qrels, run, "-q", "--format", "tsv"], capsys)

    streamed = command()
    with monkeypatch.context() as m:
        m.setattr(ingest, "STREAMING", False)
        whole = command()
    assert streamed == whole
    assert streamed[0] == code
    if message is not None:
        assert f"{run}{message.format(line=at + 1)}" in streamed[2] and len(streamed[2].splitlines()) == 1


@needs_block_reader
@pytest.mark.parametrize("flags", [[], ["-c"], ["-J", "-M", "100"]])
def test_the_trec_eval_drop_in_prints_the_same_bytes_streamed(reference_data, monkeypatch, capfdbinary, small_blocks,
                                                              flags):
    """``irstats trec_eval -q -m all_trec`` scores through the same engine: DL 2019 runs read a
    block of topics at a time print trec_eval's layout byte for byte as when read whole."""
    from irstats import ingest
    from irstats.cli.main import main

    folder = reference_data / DL19

    def output(run) -> bytes:
        try:
            main(["trec_eval", "-q", "-m", "all_trec", *flags, str(folder / "qrels.dl19-passage.txt"), str(run)])
        except SystemExit as exc:
            assert not exc.code
        return capfdbinary.readouterr().out

    for run in sorted((folder / "runs").glob("*.run.gz"))[::6]:
        streamed = output(run)
        with monkeypatch.context() as m:
            m.setattr(ingest, "STREAMING", False)
            assert output(run) == streamed and streamed.count(b"\n") > 1000


@needs_block_reader
@pytest.mark.parametrize("invocation", [
    {"per_topic": True, "measures": ["all_trec"]},
    {"per_topic": True, "complete": True, "measures": ["all_trec", "relstring"]},
    {"per_topic": True, "judged_only": True, "depth": 50, "rel_level": 2, "measures": ["official"]}])
@pytest.mark.parametrize("shuffled", [False, True])
def test_the_drop_in_streams_a_run_and_prints_what_it_prints_read_whole(reference_data, monkeypatch, tmp_path,
                                                                        small_blocks, invocation, shuffled):
    """``irstats trec_eval -q`` reads a large run a block of topics at a time, as ``irstats eval``
    does (issue 36: bounded memory), and prints the bytes of the run read whole (itself held to
    trec_eval's output by the conformance tests); a run whose topics come back is sorted by blocks."""
    from irstats import ingest
    from irstats.trec_eval.output import trec_eval_output

    folder = reference_data / DL19
    qrels = folder / "qrels.dl19-passage.txt"
    invocation = dict(invocation)
    measures = invocation.pop("measures")
    streamed_calls = []
    streamed = ingest.streamed_judgments

    def spy(*args, **kwargs):
        streamed_calls.append(args[3])
        yield from streamed(*args, **kwargs)

    monkeypatch.setattr(ingest, "streamed_judgments", spy)
    for name in ("ICT-BERT2.run.gz", "ICT-CKNRM_B.run.gz"):
        run = folder / "runs" / name
        if shuffled:
            run = tmp_path / f"{name}.shuffled"
            _shuffled(folder / "runs" / name, run, seed=len(name), outside=30)
        with monkeypatch.context() as m:
            m.setattr(ingest, "STREAMING", False)
            whole = trec_eval_output(qrels, run, measures, **invocation)
        assert not streamed_calls
        assert trec_eval_output(qrels, run, measures, **invocation) == whole
        assert streamed_calls  # (read a block of topics at a time)
        streamed_calls.clear()
    assert bool(small_blocks) == shuffled
