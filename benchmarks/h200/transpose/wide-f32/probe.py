"""widePerm for wide 4-byte matrices (S x n -> n x S, S 2..64): a lane loads one element (one word) of
each of the S rows, the S words go through the warp's staging buffer into aligned 16-byte vectors of
the packed side; 4-byte rows start on words, so nothing is realigned. Against the dispatch (the
register kernel `skinny` up to 16 rows, `skinnyTile`'s wide tile from 17), on the every-side suite's
shapes (S x n, n odd, 256 MiB; as uint32, the float32 kernels), alternately, ROUNDS rounds. With
`aligned`, n is a multiple of 4 (rows in whole 16-byte vectors) and skinnyTile's wide tile is also
forced (tile): the kernel of those shapes before widePerm took them.
Every expression is first checked bit-exact on fresh random data with the output poisoned, at long
sides 1 to 200003 (tests/transpose/forced.py), and on each timed shape against CuPy's transpose.
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/wide-f32/probe.py [ROUNDS [aligned]]`;
`probe.py --warm`: compile the kernels only (in parallel), printing registers and spills."""
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, "tests/transpose")
SIDES = (2, 5, 8, 13, 16, 17, 24, 31, 32, 33, 34, 35, 36, 37, 41, 48, 49, 57, 63, 64)
LONGS = (1, 2, 5, 31, 33, 127, 129, 1009, 4099, 12_347, 200_003)


def expressions(s):
    from bwlab.workloads.transpose import plans
    k = plans.perm_steps_of(4, s)  # the dispatch's K (4 at 9 to 16 rows in the runs recorded: see COMMAND)
    return {"wpL2": f"widePerm<4,{s},{k},true>", "wp": f"widePerm<4,{s},{k},false>"}


def choice(expr):
    from bwlab.workloads.transpose import plans
    return plans.Choice("wide-perm", 4, plans.SKINNYPERM, expr, plans.PERM_THREADS)


def _compile(job):
    from bwlab.core import build
    src, expr = job
    r = build.compile_source(src, [expr], "sm_90").resources[expr]
    return f"# {r.registers:4} regs {r.spill_stores:3} spill {expr}"


def long_side(s, aligned):
    n = 2**28 // (4 * s)
    return n // 4 * 4 if aligned else n | 1


def matrix(s, aligned):
    """A fresh random S x n uint32 matrix of the suite's long side, its transpose by CuPy, and an output."""
    import cupy

    from bwlab.core import verify
    n = long_side(s, aligned)
    x = cupy.empty((s, n), cupy.uint32)
    verify.fill_random_bits(x, seed=s)
    want = cupy.ascontiguousarray(x.T)
    return n, x, want, cupy.empty_like(want)


def main(rounds, aligned=False):
    import cupy

    import bwlab
    from bwlab.core import timing
    from bwlab.workloads.transpose import calls, plans
    from forced import check_forced

    checks = 0
    for s in SIDES:
        for e in expressions(s).values():
            for n in LONGS:
                check_forced(choice(e), s, n, "u4", seed=7919 * s + n)
                checks += 1
    print(f"# {checks} forced checks passed (bit-exact, output poisoned)", flush=True)
    stream = cupy.cuda.get_current_stream()
    rows = {}
    sides = [s for s in SIDES if not (aligned and s % 64 == 0)]  # whole tiles of tileAny
    for s in sides:
        n, x, want, out = matrix(s, aligned)
        runs = {"disp": lambda: bwlab.transpose(x, out=out)}
        if aligned:
            tile = plans.Choice("wide-tile", 4, plans.SKINNYTILE, "skinnyTile<4,false>", plans.SKINNYTILE_THREADS)
            runs["tile"] = lambda: calls.launch(tile, x.data.ptr, out.data.ptr, 1, s, n, x.nbytes, x.device.id,
                                                stream.ptr)
        for label, e in expressions(s).items():
            ch = choice(e)
            runs[label] = (lambda ch=ch: calls.launch(ch, x.data.ptr, out.data.ptr, 1, s, n, x.nbytes, x.device.id,
                                                       stream.ptr))
        for label, fn in runs.items():
            out.fill(0xA5A5A5A5)
            fn()
            ok = bool((out == want).all())
            assert ok, (label, s, n)
        for r in range(rounds):
            copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                         stream.ptr), warmup=5, reps=50).median_ms
            for label, fn in runs.items():
                t = timing.time_gpu(fn, warmup=5, reps=50).median_ms
                pct = 100 * copy / t
                rows.setdefault((s, label), []).append(pct)
                gbs = 2 * x.nbytes / t / 1e6
                print(f"r{r} {s:2}x{n:<9} {label:5} {gbs:6.0f} GB/s {pct:6.1f}% of a copy", flush=True)
        x = want = out = None  # freed before the next side's arrays
        calls._plans.clear()
        cupy.get_default_memory_pool().free_all_blocks()
    base = "tile" if aligned else "disp"
    labels = ("disp", "tile", "wpL2", "wp") if aligned else ("disp", "wpL2", "wp")
    print(f"# mean of the rounds, % of a copy: side {' '.join(f'{lab:>6}' for lab in labels)}  wpL2-{base}")
    for s in sides:
        m = {lab: statistics.mean(rows[(s, lab)]) for lab in labels}
        print(f"# {s:4} {' '.join(f'{m[lab]:6.1f}' for lab in labels)} {m['wpL2'] - m[base]:+6.1f}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--warm"]:
        from bwlab.workloads.transpose import plans
        jobs = [(plans.SKINNYPERM, e) for s in SIDES for e in expressions(s).values()]
        for s in SIDES:  # the dispatch's kernels
            n = (2**28 // (4 * s)) | 1
            c = plans.choose(4, plans.layout_of((s, n), (n, 1)))
            if (c.source, c.expression) not in jobs:
                jobs.append((c.source, c.expression))
        with ProcessPoolExecutor(16) as pool:
            for line in pool.map(_compile, jobs):
                print(line, flush=True)
        sys.exit()
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2, sys.argv[2:] == ["aligned"])
