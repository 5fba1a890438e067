"""Every report format from the recorded H200 runs (no GPU), and the HTML in a real browser."""
import csv
import shutil
import subprocess
from pathlib import Path

import pytest

from bwlab import charts, document, results, sweep

H200 = Path(__file__).parents[1] / "benchmarks" / "h200"
RUNS = {"ladder": H200 / "run.json", "bench": H200 / "bench.json", "blocks": H200 / "sweep" / "blocks.json",
        "sizes": H200 / "sweep" / "sizes.json", "profile": H200 / "profile" / "profile.json"}


@pytest.mark.parametrize("which", RUNS)
def test_every_format(which, tmp_path):
    run = results.load(RUNS[which])
    md = document.write_markdown(run, tmp_path / "md")
    text = md.read_text()
    assert run.device["name"] in text and "| " in text
    for png in charts.charts_for(run, tmp_path / "png"):
        assert f"]({png.name})" in text and (tmp_path / "md" / png.name).stat().st_size > 10_000
    page = document.write_html(run, tmp_path / "r.html").read_text()
    assert page.startswith("<!doctype html>") and "<table>" in page and "src='http" not in page
    rows = list(csv.reader(document.write_csv(run, tmp_path / "r.csv").open()))
    assert rows[0][:3] == ["name", "kind", "family"] and len(rows) == len(run.records) + 1


def test_thin_block_answer_is_in_the_sweep():
    best = sweep.best_blocks(results.load(RUNS["blocks"]))
    block, gbs, gain = best["naiveCol"]
    assert gbs > 0 and gain >= 1


def test_incomplete_runs_say_so(tmp_path):
    run = results.load(RUNS["blocks"])
    run.complete = False
    assert "INCOMPLETE" in document.write_markdown(run, tmp_path).read_text()


def _browser():
    return next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)


@pytest.mark.skipif(_browser() is None, reason="no Chromium here (.ci/run installs Debian's chromium)")
def test_html_renders_its_charts_in_headless_chromium(tmp_path):
    import numpy as np
    from matplotlib import image

    page = document.write_html(results.load(RUNS["ladder"]), tmp_path / "r.html")
    shot = tmp_path / "shot.png"
    subprocess.run([_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run",
                    f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1300,2400",
                    f"--screenshot={shot}", page.as_uri()], check=True, timeout=120, capture_output=True)
    img = image.imread(shot)[..., :3]
    # The ladder chart's bars are saturated blue/green/red; text and tables are grey.
    saturation = img.max(axis=2) - img.min(axis=2)
    assert (saturation > 0.3).mean() > 0.01, "no chart pixels in the screenshot"
