"""tileWholeWords (misaligned 1- and 2-byte rows): more blocks an SM (MINB, the launch bounds'
minimum; the default is 1024 / threads) and taller tiles (fewer of the rows past the tile read
again), against the dispatch's tiles. Every candidate checked bit-exact (poisoned output) on
awkward shapes and views first, then two rounds on the misaligned bench shapes and controls,
candidates in a rotating order, each round's copy of the same bytes beside them. Run from the
repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/words-occupancy/probe.py SET ROUNDS`."""
import statistics
import sys

import cupy

from bwlab.core import build
from bwlab.core.arrays import as_operand
from bwlab.core.timing import time_gpu
from bwlab.workloads.transpose import calls, plans

DT = {1: cupy.uint8, 2: cupy.uint16}
SETS = {  # e -> (TR, TC, threads, MINB or 0 for the default); the dispatch's tile first
    "1": {1: [(128, 124, 256, 0), (128, 124, 256, 5), (128, 124, 256, 6), (160, 124, 256, 0), (192, 124, 256, 0),
              (256, 124, 512, 0), (256, 124, 512, 3), (64, 124, 128, 0)],
          2: [(64, 62, 128, 0), (64, 62, 128, 9), (64, 62, 128, 10), (128, 62, 256, 0), (128, 62, 256, 5),
              (64, 62, 256, 0), (64, 62, 256, 5), (80, 62, 128, 0), (96, 62, 192, 0)]},
    "2": {1: [(128, 124, 256, 0), (256, 124, 512, 3), (128, 124, 256, 5), (224, 124, 512, 3), (192, 124, 512, 3),
              (192, 124, 256, 5)],
          2: [(64, 62, 128, 0), (128, 62, 256, 5), (160, 62, 320, 4), (192, 62, 256, 5), (128, 62, 384, 3),
              (80, 62, 128, 10), (64, 62, 128, 10)]},
    "3": {1: [(128, 124, 256, 0), (128, 124, 256, 5), (160, 124, 256, 5), (128, 124, 192, 6), (256, 124, 512, 3)],
          2: [(64, 62, 128, 0), (192, 62, 256, 5), (192, 62, 384, 3), (176, 62, 256, 5), (160, 62, 256, 5),
              (192, 62, 256, 4), (128, 62, 256, 5)]},
    "4": {1: [(128, 124, 256, 0), (256, 124, 512, 3)], 2: [(64, 62, 128, 0), (128, 62, 256, 5)]},  # before, after
}
SETS["5"] = SETS["6"] = SETS["4"]  # the same two, on calls of 4 to 64 MiB (5) and 4 to 192 MiB (6)
TILES = SETS[sys.argv[1] if len(sys.argv) > 1 else "1"]
CASES = [((16383, 16389), 1), ((4, 8191, 16389), 1), ((16384, 16389), 1), ((16383, 16384), 1),
         ((11587, 11593), 2), ((4, 5793, 11593), 2), ((11584, 11593), 2), ((11587, 11584), 2)]
if len(sys.argv) > 1 and sys.argv[1] in ("2", "3", "4"):  # more misaligned extents, at least 256 MiB
    CASES += [((20011, 13417), 1), ((3, 9001, 9973), 1), ((13001, 10333), 2), ((3, 7003, 6389), 2)]
if len(sys.argv) > 1 and sys.argv[1] == "5":  # misaligned calls of 4, 16 and 64 MiB (the smaller ones in L2)
    CASES = [((2047, 2053), 1), ((4093, 4099), 1), ((8191, 8197), 1), ((1447, 1451), 2), ((2893, 2897), 2),
             ((5791, 5797), 2)]
if len(sys.argv) > 1 and sys.argv[1] == "6":  # where the taller tiles start to win: 32 to 192 MiB (uint16 4 to 32)
    CASES = [((5791, 5797), 1), ((10029, 10037), 1), ((11587, 11589), 1), ((14189, 14191), 1), ((1447, 1451), 2),
             ((2047, 2053), 2), ((4093, 4099), 2)]


def choice(e, t):
    tr, tc, th, minb = t
    expr = f"tileWholeWords<{e},{tr},{tc},{th}" + (f",{minb}>" if minb else ">")
    return plans.Choice("words", e, plans.WHOLE, expr, th, "words")


