"""widePerm's word loads two or three ways (L2 = 0 plain, 1 `ld.global.nc.L2::128B`, 2
`ld.global.L2::128B` at the sides PLAIN_L2) at every short side 2..64 of 1- and 2-byte elements,
wide, at the skinny suite's long side (256 MiB or just over, odd) and at a second long side away
from powers of two; every output checked bit-exact against CuPy's transpose (poisoned first),
then each variant timed twice in the order 0 1 (2) (2) 1 0, with a copy of the same bytes
(cupy.copyto) timed before and after. It runs on the tree of 5d6a06b, where widePerm's fourth
template argument is that int (a bool since). From the repository root:
`PYTHONPATH=src python3 benchmarks/h200/transpose/wide-l2/probe.py [E ...]`."""
import sys

import cupy
import numpy as np

from bwlab.core import build, launch
from bwlab.core.timing import time_gpu
from bwlab.workloads.transpose import plans

SRC = plans.KERNELS_DIR / "skinnyperm.cu"
DT = {1: cupy.uint8, 2: cupy.uint16}
VARIANTS = (0, 1, 2)
PLAIN_L2 = (16, 32, 41, 48, 64)  # the short sides that also try variant 2


def expr(e, s, v):
    return f"widePerm<{e},{s},{plans.perm_steps(s)},{v}>"


def longs(e, s):
    n = -(-(256 << 20) // (s * e))
    n += 1 - n % 2  # the skinny suite's long side
    return n, (n * 5 // 4 + 777) | 1


def run(x, out, e, s, n, v):
    full = plans.perm_full_steps(e, n, False)
    fn = launch.function(SRC, expr(e, s, v))
    fn((plans.perm_blocks(e, s, n, False), 1, 1), (plans.PERM_THREADS, 1, 1), (x, out, np.int64(n), np.int64(full)))


def ms(fn):
    return time_gpu(fn, warmup=3, reps=30).median_ms


def variants(s):
    return VARIANTS if s in PLAIN_L2 else VARIANTS[:2]


def main(sizes):
    built = build.compile_each(SRC, [expr(e, s, v) for e in sizes for s in range(2, 65) for v in variants(s)],
                               launch.arch_of()).by_expression
    regs = {k: b.resources[k].registers for k, b in built.items()}
    print(f"{'E':>2} {'S':>3} {'n':>9} {'bad':>3} {'copy GB/s':>9}  " + "  ".join(f"L2={v} %copy" for v in VARIANTS)
          + "  registers")
    for e in sizes:
        for s in range(2, 65):
            for n in longs(e, s):
                x = cupy.random.default_rng(s * n).integers(0, 256 ** e, size=(s, n), dtype=cupy.int64).astype(DT[e])
                want = cupy.ascontiguousarray(x.T)
                out = cupy.empty_like(want)
                bad = 0
                for v in variants(s):
                    out.fill(0xA5)
                    run(x, out, e, s, n, v)
                    bad += int(not bool((out == want).all()))
                want = None
                a, b = cupy.empty(x.nbytes, cupy.uint8), cupy.empty(x.nbytes, cupy.uint8)
                moved = 2 * x.nbytes
                t = {v: [] for v in variants(s)}
                copy = [ms(lambda: cupy.copyto(b, a))]
                for v in variants(s) + variants(s)[::-1]:
                    t[v].append(ms(lambda v=v: run(x, out, e, s, n, v)))
                copy.append(ms(lambda: cupy.copyto(b, a)))
                c = moved / np.mean(copy) / 1e6
                cols = "  ".join(f"{100 * moved / np.mean(t[v]) / 1e6 / c:10.1f}" if v in t else f"{'':10}"
                                 for v in VARIANTS)
                reg = "/".join(str(regs[expr(e, s, v)]) for v in variants(s))
                print(f"{e:2d} {s:3d} {n:9d} {bad:3d} {c:9.0f}  {cols}  {reg}", flush=True)
                x = out = a = b = None


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1, 2])
