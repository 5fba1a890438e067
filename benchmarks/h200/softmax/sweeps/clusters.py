"""colsCluster's geometry on the long strided axes of the bench (run as `PYTHONPATH=src python3
benchmarks/h200/softmax/sweeps/clusters.py`): for each block size, cluster size and strip width,
its registers, the clusters the GPU runs at once (blocks an SM), then the time of each forced
into the public API's plan cache, checked first (output poisoned, a float64 reference); colsRelay
(both passes in one launch through L2, see relaycols.py) beside it."""
import torch

from bwlab.core import build, launch as core_launch
from bwlab.core.launch import arch_of
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import _function, runner
from relaycols import SHAPES, problem
from sweep import timed  # this folder's sweep: events around batches of calls, the median

CASES = [("float32", "forward", False), ("bfloat16", "forward", False), ("float32", "backward", False),
         ("bfloat16", "backward", False)]


def variants(p):
    out = [("chosen", plans.choose(p))]
    for threads, C, W in ((256, 16, 128), (128, 16, 128), (512, 16, 128), (256, 8, 128), (256, 8, 64)):
        c = plans.cols_cluster(p, threads, budget=plans.SMEM_MAX, clusters=(C,), widest=W)
        if c is not None and plans.strip(c) == W and c.cluster == C:
            out.append((f"t{threads} C{C} W{W} smem{c.smem // 1024}K", c))
    for P, RC in ((8, 128), (8, 64), (16, 128)):
        out.append((f"relay P{P} RC{RC}", plans.cols_relay(p, P, RC)))
    return out


def main():
    arch = arch_of(0)
    exprs = {}
    for shape, dim in SHAPES:
        for case in CASES:
            for _, c in variants(problem(shape, dim, *case)):
                exprs.setdefault(c.source, set()).add(c.expression)
    regs = {}
    for src, e in exprs.items():
        regs.update(build.compile_each(src, sorted(e), arch).resources)
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16}
    for shape, dim in SHAPES:
        for d, op, log in CASES:
            g = torch.Generator(device="cuda").manual_seed(1)
            x = torch.softmax(torch.randn(*shape, device="cuda", generator=g) * 3, dim).to(dt[d])
            grad = torch.randn(*shape, device="cuda", generator=g).to(dt[d]) if op == "backward" else None
            if op == "forward":
                ref = torch.softmax(x.double(), dim)
            else:
                ref = x.double() * (grad.double() - (x.double() * grad.double()).sum(dim, keepdim=True))
            out = torch.empty_like(x)
            moved = x.numel() * x.element_size() * (3 if op == "backward" else 2)
            src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
            dst = torch.empty_like(src)
            copy = moved / timed(lambda: dst.copy_(src), reps=25) / 1e6
            src = dst = None
            p = problem(shape, dim, d, op, log)
            for label, c in variants(p):
                r = regs.get(c.expression)
                fit = ""
                if c.cluster > 1:
                    fn = _function(c.source, c.expression, c.smem, 0, c.cluster)
                    n = core_launch.max_active_clusters(fn, c.cluster, c.block, c.smem)
                    fit = f"{n} clusters ({n * c.cluster / 132:.2f}/SM)"
                calls._plans[(p, 0)] = calls.Plan(c, runner(c, p.N, p.L, p.M, 0))
                out.fill_(float("nan"))
                calls.run(x, dim, log, out, None, grad=grad)
                torch.cuda.synchronize()
                err = (out.double() - ref).abs()
                tol = (1e-5 if d == "float32" else 2 ** -7) * (ref.abs() + 1e-3) + 1e-7
                bad = int((~(err <= tol)).sum())
                ms = timed(lambda: calls.run(x, dim, log, out, None, grad=grad), reps=25)
                gb = moved / ms / 1e6
                name = "x".join(map(str, shape)) + f" d{dim} {d[:4]} {op[:3]}"
                print(f"{name:26s} {label:28s} {r.registers if r else '-':>4} regs {fit:24s} {gb:6.0f} GB/s "
                      f"{100 * gb / copy:5.1f}%  bad={bad}", flush=True)
            calls._plans.clear()
            x = grad = out = ref = None


if __name__ == "__main__":
    main()
