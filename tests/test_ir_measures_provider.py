"""irstats as an ir_measures provider (issue 16): ir_measures' calc_aggregate and iter_calc
through irstats give pytrec_eval's values (ir_measures' own default provider) on DL 2019."""

from __future__ import annotations

import ir_measures
import pytest
from ir_measures import AP, R, RR, Bpref, IPrec, Judged, NumQ, NumRel, NumRet, P, Rprec, SetAP, SetF, SetP, SetR, \
    Success, infAP, nDCG

from irstats.integrations import ir_measures as provider_module

#: Every measure the two providers share, with parameters (rel = relevance level, cutoffs, -J).
SHARED = [P@5, P@10, P(rel=2)@10, R@100, R@1000, AP, AP@100, AP(rel=2), nDCG, nDCG@10, nDCG@100, RR, RR(rel=2),
          Rprec, Rprec(rel=2), Bpref, Success@10, SetP, SetP(relative=True), SetR, SetF, SetF(beta=0.5), SetAP,
          infAP, IPrec@0.2, IPrec@0.5, NumRet, NumRet(rel=1), NumRel, NumQ, P(judged_only=True)@10,
          AP(judged_only=True), nDCG(judged_only=True)@10]


@pytest.fixture(scope="module")
def dl19(reference_data):
    folder = reference_data / "trec-dl-2019-passage"
    qrels = list(ir_measures.read_trec_qrels(str(folder / "qrels.dl19-passage.txt")))
    runs = {path.name: list(ir_measures.read_trec_run(str(path))) for path in sorted((folder / "runs").glob("*"))[:6]}
    return qrels, runs


@pytest.fixture(scope="module")
def irstats_provider():
    # float32 scores: pytrec_eval stores scores as C floats, so ties fall as there
    return provider_module.IrstatsProvider(score_dtype="float32")


def test_supports_every_shared_measure_and_declines_others(irstats_provider):
    for measure in SHARED:
        assert irstats_provider.supports(measure), measure
    for measure in (nDCG(dcg="exp-log2")@10, ir_measures.ERR@10, ir_measures.AP_IA, ir_measures.RBP):
        assert not irstats_provider.supports(measure), measure


def test_calc_aggregate_equals_pytrec_eval(dl19, irstats_provider):
    qrels, runs = dl19
    reference = ir_measures.pytrec_eval
    for name, run in runs.items():
        mine = irstats_provider.calc_aggregate(SHARED, qrels, run)
        # IPrec: trec_eval 10 (irstats) rounds the recall cut-offs differently from trec_eval 9
        # (pytrec_eval); irstats' IPrec is held to trec_eval 10's output in test_trec_eval_cmd.py
        theirs = reference.calc_aggregate([m for m in SHARED if reference.supports(m) and m.NAME != "IPrec"],
                                          qrels, run)
        for measure, value in theirs.items():
            assert mine[measure] == pytest.approx(value, abs=1e-6), (name, measure)


def test_iter_calc_per_query_equals_pytrec_eval(dl19, irstats_provider):
    qrels, runs = dl19
    measures = [AP, nDCG@10, P(rel=2)@10, RR, Bpref, infAP]
    for name, run in list(runs.items())[:3]:
        mine = {(m.query_id, str(m.measure)): m.value for m in irstats_provider.iter_calc(measures, qrels, run)}
        theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.pytrec_eval.iter_calc(measures, qrels, run)}
        assert mine.keys() == theirs.keys()
        for key, value in theirs.items():
            assert mine[key] == pytest.approx(value, abs=1e-6), (name, key)


def test_judged_equals_ir_measures_judged_provider(dl19, irstats_provider):
    qrels, runs = dl19
    run = next(iter(runs.values()))
    for measure in (Judged, Judged@10, Judged@100):
        assert irstats_provider.calc_aggregate([measure], qrels, run)[measure] == pytest.approx(
            ir_measures.judged.calc_aggregate([measure], qrels, run)[measure], abs=1e-9)


