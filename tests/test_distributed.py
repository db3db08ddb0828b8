"""Past one machine on Dask (issue 26): a real scheduler and two real worker processes give
exactly the single process's results — the DL 2019 runs of tests/data (also read from standard input or a
pipe), split-half, predictive power, the resampling tests and bootstrap intervals, robustness of
standardization and the volatility sweep — also when a worker dies mid-job; what cannot run on
a cluster is refused in one line; an unreachable scheduler is one line and exit 1 within seconds."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest
from polars.testing import assert_frame_equal

import irstats
from irstats import distributed as on_dask
from irstats.depth import depth_sweep
from irstats.depth.volatility import pairwise_p_values, volatility
from irstats.errors import ArgumentError
from irstats.meta.predictive import predictive_power
from irstats.meta.robustness import standardization_robustness
from irstats.meta.splithalf import split_half
from irstats.stats.compare import compare, compare_pairs
from irstats.stats.effects import bootstrap_mean_intervals
from tests.conftest import DL19_RUNS, run_cli
from tests.dask_cluster import client, cluster  # noqa: F401 - the real cluster these tests run on


@pytest.fixture(scope="module")
def dl19(reference_data):
    base = reference_data / "trec-dl-2019-passage"
    return base / "qrels.dl19-passage.txt", base / "runs"


@pytest.fixture(scope="module")
def scores(dl19):
    return irstats.evaluate(dl19[0], dl19[1], ["AP", "nDCG@10", "P@10"])


def same_scores(a, b):
    assert list(a) == list(b)
    for name in a:
        assert a[name].systems == b[name].systems and a[name].topics == b[name].topics
        np.testing.assert_array_equal(a[name].values, b[name].values)  # NaN where NaN, every bit elsewhere


def test_eval_on_a_scheduler_prints_the_single_process_output(dl19, cluster, capsys):
    qrels, runs = dl19
    for extra in ([], ["-q", "--format", "tsv"]):
        local = run_cli(["eval", qrels, runs, *extra], capsys)
        remote = run_cli(["eval", qrels, runs, *extra, "--scheduler", cluster.scheduler_address], capsys)
        assert local[0] == 0 and local[1].count("\n") > len(DL19_RUNS)
        assert remote == local  # exit code, stdout and the warnings on stderr


def test_eval_with_two_local_workers_prints_the_single_process_output(dl19, capsys):
    qrels, runs = dl19
    assert run_cli(["eval", qrels, runs, "--workers", "2"], capsys) == run_cli(["eval", qrels, runs], capsys)


@pytest.fixture(scope="module")
def dl19_partial(dl19, tmp_path_factory):
    """The DL 2019 runs, one of them without a third of the topics (NaN in its matrices)."""
    import gzip

    folder = tmp_path_factory.mktemp("runs")
    for path in sorted(dl19[1].glob("*.gz"))[:12]:
        lines = gzip.decompress(path.read_bytes()).decode().splitlines(True)
        if path.name.startswith("ICT-CKNRM_B"):
            lines = [line for line in lines if int(line.split()[0]) % 3]
        (folder / path.name.removesuffix(".gz")).write_text("".join(lines))
    return dl19[0], folder


@pytest.mark.parametrize("fmt", ["trec_eval", "tsv", "csv", "jsonl", "json"])
@pytest.mark.parametrize("options", [[], ["-c"], ["--drop-r0", "-l", "3"]])
def test_per_topic_output_laid_out_by_the_workers_is_the_single_process_output(dl19_partial, cluster, capsys,
                                                                               monkeypatch, tmp_path, fmt, options):
    """eval -q on a cluster: each worker lays out its batch's per-topic lines; the client only
    writes them in order (its own printers are never called) — the single process's bytes."""
    from irstats.cli import eval_cmd

    qrels, runs = dl19_partial
    args = ["eval", qrels, runs, "-m", "all_trec", "-q", "--format", fmt, *options]
    local = run_cli(args, capsys)
    assert local[0] == 0 and local[1].count("\n") > 1000

    def not_here(*args, **kwargs):
        raise AssertionError("the client laid out per-topic output")

    monkeypatch.setattr(eval_cmd, "trec_eval_chunks", not_here)
    monkeypatch.setattr(eval_cmd, "score_chunks", not_here)
    assert run_cli([*args, "--scheduler", cluster.scheduler_address], capsys)[:2] == local[:2]  # (a warning shows once)
    target = tmp_path / f"out.{fmt}"
    code, _, _ = run_cli([*args, "--scheduler", cluster.scheduler_address, "-o", target], capsys)
    assert code == 0 and target.read_text() == local[1]


