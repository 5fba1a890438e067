"""colsRegs for 16-bit columns of 16 rows, told that an SM must hold MINB blocks (2, 5, 6), which
caps its registers: `PYTHONPATH=<tree>/src python3 regs.py LABEL`. Each forced plan's output,
poisoned first, is checked against a float64 reference, then timed beside a device-to-device copy
of the same bytes (../meet-tree/probe.py's measure and columns). Prints the registers and spills
NVRTC gave each instantiation."""
import dataclasses
import sys

import torch

import bwlab
from bwlab.core import build
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, "../meet-tree")
from probe import columns, measure  # noqa: E402

SHAPE = (8192, 16, 1024)


def main(label):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for d, dt in (("bfloat16", torch.bfloat16), ("float16", torch.float16)):
        x = (torch.randn(*SHAPE, device="cuda", generator=g0) * 3).to(dt)
        out = torch.empty_like(x)
        moved = 2 * x.numel() * x.element_size()
        for log in (False, True):
            p = plans.Problem(8192, 16, 1024, d, "forward", log)
            c = plans.choose(p)
            variants = []
            for minb in (2, 5, 6):
                parts = c.expression.split(",")
                parts[4] = str(minb)
                variants.append(dataclasses.replace(c, expression=",".join(parts)))
            res = build.compile_each(c.source, [v.expression for v in variants], build.DEFAULT_ARCH).resources
            for rnd in (1, 2):
                for v in variants:
                    calls._plans.clear()
                    calls._plans[(p, 0)] = calls.Plan(v, runner(v, p.N, p.L, p.M, 0))
                    call = lambda: bwlab.softmax(x, 1, log=log, out=out)  # noqa: E731
                    bad, ms, copy = measure(call, out, x, None, 1, "log" if log else "fwd", moved, check=rnd == 1)
                    assert list(calls._plans) == [(p, 0)]
                    r = res[v.expression]
                    print(f"{label:5} {d:9} {'log' if log else 'fwd'} {v.expression:42} regs {r.registers:3} "
                          f"spills {r.spill_stores:2} #{rnd} " + columns(bad, ms, copy, moved), flush=True)
            calls._plans.clear()


if __name__ == "__main__":
    main(sys.argv[1])
