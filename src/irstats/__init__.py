"""irstats: evaluate rankers against relevance judgments, aggregate and test the scores,
and check how far the conclusions can be trusted.

The main entry points::

    import irstats
    scores = irstats.evaluate("qrels.txt", "runs/", ["AP", "nDCG@10", "RBP(p=0.8)"])
    scores["AP"].means()
"""

from irstats.collection import Collection, EvalOptions, RunSet
from irstats.judgments import Judgments, build_judgments
from irstats.errors import InputError, IrstatsError, IrstatsWarning, MeasureError
from irstats.evaluate import DEFAULT_MEASURES, evaluate
from irstats.measures import Measure, canonical_name, parse_measure
from irstats.scores import ScoreMatrix, read_scores, write_scores

__version__ = "0.1.0"

__all__ = [
    "Collection", "DEFAULT_MEASURES", "EvalOptions", "InputError", "IrstatsError", "IrstatsWarning", "Judgments", "Measure",
    "MeasureError", "RunSet", "ScoreMatrix", "build_judgments", "canonical_name", "evaluate", "parse_measure",
    "read_scores", "write_scores", "__version__",
]
