"""skinnyWords' cp.async tiles on a resident grid (skinnyWordsLoop: two tiles of shared memory a
block, the next tile copied in while this one is stored) against the dispatch, on tall uint8 and
uint16 shapes of 256 MiB with misaligned rows. Each output, poisoned first, is compared with CuPy's
transpose, then timed (CUDA events, 5 warm-ups, median of 50) beside a device copy of the same
bytes. From this folder, `PYTHONPATH=<tree>/src python3 probe.py LABEL`: the dispatch only (an A/B
of two trees); `probe.py LABEL loop`: the dispatch, then skinnyWordsLoop at each tile size whose two
buffers fit 110 KiB, on 132 x k blocks (k: as many as fit an SM's shared memory, at most 4, and one
fewer); `probe.py compile [loop]`: compile the instantiations into BWLAB_CACHE first, in parallel."""
import sys

import cupy

import bwlab
from bwlab.core import build, timing, verify
from bwlab.workloads.transpose import calls, plans

DT = {1: cupy.uint8, 2: cupy.uint16}
TALL = {1: (5, 9, 13, 17, 24, 32, 33, 48, 63, 64), 2: (10, 12, 16)}
CHECK = [(1, 64, 1000), (1, 33, 4097), (1, 17, 999_999), (1, 64, 3_000_001), (2, 12, 77_777), (1, 48, 1 << 20)]
SMEM_SM = 227 * 1024
geometry, tiles_of, expression = plans.skinnytile_geometry, plans.skinnytile_tiles, plans.skinnytile_expression


def long_side(s, e):
    """An odd long side near 256 MiB (so every long row but the first is misaligned)."""
    return (2**28 // (s * e)) | 1


def half(rlog, gp):
    return ((31 * (1 << rlog) + 1) * gp + 15) & ~15


def variants(e, s):
    """(rlog, blocks an SM) for skinnyWordsLoop on short side s."""
    gp = plans.skinnytile_pitch(e, s)
    out = []
    for r in range(6):
        two = 2 * half(r, gp)
        if two < 20 * 1024 or two > 110 * 1024:
            continue
        k = min(4, SMEM_SM // (two + 1024))
        out += [(r, k)] + ([(r, k - 1)] if k > 2 else [])
    return out


def loop_expr(e, s):
    return f"skinnyWordsLoop<{e},{(s * e) % 4}>"


def force(rlog, k):
    """The dispatch sends tall words tiles to skinnyWordsLoop at tile R = 2**rlog, 132 * k blocks."""
    def expr(itemsize, tall, words=False, short=0, asynchronous=None):
        return loop_expr(itemsize, short) if words and tall else expression(itemsize, tall, words, short, asynchronous)

    def geo(itemsize, short, tall, words=False):
        r, gp, smem = geometry(itemsize, short, tall, words)
        return (rlog, gp, 2 * half(rlog, gp)) if words and tall else (r, gp, smem)

    def tiles(itemsize, short, n, tall, words=False):
        return min(132 * k, tiles_of(itemsize, short, n, tall, words)) if words and tall else tiles_of(
            itemsize, short, n, tall, words)
    plans.skinnytile_expression, plans.skinnytile_geometry, plans.skinnytile_tiles = expr, geo, tiles
    calls._plans.clear()


def unforce():
    plans.skinnytile_expression, plans.skinnytile_geometry, plans.skinnytile_tiles = expression, geometry, tiles_of
    calls._plans.clear()


def array(n, s, e):
    x = cupy.empty((n, s), DT[e])
    verify.fill_random_bits(x, seed=n + s)
    return x


def check(x):
    want = cupy.ascontiguousarray(x.T)
    out = cupy.empty_like(want)
    out.fill(0xA5)
    bwlab.transpose(x, out=out)
    return bool((out == want).all()), out


def measure(x, label, extra=""):
    stream = cupy.cuda.get_current_stream()
    ok, out = check(x)
    t = timing.time_gpu(lambda: bwlab.transpose(x, out=out), warmup=5, reps=50).median_ms
    copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3, stream.ptr),
                           warmup=5, reps=50).median_ms
    n, s = x.shape
    print(f"{label:5} {n}x{s:<3} {x.dtype.itemsize}B {extra:>9} {2 * x.nbytes / t / 1e6:6.0f} {100 * copy / t:6.1f} "
          f"{ok}  {bwlab.explain_transpose(x).split(':')[0]}", flush=True)


def free():
    calls._plans.clear()
    cupy.get_default_memory_pool().free_all_blocks()


def main(label, which=""):
    if label == "compile":
        exprs = [x for x in plans.expressions()[plans.SKINNYTILE] if x.startswith("skinnyWords")]
        if which == "loop":
            exprs += sorted({loop_expr(e, s) for e, ss in TALL.items() for s in ss})
        build.compile_each(plans.SKINNYTILE, exprs, "sm_90")
        print(len(exprs), "compiled")
        return
    if which == "loop":  # awkward shapes first: tiles fewer than the grid, not a multiple of it, aligned rows
        for e, s, n in CHECK:
            x = array(n, s, e)
            for r, k in variants(e, s):
                force(r, k)
                ok = check(x)[0]
                print(f"check {n}x{s} {e}B R={1 << r} k={k} {ok}  {bwlab.explain_transpose(x).split(':')[0]}",
                      flush=True)
            unforce()
    for e, shorts in TALL.items():
        for s in shorts:
            x = array(long_side(s, e), s, e)
            measure(x, label)
            if which == "loop":
                for r, k in variants(e, s):
                    force(r, k)
                    measure(x, label, f"R={1 << r} k={k}")
                unforce()
            x = None
            free()


if __name__ == "__main__":
    main(*sys.argv[1:3])
