"""tileAny's tiles for 16-byte elements (plans.TILE_CANDIDATES[16]) on large 2-D complex128 matrices in a
fresh process: 16383x16389, which ran at 90% of memcpy alone and in `--suite main` alike, and 16384x16384,
which ran at 94-95% alone and 89% after the suite's earlier cases, 8191x32771 and 32771x8191; with
EXTRA, six larger tiles outside the candidates (the second run). Each tile forced, checked bit-exact
against CuPy's transpose with the output poisoned, then timed alternately with the dispatch (32x32, 128
threads), CUDA events, median of 30, ROUNDS rounds, as % of a cudaMemcpy of the same bytes.
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/tile-order/tiles16.py [ROUNDS [more]]`
(`more`: 64x32 and 32x64 with 128 threads on the other aligned 16-byte shapes of the suites)."""
import statistics
import sys

from bwlab.workloads.transpose import plans

SHAPES = ((1, 16383, 16389), (1, 16384, 16384), (1, 8191, 32771), (1, 32771, 8191))
# `more`: the two tiles that led, on the other aligned 16-byte shapes of the suites (batch, rows, cols)
MORE = ((16, 4096, 4096), (1, 4097, 4103), (4, 2048, 4103), (1, 64, 4194304), (1, 1024, 1024), (1, 32768, 8192),
        (1, 16383, 16389))
MORE_TILES = ((64, 32, 128), (32, 64, 128))
# tiles tileAny takes for 16-byte elements beyond its candidates (plans.tile_legal): more bytes a block
EXTRA = ((64, 32, 256), (32, 64, 256), (64, 32, 128), (32, 64, 128), (64, 32, 512), (32, 64, 512))


def main(rounds, shapes=SHAPES, tiles=None):
    import cupy

    import bwlab
    from bwlab.core import timing, verify
    from bwlab.workloads.transpose import calls

    stream = cupy.cuda.get_current_stream()
    res = {}
    for batch, rows, cols in shapes:
        x = cupy.empty((batch, rows, cols), cupy.complex128)
        verify.fill_random_bits(x.view(cupy.uint64), seed=rows)
        want = cupy.ascontiguousarray(x.swapaxes(1, 2)).view(cupy.uint64)
        out = cupy.empty((batch, cols, rows), cupy.complex128)
        xv, ov = (x[0], out[0]) if batch == 1 else (x, out)
        runs = {"disp": lambda: bwlab.transpose(xv, out=ov)}
        for cfg in tiles or plans.TILE_CANDIDATES[16] + EXTRA:
            ch = plans.Choice("tile", 16, plans.ANY, plans.tile_expression(16, cfg), cfg[2])
            runs[f"{cfg[0]}x{cfg[1]}/{cfg[2]}"] = (
                lambda ch=ch: calls.launch(ch, x.data.ptr, out.data.ptr, batch, rows, cols, x.nbytes, 0, stream.ptr))
        for lab, fn in runs.items():
            out.view(cupy.uint64).fill(0xA5A5A5A5A5A5A5A5)
            fn()
            assert bool((out.view(cupy.uint64) == want).all()), (batch, rows, cols, lab)
        for r in range(rounds):
            copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                         stream.ptr), warmup=3, reps=30).median_ms
            for lab, fn in runs.items():
                t = timing.time_gpu(fn, warmup=3, reps=30).median_ms
                res.setdefault((batch, rows, cols, lab), []).append(100 * copy / t)
                print(f"r{r} {batch}x{rows}x{cols} {lab:12} {2 * x.nbytes / t / 1e6:6.0f} GB/s "
                      f"{100 * copy / t:6.1f}% of a copy",
                      flush=True)
        x = want = out = None
        cupy.get_default_memory_pool().free_all_blocks()
    print("# mean of the rounds, % of a copy")
    for k, v in res.items():
        print(f"# {k[0]}x{k[1]}x{k[2]} {k[3]:12} {statistics.mean(v):6.1f}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--warm"]:
        from bwlab.core import build
        exprs = [plans.tile_expression(16, c) for c in plans.TILE_CANDIDATES[16] + EXTRA]
        b = build.compile_each(plans.ANY, exprs, "sm_90", jobs=4)
        for e in exprs:
            print(e, b.resources[e])
        sys.exit()
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    if sys.argv[2:] == ["more"]:
        main(rounds, MORE, MORE_TILES)
    else:
        main(rounds)
