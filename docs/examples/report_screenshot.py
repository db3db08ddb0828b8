"""Make the README's report screenshot: the study report of the TREC DL 2019 passage runs.

    python docs/examples/report_screenshot.py        # writes docs/report-screenshot.png

Runs ``irstats report`` on ``../shared/data/trec-dl-2019-passage`` (official binary level
-l 2) into a scratch folder and photographs the page in headless Chromium.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / ".." / "shared" / "data" / "trec-dl-2019-passage"
TARGET = ROOT / "docs" / "report-screenshot.png"


def main() -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("report_screenshot: Chromium not found (Debian package 'chromium'; ./install.sh installs it)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "study"
        subprocess.run([sys.executable, "-m", "irstats", "report", "--qrels", str(DATA / "qrels.dl19-passage.txt"),
                        "--runs", str(DATA / "runs"), "-l", "2", "-o", str(out), "--quiet"], check=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1200, "height": 1500}, device_scale_factor=1)
            page.goto((out / "index.html").as_uri())
            page.screenshot(path=str(TARGET), clip={"x": 0, "y": 0, "width": 1200, "height": 1500})
            browser.close()
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
