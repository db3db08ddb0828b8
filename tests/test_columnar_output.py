"""Output at the speed of the engine (issue 36): per-topic output in every format is laid out a
column at a time — numbers rounded by numpy, lines written by polars — and must print what the
plain, line-at-a-time printers print, byte for byte. The references: Python's own formatting
(``f"{v:.4f}"``, ``json.dumps``), the line-by-line trec_eval layout of tests/reference_output.py
and the whole-table printer (:class:`irstats.render.Table`, tests/test_streaming.py). And a
guard that no Python call per line comes back: the Python lines executed while printing grow
with the number of blocks, not of lines.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from irstats.evaluation import Evaluation, PerTopicScores
from irstats.render import fixed_column
from irstats.scores import ScoreMatrix, json_records, score_chunks, scores_to_frame
from irstats.trec_eval import kinds, printer
from tests import reference_output


def columnar(monkeypatch) -> None:
    """Every output laid out a column at a time, however small (a small one is otherwise laid
    out a line at a time, to start without a frame library: printer.SMALL_LINES)."""
    from irstats.trec_eval import output

    monkeypatch.setattr(printer, "SMALL_LINES", -1)
    monkeypatch.setattr(output, "SMALL_LINES", -1)
    monkeypatch.setattr(PerTopicScores, "SMALL_CELLS", -1)


@pytest.fixture(params=["as chosen", "columns"], autouse=True)
def layout(request, monkeypatch):
    """Each test twice: with the layout each size chooses, and a column at a time whatever the size."""
    if request.param == "columns":
        columnar(monkeypatch)
    return request.param


def _awkward_values(rng: np.random.Generator) -> np.ndarray:
    """Values whose fixed-decimal text is easy to get wrong: exact ties at the 4th decimal (odd
    multiples of 1/32), their neighbours one ulp away, -0.0 and tiny negatives (``-0.0000``),
    NaN and infinities, huge and subnormal values, and plain random ones."""
    ties = np.arange(-3000, 3000) / 32
    return np.concatenate([
        rng.random(20_000), ties, np.nextafter(ties, -np.inf), np.nextafter(ties, np.inf),
        np.arange(0, 20_001) / 10_000, -rng.random(500) * 1e-5, rng.normal(0, 1e6, 500),
        [0.0, -0.0, np.nan, np.inf, -np.inf, 1e300, -1e300, 5e-324, 0.00005, 0.49995, 1e11, 2.5, 3.5, -2.5]])


@pytest.mark.parametrize("digits", [0, 1, 2, 4, 6])
def test_fixed_column_is_pythons_fixed_decimals(digits):
    values = _awkward_values(np.random.default_rng(digits))
    assert fixed_column(values, digits).to_list() == [f"{v:.{digits}f}" for v in values.tolist()]


def test_an_output_kinds_column_is_printfs_text_of_each_value():
    values = _awkward_values(np.random.default_rng(7))
    assert kinds.FLOAT.column(values).to_list() == [reference_output.value_text(v) for v in values.tolist()]
    assert [kinds.FLOAT.text(v) for v in values.tolist()] == [reference_output.value_text(v) for v in values.tolist()]
    counts = np.rint(values[np.isfinite(values) & (np.abs(values) < 1e15)])
    assert kinds.COUNT.column(counts).to_list() == [str(int(v)) for v in counts.tolist()]


def _evaluation(n_systems: int, n_topics: int, seed: int = 0) -> Evaluation:
    """Scores with NaN (topics a run lacks: every measure; a measure undefined on some topics),
    ties, -0.0, counts and a measure whose name is longer than trec_eval's 22-character field.
    Values are multiples of 1/64, so that every mean is exact however it is summed."""
    rng = np.random.default_rng(seed)
    systems = tuple(f"run{s}" for s in range(n_systems))
    topics = tuple(f"q{t}" for t in range(n_topics))
    missing = rng.random((n_systems, n_topics)) < 0.15
    evaluation = Evaluation()
    for name, summary in (("AP", "mean"), ("NumRet", "sum"), ("Q(beta=1,norm=min)@1000", "mean"),
                          ("P@10", "mean")):
        values = rng.integers(0, 65, (n_systems, n_topics)) / 64
        if summary == "sum":
            values = rng.integers(0, 2000, (n_systems, n_topics)).astype(float)
        if name == "P@10":
            values[rng.random(values.shape) < 0.3] = np.nan
            values[values < 0.1] = -0.0
        values[missing] = np.nan
        evaluation[name] = ScoreMatrix(values, systems, topics, name, over_topics=summary)
    return evaluation


def _reference_trec_eval(evaluation: Evaluation, per_topic: bool) -> str:
    names, kinds = printer.printed_names(tuple(evaluation))
    columns = [(name, kind.name, m.values.tolist()) for name, kind, m in zip(names, kinds, evaluation.values())]
    return reference_output.trec_eval_layout(evaluation.systems, next(iter(evaluation.values())).topics, columns,
                                             per_topic)


@pytest.mark.parametrize("n_systems, n_topics", [(1, 1), (3, 45), (2, 130), (5, 0)])
@pytest.mark.parametrize("block_lines", [1, 7, 1000, printer.BLOCK_LINES])
@pytest.mark.parametrize("per_topic", [True, False])
def test_trec_eval_layout_is_the_line_by_line_printers(n_systems, n_topics, block_lines, per_topic):
    evaluation = _evaluation(n_systems, n_topics)
    expected = _reference_trec_eval(evaluation, per_topic)
    assert "".join(printer.score_chunks(evaluation, per_topic, block_lines=block_lines)) == expected
    assert printer.format_scores(evaluation, per_topic) == expected


def test_json_records_are_json_dumps_of_each_row():
    import polars as pl

    values = _awkward_values(np.random.default_rng(3))[:5000]
    frame = pl.DataFrame({"system": [f"r\"{i % 3}\\é" for i in range(len(values))],
                          "topic": [f"t{i % 17}\u2028" for i in range(len(values))],
                          "measure": ["AP"] * len(values), "value": values})
    rows = frame.to_dicts()
    assert json_records(frame, "jsonl") == "".join(json.dumps(r, allow_nan=True) + "\n" for r in rows)
    assert json_records(frame, "json") == json.dumps(rows, indent=1, allow_nan=True)[2:-2]


def _python_lines(call) -> int:
    """Python source lines executed by ``call()`` (every frame traced: a comprehension or loop
    over lines executes its body once per line, a columnar printer once per block)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


