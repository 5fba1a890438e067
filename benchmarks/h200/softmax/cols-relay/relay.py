"""colsRelay (both passes in one launch, each chunk's second read from L2) beside the dispatch's
kernel on long strided axes: `PYTHONPATH=../../../../src python3 relay.py [quick]` from this folder.
Each forced plan's output, poisoned first, is checked against a float64 reference, then timed beside
a device-to-device copy of the same bytes (../meet-tree/probe.py's measure). Labels: R rows a chunk,
X lanes (16-byte packs) of columns a unit, S slack in MiB."""
import sys

import torch

import bwlab
from bwlab.core import build
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [((4, 32768, 1024), 1), ((32768, 4096), 0), ((8192, 8192), 0), ((16, 8192, 1024), 1)]
GEOMETRY = [(64, 32, 8), (128, 32, 8), (256, 32, 8), (64, 32, 16), (128, 16, 8), (256, 8, 8), (512, 8, 8)]
OPS = {"fwd": ("forward", False), "log": ("forward", True), "bwd": ("backward", False)}


def problem(shape, dim, d, op):
    N = M = 1
    for s in shape[:dim]:
        N *= s
    for s in shape[dim + 1:]:
        M *= s
    return plans.Problem(N, shape[dim], M, d, *OPS[op])


# sweep 3 (`relay.py slack`): narrow units and slacks past the resident blocks' window
SLACKS = [(r, 8, s) for r in (128, 256, 512) for s in (8, 16, 32)] + [(r, 16, s) for r in (128, 256) for s in (16, 32)]
# sweep 4 (`relay.py slack lines`): after the counts moved to lines of their own
LINES = [(r, x, s) for r in (256, 512) for x in (8, 16, 32) for s in (8, 16)]


def variants(p, quick, slack=False):
    out = [("dispatch", plans.choose(p))]
    for rows, lx, mib in (LINES if "lines" in sys.argv else SLACKS) if slack else GEOMETRY:
        v = plans.cols_relay(p, rows=rows, lx=lx, by=256 // lx, slack=mib << 20)
        if v is not None:
            out.append((f"R{rows} X{lx} S{mib}", v))
    return out


def main(quick, slack):
    cases = CASES[:1] if slack else CASES[:2] if quick else CASES
    ops = ("fwd", "bwd") if slack else OPS
    todo = {}
    for shape, dim in cases:
        for d in DT:
            for op in ops:
                for _, v in variants(problem(shape, dim, d, op), quick, slack):
                    todo.setdefault(v.source, set()).update(e for e in (v.expression, v.finish, v.merge) if e)
    res = {}
    for src, ex in todo.items():
        res.update(build.compile_each(src, sorted(ex), build.DEFAULT_ARCH).resources)
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim in cases:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            y = torch.softmax(x.float(), dim).to(DT[d])
            g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
            out = torch.empty_like(x)
            for op in ops:
                p = problem(shape, dim, d, op)
                if op == "bwd":
                    call = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
                    src, grad, moved = y, g, 3 * x.numel() * x.element_size()
                else:
                    call = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                    src, grad, moved = x, None, 2 * x.numel() * x.element_size()
                for label, v in variants(p, quick, slack):
                    calls._plans.clear()
                    calls._plans[(p, 0)] = calls.Plan(v, runner(v, p.N, p.L, p.M, 0))
                    bad, ms, copy = measure(call, out, src, grad, dim, op, moved)
                    assert list(calls._plans) == [(p, 0)], "the plan ran was not the one cached"
                    r = res[v.expression]
                    tag = f"{label} {v.kernel} r{r.registers} s{r.spill_stores}"
                    print(f"{str(list(shape)) + ' d' + str(dim):20} {d:9} {op} {tag:40} "
                          + columns(bad, ms, copy, moved), flush=True)
                calls._plans.clear()
            x = y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main("quick" in sys.argv, "slack" in sys.argv)
