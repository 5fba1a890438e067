"""skinnyWords' tile size (R blocks of 31 vectors a long row) on the tall bench shapes whose short
side it takes: the tree's rule (before: the largest R with R * short <= 64 whose tile fits 48 KiB;
now: words_rlog) against each other R that fits 72 KiB, forced through the public API. Each output,
poisoned first, is compared with CuPy's transpose, then timed (CUDA events, 5 warm-ups, median of
50) beside a device copy of the same bytes. `PYTHONPATH=../../../../src python3 probe.py` from this folder;
`probe.py LABEL`: the dispatch alone (for an A/B of two trees)."""
import sys

import cupy

import bwlab
from bwlab.core import timing, verify
from bwlab.workloads.transpose import calls, plans

SHAPES = [(53687093, 5, 1), (38347923, 7, 1), (29826163, 9, 1), (22369623, 12, 1), (20648883, 13, 1),
          (15790321, 17, 1), (11184811, 24, 1), (8659209, 31, 1), (8134409, 33, 1), (5592407, 48, 1),
          (4260881, 63, 1), (8388609, 32, 1), (11184811, 12, 2), (5592407, 24, 2)]
DT = {1: cupy.uint8, 2: cupy.uint16}
geometry = plans.skinnytile_geometry


def forced(rlog):
    def g(itemsize, short, tall, words=False):
        r, gp, _ = geometry(itemsize, short, tall, words)
        r = r if rlog is None or not words else rlog
        return r, gp, (plans.skinnytile_vectors(r, words) + tall) * gp
    return g


def case(n, s, e, stream):
    """Random bits n x s, CuPy's transpose of them, an output buffer, and a device copy's median ms."""
    x = cupy.empty((n, s), DT[e])
    verify.fill_random_bits(x, seed=n + s)
    want = cupy.ascontiguousarray(x.T)
    out = cupy.empty_like(want)
    copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3, stream.ptr),
                           warmup=5, reps=50).median_ms
    return x, want, out, copy


def dispatch(label):
    """The public API as dispatched, for an A/B of two trees (this mode uses nothing new)."""
    stream = cupy.cuda.get_current_stream()
    for n, s, e in SHAPES:
        x, want, out, copy = case(n, s, e, stream)
        out.fill(0xA5)
        bwlab.transpose(x, out=out)
        ok = bool((out == want).all())
        t = timing.time_gpu(lambda: bwlab.transpose(x, out=out), warmup=5, reps=50).median_ms
        print(f"{label:4} {n}x{s:<6} {DT[e].__name__:6} {2 * x.nbytes / t / 1e6:6.0f} {100 * copy / t:6.1f} {ok}  "
              f"{bwlab.explain_transpose(x).split(':')[0]}", flush=True)
        x = want = out = None
        cupy.get_default_memory_pool().free_all_blocks()


def main():
    stream = cupy.cuda.get_current_stream()
    print(f"{'shape':14} {'dtype':6} {'R':>3} {'tasks':>5} {'KiB':>4} {'GB/s':>6} {'%copy':>6} rule ok  kernel")
    for n, s, e in SHAPES:
        x, want, out, copy = case(n, s, e, stream)
        rule = geometry(e, s, True, True)[0]
        gp = plans.skinnytile_pitch(e, s)
        rs = [r for r in range(5) if (31 * (1 << r) + 1) * gp <= plans.WORDS_SMEM]
        for r in rs:
            plans.skinnytile_geometry = forced(r)
            calls._plans.clear()
            out.fill(0xA5)
            bwlab.transpose(x, out=out)
            kern = bwlab.explain_transpose(x).split(":")[0]
            ok = bool((out == want).all())
            t = timing.time_gpu(lambda: bwlab.transpose(x, out=out), warmup=5, reps=50).median_ms
            print(f"{n}x{s:<6} {DT[e].__name__:6} {1 << r:3d} {plans.words_tasks(e, s, r):5d} "
                  f"{(31 * (1 << r) + 1) * gp // 1024:4d} {2 * x.nbytes / t / 1e6:6.0f} {100 * copy / t:6.1f} "
                  f"{'*' if r == rule else ' ':4} {ok}  {kern}", flush=True)
        plans.skinnytile_geometry = geometry
        x = want = out = None
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        dispatch(sys.argv[1])
    else:
        main()
