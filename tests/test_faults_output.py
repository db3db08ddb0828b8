"""Faults on output: irstats never deletes or overwrites what it did not make, every write is
atomic (a failure leaves the old file and no partial file), and every OS error on output is
one line naming the path — never an internal error, never a traceback.

The full-disk tests use a real tmpfs when the test runs as root and may mount (as in CI);
otherwise the failure is injected with monkeypatch.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import default_signals

from conftest import REFERENCE_DATA, run_cli
from irstats.demo import make_demo_collection
from irstats.errors import InputError, ResourceError
from irstats.io import output
from irstats.io.output import MARKER, OutputFolder, atomic_open, atomic_path, write_text

SRC = Path(__file__).resolve().parents[1] / "src"
TREC = REFERENCE_DATA / "conformance" / "trec_eval-test"
EVAL = ["eval", TREC / "qrels.test", TREC / "results.test", "-m", "AP", "-q", "--format", "tsv"]


# ----------------------------------------------------------------------------- helpers
def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (hidden ones included) with a hash of its content."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def leftovers(folder: Path) -> list[str]:
    """Scratch folders and temporary files irstats might have left in ``folder``."""
    return sorted(p.name for p in folder.rglob("*") if ".partial-" in p.name or p.name.endswith(".tmp"))


def assert_one_line_error(code, out, err, path, codes=(1, 2)):
    assert code in codes, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("irstats: error: "), err
    assert str(path) in lines[0], err
    assert "internal error" not in err and "Traceback" not in err
    assert out == ""


def _can_mount() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("mount") is not None


@pytest.fixture
def mounted(tmp_path):
    """``mount(options)`` mounts a tmpfs on a fresh folder (unmounted at teardown); None
    when mounting is not permitted."""
    points = []

    def mount(options: str):
        if not _can_mount():
            return None
        point = tmp_path / f"mnt{len(points)}"
        point.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], capture_output=True)
        if done.returncode != 0:
            point.rmdir()
            return None
        points.append(point)
        return point

    yield mount
    for point in reversed(points):
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def fill(folder: Path) -> None:
    """Fill the filesystem of ``folder`` to the last byte."""
    with open(folder / "filler", "wb", buffering=0) as fh:
        for size in (1 << 16, 1 << 12, 1 << 9, 1):
            while True:
                try:
                    fh.write(b"\0" * size)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC
                    break


@pytest.fixture
def full_disk(mounted, tmp_path, monkeypatch):
    """``full_disk(size, setup)``: a folder where writes fail with ENOSPC after ``setup(folder)``
    has put the old files there. A real, full tmpfs when possible; else fsync is made to fail."""

    def make(size: str, setup=lambda folder: None) -> Path:
        point = mounted(f"size={size}")
        if point is not None:
            setup(point)
            fill(point)
            return point
        folder = tmp_path / "full"
        folder.mkdir()
        setup(folder)

        def no_space(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(output.os, "fsync", no_space)
        return folder

    return make


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A small synthetic collection (qrels, runs) and a report made from it."""
    base = tmp_path_factory.mktemp("small")
    demo = make_demo_collection(base / "collection", seed=5, n_topics=12, n_runs=8, n_docs=300, run_depth=100,
                                pool_depth=10)
    from irstats.report import build_report

    report = build_report(demo.qrels, demo.runs, base / "report", quick=True, figures=True, progress=False)
    return demo, report.out_dir


def report_args(demo, out):
    # --figures: the quick report's figures (PNGs, PDFs from a child process) are what these tests watch
    return ["report", "--qrels", demo.qrels, "--runs", demo.runs[0].parent, "--quick", "--figures", "--quiet",
            "-o", out]


