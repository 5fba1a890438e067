"""colsTeam's 256-byte strips where they were not timed: float32 log-softmax gradients (run `lbwd`)
and bfloat16 softmax with stored terms (run `terms`; the plans give stored terms on 128-byte strips
only), each beside the dispatch (the "api" line) and colsTeam forced on 128-byte strips, on the
strided cases whose rows lie 16 KiB apart or more; and log-softmax gradients on lean teams (the
gradient alone on chip; runs `lean32`, `lean16`: geometry.forms). Every output poisoned and checked against float64
in round 1 (bad = 0 wanted), timed beside a copy of the same bytes (../meet-tree/probe.py's
against_copy), the forms alternating, two rounds:
`PYTHONPATH=../../../../src python3 probe.py RUN` (from this folder; RUN: geometry.RUNS), after build.py."""
import sys

import torch

import bwlab

sys.path.insert(0, "../team-pipe")
sys.path.insert(0, "../meet-tree")
from geometry import RUNS, forms, prob  # noqa: E402
from pipe import forced, held_plan  # noqa: E402
from probe import DT, against_copy, columns, measure  # noqa: E402


def log_grad_bad(out, y, g, dim):
    yd, gd = y.double(), g.double()
    ref = gd - yd.exp() * gd.sum(dim, keepdim=True)
    eps = 1e-5 if out.dtype == torch.float32 else 2 ** -7  # 16-bit: about two units in the last place
    tol = eps * (ref.abs() + gd.abs().amax(dim, keepdim=True))
    return int((~((out.double() - ref).abs() <= tol)).sum())


def main(run):
    shapes, d, op = RUNS[run]
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for rnd in (1, 2):
        for shape, dim in shapes:
            p = prob(shape, dim, d, op)
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            if op in ("lbwd", "lean"):
                y = torch.log_softmax(x.float(), dim).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                api = lambda: bwlab.softmax_backward(y, g, dim, log=True, out=out)  # noqa: E731
                kern = bwlab.explain_softmax(y, dim, log=True, backward=True)
            else:
                y, g = x, None
                api = lambda: bwlab.softmax(x, dim, out=out)  # noqa: E731
                kern = bwlab.explain_softmax(x, dim)
            moved = x.numel() * x.element_size() * (3 if g is not None else 2)
            runs = [(f"api {kern.split(' ')[0]}", api)]
            for label, make in forms(p, op):
                c = held_plan(make)
                if c is not None:
                    runs.append((f"{label} T{c.chunks} G{c.extra[0]}", forced(c, p, y, g, out)))
            for label, fn in runs:
                if op in ("lbwd", "lean"):
                    out.fill_(float("nan"))
                    fn()
                    torch.cuda.synchronize()
                    bad = log_grad_bad(out, y, g, dim) if rnd == 1 else -1
                    ms, copy = against_copy(fn, moved)
                else:
                    bad, ms, copy = measure(fn, out, y, g, dim, op, moved, rnd == 1)
                print(f"r{rnd} {str(list(shape)):18} {d:9} {op:4} {label:24} " + columns(bad, ms, copy, moved),
                      flush=True)
            x = y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1])
