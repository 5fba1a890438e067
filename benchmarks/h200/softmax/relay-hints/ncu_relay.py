"""One rowRelay call per HINT for Nsight Compute (float32 [64, 4194304] forward, or the case named
on the command line as N L dtype op): each hint's plan forced through the API, called twice (the
first compiles). Then rowSweep's plan likewise. Run under ncu with -k regex:row --launch-skip 1 --launch-count 5."""
import dataclasses
import importlib.util
import sys
from pathlib import Path

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner


def _probe():  # this folder's probe.py (its own `probe` import is ../meet-tree's)
    spec = importlib.util.spec_from_file_location("hints_probe", Path(__file__).with_name("probe.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


N, L, d, op = (64, 4194304, "float32", "fwd") if len(sys.argv) < 5 else (
    int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4])
x = torch.randn(N, L, device="cuda").to(getattr(torch, d))
g = torch.randn(N, L, device="cuda").to(x.dtype) if op == "bwd" else None
p = plans.Problem(N, L, 1, d, "backward" if op == "bwd" else "forward", False)
out = torch.empty_like(x)
for hint in (0, 3, "sweep"):
    if hint == "sweep":
        c = _probe().sweep(p)
    else:
        c = plans.row_relay(p)
        c = dataclasses.replace(c, expression=c.expression.replace(" >", f",{hint}>"))
    calls._plans.clear()
    calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, 1, 0))
    for _ in range(2):
        if op == "bwd":
            bwlab.softmax_backward(x, g, dim=-1, out=out)
        else:
            bwlab.softmax(x, -1, out=out)
    torch.cuda.synchronize()
