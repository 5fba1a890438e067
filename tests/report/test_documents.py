"""Every report format from the recorded H200 runs (no GPU), and the HTML in a real browser."""
import csv
import shutil
import subprocess

import pytest

from bwlab.core.results import load
from bwlab.core.table import Column, TableData
from bwlab.report import charts, document
from helpers import H200

T = H200 / "transpose"
RUNS = {"ladder": T / "run.json", "bench": T / "bench" / "bench.json", "blocks": T / "sweep" / "blocks.json",
        "sizes": T / "sweep" / "sizes.json", "profile": T / "profile" / "profile.json"}


@pytest.mark.parametrize("which", RUNS)
def test_every_format(which, tmp_path):
    run = load(RUNS[which])
    md = document.write_markdown(run, tmp_path / "md")
    text = md.read_text()
    assert run.device["name"] in text and "| " in text
    for name in charts.charts_for(run):
        assert f"]({name})" in text and (tmp_path / "md" / name).stat().st_size > 10_000
    assert sorted(p.name for p in (tmp_path / "md").iterdir()) == sorted(document.output_names(run))
    page = document.html_page(run)
    assert page.startswith("<!doctype html>") and "<table>" in page and "src='http" not in page
    assert "`" not in page and "_GB/s" not in page and "s_<" not in page  # no raw Markdown in the HTML
    rows = list(csv.reader(document.csv_text(run).splitlines()))
    assert rows[0][:3] == ["workload", "name", "kind"] and len(rows) == len(run.records) + 1


def test_bench_chart_bars_are_each_cases_percent_of_memcpy():
    run = load(H200 / "softmax" / "main-backward" / "bench.json")
    names, rows = charts.bench_bars(run)
    assert names[0] == "bwlab" and "cudaMemcpy" not in names and "torch.compile" in names
    bw = [r for r in run.records if r.name == "bwlab"]
    assert len(rows) == len(bw) and [vals["bwlab"] for _, vals in rows] == [r.pct_memcpy for r in bw]
    labels = [label for label, _ in rows]
    assert "16x8192x1024 float32 dim 1" in labels and "8192x8192 bfloat16 dim 0 backward" in labels
    wrong = dict(rows)["16x8192x1024 float32 dim 1"]  # torch eager out of tolerance there: no bar
    assert "torch" not in wrong and wrong["torch.compile"] > 0


def test_markdown_escapes_what_would_break_it():
    t = document.md_table(TableData("a_b", [Column("x|y")], [["1*2"]], "c_d"))
    assert "a\\_b" in t and "x\\|y" in t and "1\\*2" in t and "c\\_d" in t


def test_incomplete_runs_say_so(tmp_path):
    run = load(RUNS["blocks"])
    run.complete = False
    assert "INCOMPLETE" in document.write_markdown(run, tmp_path).read_text()


def _browser():
    return next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)


@pytest.mark.skipif(_browser() is None, reason="no Chromium here (.ci/run installs Debian's chromium)")
def test_html_renders_its_charts_in_headless_chromium(tmp_path):
    from matplotlib import image

    page = document.write_html(load(RUNS["ladder"]), tmp_path / "r.html")
    shot = tmp_path / "shot.png"
    subprocess.run([_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run",
                    f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1300,2400",
                    f"--screenshot={shot}", page.as_uri()], check=True, timeout=120, capture_output=True)
    img = image.imread(shot)[..., :3]
    # The ladder chart's bars are saturated blue/green/red; text and tables are grey.
    saturation = img.max(axis=2) - img.min(axis=2)
    assert (saturation > 0.3).mean() > 0.01, "no chart pixels in the screenshot"
