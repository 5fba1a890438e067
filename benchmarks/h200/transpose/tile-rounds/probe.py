"""skinnyTile's TALL tile size on the tall bench shapes it takes (17 to 64 columns of 2, 4 and 8
bytes, 256 MiB, rows misaligned): the tree's rule (R the largest power of two with R * short <= 64,
tiles within 48 KiB) against every larger R whose tile fits 72 KiB (loaded in rounds of 9 vectors a
thread), forced through the public API. Each output, poisoned first, is compared with CuPy's
transpose as unsigned integers, then timed (CUDA events, 5 warm-ups, median of 50) beside a device
copy of the same bytes. `PYTHONPATH=<tree>/src python3 probe.py` from this folder; `probe.py LABEL`:
the dispatch alone (for the tree before)."""
import sys

import cupy

import bwlab
from bwlab.core import timing, verify
from bwlab.workloads.transpose import calls, plans

UINT = {2: cupy.uint16, 4: cupy.uint32, 8: cupy.uint64}
SHAPES = [(3947581, 17, 4), (2097153, 32, 4), (2033603, 33, 4), (1398103, 48, 4), (1065221, 63, 4),
          (1048577, 64, 4), (4194305, 32, 2), (4067207, 33, 2), (2796203, 48, 2), (2097153, 64, 2),
          (1973791, 17, 8), (1016801, 33, 8), (524289, 64, 8)]
BUDGET = 72 * 1024
geometry = plans.skinnytile_geometry


def forced(rlog):
    def g(itemsize, short, tall, words=False):
        r, gp, smem = geometry(itemsize, short, tall, words)
        if tall and not words and rlog is not None:
            r, smem = rlog, (32 * (1 << rlog) + 1) * gp
        return r, gp, smem
    return g


def measure(x, want, out, stream, label, extra=""):
    e = x.dtype.itemsize
    out.view(cupy.uint8).fill(0xA5)
    bwlab.transpose(x, out=out)
    ok = bool((out == want).all())
    t = timing.time_gpu(lambda: bwlab.transpose(x, out=out), warmup=5, reps=50).median_ms
    copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3, stream.ptr),
                           warmup=5, reps=50).median_ms
    n, s = x.shape
    print(f"{label:4} {n}x{s:<3} {e}B {extra:>12} {2 * x.nbytes / t / 1e6:6.0f} {100 * copy / t:6.1f} {ok}  "
          f"{bwlab.explain_transpose(x).split(':')[0]}", flush=True)


def main(label):
    stream = cupy.cuda.get_current_stream()
    for n, s, e in SHAPES:
        x = cupy.empty((n, s), UINT[e])
        verify.fill_random_bits(x, seed=n + s)
        want = cupy.ascontiguousarray(x.T)
        out = cupy.empty_like(want)
        if label != "r":
            measure(x, want, out, stream, label)
        else:
            gp = plans.skinnytile_pitch(e, s)
            rule = geometry(e, s, True)[0]
            for r in [r for r in range(8) if (32 * (1 << r) + 1) * gp <= BUDGET and r >= rule]:
                plans.skinnytile_geometry = forced(r)
                calls._plans.clear()
                measure(x, want, out, stream, "r", f"R={1 << r}{'*' if r == rule else ''} "
                        f"{(32 * (1 << r) + 1) * gp // 1024}K")
            plans.skinnytile_geometry = geometry
        x = want = out = None
        calls._plans.clear()
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "r")
