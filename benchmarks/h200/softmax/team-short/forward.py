"""Softmax and log-softmax (forward) down the shorter strided axes where gradients now take teams: colsTeam
(plans.cols_team's forward geometry, 64 KiB blocks three an SM) put in the API's plan cache ("team") against
the dispatch's own kernel ("api"), both through the API, alternating, three rounds; every output poisoned
and checked against float64 in round 1 (bad = 0 wanted), timed beside a copy of the same bytes:
`PYTHONPATH=../../../../src python3 forward.py` (from this folder), the kernels compiled first."""
import torch

import bwlab
from bwlab.core import build
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

from api import api_problem
from widths import DT, columns, held_plan, measure, problem

CASES = {"float32": [((4, 2048, 16384), 1), ((2048, 32768), 0), ((16, 2048, 4096), 1), ((3, 3000, 8192), 1),
                     ((2, 3500, 16384), 1), ((8, 1024, 8192), 1), ((32, 2048, 2048), 1)],
         "bfloat16": [((8, 4096, 4096), 1), ((4, 4096, 8192), 1), ((2, 4096, 16384), 1), ((16, 4096, 2048), 1)]}
OPS = ("fwd", "log")


def compile_all():
    ex = {}
    for d, cases in CASES.items():
        for s, dim in cases:
            for op in OPS:
                p = problem(s, dim, d, op)
                for c in (plans.cols_team(p), plans.choose(p, held=396)):
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
    for rnd in (1, 2, 3):
        for d, cases in CASES.items():
            for shape, dim in cases:
                x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
                out = torch.empty_like(x)
                moved = x.numel() * x.element_size() * 2
                for op in OPS:
                    log = op == "log"
                    fn = lambda: bwlab.softmax(x, dim, log=log, out=out)  # noqa: E731
                    fn()
                    key = (api_problem(problem(shape, dim, d, op)), 0)
                    own = calls._plans[key]
                    t = held_plan(lambda h: plans.cols_team(key[0], h))
                    team = calls.Plan(t, runner(t, key[0].N, key[0].L, key[0].M, 0))
                    for label, plan in (("api", own), ("team", team)):
                        calls._plans[key] = plan
                        bad, ms, copy = measure(fn, out, x, None, dim, op, moved, rnd == 1)
                        what = plan.choice.kernel + (f"/W{plan.choice.expression.split(',')[1]} G{plan.choice.extra[0]}"
                                                     if plan.choice.kernel == "colsTeam" else "")
                        print(f"r{rnd} {str(list(shape)):18} {d:9} {op:4} {label} {what:22} "
                              + columns(bad, ms, copy, moved), flush=True)
                    calls._plans[key] = own
                x = out = None
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
