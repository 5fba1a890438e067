"""skinnyWords with the SM's shared memory carveout set to its largest (100%) against the driver's
default, on tall uint8 and uint16 sides (256 MiB, long side odd), alternately, two rounds. Why: at its
real clock the kernel waits on its global loads (../words-lean/ncu.txt: long-scoreboard stalls lead),
and more blocks an SM put more loads in flight; with the default carveout the driver may keep fewer
blocks than the registers allow. Each output, poisoned first, compared with CuPy's transpose, then
timed (CUDA events, 5 warm-ups, median of 50) beside a device copy of the same bytes; each line names
the blocks an SM the occupancy calculator gives (default / 100%) and the registers.
From this folder: PYTHONPATH=../../../../src python3 probe.py [CARVEOUTS, default -1,100]"""
import ctypes
import sys

sys.path.insert(0, "../async-tiles")
from probe import array, free, long_side, measure  # noqa: E402

from bwlab.core import launch as core_launch  # noqa: E402
from bwlab.workloads.transpose import plans  # noqa: E402

SIDES = {1: (5, 12, 17, 20, 22, 24, 29, 32, 33, 36, 41, 44, 47, 48, 52, 55, 60, 64), 2: (10, 12, 16)}
if sys.argv[2:] == ["few"]:
    SIDES = {1: (12, 20, 29, 36, 44, 55, 64), 2: (16,)}


def function(e, s):
    expr = plans.skinnytile_expression(e, True, True, s)
    fn = core_launch.function(plans.SKINNYTILE, expr)
    shared = plans.skinnytile_geometry(e, s, True, True)[2]
    core_launch.allow_shared(fn, shared)
    return fn, shared


def blocks_per_sm(fn, shared):
    lib = core_launch._driver()
    n = ctypes.c_int(0)
    ptr = ctypes.c_void_p(getattr(fn, "kernel", fn).ptr)
    threads = ctypes.c_int(plans.SKINNYTILE_THREADS)
    err = lib.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(n), ptr, threads, ctypes.c_size_t(shared))
    return n.value if err == 0 else -1


if __name__ == "__main__":
    CARVE = [int(c) for c in (sys.argv[1] if sys.argv[1:] else "-1,100").split(",")]
    for rnd in range(2):
        print(f"# round {rnd + 1}", flush=True)
        for e, sides in SIDES.items():
            for s in sides:
                if not plans.skinnytile_words(e, s, True):
                    continue
                x = array(long_side(s, e), s, e)[0]
                fn, shared = function(e, s)
                occ = []
                for carve in CARVE:
                    fn.preferred_shared_memory_carveout = carve
                    occ.append(blocks_per_sm(fn, shared))
                for carve, o in zip(CARVE, occ):
                    fn.preferred_shared_memory_carveout = carve
                    measure(x, "dflt" if carve < 0 else f"c{carve}", f"{o}b r{fn.num_regs}")
                fn.preferred_shared_memory_carveout = -1
                del x
                free()
