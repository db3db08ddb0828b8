"""``irstats`` entry point: the list of commands, signals, error and warning handling.

Start-up: this module imports only the standard library; the click group
(:mod:`irstats.cli.group`) is imported to run a command. Commands are listed in
``COMMANDS`` with their one-line help and imported on first use, so ``irstats --help``
imports no command and ``irstats eval`` imports only ``eval``'s module (and through it
numpy, never polars, scipy or matplotlib on plain TREC files). ``irstats trec_eval`` parses
trec_eval's options itself (:mod:`irstats.trec_eval.command`) and never imports click.

Interrupts: when this process *is* irstats (the ``irstats`` script or ``python -m
irstats``), SIGINT, SIGTERM and SIGHUP (a closed terminal) get one handler, installed
before anything else is imported; then, if the environment names a file in
``IRSTATS_READY_FILE``, that file is created — the promise below holds from that moment.
While a command runs, the signal becomes a ``KeyboardInterrupt``, so every ``finally``
block (temporary files, scratch folders) runs; ``main()`` then removes whatever a clean-up
cut short left registered (:mod:`irstats._interrupts`), prints ``irstats: interrupted``
and exits 130 — for SIGTERM and SIGHUP too (the shell's convention would be 143 and 129;
one code for "interrupted" is simpler to script against). Inside a
:class:`~irstats._interrupts.deferred` block (making a scratch folder and registering its
removal, committing a folder, removing one) the interrupt is held until the block ends.
Before the command starts and after it has finished there is nothing to clean up: the
handler prints the same line and leaves with 130 at once. A second signal while the first
is being handled is ignored, so the clean-up is not cut short. Signals that arrive before
the handler is installed (while Python itself starts, or in a launcher's own first lines)
get Python's own treatment.
"""

from __future__ import annotations

import io
import os
import signal
import sys
from typing import TYPE_CHECKING

from irstats import _interrupts

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

_INTERRUPTED = "irstats: interrupted"

#: "starting" until main() is inside its try block, "running" while a command runs,
#: "stopping" once an interrupt is being handled, "finished" after the command.
_state = "starting"
_handlers_installed = False


def _hard_exit_interrupted() -> None:
    _interrupts.undo_all()  # nothing is registered before or after a command; if it were, remove it
    try:
        os.write(2, (_INTERRUPTED + "\n").encode())
    except OSError:
        pass
    os._exit(130)


def _on_signal(signum, frame) -> None:
    global _state
    if _state == "running":
        if _interrupts.hold(lambda: _on_signal(signum, None)):
            return  # inside a deferred block: raised when the block ends
        _state = "stopping"
        raise KeyboardInterrupt
    if _state == "stopping":
        return  # already interrupted: let the clean-up finish
    _hard_exit_interrupted()  # before or after the command: nothing to clean up


def _on_lost_interrupt(unraisable) -> None:
    """``sys.unraisablehook``: a KeyboardInterrupt raised where Python cannot propagate it
    (a weakref callback, ``__del__``, an import lock's clean-up) would be printed as
    "Exception ignored" and lost. Deliver it again, a moment later, in the main flow."""
    global _state
    if issubclass(unraisable.exc_type, KeyboardInterrupt) and _state == "stopping":
        import _thread
        import threading

        # The timer is made while the state is still "stopping", so that a further signal now
        # is ignored by _on_signal instead of raising inside this hook (which Python would print
        # as "Exception ignored in sys.unraisablehook", with a traceback); one that comes after
        # the state is "running" again is caught here: the timer's interrupt is on its way.
        try:
            threading.Timer(0.01, _thread.interrupt_main).start()
            _state = "running"
        except KeyboardInterrupt:
            _state = "running"
        return
    sys.__unraisablehook__(unraisable)


#: The signals that interrupt a command: Ctrl-C, ``kill``, a closed terminal.
INTERRUPT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def _install_signal_handlers() -> None:
    """SIGINT, SIGTERM and SIGHUP → :func:`_on_signal` (signals someone set to be ignored stay
    ignored), then create the file named by ``IRSTATS_READY_FILE``, if any."""
    global _handlers_installed
    if _handlers_installed:
        return
    sys.unraisablehook = _on_lost_interrupt
    _interrupts.guard_libraries()
    for sig in INTERRUPT_SIGNALS:
        try:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                signal.signal(sig, _on_signal)
        except (ValueError, OSError):  # not the main thread, or not supported here
            return
    _handlers_installed = True
    _announce_ready()


