"""``irstats trec_eval``: trec_eval 10's command line, and its output byte for byte.

``alias trec_eval='irstats trec_eval'``: the options are trec_eval's, parsed as its
getopt_long does (options and the two file names in any order; ``-l2`` and ``-l 2`` alike;
``-m`` repeated), and the printed lines are trec_eval's. Exit codes follow trec_eval: 1 for
a bad option or measure, 2 for a file it cannot read, 4 for a qrels topic without results
(unless -c).

:func:`run` needs no click: :func:`irstats.cli.main.main` calls it straight away for
``irstats trec_eval …`` (a drop-in called once per run file in a shell loop starts as fast as
it can), and the click command :mod:`irstats.cli.trec_eval_cmd` calls it too.
"""

from __future__ import annotations

import getopt
import sys
from typing import Any

from irstats.errors import InputError

USAGE = """Usage: irstats trec_eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>] [-M <num>] [-J]
                         [-R trec_qrels] [-T trec_results] [-v] trec_rel_file trec_top_file

trec_eval 10's command line, computed by irstats; the output is trec_eval's, byte for byte.

  -q          print the measures of every topic, then the summary ('all')
  -m MEASURE  a trec_eval measure, e.g. map, P.5,10, ndcg_cut.10, iprec_at_recall..2,.8;
              or a nickname: official (default), all_trec, set, qrels_jg, prefs,
              all_prefs. Repeatable.
  -c          average over every qrels topic (a topic without results scores 0)
  -n          no summary lines
  -l NUM      relevance level: grade >= NUM is relevant (default 1)
  -M NUM      evaluate the first NUM documents per topic (default: all)
  -J          judged documents only (unjudged ones removed from the ranking)
  -R, -T      input formats: -R trec_qrels (default), qrels_jg, prefs, qrels_prefs;
              -T trec_results
  -v          print the version
  -N NUM      the number of documents in the collection (utility's d term)
  -Z FILE     print z-scores: each topic's value standardized by FILE's 'qid measure mean sd'
  -R qrels_jg judgment-group qrels (qid jg docno rel): the *_avgjg measures average over groups
  -R prefs    preference judgments (qid jg jsg docno level) for the prefs_* measures
              (-m prefs, -m all_prefs); -R qrels_prefs reads a qrels file as preferences
Examples:
  alias trec_eval='irstats trec_eval'
  trec_eval -q -m all_trec qrels.txt run.txt
  trec_eval -q -R prefs -m all_prefs prefs.txt run.txt
"""

SHORT_OPTIONS = "hvqm:cl:nD:JN:M:R:T:oZ:"


def _number(option: str, text: str) -> int:
    """An option's number as trec_eval's atol reads it ("1e20" → 1; past a long: clamped)."""
    from irstats.measures.trec_eval_forms import atol

    try:
        return atol(text)
    except ValueError:
        raise InputError(f"option {option} takes a whole number, not {text!r}") from None


def _input_format(option: str, value: str, rel_format: str) -> str:
    """The -R format after ``-R value`` or ``-T value`` (-T takes trec_results, the only run
    format); an InputError for a format the drop-in does not read."""
    from irstats.trec_eval.formats import FORMATS

    if option == "-R" and value in FORMATS:
        return value
    if option == "-T" and value == "trec_results":
        return rel_format
    raise InputError(f"input format {value!r} ({option}) is not read by irstats trec_eval; "
                     f"-R takes {', '.join(FORMATS)} and -T trec_results")


def run(args: list[str]) -> int:
    """Run ``trec_eval ARGS`` (the arguments after ``trec_eval``); returns the exit code.
    Errors in the input raise :class:`~irstats.errors.InputError` (the entry point prints one
    line, exit 2), as in every command."""
    from irstats.trec_eval.output import TrecEvalFailure, trec_eval_chunks

    if "--help" in args:
        sys.stdout.write(USAGE)
        return 0
    try:
        options, operands = getopt.gnu_getopt(list(args), SHORT_OPTIONS)
    except getopt.GetoptError as exc:
        sys.stderr.write(f"irstats trec_eval: {exc.msg}\n{USAGE}")
        return 1
    settings: dict[str, Any] = {"measures": [], "per_topic": False, "summary_lines": True, "complete": False, "rel_level": 1,
                "depth": None, "judged_only": False, "num_docs": 0, "zscores": None, "rel_format": "trec_qrels"}
    for option, value in options:
        if option == "-h":
            sys.stdout.write(USAGE)
            return 0
        if option == "-v":
            sys.stderr.write("trec_eval version 10.0 (irstats)\n")
            return 0
        if option == "-q":
            settings["per_topic"] = True
        elif option == "-m":
            settings["measures"].append(value)
        elif option == "-c":
            settings["complete"] = True
        elif option == "-n":
            settings["summary_lines"] = False
        elif option == "-l":
            settings["rel_level"] = _number("-l", value)
        elif option == "-M":
            settings["depth"] = _number("-M", value)
        elif option == "-J":
            settings["judged_only"] = True
        elif option in ("-R", "-T"):
            settings["rel_format"] = _input_format(option, value, settings["rel_format"])
        elif option == "-N":
            settings["num_docs"] = _number("-N", value)
        elif option == "-Z":
            settings["zscores"] = value
        # -D (debug) and -o (obsolete) change nothing in the output
    if len(operands) != 2:
        sys.stderr.write(USAGE)
        return 1
    from irstats.trec_eval.table import ParameterError, rbp_reads_leftovers, requested

    try:
        before_rbp = rbp_reads_leftovers(requested(settings["measures"], settings["num_docs"]))
    except ParameterError as exc:  # trec_eval's own lines: "Negative cutoff detected", exit 2
        sys.stderr.write("".join(line + "\n" for line in exc.lines))
        return exc.exit_code
    except InputError as exc:  # trec_eval: "illegal measure", exit 1
        sys.stderr.write(f"trec_eval: {exc.message}\n")
        return 1
    if before_rbp:
        sys.stderr.write(f"irstats: warning: rbp is printed as trec_eval computes it alone; after {before_rbp}, "
                         f"trec_eval 10's rbp reads two variables m_rbp.c never initialises (min, max), which hold "
                         f"what {before_rbp} left, and may print another value\n")
    try:  # printed a block of topics at a time: 10^5 topics are never held as one text
        for chunk in trec_eval_chunks(operands[0], operands[1], settings.pop("measures"), **settings):
            _write(chunk)
    except TrecEvalFailure as exc:  # trec_eval stops with exit 4 on a topic, after the lines before it
        sys.stderr.write(f"trec_eval: {exc.message}\n")
        return 4
    except InputError as exc:
        _in_drop_in_words(exc)
        raise
    return 0


def _in_drop_in_words(error: InputError) -> None:
    """An error's advice in the drop-in's words: it takes trec_eval's options only, so a remedy
    given as an option of irstats (``use on_duplicate='first' (--on-duplicate first)``) is one
    of ``irstats eval``, said so."""
    import re

    text = re.sub(r"use \w+=(?:'[^']*'|\S+) \((--[^)]*)\) to (.*)$",
                  r"to \2, use irstats eval \1 (the drop-in takes trec_eval's options only)", error.message)
    if text != error.message:
        error.message = text
        where = f"{error.path}:{error.line}: " if error.line is not None else f"{error.path}: " if error.path else ""
        error.args = (where + text,)


def _write(text: str) -> None:
    """The output as trec_eval's bytes: ids are held as Latin-1 text of the bytes read
    (irstats.io.trec.as_text), so Latin-1 gives the very bytes back."""
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("latin-1"))
    sys.stdout.buffer.flush()
