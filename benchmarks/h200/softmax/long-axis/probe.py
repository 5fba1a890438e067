"""colsChunks (a long strided axis read twice, in three launches that each fill the GPU) beside
the dispatch's kernel, on long strided axes (run from the repository root as
`PYTHONPATH=src python3 benchmarks/h200/softmax/long-axis/probe.py [screen]`). Each geometry is forced
into the public API's plan cache, its output (poisoned first) checked against a float64 reference,
then timed beside a device-to-device copy of the same bytes (median of batches, CUDA events)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sweeps"))
from bwlab.core import build  # noqa: E402
from bwlab.core.launch import arch_of  # noqa: E402
from bwlab.workloads.softmax import calls, plans  # noqa: E402
from bwlab.workloads.softmax.launch import runner  # noqa: E402
from sweep import copy_gbs, timed  # noqa: E402

SHAPES = [((4, 32768, 1024), 1), ((32768, 4096), 0), ((8, 16384, 1024), 1), ((16, 8192, 1024), 1),
          ((8192, 8192), 0), ((16, 8192, 1023), 1), ((4, 32768, 1023), 1)]
CASES = [("float32", "forward", False), ("bfloat16", "forward", False), ("float32", "forward", True),
         ("float32", "backward", False), ("bfloat16", "backward", False)]
# (rows a chunk, row groups a block, lanes a block, packs in flight in the write); the first is the dispatch's
# for float32 (bfloat16: 256 rows)
GEOMS = [(128, 8, 32, 4), (256, 8, 32, 4), (128, 8, 32, 8), (64, 8, 32, 4)]
AWKWARD = [((3, 1000, 1000), 1, "float32"), ((2, 777, 520), 1, "bfloat16"), ((5, 4099, 36), 1, "float32"),
           ((1, 16, 4096), 1, "float32"), ((2, 3000, 264), 1, "float16"), ((7, 20000, 64), 1, "float32"),
           ((2, 1, 8), 1, "float32"), ((1, 5, 1000), 0, "bfloat16")]
DT = None


def variants(p):
    out = [("chosen " + plans.choose(p).kernel, plans.choose(p))]
    for rows, by, lx, u in GEOMS:
        out.append((f"chunks R{rows} {lx}x{by} U{u}", plans.cols_chunks(p, rows, by, lx, u)))
    return out


def reference(x, grad, dim, op, log):
    if op == "forward":
        return (DT.log_softmax if log else DT.softmax)(x.double(), dim)
    return x.double() * (grad.double() - (x.double() * grad.double()).sum(dim, keepdim=True))


def inputs(shape, dim, d, op, scale=3):
    import torch
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(*shape, device="cuda", generator=g) * scale
    x = (torch.softmax(x, dim) if op == "backward" else x).to(dt[d])
    grad = torch.randn(*shape, device="cuda", generator=g).to(dt[d]) if op == "backward" else None
    return x, grad


def problem(shape, dim, d, op, log):
    _, N, L, M = calls.split(shape, dim)
    return plans.Problem(N, L, M, d, op, log)


def force(p, c):
    calls._plans[(p, 0)] = calls.Plan(c, runner(c, p.N, p.L, p.M, 0))


def screen():
    """Every geometry on awkward shapes (bands ending part-way, chunks ending part-way, one row,
    fewer columns than a band), output poisoned, against a float64 reference."""
    worst = 0
    for shape, dim, d in AWKWARD:
        for op, log in (("forward", False), ("forward", True), ("backward", False), ("backward", True)):
            x, grad = inputs(shape, dim, d, op, 4)
            if op == "backward" and log:
                x = DT.log_softmax(x.float(), dim).to(x.dtype)
                ref = grad.double() - x.double().exp() * grad.double().sum(dim, keepdim=True)
            else:
                ref = reference(x, grad, dim, op, log)
            p = problem(shape, dim, d, op, log)
            for label, c in variants(p)[1:]:
                out = DT.full_like(x, float("nan"))
                force(p, c)
                keep = x.clone()
                calls.run(x, dim, log, out, None, grad=grad)
                DT.cuda.synchronize()
                err = (out.double() - ref).abs()
                tol = (1e-5 if d == "float32" else 2 ** -7) * (ref.abs() + 1e-3) + 1e-6
                if op == "backward":  # the rounding of the row's sum, times y (exp(y) for log-softmax)
                    yd, gd = x.double(), grad.double()
                    tol = tol + (1e-5 if d == "float32" else 2 ** -7) * (
                        yd.exp() * gd.abs().sum(dim, keepdim=True) if log
                        else yd.abs() * (yd * gd).abs().sum(dim, keepdim=True))
                bad = int((~(err <= tol)).sum()) + int(not DT.equal(keep, x))
                worst = max(worst, bad)
                if bad:
                    print(f"BAD {shape} dim {dim} {d} {op} log={log} {label}: {bad}", flush=True)
            calls._plans.clear()
    print(f"screen: {'clean' if worst == 0 else 'BAD'}", flush=True)


def main():
    cases = [(shape, dim, case) for shape, dim in SHAPES for case in CASES]
    exprs = {}
    for shape, dim, case in cases:
        for _, c in variants(problem(shape, dim, *case)):
            exprs.setdefault(c.source, set()).update(e for e in (c.expression, c.merge, c.finish) if e)
    regs = {}
    for src, e in exprs.items():
        regs.update(build.compile_each(src, sorted(e), arch_of(0)).resources)
    best = {}
    for shape, dim, (d, op, log) in cases:
        x, grad = inputs(shape, dim, d, op)
        ref = reference(x, grad, dim, op, log)
        out = DT.empty_like(x)
        moved = x.numel() * x.element_size() * (3 if op == "backward" else 2)
        copy = copy_gbs(moved)
        p = problem(shape, dim, d, op, log)
        name = "x".join(map(str, shape)) + f" d{dim} {d[:4]} {'log' if log else op[:3]}"
        for label, c in variants(p):
            r = regs.get(c.expression)
            force(p, c)
            out.fill_(float("nan"))
            calls.run(x, dim, log, out, None, grad=grad)
            DT.cuda.synchronize()
            err = (out.double() - ref).abs()
            tol = (1e-5 if d == "float32" else 2 ** -7) * (ref.abs() + 1e-3) + 1e-6
            bad = int((~(err <= tol)).sum())
            ms = timed(lambda: calls.run(x, dim, log, out, None, grad=grad), reps=25)
            gb = moved / ms / 1e6
            best.setdefault(name, []).append((100 * gb / copy, label))
            print(f"{name:26s} {label:36s} {r.registers if r else '-':>4} regs {gb:6.0f} GB/s "
                  f"{100 * gb / copy:5.1f}%  bad={bad}", flush=True)
        calls._plans.clear()
        x = grad = out = ref = None
        DT.cuda.empty_cache()
    print("\nbest per case (% of a copy):")
    for name, rs in best.items():
        rs.sort(reverse=True)
        chosen = next(pc for pc, lab in rs if lab.startswith("chosen"))
        print(f"{name:26s} " + " | ".join(f"{lab} {pc:.0f}" for pc, lab in rs[:2]) + f" || chosen {chosen:.0f}")


if __name__ == "__main__":
    import torch
    DT = torch
    screen() if sys.argv[1:] == ["screen"] else main()
