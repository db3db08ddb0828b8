"""Options shared by commands that take per-topic scores.

Such commands accept either a score file (``SCORES``: the TSV ``system topic measure
value`` that ``irstats eval --per-topic --format tsv`` writes, CSV/JSON/Parquet, or
``trec_eval -q`` output) or ``--qrels Q --runs RUN...`` to evaluate on the fly.
"""

from __future__ import annotations

import functools
import math

import click

from irstats.errors import InputError
from irstats.evaluate import evaluate
from irstats.scores import ScoreMatrix, read_scores


def scores_input(func):
    """Decorator adding ``[SCORES]``, ``--qrels``, ``--runs`` and ``-m``; passes ``scores``.

    The wrapped function receives ``scores: dict[str, ScoreMatrix]`` (canonical measure
    name → matrix) in place of the raw options.
    """

    @click.argument("scores_path", metavar="[SCORES]", required=False, type=click.Path(dir_okay=True))
    @click.option("--qrels", type=click.Path(), help="Evaluate runs against these qrels instead of reading SCORES.")
    @click.option("--runs", multiple=True, help="Run files, directories or globs (with --qrels); repeatable.")
    @click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
                  help="Measure(s) to use (default: every measure in SCORES, or AP with --qrels).")
    @click.option("-l", "--rel-level", "rel_level", default=1, show_default=True, type=int,
                  help="Relevance level when evaluating with --qrels (trec_eval -l).")
    @functools.wraps(func)
    def wrapper(*args, scores_path, qrels, runs, measures, rel_level, **kwargs):
        kwargs["scores"] = load_scores(scores_path, qrels, runs, measures, rel_level=rel_level)
        return func(*args, **kwargs)

    return wrapper


def load_scores(scores_path, qrels, runs, measures, rel_level: int = 1) -> dict[str, ScoreMatrix]:
    """Scores from a score file, or from qrels and runs; restricted to ``measures`` if given."""
    from irstats.measures import canonical_name

    if scores_path and qrels:
        raise InputError("give either SCORES or --qrels/--runs, not both")
    if qrels:
        if not runs:
            raise InputError("--qrels needs --runs")
        return evaluate(qrels, list(runs), list(measures) or ["AP"], rel_level=rel_level)
    if not scores_path:
        raise InputError("no scores: give a SCORES file, or --qrels Q --runs RUN...")
    scores = _read_any(scores_path)
    if measures:
        wanted = {}
        for name in measures:
            key = name if name in scores else _safe_canonical(name, canonical_name)
            if key not in scores:
                raise InputError(f"measure {name!r} is not in the score file; it has {', '.join(scores)}",
                                 path=str(scores_path))
            wanted[key] = scores[key]
        scores = wanted
    return scores


def _safe_canonical(name, canonical_name):
    try:
        return canonical_name(name)
    except Exception:  # noqa: BLE001 - a name we cannot parse may still be a column of the file
        return name


def _read_any(path) -> dict[str, ScoreMatrix]:
    """A score file of irstats, or trec_eval -q output (recognised by its three columns)."""
    from pathlib import Path

    from irstats.io.trec import read_bytes
    from irstats.io.trec_eval_output import read_trec_eval

    p = Path(path)
    if p.is_dir():
        return read_trec_eval(p)
    if p.exists() and not p.name.endswith((".parquet", ".pq", ".json")):
        head = read_bytes(p)[:4096].decode("utf8", "replace").splitlines()
        first = next((line for line in head if line.strip() and not line.startswith("#")), "")
        if first and first.split()[:1] != ["system"] and len(first.split()) == 3 and "," not in first:
            return read_trec_eval(p)
    return read_scores(p)


def parse_epsilon(value: str | None) -> float | None:
    """The --epsilon value as a float (>= 0), or None."""
    if value is None:
        return None
    try:
        eps = float(value)
    except ValueError:
        raise InputError(f"--epsilon takes a number, not {value!r}") from None
    if not (eps >= 0 and math.isfinite(eps)):
        raise InputError(f"--epsilon must be a finite number >= 0, not {value!r}")
    return eps
