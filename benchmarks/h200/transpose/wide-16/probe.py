"""Wide 16-byte matrices (S x n -> n x S, complex128 as pairs of uint64): the dispatch's kernel
(skinnyTile's wide tile, or tileAny where S fills its 32-row tiles) against the register kernel
`skinny` (S <= 16: a thread loads one element of each of the S rows and the warp stages the
packed side in shared memory), `strided` (S <= 8; the kernel of views with any strides: one thread
an output element, as CuPy's copy does), CuPy's `ascontiguousarray(x.T)` and torch's
`x.t().contiguous()`, and wideElems<S,U,STREAM> (S <= 8; elems.cu: one element a thread as a
copy kernel moves vectors, U elements a thread 32 apart, plain or evict-first stores).
In `--suite main`, 3 x 10,000,000 complex128 ran at 98.7% of memcpy on skinnyTile and CuPy at
99.7%. Every forced kernel is first checked bit-exact on fresh random data with the output
poisoned at long sides 1 to 200003 (tests/transpose/forced.py), and each timed output against
CuPy's. Alternately, ROUNDS rounds, CUDA events, median of 30, % of a cudaMemcpy of the same bytes.
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/wide-16/probe.py [ROUNDS]`."""
import statistics
import sys

sys.path.insert(0, "tests/transpose")
SIDES = (2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 24, 31, 32, 33, 48, 63, 64)
ELEMS = [(u, st) for u in (1, 2, 4, 8) for st in ("false", "true")]  # wideElems<S,U,STREAM> forced
STRIDED_MAX = 8  # `strided` (one thread an element, as CuPy's copy) forced up to this short side
LONGS = (1, 2, 5, 31, 33, 127, 129, 1009, 4099, 200_003)


def main(rounds):
    import cupy
    import numpy as np
    import torch

    import bwlab
    from bwlab.core import launch, timing, verify
    from bwlab.workloads.transpose import calls, plans
    from forced import check_forced

    def skinny(s):
        return plans.Choice("wide", 16, plans.SKINNY, plans.skinny_expression(16, s, False), plans.skinny_threads(s))

    elems_cu = plans.ANY.parent / "elems.cu"
    strided = plans.Choice("strided", 16, plans.STRIDED, plans.strided_expression(16), plans.STRIDED_THREADS)
    checks = 0
    for s in SIDES:
        if s <= STRIDED_MAX:
            for n in LONGS:
                check_forced(strided, s, n, "complex128", seed=7919 * s + n + 1)
                checks += 1
        if s <= plans.SKINNY_MAX:
            for n in LONGS:
                check_forced(skinny(s), s, n, "complex128", seed=7919 * s + n)
                checks += 1
    for s in SIDES:
        if s <= STRIDED_MAX:
            for n in LONGS:
                x = cupy.empty((s, n), cupy.complex128)
                verify.fill_random_bits(x.view(cupy.uint64), seed=s + 3 * n)
                want = cupy.ascontiguousarray(x.T).view(cupy.uint64)
                for u, st in ELEMS:
                    out = cupy.empty((n, s), cupy.complex128)
                    out.view(cupy.uint64).fill(0xA5A5A5A5A5A5A5A5)
                    launch.function(elems_cu, f"wideElems<{s},{u},{st}>")(
                        (plans.cdiv(s * n, 256 * u),), (256,), (x, out, np.int64(n)))
                    assert bool((out.view(cupy.uint64) == want).all()), (s, n, u, st)
                    checks += 1
    print(f"# {checks} forced checks passed (bit-exact, output poisoned)", flush=True)
    stream = cupy.cuda.get_current_stream()
    res = {}
    shapes = [(3, 10_000_000)] + [(s, 2**28 // (16 * s) | 1) for s in SIDES]
    for s, n in shapes:
        x = cupy.empty((s, n), cupy.complex128)
        verify.fill_random_bits(x.view(cupy.uint64), seed=s)
        want = cupy.ascontiguousarray(x.T)
        out = cupy.empty_like(want)
        tx = torch.from_dlpack(x)
        # the peers allocate their results from their pools, as a user's call does (and the bench)
        runs = {"disp": lambda: bwlab.transpose(x, out=out), "cupy": lambda: cupy.ascontiguousarray(x.T),
                "torch": lambda: tx.t().contiguous()}
        if s <= plans.SKINNY_MAX:
            ch = skinny(s)
            runs["skinny"] = lambda ch=ch: calls.launch(ch, x.data.ptr, out.data.ptr, 1, s, n, x.nbytes, x.device.id,
                                                         stream.ptr)
        if s <= STRIDED_MAX:
            runs["strided"] = lambda: calls.launch(strided, x.data.ptr, out.data.ptr, 1, s, n, x.nbytes, x.device.id,
                                                   stream.ptr)
        if s <= STRIDED_MAX:
            for u, st in ELEMS:
                fn = launch.function(elems_cu, f"wideElems<{s},{u},{st}>")
                args, blocks = (x, out, np.int64(n)), plans.cdiv(s * n, 256 * u)
                runs[f"e{u}{st[0]}"] = lambda fn=fn, args=args, blocks=blocks: fn((blocks,), (256,), args)
        for label in [lab for lab in runs if lab not in ("cupy", "torch")]:
            if label in runs:
                out.view(cupy.uint64).fill(0xA5A5A5A5A5A5A5A5)
                runs[label]()
                assert bool((out.view(cupy.uint64) == want.view(cupy.uint64)).all()), (label, s, n)
        assert bool((cupy.ascontiguousarray(x.T).view(cupy.uint64) == want.view(cupy.uint64)).all())
        label0 = plans.choose(16, plans.layout_of((s, n), (n, 1))).label
        for r in range(rounds):
            copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                         stream.ptr), warmup=3, reps=30).median_ms
            for label, fn in runs.items():
                t = timing.time_gpu(fn, warmup=3, reps=30).median_ms
                res.setdefault((s, n, label), []).append(100 * copy / t)
                print(f"r{r} {s:2}x{n:<9} {label:6} {2 * x.nbytes / t / 1e6:6.0f} GB/s {100 * copy / t:6.1f}% of a copy"
                      f"{'  (' + label0 + ')' if label == 'disp' else ''}", flush=True)
        x = want = out = tx = None
        cupy.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()
    labels = ("disp", "skinny", "strided", *(f"e{u}{st[0]}" for u, st in ELEMS), "cupy", "torch")
    print(f"# mean of the rounds, % of a copy: shape {' '.join(f'{lab:>6}' for lab in labels)}")
    print("# (e<U><f|t>: wideElems<S,U,STREAM>, STREAM false (plain stores) or true (evict-first))")
    for s, n in shapes:
        cells = [statistics.mean(res[(s, n, lab)]) if (s, n, lab) in res else None for lab in labels]
        print(f"# {s:2}x{n:<9} " + " ".join("     -" if c is None else f"{c:6.1f}" for c in cells))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
