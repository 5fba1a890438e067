"""Smaller blocks and fewer packs a thread at the copy roof, where torch.compile's kernels (one warp
a bfloat16 row of 1024, blocks of 64 on float32 rows of 32, 512 threads a bfloat16 gradient row of
4096: ../timing/inductor.py) ran 1.5-2.5% ahead of the dispatch's under Nsight Compute (run from
this folder as `PYTHONPATH=../../../../src python3 probe.py`). Each kernel launched directly, its
output (poisoned first) checked against float64, then timed beside a copy of the same bytes
(../meet-tree/probe.py's measure: events around batches of 8 calls, 3 alternating rounds), and
torch.compile the same way; two rounds."""
import dataclasses
import sys

import torch

from bwlab.core import build
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, "../meet-tree")
from probe import against_copy, columns, measure  # noqa: E402

DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
CASES = [((4194304, 32), "float32", "fwd"), ((4194304, 32), "float32", "log"), ((4194304, 32), "bfloat16", "fwd"),
         ((32768, 4096), "bfloat16", "bwd"), ((32768, 4096), "float32", "bwd"), ((131072, 1024), "bfloat16", "fwd")]


def problem(shape, d, op):
    return plans.Problem(shape[0], shape[1], 1, d, "backward" if op == "bwd" else "forward", op == "log")


def block(p, t, K):
    c = plans.row_block(p)
    expr = f"rowBlock<{plans.CTYPE[p.dtype]},{p.vec},{t},{K},{plans.OPS[p.op, p.log]} >"
    return dataclasses.replace(c, kernel="rowBlock", expression=expr, block=(t, 1, 1), grid=(p.N, 1, 1))


def variants(p):
    out = [("dispatch", plans.choose(p))]
    packs = p.L // p.vec
    if p.L == 32:
        K, R = plans.warp_geometry(packs)
        out += [(f"warp K{K} R{R} t{t}", plans.row_warp(p, K, R, t)) for t in (64, 32)]
    elif p.L == 4096:
        out += [(f"block t{packs // k} K{k}", block(p, packs // k, k)) for k in (1, 2, 4)
                if packs // k <= 1024 and (packs // k, k) != (plans.choose(p).block[0],
                                                             int(plans.choose(p).expression.split(",")[3]))]
    else:
        out += [("block t32 K4", block(p, 32, 4))]
    return out


def compiled(op, d):
    dt = DT[d]
    if op == "bwd":
        return torch.compile(lambda y, g: torch.ops.aten._softmax_backward_data(g, y, -1, dt), dynamic=False)
    fn = (lambda x: torch.log_softmax(x, -1)) if op == "log" else (lambda x: torch.softmax(x, -1))
    return torch.compile(fn, dynamic=False)


def main():
    ex = {c.expression for shape, d, op in CASES for _, c in variants(problem(shape, d, op))}
    regs = build.compile_each(plans.SRC["rows"], sorted(ex), "sm_90").resources
    g0 = torch.Generator(device="cuda").manual_seed(0)
    s = torch.cuda.current_stream().cuda_stream
    tcs = {(shape, d, op): compiled(op, d) for shape, d, op in CASES}
    print(f"{'case':16} {'dtype':9} {'op':4} {'rnd':3} {'kernel':40} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}",
          flush=True)
    for rnd in ("r1", "r2"):
        for shape, d, op in CASES:
            p = problem(shape, d, op)
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            if op == "bwd":
                y = torch.softmax(x.float(), -1).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
            else:
                y, g = x, None
            out = torch.empty_like(y)
            moved = y.numel() * y.element_size() * (3 if op == "bwd" else 2)
            name = f"{shape[0]}x{shape[1]}"
            for label, c in variants(p):
                run = runner(c, p.N, p.L, p.M, 0)
                fn = (lambda run=run: run(y.data_ptr(), g.data_ptr() if g is not None else 0, out.data_ptr(), 0, s))
                bad, ms, copy = measure(fn, out, y, g, -1, op, moved)
                tag = f"{label} {c.expression.split('<')[0]} {regs[c.expression].registers}r"
                print(f"{name:16} {d:9} {op:4} {rnd:3} {tag:40} " + columns(bad, ms, copy, moved), flush=True)
            tc = tcs[shape, d, op]
            with torch.no_grad():
                call = (lambda: tc(y, g)) if op == "bwd" else (lambda: tc(x))
                ms, copy = against_copy(call, moved)
            print(f"{name:16} {d:9} {op:4} {rnd:3} {'torch.compile':40} " + columns(-1, ms, copy, moved), flush=True)
            x = y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