def test_the_workers_pieces_come_in_the_runs_order(dl19_partial, client):
    """Several batches of runs, each laid out by a worker, joined in the runs' order."""
    from irstats.scores import score_chunks

    qrels, runs = dl19_partial
    with pytest.warns(irstats.IrstatsWarning, match="answers"):
        scores = irstats.evaluate(qrels, runs, ["AP", "NumRet", "P@10"], client=client, print_as="csv")
    assert len(scores.printed.pieces) > 1
    assert "".join(scores.printed.chunks()) == "".join(score_chunks(scores, "csv", per_topic=True))


def test_evaluate_with_a_client_gives_every_score_bit_for_bit(dl19, client):
    qrels, runs = dl19
    measures = ["AP", "nDCG@10", "RBP(p=0.8)", "Bpref", "ERR@20", "NumRet"]
    same_scores(irstats.evaluate(qrels, runs, measures, client=client), irstats.evaluate(qrels, runs, measures))
    # qrels that are not a file every worker can read are sent once to each worker instead
    frame = irstats.Collection.load(qrels).qrels
    same_scores(irstats.evaluate(frame, runs, measures, client=client), irstats.evaluate(frame, runs, measures))


def test_split_half_and_predictive_power_same_numbers(scores, client):
    done = []
    a = split_half(scores, n_splits=3000, seed=7, batch_size=400)
    b = split_half(scores, n_splits=3000, seed=7, batch_size=400, client=client, progress=done.append)
    np.testing.assert_array_equal(a.values, b.values)
    assert a.view().to_text() == b.view().to_text()
    assert sum(done) == 3 * 3000  # one progress for the job: the splits of its tasks, as in one process
    a = predictive_power(scores, n_splits=1000, seed=7, batch_size=300)
    b = predictive_power(scores, n_splits=1000, seed=7, batch_size=300, client=client)
    np.testing.assert_array_equal(a.values, b.values)
    assert a.view().to_text() == b.view().to_text()


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_compare_resampling_same_numbers(scores, client, test):
    a = compare(scores, test=test, n_resamples=2000, seed=11, batch_size=300)
    b = compare(scores, test=test, n_resamples=2000, seed=11, batch_size=300, client=client)
    assert a.frame.equals(b.frame) and a.to_text() == b.to_text()
    for name in a.pairwise:
        np.testing.assert_array_equal(a.pairwise[name].p_value, b.pairwise[name].p_value)
        np.testing.assert_array_equal(a.pairwise[name].statistic, b.pairwise[name].statistic)
    # a Generator as the seed: the same draws, and it is left in the same state
    g, h = np.random.default_rng(5), np.random.default_rng(5)
    a = compare(scores["AP"], test=test, n_resamples=1000, seed=g, batch_size=300)
    b = compare(scores["AP"], test=test, n_resamples=1000, seed=h, batch_size=300, client=client)
    assert a.frame.equals(b.frame) and g.bit_generator.state == h.bit_generator.state


