"""The procedures' logic that needs no GPU."""
import pytest

from bwlab.core.errors import UserError
from bwlab.core.results import load
from bwlab.core.workload import Case
from bwlab.lab import ladder, profiling, sweep
from bwlab.workloads import get
from helpers import H200

W = get("transpose")


def test_select_names_every_unknown_name():
    assert [k.name for k in ladder.select(W.kernels(), ["tileVec", "smem"], "kernel")] == ["tileVec", "smem"]
    assert len(ladder.select(W.kernels(), None, "kernel")) == len(W.kernels())
    with pytest.raises(ValueError, match="unknown kernel 'nope', 'zz'"):
        ladder.select(W.kernels(), ["nope", "tileVec", "zz"], "kernel")


def test_parse_sizes():
    assert sweep.parse_sizes("256..2048") == [256, 512, 1024, 2048]
    assert sweep.parse_sizes("1000,3000") == [1000, 3000]
    for bad in ("abc", "2048..256", "0..4", "", ",", "-5"):
        with pytest.raises(ValueError, match="sizes must be"):
            sweep.parse_sizes(bad)


def test_block_choice_kernels_leave_out_fixed_blocks():
    names = sweep.block_choice_kernels(W)
    assert "naiveCol" in names and "smem" in names and "tileVec" not in names


def test_thin_block_answer_is_in_the_recorded_sweep():
    best = sweep.best_blocks(load(H200 / "transpose" / "sweep" / "blocks.json"))
    block, gbs, gain = best["naiveCol"]
    assert block == [8, 32] and gbs > 2000 and gain > 1.5


def test_ncu_command_keeps_the_clocks_alone():
    cmd = profiling.command(W, ["tileVec"], Case((8192, 8192), "float32"))
    assert cmd[cmd.index("--clock-control") + 1] == "none" and "--csv" in cmd and "raw" in cmd
    assert cmd[cmd.index("--profile-from-start") + 1] == "off"
    assert cmd[cmd.index("--workload") + 1] == "transpose" and "bwlab.lab.ncu_target" in cmd


def test_missing_ncu_is_one_clear_error(monkeypatch):
    monkeypatch.setattr(profiling, "ncu_path", lambda: None)
    with pytest.raises(UserError, match="not on the PATH"):
        profiling.run_ncu(W, ["naiveRow"], W.default_case())
