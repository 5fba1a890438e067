"""tileAny's tiles for 16-byte elements (plans.TILE_CANDIDATES[16]) on large 2-D complex128 matrices in a
fresh process: 16383x16389, which ran at 90% of memcpy alone and in `--suite main` alike, and 16384x16384,
which ran at 94-95% alone and 89% after the suite's earlier cases. Each tile forced, checked bit-exact
against CuPy's transpose with the output poisoned, then timed alternately with the dispatch (32x32, 128
threads), CUDA events, median of 30, ROUNDS rounds, as % of a cudaMemcpy of the same bytes.
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/tile-order/tiles16.py [ROUNDS]`."""
import statistics
import sys

import cupy

import bwlab
from bwlab.core import timing, verify
from bwlab.workloads.transpose import calls, plans

SHAPES = ((16383, 16389), (16384, 16384), (8191, 32771))


def main(rounds):
    stream = cupy.cuda.get_current_stream()
    res = {}
    for rows, cols in SHAPES:
        x = cupy.empty((rows, cols), cupy.complex128)
        verify.fill_random_bits(x.view(cupy.uint64), seed=rows)
        want = cupy.ascontiguousarray(x.T).view(cupy.uint64)
        out = cupy.empty((cols, rows), cupy.complex128)
        runs = {"disp": lambda: bwlab.transpose(x, out=out)}
        for cfg in plans.TILE_CANDIDATES[16]:
            ch = plans.Choice("tile", 16, plans.ANY, plans.tile_expression(16, cfg), cfg[2])
            runs[f"{cfg[0]}x{cfg[1]}/{cfg[2]}"] = (
                lambda ch=ch: calls.launch(ch, x.data.ptr, out.data.ptr, 1, rows, cols, x.nbytes, 0, stream.ptr))
        for lab, fn in runs.items():
            out.view(cupy.uint64).fill(0xA5A5A5A5A5A5A5A5)
            fn()
            assert bool((out.view(cupy.uint64) == want).all()), (rows, cols, lab)
        for r in range(rounds):
            copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                         stream.ptr), warmup=3, reps=30).median_ms
            for lab, fn in runs.items():
                t = timing.time_gpu(fn, warmup=3, reps=30).median_ms
                res.setdefault((rows, cols, lab), []).append(100 * copy / t)
                print(f"r{r} {rows}x{cols} {lab:12} {2 * x.nbytes / t / 1e6:6.0f} GB/s "
                      f"{100 * copy / t:6.1f}% of a copy",
                      flush=True)
        x = want = out = None
        cupy.get_default_memory_pool().free_all_blocks()
    print("# mean of the rounds, % of a copy")
    for k, v in res.items():
        print(f"# {k[0]}x{k[1]} {k[2]:12} {statistics.mean(v):6.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
