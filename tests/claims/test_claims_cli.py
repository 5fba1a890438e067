"""`bwlab claims` at the door: help, the listing without a GPU, wrong values refused before any
work (exit 2, one line), and no GPU said in one line (exit 1)."""
import pytest
from typer.testing import CliRunner

from bwlab.cli import app
from bwlab.core.device import cuda_available
from bwlab.workloads.claims import CLAIMS

no_gpu = pytest.mark.skipif(cuda_available()[0], reason="behaviour without a GPU")


def invoke(*args):
    return CliRunner().invoke(app, list(args), terminal_width=200)


def test_help_names_the_options():
    res = invoke("claims", "--help")
    assert res.exit_code == 0
    for opt in ("--only", "--list", "--out", "--reps", "--force"):
        assert opt in res.output


def test_list_needs_no_gpu_and_names_every_claim():
    res = invoke("claims", "--list")
    assert res.exit_code == 0, res.output
    for c in CLAIMS:
        assert c.id in res.output
    assert "not measured yet" in res.output and "seed" not in res.output.lower()
    flat = " ".join(res.output.split())
    for c in CLAIMS:  # an unmeasured claim says why
        if not c.measured:
            assert f"not measured yet because {' '.join(c.why_not.split())[:40]}" in flat


def test_list_of_a_subset():
    res = invoke("claims", "--list", "--only", "rsqrtf,padding")
    assert res.exit_code == 0
    assert "rsqrtf" in res.output and "padding" in res.output and "thin-blocks" not in res.output


@pytest.mark.parametrize("args, words", [
    (["--only", "nope"], "--only: unknown claim nope"),
    (["--only", "padding,nope,zip"], "unknown claims nope, zip"),
    (["--reps", "0"], "--reps"),
    (["--warmup", "-1"], "--warmup"),
])
def test_wrong_values_are_refused_in_one_line(args, words, tmp_path):
    res = invoke("claims", *args, "--out", str(tmp_path / "o"))
    assert res.exit_code == 2, res.output
    assert words in res.output
    assert not (tmp_path / "o").exists()


@no_gpu
def test_without_a_gpu_one_line_and_nothing_written(tmp_path):
    res = invoke("claims", "--out", str(tmp_path / "o"))
    assert res.exit_code == 1
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "needs an NVIDIA GPU" in lines[0]
    assert not (tmp_path / "o").exists()


def test_compare_two_ledgers_needs_no_gpu(tmp_path, monkeypatch):
    from helpers import H100, H200

    monkeypatch.chdir(tmp_path)  # where a default results folder would go
    a, b = str(H200 / "claims" / "claims.json"), str(H100 / "claims" / "claims.json")
    res = invoke("claims", "--compare", a, "--compare", b)
    assert res.exit_code == 0, res.output
    assert "NVIDIA H200" in res.output and "NVIDIA H100" in res.output
    row = next(line for line in res.output.splitlines() if line.startswith("larger-tiles"))
    text = " ".join(res.output.split())
    assert "NO" in row.split() and "they differ on" in text  # the two GPUs' committed verdicts on tile sizes
    assert "larger-tiles" in text[text.index("they differ on"):]
    res = invoke("claims", "--only", "padding", "--compare", a, "--compare", a)
    assert res.exit_code == 0 and "larger-tiles" not in res.output and "(" + a + ")" in res.output
    assert [p.name for p in tmp_path.iterdir()] == []  # nothing written


@pytest.mark.parametrize("files, words, code", [
    (["one"], "give two ledgers or more", 2),  # a usage error, as the parser's own
    (["one", "README.md"], "is not JSON", 1),  # a file it cannot use: 1, as report, roofline, --render
    (["one", "benchmarks/h200/matmul/run/run.json"], "not a claims ledger", 1),
    (["one", "no/such/file.json"], "cannot read", 1),
])
def test_compare_refuses_in_one_line(files, words, code):
    from helpers import H200, ROOT

    args = []
    for f in files:
        args += ["--compare", str(H200 / "claims" / "claims.json") if f == "one" else str(ROOT / f)]
    res = invoke("claims", *args)
    assert res.exit_code == code and words in res.output and "Traceback" not in res.output, res.output