def test_compare_bootstrap_intervals_same_numbers(scores, client):
    """--interval percentile|bca: the resampled means on the workers, from the client's draws."""
    a = compare(scores, interval="bca", n_resamples=3000, seed=4)
    b = compare(scores, interval="bca", n_resamples=3000, seed=4, client=client)
    assert_frame_equal(a.frame, b.frame, check_exact=True)
    assert np.isfinite(a.frame["delta_low"].to_numpy()).sum() == 3 * (len(DL19_RUNS) - 1)  # every system but the baseline
    a = compare_pairs(scores["nDCG@10"], interval="percentile", n_resamples=2000, seed=2)
    b = compare_pairs(scores["nDCG@10"], interval="percentile", n_resamples=2000, seed=2, client=client)
    assert_frame_equal(a.frame, b.frame, check_exact=True)
    # several tasks (resamples 1–5272, 5273–10544, …), a Generator as the seed left in the same state
    x = scores["AP"].values - scores["AP"].values[0]
    g, h = np.random.default_rng(8), np.random.default_rng(8)
    a = bootstrap_mean_intervals(x, 12_000, 0.9, "bca", seed=g)
    b = bootstrap_mean_intervals(x, 12_000, 0.9, "bca", seed=h, client=client)
    for name in ("mean", "low", "high", "standard_error"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert g.bit_generator.state == h.bit_generator.state


def test_robustness_same_numbers(scores, client):
    matrix = scores["AP"]
    pool = sorted(matrix.systems)[::2]  # 7 of the 14 runs
    kwargs = dict(standardizing=pool, sizes=[2, 4, 6], n_samples=400, seed=9, batch_size=150)
    done = []
    a = standardization_robustness(matrix, **kwargs)
    b = standardization_robustness(matrix, **kwargs, client=client, progress=done.append)
    np.testing.assert_array_equal(a.taus, b.taus)
    np.testing.assert_array_equal(a.zero_variance, b.zero_variance)
    assert a.to_text() == b.to_text()
    assert sum(done) == 3 * 400 and len(done) == 3 * 3  # one progress line: the samples of 9 batches


@pytest.fixture(scope="module")
def sweep(dl19):
    qrels, runs = dl19
    return depth_sweep(qrels, sorted(runs.glob("*.gz"))[:8], ["AP", "nDCG"], pool_depth=10, depths=[3, 10, 50, 1000])


@pytest.mark.parametrize("test", ["bootstrap", "randomization", "tukey"])
def test_volatility_same_numbers(sweep, client, test):
    done = []
    a = volatility(sweep, test=test, n_resamples=300, seed=5)
    b = volatility(sweep, test=test, n_resamples=300, seed=5, client=client, progress=done.append)
    assert sum(done) == 2 * 2 * 4 * 300  # one progress line: the resamples of (AP, nDCG) × 2 forms × 4 depths
    for name in ("by_depth", "statistics", "systems", "pairs"):
        assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)
    assert a.by_depth["discrimination"].is_not_nan().all()
    values = sweep.topic_values("AP")
    for x, y in zip(pairwise_p_values(values, test, n_resamples=300, seed=5),
                    pairwise_p_values(values, test, n_resamples=300, seed=5, client=client)):
        np.testing.assert_array_equal(x, y)


def test_commands_on_a_scheduler_print_the_single_process_output(dl19, cluster, capsys, tmp_path):
    qrels, runs = dl19
    (tmp_path / "pool.txt").write_text("\n".join(sorted(s.name.split(".")[0] for s in runs.glob("*.gz"))[:20]) + "\n")
    commands = [
        ["robustness", "--qrels", qrels, "--runs", runs, "--standardizing", tmp_path / "pool.txt", "-n", "200",
         "--sizes", "2,10", "-q"],
        ["volatility", qrels, *sorted(runs.glob("*.gz"))[:6], "-m", "AP", "--condensed", "no", "--depths", "5,10,100",
         "--test", "randomization", "-n", "200", "-q"],
        ["compare", "--qrels", qrels, "--runs", runs, "-m", "AP", "--interval", "bca", "--test", "bootstrap",
         "-n", "500", "--format", "tsv"],
    ]
    for command in commands:
        local = run_cli(command, capsys)
        assert local[0] == 0 and local[1], local[2]
        assert run_cli([*command, "--scheduler", cluster.scheduler_address], capsys) == local


def _irstats(args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "irstats", *map(str, args)], capture_output=True, timeout=120,
                          **kwargs)


