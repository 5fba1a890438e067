"""The coarsening study's occupancy, tables and heatmap, from a synthetic variants sweep (no GPU)."""
import importlib

import pytest

from bwlab.core.results import Record, Run

W = importlib.import_module("bwlab.workloads.matmul").WORKLOAD
study = importlib.import_module("bwlab.workloads.matmul.study")
H200 = {"name": "NVIDIA H200", "max_threads_per_sm": 2048, "regs_per_sm": 65536, "smem_per_sm": 233472,
        "peak_fp32_gflops": 66908.16, "peak_bandwidth_gbs": 4814.3}


@pytest.mark.parametrize("threads, regs, smem, blocks, pct, limit", [
    (256, 32, 2048, 8, 100, "threads"),        # the taught kernels: the warps are the only cap
    (256, 128, 49920, 2, 25, "registers"),     # 8 x 8 per thread under __launch_bounds__(256, 2)
    (256, 237, 74496, 1, 12.5, "registers"),   # 8 x 16 per thread
    (256, 64, 100 * 1024, 2, 25, "shared memory"),
    (32, 16, 0, 32, 50, "blocks"),             # a tiny block: 32 blocks per SM at most
    (1024, 40, 0, 1, 50, "registers"),         # 40 x 32 = 1280 per warp: 51 warps fit, not 64
])
def test_occupancy(threads, regs, smem, blocks, pct, limit):
    o = study.occupancy(threads, regs, smem, H200)
    assert (o.blocks, o.pct, o.limit) == (blocks, pytest.approx(pct), limit)


def sweep_run():
    recs = []
    for i, spec in enumerate(W.variants()):
        res = {"registers": min(32 + 8 * spec.results // 4, 255), "smem_bytes": 2048, "stack_bytes": 0,
               "spill_stores": 0, "spill_loads": 0, "barriers": 1}
        # TFLOP/s growing with results per thread up to 16, then flat: where coarsening stops paying
        gflops = 1000.0 * (5 + min(spec.results, 16)) + i
        recs.append(Record(spec.name, "kernel", spec.family, "matmul", [4096] * 3, "float32", 1, workload="matmul",
                           flops=2 * 4096**3, gflops=gflops, correct=True, resources=res,
                           block=list(spec.block)))
    recs[0].correct, recs[0].gflops = False, None
    return Run(device=H200, environment={}, config={"procedure": "sweep-variants", "workload": "matmul",
                                                    "shape": [4096] * 3, "dtype": "float32"}, records=recs)


def test_study_table_and_findings():
    run = sweep_run()
    table, stops = W.tables(run)
    assert len(table.rows) == len(W.variants())
    timed = [float(r[4]) for r in table.rows if r[4] != "-"]
    assert timed == sorted(timed, reverse=True)  # fastest first
    assert table.rows[-1][4] == "-"  # the wrong one is not timed
    lines = study.stops_paying(run)
    assert "still paying" in next(line for line in lines if line.startswith("coarse, 16 x 16"))
    big = next(line for line in lines if line.startswith("regBlock, 128x128 tile"))
    assert "stops paying after 16 per thread" in big


def test_heatmap_is_a_png():
    png = W.charts(sweep_run())["heatmap.png"]
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 30_000


def test_dynamic_shared_memory_counts_toward_occupancy():
    run = sweep_run()
    pts = {p.name: p for p in study.points(run)}
    big = pts["sgemm-128x256x16-w64x64-i2x4-s3"]
    assert big.smem == 2048 + W.kernel(big.name).shared and big.threads == 256


def test_stops_paying_compares_counts_not_shapes_and_looks_past_a_dip():
    # regBlock on a 64x64 tile as measured on an H200: three shapes of 4 results per thread
    # (1x4, 4x1, 2x2), then 8x8 = 64 far faster. A rule comparing neighbours in the list would
    # stop at 4 (1x4 -> 4x1 -> 2x2 barely move); the study must say it still pays at 64.
    speeds = {"regBlock-64x64-r1x4": 11.0, "regBlock-64x64-r4x1": 13.8, "regBlock-64x64-r2x2": 14.2,
              "regBlock-64x64-r8x8": 24.8,
              # a dip and a recovery on 32x32: 4 per thread slower than 1, 16 far faster than both
              "regBlock-32x32-r1x1": 10.0, "regBlock-32x32-r2x2": 9.0, "regBlock-32x32-r4x4": 20.8}
    run = sweep_run()
    for r in run.records:
        r.gflops = 1000.0 * speeds[r.name] if r.name in speeds else None
    lines = study.stops_paying(run)
    mid = next(line for line in lines if line.startswith("regBlock, 64x64 tile"))
    assert "best 24.8 TFLOP/s at 64 results per thread; still paying" in mid
    small = next(line for line in lines if line.startswith("regBlock, 32x32 tile"))
    assert "still paying" in small
    for r in run.records:  # 8x8 no faster than the best 4: it stops paying after 4
        if r.name == "regBlock-64x64-r8x8":
            r.gflops = 14.5e3
    mid = next(line for line in study.stops_paying(run) if line.startswith("regBlock, 64x64 tile"))
    assert "stops paying after 4 per thread (14.2 TFLOP/s" in mid
