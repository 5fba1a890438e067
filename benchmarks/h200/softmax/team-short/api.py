"""The dispatch with gradients on teams down shorter strided axes where rows lie far apart (float32 from
1024 rows where they lie 16 KiB apart or more, on 256-byte strips; 16-bit from 4096 rows where 8 KiB apart
or more) against the kernel the dispatch took there before (its kernel without teams), both through the
API (a team's call also clears its workspace): "new" as dispatched, "old" with the API's cached plan
replaced by the one without teams. Every output poisoned and checked against float64 in round 1 (bad = 0
wanted), timed beside a copy of the same bytes, alternating, three rounds:
`PYTHONPATH=../../../../src python3 api.py` (from this folder), the kernels compiled first."""
import torch

import bwlab
from bwlab.core import build
from bwlab.workloads.softmax import calls, plans

from widths import DT, columns, prob, timed

CASES = {"float32": [((4, 2048, 16384), 1), ((1024, 32768), 0), ((2048, 32768), 0), ((16, 2048, 4096), 1),
                     ((8, 1024, 8192), 1), ((2048, 8192), 0), ((32, 1024, 4096), 1), ((3, 3000, 8192), 1),
                     ((2, 3500, 16384), 1)],
         "bfloat16": [((8, 4096, 4096), 1), ((4, 4096, 8192), 1), ((2, 4096, 16384), 1), ((6, 5000, 4096), 1)]}


def compile_all():
    ex = {}
    for d, cases in CASES.items():
        for s, dim in cases:
            for op in ("bwd", "lbwd"):
                p = prob(s, dim, d, op)
                for c in (plans.choose(p, held=264), plans.choose(p, held=396), plans.choose(p, teams=False)):
                    for e in (c.expression, c.merge, c.finish):
                        if e:
                            ex.setdefault(c.source, set()).add(e)
    for src, es in ex.items():
        b = build.compile_each(src, sorted(es), "sm_90", jobs=16)
        for e in sorted(es):
            print(f"# {b.resources[e].registers:4} regs {b.resources[e].spill_stores:3} spill {e}", flush=True)


def api_problem(p):
    """The API's own Problem for p (its plan cache's key), after a call."""
    return next(k[0] for k in calls._plans if len(k) == 2 and (k[0].N, k[0].L, k[0].M, k[0].dtype, k[0].op,
                                                                k[0].log) == (p.N, p.L, p.M, p.dtype, p.op, p.log))


def main():
    compile_all()
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for rnd in (1, 2, 3):
        for d, cases in CASES.items():
            for shape, dim in cases:
                x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                out = torch.empty_like(x)
                moved = x.numel() * x.element_size() * 3
                for op in ("bwd", "lbwd"):
                    log = op == "lbwd"
                    y = (torch.log_softmax if log else torch.softmax)(x.float(), dim).to(DT[d])
                    fn = lambda: bwlab.softmax_backward(y, g, dim, log=log, out=out)  # noqa: E731
                    fn()
                    key = (api_problem(prob(shape, dim, d, op)), 0)
                    new = calls._plans[key]
                    old = calls.plan_for(key[0], 0, teams=False)
                    for label, plan in (("new", new), ("old", old)):
                        calls._plans[key] = plan
                        bad, ms, copy = timed(fn, out, y, g, dim, op, moved, rnd == 1)
                        print(f"r{rnd} {str(list(shape)):18} {d:9} {op:4} {label} {plan.choice.kernel:20} "
                              + columns(bad, ms, copy, moved), flush=True)
                    calls._plans[key] = new
                    y = None
                x = g = out = None
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
