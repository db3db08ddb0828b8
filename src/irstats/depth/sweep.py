"""Depth sweeps: every system's score at every evaluation depth k, from one tensor.

METHODS.md §5.5. For each measure, the per-topic terms are accumulated along the rank axis
of ONE judgments tensor (built at the largest depth M) with ``cumsum``/``cumprod``; the
score at depth k is the cumulative value at rank min(k, K), divided by a normaliser that
may depend on k (min(k, R), R_k, IDCG@k, k). All depths come out of one pass; nothing is
re-evaluated per k. The terms are the engine's kernels' terms, summed in rank order, so a
swept value equals ``irstats.evaluate(..., [f"{measure}@{k}"])`` (tests check 1e-12).

Two forms (METHODS.md §5.5):

``judged-as-nonrel``
    unjudged documents are non-relevant (the tensor as it is);
``condensed``
    unjudged documents are removed and the list closes up (METHODS.md §1.7, trec_eval
    ``-J``) against the same (simulated) qrels, then cut at k — :func:`condense` makes
    that tensor from the first one.

Names. A swept measure is named by its canonical family name without a cut-off —
``AP``, ``AP_min``, ``AP_pool``, ``nDCG``, ``Q(beta=1,norm=min)``, ``RBP(p=0.8)``,
``RBPresid(p=0.8)``, ``ERR`` — and the depth k is a separate column: the row
(``AP_min``, k = 10) is the engine's ``AP_min@10``; (``AP``, 10) is ``AP@10`` (trec_eval
``map_cut_10``, AP′ of *Observed Volatility*), (``AP_pool``, 10) is AP″ at 10.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import polars as pl

from irstats.result import Result
from irstats.collection import EvalOptions
from irstats.checks import kind_of, names, whole
from irstats.errors import ArgumentError, ArgumentTypeError, InputError, MeasureError, NotFoundError
from irstats.judgments import PADDING, Judgments
from irstats.measures import FAMILIES, Measure, Role, measure_for, parse_measure
from irstats.measures.common import accumulate, level_of, per_topic, safe_divide, shown
from irstats.progress import Progress, progress_bar
from irstats.scores import ScoreMatrix

#: The two ways a sweep treats unjudged documents (METHODS.md §5.5).
UNJUDGED_FORMS = ("judged-as-nonrel", "condensed")

#: The metrics of *Observed Volatility* (Figs 1–5), with RBP's residual.
DEFAULT_SWEEP_MEASURES = ("AP", "AP_min", "AP_pool", "nDCG", "Q(beta=1,norm=min)", "RBP(p=0.8)",
                          "RBPresid(p=0.8)", "ERR")

#: METHODS.md §5.5 depth grid (the pool depth d is added to it).
DEPTH_GRID = (*range(1, 21), 25, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 600, 800, 1000)



#: How a sweep names the pool variant of the family that plays ``Role.POOL_VARIANT`` (AP_pool).
POOL_SUFFIX = "_pool"


def pool_variant() -> tuple[str, str]:
    """The family a sweep also divides by the pool's R_k, and that variant's name: ("AP", "AP_pool")."""
    family = measure_for(Role.POOL_VARIANT)
    return family, family + POOL_SUFFIX


def sweepable_families() -> tuple[str, ...]:
    """The families whose value at every k can be read off one running sum, and AP_pool."""
    return (*(name for name, family in FAMILIES.items() if family.sweepable), pool_variant()[1])


# ----------------------------------------------------------------------------- names

@dataclass(frozen=True)
class SweptMeasure:
    """A measure swept over depth: its name (no cut-off) and the engine measure behind it.

    ``measure`` is the registry's parsed measure without a cut-off; for ``AP_pool`` (which
    needs the pool, so the registry cannot evaluate it alone) it is the AP measure whose
    sum of precisions AP_pool divides by R_k.
    """

    name: str
    measure: Measure
    pooled: bool = False

    @property
    def family(self) -> str:
        return pool_variant()[1] if self.pooled else self.measure.family

    def at(self, depth: int) -> str:
        """The engine's name of this measure at depth k, e.g. ``AP_min@10``."""
        return f"{self.name}@{int(depth)}"

    def __str__(self) -> str:
        return self.name


