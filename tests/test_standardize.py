"""Standardization (METHODS.md §4): exact z properties on the TREC DL 2019 runs, invariance
z(AP) = z(SP) and z(DCG@k) = z(nDCG@k), factor files in both formats, systems outside the
reference set, zero variance, missing factors, and trec_eval's own -Z test."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import norm

import irstats
from irstats.errors import InputError
from irstats.measures import parse_measure
from irstats.scores import ScoreMatrix
from irstats.standardize import (Factors, MissingFactorsWarning, ZeroVarianceWarning, apply_factors, fit_factors,
                                 read_any_factors, read_factors, read_trec_eval_factors, standardize,
                                 write_factors, write_trec_eval_factors)

DL_MEASURES = ["AP", "SP", "nDCG@10", "DCG@10"]


@pytest.fixture(scope="module")
def dl19(reference_data):
    root = reference_data / "trec-dl-2019-passage"
    return irstats.evaluate(root / "qrels.dl19-passage.txt", str(root / "runs" / "*.run.gz"), DL_MEASURES)


@pytest.fixture(scope="module")
def dl19_factors(dl19):
    return fit_factors(dl19)


def z_of(dl19, factors, measure):
    return apply_factors(dl19[measure], factors, form="z")


def test_reference_z_has_mean_0_and_sd_1_per_topic(dl19, dl19_factors):
    for measure in DL_MEASURES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ZeroVarianceWarning)
            z = z_of(dl19, dl19_factors, measure)
        assert z.measure == f"z({measure})" and z.shape == dl19[measure].shape
        _, sd, found = dl19_factors.lookup(measure, z.topics)
        assert found.all()
        ok = sd > 0
        assert ok.sum() >= 40
        np.testing.assert_allclose(z.values[:, ok].mean(axis=0), 0.0, atol=1e-12)
        np.testing.assert_allclose(z.values[:, ok].std(axis=0, ddof=1), 1.0, atol=1e-12)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ZeroVarianceWarning)
            std = apply_factors(dl19[measure], dl19_factors)
        assert std.measure == f"std({measure})"
        np.testing.assert_allclose(std.values[:, ok], norm.cdf(z.values[:, ok]), rtol=1e-12, atol=1e-300)


def test_z_ap_equals_z_sp_and_z_dcg_equals_z_ndcg(dl19, dl19_factors):
    """§4.6: SP = R·AP and DCG@k = IDCG@k·nDCG@k within a topic, so the z-scores agree."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        pairs = [("AP", "SP"), ("nDCG@10", "DCG@10")]
        for a, b in pairs:
            za, zb = z_of(dl19, dl19_factors, a), z_of(dl19, dl19_factors, b)
            assert za.topics == zb.topics and za.systems == zb.systems
            _, sd_a, _ = dl19_factors.lookup(a, za.topics)
            _, sd_b, _ = dl19_factors.lookup(b, zb.topics)
            ok = (sd_a > 0) & (sd_b > 0)
            assert ok.sum() >= 40
            np.testing.assert_allclose(za.values[:, ok], zb.values[:, ok], rtol=1e-12, atol=1e-12)
            # the raw scores themselves differ (the test is not vacuous)
            assert not np.allclose(dl19[a].values, dl19[b].values)


