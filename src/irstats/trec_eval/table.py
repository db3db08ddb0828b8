"""trec_eval 10's measure table (measures.c): names in print order, parameters, nicknames,
and the irstats measure behind every printed value — derived from the declarations.

Each entry is an :class:`irstats.measures.registry.TrecEvalName`. A family declares the
entries it computes in its own module (``map`` and ``map_cut`` in measures/ap.py); what only
the drop-in prints is declared here, once: ``runid``, ``relstring``, the geometric means
``gm_map`` and ``gm_bpref`` and the judgment-group measures of ``-R qrels_jg``
(:mod:`irstats.trec_eval.jg`). The preference measures of ``-R prefs`` are families
(measures/preferences.py), declared there. :data:`TABLE` is all of them in trec_eval's order, and
:data:`NICKNAMES` each nickname's members.

A trec_eval measure is asked for with ``-m name`` or ``-m name.params`` (``P.5,10``,
``iprec_at_recall..1,.5``, ``set_F.0.5``, ``rbp.p=0.8``); a parameter list expands into
one printed value per parameter (``P_5``, ``P_10``). The parameters are read, errors
included, and printed by the measure's parameter form (:mod:`irstats.measures.trec_eval_forms`);
the values by its output kind (:mod:`irstats.trec_eval.kinds`).
"""

from __future__ import annotations

from irstats.errors import InputError
from irstats.measures import FAMILIES  # noqa: F401 - every family registered, with its trec_eval names
from irstats.measures.registry import EVERY_NICKNAME, OFFICIAL, TREC_CUTS, TrecEvalName, derived, trec_eval_names
from irstats.measures.trec_eval_forms import ParameterError
from irstats.trec_eval.kinds import kind_of

_R_MULTIPLES = tuple(k / 10 for k in range(2, 21, 2))

#: What only the drop-in prints, each at its place in trec_eval's table.
DROP_IN: tuple[TrecEvalName, ...] = (
    TrecEvalName("runid", None, 0, kind="runid", nicknames=EVERY_NICKNAME),
    TrecEvalName("gm_map", "AP", 6, kind="gm", nicknames=OFFICIAL),
    # (a topic -c adds: the made-up document, not in the qrels)
    TrecEvalName("relstring", None, 12, "double_first", (10,), kind="string",
                 made_up=lambda length, num_rel, num_docs: "-"),
    TrecEvalName("gm_bpref", "Bpref", 15, kind="gm"),
    # -R qrels_jg: each averaged over the judgment groups (irstats.trec_eval.jg)
    TrecEvalName("map_avgjg", "AP", 48, kind="float", nicknames=("qrels_jg",), reads="jg"),
    TrecEvalName("P_avgjg", "P@{}", 49, "longs", TREC_CUTS, kind="float", nicknames=("qrels_jg",), reads="jg"),
    TrecEvalName("Rprec_mult_avgjg", "Rprec(mult={:g})", 50, "floats", _R_MULTIPLES, kind="float",
                 nicknames=("qrels_jg",), reads="jg"),
)


def _table() -> tuple[TrecEvalName, ...]:
    table = tuple(sorted((*trec_eval_names(), *DROP_IN), key=lambda entry: entry.order))
    for entry in table:
        kind_of(entry)  # every kind named is one the drop-in prints
    for before, after in zip(table, table[1:]):
        if before.order == after.order or before.name == after.name:
            raise ValueError(f"trec_eval measures {before.name} and {after.name} are both declared at place "
                             f"{before.order}" if before.order == after.order else
                             f"trec_eval measure {before.name} is declared twice")
    return table


def _by_name() -> dict[str, TrecEvalName]:
    return {m.name: m for m in derived("trec_eval table", _table)}


def _nicknames() -> dict[str, tuple[str, ...]]:
    table = derived("trec_eval table", _table)
    return {nickname: tuple(m.name for m in table if nickname in m.nicknames)
            for nickname in dict.fromkeys(n for m in table for n in m.nicknames)}


#: Derived from the registered families when read (PEP 562), so that they always hold every
#: family: ``TABLE``, trec_eval 10's measures in its print order (measures.c
#: te_trec_measures[]), every family's :class:`TrecEvalName` and :data:`DROP_IN`'s;
#: ``BY_NAME``, those by name; ``NICKNAMES``, trec_eval's nicknames (measures.c), each its
#: members in print order.
_DERIVED = {"TABLE": ("trec_eval table", _table), "BY_NAME": ("trec_eval by name", _by_name),
            "NICKNAMES": ("trec_eval nicknames", _nicknames)}


