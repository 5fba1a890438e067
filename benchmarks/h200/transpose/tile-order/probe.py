"""The order of tileAny's tiles on large 2-D matrices. tileAny walks each matrix's tile columns
first, so that the blocks resident together write long runs of each output row (the variants sweep
of tileVec, 8192x8192 float32). Large 2-D matrices of 8- and 16-byte elements run at 89-91% of
memcpy where batches of 4096x4096 run at 97-98% with the same kernel: resident together, the blocks
of a 16384-row matrix read 1 KiB runs of every input row over the whole matrix (4 GiB of
complex128), those of a batch 4 KiB runs over one 4096-row matrix. order.cu is tileAny with the
order chosen at run time: c<g>, tile columns in groups of g, each group walked tile row by tile
row (c1: the production order); r<g>, tile rows in groups of g (r1: row-major); s<gc>x<gr>,
blocks of gc x gr tiles (suite_state.py). Every order is
first checked bit-exact against CuPy's transpose at awkward shapes with the output poisoned, and
each timed output too; then, per case, the orders and the dispatch alternately, CUDA events,
median of REPS, ROUNDS rounds, as % of a cudaMemcpy of the same bytes timed in the same round.
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/tile-order/probe.py [ROUNDS]`;
`--warm` compiles the kernels only."""
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDERS = (("c", 1), ("c", 2), ("c", 4), ("c", 8), ("c", 16), ("c", 64), ("r", 1), ("r", 4), ("r", 16))
# (element bytes, batch, rows, cols): 4 GiB or less each way
CASES = ((16, 1, 16384, 16384), (16, 1, 8192, 32768), (16, 1, 32768, 8192), (16, 16, 4096, 4096),
         (8, 1, 16384, 16384), (8, 1, 8192, 32768), (8, 1, 32768, 8192), (8, 32, 4096, 4096),
         (4, 1, 16384, 16384), (4, 1, 8192, 32768), (2, 1, 16384, 16384), (1, 1, 16384, 16384))
REPS = 20
# `placed`: the same kernel's speed moves with where x and out lie (placement.py)
PLACED_CASES = ((16, 1, 16384, 16384), (16, 1, 8192, 32768), (16, 1, 32768, 8192), (8, 1, 8192, 32768),
                (8, 1, 16384, 16384))
PLACEMENTS = ("x-want-out", "out-x-want", "x-out-want")
PLACED_ORDERS = (("c", 1), ("c", 2), ("c", 4), ("r", 1), ("r", 16))


def expression(e, mode=0):
    from bwlab.workloads.transpose import plans
    tr, tc, threads = plans.DEFAULT_PLAN[e]
    return f"tileOrder<{e},{tr},{tc},{threads},{mode}>", tr, tc, threads


def source(tmp):
    """order.cu beside copies of the transpose kernels' headers (it includes tile.cuh)."""
    from bwlab.workloads.transpose import plans
    for h in plans.ANY.parent.glob("*.cuh"):
        shutil.copy(h, tmp / h.name)
    shutil.copy(HERE / "order.cu", tmp / "order.cu")
    return tmp / "order.cu"


def arrays(e, batch, rows, cols, seed, placement="x-want-out"):
    """x (batch, rows, cols) of e-byte elements as unsigned words (16 bytes: pairs of uint64),
    its transpose by CuPy, and an output of the transpose's shape, allocated in the order the
    placement names (x-want-out; out-x-want: out first; x-out-want: the bench's x then out)."""
    import cupy

    from bwlab.core import verify
    dt = {1: cupy.uint8, 2: cupy.uint16, 4: cupy.uint32, 8: cupy.uint64, 16: cupy.uint64}[e]
    w = 2 if e == 16 else 1
    made = {}
    for name in placement.split("-"):
        made[name] = cupy.empty((batch, rows, cols * w) if name == "x" else (batch, cols, rows * w), dt)
        if name == "x":
            verify.fill_random_bits(made["x"], seed=seed)
    x, want = made["x"], made["want"]
    want[...] = x.reshape(batch, rows, cols, w).transpose(0, 2, 1, 3).reshape(batch, cols, rows * w)
    return x, want, made["out"]


def label(order):
    return f"{order[0]}{order[1]}" if order[0] != "s" else f"s{order[1][0]}x{order[1][1]}"


