"""The study a report is made of: its settings, the evaluated collection every section reads,
and the facts of how it was made. Sections (:mod:`irstats.report.sections`) read these;
:func:`irstats.report.study.build_report` makes them."""

from __future__ import annotations

import platform
import shlex
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import polars as pl

from irstats.collection import Collection
from irstats.judgments import Judgments
from irstats.report.document import Figure, Section
from irstats.scores import ScoreMatrix

DEFAULT_REPORT_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)")
#: The report draws its figures at this width (:func:`irstats.plots.style`): the PDFs fit a
#: paper's page and the HTML shows PNG renders of the same drawings.
FIGURE_SIZE = "page"
#: The depths k at which the collection section shows each run's judged share.
JUDGED_DEPTHS = (10, 100, 1000)


def support_measures() -> tuple[str, ...]:
    """Measures every report evaluates besides the chosen ones (collection facts, residuals):
    the families playing R per topic and the documents retrieved, the judged share at
    :data:`JUDGED_DEPTHS`, and SP — asked for by role, in that order."""
    from irstats.measures import Role, measure_for

    judged = measure_for(Role.JUDGED_SHARE)
    return (measure_for(Role.R_PER_TOPIC), measure_for(Role.RETRIEVED), *(f"{judged}@{k}" for k in JUDGED_DEPTHS),
            "SP")


@dataclass(frozen=True)
class Effort:
    """What a report spends on its random procedures and its figures: the full report's
    (:data:`FULL_EFFORT`) or ``--quick``'s (:data:`QUICK_EFFORT`). The one declaration of
    both: the sections read their counts from it, and the report and ``irstats report
    --help`` say what ``--quick`` trades from it (:func:`traded`)."""

    split_half_halvings: int  # random halvings of the topics, split-half consistency (aggregation)
    predictive_halvings: int  # random halvings of the topics, predictive power
    bootstrap_resamples: int  # bootstrap resamples of the topics, agreement with a second qrels
    figures: bool  # every figure drawn (PNG for the page, PDF for a paper, its data as CSV)


FULL_EFFORT = Effort(split_half_halvings=2000, predictive_halvings=1000, bootstrap_resamples=1000, figures=True)
#: ``--quick``: a first look in a fraction of the time. Figures are most of a report's time
#: (drawing each twice, PNG and PDF, and importing matplotlib), so a quick report has none;
#: its tables hold every number the figures would show.
QUICK_EFFORT = Effort(split_half_halvings=200, predictive_halvings=200, bootstrap_resamples=200, figures=False)

#: How each resample count of :class:`Effort` is named where a report says what it traded.
_COUNT_NAMES = {"split_half_halvings": "split-half halvings", "predictive_halvings": "predictive-power halvings",
                "bootstrap_resamples": "bootstrap resamples (agreement with a second qrels)"}


def traded(effort: Effort, agreement: bool = True) -> list[str]:
    """What ``effort`` gives up against the full report's, one phrase each, read from the two
    declarations: ``traded(QUICK_EFFORT)`` is what ``--quick`` trades ("200 split-half
    halvings instead of 2,000", …, "no figures …"); the full report's own is empty. Without
    ``agreement`` (no second qrels), its bootstrap is not counted: the report has none."""
    full = FULL_EFFORT
    names = [name for name in _COUNT_NAMES if agreement or name != "bootstrap_resamples"]
    phrases = [f"{getattr(effort, name):,} {_COUNT_NAMES[name]} instead of {getattr(full, name):,}"
               for name in names if getattr(effort, name) != getattr(full, name)]
    if full.figures and not effort.figures:
        phrases.append("no figures (no PNG, PDF or figure CSV; the tables hold every number)")
    return phrases


