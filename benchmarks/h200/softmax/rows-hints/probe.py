"""rowWarp and rowBlock with evict-first accesses, on the last-axis cases that run at the copy roof
(run from this folder as `PYTHONPATH=../../../../src python3 probe.py`). The kernels' HINT template
argument (bits): 1 evict-first (streaming) stores, 2 evict-first loads. Each variant goes through the
public API with the dispatch's plan, its expression given the hint, forced; its output (poisoned
first) is checked against a float64 reference in the first round, then timed beside a
device-to-device copy of the same bytes (../meet-tree/probe.py's measure); the variants of a case
alternate for three rounds. "api" is the dispatch's own plan (hint 0)."""
import dataclasses
import sys
from pathlib import Path

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "meet-tree"))
from probe import columns, measure  # noqa: E402

CASES = [((32768, 4096), "bfloat16", "bwd"), ((32768, 4096), "float32", "bwd"),
         ((131072, 1024), "bfloat16", "fwd"), ((131072, 1024), "float32", "fwd"),
         ((131072, 1024), "bfloat16", "log"), ((4194304, 32), "float32", "fwd"),
         ((4194304, 32), "float32", "log"), ((4194304, 32), "float32", "bwd"),
         ((32768, 4096), "float32", "fwd"), ((32768, 4096), "bfloat16", "fwd")]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':18} {'dtype':9} {'op':4} {'kernel':34} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}", flush=True)
    for shape, d, op in CASES:
        N, L = shape
        x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
        g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d]) if op == "bwd" else None
        if op == "bwd":
            x = torch.softmax(x.float(), -1).to(DT[d])  # a gradient's y is a softmax
        log = op == "log"
        p = plans.Problem(N, L, 1, d, "backward" if op == "bwd" else "forward", log)
        out = torch.empty_like(x)
        c0 = plans.choose(p)
        if op == "bwd":
            def call():
                return bwlab.softmax_backward(x, g, dim=-1, out=out)
        else:
            def call():
                return bwlab.softmax(x, -1, log=log, out=out)
        moved = (3 if op == "bwd" else 2) * x.numel() * x.element_size()
        for rnd in (1, 2, 3):
            for hint in ("api", 1, 2, 3):
                calls._plans.clear()
                if hint != "api":
                    c = dataclasses.replace(c0, expression=c0.expression.replace(" >", f",{hint}>"))
                    calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, 1, 0))
                bad, ms, copy = measure(call, out, x, g, -1, op, moved, check=rnd == 1)
                assert list(calls._plans) == [(p, 0)], "the plan ran was not the one cached"
                label = f"{c0.kernel} " + ("api" if hint == "api" else f"hint {hint}")
                print(f"{str(list(shape)):18} {d:9} {op:4} {label + f' #{rnd}':34} " + columns(bad, ms, copy, moved),
                      flush=True)
            calls._plans.clear()
        x = g = out = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
