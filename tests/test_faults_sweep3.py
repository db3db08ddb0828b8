"""The third fault sweep (issue 35): inputs are never replaced, no library's traceback reaches the
user, messages speak the interface's language.

Each example of the issue has a test here; the classes have property tests (random command ×
input × spelling of the output path never replaces an input; random invalid options never print
a traceback). Expected behaviour comes from the issue and from trec_eval's own sources.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import child_env, default_signals, examples, run_cli





# ----------------------------------------------------------------------------- inputs are sacred
def _inputs(folder: Path, te: Path) -> dict[str, Path]:
    """Every kind of input a command reads, made in ``folder``: qrels, runs (a file and a folder
    of runs), a score file, a factor file, gold and automatic labels."""
    folder.mkdir(parents=True, exist_ok=True)
    qrels_text = (te / "qrels.test").read_text()
    run_text = (te / "results.test").read_text()
    topics = sorted({line.split()[0] for line in qrels_text.splitlines()})
    files = {
        "qrels": qrels_text,
        "run": run_text,
        "gold": "".join(line + "\n" for line in qrels_text.splitlines() if line.split()[0] in topics[:2]),
        "auto": qrels_text,
        "scores.tsv": "system\ttopic\tmeasure\tvalue\n" + "".join(
            f"{s}\t{t}\tAP\t{0.1 * i + 0.01 * j:.3f}\n" for i, s in enumerate("ab") for j, t in enumerate(topics)),
        "factors.tsv": "topic\tmeasure\tmean\tsd\n" + "".join(f"{t}\tAP\t0.3\t0.1\n" for t in topics),
    }
    paths = {}
    for name, text in files.items():
        paths[name.partition(".")[0]] = folder / name
        (folder / name).write_text(text)
    (folder / "runs").mkdir(exist_ok=True)
    for name in ("a.run", "b.run"):
        (folder / "runs" / name).write_text(run_text)
    paths["runs"] = folder / "runs"
    return paths


#: command line templates: {name} is an input of _inputs, {out} the output path under test;
#: the inputs each one may be asked to overwrite, and the option that writes.
COMMANDS = {
    "eval": (["eval", "{qrels}", "{run}", "-o", "{out}"], ("qrels", "run")),
    "eval-folder": (["eval", "{qrels}", "{runs}", "-o", "{out}"], ("qrels", "runs/a.run")),
    "compare": (["compare", "{scores}", "-o", "{out}"], ("scores.tsv",)),
    "aggregate": (["aggregate", "--qrels", "{qrels}", "--runs", "{runs}", "-o", "{out}"], ("qrels", "runs/b.run")),
    "difficulty": (["difficulty", "{scores}", "-o", "{out}"], ("scores.tsv",)),
    "ppi": (["ppi", "--gold", "{gold}", "--auto", "{auto}", "--runs", "{run}", "-m", "P@10", "-o", "{out}"],
            ("gold", "auto", "run")),
    "repro": (["repro", "--qrels", "{qrels}", "--orig", "{run}", "--repro", "{runs}/a.run", "-o", "{out}"],
              ("qrels", "run", "runs/a.run")),
    "standardize-apply": (["standardize", "apply", "{scores}", "--factors", "{factors}", "-o", "{out}"],
                          ("scores.tsv", "factors.tsv")),
    "standardize-fit": (["standardize", "fit", "{scores}", "-o", "{out}"], ("scores.tsv",)),
    "agreement": (["agreement", "{gold}", "{auto}", "-o", "{out}"], ("gold", "auto")),
    "volatility-plot": (["volatility", "{qrels}", "{run}", "--plot", "{out}"], ("qrels", "run")),
}


def _spell(target: Path, spelling: str, folder: Path) -> str:
    """``target`` under another name: as given, ``./``-prefixed (relative to the working folder),
    absolute, through a symbolic link, or a hard link."""
    if spelling == "same":
        return str(target)
    if spelling == "dot":
        return "./" + os.path.relpath(target)
    if spelling == "absolute":
        return os.path.abspath(target)
    link = folder / f"{spelling}-{target.name}"
    if spelling == "symlink":
        link.symlink_to(target)
    else:
        os.link(target, link)
    return str(link)


def _command(name: str, paths: dict[str, Path], out: str) -> list[str]:
    template, _ = COMMANDS[name]
    values = {key: str(path) for key, path in paths.items()}
    return [word.format(out=out, **values) for word in template]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def _refused(code: int, err: str, out_path: str, target: Path) -> None:
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("irstats: error: refusing to write"), err
    assert out_path in lines[0] and target.name in lines[0], err


@pytest.mark.parametrize("command, target", [
    ("eval", "qrels"), ("eval", "run"), ("compare", "scores.tsv"), ("ppi", "auto"), ("ppi", "gold"),
    ("repro", "run"), ("standardize-apply", "factors.tsv"), ("eval-folder", "runs/a.run")])
def test_output_that_is_an_input_is_refused(command, target, te, tmp_path, capsys, monkeypatch):
    """``irstats eval q.qrels run -o q.qrels`` replaced the qrels with a 4-line table, exit 0;
    the same for a run file, a score file, labels, factors: refused, exit 2, naming both paths."""
    monkeypatch.chdir(tmp_path)
    paths = _inputs(tmp_path / "in", te)
    before = _snapshot(tmp_path / "in")
    out = str(tmp_path / "in" / target)
    code, _, err = run_cli(_command(command, paths, out), capsys)
    _refused(code, err, out, tmp_path / "in" / target)
    assert _snapshot(tmp_path / "in") == before


@pytest.mark.parametrize("spelling", ["dot", "absolute", "symlink", "hardlink"])
def test_output_that_is_an_input_by_another_name_is_refused(spelling, te, tmp_path, capsys, monkeypatch):
    """The same file by another name (``./``, absolute, a symbolic link, a hard link)."""
    monkeypatch.chdir(tmp_path)
    paths = _inputs(tmp_path / "in", te)
    before = _snapshot(tmp_path / "in")
    out = _spell(paths["qrels"], spelling, tmp_path)
    code, _, err = run_cli(_command("eval", paths, out), capsys)
    _refused(code, err, out, paths["qrels"])
    assert _snapshot(tmp_path / "in") == before


def test_new_output_inside_a_folder_of_runs_is_refused(te, tmp_path, capsys, monkeypatch):
    """An output that does not exist yet, in the folder of runs the command reads whole: the
    next run of the same command would read it as a run. A glob that would match it too."""
    monkeypatch.chdir(tmp_path)
    paths = _inputs(tmp_path / "in", te)
    for runs, out in ((str(paths["runs"]), paths["runs"] / "table.txt"),
                      (str(paths["runs"] / "*.run"), paths["runs"] / "new.run")):
        code, _, err = run_cli(["eval", paths["qrels"], runs, "-o", out], capsys)
        assert code == 2 and "refusing to write" in err and str(out) in err and runs in err, err
        assert not out.exists()
    code, _, err = run_cli(["eval", paths["qrels"], str(paths["runs"] / "*.run"), "-o", tmp_path / "t.txt"], capsys)
    assert code == 0, err  # outside the folder: written


def test_output_folder_holding_an_input_is_refused(te, tmp_path, capsys):
    """``report --qrels d/qrels --runs d/runs -o d`` where d is a folder irstats made (the demo's):
    the report would replace or remove files of the folder — its own inputs."""
    from irstats.io.output import OutputFolder

    made = tmp_path / "demo"
    with OutputFolder(made, kind="demo") as scratch:
        _inputs(scratch, te)
    before = _snapshot(made)
    code, _, err = run_cli(["report", "--qrels", made / "qrels", "--runs", made / "runs", "-o", made], capsys)
    assert code == 2 and "refusing to write the folder" in err and str(made / "qrels") in err, err
    assert _snapshot(made) == before


def test_figure_data_file_that_is_an_input_is_refused(te, tmp_path, capsys):
    """``--plot FILE.png`` also writes the figure's data to FILE.csv: that file is an output too."""
    paths = _inputs(tmp_path, te)
    data = tmp_path / "qrels.csv"
    data.write_bytes(paths["qrels"].read_bytes())
    code, _, err = run_cli(["volatility", data, paths["run"], "--plot", tmp_path / "qrels.png"], capsys)
    assert code == 2 and "--plot (its data)" in err and str(data) in err, err
    assert data.read_bytes() == paths["qrels"].read_bytes()


def test_standard_output_appended_to_an_input_is_refused(te, tmp_path):
    """``irstats eval q.qrels run >> q.qrels`` would append the table to the qrels."""
    paths = _inputs(tmp_path, te)
    before = paths["qrels"].read_bytes()
    command = " ".join(shlex.quote(w) for w in [sys.executable, "-m", "irstats", "eval", str(paths["qrels"]),
                                               str(paths["run"])])
    done = subprocess.run(["sh", "-c", f"exec {command} >> {shlex.quote(str(paths['qrels']))}"], env=child_env(),
                          capture_output=True, text=True, preexec_fn=default_signals)
    assert done.returncode == 2 and "standard output" in done.stderr and "qrels" in done.stderr, done.stderr
    assert paths["qrels"].read_bytes() == before


_SPELLINGS = ("same", "dot", "absolute", "symlink", "hardlink")
_CASES = [(name, target) for name, (_, targets) in COMMANDS.items() for target in targets]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(_CASES), spelling=st.sampled_from(_SPELLINGS))
def test_no_command_replaces_an_input_whatever_the_spelling(case, spelling, te, tmp_path, capsys):
    """Random command × input × spelling of the output path: exit 2, one line, and every input
    byte for byte as it was."""
    command, target = case
    code, err, before, after = _write_over_an_input(command, target, spelling, te, tmp_path, capsys)
    assert code == 2 and "refusing to write" in err and len(err.strip().splitlines()) == 1, (command, err)
    assert after == before


