"""trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``; m_prefs_*.c), over the
preference judgments the tensor carries (``Judgments.preferences``, :mod:`irstats.preference_judgments`;
``needs="preferences"``).

For one run and topic, the retrieved judged documents come first, in the run's order (score
descending, ties by docno ascending, as form_prefs_counts.c ranks them), then the judged
documents the run missed, by docno: each document's *key* (its rank, or past every rank its
place by docno) orders them so. A preference A > B of a judgment group is then fulfilled or
not among the retrieved (both retrieved: fulfilled when A's key is smaller), implied (one
retrieved: fulfilled iff it is A) or neither retrieved (never fulfilled). The measures
(trec_eval's names in brackets):

- ``NumPrefsPoss`` (prefs_num_prefs_poss), ``NumPrefsFul`` (prefs_num_prefs_ful),
  ``NumPrefsFulRet`` (prefs_num_prefs_ful_ret): counts, summed over topics;
- ``PrefsSimp``: fulfilled / possible preferences; ``PrefsPair``: the mean over document
  pairs of the share of the pair's preferences that are fulfilled; ``PrefsAvgJG``: fulfilled
  / possible within each judgment group, averaged over groups; ``PrefsAvgJGRnonrel``: as
  PrefsAvgJG with the number of nonrelevant documents of each group set to its number of
  relevant ones (akin to bpref);
- each also over retrieved pairs only (``…Ret``) and over retrieved plus implied (``…Imp``).

Every rule, including the odd ones, is trec_eval 10's (``irstats trec_eval -R prefs`` prints its
output byte for byte): a topic's value is 0 where trec_eval leaves it unset (no possible
preference), a group without possible preferences makes the Rnonrel average 0, averages are
summed in trec_eval's order. The counts are vectorised over systems and groups: a group of one
sub-group by its equivalence classes (its fulfilled pairs counted class by class over the
documents in key order), a group of several by the pairs of its closure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from irstats.errors import MeasureError
from irstats.measures.registry import Family, TrecEvalName, register

if TYPE_CHECKING:  # pragma: no cover
    from irstats.judgments import Judgments
    from irstats.measures.registry import Measure
    from irstats.preference_judgments import PreferenceFacts

#: A preference family's computation on the ranked rows: ``compute(ranked)`` → (S, T).
Compute = Callable[["_Ranked"], np.ndarray]
#: A family's kernel on a tensor: ``kernel(judgments, measure)`` → (S, T).
Kernel = Callable[["Judgments", "Measure"], np.ndarray]
#: The preference ranking of a tensor's runs: (rows, n_ret, tie_start, tie_size), the tie
#: groups None without ties.
RankedRows = tuple[np.ndarray, np.ndarray, "np.ndarray | None", "np.ndarray | None"]


def _facts(j: Judgments) -> PreferenceFacts:
    if j.preferences is None:
        raise MeasureError("the preference measures need preference judgments ('topic jg jsg docno level'): give "
                           "preferences= (irstats eval --prefs FILE)")
    return j.preferences.facts


class _Ranked:
    """What a kernel reads: the ranked rows of a tensor's lists ((S, T, K), prefs order), the
    facts and the tensor's topics as positions on the facts' axis (``columns``)."""

    def __init__(self, j: Judgments, rows: np.ndarray, columns: np.ndarray) -> None:
        from irstats.preference_judgments import BIG

        self.j, self.facts = j, _facts(j)
        facts = self.facts
        n_sys = rows.shape[0]
        self.n_sys, self.n_cols = n_sys, len(columns)
        self.column_of_topic = np.full(facts.n_topics, -1, dtype=np.int64)
        self.column_of_topic[columns] = np.arange(len(columns))
        keys = np.empty((n_sys, facts.none + 1), dtype=np.int64)
        keys[:] = BIG + facts.place
        s, t, p = np.nonzero(rows != facts.none)
        keys[s, rows[s, t, p]] = p
        self.keys = keys
        self.ret = keys < BIG

    # ------------------------------------------------------------------ sums over (s, group) or (s, column)

    def by_group(self, groups: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """``weights`` (S, N) summed by group (``groups``: (N,)): (S, G)."""
        n_groups = self.facts.n_groups
        index = (np.arange(self.n_sys)[:, None] * n_groups + groups[None, :]).ravel()
        return np.bincount(index, weights=np.broadcast_to(weights, (self.n_sys, len(groups))).ravel(),
                           minlength=self.n_sys * n_groups).reshape(self.n_sys, n_groups)

    def by_column(self, per_group: np.ndarray) -> np.ndarray:
        """(S, G) summed over each column's groups, in group order (as trec_eval adds): (S, T)."""
        column = self.column_of_topic[self.facts.group_topic]
        keep = column >= 0
        index = (np.arange(self.n_sys)[:, None] * self.n_cols + column[keep][None, :]).ravel()
        return np.bincount(index, weights=per_group[:, keep].ravel(),
                           minlength=self.n_sys * self.n_cols).reshape(self.n_sys, self.n_cols)

    @property
    def groups_per_column(self) -> np.ndarray:
        column = self.column_of_topic[self.facts.group_topic]
        return np.bincount(column[column >= 0], minlength=self.n_cols)

    # ------------------------------------------------------------------ form_prefs_counts

    def counts(self) -> dict[str, np.ndarray]:
        """trec_eval's counts per system and group (S, G): fulfilled and possible among the
        retrieved (``ful_ret``, ``poss_ret``), implied (``ful_imp``, ``poss_imp``), neither
        retrieved (``notoccur``), relevant and nonrelevant documents (``rel``, ``rel_ret``,
        ``nonrel``, ``nonrel_ret``); and per class, what the Rnonrel measures read."""
        counts: dict[str, np.ndarray] = self.j.memo(("preference counts",), self._counts)
        return counts

    def _counts(self) -> dict[str, np.ndarray]:
        f = self.facts
        out = {name: np.zeros((self.n_sys, f.n_groups)) for name in
               ("ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur", "rel", "rel_ret", "nonrel", "nonrel_ret")}
        # groups of one sub-group: counts of each class, then the pairs between classes
        if len(f.entry_row):
            classes = self._class_counts()
            group = f.class_group
            for name in ("ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur"):
                out[name] += self.by_group(group, classes[name])
            entry_group = group[f.entry_class]
            ret = self.ret[:, f.entry_row]
            out["rel"] += self.by_group(entry_group, f.entry_rel.astype(np.float64))
            out["rel_ret"] += self.by_group(entry_group, ret & f.entry_rel)
            out["nonrel"] += self.by_group(entry_group, (~f.entry_rel).astype(np.float64))
            out["nonrel_ret"] += self.by_group(entry_group, ret & ~f.entry_rel)
        # groups of several sub-groups: the pairs of their closures
        if len(f.pair_group):
            for name, value in self._pair_terms(f.pair_a, f.pair_b).items():
                out[name] += self.by_group(f.pair_group, value)
        if len(f.level_group):
            ret = self.ret[:, f.level_row]
            rel, nonrel = f.level_value > 0.0, f.level_value == 0.0
            out["rel"] += self.by_group(f.level_group, rel.astype(np.float64))
            out["rel_ret"] += self.by_group(f.level_group, ret & rel)
            out["nonrel"] += self.by_group(f.level_group, nonrel.astype(np.float64))
            out["nonrel_ret"] += self.by_group(f.level_group, ret & nonrel)
        return out

    def _pair_terms(self, a: np.ndarray, b: np.ndarray, kept: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The five counts of preferences a > b (form_prefs_counts.c's areas), (S, N) each."""
        ra, rb = self.ret[:, a], self.ret[:, b]
        both, only_a, only_b, neither = ra & rb, ra & ~rb, ~ra & rb, ~ra & ~rb
        terms = {"ful_ret": both & (self.keys[:, a] < self.keys[:, b]), "poss_ret": both, "ful_imp": only_a,
                 "poss_imp": only_a | only_b, "notoccur": neither}
        if kept is not None:
            terms = {name: value & kept for name, value in terms.items()}
        return terms

    def _class_counts(self) -> dict[str, np.ndarray]:
        """Per system and class (S, C): the pairs of each class with the classes above it."""
        counts: dict[str, np.ndarray] = self.j.memo(("preference class counts",), self._count_classes)
        return counts

    def _count_classes(self) -> dict[str, np.ndarray]:
        f = self.facts
        n_classes = len(f.class_group)
        ret = self.ret[:, f.entry_row]
        index = (np.arange(self.n_sys)[:, None] * n_classes + f.entry_class[None, :]).ravel()
        ret_c = np.bincount(index, weights=ret.ravel(), minlength=self.n_sys * n_classes).reshape(self.n_sys, -1)
        size_c = np.bincount(f.entry_class, minlength=n_classes).astype(np.float64)
        unret_c = size_c - ret_c
        first = np.searchsorted(f.class_group, f.class_group, side="left")  # each group's first class

        def above(x: np.ndarray) -> np.ndarray:  # of the classes above, in the same group
            before = np.cumsum(x, axis=-1) - x
            in_group: np.ndarray = before - before[..., first]
            return in_group

        above_ret, above_unret = above(ret_c), above(unret_c)
        return {"ret": ret_c, "size": size_c, "above_ret": above_ret, "above_size": above(size_c),
                "ful_ret": self._fulfilled_by_class(ret, n_classes, first),
                "poss_ret": above_ret * ret_c, "ful_imp": above_ret * unret_c,
                "poss_imp": above_ret * unret_c + above_unret * ret_c, "notoccur": above_unret * unret_c}

    def _in_key_order(self, chosen: np.ndarray, rows: np.ndarray,
                      groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The (system, line) pairs ``chosen`` ((S, N) mask; ``rows``, ``groups``: each line's
        document and group), by system, then group, then key: (s, e, the line's group, where its
        (system, group) block starts)."""
        s, e = np.nonzero(chosen)
        order = np.lexsort((self.keys[s, rows[e]], groups[e], s))
        s, e = s[order], e[order]
        g = groups[e]
        block = np.ones(len(s), dtype=bool)
        block[1:] = (s[1:] != s[:-1]) | (g[1:] != g[:-1])
        return s, e, g, np.maximum.accumulate(np.where(block, np.arange(len(s)), 0))

    def _fulfilled_by_class(self, ret: np.ndarray, n_classes: int, first: np.ndarray) -> np.ndarray:
        """Per class c (S, C): the pairs (x of a class above c, y of c), both retrieved, x ranked
        above y. The retrieved lines in key order within each (system, group); one pass per
        class place, each counting for every line the lines of that place before it."""
        f = self.facts
        s, e, _, start = self._in_key_order(ret, f.entry_row, f.class_group[f.entry_class])
        place = f.entry_class[e] - first[f.entry_class[e]]  # the class's place in its group
        fulfilled = np.zeros(len(s), dtype=np.int64)
        for level in range(int(place.max(initial=0))):
            mine = (place == level).astype(np.int64)
            before = np.cumsum(mine) - mine
            fulfilled += np.where(place > level, before - before[start], 0)
        index = s * n_classes + f.entry_class[e]
        return np.bincount(index, weights=fulfilled, minlength=self.n_sys * n_classes).reshape(self.n_sys, -1)

    # ------------------------------------------------------------------ the measures

    def simple(self, imp: bool, notoccur: bool) -> np.ndarray:
        c = self.counts()
        ful = self.by_column(c["ful_ret"] + (c["ful_imp"] if imp else 0))
        poss = self.by_column(c["poss_ret"] + (c["poss_imp"] if imp else 0) + (c["notoccur"] if notoccur else 0))
        return np.where(poss > 0, ful / np.where(poss > 0, poss, 1), 0.0)

    def per_group(self, imp: bool, notoccur: bool) -> np.ndarray:
        c = self.counts()
        ful = c["ful_ret"] + (c["ful_imp"] if imp else 0)
        poss = c["poss_ret"] + (c["poss_imp"] if imp else 0) + (c["notoccur"] if notoccur else 0)
        return self._group_average(np.where(poss > 0, ful / np.where(poss > 0, poss, 1), 0.0))

    def _group_average(self, ratios: np.ndarray) -> np.ndarray:
        """Each column's ratios summed in group order over its number of groups; 0 unless the
        sum is above 0 (a NaN ratio, 0/0, makes it 0), as trec_eval averages."""
        total = self.by_column(ratios)
        groups = self.groups_per_column
        with np.errstate(invalid="ignore"):
            return np.where(total > 0, total / np.where(groups > 0, groups, 1), 0.0)

    def count(self, name: str) -> np.ndarray:
        c = self.counts()
        terms = {"possible": c["poss_ret"] + c["poss_imp"] + c["notoccur"], "fulfilled": c["ful_ret"] + c["ful_imp"],
                 "fulfilled_ret": c["ful_ret"]}
        return self.by_column(terms[name])

    def pairs(self, imp: bool, notoccur: bool) -> np.ndarray:
        """The mean over document pairs with a preference of the share of their groups'
        preferences fulfilled, summed pair by pair in trec_eval's loop order (both retrieved by
        their ranks, then one retrieved); pairs of two unretrieved documents count as 0."""
        sums = self.j.memo(("preference pair sums",), self._pair_sums)
        total = sums["both, then one"] if imp else sums["both"]
        count = sums["n both"] + (sums["n one"] if imp else 0) + (sums["n neither"] if notoccur else 0)
        return np.where(count > 0, total / np.where(count > 0, count, 1), 0.0)

    #: (system, pair) entries worked on at once: bounds the memory of the pair measures
    PAIR_BLOCK = 1 << 20

    def _pair_sums(self) -> dict[str, np.ndarray]:
        """Per system and column (S, T): the shares of the pairs both retrieved, summed in
        trec_eval's order, then on through those one retrieved; how many pairs of each kind."""
        f = self.facts
        lo, hi, forward, backward = f.pair_counts()
        column = self.column_of_topic[f.topic_of_row[lo]]
        keep = column >= 0
        lo, hi, forward, backward, column = lo[keep], hi[keep], forward[keep], backward[keep], column[keep]
        total = (forward + backward).astype(np.float64)
        # the docid order as small numbers: a retrieved document's rank, past every rank its place by docno
        width = int(self.keys[self.ret].max(initial=-1)) + 1
        compact = np.where(self.ret, self.keys, width + f.place[None, :])
        bits = max(int(compact.max(initial=0)).bit_length(), 1)
        shape = (self.n_sys, self.n_cols)
        out = {name: np.zeros(shape) for name in ("both", "both, then one", "n both", "n one", "n neither")}
        step = max(1, self.PAIR_BLOCK // max(len(lo), 1))
        for first in range(0, self.n_sys, step):  # blocks of systems
            systems = slice(first, min(first + step, self.n_sys))
            n = systems.stop - systems.start
            rlo, rhi = self.ret[systems][:, lo], self.ret[systems][:, hi]
            klo, khi = compact[systems][:, lo], compact[systems][:, hi]
            both, one = rlo & rhi, rlo ^ rhi
            segment = (np.arange(n)[:, None] * self.n_cols + column[None, :])
            for name, mask in (("n both", both), ("n one", one), ("n neither", ~(rlo | rhi))):
                out[name][systems] = np.bincount(segment[mask], minlength=n * self.n_cols).reshape(n, -1)
            counted = both | one
            seg = segment[counted]
            share = (np.where(klo < khi, forward, backward) / total)[counted]  # the first ranked one's count
            k1, k2 = np.minimum(klo, khi)[counted], np.maximum(klo, khi)[counted]
            if 2 * bits + 1 <= 62:
                order = np.lexsort(((one[counted].astype(np.int64) << (2 * bits)) | (k1 << bits) | k2, seg))
            else:
                order = np.lexsort((k2, k1, one[counted], seg))
            seg, share, is_both = seg[order], share[order], both[counted][order]
            out["both, then one"][systems] = np.bincount(seg, weights=share, minlength=n * self.n_cols).reshape(n, -1)
            out["both"][systems] = np.bincount(seg[is_both], weights=share[is_both],
                                               minlength=n * self.n_cols).reshape(n, -1)
        return out

    def rnonrel(self, retrieved_only: bool) -> np.ndarray:
        """prefs_avgjg_Rnonrel(_ret): each group's nonrelevant documents counted as if there were
        exactly as many as relevant ones (trec_eval's recalculate() when there are more)."""
        c = self.counts()
        if retrieved_only:
            r, nonrel, ful, poss = c["rel_ret"], c["nonrel_ret"], c["ful_ret"], c["poss_ret"]
        else:
            r, nonrel = c["rel"], c["nonrel"]
            ful, poss = c["ful_ret"] + c["ful_imp"], c["poss_ret"] + c["poss_imp"] + c["notoccur"]
        extra = np.maximum(r - nonrel, 0)  # R − N more nonrelevant documents, each below every relevant one
        ful_more, poss_more = ful + c["rel_ret"] * extra, poss + c["rel"] * extra
        ful_fewer, poss_fewer = self._recalculated(retrieved_only, ful, poss)
        ful, poss = np.where(r >= nonrel, ful_more, ful_fewer), np.where(r >= nonrel, poss_more, poss_fewer)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios = ful / poss  # C's double division: 0/0 is NaN (which zeroes the average), x/0 infinite
        return self._group_average(ratios)

    def _recalculated(self, retrieved_only: bool, ful: np.ndarray,
                      poss: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """trec_eval's recalculate(): the counts with only the first R nonrelevant documents (by
        key) of each group — R of all the group's relevant documents, or, for a group of one
        sub-group and ``retrieved_only``, of the retrieved ones."""
        f = self.facts
        ful, poss = ful.copy(), poss.copy()
        c = self.counts()
        if len(f.entry_row):
            self._recalculate_classes(retrieved_only, ful, poss, c)
        if len(f.pair_group):
            self._recalculate_closures(retrieved_only, ful, poss, c)
        return ful, poss

    def _recalculate_classes(self, retrieved_only: bool, ful: np.ndarray, poss: np.ndarray,
                             c: dict[str, np.ndarray]) -> None:
        """Groups of one sub-group: the pairs of the classes above the last one among
        themselves, then every class (the last one too) against the first ``keep`` lines of
        the last class (``keep``: R, or the retrieved R), as trec_eval pairs them."""
        f = self.facts
        classes = self._class_counts()
        last = np.flatnonzero(f.class_last)
        group = f.class_group[last]
        entry_group = f.class_group[f.entry_class]
        ret = self.ret[:, f.entry_row]
        keys = self.keys[:, f.entry_row]
        if retrieved_only:  # the pairs with the last class, as the counts have them
            to_last_ful = classes["ful_ret"][:, last]
            to_last_poss = classes["above_ret"][:, last] * classes["ret"][:, last]
            size = self.by_group(entry_group, ret)
            keep = c["rel_ret"]
        else:
            to_last_ful = classes["ful_ret"][:, last] + classes["ful_imp"][:, last]
            to_last_poss = classes["above_size"][last] * classes["size"][last]
            size = np.broadcast_to(np.bincount(entry_group, minlength=f.n_groups).astype(np.float64), ful.shape)
            keep = c["rel"]
        # the last class's lines in key order: its first `keep` are the extra ones
        in_last = np.broadcast_to(f.class_last[f.entry_class], ret.shape)
        s, e, g, start = self._in_key_order(in_last, f.entry_row, entry_group)
        place = np.arange(len(s)) - start
        extra = place < keep[s, g]
        if retrieved_only:
            extra &= ret[s, e]
        # each extra line y: the group's retrieved lines ranked above it (all of them, for an unretrieved y)
        above = self._retrieved_before(ret, keys, entry_group)[s, e]
        cross_ful = np.bincount(s[extra] * f.n_groups + g[extra], weights=above[extra],
                                minlength=self.n_sys * f.n_groups).reshape(self.n_sys, -1)
        n_extra = np.bincount(s[extra] * f.n_groups + g[extra],
                              minlength=self.n_sys * f.n_groups).reshape(self.n_sys, -1)
        ful_class = ful[:, group] - to_last_ful + cross_ful[:, group]
        poss_class = poss[:, group] - to_last_poss + size[:, group] * n_extra[:, group]
        ful[:, group], poss[:, group] = ful_class, poss_class

    def _retrieved_before(self, ret: np.ndarray, keys: np.ndarray, entry_group: np.ndarray) -> np.ndarray:
        """Per system and line (S, E): the group's retrieved lines with a smaller key (for an
        unretrieved line, every retrieved line of the group)."""
        s, e, _, start = self._in_key_order(ret, self.facts.entry_row, entry_group)
        k = keys[s, e]
        # lines with equal keys (a document given twice) are not above each other
        first_equal = np.arange(len(s))
        same = np.zeros(len(s), dtype=bool)
        same[1:] = (start[1:] == start[:-1]) & (k[1:] == k[:-1])
        first_equal = np.maximum.accumulate(np.where(same, 0, first_equal))
        out = self.by_group(entry_group, ret.astype(np.float64))[:, entry_group]
        out[s, e] = first_equal - start
        return out

    def _recalculate_closures(self, retrieved_only: bool, ful: np.ndarray, poss: np.ndarray,
                              c: dict[str, np.ndarray]) -> None:
        """Groups of several sub-groups: the closure's pairs between documents kept — every
        document but the nonrelevant ones past the group's first R (R: all its relevant
        documents) in key order (among the retrieved, for ``retrieved_only``)."""
        f = self.facts
        nonrel = f.level_value == 0.0
        ret = self.ret[:, f.level_row]
        considered = np.broadcast_to(nonrel, ret.shape) & (ret if retrieved_only else True)
        s, e, g, start = self._in_key_order(considered, f.level_row, f.level_group)
        rank = np.arange(len(s)) - start
        kept = np.broadcast_to(~nonrel, ret.shape).copy()
        kept[s, e] = rank < c["rel"][s, g]
        n = f.none + 1
        composite = f.level_group * n + f.level_row
        a_at = np.searchsorted(composite, f.pair_group * n + f.pair_a)
        b_at = np.searchsorted(composite, f.pair_group * n + f.pair_b)
        terms = self._pair_terms(f.pair_a, f.pair_b, kept[:, a_at] & kept[:, b_at])
        if retrieved_only:
            new_ful, new_poss = terms["ful_ret"], terms["poss_ret"]
        else:
            new_ful = terms["ful_ret"] | terms["ful_imp"]
            new_poss = terms["poss_ret"] | terms["poss_imp"] | terms["notoccur"]
        groups = np.unique(f.pair_group)
        ful[:, groups] = self.by_group(f.pair_group, new_ful)[:, groups]
        poss[:, groups] = self.by_group(f.pair_group, new_poss)[:, groups]


def _rows(j: Judgments) -> RankedRows:
    """(rows, n_ret, tie_start, tie_size) of the tensor's runs in the preference order."""
    def compute() -> RankedRows:
        _facts(j)
        assert j.preferences is not None  # _facts refused a tensor without them
        ranked: RankedRows = j.preferences.ranked
        if ranked[0].shape[:2] != j.grades.shape[:2]:
            raise RuntimeError("the preference ranking does not fit the tensor (a bug: please report)")
        return ranked

    rows: RankedRows = j.memo(("preference rows",), compute)
    return rows


def _kernels(compute: Compute) -> tuple[Kernel, Kernel]:
    """The family's kernel, and its expectation over tied orderings: the preference ranking's
    rows put in place of the grades, so that the enumeration arranges the tied documents."""
    def kernel(j: Judgments, m: Measure) -> np.ndarray:
        return compute(_Ranked(j, _rows(j)[0], np.arange(len(j.topics))))

    def expected(j: Judgments, m: Measure) -> np.ndarray:
        from irstats.measures.ties import enumerated

        rows, n_ret, start, size = _rows(j)
        if start is None:
            return kernel(j, m)
        position = {topic: t for t, topic in enumerate(j.topics)}

        def arranged(tensor: Judgments) -> np.ndarray:  # one topic's arranged lists, their rows as the grades
            return compute(_Ranked(tensor, tensor.grades, np.array([position[tensor.topics[0]]])))

        return enumerated(j.variant(grades=rows, n_ret=n_ret, tie_start=start, tie_size=size), m, arranged, None)

    return kernel, expected


#: trec_eval's ``prefs`` nickname (``all_prefs`` holds every preference measure).
_PREFS = ("all_prefs", "prefs")
_ALL_PREFS = ("all_prefs",)


def _preference(name: str, trec_name: str, order: int, description: str, compute: Compute, count: bool = False,
                nicknames: tuple[str, ...] = _ALL_PREFS) -> Family:
    kernel, expected = _kernels(compute)
    return register(Family(name, description, kernel=kernel, cutoff="none", over_topics="sum" if count else "mean",
                           bounded=not count, ties="closed", expected_kernel=expected, needs="preferences",
                           trec_eval=(TrecEvalName(trec_name, name, order, nicknames=nicknames, reads="prefs"),)))


#: trec_eval's preference measures in its table's order (from place 34): irstats' name, trec_eval's,
#: what it is, its kernel, whether it is a count (summed over topics), its nicknames.
_MEASURES = (
    ("NumPrefsPoss", "prefs_num_prefs_poss", "Preferences possible.", lambda r: r.count("possible"), True, _PREFS),
    ("NumPrefsFul", "prefs_num_prefs_ful", "Preferences fulfilled, retrieved or implied.",
     lambda r: r.count("fulfilled"), True, _PREFS),
    ("NumPrefsFulRet", "prefs_num_prefs_ful_ret", "Preferences fulfilled among the retrieved.",
     lambda r: r.count("fulfilled_ret"), True, _PREFS),
    ("PrefsSimp", "prefs_simp", "Preferences fulfilled over those possible.", lambda r: r.simple(True, True), False,
     _PREFS),
    ("PrefsPair", "prefs_pair", "Mean over document pairs of the share of their preferences fulfilled.",
     lambda r: r.pairs(True, True), False, _PREFS),
    ("PrefsAvgJG", "prefs_avgjg", "Preferences fulfilled over possible, averaged over judgment groups.",
     lambda r: r.per_group(True, True), False, _PREFS),
    ("PrefsAvgJGRnonrel", "prefs_avgjg_Rnonrel", "PrefsAvgJG with each group's nonrelevant documents counted as "
     "many as its relevant ones.", lambda r: r.rnonrel(False), False, _ALL_PREFS),
    ("PrefsSimpRet", "prefs_simp_ret", "PrefsSimp over retrieved pairs only.", lambda r: r.simple(False, False),
     False, _ALL_PREFS),
    ("PrefsPairRet", "prefs_pair_ret", "PrefsPair over retrieved pairs only.", lambda r: r.pairs(False, False),
     False, _ALL_PREFS),
    ("PrefsAvgJGRet", "prefs_avgjg_ret", "PrefsAvgJG over retrieved pairs only.",
     lambda r: r.per_group(False, False), False, _ALL_PREFS),
    ("PrefsAvgJGRnonrelRet", "prefs_avgjg_Rnonrel_ret", "PrefsAvgJGRnonrel over retrieved pairs only.",
     lambda r: r.rnonrel(True), False, _ALL_PREFS),
    ("PrefsSimpImp", "prefs_simp_imp", "PrefsSimp over retrieved and implied pairs.", lambda r: r.simple(True, False),
     False, _ALL_PREFS),
    ("PrefsPairImp", "prefs_pair_imp", "PrefsPair over retrieved and implied pairs.", lambda r: r.pairs(True, False),
     False, _ALL_PREFS),
    ("PrefsAvgJGImp", "prefs_avgjg_imp", "PrefsAvgJG over retrieved and implied pairs.",
     lambda r: r.per_group(True, False), False, _ALL_PREFS),
)
for _order, (_name, _trec_name, _description, _compute, _count, _nicknames) in enumerate(_MEASURES, start=34):
    _preference(_name, _trec_name, _order, f"{_description[:-1]} (trec_eval's {_trec_name}).", _compute, _count,
                _nicknames)
