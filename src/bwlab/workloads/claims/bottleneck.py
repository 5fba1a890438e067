"""The bottleneck diagnosis from peak fractions: a kernel's bandwidth as a fraction of the
theoretical peak and its FLOP/s as a fraction of the FP32 peak say what limits it: bandwidth
(case 1: the bandwidth near its peak, little arithmetic), arithmetic (case 2: the FLOP/s near
their peak) or the way it reaches memory (case 3: both far from their peaks, so latency or
wasted transactions hold it back). Three kernels built to sit in one case each, every result
checked first; the rule checks that the diagnosis puts each in the case it was built for."""
from __future__ import annotations

import numpy as np

from .claim import DEPENDS, FAILS, HOLDS, Bars, Claim, Kernels, Verdict, cu, gbs, pct
from .memory import BLOCK, _u32

TOPIC = "notes on finding the bottleneck from peak fractions"
BOTTLENECK = cu("bottleneck")
HIGH = 0.5    # "near its peak": at least half of it (the notes' bandwidth-bound example runs at 50%)
LOW = 0.25    # "far from its peak": under a quarter of it
CHAINS, ITERS, SMALL_ITERS = 8, 256, 16
STRIDE = 32   # words between the reads of neighbouring threads: a 32-byte sector for every 4-byte word
A, B = 0.75, 0.125   # y = A * x + B in scaleVec and strideRead (exact in float32)
FB, FC = 0.999, 1e-3  # the FMA chains: c <- c * FB + FC
# (numbers key, case it was built for, what it is)
KERNELS = (("scaleVec", 1, "y = a x + b on 16-byte vectors"),
           ("fmaChains", 2, f"{CHAINS} chains of {ITERS} FMAs per element"),
           ("strideRead", 3, f"y = a x + b reading one word in {STRIDE}"))
CASES = {1: "bandwidth-bound", 2: "compute-bound", 3: "latency or poor access"}


def _floats(ctx, n: int):
    """n random float32 in [1, 2), made on the GPU from random bits."""
    import cupy

    u = _u32(ctx, n)
    u >>= 9
    u |= 0x3F800000
    return u.view(cupy.float32)


def _close(got, want, rtol: float):
    import cupy

    bad = ~(cupy.abs(got.astype(cupy.float64) - want) <= rtol * cupy.abs(want))
    return not bool(bad.any()), f"{int(bad.sum())} of {bad.size} off by more than {rtol:g} (relative)"


