"""Gradients down strided axes of 32768 rows: the dispatch's kernel (colsChunks for 16-bit) beside
colsTeam on as many teams as the GPU holds. Run from this folder as
`PYTHONPATH=../../../../src python3 grads.py`; checked in round 1 (../meet-tree/probe.py's measure,
gradients to 2^-7 of the scale of their terms in 16-bit), then timed beside a copy; two rounds."""
import sys

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner, team_blocks

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [((4, 32768, 1024), 1), ((32768, 4096), 0), ((8, 16384, 1024), 1)]


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim in CASES:
        N = 1
        for s in shape[:dim]:
            N *= s
        L, M = shape[dim], 1
        for s in shape[dim + 1:]:
            M *= s
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            y = torch.softmax(x.float(), dim).to(DT[d])
            g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
            x = None
            out = torch.empty_like(y)
            moved = 3 * y.numel() * y.element_size()
            p = plans.Problem(N, L, M, d, "backward", False)
            call = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
            for rnd in (1, 2):
                for label in ("dispatch", "colsTeam"):
                    calls._plans.clear()
                    if label == "colsTeam":
                        c = plans.cols_team(p, team_blocks(p, 0))
                        calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, M, 0))
                        label += f" {c.chunks}x{c.extra[0]}"
                    else:
                        label = "api " + bwlab.explain_softmax(y, dim, backward=True).split(" ")[0]
                    bad, ms, copy = measure(call, out, y, g, dim, "bwd", moved, check=rnd == 1)
                    print(f"{str(list(shape)) + ' d' + str(dim):22} {d:9} bwd  {label + f' #{rnd}':26} "
                          + columns(bad, ms, copy, moved), flush=True)
                calls._plans.clear()
            y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
