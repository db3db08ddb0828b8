"""The command line's shape: commands are views of the API and do not import each other."""

from __future__ import annotations

import ast
from pathlib import Path

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
