#!/usr/bin/env python3
"""Worked example: does an LLM-judged test collection order the TREC DL 2019 runs as the human one does?

SynDL's question (Rahmani et al. 2024) on the 37 official DL 2019 passage runs: scored under
NIST's qrels (43 human-judged topics) and under SynDL's GPT-4 labels (157 *other* DL 2019
queries, no (topic, docno) pair in common), do the two collections rank the systems alike
and reach the same significance conclusions? The script evaluates nDCG@10 (the track's
primary measure) and AP with grade ≥ 2 relevant (the track's binary convention) under both,
compares the conclusions with ``irstats.agreement.conclusion_agreement`` on each collection's
own topics, and writes

- ``docs/syndl/statistics.md`` and ``statistics.csv``: τ-b, τ_AP, r, top-1, significant-pair
  agreement with 95% bootstrap intervals over topics;
- ``docs/syndl/gains.tsv``: every system's mean and rank under both collections;
- ``docs/syndl/gains.png`` (+ ``.csv``): which systems gain or lose rank under GPT-4 labels;

and refreshes the tables in ``docs/agreement.md`` between its ``syndl`` markers.

It needs the runs' lines for all 200 DL 2019 test queries, which tests/data does not
hold (its runs keep the 43 NIST-judged topics, and 14 of the 37 runs). They are NIST's original submissions, e.g. as
mirrored in Parry-Parry/sigir25-annotation (commit 935c789f,
``runs/trec-dl-2019/dl-19-official-input.<tag>.gz``); give their folder with ``--full-runs``.
As a check, the script evaluates the full runs' 43 NIST topics against the runs of tests/data, and
every mean against pytrec_eval (if installed).

    python docs/examples/syndl_agreement.py --full-runs DIR [--data tests/data]

The same through the command line:

    irstats agreement qrels.dl19-passage.txt gpt4.dl19-passage.qrels --runs DIR \\
        -m nDCG@10 -m "AP(rel=2)" --all-topics --plot gains.png --gains gains.tsv
"""

from __future__ import annotations

import argparse
import gzip
import re
import warnings
from pathlib import Path

import numpy as np
import polars as pl

import irstats
from irstats.agreement import conclusion_agreement
from irstats.errors import IrstatsWarning
from irstats.plots import save

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATA = REPO / "tests" / "data"
OUT = REPO / "docs" / "syndl"
PAGE = REPO / "docs" / "agreement.md"
MEASURES = ("nDCG@10", "AP(rel=2)")
#: pytrec_eval's request, the name it answers with, and the relevance level: the independent check.
PYTREC = {"nDCG@10": ("ndcg_cut.10", "ndcg_cut_10", 1), "AP(rel=2)": ("map", "map", 2)}
RESAMPLES = 1000
SEED = 0


def run_tag(path: Path) -> str:
    """``dl-19-official-input.<tag>.gz`` (NIST's name) or ``<tag>.run.gz`` (tests/data's)."""
    name = re.sub(r"\.gz$", "", path.name)
    return re.sub(r"^dl-19-official-input\.|\.run$", "", name)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full-runs", type=Path, required=True,
                        help="folder of the 37 official runs over all 200 DL 2019 test queries")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="the qrels, the LLM labels and the runs restricted to NIST's topics (default tests/data)")
    args = parser.parse_args(argv)
    # Every run answers all 200 queries and each qrels judges only its own: expected, not news.
    warnings.filterwarnings("ignore", "37 runs", IrstatsWarning)
    human = args.data / "trec-dl-2019-passage" / "qrels.dl19-passage.txt"
    llm = args.data / "llm-judgments" / "gpt4.dl19-passage.qrels"
    runs = sorted(p for p in args.full_runs.iterdir() if p.is_file())
    if len(runs) != 37:
        parser.error(f"{args.full_runs}: expected the 37 official runs, found {len(runs)} files")

    a = irstats.evaluate(human, runs, list(MEASURES))
    b = irstats.evaluate(llm, runs, list(MEASURES))
    check_against_kept_runs(a, args.data / "trec-dl-2019-passage" / "runs", human)
    check_against_pytrec_eval(human, runs)
    check_against_pytrec_eval(llm, runs)

    result = conclusion_agreement(a, b, all_topics=True, n_resamples=RESAMPLES, seed=SEED)
    OUT.mkdir(parents=True, exist_ok=True)
    statistics = result.to_frame()
    statistics.write_csv(OUT / "statistics.csv")
    gains = result.gains()
    gains.write_csv(OUT / "gains.tsv", separator="\t")
    ax = result.plot(MEASURES[0])
    save(ax, OUT / "gains.png", ax.irstats_data)

    sizes = (f"{a[MEASURES[0]].values.shape[1]} NIST topics, {b[MEASURES[0]].values.shape[1]} GPT-4-judged "
             f"topics, {len(result.systems)} runs")
    tables = {"statistics": markdown(statistics, 4), "movers": markdown(movers(gains), 4)}
    (OUT / "statistics.md").write_text(f"{sizes}\n\n{tables['statistics']}\n\n{tables['movers']}\n")
    refresh_page(tables)
    print(sizes)
    print(statistics)
    print(movers(gains))


