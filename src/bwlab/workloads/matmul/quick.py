"""A quick look at the matmul ladder on this GPU, without the lab's full procedure:

    PYTHONPATH=src python3 -m bwlab.workloads.matmul.quick [--variants] [--kernels A,B] [--sizes 2048,4096,8192]

Each kernel is checked (float64 reference on the GPU, the workload's tolerance) at each size
before it is timed (CUDA events, median of a few repetitions, no L2 flush: every size here
is compute-bound); TFLOP/s = 2 M N K / median time. cuBLAS SGEMM through torch (TF32 off) and
CuPy in the same run; TF32 is another precision. The slow teaching rungs run at 4096 and
below only. --variants times the coarsening study's configurations at 4096 instead; --kernels
times the named ladder kernels or variants only.
"""
from __future__ import annotations

import argparse
import sys
import time

SLOW = ("naive", "tiled", "coarseSeed", "coarse")


def _time(fn, budget_s: float = 0.4, max_reps: int = 20) -> float:
    from ...core import timing

    t = timing.time_gpu(fn, warmup=1, reps=1).median_ms
    reps = max(3, min(max_reps, int(budget_s * 1e3 / max(t, 1e-3))))
    return timing.time_gpu(fn, warmup=1, reps=reps).median_ms


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="2048,4096,8192")
    ap.add_argument("--variants", action="store_true")
    ap.add_argument("--kernels", default="", help="ladder kernels or variants, comma-separated (a name ending "
                    "in * matches by prefix)")
    opts = ap.parse_args(argv)
    import cupy

    from ...core import build, launch as core_launch
    from ...core.workload import Case
    from . import WORKLOAD as W

    t0 = time.time()
    arch = core_launch.arch_of(0)
    for src, exprs in W.sources().items():
        build.compile_each(src, exprs, arch)
    print(f"{cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {arch}; built in {time.time() - t0:.0f} s",
          flush=True)
    specs = list(W.variants()) if opts.variants else list(W.kernels())
    if opts.kernels:
        every = list(W.kernels()) + list(W.variants())
        pats = opts.kernels.split(",")
        specs = [k for k in every if any(k.name == p or (p.endswith("*") and k.name.startswith(p[:-1])) for p in pats)]
    sizes = [4096] if opts.variants else [int(s) for s in opts.sizes.split(",")]
    peers = [p for p in W.peers() if p.name != "bwlab"]
    table: dict[str, dict[int, str]] = {}
    cublas: dict[int, float] = {}
    for n in sizes:
        case = Case((n, n, n), "float32")
        x = W.make_input(case, 0)
        want = W.reference(case, x)
        flop = W.flops(case)
        out = W.new_output(case, x)
        for p in peers:
            why = p.unavailable("float32")
            if why:
                table.setdefault(p.name, {})[n] = "n/a"
                continue
            fn, result = p.make(x, out, case)
            fn()
            ok = W.check(result(), want).ok
            tf = flop / (_time(fn) * 1e-3) / 1e12
            table.setdefault(p.name, {})[n] = f"{tf:.1f}" if ok else "WRONG"
            if p.name in ("torch", "cupy") and ok:
                cublas[n] = max(cublas.get(n, 0.0), tf)
        for s in specs:
            if n > 4096 and s.name in SLOW:
                table.setdefault(s.name, {})[n] = "-"
                continue
            cupy.cuda.Device().synchronize()
            out.fill(float("nan"))
            prep = W.prepare(s, x, out, case)
            prep.launch()
            chk = W.check(out, want)
            if not chk.ok:
                table.setdefault(s.name, {})[n] = "WRONG"
                print(f"{s.name} at {n}: {chk}", flush=True)
                continue
            tf = flop / (_time(prep.launch) * 1e-3) / 1e12
            pct = f" ({100 * tf / cublas[n]:.0f}%)" if n in cublas else ""
            table.setdefault(s.name, {})[n] = f"{tf:.1f}{pct}"
        print(f"  {n}: done at {time.time() - t0:.0f} s", flush=True)
        del x, want, out
        cupy.get_default_memory_pool().free_all_blocks()
    regs = {}
    for s in specs:
        b = build.compile_source(s.source, [s.expression("float32", s.block)], arch)
        r = b.resources.get(s.expression("float32", s.block))
        regs[s.name] = f"{r.registers}r {(r.smem_bytes + s.shared) // 1024}K" if r else ""  # static + dynamic
    w = max(len(k) for k in table) + 2
    print("\nTFLOP/s = 2 M N K / median time (M = N = K), (% of the best cuBLAS SGEMM peer, TF32 off)")
    print(f"{'kernel':{w}}" + "".join(f"{n:>16}" for n in sizes) + "   regs smem")
    for name, row in table.items():
        print(f"{name:{w}}" + "".join(f"{row.get(n, ''):>16}" for n in sizes) + f"   {regs.get(name, '')}")
    print(f"\n{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
