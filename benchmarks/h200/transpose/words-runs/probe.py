"""tileWholeWords with runs (its RUNS form: a block takes a run of tiles down one strip of columns,
each tile after the first keeping the rows it shares with the tile before in shared memory, runs
walking down and up in turn, the last waves one tile a block) against one tile a block, on
misaligned 1- and 2-byte transposes of 256-512 MiB. Variants: (tiles a run, walk up every other
run, waves of single tiles at the end). Every variant's output is poisoned, then checked
bit-exact against CuPy's transpose, on the timed shapes and on small awkward ones (row slices at
odd offsets, batches, extents not a multiple of the tile); then timed around copies of the same
bytes (median of 15 batches of 4 calls, the variants in a rotated order each round). Run from the
repository root with PYTHONPATH=src."""
import sys

import cupy as cp

from bwlab.workloads.transpose import calls, plans

SHAPES = [("uint8", (1, 16383, 16389)), ("uint8", (4, 8191, 16389)), ("uint8", (1, 16389, 16384)),
          ("uint8", (1, 16384, 16389)), ("uint8", (1, 20011, 13417)), ("uint8", (1, 23173, 23171)),
          ("uint16", (1, 11587, 11593)), ("uint16", (4, 5793, 11593)), ("uint16", (1, 8191, 16389))]
TILE = {1: ((256, 124, 512), 3), 2: ((128, 124, 256), 4)}
VARIANTS = {1: [None, (1, 1, 2), (2, 1, 2), (4, 1, 2), (8, 1, 2), (4, 0, 2), (8, 1, 4), (16, 1, 2)],
            2: [None, (4, 1, 2), (8, 1, 2), (4, 0, 2)]}
# (batch, rows, cols, extra columns of the parent, first column): row slices of a wider parent
SMALL = [(1, 257, 125, 0, 0), (2, 700, 1003, 5, 3), (1, 1, 5000, 0, 0), (3, 2000, 131, 7, 1),
         (1, 4099, 2001, 0, 0), (1, 6000, 250, 1, 1)]


def timed(fn, reps=15, batch=4):
    fn()
    ms = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        for _ in range(batch):
            fn()
        b.record()
        b.synchronize()
        ms.append(cp.cuda.get_elapsed_time(a, b) / batch)
    return sorted(ms)[len(ms) // 2]


def name(v):
    return "one-a-block" if v is None else "run%d%s t%d" % (v[0], "alt" if v[1] else "", v[2])


def runner(e, v, x, batch, rows, cols, ld, bstride):
    cfg, blocks = TILE[e]
    expr = "tileWholeWords<%d,%d,%d,%d,%d%s>" % (e, *cfg, blocks, "" if v is None else ",true")
    if v is not None:
        plans.WORDS_RUN[e], plans.WORDS_ALT, plans.WORDS_TAIL = v[0], bool(v[1]), v[2]
    ch = plans.Choice("words", e, plans.WHOLE, expr, cfg[2], "probe")
    lay = plans.Layout(batch, rows, cols, ld, 1, bstride)
    op = calls.Operand(None, "cupy", x.data.ptr, (batch, rows, cols), (bstride, ld, 1), e, None, x.device.id, "x")
    return calls.kernel_runner(ch, lay, op)


def check_small(stream):
    bad = 0
    for dt in ("uint8", "uint16"):
        e = cp.dtype(dt).itemsize
        for batch, rows, cols, extra, c0 in SMALL:
            parent = cp.random.randint(0, 256 if e == 1 else 65536, size=(batch, rows, cols + extra + c0)).astype(dt)
            x = parent[:, :, c0:c0 + cols]
            ref = cp.ascontiguousarray(x.transpose(0, 2, 1))
            y = cp.empty_like(ref)
            ld, bstride = parent.shape[2], parent.shape[1] * parent.shape[2]
            for v in VARIANTS[e]:
                r = runner(e, v, x, batch, rows, cols, ld, bstride)
                y.view(cp.uint8).fill(0xFF)
                r(x.data.ptr, y.data.ptr, stream)
                n = int((y != ref).sum())
                bad += n
                if n:
                    print(f"MISMATCH {dt} {(batch, rows, cols, extra, c0)} {name(v)}: {n}")
    print(f"small awkward shapes: {len(SMALL) * 2} shapes, every variant, {bad} wrong elements", flush=True)


def main(rounds: int) -> None:
    stream = cp.cuda.get_current_stream().ptr
    check_small(stream)
    print("case                  dtype   variant          bad   copy GB/s  "
          + "  ".join(f"r{i + 1} %copy" for i in range(rounds)) + "   mean")
    for dt, shape in SHAPES:
        batch, rows, cols = shape
        x = cp.random.randint(0, 256 if dt == "uint8" else 65536, size=shape).astype(dt)
        ref = cp.ascontiguousarray(x.transpose(0, 2, 1))
        y = cp.empty_like(ref)
        fns, bads, names = [], [], []
        for v in VARIANTS[x.itemsize]:
            r = runner(x.itemsize, v, x, batch, rows, cols, cols, rows * cols)

            def fn(r=r, xp=x.data.ptr, yp=y.data.ptr):
                r(xp, yp, stream)
            y.view(cp.uint8).fill(0xFF)
            fn()
            bads.append(int((y != ref).sum()))
            fns.append(fn)
            names.append(name(v))
        pct = [[] for _ in fns]
        copies = []
        for rnd in range(rounds):
            c = timed(lambda x=x, y=y: y.data.copy_from_device(x.data, x.nbytes))
            copies.append(2 * x.nbytes / c / 1e6)
            order = list(range(len(fns)))
            order = order[rnd % len(order):] + order[:rnd % len(order)]
            for i in order:
                pct[i].append(100 * c / timed(fns[i]) if bads[i] == 0 else float("nan"))
        label = "x".join(map(str, shape[1:] if shape[0] == 1 else shape))
        for nm, bad, p in zip(names, bads, pct):
            print(f"{label:21} {dt:7} {nm:15} {bad:5d} {sum(copies) / rounds:9.0f}  "
                  + "  ".join(f"{v:8.1f}" for v in p) + f"  {sum(p) / len(p):6.1f}", flush=True)
        del x, ref, y
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
