"""``irstats trec_eval`` as a click command (for ``irstats --help`` and callers of the click
group); the command line itself is :mod:`irstats.trec_eval.command`'s, which
:func:`irstats.cli.main.main` calls without click."""

from __future__ import annotations

import sys

import click

from irstats.cli.group import cli


@cli.command("trec_eval", context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                             "help_option_names": []}, add_help_option=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def trec_eval_command(args):
    """trec_eval 10's command line and output (alias trec_eval='irstats trec_eval')."""
    from irstats.trec_eval.command import run

    code = run(list(args))
    if code:
        sys.exit(code)
