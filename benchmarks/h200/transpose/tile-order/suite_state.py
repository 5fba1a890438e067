"""Whether what `--suite main` ran before a case slows tileAny there. In the suite's runs 16384x16384
complex128 took 2.238 ms (89% of memcpy), alone (`--shapes 16384x16384 --dtypes complex128`) and in
the probes 2.12 ms (95%). Here, in one process: bwlab.transpose and tile orders (probe.py's kernels)
on fresh arrays first; then the bench's own cases of 16384x16384 before complex128 (uint8, float16,
float32, float64, every peer), then complex128 through the bench; then the same timings on fresh
arrays again. Every output checked bit-exact against CuPy's transpose.
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/tile-order/suite_state.py`."""
import sys
import tempfile
from pathlib import Path

import cupy

sys.path.insert(0, str(Path(__file__).resolve().parent))
import probe  # noqa: E402

import bwlab  # noqa: E402
from bwlab import workloads  # noqa: E402
from bwlab.core import launch, timing  # noqa: E402
from bwlab.core.workload import Case  # noqa: E402
from bwlab.lab import bench  # noqa: E402

ORDERS = (("c", 1), ("c", 2), ("c", 4), ("c", 8), ("r", 1), ("r", 4), ("s", (4, 32)), ("s", (8, 16)),
          ("s", (16, 16)), ("s", (32, 32)), ("s", (8, 128)))


def timed(fns, label):
    stream = cupy.cuda.get_current_stream()
    for e, rows, cols in ((16, 16384, 16384), (8, 8192, 32768)):
        x, want, out = probe.arrays(e, 1, rows, cols, seed=5, placement="x-out-want")
        xv, ov = (x.view(cupy.complex128), out.view(cupy.complex128)) if e == 16 else (x, out)
        runs = {probe.label(o): probe.runner(fns[e], x, out, e, 1, rows, cols, o) for o in ORDERS}
        runs["disp"] = lambda: bwlab.transpose(xv[0], out=ov[0])
        copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                     stream.ptr), warmup=3, reps=30).median_ms
        cells = []
        for name, fn in runs.items():
            out.fill(0xA5)
            fn()
            assert bool((out == want).all()), (label, e, name)
            t = timing.time_gpu(fn, warmup=3, reps=30).median_ms
            cells.append(f"{name} {t:.4f} ms {100 * copy / t:5.1f}%")
        print(f"# {label:6} E{e:<2} {rows}x{cols} x@{x.data.ptr:#x} out@{out.data.ptr:#x}: " + ", ".join(cells),
              flush=True)
        x = want = out = None
        cupy.get_default_memory_pool().free_all_blocks()


def main():
    with tempfile.TemporaryDirectory() as tmp:
        src = probe.source(Path(tmp))
        fns = {e: [launch.function(src, probe.expression(e, m)[0]) for m in range(3)] for e in (8, 16)}
        timed(fns, "fresh")
        w = workloads.get("transpose")
        cases = [Case((16384, 16384), d) for d in ("uint8", "float16", "float32", "float64", "complex128")]
        run = bench.run_bench(w, cases, reps=30)
        for r in run.records:
            if r.name in ("bwlab", "cudaMemcpy") and r.gbs:
                print(f"# suite  {r.dtype:10} {r.name:10} {r.timing['median_ms']:.4f} ms {r.gbs:6.0f} GB/s", flush=True)
        timed(fns, "after")


if __name__ == "__main__":
    main()
