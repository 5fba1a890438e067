"""One forced plan run a few times, for Nsight Compute: `python3 one.py SHAPE DIM DTYPE OP [ROWS LX SLACK_MIB]`
(SHAPE like 4x32768x1024; without ROWS the dispatch's kernel)."""
import sys

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner
from relay import DT, problem

shape = tuple(int(s) for s in sys.argv[1].split("x"))
dim, d, op = int(sys.argv[2]), sys.argv[3], sys.argv[4]
p = problem(shape, dim, d, op)
v = plans.choose(p) if len(sys.argv) < 6 else plans.cols_relay(
    p, rows=int(sys.argv[5]), lx=int(sys.argv[6]), by=256 // int(sys.argv[6]), slack=int(sys.argv[7]) << 20)
calls._plans[(p, 0)] = calls.Plan(v, runner(v, p.N, p.L, p.M, 0))
x = torch.randn(*shape, device="cuda").to(DT[d])
g = torch.randn_like(x)
for _ in range(3):
    if op == "bwd":
        bwlab.softmax_backward(x, g, dim)
    else:
        bwlab.softmax(x, dim, log=op == "log")
torch.cuda.synchronize()
print(v.kernel, v.expression, v.grid, v.extra)
