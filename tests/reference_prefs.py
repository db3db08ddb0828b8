"""Plain-loop reference for trec_eval's preference measures: a line-by-line port of
form_prefs_counts.c and the m_prefs_*.c measures (trec_eval 10), kept deliberately literal
(nested loops, one pair at a time) so the vectorised irstats.preferences can be checked
against it. Only the out-of-bounds read of recalculate() (a nonrelevant class smaller than
R, possible only with negative levels) is clamped to the class, as irstats does.
"""

from __future__ import annotations

from functools import cmp_to_key


def _strcmp(a: str, b: str) -> int:
    a, b = a.encode(), b.encode()
    return (a > b) - (a < b)


class JG:
    def __init__(self):
        self.ecs = []  # [(rel_level, [docid ranks])]
        self.pa = None  # num_judged × num_judged 0/1 lists
        self.rel_array = None
        self.fulfilled_ret = self.possible_ret = self.fulfilled_imp = self.possible_imp = 0
        self.possible_notoccur = 0
        self.num_rel = self.num_rel_ret = self.num_nonrel = self.num_nonrel_ret = 0


class Counts:
    def __init__(self, jgs, num_judged, num_judged_ret, pc):
        self.jgs, self.num_judged, self.num_judged_ret, self.pc = jgs, num_judged, num_judged_ret, pc


def form_prefs_counts(prefs, results, max_docs=None):
    """prefs: [(jg, jsg, rel_level, docno)] of one topic; results: [(docno, sim)]."""
    def comp_sim_docno(a, b):
        if a[1] > b[1]:
            return -1
        if a[1] < b[1]:
            return 1
        return _strcmp(a[0], b[0])

    ranked = sorted(results, key=cmp_to_key(comp_sim_docno))
    if max_docs is not None:
        ranked = ranked[:max_docs]
    seen = set()
    for docno, _ in ranked:
        if docno in seen:
            raise ValueError(f"duplicate docs {docno}")
        seen.add(docno)
    judged = {p[3] for p in prefs}
    docid = {}
    for docno, _ in ranked:  # judged retrieved docs, in rank order
        if docno in judged:
            docid[docno] = len(docid)
    num_judged_ret = len(docid)
    for docno in sorted(judged - set(docid), key=str.encode):
        docid[docno] = len(docid)
    num_judged = len(docid)

    def comp_jg_rel(a, b):
        c = _strcmp(a[0], b[0]) or _strcmp(a[1], b[1])
        if c:
            return c
        if a[2] > b[2]:
            return -1
        if a[2] < b[2]:
            return 1
        return a[4] - b[4]

    par = sorted([(jg, jsg, rel, docno, docid[docno]) for jg, jsg, rel, docno in prefs], key=cmp_to_key(comp_jg_rel))
    pc = [[0] * num_judged for _ in range(num_judged)]
    jgs = []
    start = 0
    while start < len(par):
        end = start
        while end < len(par) and par[end][0] == par[start][0]:
            end += 1
        group = par[start:end]
        subgroups = 1 + sum(1 for i in range(1, len(group)) if group[i][1] != group[i - 1][1])
        jg = JG()
        if subgroups > 1:
            _form_jg_pa(group, jg, num_judged, num_judged_ret, pc)
        else:
            _form_jg_ec(group, jg, num_judged_ret, pc)
        jgs.append(jg)
        start = end
    return Counts(jgs, num_judged, num_judged_ret, pc)


def _form_jg_ec(group, jg, njr, pc):
    for _, _, rel, _, rank in group:
        if not jg.ecs or jg.ecs[-1][0] != rel:
            jg.ecs.append((rel, []))
        jg.ecs[-1][1].append(rank)
    for e1, (rel1, ranks1) in enumerate(jg.ecs):
        ret = 0
        for r in ranks1:
            if r >= njr:
                break
            ret += 1
        if rel1 > 0.0:
            jg.num_rel_ret += ret
            jg.num_rel += len(ranks1)
        else:
            jg.num_nonrel_ret += ret
            jg.num_nonrel += len(ranks1)
        for e2 in range(e1 + 1, len(jg.ecs)):
            for p1 in ranks1:
                for p2 in jg.ecs[e2][1]:
                    pc[p1][p2] += 1
                    if p1 == p2:
                        raise ValueError("same doc with different rel_level in one jsg")
                    if p1 < p2:
                        if p2 < njr:
                            jg.fulfilled_ret += 1
                        elif p1 < njr:
                            jg.fulfilled_imp += 1
                        else:
                            jg.possible_notoccur += 1
                    else:
                        if p1 < njr:
                            jg.possible_ret += 1
                        elif p2 < njr:
                            jg.possible_imp += 1
                        else:
                            jg.possible_notoccur += 1
    jg.possible_ret += jg.fulfilled_ret
    jg.possible_imp += jg.fulfilled_imp


