"""widePerm / tallPerm probe: every short side 2..64 of 1- and 2-byte elements, wide and tall,
checked bit-exact (poisoned output) at awkward long sides, then the bench's skinny shapes (256
MiB) timed for several K (steps of a warp) beside the dispatch's choice and a copy of the same
bytes. Run from this folder as `PYTHONPATH=../../../../src python3 probe.py [quick]`."""
import sys
from pathlib import Path

import cupy
import numpy as np

from bwlab.core import build, launch
from bwlab.core.arrays import as_operand
from bwlab.core.timing import time_gpu
from bwlab.workloads.transpose import calls, plans

SRC = Path(plans.KERNELS_DIR) / "skinnyperm.cu"
DT = {1: cupy.uint8, 2: cupy.uint16}
THREADS = 128


def run_perm(x, out, k):
    tall = x.shape[0] > x.shape[1]
    n, s = x.shape if tall else x.shape[::-1]
    e = x.itemsize
    full = (n * e) // 128 if tall else max(0, (n * e - 4) // 128)
    fn = launch.function(SRC, f"{'tall' if tall else 'wide'}Perm<{e},{s},{k}>")
    blocks = -(-full // (4 * k)) + 1
    fn((blocks, 1, 1), (THREADS, 1, 1), (x, out, np.int64(n), np.int64(full)))


def default_k(s):
    return 2 if s <= 3 or s >= 17 else max(2, 48 // s)


def rand(shape, dt):
    return cupy.random.default_rng(sum(shape)).integers(0, 2**16, size=shape, dtype=cupy.int32).astype(dt)


def correctness(shorts, longs):
    bad = n = 0
    for e, dt in DT.items():
        for s in shorts:
            for k in sorted({1, default_k(s)}):
                for long in longs:
                    for shape in ((s, long), (long, s)) if long > s else ((s, long),):
                        x = rand(shape, dt)
                        out = cupy.full(shape[::-1], 0xA5A5 & (256 ** e - 1), dt)
                        run_perm(x, out, k)
                        n += 1
                        if not bool((out == x.T).all()):
                            bad += 1
                            print("MISMATCH", e, shape, k, flush=True)
    print(f"correctness: {n} checks, {bad} mismatches", flush=True)
    return bad


def timed(fn):
    return time_gpu(fn, warmup=3, reps=30).median_ms


def timing(cases):
    for s, e, tall in cases:
        n = (256 * 2**20) // (s * e) | 1  # odd: misaligned rows, as the bench's
        x = rand((n, s) if tall else (s, n), DT[e])
        want = cupy.ascontiguousarray(x.T)
        out = cupy.empty_like(want)
        nbytes = 2 * x.nbytes
        a, b = cupy.empty(x.nbytes, cupy.uint8), cupy.empty(x.nbytes, cupy.uint8)
        copy = nbytes / timed(lambda: cupy.copyto(b, a)) / 1e6
        a = b = None
        xo = as_operand(x, "x")
        lay = plans.layout_of(xo.shape, xo.strides)
        c = plans.choose(e, lay)
        st = cupy.cuda.get_current_stream().ptr
        run = calls.kernel_runner(c, lay, xo)
        rows = [(c.expression, lambda: run(x.data.ptr, out.data.ptr, st))]
        for k in sorted({1, 2, default_k(s), 2 * default_k(s)}):
            rows.append((f"{'tall' if tall else 'wide'}Perm<{e},{s},{k}>", lambda k=k: run_perm(x, out, k)))
        for name, fn in rows:
            out.fill(0)
            fn()
            ok = bool((out == want).all())
            gb = nbytes / timed(fn) / 1e6
            shape = "x".join(map(str, x.shape))
            print(f"{shape:14s} {DT[e].__name__:7s} {name:24s} {gb:6.0f} GB/s {100 * gb / copy:5.1f}%  ok={ok}",
                  flush=True)
        x = out = want = None


def prebuild(shorts, timed_cases):
    exprs = {f"{f}Perm<{e},{s},{k}>" for f in ("wide", "tall") for e in DT for s in shorts for k in (1, default_k(s))}
    exprs |= {f"{'tall' if t else 'wide'}Perm<{e},{s},{k}>" for s, e, t in timed_cases
              for k in (1, 2, default_k(s), 2 * default_k(s))}
    build.compile_each(SRC, sorted(exprs), launch.arch_of())  # in parallel, into the launch cache


def one(e, s, k, tall=0):
    """One launch after a warm-up one (for Nsight Compute: --launch-skip 1 --launch-count 1)."""
    n = (256 * 2**20) // (s * e) | 1
    x = rand((n, s) if tall else (s, n), DT[e])
    out = cupy.empty(x.shape[::-1], DT[e])
    run_perm(x, out, k)
    run_perm(x, out, k)
    cupy.cuda.runtime.deviceSynchronize()


if __name__ == "__main__":
    if sys.argv[1:2] == ["one"]:
        one(*map(int, sys.argv[2:6]))
        sys.exit()
    if sys.argv[1:2] == ["time"]:  # timing only, of the short sides named (uint8, wide and tall)
        timing([(int(v), 1, t) for t in (False, True) for v in sys.argv[2:]])
        sys.exit()
    quick = "quick" in sys.argv
    shorts = (2, 3, 5, 7, 33) if quick else range(2, 65)
    b = [2, 3, 5, 7, 8, 9, 12, 13, 16, 17, 24, 31, 32, 33, 48, 63, 64]
    cases = [(s, 1, t) for t in (False, True) for s in b] + [(s, 2, t) for t in (False, True)
                                                            for s in (3, 5, 7, 9, 17, 33, 63)]
    prebuild(shorts, cases)
    longs = (2, 31, 32, 33, 127, 128, 129, 1000, 4097, 12345, 65537)
    if correctness(shorts, longs) == 0:
        timing(cases)
