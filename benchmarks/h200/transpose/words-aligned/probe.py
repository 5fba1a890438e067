"""skinnyWords' two forms on tall 1- and 2-byte matrices whose long rows are whole 16-byte vectors:
tiles of 31R vectors a row (a task's lane 0 only feeds its neighbour; segments start anywhere in a
256-byte span) against the aligned form's 32R (every warp's 512-byte store on a 512-byte boundary of
its row). 256 MiB inputs: each output poisoned, then checked bit-exact against CuPy's transpose, then
timed around copies of the same bytes (median of 15 batches of 4 calls, the two forms alternating,
`rounds` rounds). Run from the repository root with PYTHONPATH=src."""
import sys

import cupy as cp

import bwlab
from bwlab.workloads.transpose import calls, plans

MIB = 256 << 20
SHORTS = {"uint8": (4, 5, 8, 12, 16, 17, 20, 24, 31, 32, 33, 36, 40, 45, 48, 56, 63, 64),
          "uint16": (2, 4, 6, 8, 10, 12, 14, 16)}
ODD_ROWS = [("uint8", 4194304 + 16, 64), ("uint8", 8388608 + 48, 32), ("uint16", 4194304 + 8, 16)]


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


def runner(expr, x, rows, cols):
    ch = plans.Choice("tall-tile", x.itemsize, plans.SKINNYTILE, expr, plans.SKINNYTILE_THREADS, "probe")
    lay = plans.Layout(1, rows, cols, cols, 1, rows * cols)
    op = calls.Operand(None, "cupy", x.data.ptr, (1, rows, cols), (rows * cols, cols, 1), x.itemsize, None,
                       x.device.id, "x")
    return calls.kernel_runner(ch, lay, op)


def cases():
    for dt, ss in SHORTS.items():
        e = cp.dtype(dt).itemsize
        for s in ss:
            n = MIB // (s * e) // 16 * 16
            yield dt, n, s
    yield from ODD_ROWS


def main(rounds: int) -> None:
    print(f"{'shape':>16} {'dtype':6} {'dispatch':34} {'bad31':>5} {'bad32':>5} {'copy':>6} "
          f"{'31R %copy':>{7 * rounds}} {'32R %copy':>{7 * rounds}} {'gain':>5}")
    for dt, rows, cols in cases():
        x = cp.random.randint(0, 256 if dt == "uint8" else 65536, size=(rows, cols)).astype(dt)
        ref = cp.ascontiguousarray(x.T)
        y = cp.empty((cols, rows), dt)
        e = x.itemsize
        forms = [plans.skinnytile_expression(e, True, True, cols), plans.skinnytile_expression(e, True, True, cols,
                                                                                                aligned=True)]
        stream = cp.cuda.get_current_stream().ptr
        fns = []
        for expr in forms:
            run = runner(expr, x, rows, cols)
            fns.append(lambda run=run, xp=x.data.ptr, yp=y.data.ptr: run(xp, yp, stream))
        bad = []
        for fn in fns:
            y.fill(0xA5 if dt == "uint8" else 0xA5A5)
            fn()
            bad.append(int((y != ref).sum()))
        y.fill(0)
        bwlab.transpose(x, y)
        assert bool((y == ref).all()), "dispatch wrong"
        label = plans.choose(e, plans.layout_of((rows, cols), (cols, 1))).expression
        pct = [[], []]
        copies = []
        for r in range(rounds):
            c = timed(lambda x=x, y=y: y.data.copy_from_device(x.data, x.nbytes))
            copies.append(2 * x.nbytes / c / 1e6)
            for i in ((0, 1) if r % 2 == 0 else (1, 0)):
                pct[i].append(100 * c / timed(fns[i]))
        gain = sum(pct[1]) / rounds - sum(pct[0]) / rounds
        print(f"{rows}x{cols:<6} {dt:6} {label[:34]:34} {bad[0]:5d} {bad[1]:5d} {sum(copies) / rounds:6.0f} "
              + " ".join(f"{p:6.1f}" for p in pct[0]) + " " + " ".join(f"{p:6.1f}" for p in pct[1])
              + f" {gain:+5.1f}", flush=True)
        del x, ref, y
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