def test_a_run_from_standard_input_or_a_pipe_evaluates_on_a_cluster(dl19, cluster, capsys, monkeypatch):
    """The client's bytes of ``-`` (and of ``<(zcat …)``) stand in for the name on the workers:
    the same tag, scores and file:line errors as in one process."""
    import gzip

    from irstats.io import trec

    qrels, runs = dl19
    run = sorted(runs.glob("*.gz"))[0]
    text = gzip.decompress(run.read_bytes())
    args = ["eval", qrels, "-", "-m", "AP", "-m", "nDCG@10", "--format", "tsv", "-q"]
    local = _irstats(args, input=text)
    remote = _irstats([*args, "--scheduler", cluster.scheduler_address], input=text)
    assert local.returncode == 0 and local.stdout.count(b"\n") > 43 and remote.stdout == local.stdout
    piped = subprocess.run(["bash", "-c", f"{sys.executable} -m irstats {' '.join(map(str, args[:2]))} <(zcat {run}) "
                                          f"{' '.join(args[3:])} --scheduler {cluster.scheduler_address}"],
                           capture_output=True, timeout=120)
    assert piped.returncode == 0 and piped.stdout == local.stdout, piped.stderr
    # a bad line of standard input (as read by this process): the single process's one line
    lines = text.decode().splitlines()
    lines[99] = "\t".join(lines[99].split("\t")[:4] + ["abc"] + lines[99].split("\t")[5:])
    monkeypatch.setitem(trec._read_once, "-", ("\n".join(lines) + "\n").encode())
    local = run_cli(args, capsys)
    assert local[0] == 2 and local[2].startswith("irstats: error: -:100:")
    assert run_cli([*args, "--scheduler", cluster.scheduler_address], capsys) == local


def test_read_once_bytes_stand_in_only_while_a_task_reads(monkeypatch):
    from irstats.io import trec

    monkeypatch.setitem(trec._read_once, "/dev/fd/63", b"kept")
    with on_dask._read_as({"-": b"1 Q0 d 1 1 r\n", "/dev/fd/63": b"sent"}):
        assert trec.read_raw("-") == b"1 Q0 d 1 1 r\n" and trec.read_raw("/dev/fd/63") == b"sent"
    assert "-" not in trec._read_once and trec._read_once["/dev/fd/63"] == b"kept"


def test_what_cannot_run_on_a_cluster_is_refused_in_one_line(dl19, cluster, client, capsys, tmp_path, reference_data):
    """Measures that read judgments beyond the qrels (diversity, preferences) are not computed on
    workers: refused before any run is read, in one line (exit 2)."""
    qrels, runs = dl19
    subtopics = tmp_path / "subtopics.txt"
    subtopics.write_text("19335 1 1017759 2\n")
    conformance = reference_data / "conformance" / "trec_eval-test"
    prefs = tmp_path / "prefs.txt"  # on topic 301, a topic of trec_eval's qrels.test
    prefs.write_text("301 a x CR93E-10279 2\n301 a x CR93E-10505 1\n")
    for command in (["eval", qrels, runs, "--subtopic-qrels", subtopics, "-m", "alpha_nDCG@20"],
                    ["eval", conformance / "qrels.test", conformance / "results.test", "--prefs", prefs,
                     "-m", "PrefsSimp"]):
        code, out, err = run_cli([*command, "--scheduler", cluster.scheduler_address], capsys)
        assert (code, out, err.count("\n")) == (2, "", 1) and "not evaluated on a Dask cluster" in err, err
    with pytest.raises(ArgumentError, match="not evaluated on a Dask cluster"):
        irstats.evaluate(qrels, runs, ["ERR_IA@20"], subtopic_qrels=subtopics, client=client)


