"""The documentation site (mkdocs.yml, docs/, mkdocs_hooks.py) and the README as its front page.

The site is built once for the module with ``mkdocs build --strict`` (a broken link, a missing
anchor or cross-reference, a page left out of the navigation fails it); then the generated
references are checked against the code itself — every name in ``irstats.__all__``, every public
module (found here by walking the package), every command and option of the click group — and
the site is opened from ``site/index.html`` in headless Chromium, network off, where a search
must find the page that answers it.
"""

from __future__ import annotations

import html
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import chromium

import irstats

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-5000:]
    assert not [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))], log[-5000:]
    return out


def _text(page: Path) -> str:
    return html.unescape(page.read_text(encoding="utf-8"))


def _plain(page: Path) -> str:
    """The page's text, without its tags (highlighted code is split into spans)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def public_modules() -> list[str]:
    names = ["irstats"] + [m.name for m in pkgutil.walk_packages(irstats.__path__, "irstats.")]
    return [name for name in names if not any(part.startswith("_") for part in name.split("."))]


def test_front_page_is_the_readme(site):
    index = _text(site / "index.html")
    assert "./install.sh && irstats demo" in _plain(site / "index.html")
    assert "./install.sh --test && python3 -m pytest" in _plain(site / "index.html")
    for page in ("getting-started.html", "howto/trec-eval.html", "reference/cli.html", "reference/api.html",
                 "performance.html"):
        assert f'href="{page}"' in index, page
        assert (site / page).is_file(), page


def test_api_reference_lists_every_name_and_every_public_module(site):
    index = _text(site / "reference" / "api.html")
    for module in public_modules():
        page = site / "reference" / "api" / f"{module}.html"
        assert page.is_file(), module
        assert f'href="api/{module}.html"' in index, module
    names = [name for name in irstats.__all__ if name != "__version__"]
    assert len(names) >= 20
    for name in names:
        module = irstats._LAZY[name]
        assert f'href="api/{module}.html#{module}.{name}"' in index, name
        assert f'id="{module}.{name}"' in _text(site / "reference" / "api" / f"{module}.html"), name
    assert irstats.__version__ in index


def test_api_pages_show_examples_as_code(site):
    """Doctest examples are code blocks, not quotations; Sphinx roles are names in code."""
    page = _text(site / "reference" / "api" / "irstats.evaluate.html")
    assert "<blockquote>" not in page and ":func:" not in page and "```" not in page
    example = re.search(r'<div class="highlight"><pre>(.*?)</pre>', page, re.S)
    assert example and ">>> ev = Evaluator(" in re.sub(r"<[^>]+>", "", example.group(1))


def _sections(page: str) -> dict[str, str]:
    """The CLI page cut at its second-level headings: {heading text: the section's text}."""
    parts = re.split(r"<h2 id=\"[^\"]*\">", page)
    return {re.sub(r"<[^>]+>|¶", "", part.split("</h2>", 1)[0]).strip(): part for part in parts[1:]}


def test_cli_reference_lists_every_command_and_option(site):
    import click

    from irstats.cli.group import cli, load_commands
    from irstats.trec_eval.command import USAGE

    load_commands()
    sections = _sections(_text(site / "reference" / "cli.html"))

    def walk(group, prefix):
        for name in group.list_commands(None):
            command = group.get_command(None, name)
            yield f"{prefix} {name}", command
            if isinstance(command, click.Group):
                yield from walk(command, f"{prefix} {name}")

    commands = list(walk(cli, "irstats"))
    assert len(commands) >= 25
    for full, command in commands:
        assert full in sections, full
        if full == "irstats trec_eval":  # parsed without click: its own help
            assert all(line.strip() in sections[full] for line in USAGE.splitlines() if line.strip())
            continue
        for param in command.params:
            for flag in (*param.opts, *param.secondary_opts):
                if isinstance(param, click.Option):
                    assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", sections[full]), (full, flag)


def test_performance_page_holds_the_benchmark_tables():
    """bench/update_readme.py writes its tables between these markers (docs/performance.md and
    the guides now, no longer the README)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import update_readme
    finally:
        sys.path.remove(str(ROOT / "bench"))
    pages = "".join(path.read_text(encoding="utf-8") for path in update_readme.PAGES)
    for start, end in ((update_readme.SUMMARY_START, update_readme.SUMMARY_END), (update_readme.START, update_readme.END),
                       (update_readme.STARTUP_START, update_readme.STARTUP_END),
                       (update_readme.TOPICS_START, update_readme.TOPICS_END),
                       (update_readme.IR_MEASURES_START, update_readme.IR_MEASURES_END),
                       (update_readme.REPORT_START, update_readme.REPORT_END)):
        assert pages.count(start) == 1 and pages.count(end) == 1, start


def test_readme_is_a_front_page():
    """At most 150 lines, with the two commands exactly as .ci/run runs them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    assert "```bash\n./install.sh && irstats demo\n```" in readme
    assert "```bash\n./install.sh --test && python3 -m pytest\n```" in readme
    assert "./install.sh\nirstats demo" in ci and "./install.sh --test\n" in ci and "python3 -m pytest" in ci
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / link).is_file(), link



def test_search_works_from_the_file_system(site, tmp_path):
    """site/index.html opened as a file, network off: typing a query lists the pages that hold it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = chromium(p)
        context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        requests: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("request", lambda r: requests.append(r.url))
        page.goto((site / "index.html").as_uri())
        page.wait_for_load_state("load")
        page.click(".md-search__input")
        page.keyboard.type("Krippendorff", delay=20)
        page.wait_for_selector(".md-search-result__item", timeout=30_000)
        found = page.eval_on_selector_all(".md-search-result__item a", "els => els.map(e => e.href)")
        meta = page.inner_text(".md-search-result__meta")
        page.screenshot(path=str(tmp_path / "search.png"))
        browser.close()
    assert re.match(r"\d+ matching documents?", meta), meta
    assert any("howto/llm-labels.html" in url for url in found), found
    assert not errors
    assert all(url.startswith(("file:", "data:", "blob:")) for url in requests), requests
