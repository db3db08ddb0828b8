"""Diversity measures with subtopic qrels, as TREC's ndeval (and pyndeval) compute them:
α-DCG@k, α-nDCG@k, ERR-IA@k, nERR-IA@k, NRBP, nNRBP, P-IA@k and StRecall@k.

Subtopic qrels have four fields, ``topic subtopic docno grade`` (TREC Web track
diversity qrels); a document is relevant to a subtopic when its grade there is ≥ ``rel``.
Runs are ranked by the engine (trec_eval's order: score descending, docno descending —
ndeval's too), with no depth limit unless ``depth`` is given. With c_s(r) the number of
documents above rank r relevant to subtopic s, the gain at rank r is
Σ_s J(r, s)·(1 − α)^{c_s(r)}; then, as ndeval:

- α-DCG@k = Σ_{r≤k} gain(r)/log2(r + 1), divided (for k ≥ 2) by the "ideal ideal"
  Σ_{r≤k} S·(1 − α)^{r−1}/log2(r + 1), S the topic's subtopics with a relevant document;
  α-nDCG@k = α-DCG@k of the run over that of the ideal ranking (greedy: at each rank the
  document with the largest gain, ties to the larger docno), 0 when the run's is 0;
- ERR-IA@k and nERR-IA@k: the same with the discount 1/r;
- NRBP = (1 − (1 − α)β)/S · Σ_r gain(r)·β^{r−1} over the whole list; nNRBP over the ideal's;
- P-IA@k = Σ_{r≤k} Σ_s J(r, s)/(k·S); StRecall@k = subtopics covered in the top k / S.

Topics without a relevant document (S = 0) score 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import polars as pl

from irstats.checks import names, real, whole
from irstats.errors import InputError, MeasureError

MEASURE_NAMES = ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "StRecall")
_CUT = {"alpha_DCG": True, "alpha_nDCG": True, "ERR_IA": True, "nERR_IA": True, "P_IA": True, "StRecall": True,
        "NRBP": False, "nNRBP": False}


@dataclass(frozen=True)
class DiversityMeasure:
    name: str
    cutoff: int | None

    def __str__(self) -> str:
        return self.name if self.cutoff is None else f"{self.name}@{self.cutoff}"


def parse_diversity_measure(text: str) -> DiversityMeasure:
    """``alpha_nDCG@20``, ``ERR_IA@10``, ``NRBP`` … (α and β are arguments of the evaluation)."""
    if not isinstance(text, str):
        from irstats.checks import kind_of
        from irstats.errors import ArgumentTypeError

        raise ArgumentTypeError(f"a diversity measure name must be text (e.g. alpha_nDCG@20); got {kind_of(text)}",
                                argument="text")
    match = re.fullmatch(r"([A-Za-z_]+)(?:@(\d+))?", text.strip())
    if not match or match.group(1) not in MEASURE_NAMES:
        raise MeasureError(f"unknown diversity measure {text!r}; expected one of {', '.join(MEASURE_NAMES)} "
                           "(with @k where it takes a cut-off)")
    name, cutoff = match.group(1), match.group(2)
    if _CUT[name] and cutoff is None:
        raise MeasureError(f"{name} needs a cut-off: {name}@k")
    if not _CUT[name] and cutoff is not None:
        raise MeasureError(f"{name} takes no cut-off")
    if cutoff is not None and int(cutoff) < 1:
        raise MeasureError(f"{text}: the cut-off must be at least 1")
    return DiversityMeasure(name, None if cutoff is None else int(cutoff))


def read_subtopic_qrels(source) -> pl.DataFrame:
    """Subtopic qrels ``topic subtopic docno grade`` from a file (plain or gzip) or a frame
    with those columns; a bad line is an error naming the file and line."""
    from irstats.io.trec import _is_frame, check_field_count, read_lines, split_fields

    if _is_frame(source):
        frame = pl.DataFrame(source) if not isinstance(source, pl.DataFrame) else source
        missing = [c for c in ("topic", "subtopic", "docno", "grade") if c not in frame.columns]
        if missing:
            raise InputError(f"subtopic qrels frame: missing column(s) {', '.join(missing)}")
        return frame.select(pl.col("topic", "subtopic", "docno").cast(pl.String), pl.col("grade").cast(pl.Int64))
    name = str(source)
    parts = split_fields(read_lines(source))
    check_field_count(parts, parts["fields"].list.len() != 4, "4 fields 'topic subtopic docno grade'", name)
    frame = parts.select("line", *(pl.col("fields").list.get(i).alias(c)
                                   for i, c in enumerate(("topic", "subtopic", "docno", "grade"))))
    grade = frame["grade"].cast(pl.Int64, strict=False)
    if grade.null_count():
        row = frame.filter(grade.is_null()).row(0, named=True)
        raise InputError(f"the grade must be a whole number; found {row['grade']!r}", path=name, line=row["line"])
    return frame.with_columns(grade.alias("grade")).select("topic", "subtopic", "docno", "grade")


def _gains(relevant: np.ndarray, alpha: float) -> np.ndarray:
    """gain(r) = Σ_s J(r, s)·(1 − α)^{c_s(r)} for a ranking's relevance matrix (n, S)."""
    before = np.cumsum(relevant, axis=0) - relevant
    return (relevant * (1.0 - alpha) ** before).sum(axis=1)