def test_register_puts_irstats_first_in_the_default_pipeline(dl19):
    qrels, runs = dl19
    run = next(iter(runs.values()))
    saved = list(ir_measures.DefaultPipeline.providers)
    try:
        provider = provider_module.register(score_dtype="float32")
        assert ir_measures.DefaultPipeline.providers[0] is provider and ir_measures.irstats is provider
        assert ir_measures.providers.registry["irstats"] is provider
        calls = []
        original = provider._evaluator
        provider._evaluator = lambda measures, q: calls.append(measures) or original(measures, q)
        values = ir_measures.calc_aggregate([AP, nDCG@10, ir_measures.ERR@10], qrels, run)
        assert calls and {str(m) for m in calls[0]} == {"AP", "nDCG@10"}  # ERR@10 went to another provider
        assert values[AP] == pytest.approx(ir_measures.pytrec_eval.calc_aggregate([AP], qrels, run)[AP], abs=1e-6)
        provider_module.register(default=False)
        assert all(getattr(p, "NAME", "") != "irstats" for p in ir_measures.DefaultPipeline.providers)
    finally:
        ir_measures.DefaultPipeline.providers[:] = saved


def test_pyterrier_experiment_uses_irstats(dl19, reference_data):
    """PyTerrier's pt.Experiment over two DL 2019 runs given as DataFrames evaluates through
    the irstats provider (pyterrier's core needs no Java for this)."""
    import pandas as pd
    import pyterrier as pt

    qrels, runs = dl19
    qrels_frame = pd.DataFrame([(q.query_id, q.doc_id, q.relevance) for q in qrels],
                               columns=["qid", "docno", "label"])
    systems = []
    for run in list(runs.values())[:2]:
        frame = pd.DataFrame([(r.query_id, r.doc_id, r.score) for r in run], columns=["qid", "docno", "score"])
        frame["rank"] = frame.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
        systems.append(frame)
    topics = pd.DataFrame({"qid": sorted(qrels_frame["qid"].unique()), "query": ""})
    saved = list(ir_measures.DefaultPipeline.providers)
    try:
        provider = provider_module.register(score_dtype="float32")
        calls = []
        original = provider._evaluator
        provider._evaluator = lambda measures, q: calls.append(measures) or original(measures, q)
        result = pt.Experiment(systems, topics, qrels_frame, eval_metrics=[AP, nDCG@10], names=["a", "b"])
    finally:
        ir_measures.DefaultPipeline.providers[:] = saved
    assert calls, "pt.Experiment did not evaluate through the irstats provider"
    for (name, run), row in zip(list(runs.items())[:2], result.itertuples()):
        expected = ir_measures.pytrec_eval.calc_aggregate([AP, nDCG@10], qrels, run)
        assert getattr(row, "AP") == pytest.approx(expected[AP], abs=1e-6)


def test_cwl_and_compat_through_the_provider_equal_their_reference_providers(dl19, irstats_provider, reference_data):
    """The C/W/L measures and Compat go to irstats too, with cwl_eval's and compat's values
    (runs taken as ir_measures orders them: score, ties in file order — the DL 2019 runs
    below are written in score order)."""
    qrels, runs = dl19
    provider = provider_module.IrstatsProvider(order="file")
    cwl = [ir_measures.INST(T=1.0, max_rel=3), ir_measures.INSQ(T=2.0, max_rel=3), ir_measures.SDCG(max_rel=3)@10,
           ir_measures.BPM(T=1.0, max_rel=3)@10, ir_measures.NERR8(max_rel=3)@10, ir_measures.NERR10(max_rel=3)]
    for measure in (*cwl, ir_measures.Compat(p=0.95), ir_measures.Compat(p=0.8, normalize=False)):
        assert provider.supports(measure), measure
    name, run = "bm25tuned_rm3_p.run.gz", runs.get("bm25tuned_rm3_p.run.gz")
    if run is None:  # not among the fixture's first runs: read it
        run = list(ir_measures.read_trec_run(str(reference_data / "trec-dl-2019-passage" / "runs" / name)))
    mine = provider.calc_aggregate(cwl, qrels, run)
    theirs = ir_measures.cwl_eval.calc_aggregate(cwl, qrels, run)
    for measure in cwl:
        assert mine[measure] == pytest.approx(theirs[measure], abs=1e-9), measure
    compat = [ir_measures.Compat(p=0.95)]
    assert provider.calc_aggregate(compat, qrels, run)[compat[0]] == pytest.approx(
        ir_measures.compat.calc_aggregate(compat, qrels, run)[compat[0]], abs=1e-12)


