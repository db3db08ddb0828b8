"""Past one machine on Dask (issue 26): a real scheduler and two real worker processes give
exactly the single process's results — the 37 DL 2019 runs, split-half, predictive power and
the randomisation test — also when a worker dies mid-job; an unreachable scheduler is one
line and exit 1 within seconds."""

from __future__ import annotations

import logging
import subprocess
import sys
import time

import numpy as np
import pytest
from distributed import Client, LocalCluster

import irstats
from irstats import distributed as on_dask
from irstats.meta.predictive import predictive_power
from irstats.meta.splithalf import split_half
from irstats.stats.compare import compare
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def cluster():
    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                           silence_logs=logging.CRITICAL, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    yield cluster
    cluster.close()


@pytest.fixture(scope="module")
def client(cluster):
    client = Client(cluster, set_as_default=False)
    yield client
    client.close()


@pytest.fixture(scope="module")
def dl19(shared_data):
    base = shared_data / "trec-dl-2019-passage"
    return base / "qrels.dl19-passage.txt", base / "runs"


@pytest.fixture(scope="module")
def scores(dl19):
    return irstats.evaluate(dl19[0], dl19[1], ["AP", "nDCG@10", "P@10"])


def same_scores(a, b):
    assert list(a) == list(b)
    for name in a:
        assert a[name].systems == b[name].systems and a[name].topics == b[name].topics
        np.testing.assert_array_equal(a[name].values, b[name].values)  # NaN where NaN, every bit elsewhere


def test_eval_on_a_scheduler_prints_the_single_process_output(dl19, cluster, capsys):
    qrels, runs = dl19
    for extra in ([], ["-q", "--format", "tsv"]):
        local = run_cli(["eval", qrels, runs, *extra], capsys)
        remote = run_cli(["eval", qrels, runs, *extra, "--scheduler", cluster.scheduler_address], capsys)
        assert local[0] == 0 and local[1].count("\n") > 37
        assert remote == local  # exit code, stdout and the warnings on stderr


def test_eval_with_two_local_workers_prints_the_single_process_output(dl19, capsys):
    qrels, runs = dl19
    assert run_cli(["eval", qrels, runs, "--workers", "2"], capsys) == run_cli(["eval", qrels, runs], capsys)


def test_evaluate_with_a_client_gives_every_score_bit_for_bit(dl19, client):
    qrels, runs = dl19
    measures = ["AP", "nDCG@10", "RBP(p=0.8)", "Bpref", "ERR@20", "NumRet"]
    same_scores(irstats.evaluate(qrels, runs, measures, client=client), irstats.evaluate(qrels, runs, measures))
    # qrels that are not a file every worker can read are sent once to each worker instead
    frame = irstats.Collection.load(qrels).qrels
    same_scores(irstats.evaluate(frame, runs, measures, client=client), irstats.evaluate(frame, runs, measures))


def test_split_half_and_predictive_power_same_numbers(scores, client):
    done = []
    a = split_half(scores, n_splits=3000, seed=7, batch_size=400)
    b = split_half(scores, n_splits=3000, seed=7, batch_size=400, client=client, progress=done.append)
    np.testing.assert_array_equal(a.values, b.values)
    assert a.view().to_text() == b.view().to_text()
    assert sum(done) == 3 * 3000  # one progress for the job: the splits of its tasks, as in one process
    a = predictive_power(scores, n_splits=1000, seed=7, batch_size=300)
    b = predictive_power(scores, n_splits=1000, seed=7, batch_size=300, client=client)
    np.testing.assert_array_equal(a.values, b.values)
    assert a.view().to_text() == b.view().to_text()


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_compare_resampling_same_numbers(scores, client, test):
    a = compare(scores, test=test, n_resamples=2000, seed=11, batch_size=300)
    b = compare(scores, test=test, n_resamples=2000, seed=11, batch_size=300, client=client)
    assert a.frame.equals(b.frame) and a.to_text() == b.to_text()
    for name in a.pairwise:
        np.testing.assert_array_equal(a.pairwise[name].p_value, b.pairwise[name].p_value)
        np.testing.assert_array_equal(a.pairwise[name].statistic, b.pairwise[name].statistic)
    # a Generator as the seed: the same draws, and it is left in the same state
    g, h = np.random.default_rng(5), np.random.default_rng(5)
    a = compare(scores["AP"], test=test, n_resamples=1000, seed=g, batch_size=300)
    b = compare(scores["AP"], test=test, n_resamples=1000, seed=h, batch_size=300, client=client)
    assert a.frame.equals(b.frame) and g.bit_generator.state == h.bit_generator.state