def _form_jg_pa(group, jg, n, njr, pc):
    a = [[0] * n for _ in range(n)]
    rel_array = [-1.0] * n
    for i, (_, jsg, rel, docno, rank) in enumerate(group):
        if (rel_array[rank] > 0.0 and rel == 0.0) or (rel_array[rank] == 0.0 and rel > 0.0):
            raise ValueError(f"doc '{docno}' has both 0 and non-0 rel_level assigned")
        rel_array[rank] = rel
        j = i + 1
        while j < len(group) and group[j][1] == jsg and group[j][2] == rel:
            j += 1
        while j < len(group) and group[j][1] == jsg:
            a[rank][group[j][4]] = 1
            j += 1
    for i in range(n):  # transitive closure: Warshall's algorithm
        a[i][i] = 1
    for k in range(n):
        for i in range(n):
            if a[i][k]:
                for j in range(n):
                    if a[k][j]:
                        a[i][j] = 1
    for i in range(n):
        a[i][i] = 0
    for i in range(n):
        for j in range(n):
            if i != j and a[i][j] and a[j][i]:
                raise ValueError("preference inconsistency")
    jg.pa, jg.rel_array = a, rel_array
    for i in range(njr):
        if rel_array[i] > 0.0:
            jg.num_rel_ret += 1
        elif rel_array[i] == 0.0:
            jg.num_nonrel_ret += 1
    jg.num_rel, jg.num_nonrel = jg.num_rel_ret, jg.num_nonrel_ret
    for i in range(njr, n):
        if rel_array[i] > 0.0:
            jg.num_rel += 1
        elif rel_array[i] == 0.0:
            jg.num_nonrel += 1
    for i in range(n):
        for j in range(n):
            if not a[i][j]:
                continue
            pc[i][j] += 1
            if i < njr and j < njr:
                if i < j:
                    jg.fulfilled_ret += 1
                else:
                    jg.possible_ret += 1
            elif i < njr:
                jg.fulfilled_imp += 1
            elif j < njr:
                jg.possible_imp += 1
            else:
                jg.possible_notoccur += 1
    jg.possible_ret += jg.fulfilled_ret
    jg.possible_imp += jg.fulfilled_imp


def _div(a, b):
    return a / b if b else float("nan") if a == 0 else float("inf")


def _avg(values, num_jgs):
    total = 0.0
    for v in values:
        total += v
    return total / num_jgs if total > 0.0 else 0.0  # NaN > 0 is False, as in C


def _recalculate(jg, njr, retrieved_only):
    ful = poss = 0
    if jg.ecs:
        last = jg.ecs[-1][1]
        size = jg.num_rel_ret if retrieved_only else jg.num_rel
        new_nonrel = last[:size]

        def pairs(r1, r2):
            nonlocal ful, poss
            for p1 in r1:
                if retrieved_only and p1 >= njr:
                    break
                for p2 in r2:
                    if retrieved_only and p2 >= njr:
                        break
                    if p1 < p2 and (retrieved_only or p1 < njr):
                        ful += 1
                    else:
                        poss += 1

        for e1 in range(len(jg.ecs)):
            for e2 in range(e1 + 1, len(jg.ecs) - 1):
                pairs(jg.ecs[e1][1], jg.ecs[e2][1])
        for e1 in range(len(jg.ecs)):
            pairs(jg.ecs[e1][1], new_nonrel)
        return ful, poss + ful
    a, rel = jg.pa, jg.rel_array
    n = len(rel)
    scan = njr if retrieved_only else n
    seen = 0
    first_discarded = scan
    for i in range(scan):
        if rel[i] == 0.0:
            seen += 1
            if seen == jg.num_rel + 1:
                first_discarded = i
                break

    def dropped(i):
        return i >= first_discarded and rel[i] == 0.0

    for i in range(n):
        if dropped(i) or (retrieved_only and i >= njr):
            continue
        for j in range(n):
            if dropped(j) or not a[i][j] or (retrieved_only and j >= njr):
                continue
            if i < njr and (j > i or j >= njr):
                ful += 1
            else:
                poss += 1
    return ful, poss + ful


