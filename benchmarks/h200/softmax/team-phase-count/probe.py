"""colsTeam with its teams started in more phases (variants.py), through the public API, on one
variant's copy of the package: `python3 probe.py VARIANT ROUND [SET]` with PYTHONPATH at that copy
(run.sh; SET: SETS, "all" unless given). Round 1 compiles the cases' kernels first (registers and
spills printed) and checks every output, poisoned, against float64 (bad = 0 wanted); each call timed
beside a copy of the same bytes (../meet-tree/probe.py's against_copy). (From ../team-poller/probe.py,
with the set "all": softmax, log-softmax and softmax's gradients, bfloat16 and float32, down the strided
axes the teams take, and log-softmax's gradients on lean teams.)"""
import importlib.util
import sys

import torch

import bwlab
from bwlab.core import build
from bwlab.workloads.softmax import plans

sys.path.insert(0, "../team-pipe")  # cases.problem
sys.path.insert(0, "../meet-tree")
from cases import problem  # noqa: E402
from probe import DT, against_copy, bad_count, columns  # noqa: E402

_spec = importlib.util.spec_from_file_location("width_more_probe", "../width-more/probe.py")
width_more = importlib.util.module_from_spec(_spec)  # its log-softmax gradient check
sys.path.insert(0, "../width-more")
_spec.loader.exec_module(width_more)

STRIDED = [((4, 32768, 1024), 1), ((8, 16384, 1024), 1), ((32768, 4096), 0), ((16, 8192, 1024), 1),
           ((8192, 8192), 0)]
CASES = [(s, dim, "bfloat16", op) for s, dim in STRIDED for op in ("fwd", "log")]
LEAN = [((4, 32768, 1024), 1), ((8192, 8192), 0)]
CASES += [(s, dim, d, "lbwd") for s, dim in LEAN for d in ("float32", "bfloat16")]
# the set "pf": float32 softmax and log-softmax, and softmax's gradients, where colsTeam might take them
PF = [(s, dim, "float32", op) for s, dim in STRIDED for op in ("fwd", "log")]
PF += [(s, dim, d, "bwd") for s, dim in STRIDED[:4] for d in ("float32", "bfloat16")]
# the set "rows": long last-axis rows on rowTeam
ROWS = [((n, L), 1, d, op) for n, L in ((1024, 131072), (2048, 262144), (4096, 98304))
        for d in ("float32", "bfloat16") for op in ("fwd", "log")]
ALL = [(s, dim, d, op) for s, dim in STRIDED for d in ("bfloat16", "float32") for op in ("fwd", "log", "bwd")]
ALL += [(s, dim, d, "lbwd") for s, dim in LEAN for d in ("float32", "bfloat16")]
SETS = {"poll": CASES, "pf": PF, "rows": ROWS, "all": ALL}


def prob(shape, dim, d, op):
    p = problem(shape, dim, d, "bwd" if op in ("bwd", "lbwd") else op)
    return plans.Problem(p.N, p.L, p.M, d, p.op, op in ("log", "lbwd"))


def compile_all(cases):
    ex = {}
    for s, dim, d, op in cases:
        for held in (264, 396):
            c = plans.choose(prob(s, dim, d, op), held=held)
            ex.setdefault(c.source, set()).add(c.expression)
    for src, es in ex.items():
        b = build.compile_each(src, sorted(es), "sm_90", jobs=16)
        for e in sorted(es):
            print(f"# {b.resources[e].registers:4} regs {b.resources[e].spill_stores:3} spill {e}", flush=True)


def main(variant, rnd, which="all"):
    check = rnd == "1"
    if check:
        compile_all(SETS[which])
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim, d, op in SETS[which]:
        x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
        out = torch.empty_like(x)
        if op in ("bwd", "lbwd"):
            log = op == "lbwd"
            y = (torch.log_softmax if log else torch.softmax)(x.float(), dim).to(DT[d])
            g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
            fn = lambda: bwlab.softmax_backward(y, g, dim, log=log, out=out)  # noqa: E731
            kern = bwlab.explain_softmax(y, dim, log=log, backward=True)
        else:
            y, g = x, None
            fn = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
            kern = bwlab.explain_softmax(x, dim, log=op == "log")
        moved = x.numel() * x.element_size() * (3 if g is not None else 2)
        out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        bad = -1
        if check:
            if op == "lbwd":
                bad = width_more.log_grad_bad(out, y, g, dim)
            else:
                bad = bad_count(out, y if g is not None else x, g, dim, op)
        ms, copy = against_copy(fn, moved)
        print(f"r{rnd} {str(list(shape)):18} {d:9} {op:4} {variant:6} {kern.split(' ')[0]:10} "
              + columns(bad, ms, copy, moved), flush=True)
        x = y = g = out = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(*sys.argv[1:])
