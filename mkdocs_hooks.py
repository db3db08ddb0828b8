"""MkDocs hook (mkdocs.yml's ``hooks:``): the reference pages, generated at every build, never
written into docs/.

* ``index.md``: the README (the site's front page is the repository's), its links to
  ``docs/…`` made relative to the site.
* ``reference/cli.md``: every command of the ``irstats`` click group (subcommands of groups
  included) with its full ``--help`` — every option, its type, default and help — and
  ``irstats trec_eval``, which parses trec_eval's options itself, with its own help text.
* ``reference/api.md``: every name in ``irstats.__all__``, linked to its documentation in the
  module that defines it, and a list of every public module (no part of its dotted name starts
  with an underscore), each with a page ``reference/api/<module>.md`` rendered by mkdocstrings
  from its docstrings.

The pages are added to the site's files (``on_files``; the two reference pages replace the stubs
of the same name in docs/, which say where the reference comes from to a reader of the
repository) and the API's module pages to the navigation under "API reference" (``on_config``),
grouped by subpackage.
"""

from __future__ import annotations

import pkgutil
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent
#: This checkout's sources: the commands and docstrings documented are this checkout's, whatever
#: irstats is installed (as mkdocstrings' ``paths: [src]`` reads them).
SOURCES = str(ROOT / "src")
CLI_PAGE = "reference/cli.md"
API_PAGE = "reference/api.md"
API_FOLDER = "reference/api"
#: The help's width in the CLI reference (click wraps at the terminal's width otherwise): what
#: the page's column shows without scrolling.
HELP_WIDTH = 80


def public_modules() -> list[str]:
    """Every public module of irstats, sorted (packages before their modules)."""
    import irstats

    names = ["irstats"] + [info.name for info in pkgutil.walk_packages(irstats.__path__, "irstats.")]
    return sorted(name for name in names if not any(part.startswith("_") for part in name.split(".")))


def _help(command, name: str, parent) -> str:
    import click

    with click.Context(command, info_name=name, parent=parent, max_content_width=HELP_WIDTH,
                       terminal_width=HELP_WIDTH) as ctx:
        return command.get_help(ctx)


def _commands(group, parent) -> list[tuple[str, str, str]]:
    """(full command name, one-line help, full help) of every command under ``group``, in its
    listed order."""
    import click

    found = []
    for name in group.list_commands(parent):
        command = group.get_command(parent, name)
        full, short = f"{parent.command_path} {name}", command.get_short_help_str(limit=200)
        if name == "trec_eval":  # parsed without click: its own usage text is its help
            from irstats.trec_eval.command import USAGE

            found.append((full, short, USAGE))
            continue
        found.append((full, short, _help(command, name, parent)))
        if isinstance(command, click.Group):
            with click.Context(command, info_name=name, parent=parent) as ctx:
                found += _commands(command, ctx)
    return found


