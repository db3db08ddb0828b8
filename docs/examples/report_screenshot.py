"""Make the README's report screenshot: the study report of the TREC DL 2019 passage runs.

    python docs/examples/report_screenshot.py [DL19_DIR]   # writes docs/report-screenshot.png

Runs ``irstats report --quick`` on ``tests/data/trec-dl-2019-passage`` (its 14 runs; the committed
picture shows all 37 official runs, a folder laid out the same given as the first argument; official binary
level -l 2) into a scratch folder, as tests/test_report.py's browser test does, and
photographs the top of the page (the findings and the leaderboard) in headless Chromium at
1400 px, the width at which that test finds the key tables whole. The PNG is reduced to a
palette of 128 colours so that it stays small.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DL19 = ROOT / "tests" / "data" / "trec-dl-2019-passage"
TARGET = ROOT / "docs" / "report-screenshot.png"
WIDTH, HEIGHT = 1400, 1100


def main() -> None:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DL19
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("report_screenshot: Chromium not found (Debian package 'chromium'; ./install.sh --test installs it)")
    from PIL import Image
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "study"
        subprocess.run([sys.executable, "-m", "irstats", "report", "--qrels", str(data / "qrels.dl19-passage.txt"),
                        "--runs", str(data / "runs"), "-l", "2", "--quick", "-o", str(out), "--quiet"], check=True)
        shot = Path(scratch) / "shot.png"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            context = browser.new_context(offline=True, viewport={"width": WIDTH, "height": HEIGHT},
                                          device_scale_factor=1)
            page = context.new_page()
            page.goto((out / "index.html").as_uri())
            page.wait_for_load_state("load")
            page.screenshot(path=str(shot), clip={"x": 0, "y": 0, "width": WIDTH, "height": HEIGHT})
            browser.close()
        with Image.open(shot) as image:
            image.convert("RGB").quantize(colors=128, dither=Image.Dither.NONE).save(TARGET, optimize=True)
    print(f"wrote {TARGET} ({TARGET.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
