"""Wide short sides through the public API (S x n, n odd, at least 256 MiB: the sides of ../skinny-every),
on one variant's copy of the package (variants.py): each output, poisoned first, compared with CuPy's
transpose, then timed (CUDA events, 5 warm-ups, median of 50) beside a device copy of the same bytes
(../async-tiles/probe.py's measure). `PYTHONPATH=<copy> python3 probe.py LABEL [SET]`: SET "six" (the
uint8 sides of variants.ORD, the default), "every" (every uint8 and uint16 side that takes widePerm) or
"final" (FINAL);
`probe.py --warm SET`: compile the sides' kernels first, in parallel (no GPU needed)."""
import sys
from concurrent.futures import ProcessPoolExecutor

from variants import SIDES


def long_side(s, e):
    n = -(-(256 << 20) // (s * e))
    return n + 1 - n % 2


# the set "final": the sides the dispatch orders, and neighbours that it does not
FINAL = {1: (40, 41, 60, 61, 64), 2: (40, 41, 53)}


def cases(which):
    from bwlab.workloads.transpose import plans
    out = []
    for e in (1, 2) if which != "six" else (1,):
        for s in range(2, 65) if which == "every" else FINAL[e] if which == "final" else SIDES:
            n = long_side(s, e)
            c = plans.choose(e, plans.layout_of((s, n), (n, 1)))
            if c.expression.startswith("widePerm"):
                out.append((e, s, n, c.source, c.expression))
    return out


def _compile(job):
    from bwlab.core import build
    src, expr = job
    r = build.compile_source(src, [expr], "sm_90").resources[expr]
    return f"# {r.registers:4} regs {r.spill_stores:3} spill {expr}"


if __name__ == "__main__":
    which = sys.argv[2] if len(sys.argv) > 2 else "six"
    if sys.argv[1] == "--warm":
        with ProcessPoolExecutor(int(sys.argv[3]) if len(sys.argv) > 3 else 8) as pool:
            for line in pool.map(_compile, [(c[3], c[4]) for c in cases(which)]):
                print(line, flush=True)
        sys.exit()
    import cupy

    sys.path.insert(0, "../async-tiles")
    from probe import free, measure  # noqa: E402
    from bwlab.core import verify

    for e, s, n, _, _ in cases(which):
        x = cupy.empty((s, n), {1: cupy.uint8, 2: cupy.uint16}[e])
        verify.fill_random_bits(x, seed=s)
        measure(x, sys.argv[1])
        x = None
        free()
