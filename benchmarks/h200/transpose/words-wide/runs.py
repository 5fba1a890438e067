"""tileWholeWords with RUN consecutive tiles a block (down one band of columns; the kernel's sixth
template argument, runs.patch) against one tile a block, on misaligned 1- and 2-byte transposes of
256-512 MiB: whether the rows a tile reads past its end, still in the SM's L1, spare the next tile
those L2 reads. Outputs poisoned, checked bit-exact, timed as probe.py. `runs.py one R`: 16383x16389
uint8 twice on RUN = R, for Nsight Compute. Run from the repository root with PYTHONPATH=src."""
import re
import sys
from pathlib import Path

import cupy as cp

from bwlab.workloads.transpose import calls, plans

sys.path.insert(0, str(Path(__file__).parent))
from probe import timed  # noqa: E402

SHAPES = [("uint8", (1, 16383, 16389)), ("uint8", (4, 8191, 16389)), ("uint8", (1, 16389, 16384)),
          ("uint16", (1, 11587, 11593))]
EXPR = {1: "tileWholeWords<1,256,124,512,3,%d>", 2: "tileWholeWords<2,128,124,256,4,%d>"}
RUNS = {1: (1, 2, 4, 8), 2: (1, 4)}
_geometry = plans.launch_geometry


def geometry(choice, batch, rows, cols, sms=132):
    blocks, threads = _geometry(choice, batch, rows, cols, sms)
    run = int(re.search(r",(\d+)>$", choice.expression)[1])
    return -(-blocks // run), threads


plans.launch_geometry = geometry


def runner(e, run, x, shape):
    batch, rows, cols = shape
    threads = int(EXPR[e].split(",")[3])
    ch = plans.Choice("words", e, plans.WHOLE, EXPR[e] % run, threads, "probe")
    lay = plans.Layout(batch, rows, cols, cols, 1, rows * cols)
    op = calls.Operand(None, "cupy", x.data.ptr, shape, (rows * cols, cols, 1), e, None, x.device.id, "x")
    return calls.kernel_runner(ch, lay, op)


def main(rounds: int) -> None:
    print("case                  dtype   run  bad   copy GB/s  " + "  ".join(f"r{i + 1} %copy" for i in range(rounds)))
    stream = cp.cuda.get_current_stream().ptr
    for dt, shape in SHAPES:
        x = cp.random.randint(0, 256 if dt == "uint8" else 65536, size=shape).astype(dt)
        ref = cp.ascontiguousarray(x.transpose(0, 2, 1))
        y = cp.empty_like(ref)
        fns, bads, names = [], [], []
        for run in RUNS[x.itemsize]:
            r = runner(x.itemsize, run, x, shape)

            def fn(r=r, xp=x.data.ptr, yp=y.data.ptr):
                r(xp, yp, stream)
            y.view(cp.uint8).fill(0xFF)
            fn()
            bads.append(int((y != ref).sum()))
            fns.append(fn)
            names.append(run)
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
            print(f"{label:21} {dt:7} {name:3d} {bad:5d} {sum(copies) / rounds:9.0f}  "
                  + "  ".join(f"{v:8.1f}" for v in p), flush=True)
        del x, ref, y
        cp.get_default_memory_pool().free_all_blocks()


def one(run: int) -> None:
    shape = (1, 16383, 16389)
    x = cp.random.randint(0, 256, size=shape).astype(cp.uint8)
    y = cp.empty((1, 16389, 16383), cp.uint8)
    r = runner(1, run, x, shape)
    for _ in range(2):
        r(x.data.ptr, y.data.ptr, cp.cuda.get_current_stream().ptr)
    cp.cuda.Device().synchronize()
    assert bool((y == x.transpose(0, 2, 1)).all())


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "one":
        one(int(sys.argv[2]))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
