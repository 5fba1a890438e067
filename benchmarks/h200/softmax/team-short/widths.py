"""colsTeam on gradients down strided axes shorter than the dispatch gives it (float32 from 4096 rows,
16-bit from 8192): softmax's ("bwd") and log-softmax's ("lbwd"), each beside the dispatch ("api"),
colsTeam forced on 128- and 256-byte strips (96 KiB of strip rows a block, two an SM), and for
log-softmax the lean teams (the gradient alone on chip: float32 two an SM, 16-bit 64 KiB blocks three
an SM). Every output poisoned and checked against float64 in round 1 (bad = 0 wanted), timed beside a
copy of the same bytes (../meet-tree/probe.py's against_copy), the forms alternating, two rounds:
`PYTHONPATH=../../../../src python3 widths.py` (from this folder); the kernels compiled first (registers
and spills printed)."""
import dataclasses
import importlib.util
import sys

import torch

import bwlab
from bwlab.core import build
from bwlab.workloads.softmax import plans

sys.path[:0] = ["../meet-tree", "../team-pipe"]
from cases import problem  # noqa: E402
from pipe import forced, held_plan  # noqa: E402
from probe import DT, against_copy, columns, measure  # noqa: E402

_spec = importlib.util.spec_from_file_location("width_more_probe", "../width-more/probe.py")
width_more = importlib.util.module_from_spec(_spec)  # its log-softmax gradient check
sys.path.insert(0, "../width-more")
_spec.loader.exec_module(width_more)

CASES = {"float32": [((2048, 32768), 0), ((2048, 8192), 0), ((16, 2048, 4096), 1), ((64, 2048, 1024), 1),
                     ((1024, 32768), 0), ((4096, 4096), 0)],
         "bfloat16": [((4096, 8192), 0), ((2048, 32768), 0), ((8, 4096, 4096), 1)]}


def prob(shape, dim, d, op):
    p = problem(shape, dim, d, "bwd")
    return dataclasses.replace(p, log=op == "lbwd")


def forms(p, op):
    out = [(f"team W{W}", lambda h, W=W: plans.cols_team(p, h, W=W, lean=False)) for W in (128, 256)]
    if op == "lbwd":
        x3 = dict(budget=64 * 1024, minb=3) if p.dtype != "float32" else {}
        out += [(f"lean W{W}", lambda h, W=W: plans.cols_team(p, h, W=W, lean=True, **x3)) for W in (128, 256)]
    return out


def timed(fn, out, y, g, dim, op, moved, check):
    """(bad, ms, copy ms) of a gradient's call fn: out poisoned, fn run once and its output checked against
    float64 (bad = -1 unchecked), then timed beside a copy of the same bytes."""
    if op == "lbwd":
        out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        bad = width_more.log_grad_bad(out, y, g, dim) if check else -1
        return (bad,) + against_copy(fn, moved)
    return measure(fn, out, y, g, dim, "bwd", moved, check)


def compile_all():
    ex = sorted({c.expression for d, cases in CASES.items() for s, dim in cases for op in ("bwd", "lbwd")
                 for _, make in forms(prob(s, dim, d, op), op) if (c := make(0)) is not None})
    b = build.compile_each(plans.SRC["colscluster"], ex, "sm_90", jobs=16)
    for e in ex:
        print(f"# {b.resources[e].registers:4} regs {b.resources[e].spill_stores:3} spill {e}", flush=True)


def main():
    compile_all()
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for rnd in (1, 2):
        for d, cases in CASES.items():
            for shape, dim in cases:
                x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                out = torch.empty_like(x)
                moved = x.numel() * x.element_size() * 3
                for op in ("bwd", "lbwd"):
                    log = op == "lbwd"
                    p = prob(shape, dim, d, op)
                    y = (torch.log_softmax if log else torch.softmax)(x.float(), dim).to(DT[d])
                    api = lambda: bwlab.softmax_backward(y, g, dim, log=log, out=out)  # noqa: E731
                    kern = bwlab.explain_softmax(y, dim, log=log, backward=True)
                    runs = [(f"api {kern.split(' ')[0]}", api)]
                    for label, make in forms(p, op):
                        c = held_plan(make)
                        if c is not None:
                            runs.append((f"{label} T{c.chunks} G{c.extra[0]}", forced(c, p, y, g, out)))
                    for label, fn in runs:
                        bad, ms, copy = timed(fn, out, y, g, dim, op, moved, rnd == 1)
                        print(f"r{rnd} {str(list(shape)):18} {d:9} {op:4} {label:24} " + columns(bad, ms, copy, moved),
                              flush=True)
                    y = None
                x = g = out = None
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