def _write_over_an_input(command, target, spelling, te, tmp_path, capsys):
    """``command`` run with its output at its input ``target`` spelled as ``spelling``, in a folder
    of its own: (exit code, stderr, the inputs' bytes before, and after)."""
    here = Path(tempfile.mkdtemp(prefix=f"{command}-{spelling}-", dir=tmp_path))
    paths = _inputs(here / "in", te)
    before = _snapshot(here / "in")
    cwd = os.getcwd()
    os.chdir(here)
    try:
        out = _spell(here / "in" / target, spelling, here)
        code, _, err = run_cli(_command(command, paths, out), capsys)
    finally:
        os.chdir(cwd)
    return code, err, before, _snapshot(here / "in")


# ----------------------------------------------------------------------------- standard output closed
@pytest.mark.parametrize("args", [["eval", "{qrels}", "{run}"], ["trec_eval", "{qrels}", "{run}"],
                                  ["ppi", "--gold", "{gold}", "--auto", "{auto}", "--runs", "{run}", "-m", "P@10",
                                   "--lambda", "1"],
                                  ["repro", "--qrels", "{qrels}", "--orig", "{run}", "--repro", "{run}"]])
def test_standard_output_closed_is_one_line_exit_1(args, te, tmp_path):
    """``irstats eval … >&-`` exited 0 having written nothing: the result cannot be written,
    so it is one line on stderr and exit 1."""
    paths = _inputs(tmp_path, te)
    filled = [a.format(**{k: str(v) for k, v in paths.items()}) for a in args]
    command = " ".join(shlex.quote(w) for w in [sys.executable, "-m", "irstats", *filled])
    done = subprocess.run(["sh", "-c", f"exec {command} >&-"], env=child_env(), capture_output=True, text=True,
                          preexec_fn=default_signals)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "irstats: error: standard output: cannot write (it is closed; give -o FILE, or leave it open)"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["eval", "{qrels}", "{run}"], ["trec_eval", "-q", "{qrels}", "{run}"],
                                  ["--version"]])
