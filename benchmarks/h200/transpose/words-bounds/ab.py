"""skinnyWords through registers at 4 blocks an SM (launch bounds: 64 registers) against 3 (85): every
tall uint8 and uint16 short side whose dispatch takes that form (plans.words_async false), 256 MiB,
rows misaligned. Each output, poisoned first, is compared with CuPy's transpose, then timed beside a
device copy (measure() of ../async-tiles/probe.py). From this folder: `PYTHONPATH=<tree>/src python3 ab.py LABEL`."""
import sys

sys.path.insert(0, "../async-tiles")
from probe import array, free, long_side, measure  # noqa: E402

from bwlab.workloads.transpose import plans  # noqa: E402


def main(label):
    for e in (1, 2):
        for s in range(2, 65):
            if plans.skinnytile_words(e, s, True) and not plans.words_async(e, s):
                measure(array(long_side(s, e), s, e)[0], label)
                free()


if __name__ == "__main__":
    main(sys.argv[1])
