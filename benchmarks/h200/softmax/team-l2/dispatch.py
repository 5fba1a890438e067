"""Where teams run out of phase, do they beat the dispatch outside the axes it gives them? Each case
runs through the public API (the dispatch's kernel) and on colsTeam forced (plans.cols_team with the
GPU's resident blocks), each output poisoned and checked against float64 in the first round, timed
beside a copy of the same bytes (../meet-tree/probe.py's measure), two rounds:
`PYTHONPATH=../../../../src python3 dispatch.py` (from this folder)."""
import sys

import torch

import bwlab
from bwlab.core import launch as core_launch
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import _function, runner

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

FWD = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((32, 4096, 1024), 1)]
BWD16 = [((4, 32768, 1024), 1), ((32768, 4096), 0), ((32, 4096, 1024), 1)]
CASES = ([(s, d, op, dt) for s, d in FWD for op in ("fwd", "log") for dt in DT]
         + [(s, d, "bwd", "bfloat16") for s, d in BWD16])


def forced(p):
    c = plans.cols_team(p)
    fn = _function(c.source, c.expression, c.smem, 0, c.cluster)
    held = core_launch.resident_blocks(fn, c.block[0], c.smem, 0)
    c = plans.cols_team(p, held)
    if c is None:
        return None, None
    ws = torch.empty(max(1, c.workspace_bytes), dtype=torch.uint8, device="cuda")
    run = runner(c, p.N, p.L, p.M, 0)
    s = torch.cuda.current_stream().cuda_stream
    return c, lambda a, b, y: (lambda: run(a.data_ptr(), b.data_ptr() if b is not None else 0, y.data_ptr(),
                                           ws.data_ptr(), s))


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for rnd in (1, 2):
        for shape, dim, op, d in CASES:
            N = 1
            for n in shape[:dim]:
                N *= n
            M = 1
            for m in shape[dim + 1:]:
                M *= m
            p = plans.Problem(N, shape[dim], M, d, "backward" if op == "bwd" else "forward", op == "log")
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            if op == "bwd":
                y = torch.softmax(x.float(), dim).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                api = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
                kern = bwlab.explain_softmax(y, dim, backward=True)
            else:
                y, g = x, None
                api = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                kern = bwlab.explain_softmax(x, dim, log=op == "log")
            moved = x.numel() * x.element_size() * (3 if op == "bwd" else 2)
            c, mk = forced(p)
            runs = [(f"api {kern.split(' ')[0]}", api)]
            if c is not None:
                runs.append((f"team T{c.chunks} G{c.extra[0]}", mk(y, g, out)))
            for label, fn in runs:
                bad, ms, copy = measure(fn, out, y, g, dim, op, moved, rnd == 1)
                print(f"r{rnd} {str(list(shape)):18} {d:9} {op} {label:22} " + columns(bad, ms, copy, moved),
                      flush=True)
            x = y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
