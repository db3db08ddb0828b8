"""Significance tests, intervals and multiple-comparison corrections (METHODS §5.6, §4.8).

Paired tests of two systems (two rows of a ScoreMatrix; topics missing for either are
dropped with a warning)::

    from irstats import stats
    ap = scores["AP"]
    stats.paired_t(ap.system("runA"), ap.system("runB"))
    stats.wilcoxon(...), stats.sign_test(...)
    stats.bootstrap_test(..., n_resamples=10000, seed=0)
    stats.randomization_test(..., n_resamples=10000, seed=0)   # exact=True: all 2^n flips

All pairs of systems, Tukey HSD, discriminative power, comparison with a baseline::

    stats.pairwise(ap, test="wilcoxon").to_frame()
    stats.tukey_hsd(ap, n_resamples=10000, seed=0).to_frame()
    stats.discriminative_power(ap, test="paired_t", alpha=0.05)
    stats.compare(scores, baseline="runA", test="paired_t", correction="holm")

Other: :func:`two_sample_t` (Welch or pooled, Cohen's d), :func:`t_interval`,
:func:`holm`, :func:`bonferroni`.
"""

from irstats.stats.compare import Comparison, compare
from irstats.stats.corrections import CORRECTIONS, adjust, benjamini_hochberg, benjamini_yekutieli, bonferroni, holm
from irstats.stats.pairwise import (
    PAIRWISE_TESTS,
    PairwiseResult,
    discriminative_power,
    pairwise,
    tukey_hsd,
)
from irstats.stats.resampling import bootstrap_test, randomization_test
from irstats.stats.closed_form import (
    Interval,
    TestResult,
    paired_differences,
    paired_t,
    sign_test,
    t_interval,
    two_sample_t,
    wilcoxon,
)

__all__ = [
    "CORRECTIONS", "Comparison", "Interval", "PAIRWISE_TESTS", "PairwiseResult", "TestResult", "adjust", "benjamini_hochberg", "benjamini_yekutieli", "bonferroni",
    "bootstrap_test", "compare", "discriminative_power", "holm", "paired_differences", "paired_t",
    "pairwise", "randomization_test", "sign_test", "t_interval", "tukey_hsd", "two_sample_t", "wilcoxon",
]
