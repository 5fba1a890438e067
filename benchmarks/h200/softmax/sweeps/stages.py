"""colsCluster folding its share of a strip group by group as the copies land (S groups of rows
in flight at once, S == 1: fold after the whole share has landed), on the bench's long strided
axes (run as `PYTHONPATH=src python3 benchmarks/h200/softmax/sweeps/stages.py`). Each geometry is
forced into the public API's plan cache, its output (poisoned first) checked against a float64
reference, then timed beside a device-to-device copy of the same bytes; ptxas registers and the
clusters the GPU runs at once are listed with it."""
import sys

from bwlab.core import build, launch as core_launch
from bwlab.core.launch import arch_of
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import _function, runner
from sweep import copy_gbs, timed  # this folder's sweep: events around batches of calls, the median

SHAPES = [((16, 8192, 1024), 1), ((8192, 8192), 0)]
CASES = [("float32", "forward", False), ("bfloat16", "forward", False), ("float32", "forward", True),
         ("float32", "backward", False), ("bfloat16", "backward", False)]
STAGES = (1, 2, 4, 8)


def problem(shape, dim, d, op, log):
    N = M = 1
    for s in shape[:dim]:
        N *= s
    for s in shape[dim + 1:]:
        M *= s
    return plans.Problem(N, shape[dim], M, d, op, log)


def variants(p):
    out = [("chosen " + plans.choose(p).expression.split("<")[1].split(",", 1)[1][:-2], plans.choose(p))]
    budget = plans.SMEM_MAX if p.op == "backward" else plans.CLUSTER_SMEM
    for threads in (128, 256):
        for S in STAGES:
            c = plans.cols_cluster(p, threads, budget=budget, clusters=(16,), stages=S)
            if c is not None and plans.strip(c) == 128:
                out.append((f"t{threads} C16 W128 S{S}", c))
    for threads, minb, C in SPREAD:
        c = plans.cols_spread(p, threads, minb, C)
        if c is not None:
            out.append((f"spread C{C} t{threads} R{c.expression.split(',')[2]} minb{minb}", c))
    return out


SPREAD = [(256, 2, 16), (256, 3, 16), (512, 1, 16), (512, 2, 16), (1024, 1, 16)]


AWKWARD = [((3, 1000, 1000), 1, "float32"), ((2, 777, 520), 1, "bfloat16"), ((5, 4099, 36), 1, "float32"),
           ((1, 16, 4096), 1, "float32"), ((2, 3000, 264), 1, "float16"), ((7, 20000, 64), 1, "float32")]


def screen():
    """Every geometry on awkward shapes (strips ending part-way, rows not a multiple of anything,
    fewer tasks than clusters), output poisoned, against a float64 reference."""
    import torch
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    worst = 0
    for shape, dim, d in AWKWARD:
        for op, log in (("forward", False), ("forward", True), ("backward", False)):
            g = torch.Generator(device="cuda").manual_seed(2)
            x = (torch.randn(*shape, device="cuda", generator=g) * 4)
            x = (torch.softmax(x, dim) if op == "backward" else x).to(dt[d])
            grad = torch.randn(*shape, device="cuda", generator=g).to(dt[d]) if op == "backward" else None
            if op == "forward":
                ref = (torch.log_softmax if log else torch.softmax)(x.double(), dim)
            else:
                ref = x.double() * (grad.double() - (x.double() * grad.double()).sum(dim, keepdim=True))
            p = problem(shape, dim, d, op, log)
            vs = [(lab, c) for lab, c in variants(p) if not lab.startswith("chosen")]
            vs += [(f"t256 C{C} S4", c) for C in (1, 2, 4, 8)
                   if (c := plans.cols_cluster(p, 256, plans.SMEM_MAX, (C,), stages=4)) is not None]
            for label, c in vs:
                out = torch.full_like(x, float("nan"))
                calls._plans[(p, 0)] = calls.Plan(c, runner(c, p.N, p.L, p.M, 0))
                calls.run(x, dim, log, out, None, grad=grad)
                torch.cuda.synchronize()
                err = (out.double() - ref).abs()
                scale = ref.abs() + 1e-3
                if op == "backward":  # the rounding of the sum of y * g, times y
                    scale = scale + x.double().abs() * (x.double() * grad.double()).abs().sum(dim, keepdim=True)
                tol = (1e-5 if d == "float32" else 2 ** -7) * scale + 1e-6
                bad = int((~(err <= tol)).sum())
                worst = max(worst, bad)
                if bad:
                    print(f"BAD {shape} dim {dim} {d} {op} log={log} {label}: {bad}", flush=True)
            calls._plans.clear()
    print(f"screen: {'clean' if worst == 0 else 'BAD'}", flush=True)


