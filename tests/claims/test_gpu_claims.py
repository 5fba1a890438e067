"""Every experiment of the ledger on the GPU at quick-check sizes: its kernels give the right
results (checked before anything is timed) and its rule gives a verdict; and `bwlab claims` end to
end on two claims."""
import json

import pytest
from typer.testing import CliRunner

from bwlab.cli import app
from bwlab.workloads.claims import CLAIMS, VERDICTS

MEASURED = [c for c in CLAIMS if c.measured]


@pytest.fixture(scope="module")
def small_run():
    from bwlab.lab import claims as lab

    return lab.measure(MEASURED, reps=2, warmup=1, seed=7, small=True)


@pytest.mark.gpu
@pytest.mark.parametrize("cid", [c.id for c in MEASURED])
def test_experiment_checks_its_kernels_and_decides(small_run, cid):
    entry = next(e for e in small_run.config["claims"] if e["id"] == cid)
    assert not entry["wrong"], entry["verdict"]
    assert entry["status"] in VERDICTS, entry["verdict"]
    assert entry["numbers"] and all(v is not None for v in entry["numbers"].values())
    mine = [r for r in small_run.records if r.params.get("claim") == cid]
    assert all(r.correct for r in mine)


@pytest.mark.gpu
def test_every_timed_record_is_checked(small_run):
    assert small_run.complete and small_run.records
    for r in small_run.records:
        assert r.correct and r.check


@pytest.mark.gpu
def test_cli_writes_the_ledger(tmp_path):
    out = tmp_path / "ledger"
    res = CliRunner().invoke(app, ["claims", "--only", "rsqrtf,divergent-syncthreads", "--reps", "3",
                                   "--out", str(out)], terminal_width=200)
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "claims.json").read_text())
    assert [e["id"] for e in doc["config"]["claims"]] == ["rsqrtf", "divergent-syncthreads"]
    assert (out / "table.txt").is_file() and (out / "report.md").is_file()
    res = CliRunner().invoke(app, ["claims", "--only", "rsqrtf", "--out", str(out)])
    assert res.exit_code == 1 and "--force" in res.output   # nothing replaced without --force
