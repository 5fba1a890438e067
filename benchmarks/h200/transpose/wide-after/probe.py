"""Wide uint8 and uint16 short sides on widePerm through the public API (S x n, n odd, at least 256 MiB: the
sides of ../skinny-every), on one variant's copy of the package (variants.py): each output, poisoned first,
compared with CuPy's transpose (False is expected of the variant nox), then timed (CUDA events, 5 warm-ups,
median of 50) beside a device copy of the same bytes (../async-tiles/probe.py's measure).
`PYTHONPATH=<copy> python3 probe.py LABEL [SET]`: SET "few" (SIDES, the default) or "every" (every uint8 and
uint16 wide side that takes widePerm); `probe.py --warm [SET]`: compile the sides' kernels first, in parallel."""
import sys
from concurrent.futures import ProcessPoolExecutor

# the wide sides under 90% in the last runs of every side, and neighbours at or over it
SIDES = {1: (40, 41, 48, 49, 58, 59, 60, 61, 64), 2: (40, 41, 53, 59, 64)}


def long_side(s, e):
    n = -(-(256 << 20) // (s * e))
    return n + 1 - n % 2


def cases(which="few"):
    from bwlab.workloads.transpose import plans
    for e, sides in SIDES.items():
        for s in sides if which == "few" else range(2, 65):
            n = long_side(s, e)
            c = plans.choose(e, plans.layout_of((s, n), (n, 1)))
            if c.expression.startswith("widePerm"):
                yield e, s, n, c.source, c.expression


def _compile(job):
    from bwlab.core import build
    src, expr = job
    r = build.compile_source(src, [expr], "sm_90").resources[expr]
    return f"# {r.registers:4} regs {r.spill_stores:3} spill {expr}"


if __name__ == "__main__":
    which = sys.argv[2] if len(sys.argv) > 2 else "few"
    if sys.argv[1] == "--warm":
        with ProcessPoolExecutor(16) as pool:
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
