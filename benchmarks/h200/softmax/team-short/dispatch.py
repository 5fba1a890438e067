"""The dispatch with gradients on teams down shorter strided axes (float32 from 1024 rows where the slice is
whole 256-byte strips, on such strips below 4096 rows; 16-bit from 4096 rows) against the kernel it took
before there (the dispatch without teams): softmax's ("bwd") and log-softmax's ("lbwd") gradients, each
through the API ("api", the new dispatch), and both kernels forced ("new", "old"; a kernel forced times
about a point above the same kernel through the API). Every output poisoned and checked against float64
in round 1 (bad = 0 wanted), timed beside a copy of the same bytes, the forms alternating, two rounds:
`PYTHONPATH=../../../../src python3 dispatch.py` (from this folder), its kernels compiled first (registers
and spills printed)."""

import torch

import bwlab
from bwlab.core import build
from bwlab.workloads.softmax import plans

from widths import DT, columns, forced, held_plan, prob, timed

CASES = {"float32": [((16, 2048, 1024), 1), ((32, 2048, 1024), 1), ((64, 1024, 2048), 1), ((128, 1024, 1024), 1),
                     ((256, 2048, 256), 1), ((512, 2048, 64), 1), ((2048, 8192), 0), ((4, 2048, 16384), 1),
                     ((1024, 32768), 0), ((8, 1024, 8192), 1)],
         "bfloat16": [((16, 4096, 1024), 1), ((32, 4096, 512), 1), ((64, 4096, 256), 1), ((8, 4096, 4096), 1),
                      ((4096, 8192), 0)]}


def plans_of(p):
    return [("new", lambda h: plans.choose(p, held=h)), ("old", lambda h: plans.choose(p, teams=False))]


def compile_all():
    ex = {}
    for d, cases in CASES.items():
        for s, dim in cases:
            for op in ("bwd", "lbwd"):
                for _, make in plans_of(prob(s, dim, d, op)):
                    c = make(0)
                    for e in (c.expression, c.merge, c.finish):
                        if e:
                            ex.setdefault(c.source, set()).add(e)
    for src, es in ex.items():
        b = build.compile_each(src, sorted(es), "sm_90", jobs=16)
        for e in sorted(es):
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
                    runs = [(f"api {bwlab.explain_softmax(y, dim, log=log, backward=True).split(' ')[0]}", api)]
                    for label, make in plans_of(p):
                        c = held_plan(make)
                        runs.append((f"{label} {c.kernel}" + (f"/W{c.expression.split(',')[1]}"
                                                              if c.kernel == "colsTeam" else ""),
                                     forced(c, p, y, g, out)))
                    for label, fn in runs:
                        bad, ms, copy = timed(fn, out, y, g, dim, op, moved, rnd == 1)
                        print(f"r{rnd} {str(list(shape)):18} {d:9} {op:4} {label:24} " + columns(bad, ms, copy, moved),
                              flush=True)
                    y = None
                x = g = out = None
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
