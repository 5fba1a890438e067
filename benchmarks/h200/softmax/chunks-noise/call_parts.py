"""Host microseconds of one public softmax call and of its parts, the GPU idle before each call
(synchronised, then timed; the launches are asynchronous, so this is the host's own work):
[4, 32768, 1024] bfloat16 dim 1 (colsChunks: workspace, three launches) and [16, 8192, 1024]
bfloat16 dim 1 (colsCluster: one launch), torch tensors with out= given. (call_parts.txt: the tree before
the fast path, with this script as it was then: `calls._workspace(xo, ws_bytes, s)`.)
Run from the repository root: `PYTHONPATH=src python3 benchmarks/h200/softmax/chunks-noise/call_parts.py`."""
import statistics
import time

import torch

import bwlab
from bwlab.core.arrays import as_operand
from bwlab.workloads.softmax import calls, plans


def host_us(fn, n=200):
    ts = []
    for _ in range(n):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(ts), min(ts)


for shape in ((4, 32768, 1024), (16, 8192, 1024)):
    x = torch.randn(*shape, device="cuda").to(torch.bfloat16)
    out = torch.empty_like(x)
    bwlab.softmax(x, 1, out=out)
    xo = as_operand(x, "x")
    p = plans.Problem(shape[0], shape[1], shape[2], "bfloat16", "forward", False, True)
    plan = calls.plan_for(p, 0)
    s = torch.cuda.current_stream().cuda_stream
    ws_bytes = plan.choice.workspace_bytes
    ws = calls._workspace("torch", x, 0, ws_bytes, s, True) if ws_bytes else None
    wp = calls._ptr(ws) if ws is not None else 0
    parts = {
        "whole call": lambda: bwlab.softmax(x, 1, out=out),
        "calls.run": lambda: calls.run(x, 1, False, out),
        "as_operand(x)": lambda: as_operand(x, "x"),
        "plan.run only": lambda: plan.run(x.data_ptr(), 0, out.data_ptr(), wp, s),
    }
    if ws_bytes:
        parts["workspace"] = lambda: calls._workspace("torch", x, 0, ws_bytes, s, True)
        parts["workspace, stream context"] = lambda: calls._workspace("torch", x, 0, ws_bytes, s, False)
    for name, fn in parts.items():
        med, lo = host_us(fn)
        print(f"{str(list(shape)):18} {plan.choice.kernel:12} {name:28} median {med:6.1f} us  min {lo:6.1f}",
              flush=True)
    x = out = ws = None