def _rnonrel(counts, retrieved_only):
    values = []
    for jg in counts.jgs:
        if retrieved_only:
            r, nn = jg.num_rel_ret, jg.num_nonrel_ret
            ful, poss = jg.fulfilled_ret, jg.possible_ret
        else:
            r, nn = jg.num_rel, jg.num_nonrel
            ful = jg.fulfilled_ret + jg.fulfilled_imp
            poss = jg.possible_ret + jg.possible_imp + jg.possible_notoccur
        if r >= nn:
            ful += jg.num_rel_ret * (r - nn)
            poss += jg.num_rel * (r - nn)
        else:
            ful, poss = _recalculate(jg, counts.num_judged_ret, retrieved_only)
        values.append(_div(ful, poss))
    return _avg(values, len(counts.jgs))


def _pair(counts, blocks):
    pc, njr, n = counts.pc, counts.num_judged_ret, counts.num_judged
    total, pairs = 0.0, 0
    ranges = {"ret": ((0, njr), None), "imp": ((0, njr), (njr, n)), "none": ((njr, n), None)}
    for block in blocks:
        (lo, hi), other = ranges[block]
        for i in range(lo, hi):
            js = range(i + 1, hi) if other is None else range(*other)
            for j in js:
                if pc[i][j] or pc[j][i]:
                    pairs += 1
                    if block != "none":
                        total += pc[i][j] / (pc[i][j] + pc[j][i])
    return total / pairs if pairs else 0.0


def _simp(counts, parts):
    ful = poss = 0
    for jg in counts.jgs:
        ful += jg.fulfilled_ret + (jg.fulfilled_imp if "imp" in parts else 0)
        poss += jg.possible_ret + (jg.possible_imp if "imp" in parts else 0)
        poss += jg.possible_notoccur if "notoccur" in parts else 0
    return ful / poss if poss else 0.0


def _avgjg(counts, parts):
    values = []
    for jg in counts.jgs:
        ful = jg.fulfilled_ret + (jg.fulfilled_imp if "imp" in parts else 0)
        poss = jg.possible_ret + (jg.possible_imp if "imp" in parts else 0)
        poss += jg.possible_notoccur if "notoccur" in parts else 0
        if poss:
            values.append(ful / poss)
    return _avg(values, len(counts.jgs))


def measures(counts) -> dict[str, float]:
    """Every trec_eval prefs measure of one topic, by trec_eval's name."""
    jgs = counts.jgs
    return {
        "prefs_num_prefs_poss": float(sum(j.possible_ret + j.possible_imp + j.possible_notoccur for j in jgs)),
        "prefs_num_prefs_ful": float(sum(j.fulfilled_ret + j.fulfilled_imp for j in jgs)),
        "prefs_num_prefs_ful_ret": float(sum(j.fulfilled_ret for j in jgs)),
        "prefs_simp": _simp(counts, ("imp", "notoccur")),
        "prefs_pair": _pair(counts, ("ret", "imp", "none")),
        "prefs_avgjg": _avgjg(counts, ("imp", "notoccur")),
        "prefs_avgjg_Rnonrel": _rnonrel(counts, False),
        "prefs_simp_ret": _simp(counts, ()),
        "prefs_pair_ret": _pair(counts, ("ret",)),
        "prefs_avgjg_ret": _avgjg(counts, ()),
        "prefs_avgjg_Rnonrel_ret": _rnonrel(counts, True),
        "prefs_simp_imp": _simp(counts, ("imp",)),
        "prefs_pair_imp": _pair(counts, ("ret", "imp")),
        "prefs_avgjg_imp": _avgjg(counts, ("imp",)),
    }
