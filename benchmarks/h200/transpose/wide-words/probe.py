"""Wide matrices of 1- and 2-byte elements (S x n -> n x S): the dispatch's kernel (widePerm: a lane
loads one word of each row; at uint8 64 rows 196 registers a thread, two blocks a multiprocessor)
against wideWords<E,S,W,STREAM> (widewords.cu: rows copied into shared memory by cp.async, 4 x 4
byte transposes (2 x 2 of halves), the output tile stored as contiguous 16-byte vectors; W
positions a block, plain or evict-first stores), CuPy and torch. SET 1: uint8 at 16, 32, 48 and 64
rows; SET 2: uint8 64 rows at 384 and 512 positions a block, uint16 at 32, 48 and 64 rows; SET 3:
sides whose rows are not whole 16-byte runs of the output (uint8 33-61 rows, uint16 41-59); SET 4:
every side from 17 to 63 rows of both, beside the dispatch only; SET 5: SET 4's closest sides again;
SET 6: two of those at five long sides each.
Every variant is first checked bit-exact on fresh random
data with the output poisoned, at long sides 1 to 200003 (every row phase), with a canary past
the output and the input left as it was; each timed output against CuPy's. Alternately, ROUNDS
rounds, CUDA events, median of 30, % of a cudaMemcpy of the same bytes.
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/wide-words/probe.py [ROUNDS] [SET]`."""
import statistics
import sys

