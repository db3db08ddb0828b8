"""``build_report``: from qrels and runs to the whole study, as HTML and Markdown.

Each section is built by one function from the public API (evaluate, aggregate,
standardize, stats, meta, depth, plots) — the report computes nothing of its own — and
returns blocks (text, tables, figures). The report is assembled in a scratch folder and
moved into place only when every stage has succeeded, so a failed or interrupted run never
leaves a report that looks complete, nor the scratch folder. The target folder must be new,
empty, or a report folder irstats made (:class:`irstats.io.output.OutputFolder`): only the
files irstats wrote there are replaced; anything else is refused before computing.
"""

from __future__ import annotations

import contextlib
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

from irstats.checks import names
from irstats.collection import EvalOptions, RunSet
from irstats.errors import ArgumentError, IrstatsError, ResourceError
from irstats.evaluate import Evaluator
from irstats.io.output import OutputFolder, write_text
from irstats.measures import canonical_name
from irstats.progress import Progress, progress_bar
from irstats.random import check_seed
from irstats.report import sections
from irstats.report.document import (Figure, Note, Section, Table, Text, drop_repeated_notes, render_html,
                                     render_markdown, write_tables)
from irstats.report.model import (DEFAULT_REPORT_MEASURES, FIGURE_SIZE, BackgroundPdfs, ReportResult, SectionBuilder,
                                  Study, StudySettings, api_call, command_line, environment, support_measures)


