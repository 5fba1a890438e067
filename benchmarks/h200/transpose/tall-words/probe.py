"""tallPerm (tall uint8 and uint16 matrices of 2 and 3 columns) through the public API, on one tree's
copy of the package: each output, poisoned first, compared with CuPy's transpose, then timed (CUDA
events, 5 warm-ups, median of 50) beside a device copy of the same bytes (../async-tiles/probe.py's
measure). Long sides near 256 MiB with each residue of n mod 4 but 0 (every row but the first
misaligned: row s starts s * n * E bytes in). From this folder: `PYTHONPATH=<tree>/src python3 probe.py LABEL`."""
import sys

import cupy

sys.path.insert(0, "../async-tiles")
from probe import free, measure  # noqa: E402

from bwlab.core import verify  # noqa: E402

DT = {1: cupy.uint8, 2: cupy.uint16}


def cases():
    for e in (1, 2):
        for s in (2, 3):
            n0 = (2**28 // (s * e)) | 1
            for n in (n0, n0 + 1, n0 + 2):
                yield e, s, n


if __name__ == "__main__":
    for e, s, n in cases():
        x = cupy.empty((n, s), DT[e])
        verify.fill_random_bits(x, seed=n + s)
        measure(x, sys.argv[1])
        x = None
        free()
