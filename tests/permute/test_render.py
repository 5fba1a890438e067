"""The committed H200 permute bench renders in every format without a GPU (its cases carry a
tuple parameter, which a saved run holds as a list)."""
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bwlab.cli import app

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "h200" / "permute" / "bench" / "bench.json"


@pytest.mark.parametrize("fmt, out", [("md", "rep"), ("html", "rep.html"), ("csv", "rep.csv")])
def test_committed_bench_renders(tmp_path, fmt, out):
    r = CliRunner().invoke(app, ["report", str(BENCH), "--format", fmt, "--out", str(tmp_path / out)])
    assert r.exit_code == 0, r.output
    text = (tmp_path / out / "report.md").read_text() if fmt == "md" else (tmp_path / out).read_text()
    assert "64x128x128x64" in text
    if fmt != "csv":
        assert "bwlab.permute by rank" in text
