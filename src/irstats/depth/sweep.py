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

import sys
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np
import polars as pl

from irstats.collection import EvalOptions
from irstats.errors import InputError, MeasureError
from irstats.judgments import PADDING, UNJUDGED, Judgments
from irstats.measures import Measure, parse_measure
from irstats.measures.common import level_of, safe_divide
from irstats.measures.dcg import gain_function
from irstats.scores import ScoreMatrix

#: The two ways of treating unjudged documents (METHODS.md §5.5).
FORMS = ("judged-as-nonrel", "condensed")

#: The metrics of *Observed Volatility* (Figs 1–5), with RBP's residual.
DEFAULT_SWEEP_MEASURES = ("AP", "AP_min", "AP_pool", "nDCG", "Q(beta=1,norm=min)", "RBP(p=0.8)",
                          "RBPresid(p=0.8)", "ERR")

#: METHODS.md §5.5 depth grid (the pool depth d is added to it).
DEPTH_GRID = (*range(1, 21), 25, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 600, 800, 1000)

#: Families whose value at every k can be read off cumulative arrays.
SWEEPABLE = ("AP", "AP_min", "AP_pool", "SP", "nDCG", "DCG", "Q", "RBP", "RBPresid", "ERR", "P", "R", "RR", "Judged")


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
        return "AP_pool" if self.pooled else self.measure.family

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
    if "@" in text:
        raise MeasureError(f"measure {name!r}: a depth sweep supplies the depth k itself; "
                           f"give {text.split('@', 1)[0]!r} without '@k'")
    family = text.split("(", 1)[0]
    pooled = family.lower() == "ap_pool"
    text = "AP" + text[len(family):] if pooled else text
    try:
        parsed = parse_measure(text)
    except MeasureError as exc:
        if "needs a cut-off" not in str(exc):
            raise
        parsed = parse_measure(text + "@1")  # AP_min, P, R, Judged: defined only with a cut-off
        parsed = Measure(parsed.family, parsed.params, None)
    definition = parsed.definition
    if parsed.family not in SWEEPABLE:
        raise MeasureError(f"measure {name!r}: {parsed.family} cannot be swept over depth; "
                           f"sweepable: {', '.join(SWEEPABLE)}")
    if parsed.cutoff is not None and parsed.cutoff != definition.default_cutoff:
        raise MeasureError(f"measure {name!r}: a depth sweep supplies the depth k itself; give it without a cut-off")
    measure = Measure(parsed.family, parsed.params, None)
    label = str(measure)
    if pooled:
        label = "AP_pool" + label[len("AP"):]
    return SweptMeasure(label, measure, pooled)


def default_depths(pool_depth: int | None = None, grid: Iterable[int] = DEPTH_GRID) -> np.ndarray:
    """METHODS.md §5.5 grid ∪ {d}, sorted."""
    depths = set(int(k) for k in grid)
    if pool_depth is not None:
        depths.add(int(pool_depth))
    return np.array(sorted(depths), dtype=np.int64)


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
            raise InputError(f"depths must be 'all' or whole numbers separated by commas; got {depths!r}") from None
    values = sorted(set(int(k) for k in depths) | ({int(pool_depth)} if pool_depth is not None else set()))
    if not values or values[0] < 1:
        raise InputError(f"every evaluation depth must be at least 1; got {values[:3]}")
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
    return Judgments(out, n_ret, judgments.present, judgments.systems, judgments.topics, judgments.qrels,
                     judgments.rel_level, judgments.trec_eval_compat)


# ----------------------------------------------------------------------------- kernels

def _at(cumulative: np.ndarray, depths: np.ndarray) -> np.ndarray:
    """Values of a cumulative (S, T, K) array at ranks min(k, K): shape (S, T, D)."""
    idx = np.clip(depths, 1, cumulative.shape[2]) - 1
    return np.take(cumulative, idx, axis=2)


def _topic(values: np.ndarray) -> np.ndarray:
    """A per-topic (T,) or (T, D) array shaped to broadcast against (S, T, D)."""
    values = np.asarray(values, dtype=np.float64)
    return values[None, :, None] if values.ndim == 1 else values[None, :, :]


def _sum_precision(j: Judgments, level: int, depths: np.ndarray) -> np.ndarray:
    key = ("sweep-SP", level)
    if key not in j._cache:
        rel, cum = j.relevant(level), j.cum_relevant(level)
        j._cache[key] = np.cumsum(np.where(rel, cum / j.ranks, 0.0), axis=2)
    return _at(j._cache[key], depths)


