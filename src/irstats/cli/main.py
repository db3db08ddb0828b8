"""``irstats`` entry point: the command group, error and warning handling."""

from __future__ import annotations

import os
import sys
import warnings

import click

from irstats import __version__
from irstats.errors import IrstatsError


class IrstatsGroup(click.Group):
    """Lists commands in the order they were added (the order of a study)."""

    def list_commands(self, ctx):
        return list(self.commands)


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
    """Import every ``irstats.cli.*_cmd`` module; each registers its command on ``cli``."""
    import importlib
    import pkgutil

    import irstats.cli as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.endswith("_cmd"):
            importlib.import_module(f"irstats.cli.{info.name}")


def _show_warning(message, category, filename, lineno, file=None, line=None):
    click.echo(f"irstats: warning: {message}", err=True)


def main(argv: list[str] | None = None) -> None:
    """Run the command line; errors print one line and exit 2, never a traceback."""
    load_commands()
    warnings.showwarning = _show_warning
    try:
        result = cli.main(args=argv, prog_name="irstats", standalone_mode=False)
        if isinstance(result, int) and result:
            sys.exit(result)
    except click.exceptions.Abort:
        click.echo("irstats: interrupted", err=True)
        sys.exit(130)
    except click.exceptions.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except IrstatsError as exc:
        click.echo(f"irstats: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("irstats: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(0)
    except Exception as exc:  # noqa: BLE001 - the contract: never a traceback
        if os.environ.get("IRSTATS_DEBUG"):
            raise
        click.echo(f"irstats: internal error: {type(exc).__name__}: {exc} (set IRSTATS_DEBUG=1 for a traceback)",
                   err=True)
        sys.exit(3)