def __getattr__(name: str):
    if name in _DERIVED:
        return derived(*_DERIVED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def requested(specs: list[str], num_docs: int = 0) -> list[tuple[TrecEvalName, tuple | None]]:
    """``-m`` arguments → the marked measures in trec_eval's print order, with parameters
    (None: the defaults). The first ``-m name.params`` of a measure sets its parameters; a
    later one is ignored, as trec_eval's measure initialisers take the first match.
    ``num_docs`` (-N) goes to utility's d term."""
    table, by_name, nicknames = (derived(*_DERIVED[name]) for name in ("TABLE", "BY_NAME", "NICKNAMES"))
    marked: dict[str, tuple | None] = {}
    failed: dict[str, ParameterError] = {}  # trec_eval initialises in its table's order, after every -m is read
    for spec in specs or ["official"]:
        name, dot, params = spec.partition(".")
        if name in nicknames and not dot:
            for member in nicknames[name]:
                marked.setdefault(member, None)
            continue
        if name not in by_name:
            raise InputError(f"illegal measure '{spec}'")
        if marked.get(name) is None and name not in failed:  # the first -m name.params counts
            try:
                marked[name] = by_name[name].read_params(params) if dot else None
            except ParameterError as exc:
                failed[name] = exc
    if failed:
        raise failed[next(m.name for m in table if m.name in failed)]
    out = [(m, marked[m.name]) for m in table if m.name in marked]
    if num_docs:
        out = [(_with_docs(m, num_docs), p) for m, p in out]
    return out


#: trec_eval's m_rbp.c scales the gains by ``min`` and ``max``, two variables it never
#: initialises: they hold whatever the previous call at that depth of the stack left there. For
#: each topic trec_eval calls the marked measures in its table's order, so rbp's value depends on
#: the last of them before it. Found with trec_eval 10.0 built by its own Makefile (gcc -g, x86-64)
#: on DL 2019 and on trec_eval's test files, every pair and triple of measures with rbp
#: (bench/fuzz_trec_eval.py --rbp-pairs): after these its rbp differs from ``-m rbp`` alone
#: (0.0398 vs 0.3869 after ndcg on bm25base_p) ...
RBP_LEFTOVERS_FROM = frozenset({"iprec_at_recall", "11pt_avg", "G", "ndcg", "ndcg_rel", "ndcg_cut"})
#: ... unless one of these comes between (they overwrite the two slots with values that change nothing).
RBP_LEFTOVERS_CLEARED_BY = frozenset({
    "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "binG", "Rndcg", "map_cut",
    "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"})


def rbp_reads_leftovers(marked: list[tuple[TrecEvalName, tuple | None]]) -> str | None:
    """The measure whose leftovers trec_eval's rbp reads as its uninitialised ``min`` and
    ``max`` (:data:`RBP_LEFTOVERS_FROM`) among ``marked`` (:func:`requested`'s list, in table
    order), or None when rbp is not marked or reads what it reads alone (all_trec: Rndcg and
    the set measures come between). irstats prints rbp as when they start at 0 (trec_eval's
    ``-m rbp`` alone); the drop-in says so in a warning where trec_eval's value may differ."""
    last = None
    for measure, _ in marked:
        if measure.name == "rbp":
            return last
        if measure.name in RBP_LEFTOVERS_FROM:
            last = measure.name
        elif measure.name in RBP_LEFTOVERS_CLEARED_BY:
            last = None
    return None


def _with_docs(measure: TrecEvalName, num_docs: int) -> TrecEvalName:
    """A measure whose family takes the collection's size N (``docs``: utility's
    d·(N + C − n − R) term) with -N's value; any other as it is."""
    from dataclasses import replace

    from irstats.measures import parse_measure

    plain = measure.irstats_measure(measure.defaults[0] if measure.listed else None)
    if plain is None or all(p.name != "docs" for p in parse_measure(plain).definition.params):
        return measure
    assert measure.measure is not None  # plain is made from it
    return replace(measure, measure=measure.measure[:-1] + f",docs={int(num_docs)})")


__all__ = ["BY_NAME", "DROP_IN", "NICKNAMES", "TABLE", "ParameterError", "RBP_LEFTOVERS_CLEARED_BY",
           "RBP_LEFTOVERS_FROM", "rbp_reads_leftovers", "requested"]
