"""ncu CSV parsing (real H200 output), the diagnosis rules and the roofline (no GPU)."""
import pytest

from bwlab.core.errors import UserError
from bwlab.core.results import load
from bwlab.lab.profiling import METRICS
from bwlab.report import ncu, roofline
from helpers import FIXTURES, H200

NAMES = ["naiveRow", "naiveCol", "naiveColL2", "naiveColUnroll4", "smem", "smemPad", "smemPad2", "tile32",
         "tile32Pad", "tile32Swizzle", "tile64Pad", "tileVec", "copyRow", "copyVec"]
CSV = (FIXTURES / "ncu_h200_raw.csv").read_text()


def test_parser_reads_the_recorded_h200_csv():
    got = {c.name: c.values for c in ncu.counters(CSV, NAMES)}
    # The lessons, as this GPU's counters tell them:
    assert got["naiveRow"]["st_sectors_per_req"] == 32 and got["naiveRow"]["ld_sectors_per_req"] == 4
    assert got["naiveCol"]["ld_efficiency_pct"] == pytest.approx(12.5) and got["naiveCol"]["st_efficiency_pct"] == 100
    assert got["tile32"]["smem_ld_conflicts"] > 100 * got["tile32Pad"]["smem_ld_conflicts"]
    assert got["tileVec"]["ld_sectors_per_req"] == 16  # 16-byte accesses: 4 sectors per quarter-warp
    assert got["tileVec"]["dram_pct"] > 75 and got["naiveRow"]["dram_pct"] < 20
    assert all(set(METRICS) <= set(v) for v in got.values())


def test_parser_tolerates_the_childs_output_and_finds_nothing_in_junk():
    assert len(ncu.parse_csv("hello from the child\n==PROF== Connected\n" + CSV)) == len(NAMES)
    assert ncu.parse_csv("==ERROR== ERR_NVGPUCTRPERM: no permission\n") == []
    with pytest.raises(UserError, match="profiled 14 launches for 2 kernels"):
        ncu.counters(CSV, ["a", "b"])


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
    run = load(H200 / "transpose" / "run.json")
    pts = {p.name: p for p in roofline.analyze(run)}
    assert pts["tileVec"].verdict.bound == "memory"
    assert pts["naiveRow"].verdict.bound == "wasted traffic"  # its stores use 4 of 32 bytes per sector
    assert pts["tile32"].verdict.bound == "shared memory"
    assert all(p.flops == 0 for p in pts.values())
    png = roofline.plot(run, tmp_path / "roofline.png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000 and (tmp_path / "roofline.png").read_bytes() == png