def parse_swept_measure(name: str | SweptMeasure) -> SweptMeasure:
    """Parse a measure name for a depth sweep: a family with parameters, without ``@k``.

    Accepts the registry's names (``AP``, ``nDCG``, ``RBP(p=0.8)``, ``Q(beta=1,norm=min)``,
    ``ERR`` …, trec_eval's ``map``/``ndcg`` too) and ``AP_pool`` (``AP_pool(rel=2)``).

    >>> parse_swept_measure("RBP").name
    'RBP(p=0.8)'
    >>> parse_swept_measure("AP_pool").at(10)
    'AP_pool@10'
    """
    if isinstance(name, SweptMeasure):
        return name
    text = str(name).strip().replace(" ", "")
    # AP_pool is AP's sum of precisions over the pool's R_k: parsed as AP, labelled AP_pool.
    family, variant = pool_variant()
    pooled = text.lower().startswith(variant.lower()) and text[len(variant):][:1] in ("", "(", "@")
    measure = parse_measure(family + text[len(variant):] if pooled else text, family_only=True)
    if not measure.definition.sweepable:
        raise MeasureError(f"measure {name!r}: {measure.family} cannot be swept over depth; "
                           f"sweepable: {', '.join(sweepable_families())}")
    label = str(measure)
    if pooled:
        label = variant + label[len(family):]
    return SweptMeasure(label, measure, pooled)


def default_depths(pool_depth: int | None = None, grid: Iterable[int] = DEPTH_GRID) -> np.ndarray:
    """METHODS.md §5.5 grid ∪ {d}, sorted."""
    depths = set(_whole_numbers(grid, "grid"))
    if pool_depth is not None:
        depths.add(whole(pool_depth, "pool_depth", minimum=1))
    return np.array(sorted(depths), dtype=np.int64)


