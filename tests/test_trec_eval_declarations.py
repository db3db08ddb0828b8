"""The drop-in's vocabulary as declarations (issue 37): output kinds (trec_eval/kinds.py), the
-R formats (trec_eval/formats.py) and the parameter forms (measures/trec_eval_forms.py), each a
registry that a new one is added to in one place. Expected outputs are trec_eval 10's own
(tests/data/conformance/trec_eval-test)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import run_drop_in


def test_a_new_r_format_is_one_entry_of_formats(te, monkeypatch):
    """A format registered in FORMATS alone is taken by -R and evaluates as its reader does."""
    from irstats.trec_eval import formats

    copy = formats.JudgmentsFormat("trec_qrels_again", "qrels", "relevance judgments",
                                   formats.FORMATS["trec_qrels"].evaluate)
    monkeypatch.setitem(formats.FORMATS, copy.name, copy)
    code, out = run_drop_in(["-m", "all_trec", "-q", "-R", "trec_qrels_again", te / "qrels.test", te / "results.test"])
    assert code == 0
    assert out == (te / "out.test.aq").read_text()


def test_an_unknown_r_format_names_those_there_are(te):
    """An InputError: the entry point prints it as one line, exit 2."""
    from irstats.errors import InputError
    from irstats.trec_eval.command import run

    with pytest.raises(InputError, match="'qrels_xml' [(]-R[)] is not read by irstats trec_eval; "
                                         "-R takes trec_qrels, qrels_jg, prefs, qrels_prefs and -T trec_results"):
        run(["-R", "qrels_xml", str(te / "qrels.test"), str(te / "results.test")])


def _printed_as(value: str) -> str:
    if re.fullmatch(r"-?\d+", value):
        return "%ld"
    return "%6.4f" if re.fullmatch(r"-?\d+\.\d{4}|\s*-?nan", value) else "text"


@pytest.mark.parametrize("output", ["out.test.aq", "out.test.aql", "out.test.prefs", "out.test.qrels_jg"])
def test_how_trec_eval_prints_a_value_is_its_declared_output_kind(te, output):
    """trec_eval's own output: a value is printed as %ld exactly where the measure's output kind
    is a count (a family summed over topics, or num_q), as text for runid and relstring, and
    as %6.4f elsewhere."""
    from irstats.trec_eval.kinds import COUNT, KINDS, kind_of
    from irstats.trec_eval.table import BY_NAME

    declared = {COUNT: "%ld", KINDS["num_q"]: "%ld", KINDS["runid"]: "text", KINDS["string"]: "text"}
    printed: dict[str, set[str]] = {}
    for text in (te / output).read_text().splitlines():
        name, _, value = text.split("\t")
        printed.setdefault(name.strip(), set()).add(_printed_as(value))
    assert len(printed) > 5
    for name, formats in printed.items():
        entry = BY_NAME.get(name) or BY_NAME[name.rsplit("_", 1)[0]]
        assert formats == {declared.get(kind_of(entry), "%6.4f")}, name


def test_an_unknown_output_kind_or_form_is_refused_where_it_is_declared():
    from irstats.measures.registry import TrecEvalName
    from irstats.trec_eval.kinds import kind_of

    with pytest.raises(ValueError, match="unknown output kind 'median'"):
        kind_of(TrecEvalName("median_map", "AP", 99, kind="median"))
    with pytest.raises(ValueError, match="unknown form 'triples'"):
        TrecEvalName("triples", "AP", 99, "triples")


@pytest.mark.parametrize("spec, lines, exit_code", [
    ("P.0", ["trec_eval: Negative cutoff detected", "trec_eval: Cannot initialize measure 'P'"], 2),
    ("P.5,5", ["trec_eval: duplicate cutoffs detected", "trec_eval: Cannot initialize measure 'P'"], 2),
    ("rbp.0.8", ["trec_eval: malformed pair parameters in '0.8'", "trec_eval: Cannot initialize measure 'rbp'"], 2),
    ("utility.1,2", ["trec_eval.calc_utility: improper number of coefficients",
                     "trec_eval: Can't calculate measure 'utility'"], 4),
])
def test_a_form_reads_parameters_with_trec_evals_own_errors(spec, lines, exit_code):
    """The form that prints a measure's parameters reads them too, with trec_eval 10's messages
    and exit codes (as trec_eval 10.0, built from usnistgov/trec_eval, prints them for these
    -m arguments on the test suite's files)."""
    from irstats.measures.trec_eval_forms import ParameterError
    from irstats.trec_eval.table import requested

    with pytest.raises(ParameterError) as caught:
        requested([spec])
    assert caught.value.lines == lines and caught.value.exit_code == exit_code


def test_rbp_refuses_a_gain_map_and_rbp_resid_ignores_it():
    from irstats.trec_eval.table import requested

    with pytest.raises(Exception, match="does not reproduce rbp with a gain map"):
        requested(["rbp.p=0.5,1=2"])
    [(entry, params)] = requested(["rbp_resid.p=0.5,1=2"])
    assert entry.values(params) == [("rbp_resid_p=0.5,1=2", "RBPresid(p=0.5)")]
