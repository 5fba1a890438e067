"""colsCluster as the dispatch launches it (a cluster for every strip of every slice) beside
colsClusterLoop, the same strips on a resident grid of clusters that each take strip after strip and
refill their shared memory with the next strip's rows as they write one out (G = k times the clusters
the GPU holds at once, k = 1, 2). Run from this folder as
`PYTHONPATH=../../../../src python3 probe.py [rounds]`. Each forced plan's output, poisoned first,
is checked against a float64 reference in round 1, then timed beside a device-to-device copy of
the same bytes (../meet-tree/probe.py's measure)."""
import dataclasses
import sys

import cupy
import torch

import bwlab
from bwlab.core import build, launch as core_launch
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import _function, runner

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((8, 16384, 1024), 1), ((32, 2048, 1024), 1),
         ((64, 1024, 2048), 1)]


def problem(shape, dim, d, log):
    N = 1
    for s in shape[:dim]:
        N *= s
    M = 1
    for s in shape[dim + 1:]:
        M *= s
    return plans.Problem(N, shape[dim], M, d, "forward", log)


def loop_of(c, k):
    """The dispatch's colsCluster choice as colsClusterLoop on k times the clusters that fit."""
    e = c.expression.replace("colsCluster<", "colsClusterLoop<")
    fn = _function(c.source, e, c.smem, 0, c.cluster)
    with cupy.cuda.Device(0):
        fit = core_launch.max_active_clusters(fn, c.cluster, c.block, c.smem)
    return dataclasses.replace(c, kernel="colsClusterLoop", expression=e, grid=(k * fit * c.cluster, 1, 1)), fit


def precompile():
    """Every kernel the probe runs, compiled in parallel first (one NVRTC job each)."""
    exprs = set()
    for shape, dim in CASES:
        for d in DT:
            for log in (False, True):
                c = plans.choose(problem(shape, dim, d, log))
                if c.kernel == "colsCluster":
                    exprs |= {c.expression, c.expression.replace("colsCluster<", "colsClusterLoop<")}
    build.compile_each(plans.SRC["colscluster"], sorted(exprs), build.DEFAULT_ARCH, jobs=8)


def main(rounds):
    precompile()
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim in CASES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            moved = 2 * x.numel() * x.element_size()
            for log in (False, True):
                p = problem(shape, dim, d, log)
                op = "log" if log else "fwd"
                call = lambda: bwlab.softmax(x, dim, log=log, out=out)  # noqa: E731
                calls._plans.clear()
                call()
                (key, plan), = calls._plans.items()
                c = plan.choice
                if c.kernel != "colsCluster":
                    print(f"{str(shape)} d{dim} {d} {op}: dispatch runs {c.kernel}, skipped", flush=True)
                    continue
                variants = [("colsCluster", c)] + [(f"loop x{k}", loop_of(c, k)[0]) for k in (1, 2)]
                for rnd in range(1, rounds + 1):
                    for label, v in variants:
                        calls._plans.clear()
                        calls._plans[key] = calls.Plan(v, runner(v, p.N, p.L, p.M, 0))
                        bad, ms, copy = measure(call, out, x, None, dim, op, moved, check=rnd == 1)
                        assert list(calls._plans) == [key], "the plan ran was not the one cached"
                        tag = f"{label} C{v.cluster} {v.grid[0]}b #{rnd}"
                        print(f"{str(list(shape)) + ' d' + str(dim):20} {d:9} {op:4} {tag:30} "
                              + columns(bad, ms, copy, moved), flush=True)
                calls._plans.clear()
            x = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