def test_full_disk_on_standard_output_names_it(args, te, tmp_path):
    paths = _inputs(tmp_path, te)
    filled = [a.format(**{k: str(v) for k, v in paths.items()}) for a in args]
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "irstats", *filled], env=child_env(), stdout=full,
                              stderr=subprocess.PIPE, text=True, preexec_fn=default_signals)
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["irstats: error: standard output: cannot write (No space left on device)"]


# ----------------------------------------------------------------------------- the trec_eval drop-in
#: trec_eval 10.0 built from its sources (github.com/usnistgov/trec_eval, m_rbp.c and meas_init.c)
#: by its own Makefile, on trec_eval's test files: exit code, stdout, stderr.
TREC_EVAL_PARAMETERS = {
    "P.0": (2, "", "trec_eval: Negative cutoff detected\ntrec_eval: Cannot initialize measure 'P'\n"),
    "P.a": (2, "", "trec_eval: Negative cutoff detected\ntrec_eval: Cannot initialize measure 'P'\n"),
    "P.5,5": (2, "", "trec_eval: duplicate cutoffs detected\ntrec_eval: Cannot initialize measure 'P'\n"),
    "ndcg_cut.0": (2, "", "trec_eval: Negative cutoff detected\ntrec_eval: Cannot initialize measure 'ndcg_cut'\n"),
    "rbp.0.8": (2, "", "trec_eval: malformed pair parameters in '0.8'\ntrec_eval: Cannot initialize measure 'rbp'\n"),
    "utility.1,2": (4, "", "trec_eval.calc_utility: improper number of coefficients\n"
                           "trec_eval: Can't calculate measure 'utility'\n"),
    "relstring.0": (0, "relstring_0           \t301\t''\nrelstring_0           \t302\t''\n"
                       "relstring_0           \t303\t''\n", ""),
    "relstring.2,7": (0, "relstring_2,7         \t301\t'00'\nrelstring_2,7         \t302\t'11'\n"
                         "relstring_2,7         \t303\t'00'\n", ""),
    "iprec_at_recall.x": (0, "iprec_at_recall_0.00  \t301\t0.2857\niprec_at_recall_0.00  \t302\t1.0000\n"
                             "iprec_at_recall_0.00  \t303\t0.1136\niprec_at_recall_0.00  \tall\t0.4665\n", ""),
    "rbp.p=0.5,=3": (0, "rbp_p=0.5,=3          \t301\t0.0235\nrbp_p=0.5,=3          \t302\t0.8662\n"
                        "rbp_p=0.5,=3          \t303\t0.0000\nrbp_p=0.5,=3          \tall\t0.2966\n", ""),
}