def _ideal(relevant: np.ndarray, docnos: list[bytes], alpha: float) -> np.ndarray:
    """ndeval's greedy ideal ranking's gains: at each rank the document of largest gain,
    ties to the larger docno (bytes); documents relevant to nothing come last (gain 0)."""
    rows = [i for i in range(len(docnos)) if relevant[i].any()]
    weight = np.ones(relevant.shape[1])
    gains = []
    while rows:
        scores = [float(relevant[i] @ weight) for i in rows]
        best = max(range(len(rows)), key=lambda k: (scores[k], docnos[rows[k]]))
        gains.append(scores[best])
        weight = weight * np.where(relevant[rows[best]], 1.0 - alpha, 1.0)
        rows.pop(best)
    return np.array(gains)


def _cumulative(gains: np.ndarray, discount: np.ndarray, k: int) -> float:
    return float((gains[:k] * discount[: min(k, len(gains))]).sum())


def _ideal_ideal(subtopics: int, discount: np.ndarray, alpha: float, k: int) -> float:
    return float(sum(subtopics * (1.0 - alpha) ** r * discount[r] for r in range(k)))


def _topic_values(gains, ideal, relevant, subtopics, measures, alpha, beta, width) -> list[float]:
    n = len(gains)
    ranks = np.arange(1, max(width, n, len(ideal)) + 2, dtype=np.float64)
    log_discount = 1.0 / np.log2(ranks + 1.0)
    rank_discount = 1.0 / ranks
    out = []
    for m in measures:
        if subtopics == 0:
            out.append(0.0)
            continue
        k = m.cutoff
        if m.name in ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA"):
            discount = log_discount if "DCG" in m.name else rank_discount
            run = _cumulative(gains, discount, k)
            if m.name in ("alpha_nDCG", "nERR_IA"):
                best = _cumulative(ideal, discount, k)
                out.append(run / best if run and best else 0.0)
            else:
                out.append(run / _ideal_ideal(subtopics, discount, alpha, k) if k > 1 else run)
        elif m.name in ("NRBP", "nNRBP"):
            decay = beta ** np.arange(max(n, len(ideal)), dtype=np.float64)
            scale = (1.0 - (1.0 - alpha) * beta) / subtopics
            run = scale * float((gains * decay[:n]).sum())
            if m.name == "nNRBP":
                best = scale * float((ideal * decay[: len(ideal)]).sum())
                out.append(run / best if best else 0.0)
            else:
                out.append(run)
        elif m.name == "P_IA":
            out.append(float(relevant[:k].sum()) / (k * subtopics))
        else:  # StRecall
            out.append(float(relevant[:k].any(axis=0).sum()) / subtopics)
    return out


