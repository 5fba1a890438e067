"""colsTeamPipe (two strips a block in flight) against colsTeam and the dispatch, on the strided cases
of cases.py: each run through the public API (the dispatch's kernel), colsTeam forced and each
colsTeamPipe geometry forced (plans.cols_team with the GPU's resident blocks), every output poisoned
and checked against float64 in the first round, timed beside a copy of the same bytes
(../meet-tree/probe.py's measure), the forms alternating, two rounds:
`PYTHONPATH=../../../../src python3 pipe.py [fwd|bwd ...]` (from this folder)."""
import sys

import torch

import bwlab
from bwlab.core import launch as core_launch
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import _function, runner

from cases import DTYPES, OPS, SHAPES, pipe_plans, problem

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402


def held_plan(make):
    """make(held) with the resident blocks of make(0)'s kernel (None where the GPU holds less)."""
    c = make(0)
    if c is None:
        return None
    fn = _function(c.source, c.expression, c.smem, 0, c.cluster)
    return make(core_launch.resident_blocks(fn, c.block[0], c.smem, 0))


def forced(c, p, a, b, y):
    ws = torch.empty(max(1, c.workspace_bytes), dtype=torch.uint8, device="cuda")
    run = runner(c, p.N, p.L, p.M, 0)
    s = torch.cuda.current_stream().cuda_stream
    return lambda: run(a.data_ptr(), b.data_ptr() if b is not None else 0, y.data_ptr(), ws.data_ptr(), s)


def main(ops):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for rnd in (1, 2):
        for shape, dim in SHAPES:
            for d in DTYPES:
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
                    team = held_plan(lambda h: plans.cols_team(p, h))
                    if team is not None:
                        runs.append((f"team T{team.chunks} G{team.extra[0]}", forced(team, p, y, g, out)))
                    for label, _ in pipe_plans(p, op):
                        c = held_plan(lambda h: dict(pipe_plans(p, op, h)).get(label))
                        if c is not None:
                            runs.append((f"{label} T{c.chunks} G{c.extra[0]}", forced(c, p, y, g, out)))
                    for label, fn in runs:
                        bad, ms, copy = measure(fn, out, y, g, dim, op, moved, rnd == 1)
                        print(f"r{rnd} {str(list(shape)):18} {d:9} {op} {label:24} " + columns(bad, ms, copy, moved),
                              flush=True)
                    x = y = g = out = None
                    torch.cuda.empty_cache()


if __name__ == "__main__":
    main([o for o in OPS if o in sys.argv[1:]] or list(OPS))
