"""Shapes of every production transpose family through the public API, for an A/B of two trees run
alternately (ab2.sh): aligned and misaligned 2-D, wide and tall short sides of 1 to 8 bytes. Each
output, poisoned first, compared with CuPy's transpose, then timed (CUDA events, 5 warm-ups, median of
50) beside a device copy of the same bytes (../async-tiles/probe.py's measure).
`PYTHONPATH=<tree>/src python3 probe2.py LABEL`."""
import sys

sys.path.insert(0, "../async-tiles")
from probe import array, free, long_side, measure  # noqa: E402

CASES = [(16384, 16384, 1), (16384, 16384, 4), (8192, 8192, 16),                    # aligned
         (16383, 16389, 1), (16383, 16389, 2), (8193, 8199, 4), (11587, 11593, 8),  # misaligned
         (4096, 8199, 4)]
for e, shorts in ((1, (31, 41, 48, 64)), (2, (41, 60)), (4, (33, 41)), (8, (41,))):  # wide
    CASES += [(s, long_side(s, e), e) for s in shorts]
for e, shorts in ((1, (2, 3, 5, 33, 63)), (2, (3, 49)), (4, (2, 48)), (8, (64,))):   # tall
    CASES += [(long_side(s, e), s, e) for s in shorts]

# `probe2.py LABEL big`: about 1 GiB each instead (whether the store kind's effect holds past 256 MiB)
BIG = [(32768, 32768, 1), (32767, 32771, 1), (16383, 16389, 4), (41, 26188831, 1), (17043521, 63, 1),
       (64, 16777217, 1)]

if __name__ == "__main__":
    for rows, cols, e in (BIG if sys.argv[2:] == ["big"] else CASES):
        measure(array(rows, cols, e)[0], sys.argv[1])
        free()
