"""Effect sizes and margins of error against the values Sakai's book prints for its Table 5.1
data (T. Sakai, "情報アクセス評価方法論" / "Laboratory Experiments in Information Retrieval",
Springer 2018, ch. 4–5), as reproduced by elinor's tests (kampersanda/elinor,
src/statistical_tests/student_t_test.rs, tukey_hsd_test.rs and
two_way_anova_without_replication.rs, test_*_sakai_book_15), and the book's effect-size
formulas as jerome-white/sakai-book writes them (irstats/effect.py: Eqs. 5.6, 5.8, 5.10–5.12).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from irstats.errors import InputError
from irstats.scores import ScoreMatrix
from irstats.stats import paired_t, t_interval
from irstats.stats.anova import anova
from irstats.stats.effects import cohens_d, d_z, glass_delta, hedges_g
from tests.test_anova import TABLE_5_1

A, B, C = TABLE_5_1


def test_paired_t_and_its_margin_of_error_as_printed():
    """System A against B: mean 0.0750, variance 0.0251, effect size 0.473, t 2.116,
    p 0.048, 95% margin of error 0.0742 (printed to these digits)."""
    result = paired_t(A, B)
    d = A - B
    assert result.details["mean_difference"] == pytest.approx(0.0750, abs=1e-4)
    assert result.details["sd_difference"] ** 2 == pytest.approx(0.0251, abs=1e-4)
    assert result.effect_size == pytest.approx(0.473, abs=1e-3)
    assert d_z(d) == pytest.approx(0.473, abs=1e-3)
    assert result.statistic == pytest.approx(2.116, abs=1e-3)
    assert result.p_value == pytest.approx(0.048, abs=1e-3)
    interval = t_interval(d)
    assert (interval.high - interval.low) / 2 == pytest.approx(0.0742, abs=1e-4)
    assert (result.ci_high - result.ci_low) / 2 == pytest.approx(0.0742, abs=1e-4)


def test_tukey_effect_sizes_and_anova_margin_of_error_as_printed():
    """ES_E = (x̄_i − x̄_j)/√V_E with the two-way residual variance: A–B 0.5070, A–C 0.6760,
    B–C 0.1690; the ANOVA-based margin of error of each mean 0.0670."""
    matrix = ScoreMatrix(TABLE_5_1, ("A", "B", "C"), tuple(str(j) for j in range(20)), "AP")
    result = anova(matrix)
    es = {(r["system_a"], r["system_b"]): r["es_e"] for r in result.tukey().iter_rows(named=True)}
    assert es[("A", "B")] == pytest.approx(0.5070, abs=1e-4)
    assert es[("A", "C")] == pytest.approx(0.6760, abs=1e-4)
    assert es[("B", "C")] == pytest.approx(0.1690, abs=1e-4)
    assert result.margin_of_error == pytest.approx(0.0670, abs=1e-4)


def _sum_of_squares(x):
    return float(np.sum((np.asarray(x) - np.mean(x)) ** 2))


def test_two_sample_effect_sizes_follow_the_books_equations():
    """A and B taken as independent samples: Cohen's d in Sakai's Eq. 5.8 form (pooled sum of
    squares over n_x + n_y) and Eq. 5.6 (over n_x + n_y − 2); Hedges' g (our exact J against
    the book's 1 − 3/(4n − 9), Eq. 5.10); Glass's Δ (Eq. 5.11, B as the control)."""
    n = len(A) + len(B)
    difference = float(np.mean(A) - np.mean(B))
    eq_5_8 = difference / math.sqrt((_sum_of_squares(A) + _sum_of_squares(B)) / n)
    eq_5_6 = difference / math.sqrt((_sum_of_squares(A) + _sum_of_squares(B)) / (n - 2))
    assert cohens_d(A, B, pooling="n") == pytest.approx(eq_5_8, rel=1e-12)
    assert cohens_d(A, B) == pytest.approx(eq_5_6, rel=1e-12)
    # the book's correction is the usual approximation of the exact J(n − 2): equal to 1e-4 here
    assert hedges_g(A, B) == pytest.approx(eq_5_6 * (1 - 3 / (4 * n - 9)), abs=1e-4)
    assert glass_delta(A, B) == pytest.approx(difference / math.sqrt(_sum_of_squares(B) / (len(B) - 1)),
                                              rel=1e-12)
    with pytest.raises(InputError, match="pooling"):
        cohens_d(A, B, pooling="bogus")
