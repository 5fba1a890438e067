"""Why the bench times tileAny on large 8- and 16-byte matrices about 3-5% slower than probe.py does
with the same kernel on the same shapes: the same call, bwlab.transpose(x, out=out), timed as the
bench times it (CUDA events, 3 warm-ups then 30 ms more, median of 30) with x and out made and
placed in different ways, each output checked bit-exact against CuPy's transpose:
  bench   x from the bench's generator (finite floats), then out: the bench's order
  bits    x of raw random bits (probe.py's), then out
  want    probe.py's order: x, then CuPy's transpose of it (kept), then out
  gap     x, a 4 GiB buffer (kept), then out
  outfirst out, then x
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/tile-order/placement.py [ROUNDS]`."""
import statistics
import sys

import cupy

import bwlab
from bwlab.core import timing, verify
from bwlab.workloads.transpose import reference

CASES = (((16384, 16384), "complex128"), ((8192, 32768), "float64"), ((16384, 16384), "float32"))
LAYOUTS = ("bench", "bits", "want", "gap", "outfirst")


def made(layout, shape, dtype):
    """(x, out, keep): keep holds what must stay allocated while x and out are timed."""
    out_shape = shape[::-1]
    keep = []
    if layout == "outfirst":
        out = cupy.empty(out_shape, dtype)
    x = reference.random_input(shape, dtype, seed=1)
    if layout == "bits":
        verify.fill_random_bits(x.reshape(-1).view(cupy.uint8), seed=1)
    if layout == "want":
        keep.append(cupy.ascontiguousarray(x.T))
    if layout == "gap":
        keep.append(cupy.empty(4 << 30, cupy.uint8))
    if layout != "outfirst":
        out = cupy.empty(out_shape, dtype)
    return x, out, keep


def main(rounds):
    stream = cupy.cuda.get_current_stream()
    res = {}
    for shape, dtype in CASES:
        for r in range(rounds):
            for layout in LAYOUTS:
                x, out, keep = made(layout, shape, dtype)
                out.view(cupy.uint8).fill(0xA5)
                bwlab.transpose(x, out=out)
                assert bool((out.view(cupy.uint8).reshape(out.shape + (-1,)) ==
                             cupy.ascontiguousarray(x.view(cupy.uint8).reshape(x.shape + (-1,)).swapaxes(0, 1))).all())
                t = timing.time_gpu(lambda: bwlab.transpose(x, out=out), warmup=3, reps=30).median_ms
                copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                             stream.ptr), warmup=3, reps=30).median_ms
                res.setdefault((shape, dtype, layout), []).append((t, copy))
                print(f"r{r} {shape[0]}x{shape[1]} {dtype:10} {layout:8} x@{x.data.ptr:#x} out@{out.data.ptr:#x} "
                      f"{t:.4f} ms {2 * x.nbytes / t / 1e6:6.0f} GB/s, copy {copy:.4f} ms: {100 * copy / t:5.1f}%",
                      flush=True)
                x = out = None
                keep.clear()
                cupy.get_default_memory_pool().free_all_blocks()
    print("# medians over the rounds: ms, % of a copy timed on the same arrays")
    for (shape, dtype, layout), v in res.items():
        t = statistics.median(a for a, _ in v)
        c = statistics.median(b for _, b in v)
        print(f"# {shape[0]}x{shape[1]} {dtype:10} {layout:8} {t:.4f} ms {100 * c / t:5.1f}%")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
