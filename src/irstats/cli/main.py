"""``irstats`` entry point: the command group, signals, error and warning handling.

Start-up: this module imports only ``click`` and the standard library. Commands are
listed in ``COMMANDS`` with their one-line help and imported on first use, so
``irstats --help`` imports no command and ``irstats eval`` imports only ``eval``'s module
(and through it numpy and polars, never scipy or matplotlib).

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

import os
import signal
import sys

from irstats import _interrupts

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

        _state = "running"
        threading.Timer(0.01, _thread.interrupt_main).start()
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

import click  # noqa: E402

from irstats import __version__  # noqa: E402

#: command name → ("module:attribute", first paragraph of its help), in the order of a study.
#: The help text is what ``irstats --help`` shows without importing the command's module;
#: tests/test_faults_startup.py checks that it matches the command's docstring.
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("irstats.cli.demo_cmd:demo_command",
             "Generate a synthetic test collection (50 topics, 30 runs, pooled graded qrels), evaluate it,\n"
             "and write the full study report on it."),
    "eval": ("irstats.cli.eval_cmd:eval_command",
             "Evaluate RUN files (files, directories or globs; plain or gzip) against QRELS."),
    "trec_eval": ("irstats.cli.trec_eval_cmd:trec_eval_command",
                  "trec_eval 10's command line and output (alias trec_eval='irstats trec_eval')."),
    "diversity": ("irstats.cli.diversity_cmd:diversity_command",
                  "Diversity measures of RUN files against subtopic QRELS: α-nDCG, ERR-IA, NRBP, P-IA, StRecall."),
    "preferences": ("irstats.cli.preferences_cmd:preferences_command",
                    "Preference measures of RUN files against preference judgments PREFS (trec_eval's prefs_*)."),
    "agreement": ("irstats.cli.agreement_cmd:agreement_command",
                  "Agreement of two qrels (Cohen's κ, Krippendorff's α) and of the conclusions they lead to."),
    "ppi": ("irstats.cli.ppi_cmd:ppi_command",
            "Prediction-powered means from human labels on a few topics and cheap labels on all (PPI++)."),
    "repro": ("irstats.cli.repro_cmd:repro_command",
              "Did a reproduction reproduce? KTU, RBO, RMSE, ER, ΔRI and t-tests (Breuer et al., SIGIR 2020)."),
    "aggregate": ("irstats.cli.aggregate_cmd:aggregate_command",
                  "Aggregate per-topic SCORES into one value per system and measure."),
    "standardize": ("irstats.cli.standardize_cmd:standardize_group",
                    "Standardize per-topic scores: z = (x − mean_t)/sd_t over reference systems, then Φ(z)."),
    "compare": ("irstats.cli.compare_cmd:compare_command",
                "Compare every system with a baseline: means, differences and significance per measure."),
    "anova": ("irstats.cli.anova_cmd:anova_command",
              "ANOVA of the systems of per-topic SCORES: variation, df, variance, F, p, ω², Tukey HSD."),
    "transforms": ("irstats.cli.transforms_cmd:transforms_command",
                   "Which system comparisons change direction or significance when the scores are transformed."),
    "risk": ("irstats.cli.risk_cmd:risk_command",
             "Risk of every system against a baseline: URisk, TRisk, ZRisk and GeoRisk per measure."),
    "topicset": ("irstats.cli.topicset_cmd:topicset_command",
                 "Topics needed to detect a difference with a given power, from a variance or a score file."),
    "power": ("irstats.cli.power_cmd:power_command",
              "Achieved power and the topics needed, from a reported t or F or from per-topic scores."),
    "difficulty": ("irstats.cli.difficulty_cmd:difficulty_command",
                   "Print the difficulty of every topic (rows: topic measure difficulty) from per-topic SCORES."),
    "splithalf": ("irstats.cli.splithalf_cmd:splithalf_command",
                  "Split-half self-consistency of aggregation methods on per-topic SCORES."),
    "predictive": ("irstats.cli.predictive_cmd:predictive_command",
                   "Predictive power φ of measures: how well one measure's system ordering on half of\n"
                   "the topics predicts another's on the other half (Webber et al., SIGIR 2008)."),
    "robustness": ("irstats.cli.robustness_cmd:robustness_command",
                   "Robustness of standardization to the number of standardizing systems (METHODS.md §5.3)."),
    "comparability": ("irstats.cli.comparability_cmd:comparability_command",
                      "Cross-collection comparability of raw, R-normalised and standardized scores "
                      "(METHODS.md §5.4)."),
    "volatility": ("irstats.cli.volatility_cmd:volatility_command",
                   "Volatility over evaluation depth: scores of RUN files at depths k up to and past the pool depth."),
    "report": ("irstats.cli.report_cmd:report_command",
               "Write a complete evaluation study of RUNS against QRELS: HTML and Markdown."),
}

#: Commands that keep a process of their own busy on another core (the report draws its
#: figures' PDFs in a forked child): the BLAS's thread pool would only contend with it for
#: the cores — the report took 10% longer with it on 2 cores — and its products here are
#: small. Set for the process (and so its children) unless the user set the variables.
ONE_BLAS_THREAD = frozenset({"report"})
_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class IrstatsGroup(click.Group):
    """Commands are imported when used: ``COMMANDS`` maps each name to ``module:attribute``
    and its one-line help, so the group's help lists them all without importing any.
    Listed in the order of a study; commands added with ``add_command`` come last."""

    def list_commands(self, ctx):
        return [*COMMANDS, *(name for name in self.commands if name not in COMMANDS)]

    def get_command(self, ctx, cmd_name):
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            import importlib

            if cmd_name in ONE_BLAS_THREAD and "numpy" not in sys.modules:
                for variable in _BLAS_THREADS:  # read once, when numpy loads its BLAS: so before
                    os.environ.setdefault(variable, "1")
            module, _, attribute = COMMANDS[cmd_name][0].partition(":")
            command = getattr(importlib.import_module(module), attribute)
            self.add_command(command, cmd_name)  # the module's @cli.command did so too; harmless
        return self.commands.get(cmd_name)

    def format_commands(self, ctx, formatter):
        """As click's, but a command not imported yet shows the help stored in ``COMMANDS``."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name) or click.Command(name, help=COMMANDS[name][1])
            if not command.hidden:
                rows.append((name, command))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, command.get_short_help_str(limit)) for name, command in rows])


