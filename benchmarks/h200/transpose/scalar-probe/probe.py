"""complex128 tiles: the dispatch's tileAny against tileScalar and every tileAny candidate, each
checked bit-exact (poisoned output) and timed against a device copy of the same bytes (run as
`PYTHONPATH=src python3 benchmarks/h200/transpose/scalar-probe/probe.py`). The same harness, with
variants of tile.cuh compiled beside it, measured tileScalar's pointer chains (chains.txt)."""
import cupy

from bwlab.core import build
from bwlab.core.arrays import as_operand
from bwlab.core.launch import arch_of
from bwlab.workloads.transpose import calls, plans

CASES = [("16383x16389", "complex128"), ("4097x4103", "complex128"), ("8192x16384", "complex128"),
         ("4x2048x4103", "complex128"), ("11585x11587", "complex128"), ("6000x7000", "complex128")]

SOURCES = {"scalar": plans.SCALAR, "any": plans.ANY}


def variants(e):
    out = [plans.Choice("scalar", e, plans.SCALAR, plans.tile_expression(e, c, "tileScalar"), c[2], "scalar")
           for c in plans.SCALAR_CANDIDATES[e] + ((64, 32, 256), (32, 64, 256))]
    out += [plans.Choice("tile", e, plans.ANY, plans.tile_expression(e, c), c[2], "any")
            for c in plans.TILE_CANDIDATES[e]]
    return out


def timed(fn, reps=15, batch=4):
    fn()
    cupy.cuda.runtime.deviceSynchronize()
    ms = []
    for _ in range(reps):
        a, b = cupy.cuda.Event(), cupy.cuda.Event()
        a.record()
        for _ in range(batch):
            fn()
        b.record()
        b.synchronize()
        ms.append(cupy.cuda.get_elapsed_time(a, b) / batch)
    ms.sort()
    return ms[len(ms) // 2]


def main():
    regs = {}
    for src in SOURCES.values():
        exprs = sorted({c.expression for _, d in CASES for c in variants(cupy.dtype(d).itemsize) if c.source == src})
        if exprs:
            regs.update({(src, k): v for k, v in build.compile_each(src, exprs, arch_of(0)).resources.items()})
    for shp, d in CASES:
        shape = tuple(int(v) for v in shp.split("x"))
        x = cupy.random.default_rng(1).integers(0, 255, size=shape, dtype=cupy.uint8).view(cupy.uint8)
        x = (cupy.random.default_rng(1).random(shape) + 1j * cupy.random.default_rng(2).random(shape)).astype(d)
        want = cupy.ascontiguousarray(cupy.swapaxes(x, -1, -2))
        nbytes = 2 * x.nbytes
        a, b = cupy.empty(x.nbytes, cupy.uint8), cupy.empty(x.nbytes, cupy.uint8)
        copy = nbytes / timed(lambda: cupy.copyto(b, a)) / 1e6
        a = b = None
        out = cupy.empty_like(want)
        xo = as_operand(x, "x")
        lay = plans.layout_of(xo.shape, xo.strides)
        default = plans.choose(x.itemsize, lay)
        for c in [default] + variants(x.itemsize):
            run = calls.kernel_runner(c, lay, xo)
            out.fill(7)
            run(x.data.ptr, out.data.ptr, cupy.cuda.get_current_stream().ptr)
            ok = bool((out.view(cupy.uint8) == want.view(cupy.uint8)).all())
            ms = timed(lambda: run(x.data.ptr, out.data.ptr, cupy.cuda.get_current_stream().ptr))
            gb = nbytes / ms / 1e6
            r = regs.get((c.source, c.expression))
            info = f"regs {r.registers} spill {r.spills}" if r else "(dispatch)"
            print(f"{shp:14s} {d:8s} {c.expression:26s} {c.reason:6s} {gb:6.0f} GB/s {100 * gb / copy:5.1f}%"
                  f"  ok={ok}  {info}", flush=True)


if __name__ == "__main__":
    main()
