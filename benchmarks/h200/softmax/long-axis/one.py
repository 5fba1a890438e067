"""One softmax geometry run a few times, for Nsight Compute (run from the repository root):
`PYTHONPATH=src python3 benchmarks/h200/softmax/long-axis/one.py N,L,M dtype op log kernel [rows by]`,
kernel `chosen` (the dispatch) or `chunks` (colsChunks with rows a chunk and by row groups)."""
import sys

import torch

from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

shape, d, op, log, kernel = sys.argv[1:6]
N, L, M = map(int, shape.split(","))
p = plans.Problem(N, L, M, d, op, log == "log")
c = plans.choose(p) if kernel == "chosen" else plans.cols_chunks(p, *map(int, sys.argv[6:10]))
calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, M, 0))
dt = {"float32": torch.float32, "bfloat16": torch.bfloat16}[d]
x = torch.randn(N, L, M, device="cuda").to(dt)
g = torch.randn(N, L, M, device="cuda").to(dt) if op == "backward" else None
for _ in range(3):
    calls.run(x, 1, log == "log", None, None, grad=g)
torch.cuda.synchronize()
print(c.kernel, c.expression)