@pytest.mark.parametrize("spec", sorted(TREC_EVAL_PARAMETERS))
def test_measure_parameters_as_trec_eval_reads_them(spec, te, capsys):
    """``P.0`` and ``rbp.0.8`` exited 1 where trec_eval exits 2 with its own two lines;
    ``relstring.0`` was refused where trec_eval prints it; parameters are read by atol/atof."""
    code, out, err = run_cli(["trec_eval", "-q", "-m", spec, te / "qrels.test", te / "results.test"], capsys)
    assert (code, out, err) == TREC_EVAL_PARAMETERS[spec]


@pytest.fixture(scope="module")
def dl19_bm25(reference_data) -> tuple[Path, Path]:
    base = reference_data / "trec-dl-2019-passage"
    return base / "qrels.dl19-passage.txt", base / "runs" / "bm25base_p.run.gz"


@pytest.mark.parametrize("measures, warned", [(["ndcg"], "ndcg"), (["G"], "G"), (["iprec_at_recall"], "iprec_at_recall"),
                                              (["ndcg", "Rndcg"], None), (["all_trec"], None), ([], None)])
def test_rbp_after_a_measure_whose_leftovers_trec_eval_reads(measures, warned, dl19_bm25, capsys):
    """``trec_eval -m ndcg -m rbp`` prints rbp 0.0398 on bm25base_p where ``-m rbp`` alone (and
    all_trec) prints 0.3869: m_rbp.c reads ``min`` and ``max`` uninitialised. irstats prints the
    defined value, 0.3869, and — only where trec_eval's may differ — one warning line naming it."""
    qrels, run = dl19_bm25
    args = [a for m in measures for a in ("-m", m)]
    code, out, err = run_cli(["trec_eval", *args, "-m", "rbp", qrels, run], capsys)
    assert code == 0
    assert [line for line in out.splitlines() if line.split()[0] == "rbp"] == ["rbp                   \tall\t0.3869"]
    if warned is None:
        assert err == ""
    else:
        assert len(err.splitlines()) == 1 and err.startswith("irstats: warning: ")
        assert f"after {warned}," in err and "m_rbp.c" in err and "(min, max)" in err


# ----------------------------------------------------------------------------- missing values
def test_ppi_missing_values_are_empty_in_tsv_csv_and_null_in_json():
    """ppi's TSV/CSV wrote the text ``None`` for a missing value (``versus`` of a run's own mean),
    so a run named ``None`` was indistinguishable: empty fields, ``null`` in JSON."""
    import csv
    import io
    import json

    import numpy as np

    from irstats.ppi import ppi_scores
    from irstats.scores import ScoreMatrix

    rng = np.random.default_rng(0)
    systems = ("None", "s1")

    def scores(values, topics):
        return {"nDCG@10": ScoreMatrix(values, systems, tuple(topics), "nDCG@10")}

    result = ppi_scores(scores(rng.random((2, 4)), ["t1", "t2", "t3", "t4"]),
                        scores(rng.random((2, 9)), [f"t{i}" for i in range(1, 10)]), baseline="None")
    for fmt, separator in (("tsv", "\t"), ("csv", ",")):
        rows = list(csv.DictReader(io.StringIO(result.format(fmt)), delimiter=separator))
        assert sorted((r["system"], r["versus"]) for r in rows) == [("None", ""), ("s1", ""), ("s1", "None")]
    records = json.loads(result.format("json"))
    assert sorted((r["system"], r["versus"] or "") for r in records) == [("None", ""), ("s1", ""), ("s1", "None")]
    assert sum(r["versus"] is None for r in records) == 2


