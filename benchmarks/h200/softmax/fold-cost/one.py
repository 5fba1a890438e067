"""One case of the public softmax, called 6 times after a check, for Nsight Compute (see COMMAND):
`PYTHONPATH=src python3 one.py N,L[,M] DIM DTYPE fwd|log|bwd`. Prints the dispatched kernel and
the number of bad elements against a float64 reference (16-bit: more than one unit in the last
place off the correctly rounded result; float32: the stated tolerance)."""
import sys

import torch

import bwlab

shape = tuple(int(s) for s in sys.argv[1].split(","))
dim, dt, op = int(sys.argv[2]), getattr(torch, sys.argv[3]), sys.argv[4]
g0 = torch.Generator(device="cuda").manual_seed(1)
x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(dt)
if op == "bwd":
    y = torch.softmax(x.float(), dim).to(dt)
    g = torch.randn(*shape, device="cuda", generator=g0).to(dt)
    fn = lambda out: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
    kern = bwlab.explain_softmax(y, dim, backward=True)
else:
    fn = lambda out: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
    kern = bwlab.explain_softmax(x, dim, log=op == "log")
out = torch.full_like(x, float("nan"))
fn(out)
if op != "bwd":
    ref = (torch.log_softmax if op == "log" else torch.softmax)(x.double(), dim)
    if dt == torch.float32:
        tol = 1e-5 * (1 + ref.abs()) if op == "log" else 1e-6 + 1e-5 * ref.abs()
        bad = int((~((out.double() - ref).abs() <= tol)).sum())
    else:
        def ordered(t):
            u = t.view(torch.int16).to(torch.int32) & 0xFFFF
            return torch.where(u >= 0x8000, 0x8000 - u, u)
        bad = int(((ordered(out) - ordered(ref.to(dt))).abs() > 1).sum())
else:
    bad = -1
for _ in range(5):
    fn(out)
torch.cuda.synchronize()
print(f"{sys.argv[1]} dim {dim} {sys.argv[3]} {op}: {kern}; bad {bad}", flush=True)