def rand(shape, dt):
    return cupy.random.default_rng(sum(shape)).integers(0, 2**31, size=shape, dtype=cupy.int64).astype(dt)


def runner(c, x):
    xo = as_operand(x, "x")
    return calls.kernel_runner(c, plans.layout_of(xo.shape, xo.strides), xo)


def check(c, x):
    want = cupy.ascontiguousarray(cupy.swapaxes(x, -1, -2))
    out = cupy.full(want.shape, 0xA5A5 & (256 ** want.dtype.itemsize - 1), want.dtype)  # poisoned
    runner(c, x)(x.data.ptr, out.data.ptr, cupy.cuda.get_current_stream().ptr)
    return bool((out == want).all())


def correctness():
    bad = n = 0
    for e, tiles in TILES.items():
        for t in tiles:
            c = choice(e, t)
            tr, tc = t[:2]
            shapes = [(1, 1), (1, 77), (77, 1), (2, 3), (257, 263), (300, 260), (2 * tr + 5, tc + 3),
                      (3 * tr + 1, 2 * tc - 1), (1000, 33), (33, 1000), (31, 17), (tr, tc), (2, 257, 263),
                      (3, 5, 1001), (2, 1001, 5), (4, 97, 131), (tr + 31, 3 * tc + 1)]
            base = rand((2, 300 + 7, 270 + 9), DT[e])
            views = [base[1, 1:301, 3:263], base[1, 300:0:-1, 1:262], base[:, 2:299, 5:266],
                     base[::-1, 3:250, 1:200], base[0, 5:6, 1:250], base[1, 1:250, 7:8], base[::2, 1:300, 2:270]]
            for x in [rand(s, DT[e]) for s in shapes] + views:
                n += 1
                if not check(c, x):
                    bad += 1
                    print("MISMATCH", c.expression, x.shape, x.strides, flush=True)
    print(f"correctness: {n} checks, {bad} mismatches", flush=True)
    return bad


def timed(fn):
    return time_gpu(fn, warmup=3, reps=40).median_ms


def timing(rounds=2):
    got = {}
    for rnd in range(rounds):
        for shp, e in CASES:
            x = rand(shp, DT[e])
            want = cupy.ascontiguousarray(cupy.swapaxes(x, -1, -2))
            out = cupy.empty_like(want)
            nbytes = 2 * x.nbytes
            a, b = cupy.empty(x.nbytes, cupy.uint8), cupy.empty(x.nbytes, cupy.uint8)
            copy = nbytes / timed(lambda: cupy.copyto(b, a)) / 1e6
            del a, b
            s = cupy.cuda.get_current_stream().ptr
            tiles = TILES[e]
            k = (rnd + len(got)) % len(tiles)
            for t in tiles[k:] + tiles[:k]:  # a rotating order
                c = choice(e, t)
                run = runner(c, x)
                out.fill(0)
                run(x.data.ptr, out.data.ptr, s)
                ok = bool((out == want).all())
                gb = nbytes / timed(lambda: run(x.data.ptr, out.data.ptr, s)) / 1e6
                pct = 100 * gb / copy
                got.setdefault((shp, e, t), []).append(pct if ok else float("nan"))
                print(f"r{rnd} {'x'.join(map(str, shp)):14s} {DT[e].__name__:7s} {c.expression:34s} "
                      f"{gb:6.0f} GB/s {pct:5.1f}% of a copy ({copy:.0f})  ok={ok}", flush=True)
    print("\nmean % of a copy over the rounds (min-max)")
    for shp, e in CASES:
        base = statistics.mean(got[shp, e, TILES[e][0]])
        for t in TILES[e]:
            v = got[shp, e, t]
            print(f"{'x'.join(map(str, shp)):14s} {DT[e].__name__:7s} {choice(e, t).expression:34s} "
                  f"{statistics.mean(v):5.1f}  ({min(v):.1f}-{max(v):.1f})  {statistics.mean(v) - base:+5.1f}")


if __name__ == "__main__":
    exprs = [choice(e, t).expression for e, ts in TILES.items() for t in ts]
    res = build.compile_each(plans.WHOLE, exprs).resources
    for x in exprs:
        print(x, res[x], flush=True)
    if correctness() == 0:
        timing(int(sys.argv[2]) if len(sys.argv) > 2 else 2)