# ----------------------------------------------------------------------------- Dask
def test_dask_logging_becomes_irstats_lines():
    """What Dask logs while a command runs on a cluster (24–47 lines with tracebacks when the
    scheduler was killed): a warning is one irstats warning (once, first line only), an error
    is left to the exception irstats reports, nothing once the block failed; the loggers are
    given back as they were."""
    import logging
    import warnings

    pytest.importorskip("distributed")
    from irstats.distributed import LibraryLines
    from irstats.errors import IrstatsWarning

    logger = logging.getLogger("distributed.client")
    parent = logging.getLogger("distributed")
    before = (parent.handlers[:], parent.level, parent.propagate)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with LibraryLines(("distributed",)) as lines:
            for _ in range(3):
                logger.warning("Lost connection to scheduler\nTraceback (most recent call last): ...")
            try:
                raise OSError("stream closed")
            except OSError:
                logger.exception("Failed to reconnect to scheduler")
            lines.failed = True
            logger.warning("Closing a client while the scheduler is gone")
    assert [(w.category, str(w.message)) for w in caught] == [(IrstatsWarning, "Dask: Lost connection to scheduler")]
    assert (parent.handlers, parent.level, parent.propagate) == before


def test_workers_are_bounded_by_the_machine(te, capsys):
    """``--workers 100000`` was accepted and printed nothing for minutes: one warning line, then
    as many workers as the machine runs at once (its cores, its memory)."""
    pytest.importorskip("distributed")
    from irstats.distributed import machine_workers

    most, why = machine_workers()
    assert 1 <= most <= (os.cpu_count() or 1) and "cores" in why
    code, out, err = run_cli(["eval", te / "qrels.test", te / "results.test", "--workers", "100000"], capsys)
    assert code == 0 and "STANDARD" in out
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("irstats: warning: --workers 100000: this machine runs ")
    assert lines[0].endswith(f"; starting {lines[0].split(' runs ')[1].split()[0]}")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _more_runs(source: Path, folder: Path, copies: int) -> Path:
    """``copies`` of each run of ``source`` in ``folder``, each copy's tag made its own (so that the
    runs are distinct systems): more work for a job that must still be running a few seconds in."""
    import gzip

    folder.mkdir()
    for run in sorted(source.glob("*.run.gz")):
        lines = gzip.decompress(run.read_bytes()).decode().splitlines()
        for k in range(copies):
            fields = (line.split() for line in lines)
            (folder / f"{run.name[:-7]}-{k}.run").write_text(
                "".join(" ".join([*f[:5], f"{f[5]}-{k}"]) + "\n" for f in fields))
    return folder


def test_a_scheduler_killed_mid_run_is_one_line(reference_data, tmp_path):
    """The scheduler killed mid-run printed 24–47 lines of Dask's logging with tracebacks before
    irstats' one-line error: now the one line, exit 1."""
    import time

    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=default_signals)
    scheduler = subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", port,
                                  "--dashboard-address", "127.0.0.1:0"], **quiet)
    worker = None
    try:
        time.sleep(3)
        worker = subprocess.Popen([sys.executable, "-m", "dask", "worker", address, "--nworkers", "1",
                                   "--nthreads", "1"], **quiet)
        time.sleep(4)
        base = reference_data / "trec-dl-2019-passage"
        runs = _more_runs(base / "runs", tmp_path / "runs", copies=4)  # work that outlasts the scheduler
        irstats = subprocess.Popen([sys.executable, "-m", "irstats", "eval", str(base / "qrels.dl19-passage.txt"),
                                    str(runs), "-m", "all_trec", "--per-topic", "--scheduler", address],
                                   env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   preexec_fn=default_signals)
        from distributed import Client

        with Client(address, timeout=30) as watcher:  # the scheduler is killed once the job's tasks run
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and irstats.poll() is None and not any(watcher.processing().values()):
                time.sleep(0.02)
        scheduler.kill()
        _, err = irstats.communicate(timeout=120)
    finally:
        for process in (scheduler, worker):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert irstats.returncode == 1, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("irstats: error: ") and "Dask cluster" in lines[0], err