# ----------------------------------------------------------------------------- foreign files survive
def test_report_refuses_a_folder_irstats_did_not_make(small, tmp_path, capsys, monkeypatch):
    demo, _ = small
    target = tmp_path / "mine"
    target.mkdir()
    (target / "index.html").write_text("my own page")
    (target / "notes.txt").write_text("my notes")
    before = snapshot(target)
    from irstats.collection import Collection

    def never(*args, **kwargs):  # the refusal comes before any computation
        raise AssertionError("computation started")

    monkeypatch.setattr(Collection, "load", never)
    code, out, err = run_cli(report_args(demo, target), capsys)
    assert_one_line_error(code, out, err, target, codes=(2,))
    assert "not made by irstats" in err
    assert snapshot(target) == before and leftovers(tmp_path) == []

    # `-o .` in such a folder: refused too; the working directory keeps everything.
    monkeypatch.chdir(target)
    code, out, err = run_cli(report_args(demo, "."), capsys)
    assert_one_line_error(code, out, err, ".", codes=(2,))
    assert snapshot(target) == before


def test_report_refuses_a_file_as_folder(small, tmp_path, capsys):
    demo, _ = small
    target = tmp_path / "report.html"
    target.write_text("mine")
    code, out, err = run_cli(report_args(demo, target), capsys)
    assert_one_line_error(code, out, err, target, codes=(2,))
    assert target.read_text() == "mine"


def test_report_replaces_only_its_own_files(small, tmp_path, capsys):
    demo, made = small
    target = tmp_path / "study"
    shutil.copytree(made, target)
    manifest = json.loads((target / MARKER).read_text())
    assert "index.html" in manifest["files"] and "figures/system_means.png" in manifest["files"]
    # A user's files inside the folder irstats made, and a file an older report wrote.
    (target / "mine.txt").write_text("keep me")
    (target / "figures" / "my-figure.png").write_bytes(b"mine")
    (target / "stale").mkdir()
    (target / "stale" / "old.tsv").write_text("from an older report")
    manifest["files"].append("stale/old.tsv")
    manifest["folders"].append("stale")
    (target / MARKER).write_text(json.dumps(manifest))
    (target / "index.html").write_text("old report")

    code, out, err = run_cli(report_args(demo, target), capsys)
    assert code == 0, err
    assert (target / "mine.txt").read_text() == "keep me"
    assert (target / "figures" / "my-figure.png").read_bytes() == b"mine"
    assert not (target / "stale").exists()  # irstats' old file and the folder it made are gone
    assert (target / "index.html").read_text().startswith("<!DOCTYPE html>")
    again = json.loads((target / MARKER).read_text())
    assert "mine.txt" not in again["files"] and "stale/old.tsv" not in again["files"]
    assert leftovers(tmp_path) == []


def test_report_never_replaces_an_unlisted_file(small, tmp_path):
    """A file at a report's path that the manifest does not list is a user's: refused, kept."""
    demo, made = small
    target = tmp_path / "study"
    shutil.copytree(made, target)
    manifest = json.loads((target / MARKER).read_text())
    manifest["files"].remove("report.md")
    (target / MARKER).write_text(json.dumps(manifest))
    (target / "report.md").write_text("my own notes")
    before = snapshot(target)
    from irstats.report import build_report

    with pytest.raises(InputError, match="report.md"):
        build_report(demo.qrels, demo.runs, target, quick=True, progress=False)
    assert snapshot(target) == before and leftovers(tmp_path) == []


def test_demo_refuses_a_folder_irstats_did_not_make(tmp_path, capsys):
    target = tmp_path / "work"
    target.mkdir()
    (target / "qrels.txt").write_text("my qrels")
    before = snapshot(target)
    code, out, err = run_cli(["demo", "--out", target, "--no-report"], capsys)
    assert_one_line_error(code, out, err, target, codes=(2,))
    assert snapshot(target) == before


def test_demo_refuses_a_foreign_report_folder_before_generating(tmp_path, capsys):
    target = tmp_path / "demo"
    with OutputFolder(target, kind="demo") as scratch:  # a folder an earlier demo made ...
        (scratch / "qrels.txt").write_text("1 0 d 1\n")
    (target / "report").mkdir()
    (target / "report" / "index.html").write_text("my page")  # ... with a user's report/ put in it
    before = snapshot(target)
    code, out, err = run_cli(["demo", "--out", target], capsys)
    assert_one_line_error(code, out, err, target / "report", codes=(2,))
    assert snapshot(target) == before  # nothing was generated


