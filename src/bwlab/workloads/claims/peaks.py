"""Claims about the peak formulas: theoretical DRAM bandwidth from the memory clock and bus
width, theoretical FP32 rate from the SM clock, SM count and lanes, each against what the GPU
measurably reaches (copies for bandwidth, an FMA-only kernel for FLOP/s)."""
from __future__ import annotations

import numpy as np

from ...core.ceilings import PEAK_SOURCE
from ...core.device import lanes_per_sm
from .claim import DEPENDS, FAILS, HOLDS, Bars, Claim, Kernels, Verdict, gbs, pct
from .transpose import _ceilings, ceiling_gbs

TOPIC = "notes on peak bandwidth and peak FLOP/s"
COPIES = ("cudaMemcpy", "copyVec", "copyVecUnroll4")


def measure_bandwidth(ctx) -> dict:
    d = ctx.dev
    out = {"mem_clock_mhz": d.mem_clock_khz / 1e3, "bus_width_bits": d.bus_width_bits,
           "peak_gbs": d.peak_bandwidth_gbs}
    for name in COPIES:
        out[f"{name}_gbs"] = ceiling_gbs(ctx, name)
    return out


def decide_bandwidth(n: dict) -> Verdict:
    best = max(COPIES, key=lambda k: n[f"{k}_gbs"])
    r = n[f"{best}_gbs"] / n["peak_gbs"]
    text = (f"{n['mem_clock_mhz']:.0f} MHz x 2 transfers per clock x {n['bus_width_bits']} bits / 8 = "
            f"{gbs(n['peak_gbs'])}; the best copy ({best}) moves {gbs(n[f'{best}_gbs'])}, {pct(r)} of it "
            f"(cudaMemcpy {gbs(n['cudaMemcpy_gbs'])}).")
    if r > 1.0:
        return Verdict(FAILS, text + " A copy beats the formula: the clock or the transfers per clock are wrong.")
    if r >= 0.8:
        return Verdict(HOLDS, text + " The formula is a true upper bound, and copies come close to it.")
    return Verdict(DEPENDS, text + " An upper bound, but far from what copies reach.",
                   "how much of the theoretical rate the memory system delivers")


def measure_flops(ctx) -> dict:
    import cupy

    d = ctx.dev
    fn = ctx.function(PEAK_SOURCE, "fmaPeak")
    nblocks, threads = (8, 256) if ctx.small else (d.sm_count * 8, 256)
    iters, b, c = (64 if ctx.small else 4096), 0.999, 1e-3
    res = cupy.empty(nblocks * threads, cupy.float32)

    def run():
        fn((nblocks,), (threads,), (res, np.int32(iters), np.float32(b), np.float32(c)))
    run()
    a0 = (np.arange(threads) * np.float32(1e-3))[:, None] + np.arange(8)[None, :]
    bn = np.float64(np.float32(b)) ** iters
    cf = np.float64(np.float32(c))
    want = (bn * a0 + cf * (1 - bn) / (1 - np.float64(np.float32(b)))).sum(axis=1)
    got = res.get().reshape(nblocks, threads).astype(np.float64)
    ok = np.abs(got - want[None, :]) <= 1e-3 * np.abs(want[None, :])
    ctx.require("fmaPeak against the closed form", bool(ok.all()), f"{int((~ok).sum())} threads off by more than 0.1%")
    rec = ctx.time("fmaPeak", run, family=PEAK_SOURCE.stem, shape=(nblocks * threads,), dtype="float32",
                   block=(threads, 1), grid=(nblocks, 1))
    measured = nblocks * threads * iters * 8 * 2 / (rec.median_ms * 1e-3) / 1e9
    return {"sm_count": d.sm_count, "sm_clock_mhz": d.sm_clock_khz / 1e3, "fp32_lanes_per_sm": lanes_per_sm(d.cc)[0],
            "peak_gflops": d.peak_gflops("fp32"), "fmaPeak_gflops": measured}


def decide_flops(n: dict) -> Verdict:
    r = n["fmaPeak_gflops"] / n["peak_gflops"]
    text = (f"{n['sm_clock_mhz']:.0f} MHz x {n['sm_count']} SMs x {n['fp32_lanes_per_sm']} FP32 lanes x 2 = "
            f"{n['peak_gflops']:.0f} GFLOP/s; a kernel doing nothing but independent FMAs reaches "
            f"{n['fmaPeak_gflops']:.0f} ({pct(r)}).")
    if r > 1.01:
        return Verdict(FAILS, text + " The kernel beats the formula: the clock or the lane count is wrong.")
    if r >= 0.85:
        return Verdict(HOLDS, text)
    return Verdict(DEPENDS, text + " The formula assumes the maximum SM clock for the whole run.",
                   "the SM clock the GPU sustains under full FMA load")


CLAIMS = (
    Claim("peak-bandwidth", "peaks", TOPIC,
          "The theoretical memory bandwidth is the memory clock times the transfers per clock times the bus width "
          "over 8, and no kernel moves more.",
          "The formula on the device's attributes (memory clock, bus width; 2 transfers per clock), against "
          "cudaMemcpy and the 16-byte copy kernels moving 256 MiB each way (read + write bytes over the median "
          "time).",
          measure_bandwidth, decide_bandwidth, kernels=_ceilings(),
          charts=(Bars("theoretical against measured bandwidth", "GB/s",
                       (("theoretical", "peak_gbs"),) + tuple((k, f"{k}_gbs") for k in COPIES)),)),
    Claim("peak-flops", "peaks", TOPIC,
          "The theoretical FP32 rate is the SM clock times the number of SMs times the FP32 lanes per SM times 2 "
          "(a fused multiply-add counts as two operations).",
          "The formula on the device's attributes (maximum SM clock, SM count, 128 FP32 lanes per SM on this "
          "architecture), against a kernel running eight independent FMA chains per thread on every SM "
          "(checked against the closed form of the chains).",
          measure_flops, decide_flops, kernels=(Kernels(PEAK_SOURCE, ("fmaPeak",)),)),
)
