"""Plumbing shared by the resampling experiments of meta/ (not public API)."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np

from irstats.checks import whole
from irstats.errors import ArgumentError, InputError
from irstats.meta.splitagg import REASON_CODES
from irstats.ids import bytewise_sorted
from irstats.scores import ScoreMatrix, score_matrices

#: Values of ``nan_policy`` in the experiments (METHODS.md §5 common rules).
EXPERIMENT_NAN_POLICIES = ("raise", "omit")
#: Correlations the experiments can record per split.
CORRELATIONS = ("kendall", "pearson")
#: Default relative tolerance under which two aggregates count as tied (see correlation.snap_ties).
DEFAULT_TIE_RTOL = 1e-12
#: A batch of splits is sized so its arrays stay near this many float64 cells.
_BATCH_CELLS = 1_500_000


def as_matrices(scores: ScoreMatrix | Mapping[str, ScoreMatrix] | Iterable[ScoreMatrix]) -> dict[str, ScoreMatrix]:
    """{measure: matrix} with systems and topics sorted bytewise (METHODS.md §5)."""
    items = score_matrices(scores)
    if not items:
        raise ArgumentError("no score matrices given: scores is empty", argument="scores")
    out: dict[str, ScoreMatrix] = {}
    for m in items:
        if m.measure in out:
            raise ArgumentError(f"measure {m.measure!r} is given twice in scores", argument="scores")
        systems, topics = bytewise_sorted(m.systems), bytewise_sorted(m.topics)
        if systems != m.systems or topics != m.topics:
            m = m.subset(systems, topics)
        out[m.measure] = m
    return out


def check_policy(nan_policy: str) -> str:
    if not isinstance(nan_policy, str) or nan_policy not in EXPERIMENT_NAN_POLICIES:
        raise ArgumentError(f"nan_policy must be one of {', '.join(EXPERIMENT_NAN_POLICIES)}, not {nan_policy!r}",
                            argument="nan_policy")
    return nan_policy


def check_correlation(correlation: str) -> str:
    key = str(correlation).lower()
    key = {"tau": "kendall", "tau_b": "kendall", "kendall_tau_b": "kendall", "r": "pearson"}.get(key, key)
    if not isinstance(correlation, str) or key not in CORRELATIONS:
        raise ArgumentError(f"correlation must be one of {', '.join(CORRELATIONS)}, not {correlation!r}",
                            argument="correlation")
    return key


def batch_rows(n_splits: int, n_systems: int, n_topics: int, blocks: int, batch_size: int | None) -> int:
    """Splits per batch: the given size, or one that bounds memory."""
    if batch_size is not None:
        return whole(batch_size, "batch_size", minimum=1)
    per_split = max(1, n_systems * (blocks + 8) + n_topics)
    return int(max(16, min(n_splits, _BATCH_CELLS // per_split)))


def raise_undefined(codes: np.ndarray, systems: Sequence[str], measure: str, label: str, offset: int,
                    which: str) -> None:
    """Raise an InputError that names an undefined aggregate and how to go on."""
    b, i = np.argwhere(codes != 0)[0]
    reason = REASON_CODES[int(codes[b, i])]
    count = int((codes != 0).sum())
    hint = ("give skipna (--skipna) to aggregate each system over the topics it has, or "
            if reason == "nan_input" else "")
    raise InputError(f"{label} of {measure} is undefined (NaN, reason {reason}) for system {systems[i]!r} on the "
                     f"{which} of split {offset + int(b)} ({count} undefined aggregate(s) in this batch); "
                     f"{hint}use nan_policy='omit' (--nan-policy omit) to leave such systems out of a split")


def significance_t(delta: np.ndarray) -> tuple[float, float]:
    """Two-sided one-sample t-test of mean(Δ) = 0 (the paired t-test on Δ_b): (t, p).

    The statistics core's paired t (:func:`irstats.stats.closed_form.paired_t_rows`) on
    one row, NaN left out: a constant Δ follows the one degenerate-t rule (t = ±∞, p = 0,
    or t = 0, p = 1 when Δ̄ = 0); fewer than two values give NaN.
    """
    from irstats.stats.closed_form import paired_t_rows

    rows = paired_t_rows(np.asarray(delta, dtype=np.float64)[None, :])
    return float(rows.statistic[0]), float(rows.p_value[0])
