"""irstats: evaluate rankers against relevance judgments, aggregate and test the scores,
and check how far the conclusions can be trusted.

The main entry points::

    import irstats
    scores = irstats.evaluate("qrels.txt", "runs/", ["AP", "nDCG@10", "RBP(p=0.8)"])
    scores["AP"].means()

Importing ``irstats`` is instant: the names below are loaded on first use (PEP 562), so a
command imports only what it uses. Subpackages (``irstats.stats``, ``irstats.meta``, …)
load on first attribute access too.
"""

__version__ = "0.1.0"

#: public name → the module that defines it (loaded on first access)
_LAZY = {
    "Collection": "irstats.collection", "EvalOptions": "irstats.collection", "RunSet": "irstats.collection",
    "Judgments": "irstats.judgments", "build_judgments": "irstats.judgments",
    "InputError": "irstats.errors", "IrstatsError": "irstats.errors", "IrstatsWarning": "irstats.errors",
    "MeasureError": "irstats.errors", "ArgumentError": "irstats.errors", "ArgumentTypeError": "irstats.errors",
    "NotFoundError": "irstats.errors",
    "DEFAULT_MEASURES": "irstats.evaluate", "evaluate": "irstats.evaluate", "Evaluation": "irstats.evaluation",
    "experiment": "irstats.experiment",
    "Measure": "irstats.measures", "canonical_name": "irstats.measures", "parse_measure": "irstats.measures",
    "ScoreMatrix": "irstats.scores", "read_scores": "irstats.evaluation", "write_scores": "irstats.scores",
    "ppi": "irstats.ppi",
    "reproducibility": "irstats.repro", "replicability": "irstats.repro", "ReproResult": "irstats.repro",
}

__all__ = [
    "ArgumentError", "ArgumentTypeError", "Collection", "DEFAULT_MEASURES", "EvalOptions", "Evaluation", "InputError", "IrstatsError",
    "IrstatsWarning", "Judgments", "Measure", "MeasureError", "NotFoundError", "RunSet", "ScoreMatrix",
    "ReproResult", "build_judgments", "canonical_name", "evaluate", "experiment", "parse_measure", "ppi", "read_scores", "replicability",
    "reproducibility", "write_scores", "__version__",
]


def __getattr__(name: str):
    import importlib

    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later accesses are plain lookups
        return value
    if not name.startswith("_"):  # a subpackage or module: irstats.stats, irstats.aggregate, …
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def _keep_evaluate_a_function() -> None:
    """``irstats.evaluate`` is the function, as it always was (and ``irstats.ppi`` too); but importing the submodule
    ``irstats.evaluate`` (which every evaluating command does) makes the import system set the
    package attribute to the module. Turn that assignment into the module's function."""
    import sys
    import types

    class _Package(types.ModuleType):
        def __setattr__(self, name, value):
            if name in ("evaluate", "ppi", "experiment") and isinstance(value, types.ModuleType) and hasattr(value, name):
                value = getattr(value, name)
            super().__setattr__(name, value)

    sys.modules[__name__].__class__ = _Package


_keep_evaluate_a_function()