def measure(ctx) -> dict:
    import cupy

    from ...core.launch import cdiv
    from ...core.verify import poison

    out = {"peak_gbs": ctx.dev.peak_bandwidth_gbs, "peak_gflops": ctx.dev.peak_gflops("fp32")}

    def keep(name, rec, flops):
        out[f"{name}_gbs"] = rec.gbs
        out[f"{name}_gflops"] = flops / (rec.median_ms * 1e-3) / 1e9

    # case 1: 256 MiB in, 256 MiB out
    n = (1 << 20) if ctx.small else (64 << 20)
    x = _floats(ctx, n)
    y = cupy.empty_like(x)
    poison(y)
    fn = ctx.function(BOTTLENECK, "scaleVec")
    grid = cdiv(n // 4, BLOCK)

    def run_scale():
        fn((grid,), (BLOCK,), (x, y, np.int64(n // 4), np.float32(A), np.float32(B)))
    run_scale()
    ctx.require("scaleVec against a x + b", _close(y, x.astype(cupy.float64) * A + B, 1e-6))
    keep("scaleVec", ctx.time("scaleVec: y = a x + b, 16-byte vectors", run_scale, family=BOTTLENECK.stem,
                              bytes=8 * n, shape=(n,), dtype="float32", block=(BLOCK, 1), grid=(grid, 1)), 2 * n)
    del x, y
    cupy.get_default_memory_pool().free_all_blocks()

    # case 2: 32 MiB in and out, thousands of FLOPs per element
    n = (1 << 16) if ctx.small else (4 << 20)
    iters = SMALL_ITERS if ctx.small else ITERS
    x = _floats(ctx, n)
    y = cupy.empty_like(x)
    poison(y)
    fn = ctx.function(BOTTLENECK, "fmaChains")
    grid = cdiv(n, BLOCK)

    def run_chains():
        fn((grid,), (BLOCK,), (x, y, np.int64(n), np.int32(iters), np.float32(FB), np.float32(FC)))
    run_chains()
    b, c = float(np.float32(FB)), float(np.float32(FC))   # the float32 values the kernel gets
    bn = b ** iters
    want = (x.astype(cupy.float64) * CHAINS + CHAINS * (CHAINS - 1) / 2) * bn + CHAINS * c * (1 - bn) / (1 - b)
    ctx.require("fmaChains against the closed form of the chains", _close(y, want, 1e-4))
    keep("fmaChains", ctx.time(f"fmaChains: {CHAINS} x {iters} FMAs per element", run_chains, family=BOTTLENECK.stem,
                               bytes=8 * n, shape=(n,), dtype="float32", block=(BLOCK, 1), grid=(grid, 1)),
         2 * CHAINS * iters * n)
    del x, y, want
    cupy.get_default_memory_pool().free_all_blocks()

    # case 3: one word in 32 of a 1 GiB buffer in (32 MiB), 32 MiB out
    n = (1 << 16) if ctx.small else (8 << 20)
    x = _floats(ctx, n * STRIDE)
    y = cupy.empty(n, cupy.float32)
    poison(y)
    fn = ctx.function(BOTTLENECK, "strideRead")
    grid = cdiv(n, BLOCK)

    def run_strided():
        fn((grid,), (BLOCK,), (x, y, np.int64(n), np.int32(STRIDE), np.float32(A), np.float32(B)))
    run_strided()
    ctx.require("strideRead against a x + b", _close(y, x[::STRIDE].astype(cupy.float64) * A + B, 1e-6))
    rec = ctx.time(f"strideRead: y = a x + b, one word in {STRIDE}", run_strided, family=BOTTLENECK.stem,
                   bytes=8 * n, shape=(n,), dtype="float32", block=(BLOCK, 1), grid=(grid, 1))
    keep("strideRead", rec, 2 * n)
    # what DRAM moves for it: a 32-byte sector per word read, the words written
    out["strideRead_sector_gbs"] = (32 + 4) * n / (rec.median_ms * 1e-3) / 1e9
    for name, _, _ in KERNELS:
        out[f"{name}_pct_bw"] = 100 * out[f"{name}_gbs"] / out["peak_gbs"]
        out[f"{name}_pct_fp32"] = 100 * out[f"{name}_gflops"] / out["peak_gflops"]
    return out


def _frac(v: float) -> str:
    """A fraction of a peak in words, with a decimal where it is small."""
    return f"{100 * v:.1f}%" if v < 0.1 else pct(v)


def diagnose(bw: float, fp: float) -> int:
    """The case the fractions of peak bandwidth and peak FP32 (0..1) point to; 0: none of them
    (between the bands, or both near their peaks)."""
    if fp >= HIGH and bw < HIGH:
        return 2
    if bw >= HIGH and fp < HIGH:
        return 1
    if bw < LOW and fp < LOW:
        return 3
    return 0


def decide(n: dict) -> Verdict:
    parts, right, wrong = [], [], []
    for name, built, what in KERNELS:
        bw, fp = n[f"{name}_pct_bw"] / 100, n[f"{name}_pct_fp32"] / 100
        got = diagnose(bw, fp)
        parts.append(f"{name} ({what}): {gbs(n[f'{name}_gbs'])} = {_frac(bw)} of peak bandwidth, "
                     f"{n[f'{name}_gflops']:.0f} GFLOP/s = {_frac(fp)} of peak FP32 -> "
                     + (f"case {got}, {CASES[got]}" if got else "no case"))
        (right if got == built else wrong).append(f"{name} (built for case {built}, "
                                                  + (f"read as case {got})" if got else "read as none)"))
    sectors = n["strideRead_sector_gbs"] / n["peak_gbs"]
    text = (f"Peaks: {gbs(n['peak_gbs'])} and {n['peak_gflops']:.0f} GFLOP/s; near a peak = at least {pct(HIGH)} "
            f"of it, far = under {pct(LOW)}. " + "; ".join(parts) + ". Counting the 32-byte sector each of its reads "
            f"fetches, strideRead keeps DRAM at {pct(sectors)} of its peak: by a profiler's DRAM counter it looks "
            "busy with little arithmetic; its useful bytes show the transactions wasted.")
    if not wrong:
        return Verdict(HOLDS, text + " Each kernel lands in the case it was built for.")
    if not right:
        return Verdict(FAILS, text + " No kernel lands in the case it was built for.")
    return Verdict(DEPENDS, text + f" Misread: {', '.join(wrong)}.",
                   "the kernel: the fractions alone misread " + ", ".join(w.split(" ")[0] for w in wrong))


CLAIMS = (
    Claim("bottleneck-cases", "peaks", TOPIC,
          "A kernel's fractions of peak bandwidth and peak FLOP/s tell whether bandwidth, wasted arithmetic or "
          "poor caching and coalescing limits it.",
          f"Three float32 kernels, each built for one case: y = a x + b on 16-byte vectors (256 MiB in, 256 MiB "
          f"out: bandwidth), {CHAINS} independent chains of {ITERS} FMAs from each of 4 Mi elements (arithmetic), "
          f"and y = a x + b reading one word in {STRIDE} of a 1 GiB buffer (8 Mi elements: poor access). Each "
          "result is checked, then timed; GB/s = useful bytes read + written over the median time, GFLOP/s = the "
          "FMAs' FLOPs (2 each) over it, as fractions of the theoretical peaks from the device's attributes. "
          f"Diagnosis: FP32 at {HIGH:.0%} of peak or more (bandwidth below) = case 2, compute-bound; bandwidth at "
          f"{HIGH:.0%} or more (FP32 below) = case 1, bandwidth-bound; both under {LOW:.0%} = case 3, latency or "
          "poor access.",
          measure, decide, kernels=(Kernels(BOTTLENECK, ("scaleVec", "fmaChains", "strideRead")),),
          charts=(Bars("fraction of peak bandwidth", "% of peak", tuple((k, f"{k}_pct_bw") for k, _, _ in KERNELS)),
                  Bars("fraction of peak FP32", "% of peak", tuple((k, f"{k}_pct_fp32") for k, _, _ in KERNELS)))),
)