def cli_page() -> str:
    """The CLI reference: the group's help, a table of the commands, then each command's help."""
    import click

    from irstats.cli.group import cli, load_commands

    load_commands()
    with click.Context(cli, info_name="irstats", max_content_width=HELP_WIDTH, terminal_width=HELP_WIDTH) as root:
        commands = _commands(cli, root)
        lines = ["# Command-line reference", "",
                 "Every command of `irstats` with its full `--help` (generated from the commands themselves at "
                 "each build of this site; `irstats COMMAND --help` prints the same).", "",
                 "```text", cli.get_help(root), "```", ""]
    lines += ["| command | what it does |", "|---|---|"]
    lines += [f"| [`{name}`](#{_anchor(name)}) | {short.replace('|', chr(92) + '|')} |" for name, short, _ in commands]
    lines.append("")
    for name, _, text in commands:
        lines += [f"## {name}", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(lines)


def _anchor(name: str) -> str:
    """The id Python-Markdown's toc gives the heading ``name`` (spaces → dashes, lower case)."""
    return "-".join(name.lower().split()).replace(".", "")


def api_index(modules: list[str]) -> str:
    """The API reference's front page: ``irstats.__all__`` (each name linked to its documentation
    in the module that defines it, with its docstring's first line) and the public modules."""
    import inspect

    import irstats

    lines = ["# API reference", "",
             "Generated from the docstrings at each build of this site. `import irstats` loads nothing "
             "until a name is used; every name below is importable from `irstats` itself.", "",
             f"`irstats.__version__`: `{irstats.__version__}`.", "",
             "## The names of `irstats`", "",
             "| name | what it is |", "|---|---|"]
    for name in irstats.__all__:
        module = irstats._LAZY.get(name)
        if module is None:  # __version__, written above
            continue
        value = getattr(irstats, name)
        doc = inspect.getdoc(value) if callable(value) else f"`{value!r}`"
        summary = plain_roles((doc or "").strip().split("\n\n")[0].replace("\n", " ").replace("|", "\\|"))
        lines.append(f"| [`{name}`](api/{module}.md#{module}.{name}) | {summary} (`{module}`) |")
    lines += ["", "## Modules", ""]
    lines += [f"- [`{module}`](api/{module}.md)" for module in modules]
    return "\n".join(lines) + "\n"


def api_page(module: str) -> str:
    return f"# `{module}`\n\n::: {module}\n    options:\n      show_root_heading: false\n"


def api_nav(modules: list[str]) -> list:
    """The navigation of the API reference: the index, then one entry per top-level module or
    subpackage (a subpackage's modules under it)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for module in modules[1:]:
        parts = module.split(".")
        groups[".".join(parts[:2])].append(module)
    nav: list = [{"Overview": API_PAGE}, {"irstats": f"{API_FOLDER}/irstats.md"}]
    for top, members in groups.items():
        if len(members) == 1:
            nav.append({top: f"{API_FOLDER}/{top}.md"})
        else:
            nav.append({top: [{m: f"{API_FOLDER}/{m}.md"} for m in members]})
    return nav


def _replace_placeholder(nav: list, title: str, entries) -> bool:
    """Put ``entries`` in place of the nav item titled ``title`` (searched at any depth)."""
    for position, item in enumerate(nav):
        if isinstance(item, dict):
            (key, value), = item.items()
            if key == title:
                nav[position] = {key: entries}
                return True
            if isinstance(value, list) and _replace_placeholder(value, title, entries):
                return True
    return False


def on_config(config, **kwargs):
    if SOURCES not in sys.path:  # here, not at import: MkDocs restores sys.path after loading a hook
        sys.path.insert(0, SOURCES)
    if config.nav and not _replace_placeholder(config.nav, "API reference", api_nav(public_modules())):
        raise ValueError("mkdocs.yml's nav has no 'API reference' entry for the generated API pages")
    return config


def front_page() -> str:
    """The README, its links into docs/ made relative to the site (docs/ is the site's root)."""
    return (ROOT / "README.md").read_text(encoding="utf-8").replace("](docs/", "](")


def on_files(files, config, **kwargs):
    from mkdocs.structure.files import File

    modules = public_modules()
    pages = {"index.md": front_page(), CLI_PAGE: cli_page(), API_PAGE: api_index(modules)}
    pages.update({f"{API_FOLDER}/{module}.md": api_page(module) for module in modules})
    for uri, content in pages.items():
        stub = files.get_file_from_path(uri)
        if stub is not None:
            files.remove(stub)
        files.append(File.generated(config, uri, content=content))
    return files


#: A Sphinx cross-reference role (``:func:`name```, ``:class:`~pkg.Name```): shown as the name in
#: code, as Sphinx would show it (``~``: the last part of the dotted name only).
_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj|const):`(~?)([^`]+)`")


def plain_roles(text: str) -> str:
    """``text`` with every Sphinx role written as code (Markdown shows ``:func:`` literally)."""
    return _ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text)


def fence_doctests(text: str) -> str:
    """``text`` with each doctest example (a ``>>>`` line, its ``...`` continuations and its
    expected output, up to a blank line) inside a fenced ``pycon`` block: Markdown would read
    ``>>>`` as a quotation and ``[[0.0, inf]]`` as a link."""
    lines, out, position = text.split("\n"), [], 0
    while position < len(lines):
        line = lines[position]
        if line.lstrip().startswith(">>>"):
            indent = line[:len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            while position < len(lines) and lines[position].strip():
                out.append(lines[position])
                position += 1
            out.append(f"{indent}```")
        else:
            out.append(line)
            position += 1
    return "\n".join(out)


try:
    import griffe
except ImportError:  # the MkDocs hook alone needs no griffe
    griffe = None
else:
    class DoctestFences(griffe.Extension):
        """Griffe extension (mkdocs.yml's mkdocstrings ``extensions``): :func:`fence_doctests` and
        :func:`plain_roles` on every docstring, so the API reference shows the examples as code
        and the Sphinx roles as names."""

        def on_object(self, *, obj, **kwargs) -> None:
            if obj.docstring is not None:
                obj.docstring.value = plain_roles(fence_doctests(obj.docstring.value))
