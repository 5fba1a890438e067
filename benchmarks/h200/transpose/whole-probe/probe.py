"""tileWhole probe: every candidate checked bit-exact (poisoned output) on awkward shapes and
views, then timed on the misaligned bench shapes and on controls with only the input or only
the output rows misaligned, beside the dispatch's choice (tileScalar before tileWhole) and,
for bytes, tileSector. Run from this folder as `PYTHONPATH=../../../../src:. python3 probe.py`
(whole.txt). gather.patch held tileGather, whose outputs are gather*.txt."""
import cupy

from bwlab.core.arrays import as_operand
from bwlab.core.timing import time_gpu
from bwlab.workloads.transpose import calls, plans

DT = {1: cupy.uint8, 2: cupy.uint16, 4: cupy.uint32}


def choice(kind, e, cfg):
    kernel, source = plans.MISALIGNED_KERNELS[kind]
    return plans.Choice(kind, e, source, plans.tile_expression(e, cfg, kernel), cfg[2], kind)


def candidates(e):
    return ([choice("whole", e, c) for c in plans.WHOLE_CANDIDATES.get(e, ())]
            + [choice("words", e, c) for c in plans.WORDS_CANDIDATES.get(e, ())])


def run_on(c, x, out):
    xo = as_operand(x, "x")
    calls.kernel_runner(c, plans.layout_of(xo.shape, xo.strides), xo)(xo.ptr, out.data.ptr,
                                                                       cupy.cuda.get_current_stream().ptr)


def check(c, x):
    want = cupy.ascontiguousarray(cupy.swapaxes(x, -1, -2))
    out = cupy.full(want.shape, 0xA5A5A5A5 & (256 ** want.dtype.itemsize - 1), want.dtype)  # poisoned
    run_on(c, x, out)
    return bool((out == want).all())


def rand(shape, dt):
    return cupy.random.default_rng(sum(shape)).integers(0, 2**31, size=shape, dtype=cupy.int64).astype(dt)


def correctness():
    bad = n = 0
    for e in (1, 2, 4):
        dt = DT[e]
        for c in candidates(e):
            tr, tc = plans.tile_shape(c)
            shapes = [(1, 1), (1, 77), (77, 1), (2, 3), (257, 263), (300, 260), (2 * tr + 5, tc + 3),
                      (3 * tr + 1, 2 * tc - 1), (1000, 33), (33, 1000), (31, 17), (tr, tc), (2, 257, 263),
                      (3, 5, 1001), (2, 1001, 5), (4, 97, 131), (tr + 31, 3 * tc + 1)]
            for shp in shapes:
                n += 1
                if not check(c, rand(shp, dt)):
                    bad += 1
                    print("MISMATCH", c.expression, shp, flush=True)
            base = rand((2, 300 + 7, 270 + 9), dt)
            views = [base[1, 1:301, 3:263], base[1, 300:0:-1, 1:262], base[:, 2:299, 5:266],
                     base[::-1, 3:250, 1:200], base[0, 5:6, 1:250], base[1, 1:250, 7:8], base[::2, 1:300, 2:270]]
            for v in views:
                n += 1
                if not check(c, v):
                    bad += 1
                    print("MISMATCH view", c.expression, v.shape, v.strides, flush=True)
    print(f"correctness: {n} checks, {bad} mismatches", flush=True)
    return bad


def timed(fn):
    return time_gpu(fn, warmup=3, reps=40).median_ms


CASES = [((16383, 16389), 1), ((4, 8191, 16389), 1), ((16384, 16389), 1), ((16383, 16384), 1),
         ((11587, 11593), 2), ((4, 5793, 11593), 2), ((11584, 11593), 2), ((11587, 11584), 2),
         ((8193, 8199), 4), ((4, 4096, 8199), 4), ((8192, 8199), 4), ((8193, 8192), 4)]


def timing():
    for shp, e in CASES:
        x = rand(shp, DT[e])
        want = cupy.ascontiguousarray(cupy.swapaxes(x, -1, -2))
        out = cupy.empty_like(want)
        nbytes = 2 * x.nbytes
        a, b = cupy.empty(x.nbytes, cupy.uint8), cupy.empty(x.nbytes, cupy.uint8)
        copy = nbytes / timed(lambda: cupy.copyto(b, a)) / 1e6
        a = b = None
        xo = as_operand(x, "x")
        lay = plans.layout_of(xo.shape, xo.strides)
        s = cupy.cuda.get_current_stream().ptr
        before = {1: ("sector", plans.SECTOR_CANDIDATES[1][0]), 2: ("scalar", (64, 64, 128)),
                  4: ("scalar", (64, 64, 256))}[e]  # the choice before tileWhole
        for c in [plans.choose(e, lay), choice(*before[:1], e, before[1])] + candidates(e):
            run = calls.kernel_runner(c, lay, xo)
            out.fill(0)
            run(x.data.ptr, out.data.ptr, s)
            ok = bool((out == want).all())
            gb = nbytes / timed(lambda: run(x.data.ptr, out.data.ptr, s)) / 1e6
            print(f"{'x'.join(map(str, shp)):14s} {DT[e].__name__:7s} {c.expression:28s} "
                  f"{gb:6.0f} GB/s {100 * gb / copy:5.1f}%  ok={ok}", flush=True)


if __name__ == "__main__":
    if correctness() == 0:
        timing()
