"""tileWholeRuns (whole, aligned 128- or 256-byte spans of each output row, runs of tiles down a band;
`runsS/R`: spans of S bytes, runs of R tiles) against
tileWholeWords (whole 32-byte sectors from each row's phase) on misaligned 1- and 2-byte transposes
of 256-512 MiB. Every variant's output is poisoned, then checked bit-exact against CuPy's transpose,
then timed around copies of the same bytes (median of 15 batches of 4 calls, the variants in a
rotated order each round). `old`: tileWholeWords compiled from the source before tileWholeRuns (a
folder given as the first argument holding that commit's transpose kernels; skipped when absent).
Run from the repository root with PYTHONPATH=src."""
import sys
from pathlib import Path

import cupy as cp

from bwlab.workloads.transpose import calls, plans

SHAPES = [("uint8", (1, 16383, 16389)), ("uint8", (4, 8191, 16389)), ("uint8", (1, 20011, 13417)),
          ("uint8", (1, 16389, 16384)), ("uint8", (1, 16384, 16389)), ("uint8", (1, 23173, 23171)),
          ("uint16", (1, 11587, 11593)), ("uint16", (4, 5793, 11593)), ("uint16", (1, 8191, 16389))]
RUNS = (2, 4, 8, 16)


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


def runner(kind, source, expr, threads, x, shape):
    batch, rows, cols = shape
    ch = plans.Choice(kind, x.itemsize, source, expr, threads, "probe")
    lay = plans.Layout(batch, rows, cols, cols, 1, rows * cols)
    op = calls.Operand(None, "cupy", x.data.ptr, shape, (rows * cols, cols, 1), x.itemsize, None, x.device.id, "x")
    return calls.kernel_runner(ch, lay, op)


def variants(e, old):
    cfg_w = plans.WORDS_CANDIDATES[e][0]
    out = [("words", ("words", plans.WHOLE, plans.tile_expression(e, cfg_w, "tileWholeWords"), cfg_w[2]), None)]
    if old and e == 2:  # the uint8 tile's machine code is the same in both sources
        out.append(("words-old", ("words", old, plans.tile_expression(e, cfg_w, "tileWholeWords"), cfg_w[2]), None))
    out += [(f"runs{cfg[0] * e}/{r}", ("runs", plans.WHOLE, plans.tile_expression(e, cfg, "tileWholeRuns"), cfg[2]), r)
            for cfg in plans.RUNS_CANDIDATES[e] for r in RUNS]
    return out


def main(rounds: int, old) -> None:
    print("case                  dtype   variant      bad   copy GB/s  "
          + "  ".join(f"r{i + 1} %copy" for i in range(rounds)))
    stream = cp.cuda.get_current_stream().ptr
    for dt, shape in SHAPES:
        x = cp.random.randint(0, 256 if dt == "uint8" else 65536, size=shape).astype(dt)
        ref = cp.ascontiguousarray(x.transpose(0, 2, 1))
        y = cp.empty_like(ref)
        fns, bads, names = [], [], []
        for name, args, run in variants(x.itemsize, old):
            if run:
                plans.RUNS_TILES = run
            r = runner(*args, x, shape)

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
            print(f"{label:21} {dt:7} {name:10} {bad:5d} {sum(copies) / rounds:9.0f}  "
                  + "  ".join(f"{v:8.1f}" for v in p), flush=True)
        del x, ref, y
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "whole.cu" if len(sys.argv) > 1 else None
    main(int(sys.argv[2]) if len(sys.argv) > 2 else 3, folder if folder and folder.is_file() else None)
