"""Misaligned 8-byte rows (float64 as uint64): tileScalar, the dispatch's kernel until now (one
load and one store instruction an element, so an output row that does not start on a 32-byte
sector has its end sectors written in two parts, by two blocks), against tileWhole<8,...>
(whole.cu: element loads, every output sector stored whole by the block that owns it), and
CuPy's and torch's transposes. With E=16 (complex128): tileAny's 16-byte tile (the dispatch's,
whose output rows of odd length start every other one mid-sector) against tileWhole<16,...>. Every forced kernel is first checked bit-exact on awkward shapes
with the output poisoned (tests/transpose/forced.py), and each timed output against CuPy's.
Alternately, ROUNDS rounds, CUDA events, median of 30, % of a cudaMemcpy of the same bytes.
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/whole-8/probe.py [ROUNDS] [E]`."""
import statistics
import sys

sys.path.insert(0, "tests/transpose")
SHAPES16 = [(1, 16383, 16389), (1, 16389, 16383), (1, 32771, 8191), (1, 8191, 32771), (1, 4097, 4103),
            (3, 4097, 4099), (1, 16384, 16384), (1, 16384, 16389)]
SHAPES = [(1, 16383, 16389), (1, 16389, 16383), (1, 8193, 8199), (4, 4096, 8199), (1, 8192, 8199),
          (1, 8193, 8192), (1, 32771, 8191), (1, 8191, 32771), (3, 5001, 4099)]
AWKWARD = [(1, 1), (1, 77), (77, 1), (2, 3), (63, 65), (65, 33), (129, 31), (257, 263), (1000, 1003), (4099, 127)]


def kernels(e):
    from bwlab.workloads.transpose import plans

    if e == 8:
        ks = {f"s{tr}x{tc}": plans.Choice("scalar", 8, plans.SCALAR,
                                          plans.tile_expression(8, (tr, tc, th), "tileScalar"), th)
              for tr, tc, th in plans.SCALAR_CANDIDATES[8]}
    else:
        ks = {f"a{tr}x{tc}": plans.Choice("tile", 16, plans.ANY, plans.tile_expression(16, (tr, tc, th)), th)
              for tr, tc, th in plans.TILE_CANDIDATES[16][:1]}
    ks |= {f"w{tr}x{tc}{'' if th == 256 else 't' + str(th)}":
           plans.Choice("whole", e, plans.WHOLE, plans.tile_expression(e, (tr, tc, th), "tileWhole"), th)
           for tr, tc, th in plans.WHOLE_CANDIDATES[e]}
    return ks


def main(rounds, e=8):
    import cupy
    import torch

    import bwlab
    from bwlab.core import timing, verify
    from bwlab.workloads.transpose import calls, plans
    from forced import check_forced

    ks = kernels(e)
    dt, bits = ("u8", cupy.uint64) if e == 8 else ("c16", cupy.complex128)
    checks = 0
    for label, ch in ks.items():
        for i, (r, c) in enumerate(AWKWARD):
            check_forced(ch, r, c, dt, seed=31 * i + len(label))
            checks += 1
    print(f"# {checks} forced checks passed (bit-exact, output poisoned)", flush=True)
    stream = cupy.cuda.get_current_stream()
    res = {}
    shapes = SHAPES if e == 8 else SHAPES16
    for b, r, c in shapes:
        x = cupy.empty((b, r, c), bits)
        verify.fill_random_bits(x.view(cupy.uint64), seed=r + c)
        want = cupy.ascontiguousarray(x.swapaxes(1, 2))
        out = cupy.empty_like(want)
        xf = x.view(cupy.float64) if e == 8 else x
        tx = torch.from_dlpack(xf)
        lay = plans.layout_of(xf.shape, tuple(s // e for s in xf.strides))
        runs = {"disp": lambda: bwlab.transpose(xf, out=out.view(xf.dtype)),
                "cupy": lambda: cupy.ascontiguousarray(xf.swapaxes(1, 2)),
                "torch": lambda: tx.transpose(1, 2).contiguous()}
        for label, ch in ks.items():
            run = calls.kernel_runner(ch, lay, calls.Operand(None, "cupy", x.data.ptr, (b, r, c), (r * c, c, 1), e, None,
                                                            x.device.id, "x"))
            runs[label] = lambda run=run: run(x.data.ptr, out.data.ptr, stream.ptr)
        for label in [lab for lab in runs if lab not in ("cupy", "torch")]:
            verify.poison(out)
            runs[label]()
            assert bool((out.view(cupy.uint64) == want.view(cupy.uint64)).all()), (label, b, r, c)
        chosen = plans.choose(e, lay).label
        for rd in range(rounds):
            copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, 3,
                                                                         stream.ptr), warmup=3, reps=30).median_ms
            for label, fn in runs.items():
                t = timing.time_gpu(fn, warmup=3, reps=30).median_ms
                res.setdefault((b, r, c, label), []).append(100 * copy / t)
                print(f"r{rd} {b}x{r}x{c:<6} {label:7} {2 * x.nbytes / t / 1e6:6.0f} GB/s {100 * copy / t:6.1f}% of a copy"
                      f"{'  (' + chosen + ')' if label == 'disp' else ''}", flush=True)
        x = want = out = xf = tx = None
        cupy.get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()
    labels = ("disp", *ks, "cupy", "torch")
    print(f"# mean of the rounds, % of a copy: shape {' '.join(f'{lab:>7}' for lab in labels)}")
    for b, r, c in shapes:
        cells = [statistics.mean(res[(b, r, c, lab)]) for lab in labels]
        print(f"# {b}x{r}x{c:<6} " + " ".join(f"{v:7.1f}" for v in cells))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2, int(sys.argv[2]) if len(sys.argv) > 2 else 8)