def _whole_numbers(values, argument: str) -> list[int]:
    """A list (or array, range) of whole numbers >= 1."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ArgumentTypeError(f"{argument} must be a list of whole numbers of at least 1; got {kind_of(values)}",
                                argument=argument)
    return [whole(k, argument, minimum=1) for k in values]


def resolve_depths(depths, pool_depth: int | None, max_depth: int) -> np.ndarray:
    """Depths from ``None`` (the default grid ∪ {d}), ``"all"`` (1..max_depth) or a list
    (with d added), sorted and unique; every depth must be at least 1."""
    if depths is None:
        return default_depths(pool_depth)
    if isinstance(depths, str):
        text = depths.strip().lower()
        if text == "all":
            return np.arange(1, max(int(max_depth), 1) + 1, dtype=np.int64)
        try:
            depths = [int(v) for v in text.replace(" ", "").split(",") if v]
        except ValueError:
            raise ArgumentError(f"depths must be 'all' or whole numbers separated by commas; got {depths!r}",
                                argument="depths") from None
    if isinstance(depths, (bytes, Mapping)) or not isinstance(depths, Iterable):
        raise ArgumentTypeError(f"depths must be None, 'all' or a list of whole numbers; got {kind_of(depths)}",
                                argument="depths")
    given = []
    for k in depths:
        if not isinstance(k, (int, np.integer)) or isinstance(k, (bool, np.bool_)):
            raise ArgumentTypeError(f"depths must be whole numbers; got {kind_of(k)}", argument="depths")
        given.append(int(k))
    values = sorted(set(given) | ({int(pool_depth)} if pool_depth is not None else set()))
    if not values or values[0] < 1:
        raise ArgumentError(f"every evaluation depth must be at least 1; got {values[:3]}", argument="depths")
    return np.array(values, dtype=np.int64)


# ----------------------------------------------------------------------------- condensing

def condense(judgments: Judgments) -> Judgments:
    """The condensed judgments tensor: unjudged documents removed, the list closed up.

    Equal to :func:`irstats.judgments.build_judgments` with ``judged_only=True`` (METHODS.md
    §1.7: truncation at M first, then condensing; n_ret counts the judged documents), made
    from the uncondensed tensor with one cumulative sum and one scatter.
    """
    grades = judgments.grades
    judged = grades >= 0
    position = np.cumsum(judged, axis=2) - 1
    n_ret = judged.sum(axis=2).astype(np.int64)
    width = max(int(n_ret.max(initial=0)), 1)
    out = np.full(grades.shape[:2] + (width,), PADDING, dtype=grades.dtype)
    s, t, r = np.nonzero(judged)
    out[s, t, position[s, t, r]] = grades[s, t, r]
    tie_start = tie_size = None
    if judgments.tie_start is not None:
        # A tie group keeps its judged documents, now consecutive: it starts where the judged
        # documents above it end and holds as many as were judged in it.
        from irstats.measures.ties import group_counts

        kept, above = group_counts(judgments, judged, judgments.depth)
        tie_start = np.broadcast_to(np.arange(width), out.shape).copy()
        tie_size = np.ones(out.shape, dtype=np.int64)
        tie_start[s, t, position[s, t, r]] = above[s, t, r]
        tie_size[s, t, position[s, t, r]] = kept[s, t, r]
    return judgments.variant(grades=out, n_ret=n_ret, tie_start=tie_start, tie_size=tie_size)


# ----------------------------------------------------------------------------- values

def _sweep_values(j: Judgments, sm: SweptMeasure, depths: np.ndarray,
                  r_k: Callable[[np.ndarray, int | float], np.ndarray] | None) -> np.ndarray:
    """Per-topic values of one measure at every depth: (systems, topics, depths).

    Each family's own declaration gives them (:meth:`irstats.measures.Family.values`): its
    per-rank terms summed once along the ranks and read at every k, divided by its normaliser
    at k. AP_pool is AP's sum of precisions divided by the pool's R_k instead of R.
    """
    m = sm.measure
    if not sm.pooled:
        return m.definition.values(j, m, depths)
    if r_k is None:
        raise InputError(f"{sm.family} needs a pool: sweep a PoolSimulation (irstats.depth.simulate_pool)")

    def pool_r_k(j: Judgments, m: Measure, at: np.ndarray | None) -> np.ndarray:
        assert r_k is not None and at is not None  # checked above; a sweep always has its depths
        return per_topic(r_k(at, level_of(j, m)))

    return m.definition.values(j, m, depths, normaliser=pool_r_k)


def unjudged_share(j: Judgments, depths: np.ndarray) -> np.ndarray:
    """Per system, topic and depth: the share of unjudged documents among the top min(k, n).

    0 for an empty list. Shape (systems, topics, depths); under ``ties="expected"`` its
    expectation over the orderings of tied documents.
    """
    def flags(tensor: Judgments, measure: Measure | None, width: int) -> np.ndarray:
        unjudged: np.ndarray = tensor.head(tensor.unjudged, width)
        return unjudged

    if j.tied:
        from irstats.measures.ties import pointwise_terms

        # the flags read no parameter of a measure: the judged share's, whose complement they are
        judged = parse_measure(measure_for(Role.JUDGED_SHARE))
        unjudged = accumulate(j, ("expected over ties", "unjudged"),
                              lambda width: pointwise_terms(flags, j, judged, width), depths)
    else:
        unjudged = accumulate(j, "unjudged", lambda width: flags(j, None, width), depths)
    return safe_divide(unjudged, shown(j, depths))


# ----------------------------------------------------------------------------- result

@dataclass(frozen=True)
class DepthSweep(Result):
    """Scores of every system at every depth, per measure and form.

    ``means[(measure, form)]`` is (systems × depths): the mean over the evaluated topics,
    as :meth:`irstats.scores.ScoreMatrix.means`. ``per_topic[(measure, form)]`` is
    (systems × topics × depths), NaN where a system does not cover a topic (None when the
    sweep was run with ``per_topic=False``). ``unjudged`` is (systems × depths): the mean
    share of unjudged documents in a system's top k (judged-as-nonrel lists).
    """

    systems: tuple[str, ...]
    topics: tuple[str, ...]
    depths: np.ndarray
    measures: tuple[str, ...]
    forms: tuple[str, ...]
    means: dict[tuple[str, str], np.ndarray]
    per_topic: dict[tuple[str, str], np.ndarray] | None
    unjudged: np.ndarray
    pool_depth: int | None = None
    contributing: tuple[str, ...] | None = None
    options: dict = field(default_factory=dict)

    @property
    def max_depth(self) -> int:
        """k_max, the largest depth of the sweep (the reference ordering's depth)."""
        return int(self.depths[-1])

    def depth_index(self, depth: int) -> int:
        """Position of depth k in :attr:`depths`."""
        hits = np.flatnonzero(self.depths == int(depth))
        if not len(hits):
            raise NotFoundError(f"depth {depth} is not in the sweep (depths {self.depths[0]}…{self.depths[-1]})",
                                argument="depth")
        return int(hits[0])

    def _key(self, measure: str, form: str) -> tuple[str, str]:
        name = measure if measure in self.measures else parse_swept_measure(measure).name
        key = (name, form)
        if key not in self.means:
            raise NotFoundError(f"no ({measure!r}, {form!r}) in the sweep; measures {', '.join(self.measures)}, "
                                f"forms {', '.join(self.forms)}", argument="measure")
        return key

    def series(self, measure: str, form: str = UNJUDGED_FORMS[0]) -> np.ndarray:
        """Mean scores (systems × depths) of one measure and form."""
        return self.means[self._key(measure, form)]

    def topic_values(self, measure: str, form: str = UNJUDGED_FORMS[0]) -> np.ndarray:
        """Per-topic scores (systems × topics × depths) of one measure and form."""
        if self.per_topic is None:
            raise InputError("this sweep kept no per-topic scores (per_topic=False)")
        return self.per_topic[self._key(measure, form)]

    def matrix(self, measure: str, form: str, depth: int) -> ScoreMatrix:
        """The per-topic scores at depth k as a ScoreMatrix named like the engine's (``AP_min@10``)."""
        key = self._key(measure, form)
        values = self.topic_values(*key)[:, :, self.depth_index(depth)]
        options = dict(self.options, judged_only=(form == "condensed"), pool_depth=self.pool_depth)
        return ScoreMatrix(values, self.systems, self.topics, f"{key[0]}@{int(depth)}", options)

    def to_frame(self) -> pl.DataFrame:
        """The trajectories as a tidy frame: ``system, measure, form, depth, value`` (means)."""
        n_sys, n_dep = len(self.systems), len(self.depths)
        frames = []
        for (measure, form), values in self.means.items():
            frames.append(pl.DataFrame({
                "system": np.repeat(np.array(self.systems, dtype=object), n_dep).astype(str),
                "measure": [measure] * (n_sys * n_dep),
                "form": [form] * (n_sys * n_dep),
                "depth": np.tile(self.depths, n_sys),
                "value": values.ravel(),
            }, schema=TRAJECTORY_SCHEMA))
        return pl.concat(frames) if frames else pl.DataFrame(schema=TRAJECTORY_SCHEMA)

    def per_topic_frame(self) -> pl.DataFrame:
        """Per-topic values, tidy: ``system, topic, measure, form, depth, value`` (NaN rows left out)."""
        if self.per_topic is None:
            raise InputError("this sweep kept no per-topic scores (per_topic=False)")
        n_sys, n_top, n_dep = len(self.systems), len(self.topics), len(self.depths)
        frames = []
        for (measure, form), values in self.per_topic.items():
            n = n_sys * n_top * n_dep
            frames.append(pl.DataFrame({
                "system": np.repeat(np.array(self.systems, dtype=object), n_top * n_dep).astype(str),
                "topic": np.tile(np.repeat(np.array(self.topics, dtype=object), n_dep), n_sys).astype(str),
                "measure": [measure] * n, "form": [form] * n,
                "depth": np.tile(self.depths, n_sys * n_top), "value": values.ravel(),
            }).filter(pl.col("value").is_not_nan()))
        return pl.concat(frames)

    def __repr__(self) -> str:
        return (f"DepthSweep({len(self.systems)} systems × {len(self.topics)} topics × {len(self.depths)} depths "
                f"[{self.depths[0]}…{self.depths[-1]}], {len(self.measures)} measures, forms {', '.join(self.forms)}, "
                f"pool depth {self.pool_depth})")


#: Columns of the trajectory file (``irstats volatility -o FILE.tsv``).
TRAJECTORY_SCHEMA = {"system": pl.String, "measure": pl.String, "form": pl.String, "depth": pl.Int64,
                     "value": pl.Float64}


def sweep_judgments(judgments: Judgments, measures: Iterable[str | SweptMeasure] = DEFAULT_SWEEP_MEASURES,
                    depths=None, *, forms: Sequence[str] = UNJUDGED_FORMS,
                    r_k: Callable[[np.ndarray, int | float], np.ndarray] | None = None, pool_depth: int | None = None,
                    contributing: Sequence[str] | None = None, options: EvalOptions | None = None,
                    per_topic: bool = True, progress: Progress = None) -> DepthSweep:
    """Sweep the measures over depth on one judgments tensor (unjudged documents as −1).

    ``r_k(depths, level)`` gives R_k per topic and depth for AP_pool
    (:meth:`PoolSimulation.r_k`). ``depths``: None (METHODS §5.5 grid ∪ {pool_depth}),
    ``"all"`` (1..M) or whole numbers. Topics follow :func:`irstats.evaluate.score_judgments`:
    those evaluated for some system, less the R = 0 topics under ``drop_r0``.
    """
    options = options or EvalOptions()
    parsed: dict[str, SweptMeasure] = {}
    for name in ((measures,) if isinstance(measures, SweptMeasure) else names(measures, "measures",
                                                                                what="measure names")):
        sm = parse_swept_measure(name)
        parsed.setdefault(sm.name, sm)
    if not parsed:
        raise ArgumentError("no measures to sweep: measures is empty", argument="measures")
    forms = names(forms, "forms", what="forms")
    for form in forms:
        if form not in UNJUDGED_FORMS:
            raise InputError(f"unknown form {form!r}; expected {' or '.join(UNJUDGED_FORMS)}")
    max_depth = options.depth if options.depth is not None else judgments.depth
    depths = resolve_depths(depths, pool_depth, max_depth)
    keep = np.asarray(judgments.present.any(axis=0))  # an array of one bool per topic, for the type checker too
    if options.drop_r0:
        keep &= judgments.num_relevant() > 0
    present = judgments.present[:, keep]
    counted = present.sum(axis=1)[:, None]

    def finish(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values = np.where(judgments.present[:, :, None], values, np.nan)[:, keep]
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(counted > 0, np.where(present[:, :, None], values, 0.0).sum(axis=1) / counted, np.nan)
        return values, means

    means: dict[tuple[str, str], np.ndarray] = {}
    topic_values: dict[tuple[str, str], np.ndarray] = {}
    with progress_bar(len(parsed) * len(forms), progress, "depth sweep", unit="series") as bar:
        for form in forms:
            j = judgments if form == "judged-as-nonrel" else condense(judgments)
            for sm in parsed.values():
                values, mean = finish(_sweep_values(j, sm, depths, r_k))
                means[(sm.name, form)] = mean
                if per_topic:
                    topic_values[(sm.name, form)] = values
                bar.update(1)
            del j
    _, unjudged = finish(unjudged_share(judgments, depths))
    topics = tuple(t for t, k in zip(judgments.topics, keep) if k)
    # keep the (measure, form) order measure-major, as tables and figures list them
    order = [(m, f) for m in parsed for f in forms]
    return DepthSweep(judgments.systems, topics, depths, tuple(parsed), forms, {k: means[k] for k in order},
                      {k: topic_values[k] for k in order} if per_topic else None, unjudged, pool_depth,
                      tuple(contributing) if contributing is not None else None, options.as_dict())


def sweep(pool, measures: Iterable[str | SweptMeasure] = DEFAULT_SWEEP_MEASURES, depths=None, *,
          forms: Sequence[str] = UNJUDGED_FORMS, systems: Iterable[str] | None = None, per_topic: bool = True,
          progress: Progress = None) -> DepthSweep:
    """Sweep a :class:`~irstats.depth.pooling.PoolSimulation` over depth.

    Every run of the simulation is scored against the simulated qrels (or only
    ``systems``); AP_pool uses the pool's R_k. See :func:`sweep_judgments`.
    """
    from irstats.depth.pooling import PoolSimulation

    if not isinstance(pool, PoolSimulation):
        raise ArgumentTypeError(f"pool must be a PoolSimulation (from simulate_pool or given_pool); got "
                                f"{kind_of(pool)}", argument="pool")
    judgments = pool.judgments()
    if systems is not None:
        rows = [judgments.systems.index(s) if s in judgments.systems else _no_run(s, judgments.systems)
                for s in names(systems, "systems", what="run names")]
        judgments = judgments.variant(grades=judgments.grades[rows], n_ret=judgments.n_ret[rows],
                                      present=judgments.present[rows],
                                      systems=tuple(judgments.systems[i] for i in rows), tie_start=None, tie_size=None)
    return sweep_judgments(judgments, measures, depths, forms=forms, r_k=pool.r_k, pool_depth=pool.pool_depth,
                           contributing=pool.contributing, options=pool.options, per_topic=per_topic,
                           progress=progress)


def _no_run(name: str, names: Sequence[str]) -> int:
    raise InputError(f"no run named {name!r}; the runs are {', '.join(names)}")


def depth_sweep(qrels, runs, measures: Iterable[str | SweptMeasure] = DEFAULT_SWEEP_MEASURES, *,
                pool_depth: int | None = None, contributing: Iterable[str] | None = None, depths=None,
                simulate: bool = False, forms: Sequence[str] = UNJUDGED_FORMS, per_topic: bool = True,
                progress: Progress = None, **options) -> DepthSweep:
    """Sweep qrels and runs to trajectories in one call.

    By default the qrels are used as given (:func:`irstats.depth.given_pool`: the value
    at depth k is the engine's at ``-M k``) and ``pool_depth`` only marks the judged depth
    d; ``simulate=True`` simulates a depth-d pool of the contributing runs
    (:func:`irstats.depth.simulate_pool`). ``contributing``/``options`` as those, the rest
    as :func:`sweep`.

    >>> result = depth_sweep("qrels.txt", "runs/", ["AP_min", "RBP(p=0.8)"], pool_depth=10)  # doctest: +SKIP
    >>> result.to_frame()                                                                    # doctest: +SKIP
    """
    from irstats.depth.pooling import given_pool, simulate_pool

    pool = (simulate_pool if simulate else given_pool)(qrels, runs, pool_depth, contributing, **options)
    return sweep(pool, measures, depths, forms=forms, per_topic=per_topic, progress=progress)
