"""The code's shape (issue 11): no import cycle between irstats' modules, no if-chain over
measure family names outside measures/, and nothing outside Judgments touches its cache."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _top_level_imports(path: Path, known: set[str]) -> set[str]:
    """irstats modules imported when ``path`` is loaded (imports inside functions are lazy)."""
    deps = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("irstats"):
            deps.add(node.module)
            deps |= {f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in known}
        elif isinstance(node, ast.Import):
            deps |= {a.name for a in node.names if a.name.startswith("irstats")}
    return deps & known


def test_no_import_cycle():
    modules = _modules()
    graph = {name: _top_level_imports(path, set(modules)) - {name} for name, path in modules.items()}

    def related(a: str, b: str) -> bool:  # a package importing its own submodules is how packages work
        return a.startswith(b + ".") or b.startswith(a + ".")

    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if related(node, nxt):
                continue
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


def test_no_chain_over_family_names_outside_measures():
    from irstats.measures import FAMILIES

    names = "|".join(re.escape(n) for n in sorted(FAMILIES, key=len, reverse=True))
    comparison = re.compile(rf"""family\s*(==|!=|in)\s*[\(\[{{]?\s*["']({names})["']""")
    offenders = []
    for path in (SRC / "irstats").rglob("*.py"):
        if "measures" in path.parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if comparison.search(line):
                offenders.append(f"{path.relative_to(SRC)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_only_judgments_touches_its_cache():
    offenders = [str(p.relative_to(SRC)) for p in (SRC / "irstats").rglob("*.py")
                 if p.name != "judgments.py" and re.search(r"\bj(udgments)?\._cache\b", p.read_text())]
    assert not offenders, offenders