def test_demo_replaces_its_own_folder_and_keeps_foreign_files(tmp_path, capsys):
    target = tmp_path / "demo"
    code, _, err = run_cli(["demo", "--out", target, "--no-report", "--seed", "1"], capsys)
    assert code == 0, err
    first = (target / "qrels.txt").read_bytes()
    (target / "mine.txt").write_text("keep me")
    (target / "runs" / "mine.run").write_text("1 Q0 d 1 1.0 mine\n")
    code, _, err = run_cli(["demo", "--out", target, "--no-report", "--seed", "2"], capsys)
    assert code == 0, err
    assert (target / "qrels.txt").read_bytes() != first
    assert (target / "mine.txt").read_text() == "keep me"
    assert (target / "runs" / "mine.run").read_text() == "1 Q0 d 1 1.0 mine\n"
    assert "mine.txt" not in json.loads((target / MARKER).read_text())["files"]
    assert leftovers(tmp_path) == []


# ----------------------------------------------------------------------------- atomic files
def test_failed_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.tsv"
    target.write_text("old")
    for failure in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(failure)):
            with atomic_open(target) as fh:
                fh.write("new, half")
                raise failure
        assert target.read_text() == "old"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.tsv"]


def test_permissions_follow_the_umask_and_the_old_file(tmp_path):
    old = os.umask(0o027)
    try:
        write_text(tmp_path / "new.tsv", "x")
        assert stat.S_IMODE((tmp_path / "new.tsv").stat().st_mode) == 0o640
        kept = tmp_path / "kept.tsv"
        kept.write_text("old")
        kept.chmod(0o604)
        write_text(kept, "new")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o604 and kept.read_text() == "new"
    finally:
        os.umask(old)