# ----------------------------------------------------------------- the direct path (issue 25)
# ir_measures hands qrels and runs over as Python lists, dicts and DataFrames; the provider
# takes them straight to the judgments tensor (irstats.integrations.columns) and goes through a
# frame and irstats.evaluate.Evaluator — the path it replaced — only for what the direct path
# declines. The two are held equal tensor for tensor, and the values to pytrec_eval's.

import math  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from irstats.collection import Collection, EvalOptions  # noqa: E402
from irstats.errors import InputError  # noqa: E402
from irstats.evaluate import Evaluator  # noqa: E402
from irstats.integrations.columns import RunLines, qrels_collection, run_judgments  # noqa: E402
from irstats.judgments import PADDING  # noqa: E402
from tests.conftest import DL19_RUNS, examples, spread  # noqa: E402

#: the options the provider evaluates with (every qrels topic scored), and variations of them
OPTION_SETS = [dict(depth=None), dict(depth=None, score_dtype="float32"), dict(depth=100, judged_only=True),
               dict(depth=3, negative_rel="nonrel"), dict(depth=0)]


def _general_tensor(qrels_rows, run_rows, options: EvalOptions):
    """The judgments tensor by the path the direct one replaced: frames through Evaluator."""
    collection = Collection.load(pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"]))
    frame = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    return collection, Evaluator(collection, options).judgments({"run": frame})


def _assert_same_tensor(direct, general) -> None:
    width = max(direct.grades.shape[2], general.grades.shape[2])

    def padded(grades):
        return np.pad(grades, ((0, 0), (0, 0), (0, width - grades.shape[2])), constant_values=PADDING)

    assert direct.topics == general.topics
    np.testing.assert_array_equal(padded(direct.grades), padded(general.grades))
    np.testing.assert_array_equal(direct.n_ret, general.n_ret)
    np.testing.assert_array_equal(direct.present, general.present)


def _direct_tensor(qrels_rows, run_rows, options: EvalOptions):
    collection = qrels_collection(*zip(*qrels_rows)) if qrels_rows else None
    assert collection is not None
    topics, docnos, scores = zip(*run_rows) if run_rows else ((), (), ())
    return run_judgments(collection, RunLines.of_lines(list(topics), list(docnos), np.asarray(scores, dtype=float)),
                         options)


def test_direct_path_judges_every_dl19_run_as_the_general_path(reference_data):
    """The DL 2019 runs (ties in float64 and float32, re-rankings of 5 to 1,000 documents,
    passages several topics retrieve; all 14 in the full test budget), as ir_measures reads
    them: the direct path takes every one and gives the general path's tensor under each
    option set."""
    folder = reference_data / "trec-dl-2019-passage"
    qrels = [(q.query_id, q.doc_id, q.relevance)
             for q in ir_measures.read_trec_qrels(str(folder / "qrels.dl19-passage.txt"))]
    collection = qrels_collection(*zip(*qrels))
    general_collection = Collection.load(pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]))
    paths = sorted((folder / "runs").glob("*.run.gz"))
    assert len(paths) == len(DL19_RUNS)
    for path in spread(paths, 12):
        run = list(ir_measures.read_trec_run(str(path)))
        lines = RunLines.of_lines([r.query_id for r in run], [r.doc_id for r in run], np.array([r.score for r in run]))
        frame = pd.DataFrame(run)
        for fields in OPTION_SETS[:3]:
            options = EvalOptions(complete=True, **fields)
            direct = run_judgments(collection, lines, options)
            assert direct is not None, (path.name, fields)
            _assert_same_tensor(direct[0], Evaluator(general_collection, options).judgments({"run": frame}))


_ids = st.sampled_from(["a", "b", "c", "d10", "d9", "e"])