def movers(gains: pl.DataFrame) -> pl.DataFrame:
    """Per measure: the best system under each collection, and the largest rises and falls."""
    rows = []
    for (measure,), group in gains.group_by("measure", maintain_order=True):
        top_a = group.sort("rank_a").row(0, named=True)
        top_b = group.sort("rank_b").row(0, named=True)
        rise = group.sort("rank_gain", descending=True).row(0, named=True)
        fall = group.sort("rank_gain").row(0, named=True)
        for role, row in (("best under NIST", top_a), ("best under GPT-4", top_b), ("largest rise", rise),
                          ("largest fall", fall)):
            rows.append({"measure": measure, "": role, "system": row["system"], "mean_nist": row["mean_a"],
                         "mean_gpt4": row["mean_b"], "rank_nist": row["rank_a"], "rank_gpt4": row["rank_b"]})
    return pl.DataFrame(rows)


def check_against_kept_runs(scores, kept_runs: Path, qrels: Path) -> None:
    """The full runs' NIST topics are the lines of the runs kept in ``kept_runs`` (restricted to
    those topics; tests/data keeps 14 of the 37): the scores must be equal."""
    kept = irstats.evaluate(qrels, sorted(kept_runs.glob("*.run.gz")), list(MEASURES))
    for measure in MEASURES:
        mine, theirs = scores[measure], kept[measure]
        rows = [mine.systems.index(s) for s in theirs.systems]
        assert np.array_equal(mine.values[rows], theirs.values), measure


def check_against_pytrec_eval(qrels: Path, runs: list[Path]) -> None:
    """Every per-topic value equals pytrec_eval's to 1e-6. pytrec_eval compiles trec_eval 9,
    which reads scores as 32-bit floats, so irstats is run with ``score_dtype="float32"``
    here (the example itself keeps the default float64 scores, as trec_eval 10)."""
    try:
        import pytrec_eval
    except ImportError:
        print("pytrec_eval is not installed: values not cross-checked")
        return
    scores = irstats.evaluate(qrels, runs, list(MEASURES), score_dtype="float32")
    judged: dict[str, dict[str, int]] = {}
    for line in qrels.read_text().splitlines():
        topic, _, docno, grade = line.split()
        judged.setdefault(topic, {})[docno] = int(grade)
    for run in runs:
        ranking: dict[str, dict[str, float]] = {}
        with gzip.open(run, "rt") as lines:
            for line in lines:
                topic, _, docno, _, score, _ = line.split()
                ranking.setdefault(topic, {})[docno] = float(score)
        for measure, (request, name, level) in PYTREC.items():
            theirs = pytrec_eval.RelevanceEvaluator(judged, {request}, relevance_level=level).evaluate(ranking)
            matrix = scores[measure]
            row = matrix.values[matrix.systems.index(run_tag(run))]
            mine = dict(zip(matrix.topics, row))
            assert set(mine) == set(theirs), (run.name, measure)
            worst = max(abs(mine[t] - values[name]) for t, values in theirs.items())
            assert worst < 1e-6, (run.name, measure, worst)
    print(f"{qrels.name}: every per-topic value equals pytrec_eval's (1e-6)")


def markdown(frame: pl.DataFrame, digits: int) -> str:
    def cell(value) -> str:
        return f"{value:.{digits}f}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(frame.columns) + " |",
             "|" + "|".join("---:" if frame[c].dtype.is_numeric() else "---" for c in frame.columns) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.iter_rows()]
    return "\n".join(lines)


def refresh_page(tables: dict[str, str]) -> None:
    """Replace the text between ``<!-- syndl:NAME -->`` and ``<!-- /syndl:NAME -->``."""
    page = PAGE.read_text()
    for name, table in tables.items():
        page, count = re.subn(rf"(<!-- syndl:{name} -->\n).*?(<!-- /syndl:{name} -->)",
                              lambda m: m.group(1) + table + "\n" + m.group(2), page, flags=re.S)
        if count != 1:
            raise SystemExit(f"{PAGE}: no <!-- syndl:{name} --> markers")
    PAGE.write_text(page)


if __name__ == "__main__":
    main()
