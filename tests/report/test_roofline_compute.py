"""The roofline's compute side (no GPU): the diagnosis for FLOP-bound kernels, the three worked
cases of the classic bottleneck analysis, matmul points with DRAM-byte intensities beside the
ideal ones, and one chart for several workloads."""
import pytest

from bwlab.core.results import Record, Run, load
from bwlab.report import roofline
from helpers import H200


def test_at_the_fp32_roof_is_compute_bound_whatever_the_traffic():
    # a matmul: little useful bandwidth, tiles re-read (useful / DRAM bytes low), loads broadcast
    v = roofline.diagnose(pct_bw=3, pct_flops=88, dram_pct=20, useful_ratio=0.1, ld_eff=12.5, st_eff=100)
    assert v.bound == "compute" and "88%" in v.text


def test_a_flop_heavy_kernel_far_from_both_roofs_gets_compute_advice():
    v = roofline.diagnose(pct_bw=2, pct_flops=30)
    assert v.bound == "latency" and "register blocking" in v.text
    assert "bytes in flight" in roofline.diagnose(pct_bw=30, pct_flops=0).text  # memory kernels: as before


# The three worked cases: an algorithm moving x GB and doing y GFLOP, measured against the peaks.
def test_case_1_bandwidth_is_the_bottleneck_but_latency_is_not_hidden():
    # 50% of peak bandwidth, 10% of peak FLOP/s: bandwidth bounds it, yet far from 100%
    v = roofline.diagnose(pct_bw=50, pct_flops=10, dram_pct=50, useful_ratio=1.0, ld_eff=100, st_eff=100)
    assert v.bound == "latency"
    assert "bandwidth is the nearer roof" in v.text and "latency is not hidden" in v.text


def test_case_2_more_floating_point_work_than_the_algorithm_needs():
    # 25% of bandwidth, 50% of FLOP/s: far more compute per byte than the algorithm's ratio
    v = roofline.diagnose(pct_bw=25, pct_flops=50, flop_ratio=4.0)
    assert v.bound == "wasted compute" and "4.0x the FLOPs" in v.text and "compute less" in v.text
    # the same rates with only the algorithm's FLOPs executed: a compute-side latency problem
    assert roofline.diagnose(pct_bw=25, pct_flops=50, flop_ratio=1.0).bound == "latency"


def test_case_3_bytes_fetched_several_times_or_uncoalesced():
    # the profiler sees DRAM 80% busy while FLOP/s are at 10%: most bytes are not the algorithm's
    v = roofline.diagnose(pct_bw=20, pct_flops=10, dram_pct=80, useful_ratio=0.25)
    assert v.bound == "wasted traffic" and "25% of the bytes" in v.text
    v = roofline.diagnose(pct_bw=20, pct_flops=10, dram_pct=80, ld_eff=12.5, st_eff=100)
    assert v.bound == "wasted traffic" and "uncoalesced loads" in v.text


def test_right_of_the_ridge_the_memory_rules_do_not_apply():
    # a naive matmul's loads use 1/8 of each sector, but DRAM is not what holds it back
    v = roofline.diagnose(pct_bw=2, pct_flops=9, dram_pct=10, useful_ratio=0.05, ld_eff=12.5, st_eff=100,
                          intensity=90, ridge=14)
    assert v.bound == "latency" and "right of the ridge" in v.text
    v = roofline.diagnose(pct_bw=2, pct_flops=30, intensity=600, ridge=14, conflicts_per_fma=0.5)
    assert v.bound == "shared memory" and "0.50 per warp FMA" in v.text


def _matmul_run() -> Run:
    n = 4096
    flops, useful = 2 * n**3, 4 * 3 * n * n

    def rec(name, tflops, dram=None, conflicts=0.0, ffma=None):
        ms = flops / (tflops * 1e12) * 1e3
        cnt = None
        if dram is not None:
            cnt = {"dram_read_bytes": dram * 0.9, "dram_write_bytes": dram * 0.1, "dram_pct": 10.0,
                   "ffma": ffma if ffma is not None else n**3, "smem_ld_conflicts": conflicts, "smem_st_conflicts": 0.0,
                   "ld_efficiency_pct": 50.0, "st_efficiency_pct": 100.0}
        return Record(name, "kernel", "f", "matmul", [n] * 3, "float32", useful, workload="matmul", flops=flops,
                      timing={"median_ms": ms, "mean_ms": ms, "std_ms": 0.0, "min_ms": ms, "reps": 10},
                      gbs=useful / ms / 1e6, gflops=tflops * 1e3, correct=True, counters=cnt)

    records = [rec("naive", 5.4, dram=2.5e9), rec("regBlock", 20.0, dram=4e8, conflicts=n**3 / 32),
               rec("tuned", 48.7, dram=3.5e8), rec("recompute", 30.0, dram=3e8, ffma=3 * n**3),
               rec("torch", 51.2)]
    records[-1].kind = "peer"
    return Run(device={"name": "NVIDIA H200", "peak_bandwidth_gbs": 4814.3, "peak_fp32_gflops": 66908.16},
               environment={}, config={"procedure": "ladder", "workload": "matmul", "shape": [n] * 3,
                                       "dtype": "float32"}, records=records,
               ceilings={"memcpy_gbs": 4253.0, "fp32_gflops": 59600.0, "peak_gbs": 4814.3})


