"""widePerm with its blocks walking the long side in interleaved windows (order.patch.py), against the
tree as it is, on wide uint8 and uint16 [S, n] (from ../wide-n: 41 rows at the every-side runs' n0
and at n0 - 65536, 40, 42, 48, 64 rows at theirs). Each output, poisoned first, is compared with
CuPy's transpose, then timed beside a device copy of the same bytes (../async-tiles/probe.py's
measure). From this folder: `PYTHONPATH=<tree> python3 probe.py LABEL ROUND`."""
import sys

sys.path.insert(0, "../async-tiles")
from probe import free, long_side, measure  # noqa: E402

import cupy  # noqa: E402

from bwlab.core import verify  # noqa: E402

DT = {1: cupy.uint8, 2: cupy.uint16}
CASES = [(1, 41, 0), (1, 41, -65536), (1, 40, 0), (1, 42, 0), (1, 48, 0), (1, 64, 0), (1, 37, 0), (2, 41, 0),
         (2, 64, 0), (1, 16, 0)]


def main(label, rnd):
    for e, s, dn in CASES:
        n = long_side(s, e) + dn
        x = cupy.empty((s, n), DT[e])
        verify.fill_random_bits(x, seed=s + n)
        measure(x, f"{label[:2]}{rnd}", f"n0{dn:+d}")
        x = None
        free()


if __name__ == "__main__":
    main(*sys.argv[1:])
