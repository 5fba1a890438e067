"""Claims about work per thread in a tiled matrix product, measured with the matmul workload's
own kernels: thread coarsening (the taught kernel computing 1 to 16 results per thread on 16 x
16 threads) and register tiling (8 x 8 results per thread held in registers) against the
shared-memory tiled kernel. C = A . B in float32, 2048 cubed (256 for a quick check); every
product is checked against a float64 one (tolerance growing with sqrt(K)) before it is timed."""
from __future__ import annotations

from ..matmul import catalog
from ..matmul.study import occupancy
from .claim import DEPENDS, FAILS, HOLDS, SAME, Bars, Claim, Kernels, Verdict, trend, x

COARSENING_TOPIC = "notes on thread coarsening"
MEMORY_INSTRUCTIONS = "notes on memory-instruction advice"
COARSE = tuple(f"coarse-t16-c{cf}" for cf in catalog.COARSE_FACTORS)
REGISTER = ("tiled", "coarse", "regBlock")
N_FULL, N_SMALL = 2048, 256


def _spec(name: str) -> catalog.MatmulKernel:
    return next(s for s in catalog.KERNELS + catalog.variants() if s.name == name)


def _kernels(names) -> tuple[Kernels, ...]:
    by: dict = {}
    for name in names:
        s = _spec(name)
        by.setdefault(s.source, []).append(s.expression("float32", s.block))
    return tuple(Kernels(src, tuple(exprs)) for src, exprs in by.items())


def _products(ctx, names) -> dict:
    """TFLOP/s, registers and theoretical occupancy of each kernel on one random product."""
    import cupy

    from ...core.verify import poison
    from ..matmul.launch import prepare_operands
    from ..matmul.reference import compare, product, random_input, split

    n = N_SMALL if ctx.small else N_FULL
    x = random_input(n, n, n, seed=int(ctx.rng().integers(1 << 62)))
    a, b = split(x, n, n, n)
    want = product(a, b)
    c = cupy.empty((n, n), cupy.float32)
    out = {}
    for name in names:
        spec = _spec(name)
        poison(c)
        p = prepare_operands(spec, a, b, c)
        p.launch()
        ctx.require(f"{name}, {n}^3", compare(c, want))
        rec = ctx.time(f"{name}, {n}^3", p.launch, family=spec.source.stem, shape=(n, n, n), dtype="float32",
                       block=p.block, grid=p.grid)
        res = ctx.resources(spec.source, spec.expression("float32", spec.block))
        occ = occupancy(spec.block[0] * spec.block[1], res.registers, res.smem_bytes + spec.shared, ctx.run.device)
        out.update({f"{name}_tflops": 2 * n**3 / (rec.median_ms * 1e-3) / 1e12, f"{name}_registers": res.registers,
                    f"{name}_occupancy_pct": occ.pct})
    return out


def measure_coarsening(ctx) -> dict:
    return _products(ctx, COARSE)


def decide_coarsening(n: dict) -> Verdict:
    t = {cf: n[f"{k}_tflops"] for cf, k in zip(catalog.COARSE_FACTORS, COARSE)}
    best = max(t, key=t.get)
    top = catalog.COARSE_FACTORS[-1]
    each = "; ".join(f"{cf}: {t[cf]:.2f} TFLOP/s ({n[f'{k}_registers']} registers, occupancy "
                     f"{n[f'{k}_occupancy_pct']:.0f}%)" for cf, k in zip(catalog.COARSE_FACTORS, COARSE))
    text = f"Results per thread of the taught kernel on 16 x 16 threads: {each}."
    if trend(t[best] / t[1]) <= 0:
        return Verdict(FAILS, text + " No number of results per thread beats one.")
    gain = f" {best} results per thread are {x(t[best] / t[1])} as fast as one"
    occupancy = {cf: n[f"{k}_occupancy_pct"] for cf, k in zip(catalog.COARSE_FACTORS, COARSE)}
    if best != top and t[top] <= t[best] / SAME and occupancy[top] >= occupancy[best]:
        return Verdict(DEPENDS, text + gain + f"; {top} fall to {x(t[top] / t[best])} of that at the same "
                       "occupancy: something other than occupancy (spills, shared-memory traffic) stops it.",
                       "what the extra results per thread cost: not occupancy here")
    if best != top and t[top] <= t[best] / SAME:
        k = COARSE[-1]
        return Verdict(HOLDS, text + gain + f"; {top} fall to {x(t[top] / t[best])} of that, with "
                       f"{n[f'{k}_registers']} registers a thread and {n[f'{k}_occupancy_pct']:.0f}% occupancy.")
    return Verdict(DEPENDS, text + gain + f", and {top} (the most tried) lose nothing measurable.",
                   "how far coarsening is taken: no factor tried was too many")


def measure_register(ctx) -> dict:
    return _products(ctx, REGISTER)


def decide_register(n: dict) -> Verdict:
    tiled, coarse, reg = (n[f"{k}_tflops"] for k in REGISTER)
    text = (f"8 x 8 results per thread held in registers (regBlock): {reg:.2f} TFLOP/s, {x(reg / tiled)} the "
            f"shared-memory tiled kernel ({tiled:.2f}) and {x(reg / coarse)} the coarsened one with 4 results per "
            f"thread ({coarse:.2f}); {n['regBlock_registers']} registers a thread against "
            f"{n['tiled_registers']}.")
    if reg >= SAME * max(tiled, coarse):
        return Verdict(HOLDS, text + " Each value read from shared memory feeds 4 multiply-adds (64 per 16 "
                       "values) instead of half of one.")
    return Verdict(FAILS, text + " Register tiling buys nothing measurable here.")


CLAIMS = (
    Claim("register-tiling", "matmul", MEMORY_INSTRUCTIONS,
          "A layer of register tiling above shared memory raises data reuse further.",
          f"C = A . B in float32, {N_FULL} cubed: the 16 x 16 shared-memory tiled kernel (one result per thread), "
          "the coarsened one (4 results per thread sharing an A tile) and 2-D register blocking (8 x 8 results "
          "per thread from a 128 x 128 tile); TFLOP/s = 2 M N K over the median time, registers from the compiler.",
          measure_register, decide_register, kernels=_kernels(REGISTER),
          charts=(Bars("register tiling", "TFLOP/s", tuple((k, f"{k}_tflops") for k in REGISTER)),)),
    Claim("thread-coarsening", "matmul", COARSENING_TOPIC,
          "Computing several output elements per thread of a tiled matrix product removes redundant tile loads and "
          "speeds it up, until it costs occupancy.",
          f"The taught coarsened kernel (16 x 16 threads, one A tile shared by a thread's results) with 1, 2, 4, 8 "
          f"and 16 results per thread, C = A . B in float32, {N_FULL} cubed; TFLOP/s = 2 M N K over the median "
          "time, registers from the compiler and the occupancy they allow on this GPU.",
          measure_coarsening, decide_coarsening, kernels=_kernels(COARSE),
          charts=(Bars("results per thread", "TFLOP/s",
                       tuple((f"{cf} per thread", f"{k}_tflops") for cf, k in zip(catalog.COARSE_FACTORS, COARSE))),)),
)
