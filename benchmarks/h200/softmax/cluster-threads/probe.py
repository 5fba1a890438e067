"""colsCluster on clusters of 16 with fewer or more threads a block (and S groups of copies folded
as they land) beside the dispatch's geometry, on the long strided axes: `PYTHONPATH=../../../../src
python3 probe.py [rounds]` from this folder. Each forced plan's output, poisoned first, is checked
against a float64 reference in round 1, then timed beside a device-to-device copy of the same bytes
(../meet-tree/probe.py's measure). Prints each variant's registers and spills."""
import sys

import torch

import bwlab
from bwlab.core import build
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((8, 16384, 1024), 1)]
# (threads, S[, widest strip in bytes]) a dtype; COMMAND has the geometries of each record
GEOMETRY = {"float32": [(128, 4, 64), (256, 4, 64)], "bfloat16": [(256, 1, 64), (128, 1, 64), (512, 1, 64)]}


def problem(shape, dim, d, log):
    N = M = 1
    for s in shape[:dim]:
        N *= s
    for s in shape[dim + 1:]:
        M *= s
    return plans.Problem(N, shape[dim], M, d, "forward", log)


def variants(p):
    c = plans.choose(p)
    out = [("dispatch", c)]
    for t, s, *w in GEOMETRY[p.dtype]:
        widest = w[0] if w else plans.strip(c)
        v = plans.cols_cluster(p, t, budget=plans.SMEM_MAX, clusters=(16,), widest=widest, stages=s)
        if v is not None and v.expression != c.expression:
            out.append((f"t{t} S{s}" + (f" W{widest}" if w else ""), v))
    return out


def main(rounds):
    todo = {v.expression for shape, dim in CASES for d in DT for log in (False, True)
            for _, v in variants(problem(shape, dim, d, log))}
    res = build.compile_each(plans.SRC["colscluster"], sorted(todo), build.DEFAULT_ARCH).resources
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim in CASES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            moved = 2 * x.numel() * x.element_size()
            for log in (False, True):
                p = problem(shape, dim, d, log)
                call = lambda: bwlab.softmax(x, dim, log=log, out=out)  # noqa: E731
                for rnd in range(1, rounds + 1):
                    for label, v in variants(p):
                        calls._plans.clear()
                        calls._plans[(p, 0)] = calls.Plan(v, runner(v, p.N, p.L, p.M, 0))
                        bad, ms, copy = measure(call, out, x, None, dim, "log" if log else "fwd", moved,
                                                check=rnd == 1)
                        assert list(calls._plans) == [(p, 0)], "the plan ran was not the one cached"
                        r = res[v.expression]
                        tag = f"{label} {v.expression.split('<')[1].split(',Fo')[0]} r{r.registers} s{r.spill_stores}"
                        print(f"{str(list(shape)) + ' d' + str(dim):20} {d:9} {'log' if log else 'fwd'} "
                              f"{tag + f' #{rnd}':44} " + columns(bad, ms, copy, moved), flush=True)
                calls._plans.clear()
            x = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
