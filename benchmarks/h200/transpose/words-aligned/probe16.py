"""Tall uint16 matrices of 17-64 even columns whose long rows are a multiple of 256 bytes:
skinnyTile (what the dispatch took before) against skinnyWords' aligned form (tiles of 32R vectors,
shared words of two rows). 256 MiB inputs: each output poisoned, then checked bit-exact against
CuPy's transpose, then timed around copies of the same bytes (median of 15 batches of 4 calls, the
two kernels alternating, `rounds` rounds). Run from the repository root with PYTHONPATH=src."""
import sys

import cupy as cp
from probe import runner, timed

import bwlab
from bwlab.workloads.transpose import plans

MIB = 256 << 20
SHORTS = (18, 20, 22, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64)


def main(rounds: int) -> None:
    print(f"{'shape':>16} {'dtype':6} {'dispatch':34} {'badT':>5} {'badW':>5} {'copy':>6} "
          f"{'skinnyTile':>{7 * rounds}} {'words 32R':>{7 * rounds}} {'gain':>5}")
    for cols in SHORTS:
        rows = MIB // (2 * cols) // 128 * 128  # rows of a multiple of 256 bytes
        x = cp.random.randint(0, 65536, size=(rows, cols)).astype(cp.uint16)
        ref = cp.ascontiguousarray(x.T)
        y = cp.empty((cols, rows), cp.uint16)
        forms = [plans.skinnytile_expression(2, True, False, cols),
                 plans.skinnytile_expression(2, True, True, cols, aligned=True)]
        stream = cp.cuda.get_current_stream().ptr
        fns = [lambda run=runner(f, x, rows, cols), xp=x.data.ptr, yp=y.data.ptr: run(xp, yp, stream) for f in forms]
        bad = []
        for fn in fns:
            y.fill(0xA5A5)
            fn()
            bad.append(int((y != ref).sum()))
        y.fill(0)
        bwlab.transpose(x, y)
        assert bool((y == ref).all()), "dispatch wrong"
        label = plans.choose(2, plans.layout_of((rows, cols), (cols, 1))).expression
        pct = [[], []]
        copies = []
        for r in range(rounds):
            c = timed(lambda x=x, y=y: y.data.copy_from_device(x.data, x.nbytes))
            copies.append(2 * x.nbytes / c / 1e6)
            for i in ((0, 1) if r % 2 == 0 else (1, 0)):
                pct[i].append(100 * c / timed(fns[i]))
        gain = sum(pct[1]) / rounds - sum(pct[0]) / rounds
        print(f"{rows}x{cols:<6} uint16 {label[:34]:34} {bad[0]:5d} {bad[1]:5d} {sum(copies) / rounds:6.0f} "
              + " ".join(f"{p:6.1f}" for p in pct[0]) + " " + " ".join(f"{p:6.1f}" for p in pct[1])
              + f" {gain:+5.1f}", flush=True)
        del x, ref, y
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
