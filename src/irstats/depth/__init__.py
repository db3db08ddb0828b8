"""Evaluation depth: pool simulation, depth sweeps and volatility statistics (METHODS.md §5.5).

The pipeline is the engine's: a :class:`~irstats.collection.Collection` and a
:class:`~irstats.collection.RunSet` become one judgments tensor (built once, at the
largest depth), and every evaluation depth k is read off cumulative arrays along its rank
axis::

    from irstats.depth import simulate_pool, sweep, volatility
    pool = simulate_pool("qrels.txt", "runs/", pool_depth=10)     # contributing: all runs
    result = sweep(pool)                                          # METHODS §5.5 grid ∪ {d}
    result.to_frame()        # system, measure, form, depth, value (trajectories)
    stats = volatility(result)
    stats.summary()          # one row per measure and form

:func:`depth_sweep` does both steps from files. Figures are in
:mod:`irstats.plots.volatility`, the command line is ``irstats volatility``.
"""

from irstats.depth.pooling import PoolSimulation, complete_depth, given_pool, judged_depth, simulate_pool
from irstats.depth.sweep import (
    DEFAULT_SWEEP_MEASURES,
    UNJUDGED_FORMS,
    DepthSweep,
    SweptMeasure,
    condense,
    default_depths,
    depth_sweep,
    parse_swept_measure,
    sweep,
    sweep_judgments,
)
from irstats.depth.volatility import (
    Volatility,
    crossings,
    direction_changes,
    discrimination_ratio,
    overturn_rates,
    pairwise_p_values,
    swaps,
    tau_consecutive,
    tau_reference,
    total_variation,
    volatility,
)

__all__ = [
    "DEFAULT_SWEEP_MEASURES", "UNJUDGED_FORMS", "DepthSweep", "PoolSimulation", "SweptMeasure", "Volatility", "complete_depth",
    "condense", "crossings", "default_depths", "depth_sweep", "direction_changes", "discrimination_ratio",
    "given_pool", "judged_depth", "overturn_rates", "pairwise_p_values", "parse_swept_measure", "simulate_pool", "swaps", "sweep", "sweep_judgments",
    "tau_consecutive", "tau_reference", "total_variation", "volatility",
]