def _sweep_values(j: Judgments, sm: SweptMeasure, depths: np.ndarray,
                  r_k: Callable[[np.ndarray, int], np.ndarray] | None) -> np.ndarray:
    """Per-topic values of one measure at every depth: (systems, topics, depths)."""
    m = sm.measure
    family = sm.family
    k = depths.astype(np.float64)[None, None, :]
    if family in ("AP", "AP_min", "AP_pool", "SP"):
        level = level_of(j, m)
        sp = _sum_precision(j, level, depths)
        if family == "SP":
            return sp
        big_r = j.num_relevant(level)
        if family == "AP":
            return safe_divide(sp, _topic(big_r))
        if family == "AP_min":
            return safe_divide(sp, np.minimum(k, _topic(big_r)))
        if r_k is None:
            raise InputError("AP_pool needs a pool: sweep a PoolSimulation (irstats.depth.simulate_pool)")
        return safe_divide(sp, _topic(r_k(depths, level)))
    if family in ("nDCG", "DCG"):
        discounts = 1.0 / np.log2(j.ranks + 1.0)
        dcg = _at(np.cumsum(gain_function(m["gain"])(j.grades) * discounts, axis=2), depths)
        if family == "DCG":
            return dcg
        ideal = j.qrels.ideal_gains(m["gain"], gain_function(m["gain"]))
        ideal_cum = np.cumsum(ideal / np.log2(np.arange(2, ideal.shape[1] + 2, dtype=np.float64)), axis=1)
        idcg = ideal_cum[:, np.clip(depths, 1, ideal.shape[1]) - 1]  # (T, D)
        return safe_divide(dcg, _topic(idcg))
    if family == "Q":
        beta, level = m["beta"], level_of(j, m)
        rel, cum_rel = j.relevant(level), j.cum_relevant(level)
        cum_gain = np.cumsum(j.positive_grades(), axis=2, dtype=np.float64)
        ideal_cum = np.cumsum(j.qrels.ideal_gains("lin", gain_function("lin")), axis=1)
        cg_star = ideal_cum[:, np.minimum(np.arange(j.depth), ideal_cum.shape[1] - 1)]
        blended = (cum_rel + beta * cum_gain) / (j.ranks + beta * cg_star[None, :, :])
        total = _at(np.cumsum(np.where(rel, blended, 0.0), axis=2), depths)
        big_r = _topic(j.num_relevant(level))
        if m["norm"] == "min":
            big_r = np.minimum(big_r, k)
        return safe_divide(total, big_r)
    if family in ("RBP", "RBPresid"):
        p = m["p"]
        weights = (1.0 - p) * np.power(p, np.arange(j.depth, dtype=np.float64))
        if family == "RBP":
            if m["rel"] is None:
                g_max = max(j.qrels.g_max, 1)
                gains = np.clip(j.grades, 0, g_max) / g_max
            else:
                gains = j.relevant(int(m["rel"]))
            return _at(np.cumsum(gains * weights, axis=2), depths)
        unjudged = j.grades == UNJUDGED
        inside = _at(np.cumsum(unjudged * weights, axis=2), depths)
        shown = np.minimum(j.n_ret[:, :, None], depths[None, None, :])
        residual = inside + np.power(p, shown)
        if j.trec_eval_compat:
            seen = _at(np.cumsum(unjudged, axis=2), depths) > 0
            residual = np.where(seen, residual, 0.0)
        return residual
    if family == "ERR":
        grades = j.positive_grades().astype(np.float64)
        g_max = max(j.qrels.g_max, 1)
        stop = (np.exp2(grades) - 1.0) / 2.0**g_max
        reach = np.cumprod(1.0 - stop, axis=2)
        reach = np.concatenate((np.ones(reach.shape[:2] + (1,)), reach[:, :, :-1]), axis=2)
        return _at(np.cumsum(stop * reach / j.ranks, axis=2), depths)
    if family in ("P", "R"):
        level = level_of(j, m)
        hits = _at(j.cum_relevant(level), depths)
        if family == "P":
            return hits / k
        return safe_divide(hits, _topic(j.num_relevant(level)))
    if family == "RR":
        rel = j.relevant(level_of(j, m))
        first = np.where(rel.any(axis=2), np.argmax(rel, axis=2) + 1, np.iinfo(np.int64).max)[:, :, None]
        return np.where(first <= depths[None, None, :], 1.0 / np.minimum(first, depths.max()), 0.0)
    if family == "Judged":
        shown = np.minimum(j.n_ret[:, :, None], depths[None, None, :])
        return safe_divide(_at(np.cumsum(j.judged, axis=2), depths), shown)
    raise MeasureError(f"{family} cannot be swept over depth")  # pragma: no cover - parse_swept_measure checks


def unjudged_share(j: Judgments, depths: np.ndarray) -> np.ndarray:
    """Per system, topic and depth: the share of unjudged documents among the top min(k, n).

    0 for an empty list. Shape (systems, topics, depths).
    """
    unjudged = _at(np.cumsum(j.grades == UNJUDGED, axis=2), depths)
    shown = np.minimum(j.n_ret[:, :, None], depths[None, None, :])
    return safe_divide(unjudged, shown)


# ----------------------------------------------------------------------------- result

