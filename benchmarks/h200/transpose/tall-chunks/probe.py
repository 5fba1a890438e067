"""The register kernel's tall shapes (2 to 4 columns of 2, 4, 8 and 16 bytes, 256 MiB, long rows
misaligned and aligned) through the public API, for an A/B of two trees: each output, poisoned
first, compared with CuPy's transpose as unsigned integers, then timed (CUDA events, 5 warm-ups,
median of 50) beside a device copy of the same bytes.
`PYTHONPATH=<tree>/src python3 probe.py LABEL` from this folder; LABEL `tile` sends the tall short
sides of 2 to 4 columns that the register kernel keeps (misaligned rows, and every 16-byte one) to
skinnyTile instead."""
import sys

import cupy

import bwlab
from bwlab.core import timing, verify
from bwlab.workloads.transpose import calls, plans

UINT = {2: cupy.uint16, 4: cupy.uint32, 8: cupy.uint64, 16: cupy.uint64}
SHAPES = [(33554433, 2, 4), (22369623, 3, 4), (16777217, 4, 4), (33554432, 2, 4), (22369624, 3, 4),
          (16777216, 4, 4), (10_000_000, 3, 4), (16777217, 2, 8), (11184811, 3, 8), (8388609, 4, 8),
          (11184812, 3, 8), (8388609, 2, 16), (5592405, 3, 16), (4194305, 4, 16), (44739248, 3, 2)]


def main(label):
    if label == "tile":
        plans.SKINNY_KEEP_TALL = {e: () for e in plans.ITEMSIZES}
    stream = cupy.cuda.get_current_stream()
    for n, s, e in SHAPES:
        x = cupy.empty((n, s * (2 if e == 16 else 1)), UINT[e])  # 16 bytes: pairs of uint64
        verify.fill_random_bits(x, seed=n + s)
        x = x.view(cupy.complex128) if e == 16 else x
        want = cupy.ascontiguousarray(x.T)
        out = cupy.empty_like(want)
        copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                     stream.ptr), warmup=5, reps=50).median_ms
        out.view(cupy.uint8).fill(0xA5)
        bwlab.transpose(x, out=out)
        ok = bool((out.view(UINT[e]) == want.view(UINT[e])).all())
        t = timing.time_gpu(lambda: bwlab.transpose(x, out=out), warmup=5, reps=50).median_ms
        print(f"{label:4} {n}x{s:<3} {e:2}B {2 * x.nbytes / t / 1e6:6.0f} {100 * copy / t:6.1f} {ok}  "
              f"{bwlab.explain_transpose(x).split(':')[0]}", flush=True)
        x = want = out = None
        calls._plans.clear()
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main(sys.argv[1])