def test_atomic_path_for_libraries(tmp_path):
    import polars as pl

    target = tmp_path / "frame.parquet"
    target.write_bytes(b"old")
    with pytest.raises(ValueError):
        with atomic_path(target) as temp:
            temp.write_bytes(b"half")
            raise ValueError("library failed")
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["frame.parquet"]
    with atomic_path(target) as temp:
        pl.DataFrame({"a": [1, 2]}).write_parquet(temp)
    assert pl.read_parquet(target)["a"].to_list() == [1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frame.parquet"]


def test_devices_are_written_directly():
    write_text("/dev/null", "nothing")  # cannot be renamed over; written in place
    with pytest.raises(ResourceError, match="/dev/full: cannot write .No space left on device."):
        write_text("/dev/full", "x" * 100_000)


def test_symlink_target_is_replaced_and_the_link_survives(tmp_path, capsys):
    real = tmp_path / "real.tsv"
    real.write_text("old")
    link = tmp_path / "link.tsv"
    link.symlink_to(real.name)
    code, out, err = run_cli([*EVAL, "-o", link], capsys)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == "real.tsv"
    assert real.read_text().startswith("system\ttopic\tmeasure\tvalue")
    assert leftovers(tmp_path) == []


# ----------------------------------------------------------------------------- full disk
def test_full_disk_eval_output(full_disk, capsys):
    folder = full_disk("64k", lambda f: (f / "out.tsv").write_text("old scores\n"))
    code, out, err = run_cli([*EVAL, "-o", folder / "out.tsv"], capsys)
    assert_one_line_error(code, out, err, folder / "out.tsv", codes=(1,))
    assert "No space left on device" in err
    assert (folder / "out.tsv").read_text() == "old scores\n"
    assert leftovers(folder) == []


def test_full_disk_score_file_and_figure(full_disk):
    import irstats
    from irstats.plots import save
    from irstats.plots.common import new_axes
    from irstats.scores import write_scores

    def setup(f):
        (f / "scores.tsv").write_text("old")
        (f / "figure.png").write_bytes(b"old png")
        (f / "figure.csv").write_text("old csv")

    folder = full_disk("256k", setup)
    scores = irstats.evaluate(TREC / "qrels.test", TREC / "results.test", ["AP", "P@10"])
    for fmt in ("tsv", "parquet"):
        with pytest.raises(ResourceError, match="No space left on device"):
            write_scores(scores, folder / "scores.tsv", fmt)
    assert (folder / "scores.tsv").read_text() == "old"
    ax = new_axes()
    ax.plot(range(1000), [i ** 0.5 for i in range(1000)])
    import polars as pl

    with pytest.raises(ResourceError, match="figure.png: cannot write"):
        save(ax, folder / "figure.png", pl.DataFrame({"x": list(range(1000))}))
    assert (folder / "figure.png").read_bytes() == b"old png"
    assert (folder / "figure.csv").read_text() == "old csv"
    assert leftovers(folder) == []


def test_full_disk_report_keeps_the_old_report(small, full_disk, capsys):
    demo, made = small
    size_kib = sum(p.stat().st_size for p in made.rglob("*") if p.is_file()) // 1024 + 512
    folder = full_disk(f"{size_kib}k", lambda f: shutil.copytree(made, f / "study"))
    before = snapshot(folder / "study")
    code, out, err = run_cli(report_args(demo, folder / "study"), capsys)
    assert_one_line_error(code, out, err, folder, codes=(1,))
    assert "No space left on device" in err
    assert snapshot(folder / "study") == before
    assert leftovers(folder) == []


# ----------------------------------------------------------------------------- bad targets
def _read_only_folder(tmp_path, mounted) -> Path:
    """A folder that cannot be written, even by root (a read-only tmpfs), else a 0555 folder."""
    point = mounted("ro,size=16k")
    if point is not None:
        return point
    if os.geteuid() == 0:  # root ignores permission bits: a 0555 folder would prove nothing
        pytest.skip("root without mount: no folder that root cannot write")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    return folder


@pytest.mark.parametrize("case", ["dev_full", "missing_folder", "file_as_folder", "read_only", "folder",
                                  "dangling_symlink", "symlink_to_folder"])
def test_bad_output_targets_are_one_line(case, tmp_path, mounted, capsys):
    afile = tmp_path / "afile"
    afile.write_text("mine")
    if case == "dev_full":
        target = Path("/dev/full")
    elif case == "missing_folder":
        target = tmp_path / "no" / "such" / "out.tsv"
    elif case == "file_as_folder":
        target = afile / "out.tsv"
    elif case == "read_only":
        target = _read_only_folder(tmp_path, mounted) / "out.tsv"
    elif case == "folder":
        target = tmp_path
    elif case == "dangling_symlink":
        target = tmp_path / "link.tsv"
        target.symlink_to(tmp_path / "gone" / "out.tsv")
    else:
        target = tmp_path / "link"
        target.symlink_to(tmp_path)
    code, out, err = run_cli([*EVAL, "-o", target], capsys)
    assert_one_line_error(code, out, err, target)
    assert afile.read_text() == "mine"


def test_report_in_a_read_only_folder(small, tmp_path, mounted, capsys):
    demo, _ = small
    target = _read_only_folder(tmp_path, mounted) / "study"
    code, out, err = run_cli(report_args(demo, target), capsys)
    assert_one_line_error(code, out, err, target, codes=(1,))


def test_unknown_figure_format_fails_before_anything_is_printed(tmp_path, capsys):
    code, out, err = run_cli(["splithalf", "--qrels", TREC / "qrels.test", "--runs", TREC / "results.test",
                              "-m", "AP", "--splits", "10", "--plot", tmp_path / "x.xyz"], capsys)
    assert_one_line_error(code, out, err, tmp_path / "x.xyz", codes=(2,))
    assert "unknown figure format" in err and list(tmp_path.iterdir()) == []


def test_unknown_figure_format_in_the_api(tmp_path):
    from irstats.plots import save
    from irstats.plots.common import new_axes

    with pytest.raises(InputError, match="unknown figure format 'xyz'"):
        save(new_axes(), tmp_path / "f.xyz")
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- interrupts
def test_interrupted_report_leaves_nothing(small, tmp_path, monkeypatch, capsys):
    demo, made = small
    from irstats.report import sections

    def interrupted(study):
        (study.out_dir / "half.tsv").write_text("half")
        raise KeyboardInterrupt

    monkeypatch.setattr(sections, "STAGES", [("collection", sections.collection), ("stop", interrupted)])
    code, out, err = run_cli(report_args(demo, tmp_path / "new"), capsys)
    assert code == 130 and "interrupted" in err
    assert not (tmp_path / "new").exists() and leftovers(tmp_path) == []
    # An earlier report in the target is left as it was.
    shutil.copytree(made, tmp_path / "old")
    before = snapshot(tmp_path / "old")
    code, out, err = run_cli(report_args(demo, tmp_path / "old"), capsys)
    assert code == 130 and snapshot(tmp_path / "old") == before and leftovers(tmp_path) == []
    # Missing parent folders made for the report are removed again.
    code, out, err = run_cli(report_args(demo, tmp_path / "a" / "b" / "new"), capsys)
    assert code == 130 and not (tmp_path / "a").exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_during_report_leaves_nothing(small, tmp_path, signum):
    demo, _ = small
    target = tmp_path / "study"
    args = [str(a) for a in report_args(demo, target)]
    # the program itself: its handlers turn SIGTERM into the interrupt too, and it leaves
    # without the interpreter's finalization (a script calling main(argv) leaves through
    # sys.exit, where a rare abort was seen under load with worker threads about)
    command = [sys.executable, "-m", "irstats", *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}

    def default_sigint():  # a background job may inherit SIGINT ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=default_sigint)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".study.partial-*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # well inside the build
    assert proc.poll() is None, "the report finished before it could be interrupted"
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err.decode()
    assert b"irstats: interrupted" in err and b"Traceback" not in err
    assert leftovers(tmp_path) == []
    assert not target.exists()


def _program_env() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}