def _announce_ready() -> None:
    """Create the (empty) file ``IRSTATS_READY_FILE`` names: from now on a signal gets
    irstats' treatment. For supervisors and tests that must not signal earlier."""
    path = os.environ.get("IRSTATS_READY_FILE")
    if path:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o666))
        except OSError:
            pass


def _is_program() -> bool:
    """True when this process is the irstats command (its script, or ``python -m irstats``)."""
    path = os.path.normpath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    name = os.path.basename(path).lower()
    if name in ("irstats", "irstats.exe", "irstats-script.py"):
        return True
    return name == "__main__.py" and os.path.basename(os.path.dirname(path)) == "irstats"


if _is_program():  # first thing: Ctrl-C during the imports below is handled too
    _install_signal_handlers()

import warnings  # noqa: E402

from irstats.cli.commands import COMMANDS  # noqa: E402,F401 - read from here as before


def _show_warning(message, category, filename, lineno, file=None, line=None):
    _say(f"irstats: warning: {message}")


def __getattr__(name: str):
    """The click group and its helpers (:mod:`irstats.cli.group`), imported when first asked
    for: ``from irstats.cli.main import cli`` as ever, while the trec_eval drop-in, which
    parses its own options, never imports click."""
    if name in ("cli", "IrstatsGroup", "load_commands"):
        from irstats.cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed or gone
        pass


def _invoke(argv: list[str] | None) -> int:
    """Parse and run one command; click's exceptions pass through (click's own ``main``
    would print a blank line on Ctrl-C and exit 1 on a broken pipe). ``irstats trec_eval``
    parses trec_eval's options itself, so it goes straight to them: click is not imported."""
    args = list(sys.argv[1:] if argv is None else argv)
    completing = os.environ.get("_IRSTATS_COMPLETE")
    if args[:1] == ["trec_eval"] and not completing:
        from irstats.trec_eval.command import run

        return run(args[1:])
    import click

    from irstats.cli.group import cli

    if completing:  # shell completion is click's business
        return cli.main(args=args, prog_name="irstats", standalone_mode=False) or 0
    try:
        with cli.make_context("irstats", args) as ctx:
            result = cli.invoke(ctx)
    except click.exceptions.Exit as exc:  # --help, --version
        return exc.exit_code
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


def _click_exit(exc: Exception) -> int | None:
    """The exit code of one of click's exceptions (shown as click shows it), or None for any
    other exception; a prompt interrupted is the interrupt."""
    click = sys.modules.get("click")
    if click is None:
        return None
    if isinstance(exc, click.exceptions.Abort):
        raise KeyboardInterrupt from None
    if isinstance(exc, click.exceptions.ClickException):
        exc.show()
        return exc.exit_code
    return None


def _report(line: str) -> None:
    """An error's one line — unless an interrupt is being handled: a library that caught the
    KeyboardInterrupt and raised an error of its own instead (polars turns one into a
    TypeError) does not speak for the command; ``irstats: interrupted`` will."""
    if _state != "stopping":
        _say(line)


def _discard_standard_output() -> None:
    """Standard output, once it failed, points to the null device: what is still buffered is
    not written (or failed) again at the end."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _run(argv: list[str] | None) -> int:
    """The command's exit code; every error becomes one line on stderr, never a traceback."""
    from irstats.errors import IrstatsError, ResourceError

    try:
        return _invoke(argv)
    except IrstatsError as exc:
        _report(f"irstats: error: {exc}")
        return exc.exit_code
    except BrokenPipeError:  # the reader went away (| head): quietly done
        _discard_standard_output()
        return 0
    except OSError as exc:  # the machine, not the input: a file that cannot be read or written
        cause = exc.strerror or type(exc).__name__
        if exc.filename == STANDARD_OUTPUT:  # said once: what is still buffered goes nowhere
            _discard_standard_output()
            error = ResourceError.from_os_error(exc)
        else:
            error = ResourceError(cause, path=os.fsdecode(exc.filename) if exc.filename is not None else None)
        _report(f"irstats: error: {error}")
        return error.exit_code
    except Exception as exc:  # noqa: BLE001 - the contract: never a traceback
        code = _click_exit(exc)  # click's own errors (a bad option) are not irstats' to word
        if code is not None:
            return code
        if os.environ.get("IRSTATS_DEBUG"):
            raise
        _report(f"irstats: internal error: {type(exc).__name__}: {exc} (set IRSTATS_DEBUG=1 for a traceback)")
        return 3


