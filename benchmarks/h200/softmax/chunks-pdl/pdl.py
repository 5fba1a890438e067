"""colsChunks with its merge and write launched as programmatic dependents (their blocks start as the
launch before drains, and wait for it on the GPU) against plain launches, alternately, ROUNDS rounds
(events around batches of 4 calls, the median of 15), beside a copy of the same bytes and, for the
cases the API runs on colsChunks, torch.compile. The two forms run the same kernels: their outputs
must be bit-identical (checked first, on inputs of sigma 3), and the API's output equal to theirs.
From this folder: PYTHONPATH=../../../../src python3 pdl.py"""
import statistics
import sys
from pathlib import Path

import torch

import bwlab
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sweeps"))
from sweep import timed  # noqa: E402

DT = {"bfloat16": torch.bfloat16, "float32": torch.float32}
# (dtype, op, log, shape): the API's colsChunks cases first, then colsChunks forced where the API
# takes another kernel, and smaller calls, where a launch's latency weighs more
CASES = [("bfloat16", "backward", False, (4, 32768, 1024)), ("bfloat16", "backward", True, (4, 32768, 1024)),
         ("float32", "backward", False, (4, 32768, 1024)), ("bfloat16", "forward", False, (4, 32768, 1024)),
         ("float32", "forward", False, (1, 32768, 4096)), ("bfloat16", "backward", False, (2, 40000, 1032)),
         ("bfloat16", "backward", False, (1, 16384, 1024))]
ROUNDS = 3


def main():
    print(f"{'dtype':8s} {'op':11s} {'shape':17s} {'API kernel':12s} {'same':>4s} {'plain %copy':>11s} "
          f"{'dependent':>9s} {'plain us':>8s} {'dep us':>7s} {'compile us':>10s}  rounds plain | dependent")
    for dt, op, log, shape in CASES:
        N, L, M = shape
        p = plans.Problem(N, L, M, dt, op, log)
        c = plans.cols_chunks(p)
        g = torch.Generator(device="cuda").manual_seed(3)
        x = (3 * torch.randn(shape, device="cuda", generator=g)).to(DT[dt])
        if op == "backward":
            a = (torch.log_softmax if log else torch.softmax)(x.float(), 1).to(DT[dt])
            b = torch.randn(shape, device="cuda", generator=g).to(DT[dt])
            api = lambda out: bwlab.softmax_backward(a, b, 1, log=log, out=out)  # noqa: E731
            f = torch.ops.aten._log_softmax_backward_data if log else torch.ops.aten._softmax_backward_data
            peer = torch.compile(lambda y, d: f(d, y, 1, DT[dt]), dynamic=False)
            peer_call = lambda: peer(a, b)  # noqa: E731
        else:
            a, b = x, None
            api = lambda out: bwlab.softmax(a, 1, log=log, out=out)  # noqa: E731
            peer = torch.compile(lambda v: torch.softmax(v, 1), dynamic=False)
            peer_call = lambda: peer(a)  # noqa: E731
        kern = bwlab.explain_softmax(a, dim=1, backward=op == "backward").split(" (")[0]
        forms = {"plain": runner(c, N, L, M, 0, dependent=False), "dependent": runner(c, N, L, M, 0, dependent=True)}
        ws = torch.empty(c.workspace_bytes, dtype=torch.uint8, device="cuda")
        s = torch.cuda.current_stream().cuda_stream
        bp = b.data_ptr() if b is not None else 0
        outs = {}
        for k, run in forms.items():
            outs[k] = torch.full_like(a, float("nan"))
            ws.fill_(0xFF)
            run(a.data_ptr(), bp, outs[k].data_ptr(), ws.data_ptr(), s)
        want = torch.full_like(a, float("nan"))
        api(want)
        torch.cuda.synchronize()
        same = torch.equal(outs["plain"].view(torch.int16 if dt == "bfloat16" else torch.int32),
                           outs["dependent"].view(torch.int16 if dt == "bfloat16" else torch.int32))
        if kern == "colsChunks":
            same = same and torch.equal(outs["plain"], want)
        n = a.numel() * a.element_size()
        moved = (3 if b is not None else 2) * n
        src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        out = outs["plain"]
        ms = {k: [] for k in forms}
        cms = []
        for _ in range(ROUNDS):
            for k, run in forms.items():
                ms[k].append(timed(lambda: run(a.data_ptr(), bp, out.data_ptr(), ws.data_ptr(), s), reps=15, batch=4))
            cms.append(timed(lambda: dst.copy_(src), reps=15, batch=4))
        cp = timed(peer_call, reps=15, batch=4) if kern == "colsChunks" else float("nan")
        c_ms = statistics.median(cms)
        pct = {k: [100 * c_ms / v for v in ms[k]] for k in ms}
        us = {k: 1000 * statistics.median(v) for k, v in ms.items()}
        name = op + (" log" if log else "")
        print(f"{dt:8s} {name:11s} {str(list(shape)):17s} {kern:12s} {'yes' if same else 'NO':>4s} "
              f"{statistics.mean(pct['plain']):11.1f} {statistics.mean(pct['dependent']):9.1f} {us['plain']:8.1f} "
              f"{us['dependent']:7.1f} {1000 * cp:10.1f}  "
              + " ".join(f"{v:.1f}" for v in pct["plain"]) + " | " + " ".join(f"{v:.1f}" for v in pct["dependent"]),
              flush=True)
        outs.clear()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
