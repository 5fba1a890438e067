"""tileWholeWords with 8-byte loads a lane (tiles of 62 words' columns: 248 bytes, 124 halves) and
the row skip (no rows loaded past the tile's TR + H - 1) against the tiles before, on misaligned 1-
and 2-byte transposes of 256-512 MiB. `old`: the dispatched tile compiled from the source before
(a folder given as the first argument holding that commit's transpose kernels; skipped when
absent). Every variant's output is poisoned, then checked bit-exact against CuPy's transpose, then
timed around copies of the same bytes (median of 15 batches of 4 calls, the variants in a rotated
order each round). Run from the repository root with PYTHONPATH=src."""
import sys
from pathlib import Path

import cupy as cp

from bwlab.workloads.transpose import calls, plans

SHAPES = [("uint8", (1, 16383, 16389)), ("uint8", (4, 8191, 16389)), ("uint8", (1, 20011, 13417)),
          ("uint8", (1, 16389, 16384)), ("uint8", (1, 16384, 16389)), ("uint8", (1, 23173, 23171)),
          ("uint16", (1, 11587, 11593)), ("uint16", (4, 5793, 11593)), ("uint16", (1, 8191, 16389))]
TILES = {1: [(256, 124, 512), (256, 248, 512), (128, 248, 256)],
         2: [(128, 62, 256), (128, 124, 256), (256, 124, 512)]}


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


def runner(source, cfg, x, shape):
    batch, rows, cols = shape
    e = x.itemsize
    ch = plans.Choice("words", e, source, plans.tile_expression(e, cfg, "tileWholeWords"), cfg[2], "probe")
    lay = plans.Layout(batch, rows, cols, cols, 1, rows * cols)
    op = calls.Operand(None, "cupy", x.data.ptr, shape, (rows * cols, cols, 1), e, None, x.device.id, "x")
    return calls.kernel_runner(ch, lay, op)


def variants(e, old):
    out = [("old", old, TILES[e][0])] if old else []
    return out + [("%dx%d" % cfg[:2], plans.WHOLE, cfg) for cfg in TILES[e]]


def main(rounds: int, old) -> None:
    print("case                  dtype   variant    bad   copy GB/s  "
          + "  ".join(f"r{i + 1} %copy" for i in range(rounds)))
    stream = cp.cuda.get_current_stream().ptr
    for dt, shape in SHAPES:
        x = cp.random.randint(0, 256 if dt == "uint8" else 65536, size=shape).astype(dt)
        ref = cp.ascontiguousarray(x.transpose(0, 2, 1))
        y = cp.empty_like(ref)
        fns, bads, names = [], [], []
        for name, source, cfg in variants(x.itemsize, old):
            r = runner(source, cfg, x, shape)

            def fn(r=r, xp=x.data.ptr, yp=y.data.ptr):
                r(xp, yp, stream)
            y.view(cp.uint8).fill(0xFF)
            fn()
            bads.append(int((y != ref).sum()))
            fns.append(fn)
            names.append(name)
        pct = [[] for _ in fns]
        copies = []
        for rnd in range(rounds):
            c = timed(lambda x=x, y=y: y.data.copy_from_device(x.data, x.nbytes))
            copies.append(2 * x.nbytes / c / 1e6)
            order = list(range(len(fns)))
            order = order[rnd % len(order):] + order[:rnd % len(order)]
            for i in order:
                pct[i].append(100 * c / timed(fns[i]))
        label = "x".join(map(str, shape[1:] if shape[0] == 1 else shape))
        for name, bad, p in zip(names, bads, pct):
            print(f"{label:21} {dt:7} {name:9} {bad:5d} {sum(copies) / rounds:9.0f}  "
                  + "  ".join(f"{v:8.1f}" for v in p), flush=True)
        del x, ref, y
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "whole.cu" if len(sys.argv) > 1 else None
    main(int(sys.argv[2]) if len(sys.argv) > 2 else 3, folder if folder and folder.is_file() else None)