def main(only=None):
    import torch
    global SPREAD
    arch = arch_of(0)
    cases = [(shape, dim, case) for shape, dim in SHAPES for case in CASES if only is None or case[1] == only]
    if only == "lengths":  # float32 backward down shorter long axes: colsSpread against the dispatch
        SPREAD = [(512, 1, 16), (1024, 1, 16), (512, 1, 8), (1024, 1, 8)]
        cases = [((16, L, 1024), 1, ("float32", "backward", False)) for L in (3000, 4096, 6144, 8192)]
    exprs = {}
    for shape, dim, case in cases:
        for _, c in variants(problem(shape, dim, *case)):
            exprs.setdefault(c.source, set()).add(c.expression)
    regs = {}
    for src, e in exprs.items():
        regs.update(build.compile_each(src, sorted(e), arch).resources)
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16}
    best = {}
    for shape, dim, (d, op, log) in cases:
        g = torch.Generator(device="cuda").manual_seed(1)
        x = torch.softmax(torch.randn(*shape, device="cuda", generator=g) * 3, dim).to(dt[d])
        grad = torch.randn(*shape, device="cuda", generator=g).to(dt[d]) if op == "backward" else None
        if op == "forward":
            ref = (torch.log_softmax if log else torch.softmax)(x.double(), dim)
        else:
            ref = x.double() * (grad.double() - (x.double() * grad.double()).sum(dim, keepdim=True))
        out = torch.empty_like(x)
        moved = x.numel() * x.element_size() * (3 if op == "backward" else 2)
        copy = copy_gbs(moved)
        p = problem(shape, dim, d, op, log)
        name = "x".join(map(str, shape)) + f" d{dim} {d[:4]} {'log' if log else op[:3]}"
        for label, c in variants(p):
            r = regs.get(c.expression)
            fn = _function(c.source, c.expression, c.smem, 0, c.cluster)
            n = core_launch.max_active_clusters(fn, c.cluster, c.block, c.smem)
            calls._plans[(p, 0)] = calls.Plan(c, runner(c, p.N, p.L, p.M, 0))
            out.fill_(float("nan"))
            calls.run(x, dim, log, out, None, grad=grad)
            torch.cuda.synchronize()
            err = (out.double() - ref).abs()
            tol = (1e-5 if d == "float32" else 2 ** -7) * (ref.abs() + 1e-3) + 1e-6
            bad = int((~(err <= tol)).sum())
            ms = timed(lambda: calls.run(x, dim, log, out, None, grad=grad), reps=25)
            gb = moved / ms / 1e6
            best.setdefault(name, []).append((100 * gb / copy, label))
            print(f"{name:26s} {label:26s} {r.registers if r else '-':>4} regs {n:3d} clusters {gb:6.0f} GB/s "
                  f"{100 * gb / copy:5.1f}%  bad={bad}", flush=True)
        calls._plans.clear()
        x = grad = out = ref = None
        torch.cuda.empty_cache()
    print("\nbest per case (% of a copy):")
    for name, rs in best.items():
        rs.sort(reverse=True)
        chosen = next(pc for pc, lab in rs if lab.startswith("chosen"))
        print(f"{name:26s} " + " | ".join(f"{lab} {pc:.0f}" for pc, lab in rs[:3]) + f" || chosen {chosen:.0f}")


if __name__ == "__main__":
    if sys.argv[1:] == ["screen"]:
        screen()
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else None)

