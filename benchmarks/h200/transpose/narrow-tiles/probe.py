"""tileAny with a tile side of 32 or 64 bytes (the whole short side of a skinny 1- or 2-byte
matrix with aligned extents) against the dispatch, on 256-320 MiB matrices: each output poisoned,
then checked bit-exact against CuPy's transpose, then timed around copies of the same bytes
(median of 15 batches of 4 calls, two rounds). Run from the repository root with PYTHONPATH=src."""
import sys

import cupy as cp

import bwlab
from bwlab.workloads.transpose import calls, plans

CASES = [  # (dtype, rows, cols), candidates (tr, tc, threads)
    ("uint8", 64, 4194304, [(64, 256, 256), (64, 256, 128), (64, 512, 256), (64, 128, 128)]),
    ("uint8", 64, 5242880, [(64, 256, 256), (64, 512, 256)]),
    ("uint8", 32, 8388608, [(32, 512, 256), (32, 256, 128)]),
    ("uint8", 192, 1398112, [(64, 256, 256), (64, 512, 256)]),
    ("uint8", 4194304, 64, [(256, 64, 128), (512, 64, 256)]),
    ("uint8", 8388608, 32, [(256, 32, 128)]),
    ("uint16", 32, 4194304, [(32, 128, 128), (32, 256, 256)]),
    ("uint16", 4194304, 32, [(128, 32, 128), (128, 32, 256)]),
]


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


def main(rounds: int) -> None:
    print(f"{'shape':>16} {'dtype':6} {'kernel':28} {'bad':>3} {'copy GB/s':>9} " + " ".join(f"{'%copy':>6}" for _ in range(rounds)))
    for dt, rows, cols, cands in CASES:
        x = cp.random.randint(0, 256 if dt == "uint8" else 65536, size=(rows, cols)).astype(dt)
        ref = cp.ascontiguousarray(x.T)
        y = cp.empty((cols, rows), dt)
        e = x.itemsize
        runs = [("dispatch", lambda: bwlab.transpose(x, y))]
        for tr, tc, th in cands:
            assert plans.tile_legal(e, tr, tc, th), (tr, tc, th)
            ch = plans.Choice("tile", e, plans.ANY, plans.tile_expression(e, (tr, tc, th)), th, "probe")
            runs.append((ch.expression, lambda ch=ch: calls.launch(ch, x.data.ptr, y.data.ptr, 1, rows, cols,
                                                                    x.nbytes, x.device.id,
                                                                    cp.cuda.get_current_stream().ptr)))
        label = plans.choose(e, plans.layout_of((rows, cols), (cols, 1))).expression
        moved = 2 * x.nbytes
        for name, fn in runs:
            y.fill(0xA5 if dt == "uint8" else 0xA5A5)
            fn()
            bad = int((y != ref).sum())
            pct, copies = [], []
            for _ in range(rounds):
                c = timed(lambda: y.data.copy_from_device(x.data, x.nbytes))
                k = timed(fn)
                copies.append(moved / c / 1e6)
                pct.append(100 * c / k)
            nm = name if name != "dispatch" else "= " + label
            print(f"{rows}x{cols:>10} {dt:6} {nm[:28]:28} {bad:3d} {sum(copies) / rounds:9.0f} "
                  + " ".join(f"{p:6.1f}" for p in pct), flush=True)
        del x, ref, y
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
