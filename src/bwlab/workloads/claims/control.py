"""Claims about control flow: divergence inside a warp, signed against unsigned loop counters,
and __syncthreads() in divergent code (compiled and described, never launched: its behaviour is
undefined and it can hang the GPU)."""
from __future__ import annotations

import numpy as np

from .claim import DEPENDS, FAILS, HOLDS, Bars, Claim, Kernels, Verdict, cu, ratio, trend, x
from .memory import BLOCK, _u32, _wrap32, blocks

TOPIC = "notes on control-flow advice"
DIVERGENCE, LOOPS, BARRIER = cu("divergence"), cu("loops"), cu("barrier")
MODES = ("all_A", "all_B", "warps", "lanes")


def _host_paths(x0: np.ndarray, iters: int) -> tuple[np.ndarray, np.ndarray]:
    """Paths A and B in float64 rounded to float32 after each fused multiply-add."""
    a = x0.astype(np.float64)
    b = a.copy()
    for _ in range(iters):
        a = np.float32(a * np.float64(np.float32(0.999)) + np.float64(np.float32(0.01))).astype(np.float64)
        b = np.float32(b * b - 0.5).astype(np.float64)
    return a, b


def measure_divergence(ctx) -> dict:
    import cupy

    from ...core.verify import compare, poison

    nblocks = blocks(ctx)
    threads = nblocks * BLOCK
    x0 = ctx.rng().uniform(-1, 1, threads).astype(np.float32)
    data = cupy.asarray(x0)
    t = cupy.arange(threads)
    odd = {"warps": ((t % BLOCK) // 32) % 2 == 1, "lanes": t % 2 == 1}
    out = {}
    for iters in (16, 64 if ctx.small else 65536):   # a short chain checked against the host, then the timed one
        res = {}
        for mode, name in enumerate(MODES):
            fn = ctx.function(DIVERGENCE, f"branches<{mode}>")
            r = cupy.empty(threads, cupy.float32)
            poison(r)

            def run(fn=fn, r=r, iters=iters):
                fn((nblocks,), (BLOCK,), (data, r, np.int32(iters)))
            run()
            res[name] = r
            if name in odd:
                want = cupy.where(odd[name], res["all_B"], res["all_A"])
                ctx.require(f"branches {name}: each thread got its own path's result", compare(r, want))
            if iters == 16 and name in ("all_A", "all_B"):
                a, b = _host_paths(x0[:64], iters)
                want64 = a if name == "all_A" else b
                got = r[:64].get().astype(np.float64)
                ok = np.abs(got - want64) <= 1e-6 * (1 + np.abs(want64))
                ctx.require(f"branches {name}: 64 threads against the host", bool(ok.all()))
            if iters > 16:
                rec = ctx.time(f"branches {name.replace('_', ' ')}", run, family=DIVERGENCE.stem, shape=(threads,),
                               dtype="float32", block=(BLOCK, 1), grid=(nblocks, 1))
                out[f"{name}_ms"] = rec.median_ms
    return out


def decide_divergence(n: dict) -> Verdict:
    d = ratio(n["lanes_ms"], n["warps_ms"])
    u = ratio(n["warps_ms"], max(n["all_A_ms"], n["all_B_ms"]))
    text = (f"Path A alone {n['all_A_ms']:.3f} ms, path B alone {n['all_B_ms']:.3f} ms; alternating by warp "
            f"{n['warps_ms']:.3f} ms ({x(u)} the slower path alone); alternating by lane {n['lanes_ms']:.3f} ms "
            f"({x(d)} alternating by warp).")
    if d >= 1.6 and u <= 1.1:
        return Verdict(HOLDS, text)
    if d < 1.2:
        return Verdict(FAILS, text)
    return Verdict(DEPENDS, text, "how the two paths share the SM's pipelines")


# --- loop counters ----------------------------------------------------------------------------

COUNTERS = (("signed", "int", np.int32), ("unsigned", "unsigned int", np.uint32))


def measure_counters(ctx) -> dict:
    import cupy

    from ...core.verify import compare, poison

    nblocks = blocks(ctx)
    threads = nblocks * BLOCK
    n, stride = (64 if ctx.small else 1024), 32
    table = _u32(ctx, 256 + n * stride)
    host = table.get().astype(np.uint64)
    idx = np.arange(256)[:, None] + np.arange(n)[None, :] * stride
    want = cupy.asarray(np.tile(_wrap32(host[idx].sum(axis=1)), threads // 256))
    out = {}
    for name, ctype, np_type in COUNTERS:
        fn = ctx.function(LOOPS, f"stridedSum<{ctype}>")
        res = cupy.empty(threads, cupy.uint32)
        poison(res)

        def run(fn=fn, res=res, np_type=np_type):
            fn((nblocks,), (BLOCK,), (table, res, np_type(n), np_type(stride)))
        run()
        ctx.require(f"stridedSum, {name} counter", compare(res, want))
        rec = ctx.time(f"stridedSum, {name} counter", run, family=LOOPS.stem, shape=(threads, n), dtype="uint32",
                       block=(BLOCK, 1), grid=(nblocks, 1))
        out[f"{name}_ms"] = rec.median_ms
    return out


def decide_counters(n: dict) -> Verdict:
    r = ratio(n["unsigned_ms"], n["signed_ms"])
    text = (f"The strided loop takes {n['signed_ms']:.3f} ms with an int counter and {n['unsigned_ms']:.3f} ms "
            f"with an unsigned one ({x(r)}).")
    t = trend(r)
    if t > 0:
        return Verdict(HOLDS, text)
    return Verdict(FAILS, text + (" The unsigned counter is faster here." if t < 0 else
                                  " No measurable difference here."))


# --- __syncthreads() in divergent code ----------------------------------------------------------

def measure_barrier(ctx) -> dict:
    import cupy

    from ...core.verify import compare, poison

    build = ctx.build(BARRIER, "barrierInBranch")
    diagnostics = [line for line in build.log.splitlines() if "warning" in line.lower() or "error" in line.lower()]
    nb = 4 if ctx.small else 64
    x0 = cupy.asarray(ctx.rng().standard_normal(nb * BLOCK).astype(np.float32))
    res = cupy.empty_like(x0)
    poison(res)
    ctx.function(BARRIER, "barrierForAll")((nb,), (BLOCK,), (x0, res))
    ctx.require("barrierForAll: each block reversed", compare(res, x0.reshape(nb, BLOCK)[:, ::-1].reshape(-1)))
    return {"divergent_compiled": 1, "divergent_diagnostics": len(diagnostics),
            "divergent_barriers": build.resources["barrierInBranch"].barriers, "divergent_launched": 0,
            "safe_form_checked": 1}


def decide_barrier(n: dict) -> Verdict:
    if not n["divergent_compiled"]:
        return Verdict(FAILS, "The compiler refused the barrier inside a data-dependent branch.")
    if n["divergent_diagnostics"]:
        return Verdict(FAILS, f"The compiler flagged the barrier inside a data-dependent branch "
                              f"({n['divergent_diagnostics']} diagnostics): the tools do catch it.")
    return Verdict(HOLDS, f"The kernel with __syncthreads() inside a data-dependent branch compiled without a warning "
                          f"({n['divergent_barriers']} barrier in its code): nothing catches the mistake at build "
                          "time. CUDA gives it no defined result (a block can hang, or read shared memory before it "
                          "is written), so it was not launched; the same exchange with the barrier where every "
                          "thread arrives ran and was checked.")


CLAIMS = (
    Claim("warp-divergence", "control", TOPIC,
          "When the threads of one warp take different branches, the warp runs both paths one after the other; "
          "branches that differ only between warps cost nothing extra.",
          "Two chains of 65536 fused multiply-adds of equal cost (paths A and B); every thread of a full grid runs "
          "A, or B, or even warps A and odd warps B, or even lanes A and odd lanes B; median time. Each thread's "
          "result is checked against the single-path runs (and a short chain against the host).",
          measure_divergence, decide_divergence,
          kernels=(Kernels(DIVERGENCE, tuple(f"branches<{m}>" for m in range(4))),),
          charts=(Bars("divergence", "ms", (("all path A", "all_A_ms"), ("all path B", "all_B_ms"),
                                            ("A/B by warp", "warps_ms"), ("A/B by lane", "lanes_ms"))),)),
    Claim("signed-loop-counters", "control", TOPIC,
          "Signed loop counters are better than unsigned ones, because unsigned wrap-around blocks optimisations "
          "such as strength reduction.",
          "Each thread of a full grid sums 1024 words 32 apart (a table that stays in L1) in a loop whose counter "
          "and stride are int, or unsigned int; median time. Sums are checked against the host.",
          measure_counters, decide_counters,
          kernels=(Kernels(LOOPS, ("stridedSum<int>", "stridedSum<unsigned int>")),)),
    Claim("divergent-syncthreads", "control", TOPIC,
          "A __syncthreads() inside a branch that not every thread of the block takes is a bug that the tools do "
          "not catch for you.",
          "A kernel with __syncthreads() under a data-dependent branch is compiled for this GPU and its compiler "
          "log read; it is never launched. The safe form (the barrier outside the branch) runs and is checked.",
          measure_barrier, decide_barrier,
          kernels=(Kernels(BARRIER, ("barrierInBranch", "barrierForAll")),)),
)