@dataclass
class StudySettings:
    """Everything that decides the numbers of a report (printed in its last section)."""

    measures: tuple[str, ...] = DEFAULT_REPORT_MEASURES
    reference: tuple[str, ...] | None = None
    quick: bool = False
    seed: int = 0
    test: str = "paired_t"
    alpha: float = 0.05
    baselines: tuple[str, ...] = ()  # the systems every other is tested against (none: each measure's best)
    epsilon: float = 0.01
    pool_depth: int | None = None
    qrels_b: str | None = None  # a second qrels (e.g. LLM labels): the agreement section
    gold_topics: tuple[str, ...] | None = None  # with qrels_b: the topics people judged (the PPI section)
    repro: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # original and reproduced runs: the reproduction section
    options: dict = field(default_factory=dict)
    figures: bool | None = None  # None: as the effort decides (the full report draws them, --quick does not)
    bayes: bool = False  # the Bayesian comparison section (irstats.stats.bayes)
    rope: float | None = None  # its ROPE, in the measures' units (None: each measure's default)

    @property
    def effort(self) -> Effort:
        """The resample counts and figures of this report: ``--quick``'s or the full report's,
        with ``figures`` as asked when it is given."""
        effort = QUICK_EFFORT if self.quick else FULL_EFFORT
        if self.figures is not None and self.figures != effort.figures:
            effort = replace(effort, figures=self.figures)
        return effort


@dataclass
class Study:
    """The evaluated collection that every section reads from."""

    qrels_path: str
    collection: Collection
    scores: dict[str, ScoreMatrix]
    settings: StudySettings
    out_dir: Path  # the scratch folder being written
    runs: list
    judgments: Judgments  # the runs read once; the scores and the depth sweep both come from it

    @property
    def measures(self) -> tuple[str, ...]:
        return self.settings.measures

    def figure_path(self, name: str) -> Path:
        path = self.out_dir / "figures" / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    pdfs: "BackgroundPdfs | None" = None
    run_files: tuple[str, ...] = ()  # every run file read, as found (a folder or glob expanded)
    call: str = ""  # the API call that made the report (when no command line is given)

    def figure(self, name: str, caption: str, draw: Callable[[], tuple]) -> Figure | None:
        """The figure ``name`` of the page, or None when this report draws none (``--quick``).

        ``draw()`` makes it and returns ``(ax, data)``: called only when figures are drawn, so
        a report without them never imports matplotlib. Saved as ``figures/<name>.png``
        (shown) and ``.pdf`` (for a paper), the same drawing at :data:`FIGURE_SIZE` width with
        TrueType fonts (:func:`irstats.plots.save`), its data as CSV beside them. The PDF is
        drawn by :class:`BackgroundPdfs` on the other core while the report goes on — and the
        PNG too when that core is free (drawing a figure is a good part of the report's time);
        the PNG exists once :meth:`BackgroundPdfs.wait` has returned."""
        if not self.settings.effort.figures:
            return None
        from irstats.plots import save

        self.keep_drawing()
        ax, data = draw()
        png = self.figure_path(name)
        if self.pdfs is not None and self.pdfs.idle():
            from irstats.io.output import write_text

            if data is not None:  # written here: polars is not safe to use in a forked child
                write_text(png.with_suffix(".csv"), data.write_csv(), fsync=False)
            self.pdfs.submit(ax.figure, png.with_suffix(".pdf"), png=png)
        else:
            save(ax, png, data)  # the final drawing, laid out
            if self.pdfs is None:
                _write_pdf(ax.figure, png.with_suffix(".pdf"))
            else:
                self.pdfs.submit(ax.figure, png.with_suffix(".pdf"))
        return Figure(name, png, caption)

    def keep_drawing(self, steps: int = 0) -> None:
        """Give the PDF writer its next figures if it is done with the last ones.

        The sections pass it as the ``progress`` of their long experiments (a callable
        :data:`irstats.progress.Progress`, called at every batch of ``steps``): they draw no
        bar of their own (the report's bar shows its stages), and the other core does not sit
        idle while a section computes."""
        if self.pdfs is not None:
            self.pdfs.poll()


