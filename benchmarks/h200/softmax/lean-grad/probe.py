"""Softmax's gradients on lean teams (the gradient alone on chip; y streamed from global memory at the
fold, where sum(y g) needs it, and read again at the write, which the meeting prefetches into the L2)
against the teams that hold both, on the strided cases whose gradients miss 80% of a copy and beside
them: the dispatch ("api"), colsTeam forced holding both on 128- and 256-byte strips (96 KiB of strip
rows a block, two an SM: "x2"), lean on the same, and lean on 64 KiB blocks, three an SM ("x3"). Every
output poisoned and checked against float64 in round 1 (bad = 0 wanted), timed beside a copy of the
same bytes (../meet-tree/probe.py's against_copy), the forms alternating, two rounds:
`PYTHONPATH=../../../../src python3 probe.py` (from this folder); `probe.py list`: the forced kernels'
name expressions, for compiling them beforehand."""
import sys

sys.path[:0] = ["../team-pipe", "../meet-tree", "../width-more"]
from bwlab.workloads.softmax import plans  # noqa: E402
from geometry import prob  # noqa: E402

SHAPES = [((4, 32768, 1024), 1), ((32768, 4096), 0), ((8192, 8192), 0), ((16, 8192, 1024), 1),
          ((8, 16384, 1024), 1)]
DTYPES = ["float32", "bfloat16"]


def forms(p):
    """(label, make): make(held) -> the Choice for `held` resident blocks."""
    out = []
    for lean, W, x in ((False, 128, 2), (False, 256, 2), (True, 128, 2), (True, 256, 2), (True, 128, 3),
                       (True, 256, 3)):
        kw = dict(budget=64 * 1024, minb=3) if x == 3 else dict(budget=plans.TEAM_STRIP, minb=2)
        out.append((f"{'lean' if lean else 'team'} W{W}x{x}",
                    lambda h, W=W, lean=lean, kw=kw: plans.cols_team(p, h, W=W, lean=lean, **kw)))
    return out


def expressions():
    return sorted({c.expression for shape, dim in SHAPES for d in DTYPES
                   for _, make in forms(prob(shape, dim, d, "bwd")) if (c := make(0)) is not None})


def main():
    import torch

    import bwlab
    from pipe import forced, held_plan
    from probe import DT, columns, measure

    g0 = torch.Generator(device="cuda").manual_seed(0)
    for rnd in (1, 2):
        for shape, dim in SHAPES:
            for d in DTYPES:
                p = prob(shape, dim, d, "bwd")
                x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
                y = torch.softmax(x.float(), dim).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                out = torch.empty_like(x)
                moved = 3 * x.numel() * x.element_size()
                kern = bwlab.explain_softmax(y, dim, backward=True)
                runs = [(f"api {kern.split(' ')[0]}", lambda: bwlab.softmax_backward(y, g, dim, out=out))]
                for label, make in forms(p):
                    c = held_plan(make)
                    if c is not None:
                        runs.append((f"{label} T{c.chunks} G{c.extra[0]}", forced(c, p, y, g, out)))
                for label, fn in runs:
                    bad, ms, copy = measure(fn, out, y, g, dim, "bwd", moved, rnd == 1)
                    print(f"r{rnd} {str(list(shape)):18} {d:9} bwd  {label:24} " + columns(bad, ms, copy, moved),
                          flush=True)
                x = y = g = out = None
                torch.cuda.empty_cache()


if __name__ == "__main__":
    if sys.argv[1:] == ["list"]:
        print("\n".join(expressions()))
    else:
        main()
