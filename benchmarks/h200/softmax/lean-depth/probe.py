"""Lean colsTeam (log-softmax gradients, the gradient alone on chip) in one variant of its write
(variants.py), on the strided cases of ../width-more (LONG), each lean geometry forced: 96 KiB of
strip rows a block, two an SM, on 128- and 256-byte strips, and 64 KiB, three an SM ("x3").
`python3 probe.py VARIANT ROUND` with PYTHONPATH at that variant's copy (run.sh); round 1 compiles
every kernel first (registers and spills printed) and checks every output, poisoned, against float64
(bad = 0 wanted); each timed beside a copy of the same bytes (../meet-tree/probe.py's against_copy)."""
import importlib.util
import sys

import torch

from bwlab.core import build
from bwlab.workloads.softmax import plans

sys.path.insert(0, "../width-more")
sys.path.insert(0, "../team-pipe")
sys.path.insert(0, "../meet-tree")
from geometry import LONG, prob  # noqa: E402
from pipe import forced, held_plan  # noqa: E402
from probe import DT, against_copy, columns  # noqa: E402

# width-more's probe.py (its log-softmax gradient check), by path: meet-tree's holds the name `probe`
_spec = importlib.util.spec_from_file_location("width_more_probe", "../width-more/probe.py")
width_more = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(width_more)

FORMS = [(f"lean W{W}{'x3' if x3 else ''}", W, x3) for x3 in (0, 1) for W in (128, 256)]


def make(p, W, x3):
    return lambda h: plans.cols_team(p, h, W=W, lean=True, **(dict(budget=64 * 1024, minb=3) if x3 else {}))


def compile_all():
    ex = sorted({make(prob(s, dim, d, "lean"), W, x3)(0).expression for s, dim in LONG
                 for d in ("float32", "bfloat16") for _, W, x3 in FORMS})
    b = build.compile_each(plans.SRC["colscluster"], ex, "sm_90", jobs=16)
    for e in ex:
        r = b.resources[e]
        print(f"# {r.registers:4} regs {r.spill_stores:3} spill {e}", flush=True)


def main(variant, rnd):
    check = rnd == "1"
    if check:
        compile_all()
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for d in ("float32", "bfloat16"):
        for shape, dim in LONG:
            p = prob(shape, dim, d, "lean")
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            y = torch.log_softmax(x.float(), dim).to(DT[d])
            g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
            out = torch.empty_like(x)
            moved = x.numel() * x.element_size() * 3
            for label, W, x3 in FORMS:
                if x3 and variant.endswith("u16"):  # spills there
                    continue
                c = held_plan(make(p, W, x3))
                if c is None:
                    continue
                fn = forced(c, p, y, g, out)
                out.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                bad = width_more.log_grad_bad(out, y, g, dim) if check else -1
                ms, copy = against_copy(fn, moved)
                print(f"r{rnd} {str(list(shape)):18} {d:9} {variant:8} {label} T{c.chunks} G{c.extra[0]} "
                      + columns(bad, ms, copy, moved), flush=True)
            x = y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(*sys.argv[1:])
