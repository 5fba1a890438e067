"""The __restrict__ claim: one kernel built with plain pointer parameters and with __restrict__
ones. It evaluates a polynomial in place in its output by Horner's rule, so that with plain
pointers every step must load the inputs again after its store (the output might overlap
them), and once more in a single step, where there is no load after a store. Three 128 MiB
arrays (a, b in; out), far above L2. Each result is checked against NumPy, and the two builds
against each other bit for bit, before it is timed; the compiler's register counts are kept."""
from __future__ import annotations

import numpy as np

from .bottleneck import _floats
from .claim import Bars, Claim, Kernels, Verdict, cu, gbs, speedup_verdict
from .memory import BLOCK

TOPIC = "notes on memory-instruction advice"
ALIASING = cu("aliasing")
S = 0.5
STEPS = (8, 1)   # Horner steps: loads after stores, and none
BUILDS = (("plain", "false"), ("restrict", "true"))


def _expr(restrict: str, steps: int) -> str:
    return f"hornerInPlace<{restrict},{steps}>"


def _host(a: np.ndarray, b: np.ndarray, steps: int) -> np.ndarray:
    y = a.astype(np.float64) * np.float64(np.float32(S)) + b
    for _ in range(steps - 1):
        y = y * a + b
    return y


def measure(ctx) -> dict:
    import cupy

    from ...core.launch import cdiv
    from ...core.verify import compare, poison

    n = (1 << 20) if ctx.small else (32 << 20)   # 4-byte floats: 128 MiB an array
    a = _floats(ctx, n) * np.float32(0.5)   # in [0.5, 1)
    b = _floats(ctx, n) - np.float32(1)     # in [0, 1)
    out = cupy.empty(n, cupy.float32)
    grid = cdiv(n, BLOCK)
    sample = cupy.asarray(np.sort(ctx.rng().choice(n, size=min(n, 1 << 16), replace=False)))
    ha, hb = a[sample].get(), b[sample].get()
    numbers = {}
    for steps in STEPS:
        first = None
        for name, restrict in BUILDS:
            expr = _expr(restrict, steps)
            fn = ctx.function(ALIASING, expr)
            poison(out)

            def run(fn=fn):
                fn((grid,), (BLOCK,), (a, b, out, np.int64(n), np.float32(S)))
            run()
            if first is None:
                want = _host(ha, hb, steps)
                got = out[sample].get().astype(np.float64)
                bad = ~(np.abs(got - want) <= 1e-5 * np.abs(want))
                ctx.require(f"{expr}: {int(sample.size)} elements against NumPy", not bad.any(),
                            f"{int(bad.sum())} off by more than 1e-5 (relative)")
                first = out.copy()
            else:
                ctx.require(f"{expr} agrees with the plain build bit for bit", compare(out, first))
            rec = ctx.time(f"{expr} ({steps} step{'s' if steps > 1 else ''}, {name} pointers)", run,
                           family=ALIASING.stem, bytes=12 * n, shape=(n,), dtype="float32", block=(BLOCK, 1),
                           grid=(grid, 1))
            numbers[f"{name}_{steps}_gbs"] = rec.gbs
            numbers[f"{name}_{steps}_registers"] = ctx.resources(ALIASING, expr).registers
        del first
    return numbers


def decide(n: dict) -> Verdict:
    many, one = STEPS
    gains = {f"{many} steps, loads after stores": n[f"restrict_{many}_gbs"] / n[f"plain_{many}_gbs"],
             "1 step, no load after a store": n["restrict_1_gbs"] / n["plain_1_gbs"]}
    v = speedup_verdict(gains, "__restrict__", "whether the kernel loads through one pointer after storing "
                                               "through another")
    detail = (f" {many} steps: {gbs(n[f'plain_{many}_gbs'])} with plain pointers ({n[f'plain_{many}_registers']} "
              f"registers), {gbs(n[f'restrict_{many}_gbs'])} with __restrict__ ({n[f'restrict_{many}_registers']}); "
              f"1 step: {gbs(n['plain_1_gbs'])} and {gbs(n['restrict_1_gbs'])} (bytes read + written once each over "
              "the median time). With plain pointers the compiler must reload a[i] and b[i] after every store to "
              "out[i] and keep every store; with __restrict__ it loads once and stores once.")
    return Verdict(v.status, v.text + detail, v.on)


CLAIMS = (
    Claim("restrict-pointers", "memory instructions", TOPIC,
          "Marking pointer parameters __restrict__ reduces the instructions a kernel executes and speeds it up.",
          f"out[i] = a[i] * s + b[i], then out[i] = out[i] * a[i] + b[i] for {STEPS[0]} steps in all (Horner's rule "
          "in place), over 32 Mi floats (three arrays of 128 MiB, far above L2), built with plain and with "
          "__restrict__ pointer parameters; and the same with 1 step, where no load follows a store. GB/s = 12 "
          "bytes per element over the median time; registers from the compiler. Results checked against NumPy "
          "and between the builds first.",
          measure, decide,
          kernels=(Kernels(ALIASING, tuple(_expr(r, s) for s in STEPS for _, r in BUILDS)),),
          charts=(Bars("plain against __restrict__ pointers", "GB/s",
                       tuple((f"{s} step{'s' if s > 1 else ''}, {name}", f"{name}_{s}_gbs") for s in STEPS
                             for name, _ in BUILDS)),)),
)
