"""The coalescing claim: a warp reading consecutive words is served by the fewest transactions,
strided or misaligned reads waste bandwidth. Two sweeps of one read-then-write kernel each: the
read stride (1 to 32 words) and the read's start past a 128-byte line (0 to 32 words); the writes
stay coalesced. Every result is checked against CuPy's slicing of the input before it is timed."""
from __future__ import annotations

import numpy as np

from .claim import DEPENDS, FAILS, HOLDS, SAME, Bars, Claim, Kernels, Verdict, cu, gbs, pct, x
from .memory import BLOCK, _u32

TOPIC = "notes on memory coalescing"
COALESCE = cu("coalesce")
STRIDES = (1, 2, 4, 8, 16, 32)
OFFSETS = (0, 1, 4, 8, 16, 31, 32)
MISALIGNED_COSTS = 0.9  # a misaligned start "wastes bandwidth" when it loses 10% or more


def measure(ctx) -> dict:
    import cupy

    from ...core.launch import cdiv
    from ...core.verify import compare, poison

    n = (1 << 16) if ctx.small else (8 << 20)  # words read and written: 32 MiB each way
    data = _u32(ctx, n * max(STRIDES))
    res = cupy.empty(n, cupy.uint32)
    grid = cdiv(n, BLOCK)
    out = {}
    for kernel, values, want_of in (("stridedRead", STRIDES, lambda s: data[::s][:n]),
                                    ("offsetRead", OFFSETS, lambda o: data[o:o + n])):
        fn = ctx.function(COALESCE, kernel)
        for v in values:
            poison(res)

            def run(fn=fn, v=v):
                fn((grid,), (BLOCK,), (data, res, np.int64(n), np.int32(v)))
            run()
            what = f"{kernel}, {'stride' if kernel == 'stridedRead' else 'offset'} {v}"
            ctx.require(what, compare(res, want_of(v)))
            rec = ctx.time(what, run, family=COALESCE.stem, bytes=8 * n, shape=(n,), dtype="uint32",
                           block=(BLOCK, 1), grid=(grid, 1))
            out[f"{'stride' if kernel == 'stridedRead' else 'offset'}{v}_gbs"] = rec.gbs
    return out


def decide(n: dict) -> Verdict:
    base = n["stride1_gbs"]
    strides = ", ".join(f"{s}: {x(n[f'stride{s}_gbs'] / base)}" for s in STRIDES[1:])
    misaligned = [o for o in OFFSETS if o % 32]
    worst = min(misaligned, key=lambda o: n[f"offset{o}_gbs"])
    r_off = n[f"offset{worst}_gbs"] / n["offset0_gbs"]
    text = (f"Reads of consecutive words: {gbs(base)} (useful bytes read + written); with a stride, as a fraction "
            f"of that: {strides}. Consecutive reads starting off a 128-byte line: worst {pct(r_off)} of aligned "
            f"(offset {worst} words; aligned {gbs(n['offset0_gbs'])}).")
    if not (n["stride2_gbs"] <= base / SAME and n["stride8_gbs"] <= base / 2):
        return Verdict(FAILS, text + " Strided reads cost no more than consecutive ones here.")
    if r_off <= MISALIGNED_COSTS:
        return Verdict(HOLDS, text + " Both patterns waste bandwidth.")
    return Verdict(DEPENDS, text + f" Strides waste bandwidth: from stride 8 on, every 4-byte word read costs a "
                   f"32-byte sector of its own ({x(n['stride8_gbs'] / base)} of consecutive reads at 8, "
                   f"{x(n['stride32_gbs'] / base)} at 32). A misaligned warp touches five sectors instead of four, "
                   f"and the neighbouring warp reads the fifth anyway, so L2 absorbs it ({pct(r_off)} at worst). "
                   "With one 4-byte read per thread the consecutive reads are themselves held back by the loads in "
                   "flight, so these fractions understate what the strided reads cost DRAM.",
                   "the pattern: strides waste bandwidth, a misaligned start hardly does")


CLAIMS = (
    Claim("coalescing", "memory", TOPIC,
          "A warp whose threads read consecutive addresses is served by the fewest memory transactions; strided or "
          "misaligned accesses waste bandwidth.",
          "Each thread reads one 32-bit word and writes one (8 Mi threads): reads at a stride of 1 to 32 words, "
          "and consecutive reads starting 0 to 32 words past a 128-byte line; writes always consecutive. GB/s = "
          "useful bytes read + written over the median time, L2 flushed between repetitions.",
          measure, decide, kernels=(Kernels(COALESCE, ("stridedRead", "offsetRead")),),
          charts=(Bars("reads at a stride (words)", "GB/s", tuple((f"stride {s}", f"stride{s}_gbs") for s in STRIDES)),
                  Bars("consecutive reads, start past a 128-byte line (words)", "GB/s",
                       tuple((f"offset {o}", f"offset{o}_gbs") for o in OFFSETS)))),
)