def build_report(qrels, runs, out_dir, measures: Sequence[str] | None = None, reference: Sequence[str] | None = None,
                 quick: bool = False, seed: int = 0, pool_depth: int | None = None, progress: Progress = None,
                 command: Sequence[str] | None = None, qrels_b=None, repro_orig=None, repro_run=None,
                 gold_topics: Sequence[str] | None = None, figures: bool | None = None, bayes: bool = False,
                 rope: float | None = None, baseline: str | Sequence[str] | None = None, **options) -> ReportResult:
    """Evaluate ``runs`` against ``qrels`` and write the study report to ``out_dir``.

    Writes ``index.html`` (self-contained), ``report.md`` with ``figures/*.png`` (each with
    its data as CSV), every table as ``tables/*.tsv``, and ``factors.tsv`` (the
    standardization factors). ``measures`` default to AP, nDCG@10, P@10, RR and RBP(p=0.8);
    ``reference`` names the systems standardization is fitted on (default: all);
    ``quick`` trades for time what :data:`~irstats.report.model.QUICK_EFFORT` declares — fewer
    resamples and no figures — and the report says so at its top; ``figures`` draws the figures
    (True) or not (False) whatever ``quick`` says; ``pool_depth`` is the judging depth for the
    volatility section (default: the runs' judged depth); ``qrels_b``, a second qrels over the same
    topics or others (e.g. LLM labels), adds a section on how far its labels and the
    conclusions they lead to agree with ``qrels``'. ``repro_orig`` and ``repro_run``, an original
    baseline [and advanced] run and their reproductions, add a section on how far the
    reproduction reproduced (:func:`irstats.reproducibility`). ``gold_topics`` with ``qrels_b``:
    the topics whose ``qrels`` labels people made, the others' labels being ``qrels_b``'s only,
    adds prediction-powered means (:func:`irstats.ppi`). ``bayes`` adds a Bayesian comparison of
    every system with the baseline, or else the best (:func:`irstats.stats.bayes.bayes`, ROPE ``rope``
    in the measures' units, default per measure). ``options`` go to
    :func:`irstats.evaluate`. ``baseline``, a system name or several: the leaderboard and the
    systems section test every other system against it (by default against each measure's best
    system), with wins/ties/losses, and a section gives the risk (URisk, TRisk) of each system
    against it. ``command``, the command line that made the report (text, or
    the arguments after ``irstats``), is printed in its provenance; without it, this call is.
    """
    started = time.perf_counter()
    given = dict(measures=measures, reference=reference, quick=quick or None, seed=None if seed == 0 else seed,
                 pool_depth=pool_depth, qrels_b=qrels_b, repro_orig=repro_orig, repro_run=repro_run,
                 gold_topics=gold_topics, figures=figures, bayes=bayes or None, rope=rope, baseline=baseline)
    call = api_call("irstats.report.build_report", [qrels, runs, out_dir],
                    {**{k: v for k, v in given.items() if v is not None}, **options})
    check_seed(seed)  # before anything is evaluated or written
    if figures not in (None, True, False):
        raise ArgumentError(f"figures: expected True, False or None, got {figures!r}", argument="figures")
    measures = None if measures is None else names(measures, "measures", what="measure names")
    baselines = () if baseline is None else tuple(dict.fromkeys(names([baseline] if isinstance(baseline, str)
                                                                      else baseline, "baseline",
                                                                      what="system names")))
    chosen = tuple(dict.fromkeys(canonical_name(m) for m in (measures or DEFAULT_REPORT_MEASURES)))
    repro = sections.repro_pairing(repro_orig, repro_run)  # checked before anything is computed
    settings = StudySettings(measures=chosen, reference=tuple(reference) if reference else None, quick=quick,
                             seed=seed, pool_depth=pool_depth, options=EvalOptions(**options).as_dict(),
                             qrels_b=None if qrels_b is None else str(qrels_b), repro=repro,
                             gold_topics=sections.gold_topic_list(gold_topics, qrels_b),
                             figures=None if figures is None else bool(figures), bayes=bool(bayes),
                             rope=sections.bayes_rope(rope, bayes), baselines=baselines)
    if pool_depth is not None:  # checked before anything is computed or written
        from irstats.depth.pooling import check_pool_depth

        check_pool_depth(pool_depth, EvalOptions(**options))
    out_dir = Path(out_dir)
    folder = OutputFolder(out_dir, kind="report")  # refuses a folder irstats did not make, before computing
    stages: list[tuple[str, SectionBuilder]] = sections.STAGES
    with progress_bar(len(stages) + 2, progress, "report", unit="stage") as bar, folder as scratch:
        bar.set_description("evaluate")
        run_list = runs if isinstance(runs, (list, tuple)) else [runs]
        wanted = list(chosen) + [m for m in _residuals(chosen) if m not in chosen] + list(support_measures())
        evaluator = Evaluator(qrels, **options)
        run_set = RunSet.load(run_list)  # once: the files it names are listed, with their hashes, in the provenance
        run_files = run_set.sources
        judgments = evaluator.judgments(run_set)
        scores = evaluator.score_judgments(judgments, wanted)
        sections.check_baselines(baselines, scores[chosen[0]].systems)
        pdfs = BackgroundPdfs()
        study = Study(str(qrels), evaluator.collection, scores, settings, scratch, list(run_list), judgments, pdfs,
                      run_files, call)
        bar.update(1)
        with pdfs:  # a failing stage still reaps the child before the scratch folder goes
            built = _build_sections(study, stages, bar, out_dir)
            bar.set_description("write")
            drop_repeated_notes(built)
            built.insert(0, sections.leaderboard(study, built))
            built.append(sections.provenance(study, command, time.perf_counter() - started))
            title = "irstats evaluation study"
            subtitle = (f"{len(scores[chosen[0]].systems)} runs, {len(scores[chosen[0]].topics)} topics, qrels "
                        f"{Path(str(qrels)).name}; made {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
            pdfs.poll()  # the last figures are drawn while the tables and pages are written
            write_tables(built, scratch)
            write_text(scratch / "report.md", render_markdown(title, built, scratch), fsync=False)
            page_now = not pdfs.drawing_pngs()  # the page embeds the PNGs: written already, or waited for
            if page_now:
                write_text(scratch / "index.html", render_html(title, subtitle, built), fsync=False)
            pdfs.wait()  # every figure is written before the report is committed
            if not page_now:
                write_text(scratch / "index.html", render_html(title, subtitle, built), fsync=False)
        bar.update(1)
    tables = {b.name: b.frame for s in built for b in s.blocks if isinstance(b, Table)}
    return ReportResult(out_dir, out_dir / "index.html", out_dir / "report.md", tables,
                        time.perf_counter() - started)


def _build_sections(study: Study, stages: list[tuple[str, SectionBuilder]], bar, out_dir) -> list[Section]:
    """Every stage's section, in the page's order (computed :data:`sections.COMPUTED_FIRST`
    first); a failing stage raises one line naming it."""
    drawing = study.settings.effort.figures
    if drawing:
        from irstats.plots import style
    first = [stage for stage in stages if stage[0] in sections.COMPUTED_FIRST]
    built: dict[str, Section] = {}
    for name, builder in first + [stage for stage in stages if stage not in first]:
        bar.set_description(name)
        try:
            # every figure at page width, TrueType fonts in its PDF; no matplotlib without figures
            with style(FIGURE_SIZE) if drawing else contextlib.nullcontext():
                section = _with_warnings_as_notes(builder, study)
            if section is not None:
                built[name] = section
            if study.pdfs is not None:
                study.pdfs.poll()  # the next queued PDF to the other core, if its child is done
        except IrstatsError:
            raise
        except OSError as exc:  # the machine (a full disk…), not the stage
            raise ResourceError.from_os_error(exc, out_dir) from exc
        except Exception as exc:  # noqa: BLE001 - name the stage that failed, never a traceback
            raise IrstatsError(f"report stage {name!r} failed: {type(exc).__name__}: {exc}") from exc
        bar.update(1)
    return [built[name] for name, _ in stages if name in built]


def _with_warnings_as_notes(builder: SectionBuilder, study: Study) -> Section | None:
    """Run a section builder; irstats' warnings become notes at the end of that section.

    A report is read later and elsewhere: what the computation warned about (zero-variance
    topics, tied pairs…) belongs next to the numbers it concerns, not only on a console.
    """
    import warnings

    from irstats.errors import IrstatsWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IrstatsWarning)
        section = builder(study)
    if section is None:
        return None
    messages = list(dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, IrstatsWarning)))
    for message in messages:
        section.add(Note(message))
    for w in caught:  # anything else goes on as usual
        if not issubclass(w.category, IrstatsWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return section


def _residuals(measures: Sequence[str]) -> list[str]:
    """RBPresid for every RBP measure: the report shows RBP with its residual."""
    from irstats.measures import parse_measure

    out = []
    for name in measures:
        measure = parse_measure(name)
        if measure.residual is not None and measure.get("rel") is None:
            out.append(str(measure.residual))
    return out


__all__ = ["DEFAULT_REPORT_MEASURES", "ReportResult", "Study", "StudySettings", "build_report", "command_line",
           "environment", "Figure", "Note", "Section", "Table", "Text"]
