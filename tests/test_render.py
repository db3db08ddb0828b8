"""The one table renderer: hand-written expected text for every format."""

from __future__ import annotations

import math

import polars as pl

from irstats.render import latex_table, markdown_table, render, text_table

FRAME = pl.DataFrame({"system": ["bm25", "a|b"], "AP": [0.25, math.nan], "n": [3, 12]})


def test_text_table():
    assert render(FRAME, "table") == (
        "system      AP   n\n"
        "------  ------  --\n"
        "bm25    0.2500   3\n"
        "a|b        nan  12\n")
    assert text_table(["x", "y"], [["long", "1"]], left=2, title="T") == "T\nx     y\n----  -\nlong  1\n"


def test_markdown():
    assert render(FRAME, "markdown") == (
        "| system | AP | n |\n"
        "|:---|---:|---:|\n"
        "| bm25 | 0.2500 | 3 |\n"
        "| a\\|b | nan | 12 |\n")
    assert markdown_table(["a*"], [["x"]], left=1) == "| a\\* |\n|:---|\n| x |\n"


def test_latex():
    assert render(FRAME.head(1), "latex") == (
        "\\begin{tabular}{lrr}\n\\toprule\nsystem & AP & n \\\\\n\\midrule\n"
        "bm25 & 0.2500 & 3 \\\\\n\\bottomrule\n\\end{tabular}\n")
    assert "a\\_b \\& c" in latex_table(["x"], [["a_b & c"]])


def test_delimited_and_json():
    assert render(FRAME, "tsv") == "system\tAP\tn\nbm25\t0.25\t3\na|b\tnan\t12\n"
    assert render(FRAME, "csv").splitlines()[1] == "bm25,0.25,3"
    assert '"AP": null' in render(FRAME, "json")
