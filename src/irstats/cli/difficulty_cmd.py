"""``irstats difficulty``: per-topic difficulty D_t (METHODS.md §5.1)."""

from __future__ import annotations

import click
import polars as pl

from irstats.cli.common import scores_input
from irstats.cli.group import cli
from irstats.cli.output import FRAME_FORMATS, emit_data, output_options
from irstats.difficulty import DIFFICULTY_METHODS, topic_difficulty
from irstats.errors import InputError

DIFFICULTY_EPILOG = """
\b
Examples:
  irstats difficulty scores.tsv -m AP                       # (max − mean)/sd per topic
  irstats difficulty scores.tsv -m AP --method one_minus_mean --sorted
  irstats difficulty --qrels qrels.txt --runs 'runs/*.gz' -m AP --format csv -o difficulty.csv

\b
Methods:
""" + "\n".join(f"  {name:<15} {text}" for name, text in DIFFICULTY_METHODS.items()) + """

\b
Larger means harder. Each is computed over the systems scored on the topic.
"""


@cli.command("difficulty", epilog=DIFFICULTY_EPILOG)
@scores_input
@click.option("--method", default="max_mean_sd", show_default=True, metavar="NAME",
              help=f"Difficulty definition: {', '.join(DIFFICULTY_METHODS)}.")
@click.option("--sorted", "by_difficulty", is_flag=True,
              help="List topics from hardest to easiest (ties by topic id) instead of by topic id.")
@output_options(formats=FRAME_FORMATS, note="columns topic measure difficulty")
def difficulty_command(scores, method, by_difficulty, fmt, output):
    """Print the difficulty of every topic (rows: topic measure difficulty) from per-topic SCORES."""
    frames = []
    for matrix in scores.values():
        result = topic_difficulty(matrix, method=method)
        frame = result.to_frame()
        if by_difficulty:
            order = {t: i for i, t in enumerate(result.ranked())}
            frame = frame.with_columns(pl.col("topic").replace_strict(order, return_dtype=pl.Int64).alias("_o")) \
                .sort("_o").drop("_o")
        frames.append(frame)
    if not frames:
        raise InputError("no scores")
    frame = pl.concat(frames)
    emit_data(frame, fmt, output)
