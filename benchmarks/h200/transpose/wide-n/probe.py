"""Is the wide 41-row case slow for its short side or for its long one? The public API on wide
uint8 and uint16 arrays [S, n] for S = 40, 41, 42 at the long side of the every-side runs (the odd
n nearest 256 MiB) and at other odd n around it. Each output, poisoned first, is compared with
CuPy's transpose, then timed beside a device copy of the same bytes (../async-tiles/probe.py's
measure). From this folder: `PYTHONPATH=../../../../src python3 probe.py`."""
import sys

sys.path.insert(0, "../async-tiles")
from probe import free, long_side, measure  # noqa: E402

import cupy  # noqa: E402

from bwlab.core import verify  # noqa: E402

DT = {1: cupy.uint8, 2: cupy.uint16}


def main():
    for e in (1, 2):
        for s in (40, 41, 42):
            n0 = long_side(s, e)
            for n in (n0, n0 + 2, n0 + 64, n0 + 4098, n0 - 65536, (n0 * 9 // 10) | 1, (n0 * 11 // 10) | 1):
                x = cupy.empty((s, n), DT[e])
                verify.fill_random_bits(x, seed=s + n)
                measure(x, "r1", f"n0{n - n0:+d}")
                x = None
                free()


if __name__ == "__main__":
    main()
