"""The tall shared tiles (skinnyWords, skinnyTile) with their packed side copied into shared memory
by cp.async instead of through registers in rounds, on tall shapes of 1 to 16 bytes (256 MiB,
rows misaligned; 4-, 8- and 16-byte elements as unsigned integers). Each output, poisoned first,
is compared with CuPy's transpose, then timed (CUDA events, 5 warm-ups, median of 50) beside a
device copy of the same bytes. From this folder, `PYTHONPATH=<tree>/src python3 probe.py LABEL`:
the public API's dispatch (an A/B of two trees); `probe.py LABEL rule`: the same on the short sides
that check plans.words_async; `probe.py sweep`: tile sizes forced on this tree."""
import sys

import cupy

import bwlab
from bwlab.core import timing, verify
from bwlab.workloads.transpose import calls, plans

DT = {1: cupy.uint8, 2: cupy.uint16, 4: cupy.uint32, 8: cupy.uint64}
TALL = {1: (4, 5, 7, 8, 9, 12, 13, 16, 17, 24, 31, 32, 33, 48, 63, 64), 2: (5, 12, 17, 24, 33, 64),
        4: (2, 5, 9, 17, 24, 33, 48, 63, 64), 8: (3, 9, 20, 33, 64), 16: (5, 17, 33)}
# the rule's check (plans.words_async): uint8 and uint16 short sides it sends to cp.async, measured
# and not, and two it leaves on registers
RULE = {1: (5, 9, 10, 11, 13, 16, 17, 18, 20, 21, 33, 36, 39, 41, 44), 2: (10,)}
SWEEP = [(1, 5), (1, 9), (1, 13), (1, 17), (1, 33), (1, 64), (4, 33), (4, 48), (4, 64)]
geometry = plans.skinnytile_geometry


def long_side(s, e):
    """An odd long side near 256 MiB (so every long row but the first is misaligned)."""
    return (2**28 // (s * e)) | 1


def array(n, s, e):
    if e == 16:  # 16-byte elements as pairs of uint64
        x = cupy.empty((n, s, 2), cupy.uint64)
        verify.fill_random_bits(x, seed=n + s)
        return x.view(cupy.complex128).reshape(n, s), x
    x = cupy.empty((n, s), DT[e])
    verify.fill_random_bits(x, seed=n + s)
    return x, x


def measure(x, label, extra=""):
    stream = cupy.cuda.get_current_stream()
    want = cupy.ascontiguousarray(x.T)
    out = cupy.empty_like(want)
    bits = (lambda a: a.view(cupy.uint64)) if x.dtype.itemsize == 16 else (lambda a: a)
    bits(out).fill(0xA5)
    bwlab.transpose(x, out=out)
    ok = bool((bits(out) == bits(want)).all())
    t = timing.time_gpu(lambda: bwlab.transpose(x, out=out), warmup=5, reps=50).median_ms
    copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3, stream.ptr),
                           warmup=5, reps=50).median_ms
    n, s = x.shape
    print(f"{label:5} {n}x{s:<3} {x.dtype.itemsize:2}B {extra:>10} {2 * x.nbytes / t / 1e6:6.0f} {100 * copy / t:6.1f} "
          f"{ok}  {bwlab.explain_transpose(x).split(':')[0]}", flush=True)


def forced(rlog):
    def g(itemsize, short, tall, words=False):
        r, gp, smem = geometry(itemsize, short, tall, words)
        if tall:
            r = rlog
            smem = (plans.skinnytile_vectors(r, words) + 1) * gp
        return r, gp, smem
    return g


def free():
    calls._plans.clear()
    cupy.get_default_memory_pool().free_all_blocks()


def main(label, which="all"):
    if label != "sweep":
        for e, shorts in (RULE if which == "rule" else TALL).items():
            for s in shorts:
                measure(array(long_side(s, e), s, e)[0], label)
                free()
        return
    for e, s in SWEEP:
        x = array(long_side(s, e), s, e)[0]
        words = plans.skinnytile_words(e, s, True)
        rule, gp, _ = geometry(e, s, True, words)
        for r in range(6):
            smem = (plans.skinnytile_vectors(r, words) + 1) * gp
            if smem > 100 * 1024:
                continue
            plans.skinnytile_geometry = forced(r)
            calls._plans.clear()
            measure(x, "sweep", f"R={1 << r}{'*' if r == rule else ''} {smem // 1024}K")
        plans.skinnytile_geometry = geometry
        x = None
        free()


if __name__ == "__main__":
    main(*sys.argv[1:3])
