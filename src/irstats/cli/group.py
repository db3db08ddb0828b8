"""The ``irstats`` click group: commands imported when first used.

Kept apart from :mod:`irstats.cli.main` (signals, errors, the entry point) so that a command
that parses its own options — ``irstats trec_eval`` — starts without importing click.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import click

from irstats import __version__
from irstats.cli.commands import BLAS_THREAD_VARIABLES, COMMANDS, ONE_BLAS_THREAD


#: The callbacks :func:`_sparing_inputs` made, so that a command added twice is guarded once.
_GUARDED_CALLBACKS: set[Callable[..., Any]] = set()


def _sparing_inputs(command: click.Command) -> click.Command:
    """``command`` whose callback first refuses an output that is one of its inputs
    (:func:`irstats.cli.output.spare_inputs`): the one guard every command passes, whatever
    its class, before it computes anything; and whose errors speak of the options the user
    typed, not of the API's keywords (:func:`irstats.cli.output.in_cli_words`)."""
    callback = command.callback
    if callback is not None and callback not in _GUARDED_CALLBACKS:
        @functools.wraps(callback)
        def guarded(*args, **kwargs):
            from irstats.cli.output import spare_inputs
            from irstats.errors import IrstatsError

            context = click.get_current_context()
            spare_inputs(context)
            show = warnings.showwarning

            def reworded(message, category, *rest, **more):  # warnings in the command line's words too
                from irstats.cli.output import cli_text

                return show(cli_text(str(message), context.command), category, *rest, **more)

            warnings.showwarning = reworded
            try:
                return callback(*args, **kwargs)
            except IrstatsError as error:  # the API's words for what the user typed on the command line
                from irstats.cli.output import in_cli_words

                in_cli_words(error, context.command)
                raise
            finally:
                warnings.showwarning = show

        _GUARDED_CALLBACKS.add(guarded)
        command.callback = guarded
    return command


class SubcommandGroup(click.Group):
    """A group inside irstats' (``irstats standardize fit|apply``): its commands are guarded too."""

    def add_command(self, cmd, name=None):
        super().add_command(_sparing_inputs(cmd), name)


class IrstatsGroup(click.Group):
    """Commands are imported when used: ``COMMANDS`` maps each name to ``module:attribute``
    and its one-line help, so the group's help lists them all without importing any.
    Listed in the order of a study; commands added with ``add_command`` come last. Every
    command added refuses to write over its own inputs (:func:`_sparing_inputs`)."""

    group_class = SubcommandGroup

    def add_command(self, cmd, name=None):
        super().add_command(_sparing_inputs(cmd), name)

    def list_commands(self, ctx):
        return [*COMMANDS, *(name for name in self.commands if name not in COMMANDS)]

    def get_command(self, ctx, cmd_name):
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            import importlib

            if cmd_name in ONE_BLAS_THREAD and "numpy" not in sys.modules:
                for variable in BLAS_THREAD_VARIABLES:  # read once, when numpy loads its BLAS: so before
                    os.environ.setdefault(variable, "1")
            module, _, attribute = COMMANDS[cmd_name][0].partition(":")
            command = getattr(importlib.import_module(module), attribute)
            self.add_command(command, cmd_name)  # the module's @cli.command did so too; harmless
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx, args):
        """As click's, with a "did you mean" for a command that does not exist (``irstats evl``)."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            from irstats.errors import did_you_mean

            hint = did_you_mean(name, self.list_commands(ctx))
            if hint:
                ctx.fail(f"No such command {name!r}{hint}")
        return super().resolve_command(ctx, args)

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