def test_a_worker_killed_mid_job_changes_nothing(dl19, scores, client, monkeypatch, tmp_path):
    """The first task to run kills its own worker process; Dask runs it again elsewhere."""
    marker = str(tmp_path / "killed")
    original = on_dask._run_task

    def killing(function, *args):  # sent by value to the workers (a local function)
        import os
        import signal

        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return original(function, *args)
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(on_dask, "_run_task", killing)
    qrels, runs = dl19
    same_scores(irstats.evaluate(qrels, runs, ["AP", "nDCG@10", "P@10"], client=client), scores)
    assert (tmp_path / "killed").exists()
    (tmp_path / "killed").unlink()
    b = split_half(scores, n_splits=2000, seed=3, batch_size=250, client=client)
    np.testing.assert_array_equal(b.values, split_half(scores, n_splits=2000, seed=3).values)
    assert (tmp_path / "killed").exists()
    client.wait_for_workers(2, timeout=30)


def test_a_bad_run_is_the_single_process_error(dl19, cluster, capsys, tmp_path):
    import gzip

    qrels, runs = dl19
    lines = gzip.decompress(sorted(runs.glob("*.run.gz"))[0].read_bytes()).decode().splitlines()
    fields = lines[99].split("\t")
    lines[99] = "\t".join(fields[:4] + ["abc"] + fields[5:])
    (tmp_path / "bad.run").write_text("\n".join(lines) + "\n")
    local = run_cli(["eval", qrels, tmp_path / "bad.run"], capsys)
    remote = run_cli(["eval", qrels, tmp_path / "bad.run", "--scheduler", cluster.scheduler_address], capsys)
    assert local[0] == 2 and "bad.run:100:" in local[2] and remote == local


def test_a_task_that_fails_otherwise_is_one_error_naming_its_batch(scores, client, monkeypatch):
    monkeypatch.setattr(on_dask, "_run_task", lambda function, *args: 1 / 0)
    with pytest.raises(on_dask.ClusterError, match=r"split-half of AP, splits 0–99 failed on the Dask cluster: "
                                                   r"ZeroDivisionError"):
        split_half(scores["AP"], n_splits=500, batch_size=100, client=client)


def test_an_unreachable_scheduler_is_one_line_and_exit_1(dl19):
    qrels, runs = dl19
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "irstats", "eval", str(qrels), str(runs), "--scheduler",
                           "tcp://127.0.0.1:1"], capture_output=True, text=True, timeout=60)
    assert time.monotonic() - started < on_dask.CONNECT_TIMEOUT + 10
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(
        "irstats: error: cannot reach the Dask scheduler at tcp://127.0.0.1:1: "), done.stderr


def test_without_a_client_dask_is_never_imported(dl19):
    code = ("import sys, irstats; from irstats.meta.splithalf import split_half; "
            f"s = irstats.evaluate({str(dl19[0])!r}, {str(dl19[1])!r}, ['AP']); split_half(s, n_splits=50); "
            "assert not any(m.split('.')[0] in ('dask', 'distributed') for m in sys.modules), 'dask imported'")
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_client_is_checked(dl19):
    with pytest.raises(irstats.ArgumentTypeError, match="client must be a distributed.Client"):
        irstats.evaluate(dl19[0], dl19[1], ["AP"], client="tcp://127.0.0.1:8786")