def main(argv: list[str] | None = None) -> None:
    """Run the command line (``argv``: the arguments, default ``sys.argv[1:]``) and exit.

    Errors print one line and exit non-zero (2 for bad input, 1 for the machine), never a
    traceback; SIGINT, SIGTERM and SIGHUP print ``irstats: interrupted`` and exit 130.
    """
    global _state
    if argv is None:  # the program itself (also when launched some other way)
        _install_signal_handlers()
    if sys.stdout is None:  # closed by the caller (>&-): the result would be lost, so writing it fails
        sys.stdout = _ClosedStandardOutput()
    elif argv is None:
        _name_standard_output()
    if sys.stderr is None:  # closed too: irstats' lines go nowhere, as print() does then
        sys.stderr = open(os.devnull, "w")
    code = 130
    try:
        _state = "running"
        warnings.showwarning = _show_warning
        code = _run(argv)
        if _state == "stopping":  # interrupted, and the interrupt was swallowed on its way
            raise KeyboardInterrupt
        _state = "finished"
    except KeyboardInterrupt:
        _state = "stopping"
        _interrupts.undo_all()  # what an interrupted clean-up left (none when every finally ran)
        _say(_INTERRUPTED)
        code = 130
        if _handlers_installed:  # the program: finish here, so that the exit code is 130 whatever the
            _exit_now(code)      # interpreter's finalization makes of the interrupt (seen: death by SIGINT)
    if argv is None and _handlers_installed:
        _leave(code)
    if code:
        sys.exit(code)  # success returns, as it always did (callers in-process need not catch SystemExit)


#: How an error on standard output names it: ``standard output: cannot write (No space left on device)``.
STANDARD_OUTPUT = "standard output"


class _StandardOutputFile(io.FileIO):
    """File descriptor 1 as the program writes it, whose errors name it (a full disk under
    ``irstats eval … > /full/disk/out``): the OSError's ``filename`` is :data:`STANDARD_OUTPUT`.
    A reader gone (``| head``) stays the BrokenPipeError it is."""

    def write(self, data: ReadableBuffer, /) -> int:
        try:
            return super().write(data)
        except BrokenPipeError:
            raise
        except OSError as exc:
            exc.filename = STANDARD_OUTPUT
            raise


def _name_standard_output() -> None:
    """Standard output written through :class:`_StandardOutputFile`, with the encoding, error
    handler and line buffering Python gave it (nothing is written before this)."""
    stream = sys.__stdout__  # None where Python started without one; main() handles that case
    try:
        if stream is None or sys.stdout is not stream or stream.fileno() != 1:
            return
    except (OSError, ValueError):
        return
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_StandardOutputFile(1, "w", closefd=False)),
                                  encoding=stream.encoding, errors=stream.errors, line_buffering=stream.line_buffering)


class _ClosedStandardOutput(io.TextIOBase):
    """Standard output closed by the caller (``irstats eval … >&-``): a command that writes its
    result there fails in one line, exit 1, instead of exiting 0 having written nothing. A
    command that writes nothing there (``-o FILE``) is not concerned."""

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:
        if not text:
            return 0
        from irstats.errors import ResourceError

        raise ResourceError("cannot write (it is closed; give -o FILE, or leave it open)", path=STANDARD_OUTPUT)

    @property
    def buffer(self) -> "_ClosedStandardOutput":  # the bytes a command writes (the trec_eval drop-in) fail alike
        return self


def _leave(code: int) -> None:
    """The program's end once its command is done: what it printed is flushed — a failure
    there (a full disk) is the command's failure, one line and exit 1; the reader gone, as
    during the command, is quiet — the exit functions run (``atexit``, ``weakref.finalize``:
    temporary folders, clients), and the process leaves without the interpreter tearing down
    every module one by one: a fifth of a short command's time (``irstats eval`` on small
    files: 0.127 → 0.106 s), for nothing, as every file irstats writes is already closed."""
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):  # the reader gone, or the stream closed by the command's caller
        pass
    except OSError as exc:
        from irstats.errors import ResourceError

        error = ResourceError.from_os_error(exc, STANDARD_OUTPUT)
        _say(f"irstats: error: {error}")
        code = code or error.exit_code
    _exit_now(code)


def _exit_now(code: int) -> None:
    """Run the exit functions (``atexit``, ``weakref.finalize``), flush, and leave with ``code``."""
    import atexit

    if code:  # failed or interrupted, and said so in irstats' line: what a library's exit functions log
        sys.unraisablehook = lambda unraisable: None  # or raise about that state (Dask's close_clusters,
        logging = sys.modules.get("logging")           # asyncio's "Task exception was never retrieved")
        if logging is not None:                        # is not printed after it
            logging.disable(logging.CRITICAL)
    try:
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except BaseException:  # noqa: BLE001 - leaving anyway
        pass
    os._exit(code)