def test_ctrl_c_while_the_cluster_starts_is_one_line(te, tmp_path):
    """Ctrl-C while ``--workers N`` starts its cluster: a 30-line traceback (the worker processes'
    own, and Dask's exit function) after ``irstats: interrupted``. Now that line alone, exit 130."""
    import time

    pytest.importorskip("distributed")
    ready = tmp_path / "ready"
    env = {**child_env(), "IRSTATS_READY_FILE": str(ready)}

    def session() -> None:
        default_signals()
        os.setsid()

    for delay in (1.0, 2.0, 3.0):  # while the workers import Dask, start, connect
        irstats = subprocess.Popen([sys.executable, "-m", "irstats", "eval", str(te / "qrels.test"),
                                    str(te / "results.test"), "--workers", "2"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=session)
        while not ready.exists() and irstats.poll() is None:
            time.sleep(0.01)
        time.sleep(delay)
        os.killpg(irstats.pid, signal.SIGINT)  # as the terminal does: to every process of the group
        _, err = irstats.communicate(timeout=120)
        ready.unlink(missing_ok=True)
        assert irstats.returncode in (0, 130), err
        assert err.splitlines() == (["irstats: interrupted"] if irstats.returncode == 130 else []), err


# ----------------------------------------------------------------------------- messages people read
def _duplicate_run(tmp_path: Path) -> Path:
    run = tmp_path / "dup.run"
    run.write_text("301 Q0 a 1 3 r\n301 Q0a 2 2 r\n".replace("Q0a", "Q0 a"))
    return run


def test_drop_in_duplicate_advice_is_an_option_that_exists(te, tmp_path, capsys):
    """The drop-in advised ``--on-duplicate first``, which it rejects: the advice is irstats
    eval's; irstats eval's own message names its option, not the Python keyword."""
    run = _duplicate_run(tmp_path)
    code, _, err = run_cli(["trec_eval", te / "qrels.test", run], capsys)
    assert code == 2 and "on_duplicate=" not in err and "use irstats eval --on-duplicate first" in err, err
    code, _, err = run_cli(["eval", te / "qrels.test", run], capsys)
    assert code == 2 and "on_duplicate=" not in err and "use --on-duplicate first" in err, err


@pytest.mark.parametrize("args, said, not_said", [
    (["ppi", "--gold", "{qrels}", "--auto", "{qrels}", "--runs", "{run}", "-m", "P@10", "--lambda", "2"],
     "--lambda must be a number in [0, 1]", "lam "),
    (["repro", "--qrels", "{qrels}", "--orig", "{run}", "--repro", "{run}", "--rbo-p", "nan"],
     "--rbo-p must be a number strictly between 0 and 1", "[0, 1]"),
    (["repro", "--qrels", "{qrels}", "--orig", "{run}", "--repro", "{run}", "--rbo-p", "1"],
     "--rbo-p must be a number strictly between 0 and 1", "rbo_p"),
    (["eval", "{qrels}", "{run}", "-l", "-1"], "--rel-level", "rel_level"),
    (["eval", "{qrels}", "{run}", "-M", "-5"], "option --depth must be a whole number from 0 to", "None"),
    (["compare", "{scores}", "--test", "anova"], "unknown --test 'anova'", "unknown test"),
])
def test_command_line_messages_name_the_options_typed(args, said, not_said, te, tmp_path, capsys):
    """CLI messages used Python's names (lam, rbo_p, ties='docno', complete=True) where the user
    typed --lambda, --rbo-p, --ties, -c; and --rbo-p nan said [0, 1] though 0 and 1 are refused."""
    paths = _inputs(tmp_path, te)
    code, _, err = run_cli([a.format(**{k: str(v) for k, v in paths.items()}) for a in args], capsys)
    assert code == 2 and said in err and not_said not in err, err


def test_warnings_name_the_options_typed(reference_data, tmp_path, capsys):
    """A warning the API words with keywords (``complete=False``) names the option on the command line."""
    base = reference_data / "trec-dl-2019-passage"
    run = tmp_path / "part.run"
    with __import__("gzip").open(base / "runs" / "bm25base_p.run.gz", "rt") as fh:
        lines = fh.read().splitlines()
    topics = sorted({line.split()[0] for line in lines})[:30]
    run.write_text("".join(line + "\n" for line in lines if line.split()[0] in topics))
    code, _, err = run_cli(["repro", "--qrels", base / "qrels.dl19-passage.txt", "--orig", run, "--repro", run,
                            "-m", "map"], capsys)
    assert code == 0 and "irstats: warning:" in err, err
    assert "complete=" not in err and "--shared-topics" in err, err


def test_did_you_mean_for_every_name_typed(te, tmp_path, capsys):
    """A typo in a measure got a list of 80 names; in a command, a system: no suggestion."""
    paths = _inputs(tmp_path, te)
    code, _, err = run_cli(["eval", paths["qrels"], paths["run"], "-m", "nDGC@10"], capsys)
    assert code == 2 and "did you mean 'nDCG'?" in err and "known measures" not in err, err
    code, _, err = run_cli(["evl"], capsys)
    assert code == 2 and "did you mean 'eval'?" in err, err
    code, _, err = run_cli(["compare", paths["scores"], "--baseline", "aa"], capsys)
    assert code == 2 and "did you mean 'a'?" in err, err


def test_scores_by_an_alias_say_which_key_holds_them(te):
    """``scores['ap']`` after ``evaluate(..., ['ap'])`` was a bare KeyError."""
    import irstats
    from irstats.errors import NotFoundError

    scores = irstats.evaluate(te / "qrels.test", [te / "results.test"], ["ap", "ndcg_cut.10"])
    with pytest.raises(KeyError) as info:
        scores["ap"]
    assert isinstance(info.value, NotFoundError) and "scores['AP']" in str(info.value)
    with pytest.raises(NotFoundError, match=r"did you mean 'nDCG@10'\?"):
        scores["nDCG@1O"]


def test_compare_on_one_topic_does_not_claim_a_power_of_zero(tmp_path, capsys):
    """compare on one topic printed "discriminative power 0.0% (0/666)" though no pair was tested."""
    scores = tmp_path / "one.tsv"
    scores.write_text("system\ttopic\tmeasure\tvalue\n" + "".join(f"s{i}\t1\tAP\t0.{i + 1}\n" for i in range(5)))
    code, out, err = run_cli(["compare", scores], capsys)
    assert code == 0, err
    assert "0.0% (0/10)" not in out and "AP undefined (no pair of the 10 could be tested" in out


def test_repro_says_why_a_statistic_is_blank(te, tmp_path, capsys):
    """repro left KTU or ER blank without saying why."""
    run = te / "results.test"
    other = tmp_path / "other.run"
    other.write_text(run.read_text().replace("STANDARD", "OTHER"))
    code, out, _ = run_cli(["repro", "--qrels", te / "qrels.test", "--orig", run, other, "--repro", run, other,
                            "-m", "map"], capsys)
    assert code == 0 and "ER of AP is blank: the original advanced run's mean improvement over its baseline is 0" in out
    one = tmp_path / "one.run"
    one.write_text("301 Q0 x 1 3 a\n302 Q0 y 1 3 a\n")
    code, out, _ = run_cli(["repro", "--qrels", te / "qrels.test", "--orig", one, "--repro", one, "-m", "map"], capsys)
    assert code == 0 and "KTU of the baseline runs is blank: Kendall's τ-b is undefined on every topic" in out


_BAD_VALUES = ("nan", "-1", "0", "x", "", "1e309", "-inf", "1,2", "99999999999999999999999", "--", "é")
_OPTION_CASES = [
    (["eval", "{qrels}", "{run}"], ["-l", "-M", "--order", "--ties", "--on-duplicate", "--format", "-m"]),
    (["compare", "{scores}"], ["--test", "--alpha", "--correction", "-n", "--seed", "--baseline", "-m"]),
    (["ppi", "--gold", "{gold}", "--auto", "{auto}", "--runs", "{run}", "-m", "P@10"],
     ["--lambda", "--alpha", "--baseline", "--correction", "-m"]),
    (["repro", "--qrels", "{qrels}", "--orig", "{run}", "--repro", "{run}"],
     ["--rbo-p", "--order-depth", "--ktu", "--rbo", "-m"]),
    (["aggregate", "{scores}"], ["--method", "-m", "--format"]),
    (["topicset"], ["--alpha", "--power", "--variance", "--min-d"]),
    (["trec_eval", "{qrels}", "{run}"], ["-m", "-l", "-M", "-N", "-R"]),
]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(_OPTION_CASES), data=st.data())
def test_random_invalid_options_never_print_a_traceback(case, data, te, tmp_path, capsys):
    """Random commands with random bad option values: exit 0, 1 or 2 (trec_eval's 4), at most
    a usage block or one irstats line — never a traceback or an internal error."""
    base, options = case
    paths = {k: str(v) for k, v in _inputs(tmp_path / "in", te).items()}
    chosen = data.draw(st.lists(st.tuples(st.sampled_from(options), st.sampled_from(_BAD_VALUES)), min_size=1,
                                max_size=3))
    args = [a.format(**paths) for a in base] + [w for pair in chosen for w in pair]
    code, _, err = run_cli(args, capsys)
    assert code in (0, 1, 2, 4), (args, code, err)
    assert "Traceback" not in err and "internal error" not in err, (args, err)


