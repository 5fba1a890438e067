"""skinnyWords with its inner tiles' packed side brought into shared memory by bulk copies (the copy
engine, cp.async.bulk on an mbarrier: one copy a packed group, no registers or L1 lines holding the
bytes in flight) against the dispatch's skinnyWords, on tall uint8 and uint16 sides (256 MiB, long
side odd), alternately, two rounds. Why: at its own clock skinnyWords waits on its global loads, and a
smaller L1 (a larger shared-memory carveout) slowed it by 2-11 points (../words-carveout): the loads in
flight seem to need L1 room, which bulk copies do not take. A bulk copy needs 16-byte-aligned shared
addresses, so the group pitch is 16 * short plus 16 or 32 bytes (an odd number of 16-byte units), where
the dispatch's 4-byte pad keeps the row side free of bank conflicts: this layout's row-side reads are
4-way conflicted (lanes 8 groups apart share a bank). First every bulk instantiation is checked on
smaller awkward shapes; then each output of the timed shapes, poisoned first, is compared with CuPy's
transpose and timed (CUDA events, 5 warm-ups, median of 50) beside a device copy of the same bytes.
From this folder: PYTHONPATH=../../../../src python3 probe.py [few | check | pitch]"""
import ctypes
import sys

import cupy

sys.path.insert(0, "../async-tiles")
from probe import array, free, long_side, measure  # noqa: E402

import bwlab  # noqa: E402
from bwlab.core import launch as core_launch  # noqa: E402
from bwlab.core import verify  # noqa: E402
from bwlab.workloads.transpose import calls, plans  # noqa: E402

SIDES = {1: (12, 20, 24, 29, 32, 33, 36, 41, 44, 48, 52, 55, 60, 64), 2: (10, 12, 16)}
if sys.argv[1:] == ["few"]:
    SIDES = {1: (20, 36, 41, 64), 2: (16,)}
geometry, expression = plans.skinnytile_geometry, plans.skinnytile_expression


def bulk_pitch(s):
    return 16 * (s + 1 if s % 2 == 0 else s + 2)  # an odd number of 16-byte units


def force(rlog, bulk=True):
    """The dispatch's skinnyWords made the bulk form on tile 2**rlog (None: the dispatch itself;
    bulk False: the dispatch's kernel on the bulk form's pitch, which isolates the cost of its bank
    conflicts)."""
    if rlog is None:
        plans.skinnytile_geometry, plans.skinnytile_expression = geometry, expression
        calls._plans.clear()
        return

    def g(itemsize, short, tall, words=False):
        if not (tall and words):
            return geometry(itemsize, short, tall, words)
        gp = bulk_pitch(short)
        return rlog, gp, (plans.skinnytile_vectors(rlog, True) + 1) * gp

    def x(itemsize, tall, words=False, short=0, asynchronous=None):
        if not (tall and words and bulk):
            return expression(itemsize, tall, words, short, asynchronous)
        m = (short * itemsize) % 4
        return f"skinnyWords<{itemsize},true,{m},false,true>"
    plans.skinnytile_geometry, plans.skinnytile_expression = g, x
    calls._plans.clear()


def blocks_per_sm(expr, shared):
    fn = core_launch.function(plans.SKINNYTILE, expr)
    core_launch.allow_shared(fn, shared)
    n = ctypes.c_int(0)
    err = core_launch._driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
        ctypes.byref(n), ctypes.c_void_p(getattr(fn, "kernel", fn).ptr), ctypes.c_int(plans.SKINNYTILE_THREADS),
        ctypes.c_size_t(shared))
    return f"{n.value if err == 0 else -1}b r{fn.num_regs}"


def check_small(e, s, rlog):
    """Bit-exact on shapes of a few tiles: long sides odd, even, 1 and not a multiple of the tile."""
    force(rlog)
    bad = []
    v = plans.skinnytile_vectors(rlog, True) * 16 // e
    for n in (1, 7, v - 1, v + 3, 3 * v + 1, 5 * v + 8, 40001, 123457):
        x = cupy.empty((n, s), {1: cupy.uint8, 2: cupy.uint16}[e])
        verify.fill_random_bits(x, seed=n * 64 + s)
        out = cupy.full((s, n), 0xA5, x.dtype)
        bwlab.transpose(x, out=out)
        if not bool((out == x.T).all()):
            bad.append(n)
    force(None)
    return bad


if __name__ == "__main__":
    check_only = sys.argv[1:2] == ["check"]
    if sys.argv[1:2] == ["pitch"]:  # the dispatch's kernel and tile on the bulk pitch, against the dispatch
        SIDES = {1: (12, 20, 29, 36, 41, 64), 2: (10, 16)}
        for rnd in range(2):
            print(f"# round {rnd + 1}", flush=True)
            for e, sides in SIDES.items():
                for s in sides:
                    x = array(long_side(s, e), s, e)[0]
                    force(None)
                    r, gp, sh = geometry(e, s, True, True)
                    measure(x, "dflt", f"R{1 << r} gp{gp}")
                    force(r, bulk=False)
                    measure(x, "pad16", f"R{1 << r} gp{plans.skinnytile_geometry(e, s, True, True)[1]}")
                    force(None)
                    del x
                    free()
        sys.exit(0)
    if check_only:
        SIDES = {1: (12, 29, 41, 55, 64), 2: (10, 16)}
    base = {(e, s): geometry(e, s, True, True)[0] for e, sides in SIDES.items() for s in sides}
    tiles = {}
    for (e, s), r in base.items():
        tiles[e, s] = [r] + [r + 1] * ((plans.skinnytile_vectors(r + 1, True) + 1) * bulk_pitch(s) <= 80 * 1024)
        for rl in tiles[e, s]:
            print(f"# check {e}B x{s} R={1 << rl}: {'ok' if not (bad := check_small(e, s, rl)) else f'WRONG at {bad}'}",
                  flush=True)
    for rnd in range(0 if check_only else 2):
        print(f"# round {rnd + 1}", flush=True)
        for e, sides in SIDES.items():
            for s in sides:
                x = array(long_side(s, e), s, e)[0]
                force(None)
                r, gp, sh = geometry(e, s, True, True)
                measure(x, "dflt", f"R{1 << r} {sh >> 10}K " + blocks_per_sm(expression(e, True, True, s), sh))
                for rl in tiles[e, s]:
                    force(rl)
                    sh = plans.skinnytile_geometry(e, s, True, True)[2]
                    occ = blocks_per_sm(plans.skinnytile_expression(e, True, True, s), sh)
                    measure(x, "bulk", f"R{1 << rl} {sh >> 10}K {occ}")
                force(None)
                del x
                free()
