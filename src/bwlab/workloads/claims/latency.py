"""The latency-hiding claim (Little's law): saturating DRAM takes about latency x bandwidth
bytes in flight, supplied by resident warps (occupancy) or by independent loads per thread
(instruction-level parallelism). A read-only sweep over both, against the DRAM latency the
memory-levels experiment measures by pointer chasing. Every sweep point's sum of all words is
checked against CuPy's before it is timed."""
from __future__ import annotations

import numpy as np

from .claim import DEPENDS, FAILS, HOLDS, Bars, Claim, Kernels, Verdict, cu, gbs, trend, x
from .memory import CHASE, _u32, latencies

TOPIC = "notes on hiding memory latency and on DRAM banks"
INFLIGHT = cu("inflight")
THREADS = 128
WARPS = (4, 8, 16, 32, 64)   # resident warps per SM (blocks of 128 threads: 1 to 16 per SM)
LOADS = (1, 2, 4)            # independent 16-byte loads per thread (the kernel says why not 8)
NEAR = 0.9                   # "saturated": at least 90% of the best bandwidth of the sweep
LITTLE_BAND = (0.5, 4.0)     # the knee within this factor of the estimate from unloaded latency


def per_sm_bytes(warps: int, loads: int) -> int:
    return warps * 32 * loads * 16


def measure(ctx) -> dict:
    import cupy

    lat = latencies(ctx)["DRAM_cycles"]
    sms = 2 if ctx.small else ctx.dev.sm_count
    n = (1 << 20) if ctx.small else (64 << 20)  # 16-byte vectors: 1 GiB, far above L2
    data = _u32(ctx, 4 * n)
    want = int(data.sum(dtype=cupy.uint64)) & 0xFFFFFFFF
    out = {}
    for k in LOADS:
        fn = ctx.function(INFLIGHT, f"readInFlight<{k}>")
        for w in WARPS:
            blocks = sms * (w * 32 // THREADS)
            res = cupy.empty(blocks * THREADS, cupy.uint32)

            def run(fn=fn, blocks=blocks, res=res):
                fn((blocks,), (THREADS,), (data, res, np.int64(n)))  # read as n 16-byte vectors
            run()
            got = int(res.sum(dtype=cupy.uint64)) & 0xFFFFFFFF
            ctx.require(f"readInFlight<{k}>, {w} warps per SM: sum of all words", got == want,
                        f"{got:#x} against {want:#x}")
            rec = ctx.time(f"{k} loads a thread, {w} warps per SM", run, family=INFLIGHT.stem, bytes=16 * n,
                           shape=(4 * n,), dtype="uint32", block=(THREADS, 1), grid=(blocks, 1), flush=False)
            out[f"w{w}_k{k}_gbs"] = rec.gbs
    out["DRAM_latency_cycles"] = lat
    out["sm_clock_mhz"] = ctx.dev.sm_clock_khz / 1e3
    out["sm_count"] = ctx.dev.sm_count
    return out


def decide(n: dict) -> Verdict:
    bw = {(w, k): n[f"w{w}_k{k}_gbs"] for w in WARPS for k in LOADS}
    best = max(bw.values())
    knee_at = min((cfg for cfg, v in bw.items() if v >= NEAR * best), key=lambda c: (per_sm_bytes(*c), c))
    knee = per_sm_bytes(*knee_at)
    ns = n["DRAM_latency_cycles"] / n["sm_clock_mhz"] * 1e3
    little = ns * 1e-9 * best * 1e9 / n["sm_count"]  # bytes in flight per SM the law asks for
    ilp = bw[WARPS[0], LOADS[-1]] / bw[WARPS[0], 1]
    occ = bw[WARPS[-1], 1] / bw[WARPS[0], 1]
    r = knee / little
    text = (f"DRAM latency {n['DRAM_latency_cycles']:.0f} SM cycles ({ns:.0f} ns at {n['sm_clock_mhz']:.0f} MHz) x "
            f"the best bandwidth {gbs(best)} = {little / 1024:.1f} KiB in flight per SM by Little's law. Measured: "
            f"{NEAR:.0%} of the best from {knee / 1024:.0f} KiB per SM ({knee_at[0]} warps x {knee_at[1]} loads of "
            f"16 bytes a thread), {x(r)} the estimate. From 4 warps per SM with one load each "
            f"({gbs(bw[WARPS[0], 1])}), {LOADS[-1]} loads a thread give {x(ilp)}, {WARPS[-1]} warps {x(occ)}.")
    if trend(ilp) <= 0 or trend(occ) <= 0:
        return Verdict(FAILS, text + " More bytes in flight did not raise the bandwidth.")
    if LITTLE_BAND[0] <= r <= LITTLE_BAND[1]:
        why = (" the knee sits above the estimate because latency under load exceeds the idle latency a pointer "
               "chase measures." if r > 1 else " the knee sits at or below the estimate.")
        return Verdict(HOLDS, text + " Either lever supplies the bytes;" + why)
    return Verdict(DEPENDS, text + " Bytes in flight raise the bandwidth, but the knee is far from the estimate.",
                   "the latency under load, which the idle latency does not predict")


CLAIMS = (
    Claim("latency-hiding", "memory", TOPIC,
          "Saturating DRAM needs about latency x bandwidth bytes in flight (Little's law), which occupancy or "
          "independent loads per thread must supply.",
          "Reads of 1 GiB (16-byte vectors, grid-stride, a word sum per thread checked against the whole buffer's) "
          "with 4 to 64 resident warps per SM and 1 to 4 independent loads per thread in flight; GB/s = bytes read "
          "over the median time; the DRAM latency from a pointer chase (SM cycles by clock64) at the maximum SM "
          "clock.",
          measure, decide,
          kernels=(Kernels(INFLIGHT, tuple(f"readInFlight<{k}>" for k in LOADS)),
                   Kernels(CHASE, ("chaseGlobal<false>", "chaseGlobal<true>", "chaseShared", "chaseConstant",
                                   "chainRegister", "chaseLocal"), local_memory=("chaseLocal",))),
          charts=(Bars("one load a thread, by resident warps per SM", "GB/s",
                       tuple((f"{w} warps", f"w{w}_k1_gbs") for w in WARPS)),
                  Bars("4 warps per SM, by independent loads a thread", "GB/s",
                       tuple((f"{k} loads", f"w4_k{k}_gbs") for k in LOADS)))),
)
