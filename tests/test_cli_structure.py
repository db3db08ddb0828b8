"""The command line's shape: commands are views of the API and do not import each other."""

from __future__ import annotations

import ast
from pathlib import Path

from irstats.result import FORMATS

CLI = Path(__file__).resolve().parents[1] / "src" / "irstats" / "cli"


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_no_command_module_imports_another():
    commands = sorted(CLI.glob("*_cmd.py"))
    assert len(commands) >= 10
    modules = {f"irstats.cli.{p.stem}" for p in commands}
    for path in [*commands, *(p for p in CLI.glob("*.py") if not p.stem.endswith("_cmd") and p.stem != "main")]:
        own = f"irstats.cli.{path.stem}"
        others = {m for m in imported_modules(path) if m in modules and m != own}
        assert not others, f"{path.name} imports {sorted(others)}"


#: Options declared once, in irstats.cli.output (output_options, output_file_option, seed_option).
SHARED_OPTIONS = {"--format", "-o", "--output", "--seed"}


def hand_declared_shared_options(cli_folder: Path) -> list[str]:
    """``click.option(...)`` calls outside irstats.cli.output that declare a shared option; a
    folder written whole (``report -o/--out``, type OutputFolder) is another option."""
    found = []
    for path in sorted(cli_folder.glob("*.py")):
        if path.stem == "output":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "option"):
                continue
            flags = {a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
            folder = any(k.arg == "type" and isinstance(k.value, ast.Call) and isinstance(k.value.func, ast.Name)
                         and k.value.func.id == "OutputFolder" for k in node.keywords)
            if flags & SHARED_OPTIONS and not folder:
                found.append(f"{path.name}:{node.lineno}: {sorted(flags)}")
    return found


def test_output_and_seed_options_are_declared_once():
    """No module of the command line declares ``--format``, ``-o/--output`` or ``--seed`` by hand:
    each comes from its decorator in irstats.cli.output, so every command words and checks it alike."""
    by_hand = hand_declared_shared_options(CLI)
    assert not by_hand, "declared by hand, not by irstats.cli.output's decorators:\n" + "\n".join(by_hand)


def test_every_format_option_has_the_one_wording():
    """Not vacuous, the check above: every command's ``--format`` (20 and more) has the help
    irstats.cli.output words, naming each of its formats."""
    import click

    from irstats.cli.main import cli
    from irstats.cli.output import FORMAT_WORDS

    ctx = click.Context(cli)
    commands = []
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        group = isinstance(command, click.Group)
        commands += [command.get_command(ctx, n) for n in command.list_commands(ctx)] if group else [command]
    formats = [p for c in commands for p in c.params if isinstance(p, click.Option) and "--format" in p.opts]
    assert len(formats) >= 20
    for option in formats:
        assert option.help.startswith("Output format"), option.help
        named = option.type.choices if isinstance(option.type, click.Choice) else FORMATS
        assert all(FORMAT_WORDS[f] in option.help for f in named), option.help


def test_an_evaluation_option_is_one_flag_declaration():
    """Every flag of EVAL_FLAGS sets a field of EvalOptions, and the flags' values reach it: a
    command given ``-l 2 -c -M none -J --float32 --drop-r0`` runs with exactly those options."""
    import dataclasses

    import click
    from click.testing import CliRunner

    from irstats.cli.common import EVAL_FLAGS, eval_options
    from irstats.collection import EvalOptions

    fields = {f.name for f in dataclasses.fields(EvalOptions)}
    assert {flag.sets for flag in EVAL_FLAGS} <= fields
    seen = []

    @click.command()
    @eval_options
    def probe(options):
        seen.append(options)

    assert CliRunner().invoke(probe, []).exit_code == 0
    assert seen.pop() == EvalOptions()
    result = CliRunner().invoke(probe, ["-l", "2", "-c", "-M", "none", "-J", "--float32", "--drop-r0",
                                        "--order", "rank", "--qrels-duplicate", "max"])
    assert result.exit_code == 0, result.output
    assert seen.pop() == EvalOptions(rel_level=2, complete=True, depth=None, judged_only=True, score_dtype="float32",
                                     drop_r0=True, order="rank", qrels_duplicate="max")
