"""Does the long side's pitch move the wide 1- and 2-byte transposes that miss 90% of a copy?
For each short side S (rows) and element size E, bwlab.transpose (the dispatch: widePerm) at
long sides n around the skinny suite's (256 MiB, odd: a row pitch just past a power of two for
S = 64) and away from it; every output checked bit-exact against CuPy's transpose (poisoned
first), then timed twice around a copy of the same bytes (cupy.copyto), median of 30 each.
From the repository root: PYTHONPATH=src python3 benchmarks/h200/transpose/wide-pitch/probe.py"""
import cupy
import numpy as np

import bwlab
from bwlab.core.timing import time_gpu

DT = {1: cupy.uint8, 2: cupy.uint16}
SIDES = {1: (41, 59, 64), 2: (41, 53, 59, 64)}


def longs(e, s):
    n = -(-(256 << 20) // (s * e))
    n += 1 - n % 2  # the skinny suite's long side
    p2 = 1 << (n - 1).bit_length()  # the power of two at or above it
    return sorted({n, n + 2 * 1024 + 1, n + 64 * 1024 + 1, (n * 5 // 4 + 777) | 1, p2 + 1, p2 + 4097})


def ms(fn):
    return time_gpu(fn, warmup=3, reps=30).median_ms


def main():
    print(f"{'E':>2} {'S':>3} {'n':>9} {'pitch B':>9} {'bad':>3} {'copy GB/s':>9} {'%copy':>6} {'%copy':>6}")
    for e, sides in SIDES.items():
        for s in sides:
            for n in longs(e, s):
                x = cupy.random.default_rng(s * n).integers(0, 256 ** e, size=(s, n), dtype=cupy.int64).astype(DT[e])
                out = cupy.empty((n, s), DT[e])
                out.fill(0xA5)
                bwlab.transpose(x, out=out)
                bad = int(not bool((out == x.T).all()))
                a, b = cupy.empty(x.nbytes, cupy.uint8), cupy.empty(x.nbytes, cupy.uint8)
                moved = 2 * x.nbytes
                run = lambda: bwlab.transpose(x, out=out)  # noqa: E731
                t1, c1 = ms(run), ms(lambda: cupy.copyto(b, a))
                t2, c2 = ms(run), ms(lambda: cupy.copyto(b, a))
                c = moved / np.mean([c1, c2]) / 1e6
                p1, p2 = (100 * moved / t / 1e6 / c for t in (t1, t2))
                print(f"{e:2d} {s:3d} {n:9d} {n * e:9d} {bad:3d} {c:9.0f} {p1:6.1f} {p2:6.1f}", flush=True)
                x = out = a = b = None
                cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