def test_a_worker_killed_mid_job_changes_nothing(dl19, scores, client, monkeypatch, tmp_path):
    """The first task to run kills its own worker process; Dask runs it again elsewhere."""
    marker = str(tmp_path / "killed")
    original = on_dask._run_task

    def killing(function, *args):  # sent by value to the workers (a local function)
        import os
        import signal

        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return original(function, *args)
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(on_dask, "_run_task", killing)
    qrels, runs = dl19
    same_scores(irstats.evaluate(qrels, runs, ["AP", "nDCG@10", "P@10"], client=client), scores)
    assert (tmp_path / "killed").exists()
    (tmp_path / "killed").unlink()
    client.wait_for_workers(2, timeout=30)
    from irstats.trec_eval.printer import format_scores

    printed = irstats.evaluate(qrels, runs, ["AP", "nDCG@10", "P@10"], client=client, print_as="trec_eval").printed
    assert "".join(printed.chunks()) == format_scores(scores, per_topic=True)  # the workers' lines, as one process
    assert (tmp_path / "killed").exists()
    (tmp_path / "killed").unlink()
    b = split_half(scores, n_splits=2000, seed=3, batch_size=250, client=client)
    np.testing.assert_array_equal(b.values, split_half(scores, n_splits=2000, seed=3).values)
    assert (tmp_path / "killed").exists()
    client.wait_for_workers(2, timeout=30)


def test_a_bad_run_is_the_single_process_error(dl19, cluster, capsys, tmp_path):
    import gzip

    qrels, runs = dl19
    lines = gzip.decompress(sorted(runs.glob("*.run.gz"))[0].read_bytes()).decode().splitlines()
    fields = lines[99].split("\t")
    lines[99] = "\t".join(fields[:4] + ["abc"] + fields[5:])
    (tmp_path / "bad.run").write_text("\n".join(lines) + "\n")
    local = run_cli(["eval", qrels, tmp_path / "bad.run"], capsys)
    remote = run_cli(["eval", qrels, tmp_path / "bad.run", "--scheduler", cluster.scheduler_address], capsys)
    assert local[0] == 2 and "bad.run:100:" in local[2] and remote == local


def test_a_task_that_fails_otherwise_is_one_error_naming_its_batch(scores, client, monkeypatch):
    monkeypatch.setattr(on_dask, "_run_task", lambda function, *args: 1 / 0)
    with pytest.raises(on_dask.ClusterError, match=r"split-half of AP, splits 0–99 failed on the Dask cluster: "
                                                   r"ZeroDivisionError"):
        split_half(scores["AP"], n_splits=500, batch_size=100, client=client)


def test_an_unreachable_scheduler_is_one_line_and_exit_1(dl19):
    qrels, runs = dl19
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "irstats", "eval", str(qrels), str(runs), "--scheduler",
                           "tcp://127.0.0.1:1"], capture_output=True, text=True, timeout=60)
    assert time.monotonic() - started < on_dask.CONNECT_TIMEOUT + 10
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(
        "irstats: error: cannot reach the Dask scheduler at tcp://127.0.0.1:1: "), done.stderr


def test_without_a_client_dask_is_never_imported(dl19):
    qrels, runs = map(str, dl19)
    few = [str(p) for p in sorted(dl19[1].glob("*.gz"))[:4]]
    code = ("import sys, irstats; from irstats.meta.splithalf import split_half; "
            "from irstats.meta.robustness import standardization_robustness; "
            "from irstats.depth import depth_sweep; from irstats.depth.volatility import volatility; "
            f"s = irstats.evaluate({qrels!r}, {runs!r}, ['AP']); split_half(s, n_splits=50); "
            "standardization_robustness(s['AP'], sizes=[3], n_samples=20); "
            "s.compare(test='bootstrap', interval='bca', n_resamples=50); "
            f"volatility(depth_sweep({qrels!r}, {few!r}, ['AP'], depths=[10, 100]), test='randomization', "
            "n_resamples=20); "
            "assert not any(m.split('.')[0] in ('dask', 'distributed') for m in sys.modules), 'dask imported'")
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_client_is_checked(dl19):
    with pytest.raises(irstats.ArgumentTypeError, match="client must be a distributed.Client"):
        irstats.evaluate(dl19[0], dl19[1], ["AP"], client="tcp://127.0.0.1:8786")
