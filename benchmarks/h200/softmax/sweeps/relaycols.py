"""colsRelay against the dispatch's choice on the long strided axes of the bench (run as
`PYTHONPATH=src python3 benchmarks/h200/softmax/sweeps/relaycols.py`): [16, 8192, 1024] dim 1
and [8192, 8192] dim 0, float32 and bfloat16, forward, log-softmax and backward. Each variant
(strip width P packs, chunk of RC rows, L2 lag) is forced into the public API's plan cache, its
output (poisoned with NaN first) checked against a float64 reference on the first [L, M] slice
(a quick screen of 1e-5 relative for float32 and 2^-7 for 16-bit; the GPU tests hold the real
tolerance), then timed beside a device copy of the same bytes. Spills are listed first."""
import torch

from bwlab.core import build
from bwlab.core.launch import arch_of
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner
from sweep import timed  # this folder's sweep: events around batches of calls, the median

MiB = 1 << 20
SHAPES = [((16, 8192, 1024), 1), ((8192, 8192), 0)]
CASES = [(d, op, log) for d in ("float32", "bfloat16") for op, log in
         (("forward", False), ("forward", True), ("backward", False))]
GEOMS = [(32, 32), (32, 64), (16, 64), (16, 128), (8, 128)]  # (P, RC): 4 or 8 packs a thread
LAGS = (4 * MiB, 8 * MiB, 16 * MiB)


def problem(shape, dim, d, op, log):
    N = 1
    for s in shape[:dim]:
        N *= s
    M = 1
    for s in shape[dim + 1:]:
        M *= s
    return plans.Problem(N, shape[dim], M, d, op, log)


def variants(p):
    out = [("chosen " + plans.choose(p).expression, plans.choose(p))]
    for P, RC in GEOMS:
        if P * p.vec < 32:
            continue
        for lag in LAGS:
            c = plans.cols_relay(p, P, RC, lag_bytes=lag)
            out.append((f"relay P{P} RC{RC} lag{lag // MiB}M(g{c.extra[0]})", c))
    return out


def awkward():
    """Every geometry forced on shapes whose strips, chunks and slices end part-way."""
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16}
    bad_total = 0
    for shape, dim in [((3, 1000, 200), 1), ((2, 997, 72), 1), ((4099, 24), 0), ((1, 8193, 8), 1), ((5, 61, 40), 1)]:
        for d, op, log in CASES + [("bfloat16", "backward", True), ("float32", "backward", True)]:
            g = torch.Generator(device="cuda").manual_seed(2)
            x = (torch.randn(*shape, device="cuda", generator=g) * 3).to(dt[d])
            grad = torch.randn(*shape, device="cuda", generator=g).to(dt[d]) if op == "backward" else None
            x64 = x.double()
            if op == "forward":
                ref = (torch.log_softmax if log else torch.softmax)(x64, dim)
            elif log:
                ref = grad.double() - torch.exp(x64) * grad.double().sum(dim, keepdim=True)
            else:
                ref = x64 * (grad.double() - (x64 * grad.double()).sum(dim, keepdim=True))
            p = problem(shape, dim, d, op, log)
            for P, RC in GEOMS:
                if P * p.vec < 32:
                    continue
                for lag in (1, 1 << 30):
                    c = plans.cols_relay(p, P, RC, lag_bytes=lag)
                    calls._plans[(p, 0)] = calls.Plan(c, runner(c, p.N, p.L, p.M, 0))
                    out = torch.full_like(x, float("nan"))
                    calls.run(x, dim, log, out, None, grad=grad)
                    err = (out.double() - ref).abs()
                    tol = (1e-5 if d == "float32" else 2 ** -7) * (ref.abs() + 1) + 1e-6
                    bad = int((~(err <= tol)).sum())
                    bad_total += bad
                    if bad:
                        print("BAD", shape, dim, d, op, log, c.expression, c.extra, bad, flush=True)
            calls._plans.clear()
    print(f"awkward shapes: {bad_total} elements out of tolerance", flush=True)


def main():
    arch = arch_of(0)
    exprs = {}
    for shape, dim in SHAPES:
        for case in CASES:
            for _, c in variants(problem(shape, dim, *case)):
                exprs.setdefault(c.source, set()).add(c.expression)
    for P, RC in GEOMS:
        for d, op, log in CASES + [("bfloat16", "backward", True), ("float32", "backward", True)]:
            if P * 16 // (4 if d == "float32" else 2) >= 32:
                c = plans.cols_relay(plans.Problem(1, 100, 64, d, op, log), P, RC)
                exprs[c.source].add(c.expression)
    for src, e in exprs.items():
        r = build.compile_each(src, sorted(e), arch)
        for k, v in r.resources.items():
            if v.spill_stores or v.spill_loads:
                print("spill", k, v.registers, v.spill_stores, flush=True)
    awkward()
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16}
    for shape, dim in SHAPES:
        for d, op, log in CASES:
            g = torch.Generator(device="cuda").manual_seed(1)
            x = (torch.randn(*shape, device="cuda", generator=g) * 3).to(dt[d])
            grad = torch.randn(*shape, device="cuda", generator=g).to(dt[d]) if op == "backward" else None
            if op == "backward":
                x = torch.softmax(x.float(), dim).to(dt[d])
            first = (0,) * dim
            sl = x[first] if first else x
            d0 = dim - len(first)
            if op == "forward":
                ref = (torch.log_softmax if log else torch.softmax)(sl.double(), d0)
            else:
                y64, g64 = sl.double(), (grad[first] if first else grad).double()
                ref = y64 * (g64 - (y64 * g64).sum(d0, keepdim=True))
            out = torch.empty_like(x)
            moved = x.numel() * x.element_size() * (3 if op == "backward" else 2)
            src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
            dst = torch.empty_like(src)
            copy = moved / timed(lambda: dst.copy_(src), reps=25) / 1e6
            src = dst = None
            p = problem(shape, dim, d, op, log)
            for label, c in variants(p):
                calls._plans[(p, 0)] = calls.Plan(c, runner(c, p.N, p.L, p.M, 0))
                out.fill_(float("nan"))
                calls.run(x, dim, log, out, None, grad=grad)
                torch.cuda.synchronize()
                got = (out[first] if first else out).double()
                err = (got - ref).abs()
                tol = (1e-5 if d == "float32" else 2 ** -7) * (ref.abs() + 1) + 1e-6
                bad = int((~(err <= tol)).sum())
                ms = timed(lambda: calls.run(x, dim, log, out, None, grad=grad), reps=25)
                gb = moved / ms / 1e6
                name = "x".join(map(str, shape)) + f" d{dim} {d[:4]} {op[:3]} log={int(log)}"
                print(f"{name:30s} {label:44s} {gb:6.0f} GB/s {100 * gb / copy:5.1f}%  bad={bad}", flush=True)
            calls._plans.clear()
            x = grad = out = None


if __name__ == "__main__":
    main()