def assert_whole(folder: Path) -> None:
    """``folder`` is absent, or a folder irstats made whole: its manifest lists exactly the
    files in it (nothing missing, nothing extra, no scratch or temporary file)."""
    if not folder.exists():
        return
    manifest = json.loads((folder / MARKER).read_text())
    present = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                     if p.is_file() and p.name != MARKER and not p.relative_to(folder).as_posix().startswith("report/"))
    assert present == sorted(manifest["files"]), folder


def assert_interrupted_once(returncode: int, err: str) -> None:
    """Exit 130 and ``irstats: interrupted`` once, as the last line; no traceback."""
    assert returncode == 130, (returncode, err)
    assert "Traceback" not in err and "internal error" not in err, err
    assert err.endswith("irstats: interrupted\n") and err.count("interrupted") == 1, err


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="sends the signal to a process group")
def test_sighup_during_report_leaves_nothing(small, tmp_path):
    """A closed terminal hangs up the whole process group — irstats and the child drawing a
    PDF: SIGHUP is handled as SIGTERM is (one line, exit 130), and nothing is left.

    Sent once the report is under way (its scratch folder holds a figure): a point of
    progress, not a delay; from there the report still has seconds of work."""
    demo, _ = small
    target = tmp_path / "study"
    command = [sys.executable, "-m", "irstats", *map(str, report_args(demo, target))]
    proc = subprocess.Popen(command, env=_program_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=default_signals, start_new_session=True)
    deadline = time.monotonic() + 300
    while (not list(tmp_path.glob(".study.partial-*/figures/*.png")) and proc.poll() is None
           and time.monotonic() < deadline):
        time.sleep(0.005)
    assert proc.poll() is None, "the report finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGHUP)
    out, err = proc.communicate(timeout=120)
    assert_interrupted_once(proc.returncode, err.decode())
    assert err.decode() == "irstats: interrupted\n"
    assert leftovers(tmp_path) == [] and not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


