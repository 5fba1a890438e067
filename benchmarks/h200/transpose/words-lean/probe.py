"""bwlab.transpose's dispatch on tall uint8 and uint16 short sides that take skinnyWords (256 MiB, long
side odd: every row but the first off the 16-byte grid), for an A/B of two trees (the tree with its row
side leaner, lean.patch, against the tree before it, run alternately by run.sh). Each output, poisoned
first, compared with CuPy's transpose, then timed (CUDA events, 5 warm-ups, median of 50) beside a
device copy of the same bytes. From this folder: PYTHONPATH=<tree>/src python3 probe.py LABEL"""
import sys

sys.path.insert(0, "../async-tiles")
from probe import array, free, long_side, measure  # noqa: E402

SIDES = {1: (4, 5, 8, 12, 16, 17, 20, 22, 24, 29, 32, 33, 36, 41, 44, 47, 48, 52, 55, 60, 64), 2: (4, 8, 10, 12, 16)}

if __name__ == "__main__":
    for e, sides in SIDES.items():
        for s in sides:
            measure(array(long_side(s, e), s, e)[0], sys.argv[1], "tall")
            free()