SETS = {  # (element size, short side) -> the (positions a block, STREAM) variants; the timed shapes
    1: ({(1, s): [(w, st) for w in (256, 512, 1024) for st in ("false", "true")] for s in (16, 32, 48, 64)},
        [(1, 64, 4194304), (1, 64, 4194305), (1, 48, 5592405), (1, 48, 5592416), (1, 32, 8388609),
         (1, 16, 16777217)]),
    2: ({(1, 64): [(384, "false"), (512, "false")], **{(2, s): [(256, "false"), (512, "false")] for s in (32, 48, 64)}},
        [(1, 64, 4194304), (1, 64, 4194305), (2, 64, 2097152), (2, 64, 2097153), (2, 48, 2796203),
         (2, 32, 4194305)]),
    # SET 3: sides whose rows are not whole 16-byte runs (the output tile plain, runs stored at their
    # byte offsets): the wide uint8 and uint16 sides under 90% in the runs of every side, and others
    3: ({**{(1, s): [(256, "false"), (512, "false")] for s in (33, 41, 49, 55, 58, 59, 61)},
         **{(2, s): [(128, "false"), (256, "false")] for s in (41, 53, 59)}},
        [(1, 49, 5478275), (1, 58, 4628199), (1, 59, 4549755), (1, 33, 8134411), (1, 41, 6547201),
         (1, 55, 4880713), (1, 61, 4400563), (2, 41, 3273605), (2, 53, 2532433), (2, 59, 2274877)]),
    # SET 4: every wide side from 17 to 63 rows, uint8 on 512 positions a block and uint16 on 256, at
    # the long sides of the runs of every side (the least odd one of at least 256 MiB); no CuPy or torch
    4: ({**{(1, s): [(512, "false")] for s in range(17, 64)}, **{(2, s): [(256, "false")] for s in range(17, 64)}},
        [(e, s, (lambda n: n + 1 - n % 2)(-(-2**28 // (s * e)))) for e in (1, 2) for s in range(17, 64)]),
    # SET 5: the sides SET 4 had ahead of the dispatch by 0.9 points or more, and uint8 55 and uint16 53 (ahead in
    # SET 3 or SET 4), again
    5: ({**{(1, s): [(512, "false")] for s in (26, 34, 43, 55, 58, 59, 61, 63)},
         **{(2, s): [(256, "false")] for s in (52, 53, 58, 59, 63)}},
        [(e, s, (lambda n: n + 1 - n % 2)(-(-2**28 // (s * e))))
         for e, ss in ((1, (26, 34, 43, 55, 58, 59, 61, 63)), (2, (52, 53, 58, 59, 63))) for s in ss]),
    # SET 6: uint8 61 and uint16 53 rows, ahead in SETs 4 and 5 and behind in SET 3 at another long side, at five
    # long sides each (the last one a whole number of 16-byte vectors)
    6: ({(1, 61): [(512, "false")], (2, 53): [(256, "false")]},
        [(1, 61, n) for n in (4400563, 4400565, 4400577, 4400583, 4400576)]
        + [(2, 53, n) for n in (2532411, 2532413, 2532433, 2532435, 2532432)]),
}
DT = {1: "u1", 2: "u2"}
LONGS = (1, 2, 5, 15, 31, 127, 128, 129, 255, 257, 511, 512, 513, 1023, 1025, 4099, 65537, 200_003)


def shared_bytes(e, s, w):
    return -(-s * e // 16) * (16 // e) * (w * e // 16 + 1) * 16 + w * s * e


def main(rounds, which=1):
    import cupy
    import numpy as np
    import torch

    import bwlab
    from bwlab.core import launch, timing, verify
    from bwlab.workloads.transpose import plans

    src = plans.KERNELS_DIR / "widewords.cu"
    variants, shapes = SETS[which]
    fns = {}
    for (e, s), vs in variants.items():
        for w, st in vs:
            fn = launch.function(src, f"wideWords<{e},{s},{w},{st}>")
            launch.allow_shared(fn, shared_bytes(e, s, w))
            fns[(e, s, w, st)] = fn

    def run(e, s, w, st, x, out, n):
        fns[(e, s, w, st)]((plans.cdiv(n, w),), (256,), (x, out, np.int64(n)), shared_mem=shared_bytes(e, s, w))

    checks = 0
    for (e, s), vs in variants.items():
        for n in LONGS:
            host = verify.random_host((s, n), DT[e], seed=7919 * s + n)
            x = cupy.asarray(host)
            want = np.ascontiguousarray(host.T)
            for w, st in vs:
                buf = cupy.empty(n * s + 64, DT[e])
                verify.poison(buf)
                out = buf[:n * s].reshape(n, s)
                run(e, s, w, st, x, out, n)
                assert verify.compare(out.get(), want).ok, (e, s, n, w, st)
                assert bool((buf[n * s:].view(cupy.uint8) == verify.POISON_BYTE).all()), ("past the output", s, n, w)
                checks += 1
            assert verify.compare(x.get(), host).ok
    print(f"# {checks} forced checks passed (bit-exact, output poisoned, canary intact)", flush=True)
    stream = cupy.cuda.get_current_stream()
    res = {}
    for e, s, n in shapes:
        x = cupy.empty((s, n), DT[e])
        verify.fill_random_bits(x, seed=s + n)
        want = cupy.ascontiguousarray(x.T)
        out = cupy.empty_like(want)
        tx = torch.from_dlpack(x)
        runs = {"disp": lambda: bwlab.transpose(x, out=out), "cupy": lambda: cupy.ascontiguousarray(x.T),
                "torch": lambda: tx.t().contiguous()}
        if which in (4, 5, 6):
            del runs["cupy"], runs["torch"]
        for w, st in variants[(e, s)]:
            runs[f"w{w}{st[0]}"] = lambda w=w, st=st: run(e, s, w, st, x, out, n)
        for label in [lab for lab in runs if lab not in ("cupy", "torch")]:
            verify.poison(out)
            runs[label]()
            assert bool((out == want).all()), (label, s, n)
        label0 = plans.choose(e, plans.layout_of((s, n), (n, 1))).label
        for r in range(rounds):
            copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                         stream.ptr), warmup=3, reps=30).median_ms
            for label, fn in runs.items():
                t = timing.time_gpu(fn, warmup=3, reps=30).median_ms
                res.setdefault((e, s, n, label), []).append(100 * copy / t)
                print(f"r{r} u{8 * e} {s:2}x{n:<9} {label:6} {2 * x.nbytes / t / 1e6:6.0f} GB/s "
                      f"{100 * copy / t:6.1f}% of a copy{'  (' + label0 + ')' if label == 'disp' else ''}", flush=True)
        x = want = out = tx = None
        cupy.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()
    labels = ("disp", *sorted({f"w{w}{st[0]}" for vs in variants.values() for w, st in vs}), "cupy", "torch")
    print(f"# mean of the rounds, % of a copy: shape {' '.join(f'{lab:>6}' for lab in labels)}")
    print("# (w<W><f|t>: wideWords<E,S,W,STREAM>, plain (f) or evict-first (t) stores)")
    for e, s, n in shapes:
        cells = [statistics.mean(res[(e, s, n, lab)]) if (e, s, n, lab) in res else None for lab in labels]
        print(f"# u{8 * e} {s:2}x{n:<9} " + " ".join("     -" if c is None else f"{c:6.1f}" for c in cells))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2, int(sys.argv[2]) if len(sys.argv) > 2 else 1)
