"""The study a report is made of: its settings, the evaluated collection every section reads,
and the facts of how it was made. Sections (:mod:`irstats.report.sections`) read these;
:func:`irstats.report.study.build_report` makes them."""

from __future__ import annotations

import platform
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import polars as pl

from irstats.collection import Collection
from irstats.judgments import Judgments
from irstats.report.document import Section
from irstats.scores import ScoreMatrix

DEFAULT_REPORT_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)")
#: The report draws its figures at this width (:func:`irstats.plots.style`): the PDFs fit a
#: paper's page and the HTML shows PNG renders of the same drawings.
FIGURE_SIZE = "page"
#: Measures every report evaluates besides the chosen ones (collection facts, residuals).
SUPPORT_MEASURES = ("NumRel", "NumRet", "Judged@10", "Judged@100", "Judged@1000", "SP")


@dataclass
class StudySettings:
    """Everything that decides the numbers of a report (printed in its last section)."""

    measures: tuple[str, ...] = DEFAULT_REPORT_MEASURES
    reference: tuple[str, ...] | None = None
    quick: bool = False
    seed: int = 0
    test: str = "paired_t"
    alpha: float = 0.05
    epsilon: float = 0.01
    pool_depth: int | None = None
    qrels_b: str | None = None  # a second qrels (e.g. LLM labels): the agreement section
    gold_topics: tuple[str, ...] | None = None  # with qrels_b: the topics people judged (the PPI section)
    repro: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # original and reproduced runs: the reproduction section
    options: dict = field(default_factory=dict)

    @property
    def splits(self) -> int:
        """Random halvings for split-half consistency."""
        return 200 if self.quick else 2000

    @property
    def predictive_splits(self) -> int:
        return 200 if self.quick else 1000


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

    def save_figure(self, ax, name: str, data) -> Path:
        """Save a figure as ``figures/<name>.png`` (shown) and ``.pdf`` (for a paper), data as CSV.

        Both are the same drawing, at :data:`FIGURE_SIZE` width with TrueType fonts (see
        :func:`irstats.plots.save`). The PDF is drawn by :class:`BackgroundPdfs` on the other
        core while the report goes on."""
        from irstats.plots import save
        from irstats.plots.common import finish

        path = self.figure_path(name)
        finish(ax)  # the final drawing, before the PDF's child is forked with it
        if self.pdfs is None:
            return save(ax, path, data, also=(".pdf",))
        self.pdfs.submit(ax.figure, path.with_suffix(".pdf"))
        return save(ax, path, data)


class BackgroundPdfs:
    """Draw each figure's PDF in a forked child process while the report goes on.

    Drawing every figure a second time, as PDF, is a good part of the report's time while
    the second core sits idle. A child made by ``fork`` holds the finished figure already (no
    pickling, no imports), writes the PDF atomically and leaves by ``os._exit`` — never
    through the parent's clean-up code. One child at a time; :meth:`wait` raises if a child
    failed, and the report waits for every PDF before it is committed. When the report fails
    or is interrupted, the running child is killed and reaped before the scratch folder it
    writes in is removed. Without ``fork`` (Windows) the PDF is drawn in place.

    Interrupts: the child is forked, and registered for that clean-up
    (:func:`irstats._interrupts.track`), in one deferred block, so no signal comes between
    the two — nor, in the child, before it has restored the default handlers (a signal held
    there ends the child at once). The child is known unreaped until the parent has reaped it
    and forgotten it in one deferred block, so it is never killed after its process id could
    have been reused.
    """

    def __init__(self) -> None:
        self._child: tuple[int, Path, int] | None = None  # process id, PDF, read end of its error pipe
        self._token: int | None = None

    def submit(self, figure, path: Path) -> None:
        import os

        self.wait()
        if not hasattr(os, "fork"):
            _write_pdf(figure, path)
            return
        import warnings

        from irstats._interrupts import deferred, track

        with deferred():
            errors, error_end = os.pipe()  # the child's one line, if it cannot write the PDF
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork in a threaded process
                pid = os.fork()
            if pid == 0:
                os.close(errors)
                _pdf_child(figure, path, error_end)  # never returns
            os.close(error_end)
            self._child = (pid, path, errors)
            self._token = track(self._kill)

    def __enter__(self) -> "BackgroundPdfs":
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None:  # the report failed or was interrupted: its PDFs are not wanted
            from irstats._interrupts import settle

            settle(self._token, undo=True)

    def wait(self) -> None:
        """Wait for the running child; raise if it could not write its PDF."""
        import os

        from irstats._interrupts import deferred, settle

        if self._child is None:
            return
        pid, path, errors = self._child
        if hasattr(os, "waitid") and hasattr(os, "WNOWAIT"):  # wait, not reap: interrupted here, the child stays known
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        with deferred():  # reaped and forgotten together
            _, status = os.waitpid(pid, 0)
            self._child = None
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


def _pdf_child(figure, path: Path, error_end: int) -> None:
    """The forked child: restore the default signal handlers, draw and write the PDF, leave
    by ``os._exit`` whatever happens (never through the parent's code). If the PDF cannot be
    written, its one-line reason (naming the path, e.g. "No space left on device") goes to
    the parent through ``error_end``."""
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
            try:
                _write_pdf(figure, path)
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


def _write_pdf(figure, path: Path) -> None:
    """The PDF drawn as :func:`irstats.plots.save` draws every figure (so it is the same file
    whether or not a child drew it)."""
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
    rows = []
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
    import matplotlib
    import scipy

    from irstats import __version__

    return {"irstats": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "polars": pl.__version__, "scipy": scipy.__version__, "matplotlib": matplotlib.__version__}
