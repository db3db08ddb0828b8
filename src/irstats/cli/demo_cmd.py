"""``irstats demo``: make a synthetic collection and evaluate it."""

from __future__ import annotations

from pathlib import Path

import click

from irstats.cli.group import cli
from irstats.cli.output import OutputFolder, seed_option
from irstats.demo import make_demo_collection

DEMO_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "RBP(p=0.8)", "RBPresid(p=0.8)", "Judged@10")


@cli.command("demo")
@click.option("--out", "out_dir", default="irstats-demo", show_default=True, type=OutputFolder(),
              help="Folder for the generated collection and results: new, empty, or an earlier demo's.")
@seed_option("files")
@click.option("--no-report", is_flag=True, help="Evaluate only; skip the study report.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def demo_command(out_dir, seed, no_report, quiet):
    """Generate a synthetic test collection (50 topics, 30 runs, pooled graded qrels), evaluate it,
    and write the full study report on it.

    \b
    Writes OUT/qrels.txt, OUT/runs/*.run, OUT/scores.tsv (per-topic scores) and the report
    in OUT/report/ (index.html, report.md, tables, figures), and prints the systems' mean
    scores. Try the commands it prints next.
    """
    from irstats.io.output import check_output_folder

    if not no_report:  # OUT itself was checked when parsed: before anything is generated
        check_output_folder(Path(out_dir) / "report")
    click.echo(f"Generating a synthetic collection in {out_dir}/ (seed {seed}) ...", err=True)
    demo = make_demo_collection(out_dir, seed=seed, measures=DEMO_MEASURES)
    from irstats.evaluation import Evaluation

    click.echo(Evaluation(demo.scores).to_text(), nl=False)
    if not no_report:
        from irstats.report import build_report

        click.echo("Writing the study report ...", err=True)
        report = build_report(demo.qrels, demo.runs, Path(out_dir) / "report", pool_depth=demo.pool_depth,
                              seed=seed, progress=False if quiet else None, command=["demo", "--out", str(out_dir)])
        click.echo(f"Study report: {report.html} (open it in a browser; Markdown: {report.markdown})")
    click.echo(f"Qrels: {demo.qrels} (pooled to depth {demo.pool_depth}); runs: {out_dir}/runs/; "
               f"per-topic scores: {out_dir}/scores.tsv")
    click.echo("Next:")
    click.echo(f"  irstats eval {demo.qrels} {out_dir}/runs -m AP -m 'nDCG@10' -q --format tsv")
    click.echo(f"  irstats eval {demo.qrels} {out_dir}/runs/run01.run -m all_trec --format trec_eval")
    click.echo(f"  irstats compare {out_dir}/scores.tsv -m AP --test randomization --format markdown")
    click.echo(f"  irstats report --qrels {demo.qrels} --runs {out_dir}/runs -m AP -m 'nDCG@10' -o study")
