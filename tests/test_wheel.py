"""The package as a stranger installs it: ``python -m build`` makes an sdist and a wheel with the
compiled reader inside, ``twine check`` accepts both, and the wheel alone, installed into a
fresh virtual environment and run from outside the source tree, evaluates.

The environment sees the system's site-packages (numpy, polars … are not downloaded again), so
the tests assert that ``irstats`` and ``irstats._ingest`` are the environment's own copies — not
the editable install or this checkout. Building needs the build requirements (setuptools) from
pip, as ``pip install .`` does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import irstats

ROOT = Path(__file__).resolve().parents[1]


def _clean_env() -> dict[str, str]:
    """The environment without what points Python at this checkout (PYTHONPATH)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(args, cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=_clean_env(), capture_output=True, text=True,
                            **kwargs)
    assert result.returncode == 0, f"{' '.join(map(str, args))} exited {result.returncode}:\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """``python -m build`` of this checkout: the sdist, then the wheel built from it."""
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", out, ROOT], cwd=out, timeout=300)
    return out


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel alone installed (no index: its dependencies
    must already be satisfied by the system's packages it sees)."""
    where = tmp_path_factory.mktemp("venv") / "env"
    _run([sys.executable, "-m", "venv", "--system-site-packages", where], cwd=where.parent, timeout=120)
    wheel = next(dist.glob("*.whl"))
    _run([where / "bin" / "python", "-m", "pip", "install", "--no-index", "--quiet", wheel], cwd=where.parent,
         timeout=300)
    return where


def test_sdist_and_wheel_hold_the_reader_and_the_license(dist):
    wheel, = dist.glob(f"irstats-{irstats.__version__}-*.whl")
    sdist, = dist.glob(f"irstats-{irstats.__version__}.tar.gz")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("irstats/_ingest.") and n.endswith((".so", ".pyd")) for n in names), names
    assert f"irstats-{irstats.__version__}.dist-info/licenses/LICENSE" in names
    assert "irstats/cli/main.py" in names and not any(n.startswith(("tests/", "bench/")) for n in names)
    metadata = zipfile.ZipFile(wheel).read(f"irstats-{irstats.__version__}.dist-info/METADATA").decode()
    assert "Requires-Python: >=3.10" in metadata and "License-Expression: MIT" in metadata
    assert "Classifier: Programming Language :: Python :: 3.10" in metadata
    assert sdist.stat().st_size > 0


def test_twine_check_passes(dist):
    result = _run([sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir())], cwd=dist,
                  timeout=120)
    assert result.stdout.count("PASSED") == 2, result.stdout


def test_installed_wheel_imports_its_own_copy_and_the_compiled_reader(venv, tmp_path):
    code = ("import irstats, irstats._ingest, irstats.extension as e; "
            "print(irstats.__file__); print(irstats._ingest.__file__); print(e.available())")
    lines = _run([venv / "bin" / "python", "-c", code], cwd=tmp_path, timeout=60).stdout.split()
    site = (venv / "lib").resolve()
    package, reader, available = Path(lines[0]).resolve(), Path(lines[1]).resolve(), lines[2]
    assert package.is_relative_to(site) and "site-packages" in package.parts, package
    assert reader.is_relative_to(site) and reader.suffix in (".so", ".pyd"), reader
    assert available == "True"


def test_installed_command_prints_its_version(venv, tmp_path):
    result = _run([venv / "bin" / "irstats", "--version"], cwd=tmp_path, timeout=60)
    assert result.stdout.strip() == f"irstats, version {irstats.__version__}"


def test_installed_demo_runs(venv, tmp_path):
    out = tmp_path / "demo"
    _run([venv / "bin" / "irstats", "demo", "--out", out, "--no-report", "--quiet"], cwd=tmp_path, timeout=300)
    assert (out / "qrels.txt").is_file() and len(list((out / "runs").glob("*.run"))) == 30
    header = (out / "scores.tsv").read_text().splitlines()[0].split("\t")
    assert header == ["system", "topic", "measure", "value"]


def test_installed_trec_eval_prints_trec_eval_10s_output(venv, reference_data, tmp_path):
    """The drop-in, from the wheel, on trec_eval's own test files: its output is trec_eval 10's
    (out.test, out.test.aq), byte for byte."""
    folder = reference_data / "conformance" / "trec_eval-test"
    for options, expected in (([], "out.test"), (["-m", "all_trec", "-q"], "out.test.aq")):
        result = _run([venv / "bin" / "irstats", "trec_eval", *options, folder / "qrels.test",
                       folder / "results.test"], cwd=tmp_path, timeout=60)
        assert result.stdout == (folder / expected).read_text(), expected
