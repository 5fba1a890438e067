"""ncu CSV parsing (real H200 output), the diagnosis rules, the roofline (no GPU)."""
from pathlib import Path

import pytest

from bwlab import profile, results, roofline

FIXTURE = Path(__file__).parent / "fixtures" / "ncu_h200_raw.csv"
RUN = Path(__file__).parents[1] / "benchmarks" / "h200" / "run.json"
NAMES = ["naiveRow", "naiveCol", "naiveColL2", "naiveColUnroll4", "smem", "smemPad", "smemPad2", "tile32",
         "tile32Pad", "tile32Swizzle", "tile64Pad", "tileVec", "copyRow", "copyVec"]


def test_parser_reads_the_recorded_h200_csv():
    rows = profile.parse_csv(FIXTURE.read_text())
    assert len(rows) == len(NAMES)
    got = {c.name: c.values for c in profile.counters_from_rows(rows, NAMES)}
    # The lessons, as this GPU's counters tell them:
    assert got["naiveRow"]["st_sectors_per_req"] == 32 and got["naiveRow"]["ld_sectors_per_req"] == 4
    assert got["naiveCol"]["ld_efficiency_pct"] == pytest.approx(12.5) and got["naiveCol"]["st_efficiency_pct"] == 100
    assert got["tile32"]["smem_ld_conflicts"] > 100 * got["tile32Pad"]["smem_ld_conflicts"]
    assert got["tileVec"]["ld_sectors_per_req"] == 16  # 16-byte accesses: 4 sectors per quarter-warp
    assert got["tileVec"]["dram_pct"] > 75 and got["naiveRow"]["dram_pct"] < 20
    assert all(set(profile.METRICS) <= set(v) for v in got.values())


def test_parser_tolerates_the_childs_output_and_finds_nothing_in_junk():
    text = "hello from the child\n==PROF== Connected\n" + FIXTURE.read_text()
    assert len(profile.parse_csv(text)) == len(NAMES)
    assert profile.parse_csv("==ERROR== ERR_NVGPUCTRPERM: no permission\n") == []
    with pytest.raises(profile.ProfileError, match="profiled 14 launches for 2 kernels"):
        profile.counters_from_rows(profile.parse_csv(FIXTURE.read_text()), ["a", "b"])


def test_missing_ncu_is_one_clear_error(monkeypatch):
    monkeypatch.setattr(profile, "ncu_path", lambda: None)
    with pytest.raises(profile.ProfileError, match="not on the PATH"):
        profile.profile(["naiveRow"])


def test_ncu_command_keeps_the_clocks_alone():
    cmd = profile.command(["tileVec"], (8192, 8192), "float32")
    assert cmd[cmd.index("--clock-control") + 1] == "none" and "--csv" in cmd and "raw" in cmd
    assert cmd[cmd.index("--profile-from-start") + 1] == "off"


@pytest.mark.parametrize("args, bound", [
    (dict(pct_bw=93, pct_flops=0), "memory"),
    (dict(pct_bw=10, pct_flops=90), "compute"),
    (dict(pct_bw=30, pct_flops=5), "latency"),
    (dict(pct_bw=70, pct_flops=70), "mixed"),
    (dict(pct_bw=36, pct_flops=0, ld_eff=12.5, st_eff=100), "wasted traffic"),
    (dict(pct_bw=50, pct_flops=0, dram_pct=90, useful_ratio=0.5), "wasted traffic"),
    (dict(pct_bw=41, pct_flops=0, ld_eff=100, st_eff=100, conflicts_per_kb=126), "shared memory"),
    (dict(pct_bw=45, pct_flops=0, ld_eff=100, st_eff=100, conflicts_per_kb=1), "latency"),
])
def test_diagnosis_rules(args, bound):
    assert roofline.diagnose(**args).bound == bound


def test_roofline_of_the_recorded_ladder(tmp_path):
    run = results.load(RUN)
    pts = {p.name: p for p in roofline.analyze(run)}
    assert pts["tileVec"].verdict.bound == "memory"
    assert pts["naiveRow"].verdict.bound == "wasted traffic"  # its stores use 4 of 32 bytes per sector
    assert pts["tile32"].verdict.bound == "shared memory"
    assert all(p.flops == 0 for p in pts.values())
    png = tmp_path / "roofline.png"
    roofline.plot(run, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