@st.composite
def _cases(draw):
    """Qrels and a run over a few topics and documents: scores from a handful of values (ties),
    topics the qrels lack, lines out of ranking order, topics split in several blocks,
    sometimes a document twice, a NaN or a −0 score."""
    topics = draw(st.lists(st.sampled_from(["1", "2", "10", "3"]), min_size=1, max_size=3, unique=True))
    qrels = draw(st.lists(st.tuples(st.sampled_from(topics), _ids, st.integers(-1, 3)), min_size=1, max_size=18,
                          unique_by=lambda q: q[:2]))
    scores = st.sampled_from([0.5, 0.25, 1.0, 0.30000001, 0.30000002, -2.0, 7.0] + draw(st.sampled_from(
        [[], [math.nan], [-0.0], [math.inf]])))
    judged = sorted({q[0] for q in qrels})
    run_topics = st.sampled_from(judged) | st.sampled_from([*topics, "99"])
    run = draw(st.lists(st.tuples(run_topics, _ids, scores), min_size=1, max_size=30,
                        unique_by=(lambda r: r[:2]) if draw(st.booleans()) else None))
    if draw(st.booleans()):  # topic by topic (in any order of topics), mostly in ranking order
        blocks = draw(st.permutations([*topics, "99"]))
        run.sort(key=lambda r: (blocks.index(r[0]), -r[2] if r[2] == r[2] else 0))
    options = EvalOptions(complete=True, **draw(st.sampled_from(OPTION_SETS)))
    return qrels, run, options


@settings(max_examples=examples(300), deadline=None)
@given(_cases())
@example(([("1", "a", 1), ("2", "c", 2)],  # topic 2 written before topic 1, ties in both, one line between ties
          [("2", "a", 0.5), ("2", "b", 0.5), ("2", "c", 0.4), ("2", "d", 0.3), ("2", "e", 0.3), ("1", "b", 0.5),
           ("1", "a", 0.5)], EvalOptions(complete=True, depth=None)))
def test_direct_path_equals_the_general_path_or_leaves_the_run_to_it(case):
    """On generated qrels and runs the direct path gives the general path's tensor, or declines
    — only for what the general path refuses or orders by its own rules (a document twice in a
    topic, a NaN or −0 score) — and the general path then decides."""
    qrels, run, options = case
    direct = _direct_tensor(qrels, run, options)
    inside = [r for r in run if r[0] in {q[0] for q in qrels}]
    repeated = len({r[:2] for r in inside}) != len(inside)
    odd = any(math.isnan(r[2]) or (r[2] == 0 and math.copysign(1, r[2]) < 0) for r in inside)
    if not inside:
        assert direct is not None and not direct[1].any()  # no line for a qrels topic: the provider gives DEFAULTs
        return
    try:
        _, general = _general_tensor(qrels, inside, options)
    except (InputError, ValueError):  # a document twice, a NaN: the general path's error
        assert direct is None
        return
    if direct is None:
        assert repeated or odd
        return
    assert not repeated
    _assert_same_tensor(direct[0], general)
    np.testing.assert_array_equal(direct[1], np.bincount([sorted({q[0] for q in qrels}).index(r[0]) for r in inside],
                                                         minlength=len(direct[0].topics)))


# ------------------------------------------------- the compiled ranker on Python objects (issue 25)
# QrelsTable.rank_objects ranks ir_measures' rows, dicts and frames in C; held equal to the
# general path (frames through Evaluator), as the Python direct path is.

from irstats.integrations.columns import compiled_ranking, ranked_judgments  # noqa: E402


def _shaped(run_rows, shape: str):
    """The run in one of ir_measures' shapes (a dict of dicts keeps each topic's first line of a docno)."""
    if shape == "namedtuples":
        return [ir_measures.ScoredDoc(*row) for row in run_rows]
    if shape == "dataframes":
        return pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    shaped: dict = {}
    for topic, docno, score in run_rows:
        shaped.setdefault(topic, {}).setdefault(docno, score)
    return shaped


def _compiled_tensor(qrels_rows, run, options: EvalOptions):
    collection = qrels_collection(*zip(*qrels_rows))
    ranked = compiled_ranking(collection, run, options)
    return None if ranked is None else ranked_judgments(collection, ranked, options)


