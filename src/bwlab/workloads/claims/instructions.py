"""Claims about instruction choices: shifts and masks for power-of-two division and modulo,
rsqrtf, double literals in single-precision code, the fast-math intrinsics against the
accurate library functions (throughput and largest error against a float64 reference), and
integer arithmetic on char and short against int."""
from __future__ import annotations

import math

import numpy as np

from .claim import DEPENDS, FAILS, HOLDS, SAME, Bars, Claim, Kernels, Verdict, cu, ratio, trend, x
from .memory import BLOCK, _u32, _wrap32, blocks

TOPIC = "notes on arithmetic-instruction advice"
INTDIV, FLOATOPS, NARROW = cu("intdiv"), cu("floatops"), cu("narrowint")


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


# --- char and short against int ------------------------------------------------------------------

# (numbers key, C type, NumPy type, the 32-bit key it is compared with)
NARROW_TYPES = (("u8", "unsigned char", np.uint8, "u32"), ("u16", "unsigned short", np.uint16, "u32"),
                ("u32", "unsigned int", np.uint32, "u32"), ("s8", "signed char", np.int8, "s32"),
                ("s16", "short", np.int16, "s32"), ("s32", "int", np.int32, "s32"))
NARROW_OPS = (("madd", "x = x * y + z"), ("xorshift", "x = x * y + z, then x = x ^ (x >> 3)"))
NARROW_ITERS, NARROW_CHECKED = 4096, 64


def _host_chain(w: np.ndarray, np_type, op: int, iters: int) -> np.ndarray:
    """narrowChain<T, OP> of the words w, on the host: what each thread stores. Arithmetic on
    uint64 keeps the low 32 bits of C's unsigned int arithmetic."""
    def as_t(v):  # the low 32 bits converted to T, as C converts unsigned int to T (modulo 2^bits)
        return (v & 0xFFFFFFFF).astype(np.uint32).astype(np_type)

    def as_u(v):  # a T value converted to unsigned int (sign-extended for signed T)
        return v.astype(np.int64).astype(np.uint64) & 0xFFFFFFFF

    w = w.astype(np.uint64)
    x, y, z = as_t(w), as_t((w * 0x9E3779B9) | 1), as_t(w ^ (w >> 13))
    for _ in range(iters):
        x = as_t(as_u(x) * as_u(y) + as_u(z))
        if op:
            x = x ^ (x >> 3)   # on T, as C's promoted arithmetic gives it back to T
    return as_u(x).astype(np.uint32)


def measure_narrow(ctx) -> dict:
    import cupy

    from ...core.verify import compare, poison

    nblocks = blocks(ctx)
    threads = nblocks * BLOCK
    iters = 64 if ctx.small else NARROW_ITERS
    data = _u32(ctx, threads)
    head = data[:NARROW_CHECKED].get()
    out = {}
    for op, (opname, _) in enumerate(NARROW_OPS):
        for key, ctype, np_type, _ in NARROW_TYPES:
            fn = ctx.function(NARROW, f"narrowChain<{ctype},{op}>")
            res = cupy.empty(threads, cupy.uint32)
            poison(res)

            def run(fn=fn, res=res):
                fn((nblocks,), (BLOCK,), (data, res, np.int32(iters)))
            run()
            ctx.require(f"narrowChain<{ctype},{op}>: {NARROW_CHECKED} threads against the host",
                        compare(res[:NARROW_CHECKED].get(), _host_chain(head, np_type, op, iters)))
            rec = ctx.time(f"{ctype}: {NARROW_OPS[op][1]}, {iters} steps", run, family=NARROW.stem, shape=(threads,),
                           dtype=np.dtype(np_type).name, block=(BLOCK, 1), grid=(nblocks, 1))
            out[f"{key}_{opname}_gsteps"] = threads * iters / (rec.median_ms * 1e-3) / 1e9
    return out


def decide_narrow(n: dict) -> Verdict:
    """Time per step of each 8- and 16-bit chain over the 32-bit chain of the same signedness."""
    r = {(opname, ctype): ratio(n[f"{wide}_{opname}_gsteps"], n[f"{key}_{opname}_gsteps"])
         for opname, _ in NARROW_OPS for key, ctype, _, wide in NARROW_TYPES if key != wide}
    parts = [f"{what}: " + ", ".join(f"{c} {x(v)}" for (o, c), v in r.items() if o == opname)
             for opname, what in NARROW_OPS]
    text = ("Time per dependent step against the 32-bit type of the same signedness (int: "
            f"{n['s32_madd_gsteps']:.0f} and {n['s32_xorshift_gsteps']:.0f} G steps/s; unsigned int "
            f"{n['u32_madd_gsteps']:.0f} and {n['u32_xorshift_gsteps']:.0f}): " + "; ".join(parts) + ".")
    slower = [k for k, v in r.items() if trend(v) > 0]
    faster = [k for k, v in r.items() if trend(v) < 0]

    def names(keys):
        return ", ".join(f"{c} ({o})" for o, c in keys)
    if len(slower) == len(r):
        return Verdict(HOLDS, text + " Every 8- and 16-bit chain is slower: the truncations and sign extensions "
                                     "back to the narrow type cost instructions.")
    if not slower:
        return Verdict(FAILS, text + " No 8- or 16-bit chain is measurably slower" +
                       (f"; faster: {names(faster)}." if faster else "."))
    by_op = {o for o, _ in slower}
    if by_op == {"xorshift"} and len(slower) == len(r) // 2:
        on = ("the operation: a shift, which needs the exact narrow value, pays for the conversions; a "
              "multiply-add, whose low bits need only the operands' low bits, does not")
    else:
        on = "the type and the operation: slower in " + names(slower)
    return Verdict(DEPENDS, text + f" Slower: {names(slower)}; the others within {SAME - 1:.0%} or faster.", on)


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
    Claim("char-short-promotion", "instructions", TOPIC,
          "Arithmetic on char or short values is converted to int, which costs extra instructions.",
          f"Each thread of a full grid runs one chain of {NARROW_ITERS} dependent steps on 8-, 16- and 32-bit "
          "integers, signed and unsigned, in otherwise identical kernels (operands from the thread's input word, "
          "result stored, the loop unrolled 4 times for every type): x = x * y + z, whose low bits need only the "
          "operands' low bits, and the same followed by x = x ^ (x >> 3), which needs the exact narrow value. "
          f"G steps/s over the median time; {NARROW_CHECKED} threads of every chain checked against the host first.",
          measure_narrow, decide_narrow,
          kernels=(Kernels(NARROW, tuple(f"narrowChain<{t},{op}>" for op in range(len(NARROW_OPS))
                                         for _, t, _, _ in NARROW_TYPES)),),
          charts=tuple(Bars(f"steps of {what}", "G steps/s",
                            tuple((t, f"{k}_{opname}_gsteps") for k, t, _, _ in NARROW_TYPES))
                       for opname, what in NARROW_OPS)),
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