#: Runs ``irstats ARGS`` as the program does (its signal handlers installed), with hooks
#: ``module.function:N:before|after:ACTIONS`` taken in turn: at the N-th call of the function
#: after the previous hook fired, before or after the call, the process sends itself each
#: signal in ACTIONS (``parent-INT``: to its parent, from a forked child) or, for ``ENOSPC``,
#: the call fails with a full disk. A moment in the code, not in time; each hook that fires
#: adds a line to the file FIRED.
_SIGNAL_AT = """
import errno, importlib, os, signal, sys
hooks, fired, args = sys.argv[1].split(";"), sys.argv[2], sys.argv[3:]
armed = [0]  # the hook now counting calls
def hook(index, spec):
    target, nth, when, actions = spec.split(":")
    module, name = target.rsplit(".", 1)
    module = importlib.import_module(module)
    original, calls = getattr(module, name), [0]
    def fire():
        armed[0] += 1
        with open(fired, "a") as fh:
            fh.write(spec + "\\n")
        for action in actions.split(","):
            if action == "ENOSPC":
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            pid = os.getppid() if action.startswith("parent-") else os.getpid()
            os.kill(pid, getattr(signal, "SIG" + action.removeprefix("parent-")))
    def wrapper(*a, **k):
        hit = False
        if armed[0] == index:
            calls[0] += 1
            hit = calls[0] == int(nth)
        if hit and when == "before":
            fire()
        result = original(*a, **k)
        if hit and when == "after":
            fire()
        return result
    setattr(module, name, wrapper)
for index, spec in enumerate(hooks):
    hook(index, spec)
sys.argv = ["irstats", *args]
from irstats.cli.main import main
main()
"""

DEMO_MOMENTS = {
    # the demo's scratch folder has just been made (the old window before its removal was registered)
    "demo-scratch-made": "tempfile.mkdtemp:1:after:INT,TERM,HUP",
    # a run file's temporary file has just been made, in the demo's scratch folder
    "temp-file-made": "tempfile.mkstemp:3:after:INT,TERM,HUP",
    # the demo folder is being moved into place: held until it is whole
    "demo-commit": "os.rename:1:before:TERM,INT,HUP",
    # moving it fails (a full disk), and the signal lands in the finally block before the
    # scratch folder's removal starts: the removal registered with it is done on the way out
    "in-a-finally-block": "os.rename:1:before:ENOSPC;irstats._interrupts.settle:1:before:INT,TERM,HUP",
    # the report's scratch folder has just been made, inside the committed demo folder
    "report-scratch-made": "tempfile.mkdtemp:2:after:HUP,INT,TERM",
    # the child that draws a PDF has just been forked: both processes get the signals
    "pdf-child-forked": "os.fork:1:after:INT,TERM,HUP",
    # the PDF child is about to write into the scratch folder when irstats is signalled
    "while-a-child-writes": "irstats.report.model._write_pdf:1:before:parent-INT,parent-TERM,parent-HUP",
    # interrupted mid-report, then again while the scratch folder is being removed
    "during-clean-up": "tempfile.mkstemp:60:after:INT;shutil.rmtree:1:before:TERM,HUP,INT",
}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="signals a forked child")
@pytest.mark.parametrize("moment", list(DEMO_MOMENTS))
def test_repeated_signals_during_demo_leave_nothing_half_written(moment, tmp_path):
    """SIGINT, SIGTERM and SIGHUP in a row at given points of ``irstats demo``'s code — not
    after given delays — including the moments that used to leave a ``.partial-*`` folder: one
    line, exit 130, no scratch folder or temporary file left, and each folder the demo writes
    (the collection, then its report) absent or whole."""
    work = tmp_path / "work"
    work.mkdir()
    fired = tmp_path / "fired"
    command = [sys.executable, "-c", _SIGNAL_AT, DEMO_MOMENTS[moment], str(fired), "demo", "--out", "d", "--quiet"]
    done = subprocess.run(command, cwd=work, env=_program_env(), capture_output=True, preexec_fn=default_signals,
                          timeout=600)
    err = done.stderr.decode()
    hooks = DEMO_MOMENTS[moment].split(";")
    # every hook fired (one after a fork fires in both processes)
    assert fired.exists() and set(fired.read_text().splitlines()) == set(hooks), f"a moment was never reached: {err}"
    assert_interrupted_once(done.returncode, err)
    assert all(line.startswith(("Generating ", "Writing ")) for line in err.splitlines()[:-1]), err
    assert leftovers(work) == []
    assert_whole(work / "d")
    assert_whole(work / "d" / "report")
    assert sorted(os.listdir(work)) in ([], ["d"])


