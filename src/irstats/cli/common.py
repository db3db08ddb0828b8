"""Options shared by commands that take per-topic scores.

Such commands accept either a score file (``SCORES``: the TSV ``system topic measure
value`` that ``irstats eval --per-topic --format tsv`` writes, CSV/JSON/Parquet, or
``trec_eval -q`` output) or ``--qrels Q --runs RUN...`` to evaluate on the fly.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, NamedTuple

import click

from irstats.errors import InputError, did_you_mean
from irstats.evaluate import evaluate
from irstats.scores import ScoreMatrix, read_scores


def scores_input(func=None, *, optional: bool = False, measure_help: str | None = None):
    """Decorator adding ``[SCORES]``, ``--qrels``, ``--runs`` and ``-m``; passes ``scores``.

    The wrapped function receives ``scores: dict[str, ScoreMatrix]`` (canonical measure
    name → matrix) in place of the raw options. ``optional``: for a command that also works
    without scores (from a reported statistic): ``scores`` is None when neither SCORES nor
    --qrels is given, and the command receives ``measures`` too (the -m names, as labels then).
    ``measure_help``: -m's help, where the command reads -m its own way.
    """

    def decorate(func):
        @click.argument("scores_path", metavar="[SCORES]", required=False, type=click.Path(dir_okay=True))
        @click.option("--qrels", type=click.Path(), help="Evaluate runs against these qrels instead of reading SCORES.")
        @click.option("--runs", multiple=True, help="Run files, directories or globs (with --qrels); repeatable.")
        @click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
                      help=measure_help or "Measure(s) to use (default: every measure in SCORES, or AP with --qrels).")
        @eval_options
        @functools.wraps(func)
        def wrapper(*args, scores_path, qrels, runs, measures, options, **kwargs):
            if optional and not (scores_path or qrels):
                kwargs["scores"] = None
            else:
                kwargs["scores"] = load_scores(scores_path, qrels, runs, measures, options=options,
                                               client=kwargs.get("client"))
            if optional:
                kwargs["measures"] = measures
            return func(*args, **kwargs)

        return wrapper

    return decorate if func is None else decorate(func)


def cluster_options(func):
    """Decorator adding ``--workers N`` and ``--scheduler ADDRESS``: the command's batches run
    on a Dask cluster (``irstats[dask]``). The command receives ``client``: a
    ``distributed.Client`` open while it runs (a local cluster of N worker processes is made
    and closed here), or None without either flag — then Dask is not imported."""

    @functools.wraps(func)
    def wrapper(*args, workers, scheduler, **kwargs):
        if workers is None and scheduler is None:
            return func(*args, client=None, **kwargs)
        if workers is not None and scheduler is not None:
            raise InputError("give --workers (a local cluster) or --scheduler (a running one), not both")
        from irstats.distributed import connect

        with connect(workers=workers, scheduler=scheduler, named="--workers") as client:
            return func(*args, client=client, **kwargs)

    for option in reversed([
        click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
                     help="Run the batches on a local Dask cluster of N worker processes (irstats[dask]); "
                          "the results are the same."),
        click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="Run the batches on the Dask cluster of this scheduler (e.g. tcp://HOST:8786); "
                          "run files and qrels must be at the same paths on its workers."),
    ]):
        wrapper = option(wrapper)
    return wrapper


def load_scores(scores_path, qrels, runs, measures, options=None, client=None) -> dict[str, ScoreMatrix]:
    """Scores from a score file, or from qrels and runs (evaluated with ``options``, an
    :class:`~irstats.collection.EvalOptions`, on ``client``'s cluster if given); restricted
    to ``measures`` if given."""
    from irstats.measures import Role, canonical_name, measure_for

    if scores_path and qrels:
        raise InputError("give either SCORES or --qrels/--runs, not both")
    if qrels:
        if not runs:
            raise InputError("--qrels needs --runs")
        return evaluate(qrels, list(runs), list(measures) or [measure_for(Role.DEFAULT)], client=client,
                        **(options.as_dict() if options else {}))
    if not scores_path:
        raise InputError("no scores: give a SCORES file, or --qrels Q --runs RUN...")
    scores = _read_any(scores_path)
    if measures:
        wanted = {}
        for name in measures:
            key = name if name in scores else _safe_canonical(name, canonical_name)
            if key not in scores:
                raise InputError(f"measure {name!r} is not in the score file; it has {', '.join(scores)}"
                                 f"{did_you_mean(name, scores)}", path=str(scores_path))
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
    from irstats.trec_eval.read import read_trec_eval

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


def parse_depth(value: str | int | None) -> int | None:
    """``-M``: a whole number (0 keeps no document, as in trec_eval) or 'none' for no limit."""
    if value is None or isinstance(value, int):
        return value
    if value.lower() in ("none", "all", "unlimited"):
        return None
    try:
        return int(value)
    except ValueError:
        raise InputError(f"--depth takes a whole number or 'none', not {value!r}") from None


class EvalFlag(NamedTuple):
    """A command-line flag of one :class:`irstats.collection.EvalOptions` field: the click
    option, the option's parameter name, how the flag's value becomes the field's (validation is
    EvalOptions') and the field it sets, when its name is not the parameter's."""

    option: Callable[[Callable[..., Any]], Callable[..., Any]]
    parameter: str
    read: Callable[[Any], Any] = lambda value: value
    field: str = ""

    @property
    def sets(self) -> str:
        """The EvalOptions field the flag sets."""
        return self.field or self.parameter


#: The flags of :class:`irstats.collection.EvalOptions`, declared once for every command that
#: evaluates runs (trec_eval's letters where trec_eval has them): a new evaluation option is a
#: field of EvalOptions and one entry here.
EVAL_FLAGS = (
    EvalFlag(click.option("-l", "--rel-level", "rel_level", default=1, show_default=True, type=float,
                          help="Relevance level: a document is relevant iff its grade >= this (trec_eval -l); "
                               "a real number for real-valued labels."), "rel_level"),
    EvalFlag(click.option("-c", "--complete", is_flag=True,
                          help="Score qrels topics missing from a run as empty and average over all qrels topics "
                               "(trec_eval -c)."), "complete"),
    EvalFlag(click.option("-M", "--depth", default="1000", show_default=True, metavar="N|none",
                          help="Evaluate the first N documents per topic after ordering (trec_eval -M; 0 = none); "
                               "'none' = all."), "depth", parse_depth),
    EvalFlag(click.option("-J", "--judged-only", is_flag=True,
                          help="Condensed lists: drop unjudged documents before measuring (trec_eval -J)."),
             "judged_only"),
    EvalFlag(click.option("--order", type=click.Choice(["score", "rank", "file"]), default="score", show_default=True,
                          help="Ranking within a topic: score desc then docno desc (trec_eval), the rank column, or "
                               "file order."), "order"),
    EvalFlag(click.option("--ties", type=click.Choice(["docno", "file", "expected"]), default="docno",
                          show_default=True,
                          help="Documents of equal score: docno descending (trec_eval), file order, or every "
                               "measure's expected value over all orderings of the tied documents (McSherry & "
                               "Najork 2008)."), "ties"),
    EvalFlag(click.option("--float32", "float32", is_flag=True,
                          help="Read scores as 32-bit floats, as trec_eval <= 9 and pytrec_eval do (ties change)."),
             "float32", lambda value: "float32" if value else "float64", "score_dtype"),
    EvalFlag(click.option("--on-duplicate", type=click.Choice(["error", "first"]), default="error", show_default=True,
                          help="A document twice in one topic of a run: stop, or keep its first occurrence with a "
                               "warning."), "on_duplicate"),
    EvalFlag(click.option("--qrels-duplicate", type=click.Choice(["error", "max", "last"]), default="error",
                          show_default=True,
                          help="A (topic, document) judged twice: stop, keep the highest grade, or the last."),
             "qrels_duplicate"),
    EvalFlag(click.option("--drop-r0", is_flag=True, help="Leave out topics with no relevant document."),
             "drop_r0"),
    EvalFlag(click.option("--trec-eval-compat", is_flag=True,
                          help="Reproduce trec_eval's quirks (rbp_resid is 0 when no retrieved document is "
                               "unjudged)."), "trec_eval_compat"),
)


def eval_options(func):
    """Decorator adding the evaluation flags (``-l -c -M -J --order --float32 …``, :data:`EVAL_FLAGS`);
    the command receives them as one ``options: EvalOptions``, checked where every caller is checked."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from irstats.collection import EvalOptions

        kwargs["options"] = EvalOptions(**{flag.sets: flag.read(kwargs.pop(flag.parameter)) for flag in EVAL_FLAGS})
        return func(*args, **kwargs)

    for flag in reversed(EVAL_FLAGS):
        wrapper = flag.option(wrapper)
    return wrapper


def halving_options(func):
    """The tuning options of the experiments over random topic halvings (``splithalf``,
    ``predictive``): ``--nan-policy``, ``--skipna``, ``--tie-rtol``, ``--batch-size``, the
    output options (:func:`irstats.cli.output.output_options`), ``-q``."""
    from irstats.cli.output import output_options

    func = click.option("-q", "--quiet", is_flag=True, help="No progress bar.")(func)
    func = output_options(func)
    for option in reversed([
        click.option("--nan-policy", type=click.Choice(["raise", "omit"]), default="raise", show_default=True,
                     help="An undefined aggregate (e.g. hm over a zero) is an error, or the system is left out of "
                          "that split."),
        click.option("--skipna", is_flag=True, help="Aggregate each system over the topics of a half it has scores for."),
        click.option("--tie-rtol", type=float, default=1e-12, show_default=True,
                     help="Aggregates this close (relative) count as tied in τ-b; 0 for exact ties only."),
        click.option("--batch-size", type=int, default=None, help="Halvings per batch (memory); results do not change."),
    ]):
        func = option(func)
    return func
