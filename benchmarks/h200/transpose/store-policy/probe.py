"""Tall short sides through the public API (256 MiB, long side odd), for an A/B of two trees run
alternately (ab.sh): each output, poisoned first, compared with CuPy's transpose, then timed (CUDA
events, 5 warm-ups, median of 50) beside a device copy of the same bytes (../async-tiles/probe.py's
measure). `PYTHONPATH=<tree>/src python3 probe.py LABEL`."""
import sys

sys.path.insert(0, "../async-tiles")
from probe import array, free, long_side, measure  # noqa: E402

SIDES = {1: (12, 20, 29, 36, 41, 48, 55, 64), 2: (16, 46, 48), 4: (33, 64), 8: (36,)}

if __name__ == "__main__":
    for e, sides in SIDES.items():
        for s in sides:
            measure(array(long_side(s, e), s, e)[0], sys.argv[1])
            free()
