"""Did the reproduction reproduce? The measures of Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer
and Soboroff, "How to Measure the Reproducibility of System-oriented IR Experiments" (SIGIR
2020, doi:10.1145/3397271.3401036), as repro_eval computes them, on irstats' engine.

An *original* experiment is a baseline run b and an advanced run a (a should beat b). A
*reproduction* re-creates them on the same collection (b', a'); a *replication* on another
collection (other topics, other qrels). The paper compares them at four levels (equation
numbers are the paper's, section 3):

- **Order of documents** (reproduction only), per topic j and then averaged over the topics
  ("ARP" in repro_eval, the ``all`` rows here):

  * Kendall's τ Union, Eq. (1): τ = (P − Q)/√((P + Q + U)(P + Q + V)) over the pairs of
    documents of the union of the original and reproduced rankings; P concordant, Q
    discordant pairs, U and V the pairs tied in only one ranking. A document one ranking
    lacks is placed after all of that ranking's documents, tied with the others it lacks
    (so U and V count those pairs): this is τ-b on the union.
  * Rank-biased overlap, Eq. (2): RBO = (1 − φ) Σ_{i≥1} φ^{i−1} |orig_{:i} ∩ rpd_{:i}|/i
    (Webber, Moffat and Zobel, TOIS 2010), computed as repro_eval does (below).

- **Effectiveness** (reproduction only), per measure M, Eq. (3):
  RMSE = √(1/n Σ_j (M_j(orig) − M_j(rpd))²) over the topics both runs answer.
- **Overall effects**, per measure, Eqs. (4)–(6): the per-topic improvement
  ΔM_j = M_j(a) − M_j(b); the effect ratio ER = mean_j ΔM'_j / mean_j ΔM_j (each mean over the
  topics its own pair answers, so over each collection's topics for a replication); the
  relative improvement RI = (ARP(a) − ARP(b))/ARP(b) (ARP: a run's mean over its topics) and
  ΔRI = RI − RI'. ER = 1 and ΔRI = 0 is a perfect reproduction of the effect.
- **Statistics**, per measure and run: a two-sided paired t-test between the original and
  reproduced per-topic scores (same topics); an unpaired one for a replication (Student's
  pooled-variance test, as repro_eval; ``equal_var=False`` for Welch's). Reported as p-values:
  small p means the reproduction's scores differ from the original's.

Where repro_eval 0.5 (the reference the tests compare with) departs from the paper:

1. **KTU.** repro_eval correlates, rank by rank, the positions of the two rankings' documents
   in the alphabetically sorted union (``kendalltau(orig_idx, rep_idx)``), not the ranks of
   each document: swapping the top two of three documents gives 1/3 or −1 depending on the
   documents' names (the paper's Eq. (1): 1/3), and a reproduction that ranks one new document
   first and every other one rank lower scores near 0 (Eq. (1): near 1). It raises when the
   two rankings of a topic differ in length. irstats follows the paper (``ktu_method="union"``)
   and offers repro_eval's numbers as ``ktu_method="repro_eval"`` (NaN where the lengths differ).
2. **RBO.** The paper's Eq. (2) is an infinite sum; repro_eval 0.5 evaluates its prefix to a
   fixed depth D (1000) and divides by Σ_{i≤D} φ^{i−1} instead of multiplying by 1 − φ (as
   Clarke et al.'s Compatibility code), so identical rankings score 1 at any depth, with
   φ = 0.95. Its first release (0.1, July 2020) evaluated the extrapolated RBO_ext of Webber et
   al. (Eq. 32) with φ = 0.8. irstats follows repro_eval 0.5 (``rbo_method="repro_eval"``) and
   offers the extrapolation (``rbo_method="extrapolated"``, with ``rbo_p=0.8`` for the
   paper-era setting).
3. **Topics a run lacks** (the paper assumes every run answers every topic). repro_eval's
   evaluation (ir_measures over pytrec_eval) gives a qrels topic a run lacks the score 0 for
   every measure — trec_eval's ``-c`` — so RMSE, ER, ΔRI and the t-tests count it, while KTU
   and RBO leave it out (they walk the reproduced run's topics, and stop on one the original
   lacks). irstats does the same by default (``complete=True``, with a warning naming the runs
   that lack topics) and offers ``complete=False``: every statistic on the topics the runs
   compared answer.
4. **Degenerate t-tests.** Where every per-topic difference is 0, scipy's p is NaN and
   repro_eval keeps it unless *every* measure is identical (then 1); irstats applies its one
   rule (docs/design.md, ``stats/degenerate.py``): p = 1.
5. **Ranking order.** repro_eval ranks the documents of KTU and RBO in the run file's order
   (only equal scores next to each other are re-ordered, by docno), while the evaluation
   sorts by score; irstats uses the engine's order (score, then docno, descending: trec_eval's)
   for both. They agree on files written in score order, as runs are.

Vectorised over topics: the rankings come from the engine as integer document ids
(:func:`irstats.depth.pooling.ranked_lines` against a "qrels" of every ranked document, whose
ids follow the documents' alphabetical order); τ is the batched τ-b of
:mod:`irstats.meta.correlation`, RBO one histogram of the depths at which a shared document
enters both prefixes, the tests the batched t-tests of :mod:`irstats.stats.closed_form`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np
import polars as pl

from irstats.checks import names, one_of, real, whole
from irstats.errors import ArgumentError, InputError, warn
from irstats.result import Result, provided

#: The statistics of :meth:`ReproResult.to_frame`, in its order.
STATISTICS = ("ktu", "rbo", "rmse", "er", "dri", "p_value")
#: The runs of a study: the baseline b and the advanced run a.
RUNS = ("baseline", "advanced")
KTU_METHODS = ("union", "repro_eval")
RBO_METHODS = ("repro_eval", "extrapolated")
#: The measures when none are named.
DEFAULT_REPRO_MEASURES = ("AP", "nDCG@10", "P@10")
#: repro_eval's measures (``load_measures``): these trec_eval measures with their default
#: parameters; ``-m repro_eval`` asks for them by this nickname.
REPRO_EVAL_TREC_MEASURES = ("P", "recall", "ndcg", "ndcg_cut", "map_cut", "set_map", "set_P", "set_relative_P",
                            "set_recall", "set_F", "Rprec", "infAP", "bpref", "recip_rank", "map", "iprec_at_recall")
#: trec_eval's counts, which repro_eval leaves out of every comparison (its ``exclude``);
#: left out of ``all_trec`` here too.
EXCLUDED_TREC_MEASURES = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "relstring")
#: The document-order depth of repro_eval (``RUN_LENGTH``, ``RBO_DEPTH``) and its RBO persistence.
DEPTH = 1000
RBO_P = 0.95
#: Shown in the measure column of the rows that are about the order of documents.
ORDER = "-"


# ----------------------------------------------------------------------------- measures

def _trec_measures(trec_names: Sequence[str]) -> tuple[str, ...]:
    """The irstats measures behind trec_eval measures with their default parameters."""
    from irstats.trec_eval.table import BY_NAME

    return tuple(m for name in trec_names for _, m in BY_NAME[name].values() if m is not None)


def repro_measures(measures=None) -> tuple[str, ...]:
    """Canonical measure names: irstats names (``AP``, ``nDCG@10``), trec_eval names (``map``,
    ``ndcg_cut_10``, ``P.5,10``), ``all_trec`` (trec_eval's every measure but the counts) or
    ``repro_eval`` (repro_eval's 58 measures). None: :data:`DEFAULT_REPRO_MEASURES`."""
    from irstats.measures import canonical_name
    from irstats.measures.registry import expand_measures

    if measures is None:
        return DEFAULT_REPRO_MEASURES
    counts = set(_trec_measures([m for m in EXCLUDED_TREC_MEASURES if m not in ("runid", "relstring")]))
    out: list[str] = []
    for name in names(measures, "measures", what="measure names", text=True):
        if name.strip() == "repro_eval":
            expanded = list(_trec_measures(REPRO_EVAL_TREC_MEASURES))
        elif name.strip() == "all_trec":
            expanded = [m for m in expand_measures([name]) if m not in counts]
        else:
            expanded = expand_measures([name])
        out.extend(canonical_name(m) for m in expanded)
    if not out:
        raise ArgumentError("no measure named", argument="measures")
    return tuple(dict.fromkeys(out))


# ----------------------------------------------------------------------------- order of documents

@dataclass(frozen=True)
class Rankings:
    """Two rankings per topic as integer document ids (ids follow the documents' alphabetical
    order within a topic; every (topic, document) has its own id): ``a`` and ``b`` (T, D),
    −1 past the end of a list, ``n_a`` and ``n_b`` their lengths (T,)."""

    a: np.ndarray
    b: np.ndarray
    n_a: np.ndarray
    n_b: np.ndarray

    @classmethod
    def of(cls, a: Sequence[Sequence], b: Sequence[Sequence], depth: int | None = None) -> "Rankings":
        """From lists of document names per topic (``a[j]``, ``b[j]``: topic j's ranking, best
        first), each cut to ``depth``."""
        if len(a) != len(b):
            raise ArgumentError(f"a has {len(a)} rankings and b {len(b)}; one of each per topic is needed",
                                argument="b")
        cut = [list(x)[:depth] for x in a], [list(x)[:depth] for x in b]
        width = max([len(x) for side in cut for x in side], default=0)
        ids = [np.full((len(a), max(width, 1)), -1, dtype=np.int64) for _ in range(2)]
        base = 0
        for j, (x, y) in enumerate(zip(*cut)):
            docs = sorted(set(x) | set(y))
            number = {d: base + k for k, d in enumerate(docs)}
            base += len(docs)
            ids[0][j, :len(x)] = [number[d] for d in x]
            ids[1][j, :len(y)] = [number[d] for d in y]
        return cls(ids[0], ids[1], np.array([len(x) for x in cut[0]]), np.array([len(y) for y in cut[1]]))

    def _flat_ranks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every id of either ranking once: its topic, its id, its 1-based rank in a and in b (0:
        absent)."""
        ta, ra = np.nonzero(self.a >= 0)
        tb, rb = np.nonzero(self.b >= 0)
        ids = np.concatenate([self.a[ta, ra], self.b[tb, rb]])
        topic = np.concatenate([ta, tb])
        unique, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
        rank_a = np.zeros(len(unique), dtype=np.int64)
        rank_b = np.zeros(len(unique), dtype=np.int64)
        rank_a[inverse[:len(ta)]] = ra + 1
        rank_b[inverse[len(ta):]] = rb + 1
        return topic[first], unique, rank_a, rank_b


def _rows(topic: np.ndarray, values: Sequence[np.ndarray], n_topics: int) -> list[np.ndarray]:
    """Values of items grouped by topic into (T, L) rows, NaN-padded, items kept in order."""
    order = np.argsort(topic, kind="stable")
    topic = topic[order]
    counts = np.bincount(topic, minlength=n_topics)
    position = np.arange(len(topic)) - np.repeat(np.cumsum(counts) - counts, counts)
    width = max(int(counts.max(initial=0)), 2)
    out = []
    for v in values:
        rows = np.full((n_topics, width), np.nan)
        rows[topic, position] = v[order]
        out.append(rows)
    return out


def kendall_tau_union(rankings: Rankings, method: str = "union") -> np.ndarray:
    """Kendall's τ Union per topic (T,). ``"union"``: the paper's Eq. (1), τ-b over the union
    of the two rankings' documents (a document a ranking lacks ranked after all its documents,
    tied with the others it lacks). ``"repro_eval"``: repro_eval's ``KTU`` — τ-b between the
    two rankings' sequences of alphabetical positions in the union, rank by rank (NaN where the
    lengths differ, where repro_eval raises). NaN for fewer than two documents.

    >>> r = Rankings.of([["d3", "d1", "d2"]], [["d1", "d3", "d2"]])
    >>> kendall_tau_union(r).round(4).tolist(), kendall_tau_union(r, "repro_eval").tolist()
    ([0.3333], [-1.0])
    """
    from irstats.meta.correlation import kendall_tau_b

    one_of(method, "method", KTU_METHODS)
    n_topics = len(rankings.n_a)
    if method == "repro_eval":
        same = rankings.n_a == rankings.n_b
        width = max(rankings.a.shape[1], rankings.b.shape[1], 2)
        x, y = (np.full((n_topics, width), np.nan) for _ in range(2))
        x[:, :rankings.a.shape[1]] = np.where(rankings.a >= 0, rankings.a, np.nan)
        y[:, :rankings.b.shape[1]] = np.where(rankings.b >= 0, rankings.b, np.nan)
        tau = kendall_tau_b(x, y, nan_policy="omit")
        return np.where(same, tau, np.nan)
    topic, _, rank_a, rank_b = rankings._flat_ranks()
    x = np.where(rank_a > 0, rank_a, rankings.n_a[topic] + 1).astype(float)
    y = np.where(rank_b > 0, rank_b, rankings.n_b[topic] + 1).astype(float)
    rx, ry = _rows(topic, [x, y], n_topics)
    return kendall_tau_b(rx, ry, nan_policy="omit")


def rank_biased_overlap(rankings: Rankings, p: float = RBO_P, depth: int = DEPTH,
                        method: str = "repro_eval") -> np.ndarray:
    """Rank-biased overlap per topic (T,), from the overlaps X_d = |a_{:d} ∩ b_{:d}|.

    ``"repro_eval"`` (repro_eval 0.5's ``_rbo``): Σ_{d=1}^{D} p^{d−1} X_d/d / Σ_{d=1}^{D} p^{d−1}
    with D = ``depth``, whatever the lists' lengths (a list shorter than D adds nothing past
    its end). ``"extrapolated"``: RBO_ext of Webber et al. (TOIS 2010, Eq. 32), for lists of
    lengths s ≤ l (``depth`` cuts them first):
    (1 − p)/p [Σ_{d=1}^{l} X_d/d p^d + Σ_{d=s+1}^{l} X_s (d − s)/(s d) p^d] + [(X_l − X_s)/l + X_s/s] p^l.

    >>> r = Rankings.of([["a", "b", "c"]], [["b", "a", "d"]])
    >>> rank_biased_overlap(r, p=0.9, depth=3).round(6).tolist()
    [0.531365]
    >>> rank_biased_overlap(r, p=0.9, depth=3, method="extrapolated").round(6).tolist()
    [0.63]
    """
    one_of(method, "method", RBO_METHODS)
    p = real(p, "p", low=0.0, high=1.0)
    if not 0.0 < p < 1.0:
        raise ArgumentError(f"p must be between 0 and 1 (exclusive); got {p!r}", argument="p")
    depth = whole(depth, "depth", minimum=1)
    n_topics = len(rankings.n_a)
    topic, _, rank_a, rank_b = rankings._flat_ranks()
    n_a, n_b = np.minimum(rankings.n_a, depth), np.minimum(rankings.n_b, depth)
    both = (rank_a > 0) & (rank_b > 0) & (rank_a <= depth) & (rank_b <= depth)
    enters = np.maximum(rank_a, rank_b)[both]  # the depth from which the document is in both prefixes
    counts = np.bincount(topic[both] * depth + enters - 1, minlength=n_topics * depth).reshape(n_topics, depth)
    overlap = np.cumsum(counts, axis=1).astype(float)  # X_d, d = 1..D
    d = np.arange(1, depth + 1, dtype=float)
    if method == "repro_eval":
        power = p ** (d - 1)
        return (overlap * (power / d)).sum(axis=1) / power.sum()
    short, long = np.minimum(n_a, n_b), np.maximum(n_a, n_b)
    rows = np.arange(n_topics)
    x_s = np.where(short > 0, overlap[rows, np.maximum(short, 1) - 1], 0.0)
    x_l = np.where(long > 0, overlap[rows, np.maximum(long, 1) - 1], 0.0)
    power = p ** d
    upto = d[None, :] <= long[:, None]
    past = upto & (d[None, :] > short[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        seen = np.where(upto, overlap / d * power, 0.0).sum(axis=1)
        tail = np.where(past, x_s[:, None] * (d[None, :] - short[:, None]) / (short[:, None] * d[None, :]) * power,
                        0.0).sum(axis=1)
        ext = (1 - p) / p * (seen + tail) + ((x_l - x_s) / long + x_s / short) * p ** long
    return np.where(short > 0, ext, np.nan)


def _document_rankings(orig, other, options, depth: int) -> tuple[tuple[str, ...], list[Rankings], np.ndarray]:
    """The topics on which some run has both its rankings; per run (baseline, advanced) the
    original and the other ranking of each as document ids, in the engine's order, cut at
    ``depth``; and (runs, topics) whether the run has both rankings of the topic."""
    from irstats.collection import Collection, RunSet
    from irstats.depth.pooling import ranked_lines

    if options.ties == "expected":
        raise InputError("ties='expected' gives no single order of documents to compare (KTU, RBO); use "
                         "ties='docno' (trec_eval's) or 'file'")
    frames = [part.lazy().select("topic", "docno").collect() for runs in (orig, other) for part in runs.parts]
    documents = (pl.concat(frames).unique().sort("topic", "docno")
                 .with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("rel")))
    collection = Collection(documents, tuple(sorted(documents.get_column("topic").unique().to_list())))
    opts = dataclasses.replace(options, depth=depth, judged_only=False, complete=False)
    lines = [ranked_lines(collection, runs, opts) for runs in (orig, other)]
    pairs = lines[0].present & lines[1].present  # (runs, topics): both rankings of the pair exist
    keep = pairs.any(axis=0)
    topics = tuple(t for t, k in zip(collection.topics, keep) if k)
    out = []
    for r in range(len(orig.names)):
        a, b = (np.where(side.lines[r][keep] >= 0, side.lines[r][keep], -1).astype(np.int64) for side in lines)
        out.append(Rankings(a, b, lines[0].n_ret[r][keep], lines[1].n_ret[r][keep]))
    return topics, out, pairs[:, keep]


# ----------------------------------------------------------------------------- the result

class _Wording(NamedTuple):
    study: str  # the study, in a title
    other_runs: str  # what the other runs are of the original ones


#: How a result of each kind of study speaks of it.
_WORDING = {"reproducibility": _Wording("Reproduction", "reproduced"),
            "replicability": _Wording("Replication", "replicated")}


@dataclass(frozen=True)
class ReproResult(Result):
    """The measures of a reproduction (``kind="reproducibility"``) or a replication
    (``"replicability"``) of a baseline and, optionally, an advanced run.

    ``ktu``/``rbo``: (runs, topics) per topic, None for a replication; ``rmse`` (measures,
    runs), None for a replication; ``p_value`` (measures, runs); ``er``/``dri`` (measures,),
    None without an advanced run. ``to_frame()`` is the long table ``measure statistic run
    topic value`` (``topic`` ``all``: the mean over topics, repro_eval's ARP).
    """

    kind: str
    measures: tuple[str, ...]
    original: tuple[str, ...]  # the original runs' names (baseline[, advanced])
    other: tuple[str, ...]  # the reproduced or replicated runs' names
    order_topics: tuple[str, ...]
    order_pairs: np.ndarray | None  # (runs, topics): whether the run has both rankings of the topic
    ktu: np.ndarray | None
    rbo: np.ndarray | None
    rmse: np.ndarray | None
    p_value: np.ndarray
    er: np.ndarray | None
    dri: np.ndarray | None
    n_topics: tuple[int, int]  # topics of the original and of the other runs
    test: str  # "paired t", "Student t" or "Welch t"
    complete: bool = True  # a topic a run lacks scored 0 (trec_eval -c), or left out
    order_depth: int = DEPTH
    rbo_p: float = RBO_P
    ktu_method: str = "union"
    rbo_method: str = "repro_eval"

    @property
    def runs(self) -> tuple[str, ...]:
        return RUNS[:len(self.original)]

    @property
    def title(self) -> str:
        what = _WORDING[self.kind].study
        pairs = ", ".join(f"{o} → {r}" for o, r in zip(self.original, self.other))
        topics = (f"{self.n_topics[0]} topics" if self.n_topics[0] == self.n_topics[1]
                  else f"{self.n_topics[0]} and {self.n_topics[1]} topics")
        return f"{what} of {pairs} ({topics})"

    def legend(self) -> list[str]:
        lines = []
        if self.ktu is not None:
            ktu = "τ-b on the union of documents" if self.ktu_method == "union" else "as repro_eval (rank by rank)"
            rbo = "as repro_eval" if self.rbo_method == "repro_eval" else "extrapolated"
            lines.append(f"KTU ({ktu}) and RBO ({rbo}, p = {self.rbo_p:g}) of the top {self.order_depth} documents, mean over "
                         f"the {len(self.order_topics)} topics both rankings exist for.")
        lines.append("A topic a run lacks scores 0 (trec_eval -c, as repro_eval)." if self.complete else
                     "Each comparison on the topics both of its runs answer.")
        if self.er is not None:
            lines.append("ER = mean improvement of advanced over baseline, reproduced/original (1: same effect); "
                         "ΔRI = relative improvement, original − reproduced (0: same); listed under advanced.")
        test = "paired t-test" if self.test == "paired t" else f"unpaired {self.test}-test"
        lines.append(f"p: two-sided {test} of each run's per-topic scores, original against "
                     f"{_WORDING[self.kind].other_runs} (small: they differ).")
        return lines + self._undefined_notes()

    def _undefined_notes(self) -> list[str]:
        """Why a statistic is blank (undefined), one line each: the table never leaves one
        without saying so."""
        notes = []
        if self.ktu is not None:
            for run, values in zip(self.runs, self.ktu):
                if not np.isfinite(_mean(values)):
                    notes.append(f"KTU of the {run} runs is blank: Kendall's τ-b is undefined on every topic (it needs "
                                 "two documents ranked apart in both rankings).")
        if self.er is not None:
            assert self.dri is not None  # made with ER
            for m, measure in enumerate(self.measures):
                if not np.isfinite(self.er[m]):
                    notes.append(f"ER of {measure} is blank: the original advanced run's mean improvement over its "
                                 "baseline is 0, and ER divides by it.")
                if not np.isfinite(self.dri[m]):
                    notes.append(f"ΔRI of {measure} is blank: a baseline run's mean is 0, and the relative "
                                 "improvement divides by it.")
        return notes

    def to_frame(self) -> pl.DataFrame:
        rows: dict[str, list] = {"measure": [], "statistic": [], "run": [], "topic": [], "value": []}

        def add(measure, statistic, run, topic, value):
            for key, v in zip(rows, (measure, statistic, run, topic, float(value))):
                rows[key].append(v)

        for statistic, values in (("ktu", self.ktu), ("rbo", self.rbo)):
            if values is None:
                continue
            assert self.order_pairs is not None  # made with KTU and RBO
            for r, run in enumerate(self.runs):
                for topic, v, pair in zip(self.order_topics, values[r], self.order_pairs[r]):
                    if pair:  # the run has both rankings of the topic
                        add(ORDER, statistic, run, topic, v)
                add(ORDER, statistic, run, "all", _mean(values[r]))
        for statistic, values in (("rmse", self.rmse), ("er", self.er), ("dri", self.dri), ("p_value", self.p_value)):
            if values is None:
                continue
            for m, measure in enumerate(self.measures):
                if values.ndim == 1:
                    add(measure, statistic, "advanced", "all", values[m])
                else:
                    for r, run in enumerate(self.runs):
                        add(measure, statistic, run, "all", values[m, r])
        return pl.DataFrame(rows, schema={"measure": pl.String, "statistic": pl.String, "run": pl.String,
                                          "topic": pl.String, "value": pl.Float64})

    def summary(self) -> pl.DataFrame:
        """``measure statistic baseline [advanced]``: the means over topics of KTU and RBO (measure
        ``-``), then per measure its RMSE, ER and ΔRI (under ``advanced``) and p."""
        rows: list[tuple] = []
        for statistic, values in (("ktu", self.ktu), ("rbo", self.rbo)):
            if values is not None:
                rows.append((ORDER, statistic, *(_mean(v) for v in values)))
        for m, measure in enumerate(self.measures):
            for statistic, values in (("rmse", self.rmse), ("er", self.er), ("dri", self.dri),
                                      ("p_value", self.p_value)):
                if values is None:
                    continue
                cells = (None, float(values[m])) if values.ndim == 1 else tuple(float(v) for v in values[m])
                rows.append((measure, statistic, *cells))
        schema = {"measure": pl.String, "statistic": pl.String, **{run: pl.Float64 for run in self.runs}}
        return pl.DataFrame(rows, schema=schema, orient="row")

    def display_table(self, digits: int = 4):
        """The summary for people: p-values in irstats' one notation, the statistics named."""
        from irstats.render import Table, number_cell, p_cell

        labels = {"ktu": "KTU", "rbo": "RBO", "rmse": "RMSE", "er": "ER", "dri": "ΔRI", "p_value": "p"}
        rows = []
        for row in self.summary().iter_rows(named=True):
            cells = [p_cell(row[run]) if row["statistic"] == "p_value" else number_cell(row[run], digits)
                     for run in self.runs]
            rows.append(["" if row["measure"] == ORDER else row["measure"], labels[row["statistic"]], *cells])
        return Table.of(["measure", "statistic", *self.runs], rows, [False, False, *(True for _ in self.runs)],
                        title=self.title, legend=self.legend(), label=f"tab:{self.kind}")

    def per_topic(self) -> pl.DataFrame:
        """KTU and RBO of every topic and run (``topic run ktu rbo``): the data of :meth:`plot_order`."""
        if self.ktu is None:
            raise InputError("a replication compares no rankings: KTU and RBO are for reproductions")
        assert self.rbo is not None and self.order_pairs is not None  # made with KTU
        n = len(self.order_topics)
        frame = pl.DataFrame({"topic": list(self.order_topics) * len(self.runs),
                              "run": [run for run in self.runs for _ in range(n)],
                              "ktu": self.ktu.ravel(), "rbo": self.rbo.ravel()})
        return frame.filter(pl.Series(self.order_pairs.ravel()))

    def effects(self) -> pl.DataFrame:
        """ER and ΔRI per measure (``measure er dri``): the data of :meth:`plot_effects`."""
        if self.er is None:
            raise InputError("ER and ΔRI need an advanced run besides the baseline")
        return pl.DataFrame({"measure": list(self.measures), "er": self.er, "dri": self.dri})

    def plot_order(self, ax=None):
        """KTU and RBO per topic, baseline and advanced (repro_eval's per-topic figure,
        :func:`irstats.plots.repro.plot_order`). Returns the Axes."""
        return provided(self, "plot_order", "irstats.plots")(self, ax=ax)

    def plot_effects(self, ax=None, measures: Sequence[str] | None = None):
        """ER (x) against ΔRI (y), one point per measure; (1, 0) is a perfect reproduction of the
        effect (:func:`irstats.plots.repro.plot_effects`). Returns the Axes."""
        return provided(self, "plot_effects", "irstats.plots")(self, ax=ax, measures=measures)


def _mean(values: np.ndarray) -> float:
    """The mean over topics where the statistic is defined (NaN if nowhere)."""
    finite = values[~np.isnan(values)]
    return float(finite.mean()) if finite.size else float("nan")


# ----------------------------------------------------------------------------- the studies

def _runset(runs, argument: str, expected: int | None = None):
    """1 or 2 runs (baseline[, advanced]) as one RunSet, in that order; two runs with one tag
    are named by their files."""
    from pathlib import Path

    from irstats.collection import RunSet
    from irstats.io.trec import run_name_from_path

    if isinstance(runs, (str, bytes)) or not isinstance(runs, (list, tuple)):
        runs = [runs]
    runs = list(runs)
    if not 1 <= len(runs) <= 2:
        raise ArgumentError(f"{argument}: give a baseline run and, optionally, an advanced run; got {len(runs)} runs",
                            argument=argument)
    if expected is not None and len(runs) != expected:
        raise ArgumentError(f"{argument}: {len(runs)} run(s) for {expected} original run(s); give one for each, "
                            "in the same order (baseline, advanced)", argument=argument)
    loaded = [RunSet.load(run) for run in runs]
    for run, one in zip(runs, loaded):
        if len(one.names) != 1:
            raise ArgumentError(f"{argument}: {run!r} holds {len(one.names)} runs; give one run each",
                                argument=argument)
    parts = [one.parts[0] for one in loaded]
    shown_names = [one.names[0] for one in loaded]
    if len(set(shown_names)) < len(shown_names):
        shown_names = [run_name_from_path(Path(part.source)) if part.source != "DataFrame" else f"{name}_{i + 1}"
                       for i, (name, part) in enumerate(zip(shown_names, parts))]
    return RunSet(tuple(shown_names), parts)


def _warn_missing(evaluator, runsets) -> None:
    """With ``complete``, say which runs lack topics of the qrels (they score 0 there)."""
    if not evaluator.options.complete:
        return
    wanted = set(evaluator.collection.topic_keys)
    lacking = []
    for runs in runsets:
        for name, part in zip(runs.names, runs.parts):
            answered = set(part.lazy().select("topic").unique().collect().get_column("topic").to_list())
            if wanted - answered:
                lacking.append(f"{name} ({len(wanted - answered)})")
    if lacking:
        warn(f"runs lacking topics of the qrels score 0 on them (trec_eval -c, as repro_eval): {', '.join(lacking)}; "
             "complete=False (without -c: --shared-topics) compares on the topics the runs answer")


def _scores(evaluator, runs, measures) -> tuple[tuple[str, ...], np.ndarray]:
    """Topics and per-topic scores (measures, runs, topics) of the runs."""
    matrices = evaluator.score(runs, measures)
    first = matrices[measures[0]]
    return first.topics, np.stack([matrices[m].values for m in measures])


def _align(topics_a, values_a, topics_b, values_b) -> tuple[np.ndarray, np.ndarray, int]:
    """Both score arrays on the topics both have (…, T); how many topics either had alone."""
    shared = [t for t in topics_a if t in set(topics_b)]
    ia, ib = {t: j for j, t in enumerate(topics_a)}, {t: j for j, t in enumerate(topics_b)}
    a = values_a[..., [ia[t] for t in shared]]
    b = values_b[..., [ib[t] for t in shared]]
    return a, b, len(set(topics_a) ^ set(topics_b))


def _effects(orig: np.ndarray, other: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ER and ΔRI per measure from (measures, 2, topics) scores of each side."""
    with np.errstate(invalid="ignore", divide="ignore"):
        gain = [np.nanmean(x[:, 1] - x[:, 0], axis=1) for x in (orig, other)]  # over topics both runs answer
        arp = [np.nanmean(x, axis=2) for x in (orig, other)]  # each run over its own topics
        ri = [(m[:, 1] - m[:, 0]) / m[:, 0] for m in arp]
        return gain[1] / gain[0], ri[0] - ri[1]


def _check_order(depth, p, ktu_method, rbo_method) -> tuple[int, float]:
    depth = whole(depth, "order_depth", minimum=1)
    p = real(p, "rbo_p", low=0.0, high=1.0, open_low=True, open_high=True)  # 0 and 1 weigh no rank or all
    one_of(ktu_method, "ktu_method", KTU_METHODS)
    one_of(rbo_method, "rbo_method", RBO_METHODS)
    return depth, p


def reproducibility(qrels, orig, repro, measures=None, *, order_depth: int = DEPTH, rbo_p: float = RBO_P,
                    ktu_method: str = "union", rbo_method: str = "repro_eval", **options) -> ReproResult:
    """How far ``repro`` (runs b'[, a']) reproduces ``orig`` (b[, a]) on the same collection.

    ``orig``/``repro``: a run (path or DataFrame) or a list of the baseline and the advanced
    run. ``measures``: see :func:`repro_measures` (default AP, nDCG@10, P@10; ``"repro_eval"``
    for repro_eval's 58). ``order_depth``, ``rbo_p``, ``ktu_method`` and ``rbo_method`` set the
    order-of-documents measures: the top ``order_depth`` documents of each ranking (RBO's D),
    RBO's persistence, and the method of each (see the module's notes on where repro_eval
    departs from the paper). ``options``: the evaluation options of :func:`irstats.evaluate`
    (``rel_level``, ``depth`` …), which make the scores; ``complete`` is True unless given
    (a topic a run lacks scores 0, as in repro_eval; False: left out of that comparison).

    KTU and RBO per topic (the topics both rankings exist for) and their means, RMSE per
    measure and run, ER and ΔRI per measure (with an advanced run) and the paired t-test's p
    per measure and run.
    """
    from irstats.collection import EvalOptions
    from irstats.evaluate import Evaluator
    from irstats.stats.closed_form import paired_t_rows

    depth, p = _check_order(order_depth, rbo_p, ktu_method, rbo_method)
    names_ = repro_measures(measures)
    orig_runs = _runset(orig, "orig")
    repro_runs = _runset(repro, "repro", len(orig_runs.names))
    evaluator = Evaluator(qrels, EvalOptions(**{"complete": True, **options}))
    _warn_missing(evaluator, (orig_runs, repro_runs))
    topics, rankings, paired = _document_rankings(orig_runs, repro_runs, evaluator.options, depth)
    ktu_values = np.where(paired, np.stack([kendall_tau_union(r, ktu_method) for r in rankings]), np.nan)
    rbo_values = np.where(paired, np.stack([rank_biased_overlap(r, p, depth, rbo_method) for r in rankings]), np.nan)
    topics_o, scores_o = _scores(evaluator, orig_runs, names_)
    topics_r, scores_r = _scores(evaluator, repro_runs, names_)
    a, b, alone = _align(topics_o, scores_o, topics_r, scores_r)
    if alone:
        warn(f"{alone} topic(s) answered by only the original or only the reproduced runs are left out of RMSE "
             "and the paired t-tests (complete=False)")
    diff = a - b
    with np.errstate(invalid="ignore"):
        rmse = np.sqrt(np.nanmean(diff ** 2, axis=2))
    n_m, n_r = diff.shape[:2]
    p_value = paired_t_rows(diff.reshape(n_m * n_r, -1)).p_value.reshape(n_m, n_r)
    er = dri = None
    if n_r == 2:
        er, dri = _effects(scores_o, scores_r)
    return ReproResult("reproducibility", names_, orig_runs.names, repro_runs.names, topics, paired, ktu_values,
                       rbo_values,
                       rmse, p_value, er, dri, (len(topics_o), len(topics_r)), "paired t", evaluator.options.complete,
                       depth, p, ktu_method, rbo_method)


def replicability(qrels, orig, qrels_repl, repl, measures=None, *, equal_var: bool = True,
                  **options) -> ReproResult:
    """How far ``repl`` (runs b'[, a'] judged by ``qrels_repl``, another collection) replicates
    ``orig`` (b[, a] judged by ``qrels``).

    ER and ΔRI per measure (with an advanced run; each side's means over its own topics) and
    the unpaired t-test's p per measure and run: Student's pooled-variance test as repro_eval
    (``equal_var=False``: Welch's). Rankings over different collections are not compared (no
    KTU, RBO or RMSE, as in the paper). ``options`` apply to both evaluations; ``complete`` is
    True unless given (a topic of its qrels a run lacks scores 0, as in repro_eval).
    """
    from irstats.collection import EvalOptions
    from irstats.evaluate import Evaluator
    from irstats.stats.closed_form import two_sample_t_rows

    if not isinstance(equal_var, (bool, np.bool_)):
        raise ArgumentError(f"equal_var must be True or False; got {equal_var!r}", argument="equal_var")
    names_ = repro_measures(measures)
    orig_runs = _runset(orig, "orig")
    repl_runs = _runset(repl, "repl", len(orig_runs.names))
    opts = EvalOptions(**{"complete": True, **options})
    evaluators = Evaluator(qrels, opts), Evaluator(qrels_repl, opts)
    for evaluator, runs in zip(evaluators, (orig_runs, repl_runs)):
        _warn_missing(evaluator, (runs,))
    topics_o, scores_o = _scores(evaluators[0], orig_runs, names_)
    topics_r, scores_r = _scores(evaluators[1], repl_runs, names_)
    n_m, n_r = scores_o.shape[:2]
    rows = two_sample_t_rows(scores_o.reshape(n_m * n_r, -1), scores_r.reshape(n_m * n_r, -1), equal_var=equal_var)
    p_value = rows.p_value.reshape(n_m, n_r)
    er = dri = None
    if n_r == 2:
        er, dri = _effects(scores_o, scores_r)
    return ReproResult("replicability", names_, orig_runs.names, repl_runs.names, (), None, None, None, None, p_value,
                       er, dri, (len(topics_o), len(topics_r)), "Student t" if equal_var else "Welch t", opts.complete)


__all__ = ["DEFAULT_REPRO_MEASURES", "KTU_METHODS", "RBO_METHODS", "REPRO_EVAL_TREC_MEASURES", "RUNS", "Rankings",
           "ReproResult", "STATISTICS", "kendall_tau_union", "rank_biased_overlap", "replicability", "repro_measures",
           "reproducibility"]
