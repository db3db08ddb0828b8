"""Past one machine, on Dask: independent batches run on a cluster (issue 26).

The one module of irstats that talks to Dask (``distributed``, the ``irstats[dask]`` extra).
It is imported only when a ``client`` is given — ``irstats.evaluate(..., client=...)``,
``split_half``, ``predictive_power``, ``pairwise``, ``compare``, ``bootstrap_mean_intervals``,
``standardization_robustness`` and ``volatility`` take one, and the commands ``eval``,
``splithalf``, ``predictive``, ``compare``, ``robustness`` and ``volatility`` make one from
``--workers N`` or ``--scheduler ADDRESS``. Without a client nothing changes and Dask is never
imported.

What runs on the cluster is what runs here, batch by batch — nothing is scheduled by irstats:

* **runs**: the batches of run files :meth:`irstats.evaluate.Evaluator.score` reads (about
  8 MB of text each); a worker judges and scores its batch against the qrels, which it reads
  once from their path (a shared file system, as for the runs) or, for qrels that are not a
  file, receives once from the client; a run the client read from standard input or a pipe
  is sent as its bytes, which stand for its name while the worker reads it;
* **topic blocks of one huge run**: a plain run file that one process would read a block of
  topics at a time (:func:`irstats.ingest.streamable`) is cut by the client into byte ranges
  between topics; a worker reads its range from the run's path, ranks and scores it and sends
  back per-topic scores (a run whose topics are not contiguous is sorted by blocks on the client
  and its parts sent a few at a time: :func:`score_batches`);
* **resamples**: the batches of halvings of :func:`~irstats.meta.splithalf.split_half` and
  :func:`~irstats.meta.predictive.predictive_power` and of samples of
  :func:`~irstats.meta.robustness.standardization_robustness` (drawn on the client, as in one
  process); the resample batches of the bootstrap, randomisation and Tukey tests of
  :func:`~irstats.stats.pairwise`, :func:`~irstats.stats.compare` and of every depth of
  :func:`~irstats.depth.volatility.volatility`. Where the single process draws batch after
  batch from one Generator, the client records the Generator's state at the start of each
  batch (:func:`irstats.random.batch_states`); a worker draws its batch from that state. The
  bootstrap intervals (:func:`~irstats.stats.effects.bootstrap_mean_intervals`) draw every
  resample in one call, as scipy does: the client draws them and a worker takes the means of
  its slice. So batch k has the same numbers whoever computes it, and the results are
  bit-identical to the single process whatever the number of workers.

An experiment runs its batches through :func:`planned`: its ``plan(job)`` computes them (no
client) or submits them to a :class:`Job`, which shows one progress line for the whole job (the
:mod:`irstats.progress` convention), gathers the results in submission order, and turns the
first failed batch (in that order) into one :class:`~irstats.errors.IrstatsError`: the
task's own error when it is irstats' (a bad line names its file and line, as in one
process), else a :class:`ClusterError` naming the batch and the cause. A worker that dies is
replaced and its tasks are run again by Dask (three times, Dask's ``allowed-failures``);
nothing is written before every batch is in.

>>> from distributed import Client                                   # doctest: +SKIP
>>> client = Client("tcp://scheduler:8786")                          # doctest: +SKIP
>>> scores = irstats.evaluate("qrels.txt", "runs/", client=client)    # doctest: +SKIP
>>> with connect(workers=4) as client:                              # doctest: +SKIP
...     result = split_half(scores["AP"], n_splits=100_000, client=client)
"""

from __future__ import annotations

import os
import threading
import uuid
import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Literal, Sequence, TypeVar

import numpy as np

from irstats.errors import ArgumentError, ArgumentTypeError, IrstatsError, IrstatsWarning, ResourceError, some
from irstats.progress import Progress, progress_bar

if TYPE_CHECKING:
    from irstats.collection import RunSet
    from irstats.evaluate import Evaluator
    from irstats.measures import Measure

T = TypeVar("T")

#: Seconds to wait for a scheduler given by address before giving up (``--scheduler``).
CONNECT_TIMEOUT = 5

INSTALL_HINT = "install the Dask extra: pip install 'irstats[dask]'"

#: Dask configuration of the workers irstats starts (``--workers``), and advised for a cluster
#: of one's own (docs/scale.md): glibc's own malloc tuning, not Dask's trim threshold.
WORKER_ENVIRONMENT = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}


class ClusterError(ResourceError):
    """A batch that failed on the cluster for a reason of the machine or the cluster (a worker
    that died again and again, a scheduler that cannot be reached or went away), or an
    unexpected error inside a task; the message names the batch and the cause (exit 1)."""


# --------------------------------------------------------------------------- clients

def _dask():
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"running on a Dask cluster needs the distributed package; {INSTALL_HINT}") from None
    return distributed


