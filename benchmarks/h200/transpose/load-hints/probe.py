"""Tall short sides through the public API (256 MiB, long side odd), on one variant's copy of the
package (variants.py): each output, poisoned first, compared with CuPy's transpose, then timed (CUDA
events, 5 warm-ups, median of 50) beside a device copy of the same bytes (../async-tiles/probe.py's
measure). `PYTHONPATH=<copy> python3 probe.py LABEL` (run.sh); `probe.py --list` prints the sides'
kernels (no GPU needed: the dispatch's choice from the shape)."""
import sys

SIDES = {1: (16, 18, 23, 24, 33, 36, 41, 47, 55, 64), 2: (45, 46), 4: (33, 64)}


def long_side(s, e):
    return (2**28 // (s * e)) | 1


def expressions():
    from bwlab.workloads.transpose import plans
    out = []
    for e, sides in SIDES.items():
        for s in sides:
            n = long_side(s, e)
            c = plans.choose(e, plans.layout_of((n, s), (s, 1)))
            out.append((c.source, c.expression))
    return out


if __name__ == "__main__":
    if sys.argv[1] == "--list":
        for src, ex in expressions():
            print(src.name, ex)
        sys.exit()
    sys.path.insert(0, "../async-tiles")
    from probe import array, free, measure  # noqa: E402
    for e, sides in SIDES.items():
        for s in sides:
            measure(array(long_side(s, e), s, e)[0], sys.argv[1])
            free()
