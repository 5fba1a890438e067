"""tallWords before and after a change to the same kernel file, every tall uint8 side from 17 to 64
columns at the long sides of the runs of every side (the least odd one of at least 256 MiB), on
W = 512 and 1024 positions a block (where two blocks fit an SM), LINE 32, P as the dispatch's table
or the bank model (probe.py). The change kept the algorithm and cut instructions: step 2's row
rotation computed once a task instead of a modulo a row, step 3's inner tiles storing one row a
warp with the row's offsets carried, and the inner tiles' copy-in without bounds.
First every `after` variant is checked bit-exact on fresh random data, output poisoned, a canary
past it, at awkward long sides; then, alternately for ROUNDS rounds, CUDA events, median of 30,
% of a cudaMemcpy of the same bytes: the dispatch, before and after at each W.
From the repository root, BEFORE_DIR holding the earlier tallwords.cu (the headers beside it are
copied from the tree into a temporary folder, so that its cache key is the earlier file's):
`PYTHONPATH=src python3 benchmarks/h200/transpose/tall-staged/probe_lean.py BEFORE_DIR [ROUNDS] [SIDES] [pad0]`
(SIDES: comma-separated columns, uint8, or u16:COLUMNS for uint16 (W = 256 and 512 there), every
uint8 side 17-64 by default; pad0: the after kernel with no pad
chunks too (label z<W>), where P is not 0; `probe_lean.py list`: the after kernels' name
expressions, for compiling them beforehand, pad0 ones included; `list SIDES` for those sides)."""
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from probe import LONGS, MAX_SHARED, bank_pad, expr, shared_bytes  # noqa: E402

WS = {1: (512, 1024), 2: (256, 512)}
DT = {1: "u1", 2: "u2"}


def long_side(e, s):
    n = -(-2**28 // (s * e))
    return n + 1 - n % 2


def variants(e, s):
    from bwlab.workloads.transpose import plans
    p = plans.TALL_WORDS[(e, s)][1] if (e, s) in plans.TALL_WORDS else bank_pad(s, e)
    return [(w, 32, False, p) for w in WS[e] if shared_bytes(e, s, w, 32, False, p) <= MAX_SHARED]


def zero_pads(e, s):
    return [(w, line, a, 0) for w, line, a, p in variants(e, s) if p]


def side(spec):
    """'46' -> (1, 46), 'u16:46' -> (2, 46)"""
    return (2, int(spec[4:])) if spec.startswith("u16:") else (1, int(spec))


def main(before_dir, rounds, sides, pad0=False):
    import cupy
    import numpy as np

    import bwlab
    from bwlab.core import launch, timing, verify
    from bwlab.workloads.transpose import plans

    tmp = tempfile.TemporaryDirectory()
    try:
        before = Path(tmp.name) / "tallwords.cu"
        shutil.copy(Path(before_dir) / "tallwords.cu", before)
        for h in plans.KERNELS_DIR.glob("*.cuh"):
            shutil.copy(h, Path(tmp.name) / h.name)
        srcs = {"before": before, "after": plans.KERNELS_DIR / "tallwords.cu"}
        fns = {}

        def run(which, e, s, v, x, out, n):
            key = (which, e, s, v)
            if key not in fns:
                f = launch.function(srcs[which], expr(e, s, *v))
                launch.allow_shared(f, shared_bytes(e, s, *v))
                fns[key] = f
            fns[key]((plans.cdiv(n, v[0]),), (256,), (x, out, np.int64(n)), shared_mem=shared_bytes(e, s, *v))

        checks = 0
        for e, s in sides:
            for n in (*LONGS, 1_000_003, long_side(e, s) // 7 | 1):
                host = verify.random_host((n, s), DT[e], seed=7919 * s + n)
                x = cupy.asarray(host)
                want = np.ascontiguousarray(host.T)
                for v in variants(e, s) + (zero_pads(e, s) if pad0 else []):
                    buf = cupy.empty(n * s + 64, DT[e])
                    verify.poison(buf)
                    out = buf[:n * s].reshape(s, n)
                    run("after", e, s, v, x, out, n)
                    assert verify.compare(out.get(), want).ok, (s, n, v)
                    assert bool((buf[n * s:].view(cupy.uint8) == verify.POISON_BYTE).all()), ("canary", s, n, v)
                    checks += 1
                assert verify.compare(x.get(), host).ok
        print(f"# {checks} forced checks of the changed kernel passed (bit-exact, output poisoned, canary intact)",
              flush=True)
        stream = cupy.cuda.get_current_stream()
        res = {}
        for e, s in sides:
            n = long_side(e, s)
            x = cupy.empty((n, s), DT[e])
            verify.fill_random_bits(x, seed=s + n)
            want = cupy.ascontiguousarray(x.T)
            out = cupy.empty_like(want)
            runs = {"disp": lambda: bwlab.transpose(x, out=out)}
            for v in variants(e, s):
                for which in ("before", "after"):
                    runs[f"{which[0]}{v[0]}"] = lambda which=which, v=v: run(which, e, s, v, x, out, n)
            for v in zero_pads(e, s) if pad0 else []:
                runs[f"z{v[0]}"] = lambda v=v: run("after", e, s, v, x, out, n)
            for label, f in runs.items():
                verify.poison(out)
                f()
                assert bool((out == want).all()), (label, s, n)
            label0 = plans.choose(e, plans.layout_of((n, s), (s, 1))).label
            for r in range(rounds):
                copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                             stream.ptr), warmup=3, reps=30).median_ms
                for label, f in runs.items():
                    t = timing.time_gpu(f, warmup=3, reps=30).median_ms
                    res.setdefault((e, s, label), []).append(100 * copy / t)
            cells = " ".join(f"{lab}={statistics.mean(res[(e, s, lab)]):5.1f}" for lab in runs)
            print(f"u{8 * e} {n:>9}x{s:<2} {cells}  ({label0})", flush=True)
            x = want = out = None
            cupy.get_default_memory_pool().free_all_blocks()
        print("# mean of the rounds, % of a copy; b/a<W>: tallWords before/after on W positions a block, z<W>: after"
              " with no pad chunks")
    finally:
        tmp.cleanup()


if __name__ == "__main__":
    if sys.argv[1:2] == ["list"]:
        specs = sys.argv[2].split(",") if len(sys.argv) > 2 else [str(s) for s in range(17, 65)]
        exprs = {expr(e, s, *v) for e, s in map(side, specs) for v in variants(e, s) + zero_pads(e, s)}
        print("\n".join(sorted(exprs)))
    else:
        sides = [side(c) for c in sys.argv[3].split(",")] if len(sys.argv) > 3 else [(1, s) for s in range(17, 65)]
        main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2, sides, sys.argv[4:5] == ["pad0"])