def test_matmul_points_use_dram_bytes_beside_the_ideal():
    pts = {p.name: p for p in roofline.analyze(_matmul_run())}
    n = 4096
    assert pts["tuned"].ideal_intensity == pytest.approx(2 * n**3 / (12 * n * n))  # 683 FLOP/B
    assert pts["tuned"].intensity == pytest.approx(2 * n**3 / 3.5e8)               # from the counters
    assert pts["torch"].intensity == pts["torch"].ideal_intensity                   # no counters: the ideal
    assert pts["tuned"].verdict.bound == "compute" and pts["torch"].verdict.bound == "compute"
    assert pts["naive"].verdict.bound == "latency" and "right of the ridge" in pts["naive"].verdict.text
    assert pts["regBlock"].verdict.bound == "shared memory"
    assert pts["recompute"].verdict.bound == "wasted compute" and pts["recompute"].flop_ratio == pytest.approx(3.0)


def test_copy_ceilings_do_no_flops_and_tf32_is_not_judged_by_the_fp32_roof():
    from bwlab.report.tables import roofline_table

    run = _matmul_run()
    copy = run.records[0].__class__(**{**run.records[-1].__dict__, "name": "cudaMemcpy", "role": "ceiling",
                                       "counters": None})
    tf32 = run.records[0].__class__(**{**run.records[-1].__dict__, "name": "torch-tf32", "gflops": 398e3,
                                       "timing": {**run.records[-1].timing,
                                                  "median_ms": run.records[-1].median_ms * 51.2 / 398}})
    run.records += [copy, tf32]  # a run saved with the case's FLOPs on its copy ceiling
    pts = {p.name: p for p in roofline.analyze(run)}
    cp, tf = pts["cudaMemcpy"], pts["torch-tf32"]
    assert cp.flops == 0 and cp.gflops == 0 and cp.verdict.bound != "compute"
    assert tf.verdict.bound == "other precision" and "above the FP32 peak" in tf.verdict.text
    slow = run.records[0].__class__(**{**run.records[-1].__dict__, "name": "tf32-small", "precision": "tf32"})
    run.records.append(slow)  # below the FP32 peak, but said to compute in TF32
    v = {p.name: p for p in roofline.analyze(run)}["tf32-small"].verdict
    assert v.bound == "other precision" and "computes in tf32" in v.text
    row = next(r for r in roofline_table(list(pts.values())).rows if r[0] == "cudaMemcpy")
    assert row[4:10] == ["-"] * 6


def test_one_roofline_for_matmul_and_transpose(tmp_path):
    runs = [_matmul_run(), load(H200 / "transpose" / "run.json")]
    ceil, pts = roofline.combine(runs)
    # each measured roof is the highest either run measured
    assert ceil["flops_measured"] == max(59600.0, runs[1].ceilings["fp32_gflops"])
    assert ceil["bw_measured"] == max(4253.0, runs[1].ceilings["memcpy_gbs"])
    small = _matmul_run()
    small.ceilings["memcpy_gbs"] = 2990.0  # a small case's copy: not the ceiling
    assert roofline.combine([small, runs[1]])[0]["bw_measured"] == runs[1].ceilings["memcpy_gbs"]
    names = {p.name for p in pts}
    assert "matmul: tuned" in names and "transpose: tileVec" in names
    png = roofline.plot(runs, tmp_path / "both.png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 40_000
    other = _matmul_run()
    other.device["name"] = "NVIDIA H100"
    with pytest.raises(ValueError, match="different GPUs"):
        roofline.combine([other, runs[1]])


def test_cli_draws_several_runs_on_one_chart(tmp_path):
    from typer.testing import CliRunner

    from bwlab.cli import app
    from bwlab.core.results import save

    mm = tmp_path / "matmul.json"
    save(_matmul_run(), mm)
    res = CliRunner().invoke(app, ["roofline", str(mm), str(H200 / "transpose" / "run.json"), "--png",
                                   str(tmp_path / "both.png")], terminal_width=100)
    assert res.exit_code == 0, res.output
    assert (tmp_path / "both.png").stat().st_size > 40_000 and "matmul: tuned" in res.output
    assert "I ideal" in res.output
    other = _matmul_run()
    other.device["name"] = "NVIDIA H100"
    save(other, tmp_path / "h100.json")
    res = CliRunner().invoke(app, ["roofline", str(tmp_path / "h100.json"), str(H200 / "transpose" / "run.json"),
                                   "--png", str(tmp_path / "x.png")])
    assert res.exit_code == 1 and "different GPUs" in res.output and not (tmp_path / "x.png").exists()
