"""The DRAM-banks claim (partition camping): reads whose concurrent addresses sit a power of two
apart might all map to the same few memory channels or banks and lose bandwidth. A 1 GiB buffer
of 256-byte chunks is read once, every chunk exactly once, with the chunks that warps read at
the same moment spaced by a stride: powers of two from 256 bytes (a plain contiguous read) to
64 KiB, and each of those plus one chunk (an odd number of chunks). The same bytes for every
stride; the sum of all words each run reads is checked against the buffer's before it is
timed."""
from __future__ import annotations

import math

import numpy as np

from .claim import DEPENDS, FAILS, HOLDS, SAME, Bars, Claim, Kernels, Verdict, cu, gbs, pct
from .memory import BLOCK, _u32, blocks

TOPIC = "notes on hiding memory latency and on DRAM banks"
CAMPING = cu("camping")
CHUNK = 256                                   # bytes a warp reads at once (8 per lane)
POW2 = tuple(CHUNK << k for k in range(9))    # 256 B .. 64 KiB
ODD = tuple(s + CHUNK for s in POW2[1:])      # 768 B .. 64 KiB + 256 B: an odd number of chunks
STRIDES = POW2 + ODD
K = 4                                         # chunks a warp has in flight
CAMPED = 0.9                                  # a power-of-two stride "loses bandwidth" below 90% of its odd twin


def label(stride: int) -> str:
    if stride % CHUNK:
        raise ValueError(f"a stride is a whole number of {CHUNK}-byte chunks, not {stride} bytes")
    if stride in ODD:
        return f"{label(stride - CHUNK)} + {CHUNK} B"
    return f"{stride // 1024} KiB" if stride % 1024 == 0 else f"{stride} B"


def measure(ctx) -> dict:
    import cupy

    from ...core.verify import poison

    nbytes = (16 << 20) if ctx.small else (1 << 30)
    n = nbytes // CHUNK
    data = _u32(ctx, nbytes // 4)
    want = int(data.sum(dtype=cupy.uint64)) & 0xFFFFFFFF
    nblocks = blocks(ctx)   # 8 blocks of 256 threads a SM: every warp resident
    res = cupy.empty(nblocks * BLOCK, cupy.uint32)
    fn = ctx.function(CAMPING, f"readChunks<{K}>")
    out = {"buffer_mib": nbytes >> 20}
    for stride in STRIDES:
        m = stride // CHUNK
        period = n // math.gcd(m, n)

        def run(m=m, period=period):
            fn((nblocks,), (BLOCK,), (data, res, np.uint32(n), np.uint32(m), np.uint32(period.bit_length() - 1)))
        poison(res)
        run()
        got = int(res.sum(dtype=cupy.uint64)) & 0xFFFFFFFF
        ctx.require(f"readChunks, stride {label(stride)}: sum of all words read", got == want,
                    f"{got:#x} against {want:#x}")
        rec = ctx.time(f"256-byte chunks {label(stride)} apart", run, family=CAMPING.stem, bytes=nbytes,
                       shape=(nbytes // 4,), dtype="uint32", block=(BLOCK, 1), grid=(nblocks, 1))
        out[f"s{stride}_gbs"] = rec.gbs
    return out


def decide(n: dict) -> Verdict:
    r = {s: n[f"s{s}_gbs"] / n[f"s{s + CHUNK}_gbs"] for s in POW2[1:]}   # power of two / its odd twin
    each = ", ".join(f"{label(s)} {pct(v)}" for s, v in r.items())
    pow2 = [n[f"s{s}_gbs"] for s in POW2[1:]]
    odd = [n[f"s{s}_gbs"] for s in ODD]
    mib = n["buffer_mib"]
    size = f"{mib / 1024:g} GiB" if mib >= 1024 else f"{mib:.0f} MiB"
    text = (f"Reading {size} once in {CHUNK}-byte chunks, the chunks read at the same moment a stride apart: "
            f"contiguous {gbs(n[f's{CHUNK}_gbs'])}; power-of-two strides from {label(POW2[1])} to {label(POW2[-1])}: "
            f"{min(pow2):.0f} to {max(pow2):.0f} GB/s; the same strides plus one chunk (their odd twins): "
            f"{min(odd):.0f} to {max(odd):.0f} GB/s. Each power of two as a fraction of its odd twin: {each}.")
    camped = [s for s, v in r.items() if v <= CAMPED]
    if camped:
        worst = min(camped, key=r.get)
        return Verdict(HOLDS, text + f" Power-of-two strides of {', '.join(label(s) for s in camped)} lose "
                       f"{pct(1 - CAMPED)} or more against the odd ones (worst {label(worst)}: {pct(1 - r[worst])} "
                       "lost), as reads crowding onto fewer channels or banks would.")
    slower = [s for s, v in r.items() if v <= 1 / SAME]
    if not slower:
        return Verdict(FAILS, text + f" No power-of-two stride loses more than {pct(1 - 1 / SAME)} against its odd "
                       "twin: no partition camping here, as expected where the memory controller hashes many address "
                       "bits into the channel and bank, as modern GPUs do, rather than interleaving on a few low ones.")
    return Verdict(DEPENDS, text + f" Strides of {', '.join(label(s) for s in slower)} lose a little (under "
                   f"{pct(1 - CAMPED)}), the others {pct(1 - 1 / SAME)} or less.",
                   "the stride: a few power-of-two strides lose a little bandwidth, none much")


CLAIMS = (
    Claim("dram-banks", "memory", TOPIC,
          ("Reads a power of two apart crowd onto few DRAM channels or banks (partition camping) and lose "
           "bandwidth."),
          f"A 1 GiB buffer read once in 256-byte chunks (one 8-byte word per lane of a warp, {K} chunks in flight a "
          "warp, every warp of a full grid resident), the chunks that neighbouring jobs read a stride apart so that "
          "every chunk is still read exactly once: strides of 256 bytes (contiguous) to 64 KiB in powers of two, "
          "and each power of two from 512 bytes plus 256 bytes (an odd number of chunks). GB/s = bytes read over "
          "the median time; each run's sum of all words checked against the buffer's first.",
          measure, decide, kernels=(Kernels(CAMPING, (f"readChunks<{K}>",)),),
          charts=(Bars("power-of-two strides", "GB/s", tuple((label(s), f"s{s}_gbs") for s in POW2)),
                  Bars("power-of-two strides plus one chunk", "GB/s", tuple((label(s), f"s{s}_gbs") for s in ODD)))),
)
