"""The main job end to end on the GPU, as a user runs it, counters included where ncu works."""
import pytest
from typer.testing import CliRunner

from bwlab.cli import app
from bwlab.core.results import load
from bwlab.lab.profiling import ncu_path

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("profile", [False, pytest.param(True, marks=pytest.mark.skipif(
    ncu_path() is None, reason="no Nsight Compute (ncu) here"))])
def test_run_writes_its_folder(tmp_path, profile):
    args = ["run", "transpose", "--shape", "1000x777", "--kernels", "naiveRow,tileVec", "--peers", "bwlab,torch",
            "--reps", "3", "--no-cpu", "--out", str(tmp_path)] + (["--profile"] if profile else [])
    res = CliRunner().invoke(app, args, terminal_width=100)
    assert res.exit_code == 0, res.output
    folder = tmp_path / "transpose"
    run = load(folder / "run.json")
    assert {"run.json", "table.txt", "report.md", "ladder.png", "roofline.png"} <= {p.name for p in folder.iterdir()}
    assert [r.name for r in run.records][-4:] == ["naiveRow", "tileVec", "bwlab", "torch"]
    assert all(r.correct for r in run.records if not r.notes or not r.notes[0].startswith("skipped"))
    if profile:  # the workload's kernels carry counters; the core copy kernels are not profiled
        assert run.record("tileVec").counters and run.record("naiveRow").counters
        assert run.record("copyVec").counters is None and (folder / "ncu_raw.csv").exists()
    again = CliRunner().invoke(app, args)  # the same folder again: refused, nothing replaced
    assert again.exit_code == 1 and "already holds" in again.output