# ----------------------------------------------------------------------------- the ir_measures provider
def test_provider_options_are_checked_at_once():
    """``register(bogus=1)`` was accepted and failed at the next ir_measures call."""
    provider_module = pytest.importorskip("irstats.integrations.ir_measures")
    from irstats.errors import ArgumentError

    with pytest.raises(ArgumentError, match="unknown option 'bogus' of the irstats provider"):
        provider_module.IrstatsProvider(bogus=1)
    with pytest.raises(ArgumentError, match=r"did you mean 'depth'\?"):
        provider_module.IrstatsProvider(dpeth=10)
    with pytest.raises(ArgumentError, match=r"did you mean 'trec_eval_9'\?"):
        provider_module.IrstatsProvider(iprec_round="trec9")


def test_provider_messages_are_in_ir_measures_words():
    """A NaN score in a dict was "run DataFrame … row 9 has None", a duplicate "DataFrame:54001"."""
    provider_module = pytest.importorskip("irstats.integrations.ir_measures")
    import ir_measures

    from irstats.errors import InputError

    provider = provider_module.IrstatsProvider()
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    with pytest.raises(InputError) as info:
        provider.calc_aggregate([ir_measures.AP], qrels, {"1": {"a": 1.0, "b": float("nan")}, "2": {"c": 2.0}})
    assert str(info.value) == "run: the score of query_id '1', doc_id 'b' is nan; every ScoredDoc needs a number"
    run = [ir_measures.ScoredDoc("1", "a", 1.0), ir_measures.ScoredDoc("1", "a", 0.5)]
    with pytest.raises(InputError) as info:
        provider.calc_aggregate([ir_measures.AP], qrels, run)
    assert str(info.value) == "run: doc_id 'a' appears twice for query_id '1'; give each document one score per query"