def evaluate_diversity(qrels, runs, measures=("alpha_nDCG@20", "ERR_IA@20", "NRBP", "P_IA@20", "StRecall@20"), *,
                       rel: int = 1, alpha: float = 0.5, beta: float = 0.5, **options):
    """Evaluate runs against subtopic qrels: one ScoreMatrix per measure (systems × topics).

    ``qrels``: a subtopic qrels file or frame (:func:`read_subtopic_qrels`); ``runs``: what
    :func:`irstats.evaluate` takes; ``rel``: the grade from which a document is relevant to a
    subtopic; ``alpha``, ``beta``: ndeval's redundancy and persistence parameters (0.5, 0.5);
    ``options``: :class:`~irstats.collection.EvalOptions` fields (the ranking order, ``depth``
    — None by default, as ndeval —, …).
    """
    from irstats.collection import Collection, EvalOptions, RunSet
    from irstats.depth.pooling import ranked_lines
    from irstats.scores import ScoreMatrix

    for name, value in (("alpha", alpha), ("beta", beta)):
        real(value, name, low=0.0, high=1.0)
    whole(rel, "rel")
    parsed = [parse_diversity_measure(m) for m in names(measures, "measures", what="diversity measure names", text=True)]
    EvalOptions(**{"depth": None, **options})  # the options are checked before any file is read
    frame = read_subtopic_qrels(qrels)
    # one row per judged (topic, docno): the engine ranks the runs against these rows, and each
    # row's subtopic relevance vector (over its topic's subtopics, padded) is read off by row
    docs = frame.select("topic", "docno").unique(maintain_order=True).with_row_index("row")
    subtopic = frame.select("topic", "subtopic").unique().with_columns(
        pl.col("subtopic").rank("dense").over("topic").cast(pl.Int64).sub(1).alias("column"))
    judged = frame.join(docs, on=["topic", "docno"]).join(subtopic, on=["topic", "subtopic"])
    row_relevance = np.zeros((docs.height, int(subtopic["column"].max()) + 1))
    np.maximum.at(row_relevance, (judged["row"].to_numpy(), judged["column"].to_numpy()),
                  (judged["grade"].to_numpy() >= rel).astype(np.float64))
    collection = Collection(docs.select("topic", "docno", pl.lit(0, dtype=pl.Int64).alias("rel")),
                            tuple(sorted(docs["topic"].unique().to_list())))
    opts = EvalOptions(**{"depth": None, **options})
    ranked = ranked_lines(collection, RunSet.load(runs), opts)
    width = max(m.cutoff or 0 for m in parsed)
    topic_of_row = docs["topic"].to_numpy()
    docno_bytes = [d.encode("latin-1", "replace") for d in docs["docno"].to_list()]
    values = np.full((len(parsed), len(ranked.systems), len(ranked.topics)), np.nan)
    for ti, topic in enumerate(collection.topic_keys):  # the axis of ranked.topics
        rows = np.flatnonzero(topic_of_row == topic)
        matrix = row_relevance[rows]
        subtopics = int(matrix.any(axis=0).sum())
        ideal = _ideal(matrix, [docno_bytes[r] for r in rows], alpha)
        for s in range(len(ranked.systems)):
            if not ranked.present[s, ti]:
                continue
            lines = ranked.lines[s, ti, : ranked.n_ret[s, ti]]
            relevant = np.where((lines >= 0)[:, None], row_relevance[np.maximum(lines, 0)], 0.0)
            values[:, s, ti] = _topic_values(_gains(relevant, alpha), ideal, relevant, subtopics, parsed, alpha, beta,
                                             width)
    return {str(m): ScoreMatrix(values[k], ranked.systems, tuple(ranked.topics), str(m), opts.as_dict())
            for k, m in enumerate(parsed)}
