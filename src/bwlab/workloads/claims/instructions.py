"""Claims about instruction choices: shifts and masks for power-of-two division and modulo,
rsqrtf, double literals in single-precision code, and the fast-math intrinsics against the
accurate library functions (throughput and largest error against a float64 reference)."""
from __future__ import annotations

import math

import numpy as np

from .claim import DEPENDS, FAILS, HOLDS, Bars, Claim, Kernels, Verdict, cu, ratio, trend, x
from .memory import BLOCK, _u32, _wrap32, blocks

TOPIC = "notes on arithmetic-instruction advice"
INTDIV, FLOATOPS = cu("intdiv"), cu("floatops")


# --- division and modulo by powers of two ----------------------------------------------------

DIV_MODES = ("runtime", "shift", "constant")


def _host_divmod(v: np.ndarray, iters: int) -> np.ndarray:
    v, acc = v.astype(np.uint64), np.zeros(v.size, np.uint64)
    for _ in range(iters):
        acc += (v // 64) ^ (v % 64)
        v = (v + 0x9E3779B9) & 0xFFFFFFFF
    return _wrap32(acc)


def measure_divmod(ctx) -> dict:
    import cupy

    from ...core.verify import compare, poison

    nblocks = blocks(ctx)
    threads = nblocks * BLOCK
    iters = 64 if ctx.small else 8192
    data = _u32(ctx, threads)
    first = None
    out = {}
    for mode, name in enumerate(DIV_MODES):
        fn = ctx.function(INTDIV, f"divmodPow2<{mode}>")
        res = cupy.empty(threads, cupy.uint32)
        poison(res)

        def run(fn=fn, res=res):
            fn((nblocks,), (BLOCK,), (data, res, np.uint32(64), np.uint32(6), np.int32(iters)))
        run()
        if first is None:
            first = res
            want = _host_divmod(data[:256].get(), iters)
            ctx.require(f"divmodPow2 {name}: 256 threads against the host", compare(res[:256].get(), want))
        else:
            ctx.require(f"divmodPow2 {name} agrees with {DIV_MODES[0]}", compare(res, first))
        rec = ctx.time(f"divmodPow2 {name}", run, family=INTDIV.stem, shape=(threads,), dtype="uint32",
                       block=(BLOCK, 1), grid=(nblocks, 1))
        out[f"{name}_ms"] = rec.median_ms
    return out


def decide_divmod(n: dict) -> Verdict:
    rt, ct = ratio(n["runtime_ms"], n["shift_ms"]), ratio(n["constant_ms"], n["shift_ms"])
    text = (f"With n = 64 known only at run time, '/' and '%' take {n['runtime_ms']:.3f} ms against "
            f"{n['shift_ms']:.3f} ms for '>>' and '&' ({x(rt)}); with the constant 64 in the code, "
            f"{n['constant_ms']:.3f} ms ({x(ct)}). (For unsigned or non-negative values only: on negative signed "
            "values a shift rounds down where division rounds toward zero.)")
    if trend(rt) > 0 and trend(ct) > 0:
        return Verdict(HOLDS, text)
    if trend(rt) > 0:
        return Verdict(DEPENDS, text + " The compiler already turns division by a constant power of two into a "
                                       "shift and a mask.", "whether the divisor is a compile-time constant")
    return Verdict(FAILS, text)


# --- single-precision functions -----------------------------------------------------------------

# op code in floatops.cu -> (label, domain, float64 reference, ulp bound, absolute-error floor of the check)
OPS = {
    0: ("1/sqrtf", (0.01, 100.0), lambda v: 1 / np.sqrt(v), 4, 0.0),
    1: ("rsqrtf", (0.01, 100.0), lambda v: 1 / np.sqrt(v), 4, 0.0),
    2: ("expf", (-20.0, 20.0), np.exp, 4, 0.0),
    3: ("__expf", (-20.0, 20.0), np.exp, 64, 0.0),
    4: ("sinf", (-math.pi, math.pi), np.sin, 4, 0.0),
    5: ("__sinf", (-math.pi, math.pi), np.sin, 4, 1e-6),
    6: ("logf", (0.001, 1000.0), np.log, 4, 0.0),
    7: ("__logf", (0.001, 1000.0), np.log, 8, 1e-6),
    8: ("division", (0.5, 100.0), lambda v: 1.5 / v, 2, 0.0),
    9: ("__fdividef", (0.5, 100.0), lambda v: 1.5 / v, 4, 0.0),
    10: ("double literals", (-100.0, 100.0), lambda v: v * 1.1 + 0.5, 2, 0.0),
    11: ("float literals", (-100.0, 100.0), lambda v: v * 1.1 + 0.5, 4, 1e-5),
}
BY_LABEL = {v[0]: k for k, v in OPS.items()}


def key(label: str) -> str:
    return label.replace("/", "_").replace(" ", "_")


def float_ops(ctx) -> dict:
    """Throughput and error of every op (once per run)."""
    return ctx.memo(("floatops",), lambda: {k: v for op in OPS for k, v in _float_op(ctx, op).items()})


def _float_op(ctx, op: int) -> dict:
    import cupy

    from ...core.launch import cdiv
    from ...core.verify import poison

    label, (lo, hi), ref, ulps, floor = OPS[op]
    n = 4096 if ctx.small else 1 << 20
    v = np.linspace(lo, hi, n).astype(np.float32)
    res = cupy.empty(n, cupy.float32)
    poison(res)
    ctx.function(FLOATOPS, f"applyOp<{op}>")((cdiv(n, BLOCK),), (BLOCK,), (cupy.asarray(v), res, np.int64(n)))
    want = ref(v.astype(np.float64))
    err = np.abs(res.get().astype(np.float64) - want)
    ulp = np.abs(np.spacing(want.astype(np.float32))).astype(np.float64)
    bad = ~(err <= np.maximum(ulps * ulp, floor))
    ctx.require(f"{label} on {n} points of [{lo:g}, {hi:g}] against float64", not bad.any(),
                f"{int(bad.sum())} points beyond {ulps} ulp (worst at {float(v[np.argmax(err)]):g})")
    # throughput: every thread walks `iters` points of the domain
    nblocks = blocks(ctx)
    threads = nblocks * BLOCK
    iters = 16 if ctx.small else 2048
    step = np.float32((hi - lo) / iters)
    res = cupy.empty(threads, cupy.float32)
    poison(res)
    fn = ctx.function(FLOATOPS, f"loopOp<{op}>")

    def run():
        fn((nblocks,), (BLOCK,), (res, np.float32(lo), step, np.int32(iters)))
    run()
    t = np.arange(64)
    v0 = (np.float32(lo) + (t & 1023).astype(np.float32) * np.float32(step * np.float32(1 / 1024))).astype(np.float32)
    walk = np.concatenate([v0[:, None], np.full((64, iters - 1), step, np.float32)], axis=1)
    terms = ref(np.add.accumulate(walk, axis=1, dtype=np.float32).astype(np.float64))
    got = res[:64].get().astype(np.float64)
    ok = np.abs(got - terms.sum(axis=1)) <= 1e-3 * np.abs(terms).sum(axis=1) + 1e-3
    ctx.require(f"{label}: loop sums of 64 threads against float64", bool(ok.all()),
                f"{int((~ok).sum())} of 64 beyond 0.1%")
    rec = ctx.time(f"{label} x {iters} per thread", run, family=FLOATOPS.stem, shape=(threads, iters),
                   dtype="float32", block=(BLOCK, 1), grid=(nblocks, 1))
    k = key(label)
    return {f"{k}_geval_s": threads * iters / (rec.median_ms * 1e-3) / 1e9,
            f"{k}_max_ulp": float((err / ulp).max()), f"{k}_max_abs": float(err.max())}


def _pick(ctx, labels) -> dict:
    all_ops = float_ops(ctx)
    return {k: v for k, v in all_ops.items() if any(k.startswith(key(lb) + "_") for lb in labels)}


def _rate(n: dict, label: str) -> float:
    return n[f"{key(label)}_geval_s"]


def _ulp(n: dict, label: str) -> float:
    return n[f"{key(label)}_max_ulp"]


def measure_rsqrt(ctx) -> dict:
    return _pick(ctx, ("1/sqrtf", "rsqrtf"))


def decide_rsqrt(n: dict) -> Verdict:
    r = ratio(_rate(n, "rsqrtf"), _rate(n, "1/sqrtf"))
    text = (f"rsqrtf: {_rate(n, 'rsqrtf'):.0f} G evaluations/s, largest error {_ulp(n, 'rsqrtf'):.2f} ulp; "
            f"1.0f / sqrtf: {_rate(n, '1/sqrtf'):.0f} G/s, {_ulp(n, '1/sqrtf'):.2f} ulp ({x(r)}).")
    return Verdict(HOLDS if trend(r) > 0 else FAILS, text)


def measure_literals(ctx) -> dict:
    return _pick(ctx, ("double literals", "float literals"))


def decide_literals(n: dict) -> Verdict:
    r = ratio(_rate(n, "float literals"), _rate(n, "double literals"))
    text = (f"v * 1.1 + 0.5 (computed in double): {_rate(n, 'double literals'):.0f} G evaluations/s; "
            f"v * 1.1f + 0.5f: {_rate(n, 'float literals'):.0f} G/s ({x(r)} faster). The results differ too: largest "
            f"error {_ulp(n, 'double literals'):.2f} ulp (double) against {_ulp(n, 'float literals'):.3g} ulp (float, "
            "whose 1.1f is not 1.1).")
    return Verdict(HOLDS if trend(r) > 0 else FAILS, text)


PAIRS = (("expf", "__expf"), ("sinf", "__sinf"), ("logf", "__logf"), ("division", "__fdividef"))


def measure_intrinsics(ctx) -> dict:
    return _pick(ctx, [p for pair in PAIRS for p in pair])


def decide_intrinsics(n: dict) -> Verdict:
    parts, faster, coarser = [], [], []
    for slow, fast in PAIRS:
        r = ratio(_rate(n, fast), _rate(n, slow))
        parts.append(f"{fast} {x(r)} the rate of {slow}, error {_ulp(n, fast):.3g} against {_ulp(n, slow):.3g} ulp")
        if trend(r) > 0:
            faster.append(fast)
        if _ulp(n, fast) > _ulp(n, slow):
            coarser.append(fast)
    text = "; ".join(parts) + "."
    if len(faster) == len(PAIRS) and len(coarser) == len(PAIRS):
        return Verdict(HOLDS, text)
    if not faster:
        return Verdict(FAILS, text)
    return Verdict(DEPENDS, text + f" Faster: {', '.join(faster) or 'none'}; less accurate: "
                                   f"{', '.join(coarser) or 'none'}.", "the function")


def _rate_bars(labels):
    return tuple((lb, f"{key(lb)}_geval_s") for lb in labels)


FLOAT_KERNELS = (Kernels(FLOATOPS, tuple(f"{k}<{op}>" for k in ("applyOp", "loopOp") for op in OPS)),)
_FLOAT_SETUP = ("Throughput: every thread of a full grid evaluates the function at 2048 points of its domain and "
                "sums them (G evaluations/s over the median time); error: the function on 2^20 points of the "
                "domain against a float64 reference, largest error in units in the last place (ulp) of the float "
                "result. Results are checked against the reference first.")

CLAIMS = (
    Claim("shift-for-pow2", "instructions", TOPIC,
          "Integer division and modulo by a power of two are expensive; a shift and a mask are much faster.",
          "Each thread of a full grid does 8192 rounds of q = v / n, r = v % n on unsigned values with n = 64 passed "
          "at run time, the same with v >> 6 and v & 63, and with the constant 64 in the code; median time. All "
          "three agree bit for bit, and with the host.",
          measure_divmod, decide_divmod,
          kernels=(Kernels(INTDIV, tuple(f"divmodPow2<{m}>" for m in range(3))),)),
    Claim("rsqrtf", "instructions", TOPIC,
          "Calling rsqrtf() for a reciprocal square root is faster than computing 1.0f / sqrtf(x).",
          _FLOAT_SETUP + " Domain [0.01, 100].",
          measure_rsqrt, decide_rsqrt, kernels=FLOAT_KERNELS),
    Claim("double-literals", "instructions", TOPIC,
          "A floating-point literal without the f suffix (1.1 rather than 1.1f) turns single-precision arithmetic "
          "into double precision, which is slower.",
          _FLOAT_SETUP + " v * 1.1 + 0.5 against v * 1.1f + 0.5f on [-100, 100].",
          measure_literals, decide_literals, kernels=FLOAT_KERNELS),
    Claim("fast-intrinsics", "instructions", TOPIC,
          "The intrinsics __expf, __sinf, __logf and __fdividef are faster than expf, sinf, logf and division, and "
          "less accurate.",
          _FLOAT_SETUP + " Domains: exp [-20, 20], sin [-pi, pi], log [0.001, 1000], 1.5 / v for v in [0.5, 100].",
          measure_intrinsics, decide_intrinsics, kernels=FLOAT_KERNELS,
          charts=(Bars("accurate functions against intrinsics", "G evaluations/s",
                       _rate_bars([p for pair in PAIRS for p in pair]), log=True),)),
)