def test_compiled_ranker_ranks_every_dl19_run_as_the_general_path(reference_data):
    """Every DL 2019 run (all 14 in the full test budget) in each of ir_measures' three shapes:
    the compiled ranker takes it and gives the general path's tensor under each option set."""
    folder = reference_data / "trec-dl-2019-passage"
    qrels = [(q.query_id, q.doc_id, q.relevance)
             for q in ir_measures.read_trec_qrels(str(folder / "qrels.dl19-passage.txt"))]
    general_collection = Collection.load(pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]))
    paths = sorted((folder / "runs").glob("*.run.gz"))
    assert len(paths) == len(DL19_RUNS)
    for path in spread(paths, 8):
        rows = [tuple(r) for r in ir_measures.read_trec_run(str(path))]
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
        for fields in OPTION_SETS:
            options = EvalOptions(complete=True, **fields)
            general = Evaluator(general_collection, options).judgments({"run": frame})
            for shape in ("namedtuples", "dicts", "dataframes"):
                compiled = _compiled_tensor(qrels, _shaped(rows, shape), options)
                assert compiled is not None, (path.name, fields, shape)
                _assert_same_tensor(compiled[0], general)


@settings(max_examples=examples(300), deadline=None)
@given(_cases(), st.sampled_from(["namedtuples", "dicts", "dataframes"]))
@example(([("1", "a", 1), ("1", "b", 0)], [("1", "b", 0.30000001), ("1", "a", 0.30000002)],  # one score in float32
          EvalOptions(complete=True, depth=None, score_dtype="float32")), "namedtuples")
@example(([("1", "a", 1), ("1", "b", 0)], [("1", "b", 0.30000001), ("1", "a", 0.30000002)],
          EvalOptions(complete=True, depth=None, score_dtype="float32")), "dicts")
@example(([("1", "a", 1), ("2", "c", 2)], [("2", "a", 0.5), ("2", "b", 0.5), ("2", "c", 0.4), ("1", "b", 0.5),
                                            ("1", "a", 0.5), ("2", "d", 0.3)], EvalOptions(complete=True, depth=2)),
         "namedtuples")  # topic 2 in two blocks, ties, a depth cut
def test_compiled_ranker_equals_the_general_path_or_leaves_the_run_to_it(case, shape):
    """On generated qrels and runs, in each shape, the compiled ranker gives the general path's
    tensor and lines per topic, or declines — only for what the general path refuses or orders
    by its own rules (a document twice in a topic, a NaN or −0 score)."""
    qrels, run, options = case
    shaped = _shaped(run, shape)
    if shape == "dicts":  # what the dict holds: each topic's lines, topic by topic
        run = [(topic, docno, score) for topic, docs in shaped.items() for docno, score in docs.items()]
    compiled = _compiled_tensor(qrels, shaped, options)
    inside = [r for r in run if r[0] in {q[0] for q in qrels}]
    repeated = len({r[:2] for r in inside}) != len(inside)
    odd = any(math.isnan(r[2]) or (r[2] == 0 and math.copysign(1, r[2]) < 0) for r in inside)
    if not inside:
        assert compiled is not None and not compiled[1].any()
        return
    try:
        _, general = _general_tensor(qrels, inside, options)
    except (InputError, ValueError):
        assert compiled is None
        return
    if compiled is None:
        assert repeated or odd
        return
    assert not repeated
    _assert_same_tensor(compiled[0], general)
    np.testing.assert_array_equal(compiled[1], np.bincount([sorted({q[0] for q in qrels}).index(r[0])
                                                            for r in inside], minlength=len(compiled[0].topics)))