def test_factors_round_trip_in_both_formats(dl19, dl19_factors, tmp_path):
    own = tmp_path / "factors.tsv"
    write_factors(dl19_factors, own)
    back = read_factors(own)
    assert back.ddof == 1 and back.reference == dl19["AP"].systems and back.source == str(own)
    assert back.options["AP"]["depth"] == 1000 and back.version == irstats.__version__
    assert set(back.measure_names) == set(DL_MEASURES)
    text = own.read_text().splitlines()
    assert text[0].startswith("# ") and "topic\tmeasure\tmean\tsd\tn\tddof" in text
    te = tmp_path / "zscores_file"
    shared = {m: dl19[m] for m in ("AP", "nDCG@10")}  # trec_eval has no SP or DCG@10
    write_trec_eval_factors(fit_factors(shared), te)
    te_back = read_trec_eval_factors(te)
    assert te_back.ddof is None and te_back.reference is None
    assert read_any_factors(te).measure_names == te_back.measure_names
    assert read_any_factors(own).ddof == 1
    lines = te.read_text().splitlines()
    keys = [(line.split()[0].encode(), line.split()[1].encode()) for line in lines]
    assert keys == sorted(keys) and {k[1] for k in keys} == {b"map", b"ndcg_cut_10"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        for measure in DL_MEASURES:
            for form in ("z", "cdf"):
                expected = apply_factors(dl19[measure], dl19_factors, form=form)
                got = apply_factors(dl19[measure], back, form=form)
                np.testing.assert_array_equal(got.values, expected.values)  # %.17g round-trips exactly
                if measure in shared:
                    np.testing.assert_array_equal(apply_factors(dl19[measure], te_back, form=form).values,
                                                  expected.values)
    with pytest.raises(InputError, match="'SP' has no trec_eval name"):
        write_trec_eval_factors(dl19_factors, tmp_path / "no.txt")


def test_system_outside_the_reference_set(dl19):
    ap = dl19["AP"]
    held_out = ap.systems[5]
    reference = [s for s in ap.systems if s != held_out]
    factors = fit_factors(ap, reference=reference)
    assert factors.reference == tuple(reference)
    z = apply_factors(ap, factors, form="z")
    std = apply_factors(ap, factors)
    ref = ap.values[[ap.systems.index(s) for s in reference]]
    mu, sd = ref.mean(axis=0), ref.std(axis=0, ddof=1)
    x = ap.system(held_out)
    np.testing.assert_allclose(z.system(held_out), (x - mu) / sd, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(std.system(held_out), norm.cdf((x - mu) / sd), rtol=1e-12, atol=1e-15)
    # the reference systems still have mean 0 / sd 1; with the held-out system included they do not
    rows = [ap.systems.index(s) for s in reference]
    np.testing.assert_allclose(z.values[rows].mean(axis=0), 0.0, atol=1e-12)
    assert np.abs(z.values.mean(axis=0)).max() > 1e-6
    # factors from a subset apply to a matrix that has only the new system
    alone = apply_factors(ap.subset([held_out]), factors, form="z")
    np.testing.assert_allclose(alone.values[0], z.system(held_out), rtol=0, atol=0)


def test_ddof_changes_scale_only(dl19):
    ap = dl19["AP"]
    z1 = apply_factors(ap, fit_factors(ap, ddof=1), form="z").values
    z0 = apply_factors(ap, fit_factors(ap, ddof=0), form="z").values
    s = len(ap.systems)
    np.testing.assert_allclose(z0 * math.sqrt((s - 1) / s), z1, rtol=1e-12)
    np.testing.assert_allclose(z0.std(axis=0, ddof=0), 1.0, atol=1e-12)


def test_trec_eval_minus_z_test(reference_data):
    """trec_eval -q -m all_trec -Z zscores_file qrels.test results.test > out.test.aqZ"""
    te = reference_data / "conformance" / "trec_eval-test"
    factors = read_trec_eval_factors(te / "zscores_file")
    expected: dict[tuple[str, str], float] = {}
    for line in (te / "out.test.aqZ").read_text().splitlines():
        name, topic, value = line.split()
        if name.startswith("Z"):
            expected[(name[1:], topic)] = float(value)
    shared = []
    for name in sorted({n for n, _ in expected}):
        try:
            parse_measure(name)
        except irstats.MeasureError:
            continue
        if (name, "301") in expected:
            shared.append(name)
    families = {"map", "P", "ndcg", "ndcg_cut", "recip_rank", "Rprec", "bpref", "recall", "map_cut", "num_ret",
                "num_rel", "num_rel_ret"}
    assert {n.rsplit("_", 1)[0] if n[-1].isdigit() else n for n in shared} >= families
    assert len(shared) >= 45
    scores = irstats.evaluate(te / "qrels.test", te / "results.test", shared, depth=None, trec_eval_compat=True)
    checked = 0
    for canonical, matrix in scores.items():
        name = parse_measure(canonical).trec_eval_name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ZeroVarianceWarning)  # num_rel: sd 0, x = mean -> z = 0
            z = apply_factors(matrix, factors, form="z")
        assert z.systems == ("STANDARD",)
        for j, topic in enumerate(z.topics):
            assert round(z.values[0, j], 4) == pytest.approx(expected[(name, topic)], abs=1e-9), (name, topic)
            checked += 1
        # trec_eval's summary of z: the mean over topics (a sum for the num_* counts, as for raw counts)
        summary = np.sum(z.values[0]) if matrix.over_topics == "sum" else z.means()[0]
        assert round(summary, 4) == pytest.approx(expected[(name, "all")], abs=1e-9), name
    assert checked == 3 * len(scores)  # names of one measure (Rprec, Rprec_mult_1.00) are evaluated once


def _toy() -> ScoreMatrix:
    values = np.array([
        [0.2, 0.5, 0.3, 0.1],
        [0.2, 0.7, 0.1, 0.4],
        [0.2, 0.1, 0.9, 0.3],
        [0.6, 0.4, 0.5, 0.2],  # not a reference system
    ])
    return ScoreMatrix(values, ("a", "b", "c", "new"), ("t1", "t2", "t3", "t4"), "AP")


def test_zero_variance_rules():
    m = _toy()
    factors = fit_factors(m, reference=["a", "b", "c"])
    with pytest.warns(ZeroVarianceWarning, match="'t1'") as record:
        z = apply_factors(m, factors, form="z")
    assert record[0].message.topics == ("t1",)
    assert z.values[:3, 0].tolist() == [0.0, 0.0, 0.0] and math.isnan(z.values[3, 0])
    with pytest.warns(ZeroVarianceWarning):
        std = apply_factors(m, factors)
    assert std.values[:3, 0].tolist() == [0.5, 0.5, 0.5]  # every reference system gets Φ = 0.5
    with pytest.warns(ZeroVarianceWarning):
        inf = apply_factors(m, factors, zero_sd="inf")
    assert inf.values[3, 0] == 1.0 and inf.values[0, 0] == 0.5
    with pytest.warns(ZeroVarianceWarning):
        zinf = apply_factors(m, factors, zero_sd="inf", form="z")
    assert zinf.values[3, 0] == math.inf
    with pytest.warns(ZeroVarianceWarning):
        dropped = apply_factors(m, factors, zero_sd="drop")
    assert dropped.topics == ("t2", "t3", "t4") and not np.isnan(dropped.values).any()
    np.testing.assert_array_equal(dropped.values, std.values[:, 1:])
    # the tolerance: within 1e-12 of the mean counts as at the mean
    near = ScoreMatrix(m.values + np.array([[0], [0], [0], [0]]), m.systems, m.topics, "AP")
    near.values[3, 0] = 0.2 + 5e-13
    with pytest.warns(ZeroVarianceWarning):
        assert apply_factors(near, factors, form="z").values[3, 0] == 0.0


def test_anchors_and_tails():
    factors = Factors(("t",), ("AP",), np.array([0.5]), np.array([0.1]), np.array([10.0]))
    m = ScoreMatrix(np.array([[0.6], [0.4], [0.5], [-2.5], [3.5]]), ("p", "m", "z", "low", "high"), ("t",), "AP")
    std = apply_factors(m, factors).values[:, 0]
    assert round(std[0], 4) == 0.8413 and round(std[1], 4) == 0.1587 and std[2] == 0.5
    # z = -30: Φ(z) = erfc(30/√2)/2 ≈ 4.9e-198, kept to full relative precision (not 1 - Φ(30) = 0)
    assert std[3] == pytest.approx(0.5 * math.erfc(30 / math.sqrt(2)), rel=1e-12) and std[3] > 0
    assert std[4] == 1.0


def test_missing_topic_gives_nan_and_warning_or_error(tmp_path):
    m = _toy()
    factors = fit_factors(m.subset(topics=["t2", "t3", "t4"]))
    with pytest.warns(MissingFactorsWarning, match="'t1'"):
        z = apply_factors(m, factors, form="z")
    assert np.isnan(z.values[:, 0]).all() and not np.isnan(z.values[:, 1:]).any()
    assert -1000000 not in z.values
    path = tmp_path / "f.tsv"
    write_factors(factors, path)
    with pytest.raises(InputError, match=r"f\.tsv: no factors for measure 'AP' on topic\(s\) 't1'"):
        apply_factors(m, read_factors(path), missing="error")
    with pytest.raises(InputError, match="no standardization factors for measure 'P@10'.*cover AP"):
        apply_factors(ScoreMatrix(m.values, m.systems, m.topics, "P@10"), factors)


def test_fit_errors_and_nan_scores():
    m = _toy()
    with pytest.raises(InputError, match="reference system.*'zz'"):
        fit_factors(m, reference=["a", "zz"])
    with pytest.raises(InputError, match="at least 2 reference systems"):
        fit_factors(m, reference=["a"])
    x = m.values.copy()
    x[0, 1] = np.nan  # a reference system without a score on t2: left out of t2's factors
    x[1:, 3] = np.nan  # t4 has only one score: no factors (warning)
    with pytest.warns(irstats.IrstatsWarning, match="'t4'"):
        f = fit_factors(ScoreMatrix(x, m.systems, m.topics, "AP"))
    mean, sd, found = f.lookup("AP", m.topics)
    assert found.tolist() == [True, True, True, False]
    assert f.n.tolist() == [4, 3, 4]
    assert mean[1] == pytest.approx(np.mean([0.7, 0.1, 0.4])) and sd[1] == pytest.approx(np.std([0.7, 0.1, 0.4],
                                                                                                   ddof=1))


def _write(path, text):
    path.write_text(text)
    return path


def test_factor_file_errors_name_file_and_line(tmp_path):
    good = "# ddof: 1\ntopic\tmeasure\tmean\tsd\tn\tddof\nt1\tAP\t0.2\t0.1\t5\t1\nt2\tAP\t0.3\t0.2\t5\t1\n"
    f = read_factors(_write(tmp_path / "good.tsv", good))
    assert f.topics == ("t1", "t2") and f.ddof == 1 and f.reference is None
    # two names of one measure with the same factors (trec_eval's Rprec and Rprec_mult_1.00) are one entry
    same = read_factors(_write(tmp_path / "same.tsv", good + "t1\tmap\t0.2\t0.1\t5\t1\n"))
    assert same.topics == ("t1", "t2") and same.measures == ("AP", "AP")
    cases = {
        "number": (good.replace("0.3\t0.2", "0.3\tabc"), r"bad\.tsv:4: expected a finite number for sd, found 'abc'"),
        "fields": (good.replace("t2\tAP\t0.3\t0.2\t5\t1", "t2\tAP\t0.3"), r"bad\.tsv:4: expected 6 fields"),
        "negative": (good.replace("0.3\t0.2", "0.3\t-0.2"), r"bad\.tsv:4: a standard deviation cannot be negative"),
        "duplicate": (good + "t1\tmap\t0.25\t0.1\t5\t1\n", r"bad\.tsv:5: factors for topic 't1', measure 'AP' are "
                                                          "given twice, with different values"),
        "header": ("topic\tmeasure\tmean\n", r"bad\.tsv:1: the header lacks column\(s\) sd, n"),
        "count": (good.replace("\t5\t1\nt2", "\t5.5\t1\nt2"), r"bad\.tsv:3: expected a count"),
        "ddof": (good.replace("# ddof: 1", "# ddof: one"), r"bad\.tsv:1: expected a whole number for ddof"),
    }
    for name, (text, message) in cases.items():
        with pytest.raises(InputError, match=message):
            read_factors(_write(tmp_path / "bad.tsv", text))
    with pytest.raises(InputError, match=r"bad\.txt:2: expected 4 fields 'topic measure mean sd', found 3"):
        read_trec_eval_factors(_write(tmp_path / "bad.txt", "# comment\n301 map 0.1\n"))
    with pytest.raises(InputError, match=r"bad\.txt:1: expected a finite number for mean, found 'x'"):
        read_trec_eval_factors(_write(tmp_path / "bad.txt", "301 map x 0.2\n"))
    with pytest.raises(InputError, match="no such factors file"):
        read_factors(tmp_path / "absent.tsv")
    te = read_trec_eval_factors(_write(tmp_path / "ok.txt", "# made by hand\n\n302 P_10 0.4 0.1\n301 map 0.2 0.1\n"))
    assert te.measures == ("P@10", "AP") and te.topics == ("302", "301")


def test_standardize_shortcut_and_options_warning():
    m = _toy()
    with pytest.warns(ZeroVarianceWarning):
        out = standardize({"AP": m}, reference=["a", "b", "c"], form="z")
    assert list(out) == ["z(AP)"] and out["z(AP)"].options["standardization"]["form"] == "z"
    fitted = ScoreMatrix(m.values, m.systems, m.topics, "AP", {"depth": 1000, "rel_level": 1})
    other = ScoreMatrix(m.values, m.systems, m.topics, "AP", {"depth": 100, "rel_level": 1})
    factors = fit_factors(fitted)
    with pytest.warns(irstats.IrstatsWarning, match="depth: fitted 1000, scores 100"):
        apply_factors(other, factors)


def test_the_factor_reader_parses_measure_names_as_its_caller_says(tmp_path):
    """irstats.io.factors sits below the measures (docs/design.md's layers): without a parser the
    names stay as written and are found only so; irstats.standardize's readers give irstats' own,
    so trec_eval's map is read as AP and AP's factors are found under either name; its writer
    gives trec_eval's names back (map; a name that is no measure as read)."""
    from irstats.io import factors as files

    path = _write(tmp_path / "z.txt", "t1 map 0.25 0.5\nt1 made_up_measure 0.75 0.125\n")
    raw = files.read_trec_eval_factors(path)
    assert raw.measures == ("map", "made_up_measure")
    assert raw.has_measure("map") and not raw.has_measure("AP")
    read = read_trec_eval_factors(path)
    assert read.measures == ("AP", "made_up_measure") and read.has_measure("map") and read.has_measure("AP")
    assert read.lookup("map", ["t1"])[0].tolist() == [0.25]
    assert write_trec_eval_factors(read, None) == "t1 made_up_measure 0.75 0.125\nt1 map 0.25 0.5\n"
