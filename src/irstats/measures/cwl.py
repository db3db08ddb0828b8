"""C/W/L measures as cwl_eval computes them (Moffat et al.; Azzopardi, Thomas & Moffat,
SIGIR 2019): INST, INSQ, SDCG@k, BPM@k and NERR8@k–NERR11.

In the C/W/L framework a user reading down a ranking continues from rank i to i + 1 with
probability C(i); the weight of rank i is W(i) = Π_{j<i} C(j) / Σ_k Π_{j<k} C(j) and the
measure is the expected utility per document, Σ_i W(i)·g(i). As cwl_eval (and ir_measures'
``cwl_eval`` provider) does:

- gains are the grades clipped to [min_rel, max_rel] and scaled to [0, 1]; unjudged
  documents gain 0; negative qrels grades count as 0 (trec_eval's convention);
- the ranking is padded with zero gains (or cut) to ``max_n`` = 1,000 ranks, and W is
  normalised over all of them (so, e.g., INSQ's value depends on ``max_n``);
- INST: C(i) = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − Σ_{j≤i} g(j);
  INSQ: C(i) = ((i + 2T − 1)/(i + 2T))²;
  SDCG@k: C(i) = log(i + 1)/log(i + 2) for i < k, 0 from k on (scaled DCG, discount
  1/log2(i + 1) over the top k, normalised to sum to 1);
  BPM(T)@k: C(i) = 1 while Σ_{j≤i} g(j) < T and i < k, else 0;
  NERR8@k: C(i) = 1 − g(i) for i < k; NERR9@k: C(i) = i/(i + 1)·(1 − g(i)) for i < k;
  NERR10(p): C(i) = p·(1 − g(i)); NERR11(T): INSQ's C(i)·(1 − g(i)).

``max_rel`` defaults to the collection's top grade (ir_measures requires it: give it, e.g.
``INST(T=1,max_rel=3)``, to match a fixed scale).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irstats.measures.params import Param
from irstats.measures.registry import Family, IrMeasuresName, register

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure

T_PARAM = Param("T", float, 1.0, always_shown=True, help="the gain the user wants (INST, INSQ)", low=0,
                open_low=True)
MIN_REL_PARAM = Param("min_rel", int, 0, help="the grade that gains 0", low=0)
MAX_REL_PARAM = Param("max_rel", int, None, help="the grade that gains 1 (default: the collection's top grade)",
                      low=1)
MAX_N_PARAM = Param("max_n", int, 1000, help="ranks of the C/W/L ranking (cwl_eval's default 1,000)", low=1)
_SCALE = (MIN_REL_PARAM, MAX_REL_PARAM, MAX_N_PARAM)


def cwl_gains(j: Judgments, m: Measure) -> np.ndarray:
    """Gains in [0, 1] over ``max_n`` ranks, (S, T, max_n): the engine's ranking, padded with 0."""
    n = int(m["max_n"])
    low = float(m["min_rel"])
    high = float(m["max_rel"] if m["max_rel"] is not None else j.qrels.gain_top)
    if high <= low:
        from irstats.errors import MeasureError

        raise MeasureError(f"{m}: max_rel must be above min_rel")
    grades = np.asarray(j.values(j.grades[:, :, :n]), dtype=np.float64)
    # −1 unjudged and −2 padding gain 0; −3 (a negative qrels grade) counts as grade 0
    grades = np.where(grades == -3, 0.0, grades)
    gains = np.where(grades < 0, 0.0, (np.clip(grades, low, high) - low) / (high - low))
    if gains.shape[2] < n:
        gains = np.pad(gains, ((0, 0), (0, 0), (0, n - gains.shape[2])))
    return gains