def runner(fn, x, out, e, batch, rows, cols, order):
    import numpy as np

    from bwlab.workloads.transpose import plans
    _, tr, tc, threads = expression(e)
    blocks = min(plans.MAX_BLOCKS, batch * plans.cdiv(rows, tr) * plans.cdiv(cols, tc))
    mode = "crs".index(order[0])
    g = order[1] if mode < 2 else order[1][0] | order[1][1] << 32
    args = (x, out, np.int64(rows), np.int64(cols), np.int64(batch), np.int64(g))
    return lambda: fn[mode]((blocks,), (threads,), args)


def main(rounds, cases=CASES, placements=("x-want-out",), orders=ORDERS):
    import cupy

    import bwlab
    from bwlab.core import launch, timing

    with tempfile.TemporaryDirectory() as tmp:
        src = source(Path(tmp))
        fns = {e: [launch.function(src, expression(e, m)[0]) for m in range(3)] for e in sorted({c[0] for c in cases})}
        checks = 0
        for e, fn in fns.items():
            ve = 16 // e
            for batch, a, b in ((1, 1, 1), (1, 3, 5), (1, 37, 11), (1, 65, 129), (3, 50, 7), (2, 9, 301)):
                x, want, out = arrays(e, batch, a * ve, b * ve, seed=1000 * a + b)
                for order in orders:
                    out.fill(0xA5)
                    runner(fn, x, out, e, batch, a * ve, b * ve, order)()
                    assert bool((out == want).all()), (e, batch, a * ve, b * ve, order)
                    checks += 1
        print(f"# {checks} checks passed (bit-exact, output poisoned)", flush=True)
        stream = cupy.cuda.get_current_stream()
        res = {}
        for case, placement in [(c, p) for c in cases for p in placements]:
            e, batch, rows, cols = case
            x, want, out = arrays(e, batch, rows, cols, seed=rows + cols + e, placement=placement)
            runs = {label(o): runner(fns[e], x, out, e, batch, rows, cols, o) for o in orders}
            xv, ov = (x.view(cupy.complex128), out.view(cupy.complex128)) if e == 16 else (x, out)
            if batch == 1:
                xv, ov = xv[0], ov[0]
            runs["disp"] = lambda: bwlab.transpose(xv, out=ov)
            for lab, fn in runs.items():
                out.fill(0xA5)
                fn()
                assert bool((out == want).all()), (case, lab)
            for r in range(rounds):
                copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                             stream.ptr), warmup=3, reps=REPS).median_ms
                for lab, fn in runs.items():
                    t = timing.time_gpu(fn, warmup=3, reps=REPS).median_ms
                    res.setdefault((case, placement, lab), []).append(100 * copy / t)
                    print(f"r{r} E{e:<2} {batch}x{rows}x{cols} {placement} {lab:5} "
                          f"{2 * x.nbytes / t / 1e6:6.0f} GB/s {100 * copy / t:6.1f}% of a copy", flush=True)
            x = want = out = None
            cupy.get_default_memory_pool().free_all_blocks()
    labels = [label(o) for o in orders] + ["disp"]
    print("# mean of the rounds, % of a copy (c1: the production order)")
    print(f"# {'case':22} {'placement':10} " + " ".join(f"{lab:>5}" for lab in labels))
    for case, placement in [(c, p) for c in cases for p in placements]:
        e, batch, rows, cols = case
        cells = [statistics.mean(res[(case, placement, lab)]) if (case, placement, lab) in res else None
                 for lab in labels]
        print(f"# E{e:<2} {batch}x{rows}x{cols:<8} {placement:10} " +
              " ".join("    -" if c is None else f"{c:5.1f}" for c in cells))


if __name__ == "__main__":
    if sys.argv[1:] == ["--warm"]:
        from bwlab.core import build
        with tempfile.TemporaryDirectory() as tmp:
            src = source(Path(tmp))
            exprs = [expression(e, m)[0] for e in sorted({c[0] for c in CASES}) for m in range(3)]
            b = build.compile_each(src, exprs, "sm_90", jobs=4)
            for x in exprs:
                print(x, b.resources[x])
    elif sys.argv[1:2] == ["placed"]:  # the orders where the arrays lie in three orders
        main(int(sys.argv[2]) if len(sys.argv) > 2 else 2, PLACED_CASES, PLACEMENTS, PLACED_ORDERS)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