def check_client(client):
    """``client`` if it is a ``distributed.Client``; an error naming the argument otherwise."""
    distributed = _dask()
    if not isinstance(client, distributed.Client):
        raise ArgumentTypeError(f"client must be a distributed.Client (or None), not {type(client).__name__}",
                                argument="client")
    return client


@contextmanager
def connect(workers: int | None = None, scheduler: str | None = None, *, named: str = "workers") -> Iterator[Any]:
    """A ``distributed.Client`` for the duration of the block, or None when neither is given.

    ``workers``: a local cluster of that many worker processes (one thread each), made here
    and closed at the end — at most as many as the machine runs at once (:func:`machine_workers`;
    more is one warning, then that many). ``scheduler``: the address of a running scheduler
    (``tcp://host:8786``); one that does not answer within :data:`CONNECT_TIMEOUT` seconds
    is a :class:`ClusterError`. This is what ``--workers`` and ``--scheduler`` do (``named``:
    how the warning names the option). While the block runs, Dask's logging is irstats' lines
    (:class:`LibraryLines`).
    """
    if workers is None and scheduler is None:
        yield None
        return
    if workers is not None and scheduler is not None:
        raise ArgumentError("give workers (a local cluster) or scheduler (a running one), not both",
                            argument="scheduler")
    if workers is not None:
        from irstats.checks import whole

        workers = whole(workers, "workers", minimum=1)
        most, why = machine_workers()
        if workers > most:
            warnings.warn(f"{named} {workers}: this machine runs {most} worker processes at once ({why}); "
                          f"starting {most}", IrstatsWarning, stacklevel=3)
            workers = most
    elif not isinstance(scheduler, str) or not scheduler.strip():
        raise ArgumentTypeError(f"scheduler must be an address such as tcp://127.0.0.1:8786, not {scheduler!r}",
                                argument="scheduler")
    # a local cluster's process starts while this one imports Dask (which must be imported before
    # LibraryLines takes its loggers)
    process = _start_cluster_process(workers) if workers is not None else None
    try:
        distributed = _dask()
    except BaseException:
        if process is not None:
            _close_cluster_process(process)
        raise
    with LibraryLines(("distributed", "tornado", "asyncio")) as lines:
        try:
            if process is not None and workers is not None:
                with _local_cluster(distributed, process, workers, lines) as client:
                    yield client
                return
            try:
                client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {_one_line(exc)}") from None
            try:
                yield client
            finally:
                client.close()
        except BaseException:
            lines.failed = True  # what Dask logs about it now is said by irstats' error, or its interrupt
            raise


#: What one worker process needs at least (the interpreter, numpy, Dask): ``--workers`` is
#: bounded by the available memory divided by this, and by the cores.
WORKER_MEMORY = 256 * 2**20