@dataclass
class DepthSweep:
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
            raise KeyError(f"depth {depth} is not in the sweep (depths {self.depths[0]}…{self.depths[-1]})")
        return int(hits[0])

    def _key(self, measure: str, form: str) -> tuple[str, str]:
        name = measure if measure in self.measures else parse_swept_measure(measure).name
        key = (name, form)
        if key not in self.means:
            raise KeyError(f"no ({measure!r}, {form!r}) in the sweep; measures {', '.join(self.measures)}, "
                           f"forms {', '.join(self.forms)}")
        return key

    def series(self, measure: str, form: str = FORMS[0]) -> np.ndarray:
        """Mean scores (systems × depths) of one measure and form."""
        return self.means[self._key(measure, form)]

    def topic_values(self, measure: str, form: str = FORMS[0]) -> np.ndarray:
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


def _progress(total: int, enabled: bool, desc: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="series", disable=not enabled, file=sys.stderr, leave=False)


def sweep_judgments(judgments: Judgments, measures: Iterable[str | SweptMeasure] = DEFAULT_SWEEP_MEASURES,
                    depths=None, *, forms: Sequence[str] = FORMS,
                    r_k: Callable[[np.ndarray, int], np.ndarray] | None = None, pool_depth: int | None = None,
                    contributing: Sequence[str] | None = None, options: EvalOptions | None = None,
                    per_topic: bool = True, progress: bool = False) -> DepthSweep:
    """Sweep the measures over depth on one judgments tensor (unjudged documents as −1).

    ``r_k(depths, level)`` gives R_k per topic and depth for AP_pool
    (:meth:`PoolSimulation.r_k`). ``depths``: None (METHODS §5.5 grid ∪ {pool_depth}),
    ``"all"`` (1..M) or whole numbers. Topics follow :func:`irstats.evaluate.score_judgments`:
    those evaluated for some system, less the R = 0 topics under ``drop_r0``.
    """
    options = options or EvalOptions()
    parsed: dict[str, SweptMeasure] = {}
    for name in measures:
        sm = parse_swept_measure(name)
        parsed.setdefault(sm.name, sm)
    if not parsed:
        raise InputError("no measures to sweep")
    forms = tuple(forms)
    for form in forms:
        if form not in FORMS:
            raise InputError(f"unknown form {form!r}; expected {' or '.join(FORMS)}")
    max_depth = options.depth if options.depth is not None else judgments.depth
    depths = resolve_depths(depths, pool_depth, max_depth)
    keep = judgments.present.any(axis=0)
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
    with _progress(len(parsed) * len(forms), progress, "depth sweep") as bar:
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
          forms: Sequence[str] = FORMS, systems: Iterable[str] | None = None, per_topic: bool = True,
          progress: bool = False) -> DepthSweep:
    """Sweep a :class:`~irstats.depth.pooling.PoolSimulation` over depth.

    Every run of the simulation is scored against the simulated qrels (or only
    ``systems``); AP_pool uses the pool's R_k. See :func:`sweep_judgments`.
    """
    judgments = pool.judgments()
    if systems is not None:
        rows = [judgments.systems.index(s) if s in judgments.systems else _no_run(s, judgments.systems)
                for s in systems]
        judgments = Judgments(judgments.grades[rows], judgments.n_ret[rows], judgments.present[rows],
                              tuple(judgments.systems[i] for i in rows), judgments.topics, judgments.qrels,
                              judgments.rel_level, judgments.trec_eval_compat)
    return sweep_judgments(judgments, measures, depths, forms=forms, r_k=pool.r_k, pool_depth=pool.pool_depth,
                           contributing=pool.contributing, options=pool.options, per_topic=per_topic,
                           progress=progress)


def _no_run(name: str, names: Sequence[str]) -> int:
    raise InputError(f"no run named {name!r}; the runs are {', '.join(names)}")


def depth_sweep(qrels, runs, measures: Iterable[str | SweptMeasure] = DEFAULT_SWEEP_MEASURES, *,
                pool_depth: int | None = None, contributing: Iterable[str] | None = None, depths=None,
                forms: Sequence[str] = FORMS, per_topic: bool = True, progress: bool = False,
                **options) -> DepthSweep:
    """Simulate the pool and sweep: qrels and runs to trajectories in one call.

    ``pool_depth``/``contributing``/``options`` as :func:`irstats.depth.simulate_pool`,
    the rest as :func:`sweep`.

    >>> result = depth_sweep("qrels.txt", "runs/", ["AP_min", "RBP(p=0.8)"], pool_depth=10)  # doctest: +SKIP
    >>> result.to_frame()                                                                    # doctest: +SKIP
    """
    from irstats.depth.pooling import simulate_pool

    pool = simulate_pool(qrels, runs, pool_depth, contributing, **options)
    return sweep(pool, measures, depths, forms=forms, per_topic=per_topic, progress=progress)