def test_provider_iprec_matches_pytrec_eval_when_asked(reference_data):
    """Through the provider IPrec@r is trec_eval 10's (lround(r·R)) where pytrec_eval's is
    trec_eval 9's ((long)(r·R + 0.9)): ``iprec_round="trec_eval_9"`` gives pytrec_eval's values."""
    provider_module = pytest.importorskip("irstats.integrations.ir_measures")
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pytrec_eval")
    from ir_measures import IPrec

    folder = reference_data / "trec-dl-2019-passage"
    qrels = list(ir_measures.read_trec_qrels(str(folder / "qrels.dl19-passage.txt")))
    measures = [IPrec@r for r in (0.05, 0.1, 0.15, 0.25, 0.3, 0.33, 0.45, 0.7, 0.9)]
    differ = 0
    for path in sorted((folder / "runs").glob("*"))[:3]:
        run = list(ir_measures.read_trec_run(str(path)))
        theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.pytrec_eval.iter_calc(measures, qrels, run)}
        old = provider_module.IrstatsProvider(score_dtype="float32", iprec_round="trec_eval_9")
        ours = {(m.query_id, str(m.measure)): m.value for m in old.iter_calc(measures, qrels, run)}
        assert ours.keys() == theirs.keys()
        assert all(ours[k] == pytest.approx(theirs[k], abs=1e-12) for k in theirs), path.name
        new = provider_module.IrstatsProvider(score_dtype="float32")
        tens = {(m.query_id, str(m.measure)): m.value for m in new.iter_calc(measures, qrels, run)}
        differ += sum(abs(tens[k] - theirs[k]) > 1e-12 for k in theirs)
    assert differ > 0  # trec_eval 10's cut is another


def test_every_command_input_and_spelling_is_refused(te, tmp_path, capsys):
    """The property above, exhaustively: every command × each of its inputs × every spelling."""
    for command, target in _CASES:
        for spelling in _SPELLINGS:
            code, err, before, after = _write_over_an_input(command, target, spelling, te, tmp_path, capsys)
            assert code == 2 and "refusing to write" in err, (command, target, spelling, err)
            assert after == before, (command, target, spelling)