def machine_workers() -> tuple[int, str]:
    """How many worker processes this machine runs at once, and why: its cores (those this
    process may use) and its available memory over :data:`WORKER_MEMORY`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    available = None
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    why = f"{cores} cores"
    most = cores
    if available is not None:
        why += f", {available / 2**30:.1f} GiB of memory available"
        most = min(most, max(1, available // WORKER_MEMORY))
    return max(1, most), why


#: Dask settings of the local cluster's scheduler and nannies: the event loop's tick watcher
#: (every 20 ms by default) and the system and memory monitors (0.5 s, 0.1 s) are for long-lived
#: shared clusters; for one command's cluster they were most of the scheduler's idle CPU.
QUIET_SCHEDULER = {"distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "5s",
                   "distributed.worker.memory.monitor-interval": "1s"}

#: What the process of a local cluster runs (``python -c``): the cluster of ``argv[1]`` workers,
#: its scheduler's address on standard output, then nothing until standard input closes — when
#: irstats closes it, or when irstats ends in any way, a kill included. A failure to start is one
#: ``error:`` line. Standard error is the null device: the cluster's logging is silenced, and
#: what fails on it reaches irstats as its tasks' errors or a lost connection.
CLUSTER_PROCESS = """
import logging, sys
try:
    import dask
    from distributed import LocalCluster
    from irstats.distributed import QUIET_SCHEDULER, WORKER_ENVIRONMENT
    with dask.config.set({**WORKER_ENVIRONMENT, **QUIET_SCHEDULER}):
        cluster = LocalCluster(n_workers=int(sys.argv[1]), threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.CRITICAL,
                               scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
        print(cluster.scheduler_address, flush=True)
        sys.stdin.read()
        cluster.close(timeout=10)
except BaseException as exc:
    print("error:", type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "", flush=True)
    sys.exit(1)
"""


def _start_cluster_process(workers: int):
    """The process of a local cluster of ``workers`` (:data:`CLUSTER_PROCESS`), started."""
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("distributed") is None:
        _dask()  # the error saying how to install it
    environment = dict(os.environ)
    # the cluster imports irstats from where this process did (a script's own sys.path included)
    environment["PYTHONPATH"] = os.pathsep.join(path for path in sys.path if path)
    try:
        return subprocess.Popen([sys.executable, "-c", CLUSTER_PROCESS, str(workers)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment,
                                start_new_session=True)
    except OSError as exc:
        raise ClusterError(f"cannot start a local Dask cluster: {_one_line(exc)}") from None


@contextmanager
def _local_cluster(distributed, process, workers: int, lines: "LibraryLines") -> Iterator[Any]:
    """A client of the local cluster of ``workers`` processes that ``process`` starts, closed at
    the end; when the block fails or is interrupted, what Dask logs while closing it is not said
    (``lines``).

    The cluster — its scheduler and the nannies that watch the worker processes — runs in a
    process of its own (:data:`CLUSTER_PROCESS`), as a cluster one connects to with
    ``--scheduler`` does: this process is then only a client, which assigns batches and gathers
    what they return (issue 36: with the scheduler's event loop in it, the client spent a fifth
    to a third of one process's CPU on the 100-run ``wide`` workload). The cluster's process is
    in a session of its own, so a Ctrl-C at the terminal reaches irstats alone, which closes the
    cluster; it ends by itself when irstats ends otherwise (its standard input closes)."""
    try:
        try:
            address = process.stdout.readline().decode(errors="replace").strip()
            if not address.startswith("tcp://"):
                why = address.removeprefix("error:").strip() or f"its process ended (exit {process.wait()})"
                raise ClusterError(f"cannot start a local Dask cluster of {workers} workers: {why}")
            client = distributed.Client(address, timeout=30, set_as_default=False)
        except BaseException:
            lines.failed = True
            raise
        try:
            yield client
        except BaseException:
            lines.failed = True  # before closing: what Dask logs then is irstats' error's business
            raise
        finally:
            client.close()
    finally:
        _close_cluster_process(process)


def _close_cluster_process(process) -> None:
    """Close the cluster's standard input (it closes its workers and ends), and wait for it;
    kill it, and its workers with it, if it does not end within 10 s."""
    import signal
    import subprocess

    try:
        if process.stdin:
            process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        try:  # its session: the cluster's process and the workers it started
            os.killpg(process.pid, signal.SIGKILL)
        except (OSError, AttributeError):  # (no process groups: Windows)
            process.kill()
        process.wait()
    finally:
        if process.stdout:
            process.stdout.close()


class LibraryLines:
    """A library's logging as irstats' lines, while the block runs: the one place where what
    Dask (or tornado, asyncio) logs reaches the user. A warning becomes one ``irstats:
    warning:`` line (once per distinct message, its first line only, never a traceback); an
    error is not printed — the exception it comes with reaches irstats and is its one line —
    nor is anything logged once the block fails (``failed``) or is interrupted. The loggers
    get back their handlers, level and propagation at the end."""

    def __init__(self, names: Sequence[str]):
        import logging

        self.names = tuple(names)
        self.failed = False
        self._said: set[str] = set()
        self._saved: list = []
        self._handler = logging.Handler(logging.WARNING)
        # the handler's emit replaced on this one instance (mypy refuses any assignment to a method)
        self._handler.emit = self._emit  # type: ignore[method-assign]

    def __enter__(self) -> "LibraryLines":
        import logging

        known = [name for name in logging.root.manager.loggerDict  # Dask gives some children handlers of
                 if name.startswith(tuple(f"{n}." for n in self.names))]  # their own (distributed.client)
        for name in (*self.names, *known):
            logger = logging.getLogger(name)
            if name in known and not logger.handlers and logger.propagate:
                continue  # reaches its parent's handler, ours
            self._saved.append((logger, logger.handlers[:], logger.level, logger.propagate))
            logger.handlers = [self._handler]
            logger.setLevel(logging.WARNING)
            logger.propagate = False
        return self

    def __exit__(self, *exc) -> Literal[False]:
        for logger, handlers, level, propagate in self._saved:
            logger.handlers, logger.propagate = handlers, propagate
            logger.setLevel(level)
        return False

    def _emit(self, record) -> None:
        import logging

        if self.failed or record.levelno >= logging.ERROR:
            return
        try:
            first = (record.getMessage().strip().splitlines() or [""])[0]
        except Exception:  # noqa: BLE001 - a message that does not format is not worth a line
            return
        if first and first not in self._said:
            self._said.add(first)
            warnings.warn(f"Dask: {first}", IrstatsWarning, stacklevel=2)


def _one_line(exc: BaseException, limit: int = 400) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit - 1] + "…"


# --------------------------------------------------------------------------- jobs

def _identity(value):
    return value


def _run_task(function: Callable, *args):
    """What a worker runs for each task: ``function(*args)`` and the warnings it gave, so
    that the client shows them as the single process would."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args)
    return result, [(w.category, str(w.message), w.filename, w.lineno) for w in caught]


class Job:
    """Batches submitted to a Dask cluster, run with one progress line, read in submission order.

    ``submit(label, function, *args, weight=)`` queues ``function(*args)`` (a module-level
    function of irstats, so workers import it) and returns its number; ``share(value)`` is
    data several tasks read (sent once per worker, and sent again if a worker dies); ``run()``
    waits for every task — the progress line counts ``weight`` per task done (runs, splits,
    resamples) — and raises the first failure in submission order; ``result(k)`` is task k's
    value afterwards.
    """

    def __init__(self, client, desc: str = "", *, progress: Progress = None, unit: str = "it"):
        self.client = check_client(client)
        self.desc, self.progress, self.unit = desc, progress, unit
        self._token = uuid.uuid4().hex[:12]
        self._name = "-".join(desc.split()) or "job"
        self._futures: list = []
        self._labels: list[str] = []
        self._weights: list[int] = []
        self._shared: list = []
        self._data = 0  # data futures made so far (their keys)
        self._results: list | None = None
        self._passing: dict[int, list] = {}  # task → the data futures it alone reads (see feed)
        self._early: dict[int, tuple] = {}  # task → its value, kept as it finished (see feed)

    def share(self, value: object) -> Any:
        """``value`` as a future that tasks take as an argument: one copy per worker. It is the
        result of a task holding the value, so a worker that dies takes no data with it."""
        key = f"irstats-{self._name}-data-{self._data}-{self._token}"
        self._data += 1
        future = self.client.submit(_identity, value, key=key, pure=False)
        self._shared.append(future)
        return future

    def pass_on(self, value: object) -> Any:
        """``value`` (bytes, say) for the next task submitted alone: as :meth:`share`, but released
        — on the scheduler and the workers — as soon as that task is done, so that a job fed by
        :meth:`run` holds only the data of the tasks in flight."""
        future = self.share(value)
        self._shared.pop()
        self._passing.setdefault(len(self._futures), []).append(future)
        return future

    def submit(self, label: str, function: Callable, *args, weight: int = 1) -> int:
        """Queue ``function(*args)``; ``label`` names the batch in errors. Returns its number."""
        if self._results is not None:
            raise RuntimeError("this job has run; make a new one")
        k = len(self._futures)
        key = f"irstats-{self._name}-{k}-{self._token}"
        # _run_task is looked up here, at each call (tests replace it to kill a worker)
        self._futures.append(self.client.submit(_run_task, function, *args, key=key, pure=False))
        self._labels.append(label)
        self._weights.append(int(weight))
        return k

    def run(self, feed: Iterator[None] | None = None, *, window: int = 1, more: int = 0) -> None:
        """Wait for every task, one progress line for all; results kept in submission order,
        their warnings shown once each. A failed task ends the job: the tasks not yet done are
        cancelled and the first failure in submission order is raised.

        ``feed``: an iterator each step of which submits one more task (``more`` in all, weight 1
        each, their data given by :meth:`pass_on`), stepped while fewer than ``window`` tasks
        are in flight: a job whose data is made as it goes (a run sorted by blocks on the
        client) holds no more than a window of it at a time. A fed task's value is fetched
        when it is done, and its data and result released at once."""
        if self._results is not None:
            return
        try:
            if self._futures or feed is not None:
                self._wait(feed, window, more)
            values = self.client.gather([f for k, f in enumerate(self._futures) if k not in self._early])
        finally:
            self._release()
        self._futures, self._shared, self._passing = [], [], {}  # the workers may forget the data and results now
        gathered = iter(values)
        values = [self._early[k] if k in self._early else next(gathered) for k in range(len(self._labels))]
        self._early = {}
        self._results = [value for value, _ in values]
        shown = set()
        for _, caught in values:
            for category, message, filename, lineno in caught:
                if (category, message, filename, lineno) not in shown:
                    shown.add((category, message, filename, lineno))
                    warnings.warn_explicit(message, category, filename, lineno)

    def result(self, k: int) -> Any:
        """Task k's value (after :meth:`run`)."""
        if self._results is None:
            self.run()
        assert self._results is not None  # run() sets them (or raises)
        return self._results[k]

    def _wait(self, feed: Iterator[None] | None, window: int, more: int) -> None:
        distributed = _dask()
        futures = self._futures
        where = {future.key: k for k, future in enumerate(futures)}
        waiting = distributed.as_completed(futures, loop=self.client.loop)
        in_flight = len(futures)
        done: set[int] = set()
        failed: int | None = None
        complete = 0  # tasks 0 … complete − 1 are done

        def step() -> None:  # submit fed tasks while fewer than window are in flight
            nonlocal feed, in_flight
            while feed is not None and in_flight < window:
                if next(feed, StopIteration) is StopIteration:
                    feed = None
                    return
                k = len(self._futures) - 1
                where[self._futures[k].key] = k
                waiting.add(self._futures[k])
                in_flight += 1

        with progress_bar(sum(self._weights) + more, self.progress, self.desc, unit=self.unit) as bar:
            step()
            for future in waiting:
                k = where[future.key]
                if future.status == "lost":
                    # done, then its worker died holding the result: Dask computes it again for
                    # the future still held here, which comes back through as_completed
                    waiting.add(future)
                    continue
                done.add(k)
                in_flight -= 1
                if future.status == "finished":
                    if k in self._passing:  # a fed task: its value now, its data and result gone
                        self._early[k] = future.result()
                        self._futures[k] = None
                        del self._passing[k]
                    bar.update(self._weights[k])
                elif failed is None or k < failed:
                    failed = k
                while complete in done:
                    complete += 1
                if failed is not None and complete >= failed:
                    break  # every task before the first failure is done: report it
                if failed is None:
                    step()
        if failed is not None:
            raise self._error(failed) from None

    def _error(self, k: int) -> IrstatsError:
        future = self._futures[k]
        label = self._labels[k]
        if future.status == "error":
            exc = future.exception()
            if isinstance(exc, IrstatsError):
                return exc  # irstats' own words, as in one process (a bad line names its file and line)
            return ClusterError(f"{label} failed on the Dask cluster: {type(exc).__name__}: {_one_line(exc)}")
        return ClusterError(f"{label} did not finish on the Dask cluster ({future.status}: the scheduler was lost "
                            "or the job cancelled)")

    def _release(self) -> None:
        passing = [f for futures in self._passing.values() for f in futures]
        pending = [f for f in self._futures + self._shared + passing if f is not None and not f.done()]
        if pending:
            try:
                self.client.cancel(pending)
            except Exception:  # noqa: BLE001 - a scheduler already gone: nothing left to cancel
                pass


def planned(client, desc: str, plan: Callable[["Job | None"], Callable[[], T]], *, progress: Progress = None,
            unit: str = "it") -> T:
    """Run a batched experiment here or on a cluster, with one code path for both.

    ``plan(job)`` does the experiment up to its batches and returns the function that
    finishes it. Without a client, ``job`` is None: ``plan`` computes each batch as it
    goes, and its result is finished at once. With one, ``plan`` submits the very same
    batches to ``job`` (a :class:`Job` on the client, one progress line in ``unit``s) and
    the finishing function reads them with ``job.result(k)`` after they have all run.
    """
    if client is None:
        return plan(None)()
    job = Job(client, desc, progress=progress, unit=unit)
    finish = plan(job)
    job.run()
    return finish()


# --------------------------------------------------------------------------- evaluation

def score_batches(client, evaluator: "Evaluator", runset: "RunSet", measures: Sequence["Measure"],
                  values: dict[str, np.ndarray], present: np.ndarray, judge: Callable, progress: Progress = None,
                  printer: Callable | None = None, printed: list | None = None):
    """:meth:`Evaluator.score`'s loop on a cluster. Fills ``values[measure][run, topics]`` and
    ``present``, warns of topics outside the qrels once (as one process does) and returns R = 0
    per topic (None without runs). With ``printer`` (given by the engine, which sits above this
    module: :func:`irstats.evaluate.print_batch` bound to a format), each worker also lays out the
    per-topic output of its batch of runs, and ``printed`` receives
    the batches' pieces in the runs' order — or nothing, when some run was scored otherwise (in
    blocks of topics: the client then prints from the scores). The tasks, in one job (one
    progress line):

    * the engine's batches of runs, each judged and scored by ``judge``
      (:func:`irstats.evaluate.judge_and_score`, given by the engine, which sits above this
      module) on a worker, against an evaluator of the same class, qrels and options;
    * each run that one process would read a block of topics at a time
      (:func:`irstats.ingest.streamable`, plain text) cut into byte ranges between topics
      (:func:`irstats.ingest.topic_ranges`), each read from the run's path, ranked and scored
      by a worker (:func:`_score_range`);
    * such a run whose topics are not written one after another
      (:func:`irstats.ingest.split_topics`) sorted by blocks on the client, in its temporary
      folder (the workers share none with it), while the other tasks run; its parts are sent
      to the workers a few at a time (:func:`_score_sorted`).

    What the workers' results show could not be scored so — a topic in two ranges that the
    look at the ranges missed (the run is then sorted), a block the compiled reader does not
    take (the run is then sent whole to a worker, which reads it as one process does and names
    the file and line of a bad line) — is scored in a job after this one."""
    from irstats.ingest import compiled_batches
    from irstats.judgments import warn_topics_outside_qrels

    ranges, shuffled = _topic_ranges(evaluator, runset)
    cut = set(ranges) | set(shuffled)
    # the engine's own batches (it reads each alone), but for the runs cut into blocks
    batches = [b for b in ([i for i in batch if i not in cut] for batch in compiled_batches(runset)) if b]
    outside: dict[str, int] = {}
    r_zero = None
    pieces: list | None = [] if printer is not None and not cut else None
    while batches or ranges or shuffled:
        round_r_zero, again = _score_round(client, evaluator, runset, [str(m) for m in measures], judge, values,
                                           present, outside, progress, batches, ranges, shuffled, printer,
                                           pieces)
        r_zero = round_r_zero if round_r_zero is not None else r_zero
        if again:
            pieces = None  # a run scored again, alone: the client prints from the scores
        batches = [[i] for i, why in again.items() if why == "whole"]
        ranges, shuffled = {}, [i for i, why in again.items() if why == "sorted"]
    warn_topics_outside_qrels({name: outside[name] for name in runset.names if name in outside})
    if pieces is not None and printed is not None:
        printed.extend(pieces)
    return r_zero


def _topic_ranges(evaluator: "Evaluator", runset: "RunSet") -> tuple[dict[int, tuple[list, tuple]], list[int]]:
    """The runs that one process would read a block of topics at a time
    (:func:`irstats.ingest.streamable`), plain text — a gzip stream cannot be read from the
    middle: such a run goes whole to one worker, which streams it — and in more than one block:
    ({run: (its byte ranges, the (size, mtime) of the file they were cut in)}, [the runs whose
    topics are not contiguous, to be sorted by blocks])."""
    from irstats import ingest

    if evaluator.beyond:
        return {}, []
    ranges, shuffled = {}, []
    for i, part in enumerate(runset.parts):
        if not ingest.streamable(evaluator.collection, runset, evaluator.options, i, judged_here=False):
            continue
        try:
            stat = os.stat(part.source)
            cut = ingest.topic_ranges(part.source, stat.st_size)
            if cut is None or len(cut) < 2:
                continue
            if ingest.split_topics(part.source, cut):
                shuffled.append(i)
            else:
                ranges[i] = (cut, (stat.st_size, stat.st_mtime_ns))
        except OSError:  # unreadable now: the run goes whole to a worker, which reads it or says why
            continue
    return ranges, shuffled


def _score_round(client, evaluator: "Evaluator", runset: "RunSet", names: list[str], judge: Callable,
                 values: dict[str, np.ndarray], present: np.ndarray, outside: dict[str, int], progress: Progress,
                 batches: list[list[int]], ranges: dict[int, tuple[list, tuple]], shuffled: list[int],
                 printer: Callable | None = None, pieces: list | None = None):
    """One job of :func:`score_batches`: the ``batches`` of runs, the byte ``ranges`` of runs and
    the runs to sort by blocks (``shuffled``); with ``printer``, the batches' printed pieces
    appended to ``pieces``. Returns (R = 0 per topic or None, {run: "sorted" or "whole"} for the
    runs to score again)."""
    import tempfile

    from irstats.ingest import sorted_parts

    job = Job(client, "eval", progress=progress, unit="task" if ranges or shuffled else "run")
    read_once = _read_once_bytes(runset, job)
    collection = evaluator.collection
    qrels = _qrels_reference(collection, evaluator.options.qrels_duplicate)
    if qrels is None:  # not a file a worker can read: every worker receives it once
        qrels = job.share(_bare(collection, job))
    cwd = os.getcwd()
    for batch in batches:
        parts = [runset.parts[i] for i in batch]
        job.submit(f"the batch of runs {some([runset.names[i] for i in batch], limit=3)}", _score_runs,
                   type(evaluator), judge, qrels, evaluator.options, tuple(runset.names[i] for i in batch),
                   parts, names, cwd, {p.source: read_once[p.source] for p in parts if p.source in read_once},
                   printer if pieces is not None else None, weight=1 if ranges or shuffled else len(batch))
    tasks: dict[int, list[int]] = {}
    for i, (spans, stamp) in ranges.items():
        tasks[i] = [job.submit(f"run {runset.names[i]!r}, bytes {start:,}–{end:,} of {runset.parts[i].source}",
                               _score_range, qrels, evaluator.options, runset.names[i], runset.parts[i],
                               (start, end), stamp, names, cwd)
                    for start, end in spans]
    with tempfile.TemporaryDirectory(prefix="irstats-run-") as folder:
        # sorted here while the workers take the tasks above; each part read, sent and deleted in turn
        sorted_paths = {i: list(sorted_parts(runset.parts[i].source, runset.parts[i].size,
                                             os.path.join(folder, str(i))))
                        for i in shuffled}

        def feed() -> Iterator[None]:
            for i in shuffled:
                tasks[i] = []
                for n, path in enumerate(sorted_paths[i], start=1):
                    with open(path, "rb") as fh:
                        data = job.pass_on(fh.read())
                    os.unlink(path)
                    tasks[i].append(job.submit(f"run {runset.names[i]!r}, part {n} of {len(sorted_paths[i])} of its lines "
                                               "sorted by topic", _score_sorted, qrels, evaluator.options,
                                               runset.names[i], runset.parts[i], data, names, cwd))
                    yield

        # two parts (of about BLOCK_BYTES) per worker in flight: each has the next one at hand
        workers = max(len(client.scheduler_info().get("workers", {})), 1)
        job.run(feed(), window=2 * workers, more=sum(len(p) for p in sorted_paths.values()))
    r_zero = None
    for k, batch in enumerate(batches):
        batch_present, batch_r_zero, batch_values, batch_outside, batch_pieces = job.result(k)
        if pieces is not None:
            pieces.append(batch_pieces)
        present[batch] = batch_present
        if batch_r_zero is not None:
            r_zero = batch_r_zero
        for name, v in batch_values.items():
            values[name][batch] = v
        outside.update(batch_outside)
    again: dict[int, str] = {}
    for i, ks in tasks.items():
        blocks = [job.result(k) for k in ks]
        topics = np.concatenate([block[0] for block in blocks if block is not None] or [np.zeros(0, dtype=np.int64)])
        if any(block is None for block in blocks) or not len(topics):
            # a block the compiled reader does not take, or no qrels topic: the run as one process reads it
            again[i] = "whole"
        elif len(np.unique(topics)) < len(topics):
            again[i] = "sorted"  # a topic in two ranges: not contiguous after all
        else:
            r_zero = _place(evaluator, runset, i, blocks, names, values, present, outside)
    return r_zero, again


def _place(evaluator: "Evaluator", runset: "RunSet", i: int, blocks: list, names: list[str],
           values: dict[str, np.ndarray], present: np.ndarray, outside: dict[str, int]) -> np.ndarray:
    """The scores of run ``i``'s blocks (``(topics, values, topics outside the qrels)`` each) put at
    their topics; with ``complete``, the qrels topics the run lacks scored as empty lists (on the
    client: no run text, a tensor of zeros); topics outside the qrels counted once. Returns R = 0
    per topic."""
    from irstats.ingest import score_lists
    from irstats.judgments import qrels_facts
    from irstats.measures import parse_measure

    options = evaluator.options
    extra: set[bytes] = set()
    for topics, block_values, block_extra in blocks:
        present[i, topics] = True
        for name in names:
            values[name][i, topics] = block_values[name]
        extra |= block_extra
    if options.complete:
        missing = np.flatnonzero(~present[i])
        if len(missing):
            for name, v in score_lists(evaluator.collection, runset, options, i, missing,
                                       [parse_measure(m) for m in names]).items():
                values[name][i, missing] = v
            present[i, missing] = True
    if extra:
        outside[runset.names[i]] = len(extra)
    return qrels_facts(evaluator.collection, options).num_relevant(options.rel_level) == 0


def _read_once_bytes(runset: "RunSet", job: Job) -> dict[str, Any]:
    """The runs a worker cannot open by their name — standard input (``-``), a pipe or a process
    substitution (``<(zcat run.gz)``), which the client has read once and kept — as data sent
    to the workers that read them: {name: the shared bytes}."""
    from irstats.io.trec import STDIN, _read_once, read_raw

    return {p.source: job.share(read_raw(p.source)) for p in runset.parts
            if p.frame is None and (p.source == STDIN or p.source in _read_once)}


#: Held while a task reads runs under the names the client read them by (see :func:`_read_as`):
#: two tasks of one worker process never stand in different bytes for the same name.
_READ_ONCE_LOCK = threading.Lock()


@contextmanager
def _read_as(kept: dict[str, bytes]) -> Iterator[None]:
    """While a task runs, the bytes the client read from standard input or a pipe are what
    reading those names gives in this worker process (the readers look every name up in
    :data:`irstats.io.trec._read_once` first), so the runs are read, tagged and named in errors
    (``-:12: …``) exactly as in one process; afterwards the names are as they were."""
    if not kept:
        yield
        return
    from irstats.io.trec import _read_once

    with _READ_ONCE_LOCK:
        before = {name: _read_once.get(name) for name in kept}
        _read_once.update(kept)
        try:
            yield
        finally:
            for name, data in before.items():
                if data is None:
                    _read_once.pop(name, None)
                else:
                    _read_once[name] = data


def _qrels_reference(collection, qrels_duplicate: str):
    """How a worker finds the qrels itself: (path, size, mtime, option) for a regular file, else None."""
    source = collection.source
    if not isinstance(source, str) or source == "-" or not os.path.isfile(source):
        return None
    from irstats.io.trec import _read_once

    if source in _read_once:
        return None
    stat = os.stat(source)
    return ("path", source, os.path.abspath(source), stat.st_size, stat.st_mtime_ns, qrels_duplicate)


def _bare(collection, job: Job) -> tuple:
    """What a worker needs to make the collection: its qrels (frame or arrays) and topics, not
    its derived indexes (each worker builds its own; the compiled hash table cannot be sent).
    Plain data: a shared value must never change on a worker, which may send it on to another."""
    return ("data", job._token, collection.qrels if collection.arrays is None else None, collection.topic_keys,
            collection.source, collection.arrays, collection.cache.get("topics"))


#: A worker's collections, by (path, size, mtime, option) for qrels read from a file — read once
#: per worker process — or by job for qrels sent by the client; their derived indexes (facts,
#: hash table) are kept with them.
_COLLECTIONS: dict[tuple, Any] = {}


def _worker_collection(qrels: tuple, cwd: str):
    from irstats.collection import Collection

    if qrels[0] == "path":
        _, shown, absolute, size, mtime, duplicate = qrels
        key = (absolute, size, mtime, duplicate)
    else:
        key = qrels[:2]
    if key not in _COLLECTIONS:
        if len(_COLLECTIONS) >= 4:
            _COLLECTIONS.pop(next(iter(_COLLECTIONS)))
        if qrels[0] == "path":
            path = shown if os.getcwd() == cwd else absolute  # in the client's folder: its own words for the file
            collection = Collection.load(path, qrels_duplicate=duplicate)
        else:
            _, _, frame, topic_keys, source, arrays, topics = qrels
            collection = Collection(frame, topic_keys, source, arrays=arrays)
            if topics is not None:
                collection.cache["topics"] = topics
        _COLLECTIONS[key] = collection
    return _COLLECTIONS[key]


def _score_runs(evaluator: type, judge: Callable, qrels, options, names: tuple[str, ...], parts: list,
                measures: list[str], cwd: str, kept: dict[str, bytes], printer: Callable | None = None):
    """One batch of runs on a worker, judged and scored by ``judge`` as :meth:`Evaluator.score`
    does; ``kept``: the bytes of its runs read from standard input or a pipe, by name.
    Returns (present, R = 0 per topic, {measure: values}, {run: topics outside the qrels}, the
    batch's per-topic output laid out by ``printer`` — or None)."""
    from dataclasses import replace

    from irstats.collection import RunSet
    from irstats.measures import parse_measure

    if os.getcwd() != cwd:  # another machine or folder: relative run paths are the client's
        parts = [replace(p, source=os.path.join(cwd, p.source))
                 if p.frame is None and not os.path.isabs(p.source) and p.source not in kept else p for p in parts]
    collection = _worker_collection(qrels, cwd)
    n_top = len(collection.topic_keys)
    values = {m: np.empty((len(names), n_top)) for m in measures}
    present = np.zeros((len(names), n_top), dtype=bool)
    outside: dict[str, int] = {}
    with _read_as(kept):
        r_zero = judge(evaluator(collection, options), RunSet(tuple(names), list(parts)),
                       [parse_measure(m) for m in measures], values, present, outside)
    printed = None if printer is None else printer(collection, options, names, measures, values, present, r_zero)
    return present, r_zero, values, outside, printed


def _task_run(part, cwd: str):
    """The run's part as a worker opens it: relative paths are the client's."""
    from dataclasses import replace

    if os.getcwd() != cwd and not os.path.isabs(part.source):
        return replace(part, source=os.path.join(cwd, part.source))
    return part


def _score_range(qrels, options, name: str, part, span: tuple[int, int], stamp: tuple[int, int],
                 measures: list[str], cwd: str):
    """One byte range of a run (whole topics, :func:`irstats.ingest.topic_ranges`) read from the
    run's path on a worker, ranked and scored: ``(topics, {measure: values}, topics outside the
    qrels)``, or None when the compiled reader does not take it (the client then sends the run
    whole). A file that is not the one the client cut (another size or time) is an error."""
    from irstats.collection import RunSet
    from irstats.ingest import Declined, score_text
    from irstats.measures import parse_measure

    part = _task_run(part, cwd)
    start, end = span
    with open(part.source, "rb") as fh:
        stat = os.fstat(fh.fileno())
        if (stat.st_size, stat.st_mtime_ns) != tuple(stamp):
            raise ClusterError(f"run {name!r}, bytes {start:,}–{end:,} of {part.source}: not the file the client cut "
                               "into blocks (it changed, or this worker sees another file at that path)")
        fh.seek(start)
        data = fh.read(end - start)
    collection = _worker_collection(qrels, cwd)
    try:
        return score_text(collection, RunSet((name,), [part]), options, 0, data, [parse_measure(m) for m in measures])
    except Declined:
        return None


def _score_sorted(qrels, options, name: str, part, data: bytes, measures: list[str], cwd: str):
    """One part of a run sorted by blocks on the client (every line of its topics), ranked and
    scored on a worker: as :func:`_score_range`."""
    from irstats.collection import RunSet
    from irstats.ingest import Declined, score_text
    from irstats.measures import parse_measure

    collection = _worker_collection(qrels, cwd)
    try:
        return score_text(collection, RunSet((name,), [_task_run(part, cwd)]), options, 0, data,
                          [parse_measure(m) for m in measures])
    except Declined:
        return None

__all__ = ["CONNECT_TIMEOUT", "ClusterError", "Job", "LibraryLines", "WORKER_MEMORY", "check_client", "connect",
           "machine_workers", "planned", "score_batches"]
