"""The layers of docs/design.md, held (issue 37): an import only ever points down.

Each module of irstats belongs to one layer (:data:`LAYERS`, lowest first, as docs/design.md
draws them); a module may import its own layer and the layers below, never one above — at its
top or inside a function alike (a deferred import still ties the two together), not counting
the names imported for type checkers only. The imports that point up today are listed in
:data:`KNOWN_UPWARD` with what keeps them: the test fails on any other upward import, and on
an entry that no longer occurs, so the list only shrinks."""

from __future__ import annotations

from tests.test_structure import SRC, _imports, _modules

#: Layers, lowest first: the first name that a module's dotted name starts with decides.
LAYERS: list[tuple[str, ...]] = [
    ("irstats.errors", "irstats.ids", "irstats.random", "irstats.checks", "irstats.result", "irstats.render",
     "irstats.render_stream", "irstats._interrupts", "irstats.progress"),
    ("irstats.io", "irstats.factors", "irstats.extension"),
    ("irstats.collection", "irstats.judgments", "irstats.ingest", "irstats.measures", "irstats.qrels_arrays",
     "irstats.beyond", "irstats.subtopics", "irstats.preference_judgments", "irstats.distributed"),
    ("irstats.evaluate", "irstats.evaluation", "irstats.scores", "irstats.trec_eval", "irstats.integrations"),
    ("irstats.stats",),
    ("irstats.meta", "irstats.depth", "irstats.standardize", "irstats.agreement",
     "irstats.ppi", "irstats.repro", "irstats.aggregate", "irstats.difficulty", "irstats.experiment",
     "irstats.diversity", "irstats.preferences"),
    ("irstats.plots",),
    ("irstats.report",),
    ("irstats.cli", "irstats.demo", "irstats.__main__", "irstats"),
]

#: Upward imports that remain (importer, imported) → why; each one to be removed by the work
#: named. Anything else pointing up fails the test.
KNOWN_UPWARD: dict[tuple[str, str], str] = {
    ("irstats.io", "irstats.trec_eval.read"): "irstats.io.read_trec_eval, a documented public name, found lazily "
                                              "in trec_eval/read.py where the reader now lives",
}


def layer(module: str) -> int:
    best, rank = -1, None
    for k, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, rank = len(name), k
    assert rank is not None, f"{module} is in no layer of tests/test_layers.py: place it in docs/design.md's order"
    return rank


def upward_imports() -> set[tuple[str, str]]:
    modules = _modules()
    found = set()
    for name, path in modules.items():
        for imported in _imports(path, set(modules)):
            if imported == name or name.startswith(imported + ".") or imported.startswith(name + "."):
                continue  # a package and its own modules
            if layer(imported) > layer(name):
                found.add((name, imported))
    return found


def test_every_module_has_a_layer():
    for name in _modules():
        layer(name)


def test_imports_only_point_down():
    found = upward_imports()
    new = sorted(found - set(KNOWN_UPWARD))
    gone = sorted(set(KNOWN_UPWARD) - found)
    assert not new, "imports pointing up a layer (docs/design.md): " + "; ".join(f"{a} -> {b}" for a, b in new)
    assert not gone, "no longer imported: remove from KNOWN_UPWARD: " + "; ".join(f"{a} -> {b}" for a, b in gone)
    assert SRC.is_dir()


def test_what_a_layer_above_provides_is_a_method_of_its_result():
    """Every function registered for a result's method (irstats.result.provides: its figures,
    drawn by plots/; an evaluation's comparison, by stats/) names a class and a method that
    exist, and the method finds it."""
    import importlib

    from irstats.result import _PROVIDED, provided

    for layer in ("irstats.plots", "irstats.stats"):  # the layers that register
        importlib.import_module(layer)
    assert _PROVIDED
    for (dotted, method), function in _PROVIDED.items():
        module, _, name = dotted.rpartition(".")
        cls = getattr(importlib.import_module(module), name)
        assert callable(getattr(cls, method, None)), f"{dotted} has no method {method}()"
        assert provided(cls.__new__(cls), method, module) is function


def test_modules_are_imported_by_name_only_where_that_is_the_design():
    """An import by name (importlib) is not seen by the check above, so it is kept to the places
    whose names are data: the package's lazy names, the measure families' modules, the commands'
    table, and irstats.result.provided, which loads the layer that registers a result's method."""
    by_name = {name for name, path in _modules().items()
               if "import_module(" in path.read_text() or "__import__(" in path.read_text()}
    assert by_name <= {"irstats", "irstats.measures", "irstats.cli.group", "irstats.result"}, sorted(by_name)
