"""tallWords' pad chunks P (0-7: shared-memory padding a group) and positions a block W on the tall
sides whose last runs of every side left them within a point of the goal (uint8 45, 50 and 59-63
columns, uint16 46, 48 and 50), against the dispatch. Every variant is first checked bit-exact
on fresh random data, output poisoned, a canary past it, at awkward long sides; then, for ROUNDS
rounds, the variants in a rotated order each round: CUDA events, median of 30, % of a
cudaMemcpy of the same bytes timed in the same round, at the long side of the runs of every side
(the least odd one of at least 256 MiB).
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/tall-pads/probe.py
[ROUNDS]`; `probe.py list`: the kernels' name expressions, for compiling them beforehand."""
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tall-staged"))
from probe import LONGS, MAX_SHARED, expr, shared_bytes  # noqa: E402

SIDES = [(1, 45), (1, 50), (1, 59), (1, 60), (1, 61), (1, 62), (1, 63), (2, 46), (2, 48), (2, 50)]
WS = {1: (512,), 2: (256, 512)}
PADS = (0, 2, 4, 6)
DT = {1: "u1", 2: "u2"}


def long_side(e, s):
    n = -(-2**28 // (s * e))
    return n + 1 - n % 2


def variants(e, s):
    return [(w, 32, False, p) for w in WS[e] for p in PADS if shared_bytes(e, s, w, 32, False, p) <= MAX_SHARED]


def main(rounds):
    import cupy
    import numpy as np

    import bwlab
    from bwlab.core import launch, timing, verify
    from bwlab.workloads.transpose import plans

    fns = {}

    def run(e, s, v, x, out, n):
        key = (e, s, v)
        if key not in fns:
            f = launch.function(plans.KERNELS_DIR / "tallwords.cu", expr(e, s, *v))
            launch.allow_shared(f, shared_bytes(e, s, *v))
            fns[key] = f
        fns[key]((plans.cdiv(n, v[0]),), (256,), (x, out, np.int64(n)), shared_mem=shared_bytes(e, s, *v))

    checks = 0
    for e, s in SIDES:
        for n in (*LONGS, 1_000_003, long_side(e, s) // 7 | 1):
            host = verify.random_host((n, s), DT[e], seed=7919 * s + n)
            x = cupy.asarray(host)
            want = np.ascontiguousarray(host.T)
            for v in variants(e, s):
                buf = cupy.empty(n * s + 64, DT[e])
                verify.poison(buf)
                out = buf[:n * s].reshape(s, n)
                run(e, s, v, x, out, n)
                assert verify.compare(out.get(), want).ok, (s, n, v)
                assert bool((buf[n * s:].view(cupy.uint8) == verify.POISON_BYTE).all()), ("canary", s, n, v)
                checks += 1
            assert verify.compare(x.get(), host).ok
    print(f"# {checks} forced checks passed (bit-exact, output poisoned, canary intact)", flush=True)
    stream = cupy.cuda.get_current_stream()
    for e, s in SIDES:
        n = long_side(e, s)
        x = cupy.empty((n, s), DT[e])
        verify.fill_random_bits(x, seed=s + n)
        want = cupy.ascontiguousarray(x.T)
        out = cupy.empty_like(want)
        runs = {"disp": lambda: bwlab.transpose(x, out=out)}
        for v in variants(e, s):
            runs[f"w{v[0]}p{v[3]}"] = lambda v=v: run(e, s, v, x, out, n)
        for label, f in runs.items():
            verify.poison(out)
            f()
            assert bool((out == want).all()), (label, s, n)
        res = {}
        labels = list(runs)
        for r in range(rounds):
            copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                         stream.ptr), warmup=3, reps=30).median_ms
            for label in labels[r % len(labels):] + labels[:r % len(labels)]:
                t = timing.time_gpu(runs[label], warmup=3, reps=30).median_ms
                res.setdefault(label, []).append(100 * copy / t)
        label0 = plans.choose(e, plans.layout_of((n, s), (s, 1))).label
        cells = " ".join(f"{lab}={statistics.mean(v):5.1f}[{min(v):.1f}]" for lab, v in res.items())
        print(f"u{8 * e} {n:>9}x{s:<2} {cells}  ({label0})", flush=True)
        x = want = out = None
        cupy.get_default_memory_pool().free_all_blocks()
    print("# mean of the rounds [lowest], % of a copy; w<W>p<P>: tallWords on W positions a block, P pad chunks")


if __name__ == "__main__":
    if sys.argv[1:2] == ["list"]:
        print("\n".join(sorted({expr(e, s, *v) for e, s in SIDES for v in variants(e, s)})))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
