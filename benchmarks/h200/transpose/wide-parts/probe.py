"""widePerm with the short side in parts (run from this folder as `PYTHONPATH=../../../../src python3
probe.py`): a warp takes the S = P * SP rows of a wide 1- or 2-byte matrix (S x n -> n x S) P parts
at a time, each part's S / P rows held and transposed as the kernel does for a short side of S / P,
its bytes of each position written S / P * E bytes wide, S * E apart. Each (S / P, K, P) is checked
bit-exact (output poisoned) at awkward long sides, then the 256 MiB wide shapes are timed for
several (S / P, K, P) beside the dispatch's kernel and a copy of the same bytes (../perm-probe's
loop: time_gpu, 3 warm-up and 30 timed calls, the median)."""
import sys
from pathlib import Path

import cupy
import numpy as np

from bwlab.core import build, launch
from bwlab.core.arrays import as_operand
from bwlab.workloads.transpose import calls, plans

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "perm-probe"))
from probe import DT, rand, timed  # noqa: E402

SRC = Path(plans.KERNELS_DIR) / "skinnyperm.cu"
THREADS = 128
# (E, S): the variants (rows a part, K, P)
CASES = {(1, 64): [(64, 2, 1), (64, 1, 1), (32, 1, 2), (32, 2, 2), (16, 2, 4), (16, 4, 4)],
         (1, 48): [(48, 2, 1), (48, 1, 1), (16, 2, 3), (16, 4, 3), (24, 2, 2)],
         (1, 32): [(32, 2, 1), (16, 2, 2), (16, 4, 2)],
         (2, 64): [(64, 2, 1), (32, 2, 2), (16, 2, 4), (8, 4, 8)],
         (2, 48): [(48, 2, 1), (16, 2, 3), (24, 2, 2), (8, 4, 6)]}


def expr(e, sp, k, p):
    return f"widePerm<{e},{sp},{k}>" if p == 1 else f"widePerm<{e},{sp},{k},{p}>"


def usable(e, sp, p):
    return p == 1 or (sp * e) % 16 == 0


def run(x, out, e, sp, k, p):
    n = x.shape[1]
    full = max(0, (n * e - 4) // 128)
    fn = launch.function(SRC, expr(e, sp, k, p))
    fn((-(-full // (4 * k)) + 1, 1, 1), (THREADS, 1, 1), (x, out, np.int64(n), np.int64(full)))


def correctness():
    bad = checks = 0
    for (e, s), variants in CASES.items():
        for sp, k, p in variants:
            if not usable(e, sp, p):
                continue
            for long in (2, 31, 32, 33, 127, 128, 129, 1000, 4097, 12345, 65537):
                x = rand((s, long), DT[e])
                out = cupy.full((long, s), 0xA5A5 & (256 ** e - 1), DT[e])
                run(x, out, e, sp, k, p)
                checks += 1
                if not bool((out == x.T).all()):
                    bad += 1
                    print("MISMATCH", e, s, (sp, k, p), long, flush=True)
    print(f"correctness: {checks} checks, {bad} mismatches", flush=True)
    return bad


def timing(rounds=2):
    for (e, s), variants in CASES.items():
        n = (256 * 2**20) // (s * e) | 1  # odd: misaligned rows, as the bench's
        x = rand((s, n), DT[e])
        want = cupy.ascontiguousarray(x.T)
        out = cupy.empty_like(want)
        nbytes = 2 * x.nbytes
        a, b = cupy.empty(x.nbytes, cupy.uint8), cupy.empty(x.nbytes, cupy.uint8)
        xo = as_operand(x, "x")
        lay = plans.layout_of(xo.shape, xo.strides)
        c = plans.choose(e, lay)
        st = cupy.cuda.get_current_stream().ptr
        go = calls.kernel_runner(c, lay, xo)
        rows = [(f"api {c.expression}", lambda: go(x.data.ptr, out.data.ptr, st))]
        rows += [(expr(e, sp, k, p), lambda v=(sp, k, p): run(x, out, e, *v)) for sp, k, p in variants
                 if usable(e, sp, p)]
        for rnd in range(rounds):
            for name, fn in rows:
                out.fill(0)
                fn()
                ok = bool((out == want).all())
                copy = nbytes / timed(lambda: cupy.copyto(b, a)) / 1e6
                gb = nbytes / timed(fn) / 1e6
                print(f"{s}x{n:<12d} {DT[e].__name__:7s} {name + f' #{rnd + 1}':28s} {gb:6.0f} GB/s "
                      f"{100 * gb / copy:5.1f}%  ok={ok}", flush=True)
        x = out = want = a = b = None


if __name__ == "__main__":
    build.compile_each(SRC, sorted({expr(e, sp, k, p) for (e, s), vs in CASES.items() for sp, k, p in vs
                                    if usable(e, sp, p)}), launch.arch_of())
    if correctness() == 0:
        timing()
