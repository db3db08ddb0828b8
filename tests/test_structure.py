"""The code's shape (issues 11, 24, 37): no import cycle between irstats' modules (counting the
imports inside functions), no measure name
compared as a string outside measures/ (where the families declare their names) nor a family
looked up by name where a role is meant, no statistical test or design dispatched by name,
and nothing outside Judgments touches its cache."""

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


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:`` (names for annotations, never run)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            out |= {id(inner) for inner in ast.walk(node)}
    return out


def _imports(path: Path, known: set[str]) -> set[str]:
    """irstats modules ``path`` imports — at its top or inside a function alike (an import
    deferred into a function still ties the two modules together); not those only named for
    type checkers."""
    tree = ast.parse(path.read_text())
    skipped = _type_checking_only(tree)
    deps = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("irstats"):
            deps.add(node.module)
            deps |= {f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in known}
        elif isinstance(node, ast.Import):
            deps |= {a.name for a in node.names if a.name.startswith("irstats")}
    return deps & known


def test_no_import_cycle():
    modules = _modules()
    graph = {name: _imports(path, set(modules)) - {name} for name, path in modules.items()}

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


def _name_comparisons(path: Path, names: set[str]):
    """Where ``path`` compares a string with one of ``names``: ``x == "AP"``, ``x != "AP"``,
    ``x in ("AP", "P")`` (a literal tuple, list or set holding one), ``"AP" in x``; as
    (line, the names, the source)."""
    text = path.read_text()

    def literals(node) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return []

    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Compare) and all(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
                                                 for op in node.ops):
            found = sorted({s for side in (node.left, *node.comparators) for s in literals(side)} & names)
            if found:
                yield node.lineno, found, ast.get_source_segment(text, node)


#: Measure names still compared as strings outside their declarations (file, name, why), each
#: to be moved into a declaration by the work named; the test fails on any other, and on an
#: entry here that no longer occurs (so the list only shrinks).
KNOWN_NAME_COMPARISONS = {
}


def test_no_measure_name_compared_as_a_string_outside_its_declaration():
    """Family names (``AP``, ``NumRel`` …) are compared as strings only in measures/, where the
    families are declared (issue 24: a measure's names, kernel and tie expectation live in its
    family's declaration; everything else reads the declaration)."""
    from irstats.measures import FAMILIES

    names = set(FAMILIES)
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted((SRC / "irstats").rglob("*.py")):
        if "measures" in path.parts:
            continue
        for line, hits, source in _name_comparisons(path, names):
            for name in hits:
                found.setdefault((str(path.relative_to(SRC)), name), []).append(f"{line}: {source}")
    new = {key: where for key, where in found.items() if key not in KNOWN_NAME_COMPARISONS}
    assert not new, "measure names compared as strings:\n" + "\n".join(
        f"{file}:{w}" for (file, _), lines in new.items() for w in lines)
    stale = set(KNOWN_NAME_COMPARISONS) - set(found)
    assert not stale, f"no longer compared, remove from KNOWN_NAME_COMPARISONS: {sorted(stale)}"


def _family_lookups(path: Path, names: set[str]):
    """Where ``path`` looks a family's measure up by its name: ``scores["NumRet"]``,
    ``matrices.get("AP")``, ``FAMILIES["AP"]``; as (line, the source)."""
    text = path.read_text()

    def named(node: ast.expr) -> bool:
        return isinstance(node, ast.Constant) and node.value in names

    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Subscript) and named(node.slice) or (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and node.args and named(node.args[0])):
            yield node.lineno, ast.get_source_segment(text, node)


#: Families still looked up by name where a role is meant (file: why), each to ask
#: ``measure_for(Role…)`` instead; the test fails on any other and on an entry no longer found.
KNOWN_FAMILY_LOOKUPS: dict[str, str] = {}


def test_no_family_looked_up_by_name_where_a_role_is_meant():
    """The default measure, R per topic, the documents retrieved, the judged share and the pool
    variant are asked for by role (``measures.measure_for(Role.…)``, issue 37), never as
    ``scores["NumRet"]`` or ``FAMILIES["AP"].name``."""
    from irstats.measures import FAMILIES

    names = set(FAMILIES)
    found = {str(path.relative_to(SRC)): [f"{line}: {source}" for line, source in _family_lookups(path, names)]
             for path in sorted((SRC / "irstats").rglob("*.py")) if "measures" not in path.parts}
    found = {file: lines for file, lines in found.items() if lines}
    new = {file: lines for file, lines in found.items() if file not in KNOWN_FAMILY_LOOKUPS}
    assert not new, "families looked up by name:\n" + "\n".join(f"{f}:{w}" for f, lines in new.items() for w in lines)
    stale = set(KNOWN_FAMILY_LOOKUPS) - set(found)
    assert not stale, f"no longer looked up by name, remove from KNOWN_FAMILY_LOOKUPS: {sorted(stale)}"


def test_only_judgments_touches_its_cache():
    offenders = [str(p.relative_to(SRC)) for p in (SRC / "irstats").rglob("*.py")
                 if p.name != "judgments.py" and re.search(r"\bj(udgments)?\._cache\b", p.read_text())]
    assert not offenders, offenders


def test_no_statistical_test_name_compared_as_a_string_outside_its_declaration():
    """Paired tests (``paired_t``, ``bootstrap`` …), the tests whose power is analysed
    (``two_sample_t``, ``two_way_anova_replicated`` …) and the topic-set designs (``anova``,
    ``two_sample_ci`` …) are read from their declarations in stats/pairwise.TESTS,
    stats/power.POWER_DESIGNS and stats/topicset.TOPIC_SET_DESIGNS (whether one resamples and
    with which core, its p-value, its degrees of freedom, its unit …), never dispatched by name
    (issue 24 item 4, issue 37)."""
    from irstats.stats.pairwise import TESTS
    from irstats.stats.power import POWER_DESIGNS
    from irstats.stats.topicset import TOPIC_SET_DESIGNS

    names = set(TESTS) | set(POWER_DESIGNS) | set(TOPIC_SET_DESIGNS)
    found = [f"{path.relative_to(SRC)}:{line}: {source}"
             for path in sorted((SRC / "irstats").rglob("*.py"))
             for line, _, source in _name_comparisons(path, names)]
    assert not found, "test names compared as strings:\n" + "\n".join(found)