def expected_utility(continuation: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """Σ_i W(i)·g(i) with W from the continuation probabilities C(i) (…, n): cwl_eval's
    W(1) = 1/Σ_k Π_{j<k} C(j), W(i) = W(1)·Π_{j<i} C(j)."""
    reach = np.ones(continuation.shape)
    np.cumprod(continuation[..., :-1], axis=-1, out=reach[..., 1:])
    utility: np.ndarray = (reach * gains).sum(axis=-1) / reach.sum(axis=-1)
    return utility


def _cutoff(m: Measure) -> int:
    """The cut-off k of a family that requires one."""
    assert m.cutoff is not None  # the family is declared with cutoff="required"
    return int(m.cutoff)


def _ranks(n: int) -> np.ndarray:
    return np.arange(1, n + 1, dtype=np.float64)


def inst(j: Judgments, m: Measure) -> np.ndarray:
    gains = cwl_gains(j, m)
    t = float(m["T"])
    i = _ranks(gains.shape[2])
    remaining = t - np.cumsum(gains, axis=-1)
    continuation = ((i + t + remaining - 1.0) / (i + t + remaining)) ** 2
    return expected_utility(continuation, gains)


def insq(j: Judgments, m: Measure) -> np.ndarray:
    gains = cwl_gains(j, m)
    t = float(m["T"])
    i = _ranks(gains.shape[2])
    continuation = ((i + 2.0 * t - 1.0) / (i + 2.0 * t)) ** 2
    return expected_utility(np.broadcast_to(continuation, gains.shape), gains)


def _continue_unless_satisfied(j: Judgments, m: Measure, base: np.ndarray) -> np.ndarray:
    """NERR: the continuation ``base`` (…, n) times 1 − g(i) — a relevant document satisfies."""
    gains = cwl_gains(j, m)
    return expected_utility(base * (1.0 - gains), gains)


def nerr8(j: Judgments, m: Measure) -> np.ndarray:
    n, k = int(m["max_n"]), _cutoff(m)
    return _continue_unless_satisfied(j, m, (_ranks(n) < k).astype(np.float64))


def nerr9(j: Judgments, m: Measure) -> np.ndarray:
    n, k = int(m["max_n"]), _cutoff(m)
    i = _ranks(n)
    return _continue_unless_satisfied(j, m, np.where(i < k, i / (i + 1.0), 0.0))


def nerr10(j: Judgments, m: Measure) -> np.ndarray:
    return _continue_unless_satisfied(j, m, np.full(int(m["max_n"]), float(m["p"])))


def nerr11(j: Judgments, m: Measure) -> np.ndarray:
    i = _ranks(int(m["max_n"]))
    t = float(m["T"])
    return _continue_unless_satisfied(j, m, ((i + 2.0 * t - 1.0) / (i + 2.0 * t)) ** 2)


def bpm(j: Judgments, m: Measure) -> np.ndarray:
    """Bejewelled player model (static): go on while the gain so far is below T and fewer than
    K = k documents (unit costs) have been read."""
    gains = cwl_gains(j, m)
    i = _ranks(gains.shape[2])
    continuation = ((np.cumsum(gains, axis=-1) < float(m["T"])) & (i < _cutoff(m))).astype(np.float64)
    return expected_utility(continuation, gains)


def sdcg(j: Judgments, m: Measure) -> np.ndarray:
    gains = cwl_gains(j, m)
    k = _cutoff(m)
    i = _ranks(gains.shape[2])
    continuation = np.where(i < k, np.log(i + 1.0) / np.log(i + 2.0), 0.0)
    return expected_utility(np.broadcast_to(continuation, gains.shape), gains)


register(Family("INST", "C/W/L INST (Moffat et al. 2015): expected gain per document of a user who wants T gain; "
                "as cwl_eval.", (T_PARAM, *_SCALE), kernel=inst, cutoff="none", ir_measures=IrMeasuresName("INST")))
register(Family("INSQ", "C/W/L INSQ (Moffat et al. 2012): INST's continuation without the gain still wanted; "
                "as cwl_eval.", (T_PARAM, *_SCALE), kernel=insq, cutoff="none", ir_measures=IrMeasuresName("INSQ")))
P_PARAM = Param("p", float, 0.9, always_shown=True, help="persistence (NERR10)", low=0, high=1, open_high=True)
register(Family("BPM", "C/W/L bejewelled player model (static, Zhang et al. 2017): reads until T gain or k "
                "documents; as cwl_eval.", (T_PARAM, *_SCALE), kernel=bpm, cutoff="required",
                ir_measures=IrMeasuresName("BPM")))
register(Family("NERR8", "C/W/L NERR (Azzopardi et al. 2021, Eq. 8): ERR-like, truncated at k; as cwl_eval.",
                _SCALE, kernel=nerr8, cutoff="required", ir_measures=IrMeasuresName("NERR8")))
register(Family("NERR9", "C/W/L NERR (Eq. 9): ERR-like with a rank-based continuation, truncated at k; as "
                "cwl_eval.", _SCALE, kernel=nerr9, cutoff="required", ir_measures=IrMeasuresName("NERR9")))
register(Family("NERR10", "C/W/L NERR (Eq. 10): ERR-like with persistence p, full depth; as cwl_eval.",
                (P_PARAM, *_SCALE), kernel=nerr10, cutoff="none", ir_measures=IrMeasuresName("NERR10")))
register(Family("NERR11", "C/W/L NERR (Eq. 11): ERR-like with INSQ's continuation, full depth; as cwl_eval.",
                (T_PARAM, *_SCALE), kernel=nerr11, cutoff="none", ir_measures=IrMeasuresName("NERR11")))
register(Family("SDCG", "C/W/L scaled DCG@k: DCG's discount over the top k as a distribution of attention; "
                "as cwl_eval.", _SCALE, kernel=sdcg, cutoff="required",
                ir_measures=IrMeasuresName("SDCG", only={"dcg": "log2"})))