class BackgroundPdfs:
    """Draw each figure's PDF in a forked child process while the report goes on.

    Drawing every figure a second time, as PDF, is a good part of the report's time while
    the second core sits idle. A child made by ``fork`` holds the finished figure already (no
    pickling, no imports), writes the PDF atomically and leaves by ``os._exit`` — never
    through the parent's clean-up code. One child at a time (the parent has the other core):
    a figure submitted while one runs is queued and the parent goes on, never waiting; when
    the parent next looks (:meth:`poll`: at each figure, between the report's stages and at
    every batch of a section's long experiments, :meth:`Study.keep_drawing`) and the child is
    done, one child is forked for every PDF queued. When no child is busy, the report gives
    it the figure's PNG to draw as well (:meth:`idle`, :meth:`Study.figure`). At the end the
    parent draws what is still queued itself while the last child finishes (:meth:`wait`,
    which raises if a figure could not be written); the report waits for every figure before
    it is committed. When the report fails or is interrupted, the running child is killed
    and reaped before the scratch folder it writes in is removed, and the queue is dropped.
    Without ``fork`` (Windows) the figures are drawn in place.

    Interrupts: the child is forked, and registered for that clean-up
    (:func:`irstats._interrupts.track`), in one deferred block, so no signal comes between
    the two — nor, in the child, before it has restored the default handlers (a signal held
    there ends the child at once). The child is known unreaped until the parent has reaped it
    and forgotten it in one deferred block, so it is never killed after its process id could
    have been reused.
    """

    def __init__(self) -> None:
        self._child: tuple[int, Path, int] | None = None  # process id, PDF, read end of its error pipe
        self._child_pngs = False  # whether the running child writes a PNG too
        self._token: int | None = None
        self._queue: list[_Job] = []  # not yet given to a child

    def submit(self, figure, path: Path, png: Path | None = None) -> None:
        """Queue the PDF of the finished ``figure``: a child draws it as soon as none runs.
        With ``png``, the child writes the PNG there first (not its data: the caller writes
        that, a forked child must not use polars) and the parent closes the figure."""
        import os

        if not hasattr(os, "fork"):
            _write_here(_Job(figure, path, png))
            return
        self._queue.append(_Job(figure, path, png))
        self.poll()
        if png is not None:
            import matplotlib.pyplot as plt

            plt.close(figure)  # as save() would have (the child has its own copy, or will)

    def drawing_pngs(self) -> bool:
        """Whether a PNG is still to be written (by a child, or queued for one)."""
        return self._child_pngs or any(job.png is not None for job in self._queue)

    def idle(self) -> bool:
        """Whether no child is drawing and no figure waits for one (after :meth:`poll`)."""
        self.poll()
        return self._child is None and not self._queue

    def poll(self) -> None:
        """Reap the child if it has finished (raise if it failed) and fork the next queued
        PDF's; return at once if a child is still drawing."""
        if self._child is not None:
            if not self._finished():
                return
            self._reap()
        self._fork_queued()

    def wait(self) -> None:
        """Draw every queued figure and wait for the last; raise if one could not be written.
        The parent has nothing else left to do: it draws what is queued itself while the
        running child finishes, rather than waiting for it and forking another."""
        while self._queue:
            if self._child is None:
                self._fork_queued()
            else:
                _write_here(self._queue.pop(0))
        if self._child is not None:
            self._reap()

    def _fork_queued(self) -> None:
        """A child for every PDF queued now, drawn one after the other (fewer forks, and no
        wait for the parent to look again between them)."""
        if not self._queue:
            return
        batch, self._queue = self._queue, []
        self._fork(batch)

    def _fork(self, batch: list[_Job]) -> None:
        import os
        import warnings

        from irstats._interrupts import deferred, track

        # matplotlib's PDF backend (and fontTools, with which it subsets the fonts) imported
        # once here rather than anew in every child: ~0.1 s of each child's time
        import matplotlib.backends.backend_pdf  # noqa: F401

        with deferred():
            errors, error_end = os.pipe()  # the child's one line, if it cannot write the PDF
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork in a threaded process
                pid = os.fork()
            if pid == 0:
                os.close(errors)
                _pdf_child(batch, error_end)  # never returns
            os.close(error_end)
            self._child = (pid, batch[0].pdf, errors)  # a child that dies unheard is named by its first PDF
            self._child_pngs = any(job.png is not None for job in batch)
            self._token = track(self._kill)

    def __enter__(self) -> "BackgroundPdfs":
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None:  # the report failed or was interrupted: its PDFs are not wanted
            from irstats._interrupts import settle

            self._queue.clear()
            settle(self._token, undo=True)

    def _finished(self) -> bool:
        """Whether the running child has ended (it is not reaped: it stays known until :meth:`_reap`)."""
        import os

        if not (hasattr(os, "waitid") and hasattr(os, "WNOWAIT")):
            return False  # no way to look without reaping: the next wait() reaps it
        assert self._child is not None  # asked while a child runs
        return os.waitid(os.P_PID, self._child[0], os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None

    def _reap(self) -> None:
        """Wait for the running child and reap it; raise if it could not write its PDF."""
        import os

        from irstats._interrupts import deferred, settle

        assert self._child is not None  # asked while a child runs
        pid, path, errors = self._child
        if hasattr(os, "waitid") and hasattr(os, "WNOWAIT"):  # wait, not reap: interrupted here, the child stays known
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        with deferred():  # reaped and forgotten together
            _, status = os.waitpid(pid, 0)
            self._child, self._child_pngs = None, False
            settle(self._token, undo=False)
            self._token = None
            message = _drain(errors)
        if os.waitstatus_to_exitcode(status) != 0:
            from irstats.errors import ResourceError

            # the child's own line names the path and the cause ("No space left on device")
            raise ResourceError(message or f"could not write the figure (its process ended with status "
                                           f"{os.waitstatus_to_exitcode(status)})", path=None if message else str(path))

    def _kill(self) -> None:
        """Kill and reap the running child (registered as its clean-up)."""
        import os
        import signal

        if self._child is None:
            return
        pid, _, errors = self._child
        self._child = None
        _drain(errors)
        try:
            os.kill(pid, signal.SIGKILL)  # not reaped yet, so the id is still this child's
            os.waitpid(pid, 0)
        except OSError:
            pass


def _pdf_child(batch: list[_Job], error_end: int) -> None:
    """The forked child: restore the default signal handlers, draw and write each figure of
    ``batch`` in turn, leave by ``os._exit`` whatever happens (never through the parent's
    code). If a file cannot be written, its one-line reason (naming the path, e.g. "No space
    left on device") goes to the parent through ``error_end``, and the rest are not drawn."""
    import os
    import signal

    from irstats._interrupts import held
    from irstats.errors import IrstatsError

    code = 1
    try:
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            if hasattr(signal, name) and signal.getsignal(getattr(signal, name)) is not signal.SIG_IGN:
                signal.signal(getattr(signal, name), signal.SIG_DFL)
        if not held():  # no interrupt came before the default handlers were back
            path = None
            try:
                for job in batch:
                    if job.png is not None:
                        path = job.png
                        _write_png(job.figure, job.png)
                    path = job.pdf
                    _write_pdf(job.figure, job.pdf)
                code = 0
            except OSError as exc:
                _tell(error_end, f"{path}: could not write the figure ({exc.strerror or exc})")
            except IrstatsError as exc:  # the writers' own, naming the path: "… (No space left on device)"
                _tell(error_end, f"could not write the figure: {exc}")
            except Exception as exc:  # noqa: BLE001 - whatever it is, the parent says it in one line
                _tell(error_end, f"{path}: could not write the figure ({exc})")
    finally:
        os._exit(code)


def _tell(fd: int, message: str) -> None:
    import os

    try:
        os.write(fd, message.encode("utf-8", "replace")[:4000])
    except OSError:
        pass


def _drain(fd: int) -> str:
    """What a finished child wrote to its error pipe (the pipe is closed)."""
    import os

    chunks = []
    try:
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
    except OSError:
        pass
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace").strip()


@dataclass
class _Job:
    """A finished figure for :class:`BackgroundPdfs`: its PDF, and its PNG when the child
    draws that too."""

    figure: object
    pdf: Path
    png: Path | None = None


def _write_here(job: _Job) -> None:
    """:func:`_write_figure` in this process; a file it cannot write fails as a child's does (one line)."""
    try:
        _write_figure(job)
    except OSError as exc:
        from irstats.errors import ResourceError

        raise ResourceError(f"{job.pdf}: could not write the figure ({exc.strerror or exc})") from exc


def _write_figure(job: _Job) -> None:
    """The PNG (when the job has one), then the PDF."""
    if job.png is not None:
        _write_png(job.figure, job.png)
    _write_pdf(job.figure, job.pdf)


def _write_png(figure, path: Path) -> None:
    """The PNG, drawn as the parent draws it (its data is written by the parent)."""
    from irstats.plots import save

    save(figure, path)


def _write_pdf(figure, path: Path) -> None:
    """The PDF drawn as :func:`irstats.plots.save` draws every figure (so it is the same file
    whether or not a child drew it). A figure already drawn (its PNG) keeps the layout it was
    drawn with (:func:`irstats.plots.save`): the PDF is the same drawing, and its layout is
    not computed a second time."""
    from irstats.plots import save

    save(figure, path)


@dataclass
class ReportResult:
    out_dir: Path
    html: Path
    markdown: Path
    tables: dict[str, pl.DataFrame]
    seconds: float


SectionBuilder = Callable[[Study], "Section | None"]  # None: the section does not apply


def command_line(command: str | Sequence[str] | None, call: str = "") -> str:
    """The exact command that made the report: ``command`` as given when it is text (the
    command line, as :func:`exact_command` writes it), ``irstats`` and the arguments when it
    is a list of them, else the Python call (``call``)."""
    if isinstance(command, str):
        return command
    if command is not None:
        return shlex.join(["irstats", *command])
    return call or shlex.join(sys.argv)


def exact_command(args: Sequence[str], name: str = "report") -> str:
    """The command line of ``irstats NAME ARGS`` as it was run: this process's own ``sys.argv``
    when it is that command (the ``irstats`` script, or ``python -m irstats`` as Python saw it
    in ``sys.orig_argv``), else ``irstats`` with the arguments (``main([...])`` called from
    Python)."""
    import os

    argv = list(sys.argv)
    if argv[1:] == [name, *args]:
        if os.path.basename(argv[0]) == "__main__.py":  # python -m irstats
            return shlex.join(getattr(sys, "orig_argv", None) or [sys.executable, "-m", "irstats", *argv[1:]])
        return shlex.join(argv)
    return shlex.join(["irstats", name, *args])


def api_call(function: str, args: Sequence, kwargs: dict) -> str:
    """A Python call as text, for the provenance of a report made from Python: paths, names,
    numbers and lists of them as written; anything else (a DataFrame of runs…) by its type."""
    import os

    def shown(value) -> str:
        if isinstance(value, os.PathLike):
            return repr(os.fspath(value))
        if isinstance(value, (list, tuple)):
            inner = ", ".join(shown(v) for v in value)
            return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
        if value is None or isinstance(value, (str, bool, int, float)):
            return repr(value)
        return f"<{type(value).__name__}>"

    return f"{function}(" + ", ".join([shown(a) for a in args] + [f"{k}={shown(v)}" for k, v in kwargs.items()]) + ")"


def input_files(study: "Study") -> pl.DataFrame:
    """Every input file of the study — the qrels, each run read, the second qrels and the
    reproduction's runs — with its absolute path, size and the SHA-256 of its bytes as stored
    (standard input and pipes: of the bytes that were read)."""
    import hashlib
    import os

    from irstats.io.trec import STDIN, read_raw

    entries: list[tuple[str, str]] = [("qrels", study.collection.source or "DataFrame")]
    entries += [("run", f) for f in study.run_files]
    if study.settings.qrels_b:
        entries.append(("qrels B", study.settings.qrels_b))
    if study.settings.repro:
        entries += [("original run", f) for f in study.settings.repro[0]]
        entries += [("reproduced run", f) for f in study.settings.repro[1]]
    rows: list[dict[str, object]] = []
    for role, name in entries:
        if name in ("DataFrame", "", None):  # given as data, not as a file
            rows.append({"role": role, "path": "(data frame)", "bytes": None, "sha256": ""})
            continue
        path = Path(name)
        if name != STDIN and path.is_file():
            digest = hashlib.sha256()
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
            size = path.stat().st_size
            shown = os.path.abspath(path)
        else:  # standard input or a pipe: read once, kept (irstats.io.trec.read_raw)
            data = read_raw(name)
            digest, size = hashlib.sha256(data), len(data)
            shown = "(standard input)" if name == STDIN else os.path.abspath(name)
        rows.append({"role": role, "path": shown, "bytes": size, "sha256": digest.hexdigest()})
    return pl.DataFrame(rows, schema={"role": pl.String, "path": pl.String, "bytes": pl.Int64, "sha256": pl.String})


def environment() -> dict[str, str]:
    """The versions of Python, irstats and the libraries behind a report's numbers and figures
    (matplotlib's as installed when the report drew no figure: it is not imported for them)."""
    import scipy

    from irstats import __version__

    if "matplotlib" in sys.modules:
        matplotlib_version = sys.modules["matplotlib"].__version__
    else:
        from importlib.metadata import version

        matplotlib_version = version("matplotlib")
    return {"irstats": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "polars": pl.__version__, "scipy": scipy.__version__, "matplotlib": matplotlib_version}
