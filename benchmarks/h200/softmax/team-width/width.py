"""colsTeam on narrower strips (64 and 32 bytes: fewer blocks a team, so fewer states to gather at each
meeting, and more teams) against its 128-byte strips and the dispatch, on the strided cases that take
teams or might: each run through the public API (the dispatch's kernel), then colsTeam forced at each
width (plans.cols_team with the GPU's resident blocks, ../team-pipe/pipe.py's held_plan), every output
poisoned and checked against float64 in the first round, timed beside a copy of the same bytes
(../meet-tree/probe.py's measure), the forms alternating, two rounds:
`PYTHONPATH=../../../../src python3 width.py RUN` (from this folder; RUN: geometry.RUNS)."""
import sys

import torch

import bwlab
from bwlab.workloads.softmax import plans

sys.path.insert(0, "../team-pipe")
sys.path.insert(0, "../meet-tree")
from cases import problem  # noqa: E402
from geometry import RUNS  # noqa: E402
from pipe import forced, held_plan  # noqa: E402
from probe import DT, columns, measure  # noqa: E402



def main(run):
    shapes, dtypes, ops, widths = RUNS[run]
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for rnd in (1, 2):
        for shape, dim in shapes:
            for d in dtypes:
                for op in ops:
                    p = problem(shape, dim, d, op)
                    x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
                    out = torch.empty_like(x)
                    if op == "bwd":
                        y = torch.softmax(x.float(), dim).to(DT[d])
                        g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                        api = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
                        kern = bwlab.explain_softmax(y, dim, backward=True)
                    else:
                        y, g = x, None
                        api = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                        kern = bwlab.explain_softmax(x, dim, log=op == "log")
                    moved = x.numel() * x.element_size() * (3 if op == "bwd" else 2)
                    runs = [(f"api {kern.split(' ')[0]}", api)]
                    for W in widths:
                        c = held_plan(lambda h: plans.cols_team(p, h, W=W))  # noqa: B023
                        if c is not None:
                            runs.append((f"team W{W} T{c.chunks} G{c.extra[0]}", forced(c, p, y, g, out)))
                    for label, fn in runs:
                        bad, ms, copy = measure(fn, out, y, g, dim, op, moved, rnd == 1)
                        print(f"r{rnd} {str(list(shape)):18} {d:9} {op} {label:24} " + columns(bad, ms, copy, moved),
                              flush=True)
                    x = y = g = out = None
                    torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1])