# ----------------------------------------------------------------------------- permissions
def test_report_and_demo_folders_follow_the_umask(small, tmp_path, capsys):
    demo, _ = small
    old = os.umask(0o022)
    try:
        from irstats.report import build_report

        report = build_report(demo.qrels, demo.runs, tmp_path / "study", quick=True, figures=True, progress=False)
        assert stat.S_IMODE(report.out_dir.stat().st_mode) == 0o755
        assert stat.S_IMODE((report.out_dir / "figures").stat().st_mode) == 0o755
        assert stat.S_IMODE(report.html.stat().st_mode) == 0o644
        os.umask(0o027)
        code, _, err = run_cli(["demo", "--out", tmp_path / "demo", "--no-report"], capsys)
        assert code == 0, err
        assert stat.S_IMODE((tmp_path / "demo").stat().st_mode) == 0o750
        assert stat.S_IMODE((tmp_path / "demo" / "qrels.txt").stat().st_mode) == 0o640
    finally:
        os.umask(old)


def test_output_folder_api(tmp_path):
    """OutputFolder: validation at construction, cleanup on failure, a marker on success."""
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "x").write_text("x")
    with pytest.raises(InputError, match="foreign"):
        OutputFolder(tmp_path / "foreign")
    folder = OutputFolder(tmp_path / "made")
    with pytest.raises(RuntimeError):
        with folder as scratch:
            (scratch / "a.txt").write_text("a")
            raise RuntimeError
    assert sorted(p.name for p in tmp_path.iterdir()) == ["foreign"]
    with OutputFolder(tmp_path / "made") as scratch:
        (scratch / "a.txt").write_text("a")
    assert json.loads((tmp_path / "made" / MARKER).read_text())["files"] == ["a.txt"]


def test_output_folder_removed_while_it_is_checked_again_is_made_anew(tmp_path, monkeypatch):
    """The target removed between the commit's two looks at it (another process cleaning up): the
    results become a new folder, as for a target that never existed (it was a traceback: the
    manifest of no folder, None, was read as a dict)."""
    target = tmp_path / "made"
    target.mkdir()
    folder = OutputFolder(target)
    check_again = output.check_output_folder

    def removed_just_before(path):
        shutil.rmtree(path)
        return check_again(path)

    with folder as scratch:
        (scratch / "a.txt").write_text("a")
        monkeypatch.setattr(output, "check_output_folder", removed_just_before)
    assert (target / "a.txt").read_text() == "a"
    assert json.loads((target / MARKER).read_text())["files"] == ["a.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["made"]


def test_dev_stdout_redirected_to_a_file_is_appended_not_replaced(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("first\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    with open(log, "ab") as fh:
        done = subprocess.run([sys.executable, "-m", "irstats", *map(str, EVAL), "-o", "/dev/stdout"], env=env,
                              stdout=fh, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    text = log.read_text()
    assert text.startswith("first\nsystem\ttopic\tmeasure\tvalue\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.txt"]