def test_compiled_ranker_declines_what_it_is_not_sure_of():
    """Ids that are not text, scores that are not numbers (or are booleans), rows of mixed
    types, a list whose rows lack a field: None, so the Python path and then the general path decide."""
    from collections import namedtuple

    qrels = [("1", "a", 1), ("1", "b", 0)]
    options = EvalOptions(complete=True)
    Other = namedtuple("Other", ["doc_id", "query_id", "score"])  # the same fields in another order
    assert _compiled_tensor(qrels, [ir_measures.ScoredDoc(1, "a", 1.0)], options) is None
    assert _compiled_tensor(qrels, [ir_measures.ScoredDoc("1", 7, 1.0)], options) is None
    assert _compiled_tensor(qrels, [ir_measures.ScoredDoc("1", "a", "high")], options) is None
    assert _compiled_tensor(qrels, [ir_measures.ScoredDoc("1", "a", True)], options) is None
    assert _compiled_tensor(qrels, [ir_measures.ScoredDoc("1", "a", 1.0), Other("b", "1", 0.5)], options) is None
    assert _compiled_tensor(qrels, [("1", "a", 1.0)], options) is None  # plain tuples: no field names
    assert _compiled_tensor(qrels, {"1": {"a": None}}, options) is None
    assert _compiled_tensor(qrels, {"1": [("a", 1.0)]}, options) is None  # not a dict of dicts
    assert _compiled_tensor(qrels, {1: {"a": 1.0}}, options) is None
    assert _compiled_tensor(qrels, [ir_measures.ScoredDoc("1", "a\x00", 1.0)], options) is None
    # the fields are found by name, whatever their order
    moved = _compiled_tensor(qrels, [Other("b", "1", 2.0), Other("a", "1", 1.0)], options)
    assert moved is not None and moved[0].grades[0, 0, :2].tolist() == [0, 1]


def test_every_input_shape_gives_pytrec_eval_values(dl19):
    """The direct path's three ways in — lists of namedtuples, dicts of dicts (pytrec_eval's
    shape) and DataFrames (PyTerrier's) — give pytrec_eval's values."""
    qrels, runs = dl19
    provider = provider_module.IrstatsProvider(score_dtype="float32")
    measures = [AP, nDCG@10, P@10, R@100, RR, Bpref, P(judged_only=True)@10]
    to_dicts = ir_measures.util.QrelsConverter(qrels).as_dict_of_dict()
    shapes = {"namedtuples": (qrels, list(runs.values())),
              "dicts": (to_dicts, [ir_measures.util.RunConverter(r).as_dict_of_dict() for r in runs.values()]),
              "dataframes": (pd.DataFrame(qrels), [pd.DataFrame(r) for r in runs.values()])}
    for shape, (shaped_qrels, shaped_runs) in shapes.items():
        for run in shaped_runs:
            mine = {(m.query_id, str(m.measure)): m.value for m in provider.iter_calc(measures, shaped_qrels, run)}
            theirs = {(m.query_id, str(m.measure)): m.value
                      for m in ir_measures.pytrec_eval.iter_calc(measures, shaped_qrels, run)}
            assert mine.keys() == theirs.keys(), shape
            for key, value in theirs.items():
                assert mine[key] == pytest.approx(value, abs=1e-6), (shape, key)


def test_qrels_kept_between_calls_are_never_stale(dl19):
    """The provider keeps the qrels' collection between calls; qrels changed in place (a dict
    edited, a list with a row replaced) are read anew: values follow pytrec_eval's."""
    qrels, runs = dl19
    run = next(iter(runs.values()))
    provider = provider_module.IrstatsProvider(score_dtype="float32")
    measures = [AP, nDCG@10, P@10]

    def agree(shaped_qrels, shaped_run):
        mine = provider.calc_aggregate(measures, shaped_qrels, shaped_run)
        theirs = ir_measures.pytrec_eval.calc_aggregate(measures, shaped_qrels, shaped_run)
        for measure in measures:
            assert mine[measure] == pytest.approx(theirs[measure], abs=1e-9), measure
        return mine

    # a list: the same rows again, then one row replaced by a relevant judgment of a retrieved document
    rows = list(qrels)
    before = agree(rows, run)
    assert agree(rows, run) == before
    top = run[0]
    where = next((i for i, q in enumerate(rows) if (q.query_id, q.doc_id) == (top.query_id, top.doc_id)), None)
    changed = ir_measures.Qrel(top.query_id, top.doc_id, 0 if where is not None and rows[where].relevance else 3)
    if where is None:
        rows.append(changed)
    else:
        rows[where] = changed
    assert agree(rows, run) != before
    # a dict of dicts edited in place between two calls
    as_dicts = ir_measures.util.QrelsConverter(qrels).as_dict_of_dict()
    dict_run = ir_measures.util.RunConverter(run).as_dict_of_dict()
    before = agree(as_dicts, dict_run)
    as_dicts[top.query_id][top.doc_id] = changed.relevance
    assert agree(as_dicts, dict_run) != before


