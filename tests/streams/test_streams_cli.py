"""`bwlab streams` and `bwlab transfers` at the door: help, values refused before any work
(exit 2), no GPU in one line (exit 1), saved results drawn again without a GPU."""
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bwlab.cli import app
from bwlab.core.device import cuda_available

FIX = Path(__file__).parent / "fixtures"
no_gpu = pytest.mark.skipif(cuda_available()[0], reason="behaviour without a GPU")


def invoke(*args):
    return CliRunner().invoke(app, list(args), terminal_width=100)


@pytest.mark.parametrize("name", ["streams", "transfers"])
def test_help(name):
    res = invoke(name, "--help")
    assert res.exit_code == 0 and "Usage:" in res.output and "--out" in res.output


def test_list_needs_no_gpu():
    res = invoke("streams", "--list")
    assert res.exit_code == 0
    for name in ("null-stream", "non-blocking", "default-stream", "connections", "events", "pipeline"):
        assert name in res.output


@pytest.mark.parametrize("args, words", [
    (["streams", "--scenarios", "nope"], "--scenarios: nope not among"),
    (["streams", "--streams", "0,2"], "--streams: each count must be 1 to 64"),
    (["streams", "--streams", "a"], "--streams must be stream counts"),
    (["streams", "--chunks", "0"], "--chunks"),
    (["transfers", "--max-size", "huge"], "--max-size: a size looks like"),
    (["transfers", "--max-size", "8G"], "--max-size: at most 4G"),
    (["transfers", "--max-size", "1K"], "at least the smallest"),
])
def test_wrong_values_exit_2_before_any_work(args, words, tmp_path):
    res = invoke(*args, "--out", str(tmp_path / "o"))
    assert res.exit_code == 2, res.output
    assert words in res.output and not (tmp_path / "o").exists()


@no_gpu
@pytest.mark.parametrize("name", ["streams", "transfers"])
def test_without_a_gpu_one_line_exit_1(name, tmp_path):
    res = invoke(name, "--out", str(tmp_path / "o"))
    assert res.exit_code == 1, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "needs an NVIDIA GPU" in lines[0]
    assert not (tmp_path / "o").exists()


def test_render_streams_then_refuse_to_overwrite(tmp_path):
    out = tmp_path / "r"
    res = invoke("streams", "--render", str(FIX / "streams.json"), "--out", str(out))
    assert res.exit_code == 0, res.output
    names = {p.name for p in out.iterdir()}
    assert {"streams.json", "table.txt", "report.md", "gantt-null-stream.png", "gantt-pipeline.png",
            "pipeline.png"} <= names
    before = (out / "report.md").read_text()
    again = invoke("streams", "--render", str(FIX / "streams.json"), "--out", str(out))
    assert again.exit_code == 1 and "already holds" in again.output
    assert (out / "report.md").read_text() == before
    assert invoke("streams", "--render", str(FIX / "streams.json"), "--out", str(out), "--force").exit_code == 0


def test_render_transfers(tmp_path):
    out = tmp_path / "t"
    res = invoke("transfers", "--render", str(FIX / "transfers.json"), "--out", str(out))
    assert res.exit_code == 0, res.output
    assert {"transfers.json", "table.txt", "report.md", "transfers.png"} <= {p.name for p in out.iterdir()}


def test_render_refuses_the_wrong_document(tmp_path):
    res = invoke("transfers", "--render", str(FIX / "streams.json"), "--out", str(tmp_path / "x"))
    assert res.exit_code == 1 and "a streams document" in res.output and "streams --render" in res.output
    res = invoke("streams", "--render", str(FIX / "transfers.json"), "--out", str(tmp_path / "y"))
    assert res.exit_code == 1 and "not a bwlab streams document" in res.output


@pytest.mark.parametrize("fmt", ["md", "html", "csv"])
def test_report_renders_transfers_with_their_tables_and_chart(fmt, tmp_path):
    out = tmp_path / f"t.{fmt}"
    res = invoke("report", str(FIX / "transfers.json"), "--format", fmt, "--out", str(out))
    assert res.exit_code == 0, res.output
    if fmt == "md":
        assert {p.name for p in out.iterdir()} == {"report.md", "transfers.png"}
        text = (out / "report.md").read_text()
        assert "![transfers](transfers.png)" in text
    else:
        text = out.read_text()
    if fmt == "csv":
        assert text.splitlines()[0].startswith("workload,name") and "H2D pinned" in text
        return
    for words in ("summary: GB/s at", "goal: pinned copies at least 95%", "host-device transfers", "% torch",
                  "bytes that cross once"):
        assert words in text
    assert "bytes read + bytes written" not in text.split("bytes that cross once")[0]  # the transfers' GB/s note
    assert fmt == "md" or "data:image/png;base64," in text


@pytest.mark.parametrize("fmt", ["md", "html", "csv"])
def test_report_renders_streams_documents(fmt, tmp_path):
    out = tmp_path / f"s.{fmt}"
    res = invoke("report", str(FIX / "streams.json"), "--format", fmt, "--out", str(out))
    assert res.exit_code == 0, res.output
    if fmt == "md":
        names = {p.name for p in out.iterdir()}
        assert {"report.md", "gantt-null-stream.png", "gantt-pipeline.png", "pipeline.png"} <= names
        text = (out / "report.md").read_text()
        assert "![pipeline](pipeline.png)" in text and "claim holds" in text
    elif fmt == "html":
        text = out.read_text()
        assert text.count("data:image/png;base64,") == 9 and "claim holds" in text and "over ideal" in text
    else:
        rows = out.read_text().splitlines()
        assert rows[0] == "scenario,case,op,lane,kind,group,start_us,end_us,clock,sms"
        assert any(r.startswith("pipeline,4 streams, pinned") or r.startswith('pipeline,"4 streams, pinned"')
                   for r in rows)


def test_report_refuses_a_broken_streams_document(tmp_path):
    import json

    d = json.loads((FIX / "streams.json").read_text())
    d["scenarios"] = {}
    p = tmp_path / "s.json"
    p.write_text(json.dumps(d))
    res = invoke("report", str(p), "--out", str(tmp_path / "o"))
    assert res.exit_code == 1 and "'scenarios' should be a list" in res.output
    assert not (tmp_path / "o").exists()
