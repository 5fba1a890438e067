"""skinnyTile's TALL tile of 2-byte elements with H = 1 (skinnyTile<2,true>: uint16 tall 45 to 48 columns,
the only sides that take it) compiled for four blocks an SM (at most 64 registers) instead of three, as
skinnyWords through registers is: through the public API on one tree (`PYTHONPATH=<tree> python3 probe.py
LABEL`), each output, poisoned first, compared with CuPy's transpose, then timed (CUDA events, 5 warm-ups,
median of 50) beside a device copy of the same bytes (../async-tiles/probe.py's measure). Shapes: the
every-side suite's (n odd, 256 MiB), and rows in whole vectors at 45 and 47 columns."""
import sys

import cupy

sys.path.insert(0, "../async-tiles")
from probe import free, measure  # noqa: E402

from bwlab.core import verify  # noqa: E402

SHAPES = [((-(-(256 << 20) // (2 * s))) | 1, s) for s in (45, 46, 47, 48)] + [(2982616, 45), (2855696, 47)]

if __name__ == "__main__":
    for n, s in SHAPES:
        x = cupy.empty((n, s), cupy.uint16)
        verify.fill_random_bits(x, seed=n + s)
        measure(x, sys.argv[1])
        x = None
        free()