def test_what_the_direct_path_declines_goes_the_general_way(dl19):
    """Qrels with non-ASCII ids, a run with numbers as docnos, a run with a document twice or
    a NaN score: the general path reads them as it always did (its values, its errors)."""
    qrels, runs = dl19
    run = next(iter(runs.values()))
    provider = provider_module.IrstatsProvider(score_dtype="float32")
    measures = [AP, nDCG@10]
    accented = [q._replace(doc_id=q.doc_id + "é") for q in qrels]
    accented_run = [r._replace(doc_id=r.doc_id + "é") for r in run]
    assert qrels_collection(*zip(*[(q.query_id, q.doc_id, q.relevance) for q in accented])) is None
    mine = provider.calc_aggregate(measures, accented, accented_run)
    theirs = ir_measures.pytrec_eval.calc_aggregate(measures, qrels, run)
    for measure in measures:
        assert mine[measure] == pytest.approx(theirs[measure], abs=1e-6)
    # docnos given as numbers: the frame path reads them as text, so they meet the qrels' docnos
    numeric = [r._replace(doc_id=int(r.doc_id)) for r in run]
    assert provider.calc_aggregate(measures, qrels, numeric) == pytest.approx(
        provider.calc_aggregate(measures, qrels, run))
    with pytest.raises(InputError, match="appears twice"):
        provider.calc_aggregate(measures, qrels, run + run[:1])
    with pytest.raises(ValueError, match="score"):
        provider.calc_aggregate(measures, qrels, [run[0]._replace(score=math.nan), *run[1:]])


def test_no_frame_library_on_the_direct_path(reference_data, tmp_path):
    """Lists and dicts reach the tensor without importing pandas or polars (a fresh process)."""
    import subprocess
    import sys
    from pathlib import Path

    folder = reference_data / "trec-dl-2019-passage"
    code = (
        "import sys, ir_measures\n"
        "from irstats.integrations.ir_measures import IrstatsProvider\n"
        f"qrels = list(ir_measures.read_trec_qrels({str(folder / 'qrels.dl19-passage.txt')!r}))\n"
        f"run = list(ir_measures.read_trec_run({str(folder / 'runs' / 'ICT-BERT2.run.gz')!r}))\n"
        "provider = IrstatsProvider()\n"
        "provider.calc_aggregate([ir_measures.AP, ir_measures.nDCG@10], qrels, run)\n"
        "provider.calc_aggregate([ir_measures.AP], ir_measures.util.QrelsConverter(qrels).as_dict_of_dict(),\n"
        "                        ir_measures.util.RunConverter(run).as_dict_of_dict())\n"
        "print(sorted(m for m in ('pandas', 'polars', 'pyarrow') if m in sys.modules))\n")
    src = Path(__file__).resolve().parents[1] / "src"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**__import__("os").environ, "PYTHONPATH": str(src)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_numbers_as_ids_keep_ir_measures_meaning(dl19):
    """Qrels with numbers for query ids go the general way; a run must then name its topics
    with the same numbers (as ir_measures compares ids): with text ids it answers no qrels
    topic, and every topic gets the measure's DEFAULT, as before the direct path existed."""
    qrels, runs = dl19
    run = next(iter(runs.values()))
    provider = provider_module.IrstatsProvider(score_dtype="float32")
    numbered = pd.DataFrame(qrels).assign(query_id=lambda f: f["query_id"].astype(int))
    numbered_run = pd.DataFrame(run).assign(query_id=lambda f: f["query_id"].astype(int))
    assert all(m.value == 0 for m in provider.iter_calc([AP, P@10], numbered, run))
    mine = provider.calc_aggregate([AP, P@10], numbered, numbered_run)
    theirs = ir_measures.pytrec_eval.calc_aggregate([AP, P@10], qrels, run)
    assert mine[AP] == pytest.approx(theirs[AP], abs=1e-6) and mine[P@10] == pytest.approx(theirs[P@10], abs=1e-6)