@click.group(cls=IrstatsGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "-V", "--version", prog_name="irstats")
def cli():
    """irstats: evaluate rankers as trec_eval does, then aggregate, test and meta-evaluate the scores.

    \b
    Start with the demo, which makes a synthetic collection and evaluates it:
      irstats demo
    Evaluate runs against qrels:
      irstats eval qrels.txt runs/ -m AP -m nDCG@10 -m "RBP(p=0.8)"
    """


def load_commands() -> None:
    """Import every command now (they are otherwise imported on first use)."""
    for name in COMMANDS:
        cli.get_command(None, name)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    click.echo(f"irstats: warning: {message}", err=True)


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed or gone
        pass


def _invoke(argv: list[str] | None) -> int:
    """Parse and run one command; click's exceptions pass through (click's own ``main``
    would print a blank line on Ctrl-C and exit 1 on a broken pipe)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if os.environ.get("_IRSTATS_COMPLETE"):  # shell completion is click's business
        return cli.main(args=args, prog_name="irstats", standalone_mode=False) or 0
    try:
        with cli.make_context("irstats", args) as ctx:
            result = cli.invoke(ctx)
    except click.exceptions.Exit as exc:  # --help, --version
        return exc.exit_code
    return result if isinstance(result, int) and not isinstance(result, bool) else 0


def _run(argv: list[str] | None) -> int:
    """The command's exit code; every error becomes one line on stderr, never a traceback."""
    from irstats.errors import IrstatsError, ResourceError

    try:
        return _invoke(argv)
    except click.exceptions.Abort:  # a prompt interrupted
        raise KeyboardInterrupt from None
    except click.exceptions.ClickException as exc:
        exc.show()
        return exc.exit_code
    except IrstatsError as exc:
        _say(f"irstats: error: {exc}")
        return exc.exit_code
    except BrokenPipeError:  # the reader went away (| head): quietly done
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except OSError as exc:  # the machine, not the input: a file that cannot be read or written
        cause = exc.strerror or type(exc).__name__
        error = ResourceError(cause, path=os.fsdecode(exc.filename) if exc.filename is not None else None)
        _say(f"irstats: error: {error}")
        return error.exit_code
    except Exception as exc:  # noqa: BLE001 - the contract: never a traceback
        if os.environ.get("IRSTATS_DEBUG"):
            raise
        _say(f"irstats: internal error: {type(exc).__name__}: {exc} (set IRSTATS_DEBUG=1 for a traceback)")
        return 3


def main(argv: list[str] | None = None) -> None:
    """Run the command line (``argv``: the arguments, default ``sys.argv[1:]``) and exit.

    Errors print one line and exit non-zero (2 for bad input, 1 for the machine), never a
    traceback; SIGINT, SIGTERM and SIGHUP print ``irstats: interrupted`` and exit 130.
    """
    global _state
    if argv is None:  # the program itself (also when launched some other way)
        _install_signal_handlers()
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
    if code:
        sys.exit(code)  # success returns, as it always did (callers in-process need not catch SystemExit)


def _exit_now(code: int) -> None:
    """Run the exit functions (``atexit``, ``weakref.finalize``), flush, and leave with ``code``."""
    import atexit

    try:
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except BaseException:  # noqa: BLE001 - leaving anyway
        pass
    os._exit(code)
