"""bpref, exactly as trec_eval's m_bpref.c (METHODS.md §2.9)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irstats.measures.common import LEVEL_PARAM, level_of, rank_sum, safe_divide
from irstats.measures.registry import OFFICIAL, Family, IrMeasuresName, TrecEvalName, register
from irstats.measures.ties import expected_bpref

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure


def bpref(j: Judgments, m: Measure) -> np.ndarray:
    level = level_of(j, m)
    rel = j.relevant(level)
    nonrel = j.judged & ~rel
    # Judged non-relevant documents ranked above each position.
    nonrel_before = np.cumsum(nonrel, axis=2, dtype=np.int32) - nonrel
    big_r = j.num_relevant(level)[None, :, None]
    big_n = j.num_nonrelevant(level)[None, :, None]
    penalty = safe_divide(np.minimum(nonrel_before, big_r), np.minimum(big_n, big_r))
    credit = np.where(nonrel_before > 0, 1.0 - penalty, 1.0)
    total = rank_sum(np.where(rel, credit, 0.0))
    return safe_divide(total, j.num_relevant(level)[None, :])


register(Family("Bpref", "Binary preference: relevant documents ranked above judged non-relevant ones "
                "(trec_eval's bpref).", (LEVEL_PARAM,), kernel=bpref, cutoff="none", ties="closed",
                expected_kernel=expected_bpref, trec_eval=(TrecEvalName("bpref", "Bpref", 8, nicknames=OFFICIAL),),
                ir_measures=IrMeasuresName("Bpref")))
