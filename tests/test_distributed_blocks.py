"""Topic blocks of one huge run on Dask (issue 26): a run that one process reads a block of topics
at a time is cut into byte ranges between topics that workers read from its path, rank and
score; a run whose topics are not contiguous is sorted by blocks on the client and its parts sent
to the workers. The scores are the single process's to the last bit (and the run read whole, and
a plain loop, agree), whatever the block size; a worker killed mid-job changes nothing; a block
that fails is one line naming the run and its byte range (exit 1), with nothing written.

The block sizes are the client's (``irstats.ingest.BLOCK_BYTES`` …): set small here, a run of a
few hundred kB is cut into dozens of blocks."""

from __future__ import annotations

import gzip
import random
import warnings

import numpy as np
import pytest

import irstats
from irstats import distributed as on_dask
from irstats import ingest
from irstats.measures.registry import all_trec
from tests.conftest import run_cli
from tests.dask_cluster import client, cluster  # noqa: F401 - the real cluster these tests run on
from tests.reference import reference_evaluate

MEASURES = [*all_trec(), "nDCG_rel", "Compat(p=0.95)", "INST", "RBP(p=0.95)", "ERR@20", "infAP"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Graded qrels over 150 topics; a run written topic by topic (60 to 400 documents a topic,
    ties, documents outside the qrels, topics the qrels lack, a topic the qrels have and the run
    lacks), the same lines shuffled, and the run gzipped."""
    folder = tmp_path_factory.mktemp("blocks")
    rng = random.Random(26)
    with open(folder / "qrels", "w") as qrels:
        for t in range(150):
            for d in range(0, 500, 2):
                qrels.write(f"q{t} 0 d{d} {rng.choice([-1, 0, 0, 1, 2, 3])}\n")
    lines = []
    for t in range(152):
        if t == 7:  # judged, not retrieved: -c scores it 0
            continue
        topic = f"q{t}" if t < 150 else f"x{t}"  # x150, x151: outside the qrels
        for k in range(rng.randrange(60, 400)):
            lines.append(f"{topic} Q0 d{rng.randrange(700)}-{k} {k + 1} {rng.choice([9, 8, 7]) - k / 1000:.3f} run\n"
                         if k % 3 else f"{topic} Q0 d{(k * 7) % 500} {k + 1} {10 - k / 1000:.3f} run\n")
    # the same document twice in a topic would be an error: keep the first of each (topic, docno)
    seen, kept = set(), []
    for line in lines:
        key = tuple(line.split()[:3:2])
        if key not in seen:
            seen.add(key)
            kept.append(line)
    (folder / "run").write_text("".join(kept))
    shuffled = kept[:]
    rng.shuffle(shuffled)
    (folder / "shuffled").write_text("".join(shuffled))
    (folder / "packed.gz").write_bytes(gzip.compress("".join(kept).encode()))
    return folder


@pytest.fixture
def small_blocks(monkeypatch):
    """Every run cut into blocks of 20 kB (the client's constants: the tasks read what it cut)."""
    monkeypatch.setattr(ingest, "STREAM_BYTES", 0)
    monkeypatch.setattr(ingest, "BLOCK_BYTES", 20_000)
    monkeypatch.setattr(ingest, "BLOCK_CELLS", 4000)


@pytest.fixture
def labels(monkeypatch):
    """The labels of the tasks submitted (what the job cut the runs into)."""
    submitted = []
    submit = on_dask.Job.submit

    def spy(self, label, function, *args, **kwargs):
        submitted.append(label)
        return submit(self, label, function, *args, **kwargs)

    monkeypatch.setattr(on_dask.Job, "submit", spy)
    return submitted


def same_scores(a, b):
    assert list(a) == list(b)
    for name in a:
        assert a[name].systems == b[name].systems and a[name].topics == b[name].topics, name
        np.testing.assert_array_equal(a[name].values, b[name].values, err_msg=name)  # every bit, NaN where NaN


def _evaluate(qrels, runs, measures, **options):
    """The scores and the warnings' messages."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        return irstats.evaluate(qrels, runs, measures, **options), [str(w.message) for w in seen]


def _single(monkeypatch, qrels, runs, measures, **options):
    """One process, the run read a block of topics at a time and read whole: the references."""
    streamed = _evaluate(qrels, runs, measures, **options)
    with monkeypatch.context() as m:
        m.setattr(ingest, "STREAMING", False)
        whole = _evaluate(qrels, runs, measures, **options)
    same_scores(streamed[0], whole[0])
    assert streamed[1] == whole[1] and any("not in the qrels" in w for w in whole[1])
    return streamed


@pytest.mark.parametrize("name", ["run", "shuffled"])
@pytest.mark.parametrize("options", [{}, {"complete": True}, {"judged_only": True, "depth": 50}])
def test_a_run_cut_into_blocks_scores_as_one_process(data, client, monkeypatch, small_blocks, labels, name, options):
    qrels, run = data / "qrels", data / name
    reference, said = _single(monkeypatch, qrels, [run], MEASURES, **options)
    on_cluster, told = _evaluate(qrels, [run], MEASURES, client=client, **options)
    same_scores(on_cluster, reference)
    assert told == said
    ranges = [label for label in labels if ", bytes " in label]
    parts = [label for label in labels if "sorted by topic" in label]
    if name == "run":
        assert len(ranges) > 20 and not parts  # cut into many blocks: dozens of tasks
    else:
        assert len(parts) > 5 and not ranges  # not contiguous: sorted by blocks, its parts sent
    for measure in ("AP", "nDCG@10", "P@10", "R@1000"):  # and a plain loop agrees
        expected = reference_evaluate(str(qrels), str(run), measure, **{k: v for k, v in options.items()})
        got = dict(zip(on_cluster[measure].topics, on_cluster[measure].values[0]))
        assert got.keys() == expected.keys()
        for topic, value in expected.items():
            assert got[topic] == pytest.approx(value, abs=1e-12), (measure, topic)


def test_a_run_not_contiguous_after_all_is_sorted_then(data, client, monkeypatch, small_blocks, labels):
    """A topic in two ranges that the look at the ranges' first bytes missed: the workers' topics
    tell, and the run is sorted by blocks and scored again — the same scores and warnings."""
    qrels, run = data / "qrels", data / "shuffled"
    reference, said = _single(monkeypatch, qrels, [run], MEASURES)
    monkeypatch.setattr(ingest, "split_topics", lambda source, ranges: False)
    on_cluster, told = _evaluate(qrels, [run], MEASURES, client=client)
    same_scores(on_cluster, reference)
    assert told == said
    assert sum(", bytes " in label for label in labels) > 20 and sum("sorted by topic" in label for label in labels) > 5


def test_the_block_size_changes_nothing(data, client, monkeypatch, small_blocks):
    qrels, runs = data / "qrels", [data / "run", data / "packed.gz"]
    reference, said = _single(monkeypatch, qrels, runs, MEASURES)
    for block_bytes, cells in ((5_000, 300), (64_000, 1 << 20), (1 << 30, 1 << 20)):
        monkeypatch.setattr(ingest, "BLOCK_BYTES", block_bytes)
        monkeypatch.setattr(ingest, "BLOCK_CELLS", cells)
        on_cluster, told = _evaluate(qrels, runs, MEASURES, client=client)
        same_scores(on_cluster, reference)
        assert told == said


def test_eval_with_workers_or_a_scheduler_prints_the_single_process_output(data, cluster, capsys, small_blocks,
                                                                          labels):
    def command(*extra):
        with warnings.catch_warnings():  # each command warns afresh (not once per process)
            return run_cli([*args, *extra], capsys)

    for name in ("run", "shuffled"):
        args = ["eval", data / "qrels", data / name, "-q", "--format", "tsv", "-m", "all_trec", "-m", "nDCG_rel"]
        local = command()
        assert local[0] == 0 and local[1].count("\n") > 150 * 20 and local[2].count("\n") == 2
        assert command("--scheduler", cluster.scheduler_address) == local
        assert command("--workers", "2") == local
    assert sum(", bytes " in label for label in labels) > 2 * 20 and sum("sorted" in label for label in labels) > 10


def test_a_worker_killed_mid_job_changes_nothing(data, client, monkeypatch, small_blocks, tmp_path):
    """The third task to start kills its own worker process; Dask runs its blocks again elsewhere."""
    started = tmp_path / "started"
    original = on_dask._run_task

    def killing(function, *args):  # sent by value to the workers (a local function)
        import os
        import signal

        with open(started, "a") as fh:
            fh.write(".")
        if started.stat().st_size == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return original(function, *args)

    qrels, run = data / "qrels", data / "run"
    reference, _ = _single(monkeypatch, qrels, [run], MEASURES)
    monkeypatch.setattr(on_dask, "_run_task", killing)
    same_scores(_evaluate(qrels, [run], MEASURES, client=client)[0], reference)
    assert started.stat().st_size > 20
    client.wait_for_workers(2, timeout=30)


def test_a_bad_line_deep_in_a_run_is_the_single_process_error(data, cluster, capsys, small_blocks, tmp_path):
    """A range the compiled reader does not take sends the run whole to a worker, which reads it
    as one process does: the same line naming the file and line, exit 2."""
    lines = (data / "run").read_text().splitlines(True)
    fields = lines[20_000].split()
    lines[20_000] = " ".join(fields[:4] + ["abc", fields[5]]) + "\n"
    bad = tmp_path / "bad.run"
    bad.write_text("".join(lines))
    args = ["eval", data / "qrels", bad, "-q", "--format", "tsv"]
    local = run_cli(args, capsys)
    assert local[0] == 2 and local[2].count("\n") == 1 and f"{bad}:20001:" in local[2]
    assert run_cli([*args, "--scheduler", cluster.scheduler_address], capsys) == local


def test_a_failing_block_is_one_line_and_nothing_is_written(data, cluster, capsys, small_blocks, monkeypatch,
                                                            tmp_path):
    """A block that fails on its worker (here an I/O error reading the range at byte 40,000 or so)
    ends the command with one line naming the run and the block's byte range, exit 1, no output."""
    original = on_dask._run_task

    def failing(function, *args):
        if function.__name__ == "_score_range" and args[4][0] <= 40_000 < args[4][1]:
            raise OSError(5, "Input/output error")
        return original(function, *args)

    monkeypatch.setattr(on_dask, "_run_task", failing)
    target = tmp_path / "out.tsv"
    code, out, err = run_cli(["eval", data / "qrels", data / "run", "-q", "--format", "tsv", "-o", target,
                              "--scheduler", cluster.scheduler_address], capsys)
    assert (code, out, err.count("\n")) == (1, "", 1), err
    assert err.startswith("irstats: error: run 'run', bytes ") and f" of {data / 'run'} failed on the Dask cluster: " \
        "OSError: [Errno 5] Input/output error" in err, err
    start, end = (int(x.replace(",", "")) for x in err.split("bytes ")[1].split(" of ")[0].split("–"))
    assert start <= 40_000 < end
    assert not target.exists() and list(tmp_path.iterdir()) == []


def test_a_run_changed_under_the_workers_is_an_error(data, client, small_blocks, tmp_path, monkeypatch):
    """The ranges were cut in another file than the workers read: one error naming the run, not
    wrong scores."""
    run = tmp_path / "run"
    run.write_bytes((data / "run").read_bytes())
    cut = ingest.topic_ranges

    def cut_then_change(source, size, block_bytes=None):
        ranges = cut(source, size, block_bytes)
        with open(source, "a") as fh:
            fh.write("q3 Q0 late 999 0.5 run\n")
        return ranges

    monkeypatch.setattr(ingest, "topic_ranges", cut_then_change)
    with pytest.raises(on_dask.ClusterError, match=r"run 'run', bytes 0–[0-9,]+ of .*: not the file the client cut"):
        irstats.evaluate(data / "qrels", [run], ["AP"], client=client)


def test_ranges_are_cut_between_topics(data):
    """No cluster: the cuts fall where a line of another topic begins, the ranges cover the file,
    and the look at their first bytes tells a shuffled run from one written topic by topic."""
    text = (data / "run").read_bytes()
    ranges = ingest.topic_ranges(str(data / "run"), len(text), 20_000)
    assert len(ranges) > 20 and ranges[0][0] == 0 and ranges[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    for start, _ in ranges[1:]:
        before = text[:start].splitlines()[-1].split()[0]
        assert text[start - 1:start] == b"\n" and text[start:].split(None, 1)[0] != before
    topics = [{line.split()[0] for line in text[a:b].splitlines()} for a, b in ranges]
    assert sum(map(len, topics)) == len(set().union(*topics))  # no topic in two ranges
    assert not ingest.split_topics(str(data / "run"), ranges)
    shuffled = (data / "shuffled").read_bytes()
    assert ingest.split_topics(str(data / "shuffled"), ingest.topic_ranges(str(data / "shuffled"), len(shuffled),
                                                                            20_000))
    assert ingest.topic_ranges(str(data / "packed.gz"), (data / "packed.gz").stat().st_size, 20_000) is None


def test_the_client_builds_no_hash_table_of_the_qrels(data, client, monkeypatch, small_blocks, labels):
    """The client cuts a run into ranges without the qrels' hash table: the workers judge the
    blocks (issue 36: 0.37 s of the client's 1.4 s CPU on a 2.4 GB run). Where a worker cannot
    build the table, it declines the blocks and the run is read whole, as after a line the
    compiled reader declines (test_a_bad_line_deep_in_a_run_is_the_single_process_error)."""
    built = []
    build = ingest._build_table
    monkeypatch.setattr(ingest, "_build_table", lambda *a: built.append(1) or build(*a))
    qrels, run = data / "qrels", data / "run"
    reference, _ = _single(monkeypatch, qrels, [run], ["AP", "P@10"])
    assert built  # one process builds it
    built.clear()
    on_cluster, _ = _evaluate(qrels, [run], ["AP", "P@10"], client=client)
    same_scores(on_cluster, reference)
    assert not built and len([label for label in labels if ", bytes " in label]) > 20
