"""Tall matrices of 1- and 2-byte elements (n x S -> S x n) on tallWords<E,S,W,LINE,A,P,STREAM>
(tallwords.cu, from tallwords.patch: the packed input copied into shared memory by cp.async, 4 x 4
byte transposes by byte permutes into staged output rows, each row's vectors stored by consecutive
lanes) against the dispatch's kernel (skinnyWords or skinnyTile), CuPy and torch. W positions a
block, each row's vectors owned from LINE-byte boundaries; P pad chunks after each position group,
chosen by the bank model below; A where every row is a whole number of lines (no positions held
before the tile's). Every variant is first checked bit-exact on fresh random data with the output
poisoned, at long sides 1 to 200003 (and multiples of 16 bytes), with a canary past the output and
the input left as it was; each timed output against CuPy's. Alternately, ROUNDS rounds, CUDA events,
median of 30, % of a cudaMemcpy of the same bytes.
From the repository root, with tallwords.patch applied (git apply):
`PYTHONPATH=src python3 benchmarks/h200/transpose/tall-staged/probe.py [ROUNDS] [SET]`
(`probe.py list SET`: the kernels' name expressions, for compiling them beforehand)."""
import statistics
import sys

SETS = {  # (element size, short side, long side) timed; each with W in WS and LINE in LINES
    1: [(1, 17, 15790321), (1, 20, 13421773), (1, 31, 8659209), (1, 33, 8134409), (1, 41, 6547133),
        (1, 45, 5965233), (1, 48, 5592407), (1, 48, 5592416), (1, 55, 4880695), (1, 63, 4260881),
        (1, 64, 4194305), (1, 64, 4194304), (2, 46, 2918107), (2, 47, 2855959)],
    # SET 2: every tall uint8 side from 17 to 64 columns at the long side of the runs of every side (the least odd one
    # of at least 256 MiB), on whole 32-byte sectors (LINES2), beside the dispatch only
    2: [(1, s, (lambda n: n + 1 - n % 2)(-(-2**28 // s))) for s in range(17, 65)],
}
LINES2 = (32,)
WS = (512, 1024)
LINES = (16, 32)  # probe.txt ran (16, 128, 256) on WS = (512, 1024); probe-sectors.txt (16, 32)
MAX_SHARED = 114 * 1024  # two blocks a multiprocessor at least
DT = {1: "u1", 2: "u2"}
LONGS = (1, 2, 5, 15, 16, 17, 31, 127, 255, 256, 257, 511, 512, 513, 1023, 1025, 4099, 65537, 200_003)
LONGS_A = (16, 32, 496, 512, 528, 1024, 4096, 65536, 200_000)


def bank_pad(s, e, w=512):
    """The pad chunks a group (0-7) whose step-2 word reads conflict least (mean ways a read)."""
    k_words, r = -(-s * e // 4), 16 // e
    tasks = [(g, k) for g in range(w // r + 1) for k in range(k_words)]

    def ways(p):
        tot = n = 0
        for w0 in range(0, len(tasks), 32):
            for i in range(r):
                for part in (0, 1):
                    banks = {}
                    for g, k in tasks[w0:w0 + 32]:
                        b = i * s * e + 4 * k
                        if part and b % 4 == 0:
                            continue
                        a = ((b & ~3) + 4 * part + g * 16 * (s + p)) >> 2
                        banks.setdefault(a % 32, set()).add(a)
                    if banks:
                        tot += max(map(len, banks.values()))
                        n += 1
        return tot / n
    return min(range(8), key=lambda p: (round(ways(p), 3), p))


def shared_bytes(e, s, w, line, a, p):
    r = 16 // e
    ng = (w + (0 if a else line // e)) // r
    return ng * 16 * (s + p) + 16 + s * (ng if a else ng + 1) * 16


def variants(e, s, n, lines=LINES):
    """(W, LINE, A, P) for a long side n: A where every row is a whole number of lines."""
    p = bank_pad(s, e)
    out = []
    for w in WS:
        for line in lines:
            a = n * e % line == 0
            if shared_bytes(e, s, w, line, a, p) <= MAX_SHARED:
                out.append((w, line, a, p))
    return out


def expr(e, s, w, line, a, p, stream="false"):
    return f"tallWords<{e},{s},{w},{line},{'true' if a else 'false'},{p},{stream}>"


def expressions(which):
    out = set()
    lines = LINES2 if which == 2 else LINES
    for e, s, n0 in SETS[which]:
        for n in (*LONGS, *LONGS_A, n0):
            out |= {expr(e, s, *v) for v in variants(e, s, n, lines)}
    return sorted(out)


def main(rounds, which=1):
    import cupy
    import numpy as np
    import torch

    import bwlab
    from bwlab.core import launch, timing, verify
    from bwlab.workloads.transpose import plans

    src = plans.KERNELS_DIR / "tallwords.cu"
    lines = LINES2 if which == 2 else LINES
    fns = {}

    def fn(e, s, w, line, a, p):
        key = (e, s, w, line, a, p)
        if key not in fns:
            f = launch.function(src, expr(e, s, w, line, a, p))
            launch.allow_shared(f, shared_bytes(e, s, w, line, a, p))
            fns[key] = f
        return fns[key]

    def run(e, s, w, line, a, p, x, out, n):
        fn(e, s, w, line, a, p)((plans.cdiv(n, w),), (256,), (x, out, np.int64(n)),
                                shared_mem=shared_bytes(e, s, w, line, a, p))

    checks = 0
    for e, s in sorted({(e, s) for e, s, _ in SETS[which]}):
        for longs in (LONGS, LONGS_A):
            for n in longs:
                host = verify.random_host((n, s), DT[e], seed=7919 * s + n)
                x = cupy.asarray(host)
                want = np.ascontiguousarray(host.T)
                for v in variants(e, s, n, lines):
                    buf = cupy.empty(n * s + 64, DT[e])
                    verify.poison(buf)
                    out = buf[:n * s].reshape(s, n)
                    run(e, s, *v, x, out, n)
                    assert verify.compare(out.get(), want).ok, (e, s, n, v)
                    assert bool((buf[n * s:].view(cupy.uint8) == verify.POISON_BYTE).all()), ("canary", e, s, n, v)
                    checks += 1
                assert verify.compare(x.get(), host).ok
    print(f"# {checks} forced checks passed (bit-exact, output poisoned, canary intact)", flush=True)
    stream = cupy.cuda.get_current_stream()
    res = {}
    for e, s, n in SETS[which]:
        x = cupy.empty((n, s), DT[e])
        verify.fill_random_bits(x, seed=s + n)
        want = cupy.ascontiguousarray(x.T)
        out = cupy.empty_like(want)
        tx = torch.from_dlpack(x)
        runs = {"disp": lambda: bwlab.transpose(x, out=out), "cupy": lambda: cupy.ascontiguousarray(x.T),
                "torch": lambda: tx.t().contiguous()}
        if which == 2:
            del runs["cupy"], runs["torch"]
        for v in variants(e, s, n, lines):
            runs[f"w{v[0]}l{v[1]}"] = lambda v=v: run(e, s, *v, x, out, n)
        for label in [lab for lab in runs if lab not in ("cupy", "torch")]:
            verify.poison(out)
            runs[label]()
            assert bool((out == want).all()), (label, s, n)
        label0 = plans.choose(e, plans.layout_of((n, s), (s, 1))).label
        for r in range(rounds):
            copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                         stream.ptr), warmup=3, reps=30).median_ms
            for label, f in runs.items():
                t = timing.time_gpu(f, warmup=3, reps=30).median_ms
                res.setdefault((e, s, n, label), []).append(100 * copy / t)
                print(f"r{r} u{8 * e} {n:>9}x{s:<2} {label:6} {2 * x.nbytes / t / 1e6:6.0f} GB/s {100 * copy / t:6.1f}%"
                      f" of a copy{'  (' + label0 + ')' if label == 'disp' else ''}", flush=True)
        x = want = out = tx = None
        cupy.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()
    labels = ("disp", *(f"w{w}l{line}" for w in WS for line in lines), "cupy", "torch")
    print(f"# mean of the rounds, % of a copy: shape {' '.join(f'{lab:>8}' for lab in labels)}")
    print("# (w<W>l<LINE>: tallWords<E,S,W,LINE,A,P,false>, A where the rows are whole lines, P from the bank model)")
    for e, s, n in SETS[which]:
        cells = [statistics.mean(res[(e, s, n, lab)]) if (e, s, n, lab) in res else None for lab in labels]
        print(f"# u{8 * e} {n:>9}x{s:<2} " + " ".join("       -" if c is None else f"{c:8.1f}" for c in cells))


if __name__ == "__main__":
    if sys.argv[1:2] == ["list"]:
        print("\n".join(expressions(int(sys.argv[2]) if len(sys.argv) > 2 else 1)))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 2, int(sys.argv[2]) if len(sys.argv) > 2 else 1)
