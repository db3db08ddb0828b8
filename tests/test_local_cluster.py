"""The local cluster of ``--workers`` (issue 36): its scheduler and nannies run in a process of
their own, so the command's process is only a client (what it spends is the client's CPU of
bench/bench_dask.py's client job), and that process never outlives irstats."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import child_env, default_signals
from tests.test_faults_sweep3 import _more_runs

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")  # a dependency of distributed


def test_the_scheduler_is_not_in_the_clients_process():
    from irstats.distributed import connect

    with connect(workers=1) as client:
        scheduler = client.run_on_scheduler(os.getpid)
        workers = set(client.run(os.getpid).values())
        assert scheduler != os.getpid() and os.getpid() not in workers
        assert psutil.Process(scheduler).ppid() == os.getpid()  # the cluster's process, started here
    deadline = time.monotonic() + 15
    while psutil.pid_exists(scheduler) and psutil.Process(scheduler).status() != psutil.STATUS_ZOMBIE \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not psutil.pid_exists(scheduler) or psutil.Process(scheduler).status() == psutil.STATUS_ZOMBIE
    assert not any(psutil.pid_exists(pid) for pid in workers), "closing the cluster left workers running"


def _descendants_when_working(process: subprocess.Popen, count: int, timeout: float = 60) -> list:
    """The processes under ``process`` once its client is connected to the cluster (which has
    printed its address, so it is past its start) and the ``count`` workers exist."""
    parent = psutil.Process(process.pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        below = parent.children(recursive=True)
        connected = any(c.status == psutil.CONN_ESTABLISHED for c in parent.net_connections("tcp"))
        if connected and len(below) >= 1 + count:  # the cluster's process, its workers (and their helpers)
            return below
        time.sleep(0.05)
    raise AssertionError(f"no cluster of {count} workers under irstats within {timeout} s")


def test_a_killed_irstats_leaves_no_cluster_behind(reference_data, tmp_path):
    """SIGKILL gives irstats no chance to close its cluster: the cluster's process sees its standard
    input close and ends, and its workers with it."""
    base = reference_data / "trec-dl-2019-passage"
    runs = _more_runs(base / "runs", tmp_path / "runs", copies=3)  # work enough to be killed in the middle of
    irstats = subprocess.Popen([sys.executable, "-m", "irstats", "eval", str(base / "qrels.dl19-passage.txt"),
                                str(runs), "-m", "all_trec", "-q", "--workers", "2"], env=child_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=default_signals)
    try:
        below = _descendants_when_working(irstats, 2)
    finally:
        irstats.send_signal(signal.SIGKILL)
        irstats.wait()
    deadline = time.monotonic() + 30
    alive = below
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        time.sleep(0.1)
    assert not alive, f"left running after irstats was killed: {[p.cmdline()[:3] for p in alive]}"


def test_a_cluster_that_cannot_start_is_one_line(tmp_path, monkeypatch):
    """The cluster's process failing before it gives an address: one ClusterError naming it."""
    from irstats import distributed
    from irstats.distributed import ClusterError, connect

    monkeypatch.setattr(distributed, "CLUSTER_PROCESS", "import sys; print('error: OSError no port free'); "
                                                        "sys.exit(1)")
    with pytest.raises(ClusterError, match=r"cannot start a local Dask cluster of 1 workers: OSError no port free"):
        with connect(workers=1):
            pass
