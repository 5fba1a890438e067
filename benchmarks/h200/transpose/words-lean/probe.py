"""skinnyWords with its row side leaner (LEAN: each misaligned row realigned in a warp-uniform branch
on its offset, shuffling only the previous lane's words it uses, no selects; its output address from
the row's first byte, no 64-bit multiply a row) against the dispatch, on tall uint8 and uint16 short
sides (256 MiB, long side odd: every row but the first off the 16-byte grid), alternately, two rounds.
Why: Nsight Compute put the kernel's issue slots 65-76% busy (math pipe throttle stalls) where it
runs at 84-94% of a copy (../skinny-every/ncu.txt). Each output, poisoned first, compared with CuPy's
transpose, then timed (CUDA events, 5 warm-ups, median of 50) beside a device copy of the same
bytes. From this folder: PYTHONPATH=../../../../src python3 probe.py"""
import sys

sys.path.insert(0, "../async-tiles")
from probe import array, free, long_side, measure  # noqa: E402

from bwlab.workloads.transpose import calls, plans  # noqa: E402
from lean import EXPRESSION, lean  # noqa: E402

SIDES = {1: (4, 5, 8, 12, 16, 17, 20, 22, 24, 29, 32, 33, 36, 41, 44, 47, 48, 52, 55, 60, 64), 2: (4, 8, 10, 12, 16)}
def variant(name):
    plans.skinnytile_expression = lean if name == "lean" else EXPRESSION
    calls._plans.clear()


if __name__ == "__main__":
    for rnd in range(2):
        print(f"# round {rnd + 1}", flush=True)
        for e, sides in SIDES.items():
            for s in sides:
                x = array(long_side(s, e), s, e)[0]
                for name in ("disp", "lean"):
                    variant(name)
                    measure(x, name, "tall")
                variant("disp")
                del x
                free()