FORMATS = ["trec_eval", "tsv", "csv", "jsonl", "json", "table", "markdown", "latex"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_python_call_per_line_comes_back(monkeypatch, fmt):
    """Eight times the per-topic lines (one block either way) must not take eight times the
    Python: at most 1.5 times the lines executed (a per-line path takes about eight). (LaTeX's
    floats of LATEX_ROWS rows, each with its own header, are one float here.)"""
    from irstats import render_stream

    monkeypatch.setattr(PerTopicScores, "COLUMN_ROWS", 1 << 20)
    monkeypatch.setattr(render_stream, "LATEX_ROWS", 1 << 20)
    columnar(monkeypatch)  # the column-at-a-time path at both sizes (a small output is laid out a line at a time)

    def printed(evaluation: Evaluation) -> str:
        if fmt == "trec_eval":
            return "".join(printer.score_chunks(evaluation, True))
        if fmt in ("table", "markdown", "latex"):
            return "".join(evaluation.view(True).format_chunks(fmt))
        return "".join(score_chunks(evaluation, fmt, per_topic=True))

    small, large = _evaluation(1, 300, seed=1), _evaluation(1, 2400, seed=1)
    printed(small)  # imports and first calls out of the count
    few, many = _python_lines(lambda: printed(small)), _python_lines(lambda: printed(large))
    assert many < 1.5 * few, f"{fmt}: {few} Python lines for 300 topics, {many} for 2,400"


def test_parquet_is_written_from_the_frame(tmp_path):
    """Parquet's row groups come from the tidy frame, written by polars at once (no per-line path)."""
    import polars as pl

    evaluation = _evaluation(3, 45)
    target = tmp_path / "scores.parquet"
    from irstats.scores import write_frame

    write_frame(scores_to_frame(evaluation, per_topic=True), target, "parquet")
    assert pl.read_parquet(target).equals(scores_to_frame(evaluation, per_topic=True))
