"""``irstats demo``: make a synthetic collection and evaluate it."""

from __future__ import annotations

import click

from irstats.cli.main import cli
from irstats.cli.output import format_means_table
from irstats.demo import make_demo_collection
from irstats.evaluate import evaluate
from irstats.scores import write_scores

DEMO_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)", "RBPresid(p=0.8)", "Judged@10")


@cli.command("demo")
@click.option("--out", "out_dir", default="irstats-demo", show_default=True, type=click.Path(file_okay=False),
              help="Folder for the generated collection and results.")
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed: the same seed, the same files.")
def demo_command(out_dir, seed):
    """Generate a synthetic test collection (50 topics, 30 runs, pooled graded qrels) and evaluate it.

    \b
    Writes OUT/qrels.txt, OUT/runs/*.run and OUT/scores.tsv (per-topic scores), and prints
    the systems' mean scores. Try the commands it prints next.
    """
    click.echo(f"Generating a synthetic collection in {out_dir}/ (seed {seed}) ...", err=True)
    demo = make_demo_collection(out_dir, seed=seed)
    scores = evaluate(demo.qrels, demo.runs, DEMO_MEASURES)
    write_scores(scores, f"{out_dir}/scores.tsv", "tsv")
    click.echo(format_means_table(scores))
    click.echo(f"Qrels: {demo.qrels} (pooled to depth {demo.pool_depth}); runs: {out_dir}/runs/; "
               f"per-topic scores: {out_dir}/scores.tsv")
    click.echo("Next:")
    click.echo(f"  irstats eval {demo.qrels} {out_dir}/runs -m AP -m 'nDCG@10' -q --format tsv")
    click.echo(f"  irstats eval {demo.qrels} {out_dir}/runs/run01.run -m all_trec --format trec_eval")
