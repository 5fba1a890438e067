"""Does a skinny transpose's speed depend on its long side, or only on its short side? The dispatch
(the public API) on a few short sides that missed 90% of a copy in the runs of every side, each at
six odd long sides near 256 MiB (the one those runs used, n0, and n0 + 2, + 16, + 130, + 4098, -
1024): wide 40, 41 and 42 rows of uint8 and uint16 (41 rows stood 5 points below its neighbours in
both), and the worst tall side of each element size. Each output, poisoned first, compared with
CuPy's transpose, then timed (CUDA events, 5 warm-ups, median of 50) beside a device copy of the
same bytes; two rounds. The kernels are compiled first, in parallel. From this folder:
PYTHONPATH=../../../../src python3 probe.py"""
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "async-tiles"))
from probe import DT, array, free, long_side, measure  # noqa: E402

from bwlab.workloads.transpose import plans  # noqa: E402

CASES = [(1, 40, False), (1, 41, False), (1, 42, False), (2, 40, False), (2, 41, False), (2, 42, False),
         (1, 36, True), (2, 37, True), (4, 50, True), (8, 64, True)]
STEPS = (0, 2, 16, 130, 4098, -1024)


def compile_one(args):
    from bwlab.core import build
    src, expr = args
    return expr, build.compile_source(src, [expr], "sm_90").resources.get(expr)


def shape(e, s, tall, d):
    n = long_side(s, e) + d
    return (n, s) if tall else (s, n)


def main():
    jobs = set()
    for e, s, tall in CASES:
        r, c = shape(e, s, tall, 0)
        ch = plans.choose(e, plans.layout_of((r, c), (c, 1)))
        jobs.add((str(ch.source), ch.expression))
    with ProcessPoolExecutor(16) as pool:
        for expr, res in pool.map(compile_one, sorted(jobs)):
            print(f"# {expr} {res}", flush=True)
    print("# label shape itemsize side GB/s %copy ok kernel")
    for rnd in range(2):
        print(f"# round {rnd + 1}", flush=True)
        for e, s, tall in CASES:
            for d in STEPS:
                r, c = shape(e, s, tall, d)
                x = array(r, c, e)[0]
                assert x.dtype == DT[e]
                measure(x, f"n0{d:+}" if d else "n0", "tall" if tall else "wide")
                del x
                free()


if __name__ == "__main__":
    main()
