"""rowRelay's finishing passes in the reverse order of their partial passes (run from this folder as
`PYTHONPATH=../../../../src python3 probe.py`). In order, every chunk is read again a row and the
slack after its first read, all equally far back in the L2's history; reversed ("zig-zag": odd rows'
partial tasks walk their chunks backwards, and each finishing pass walks its row the other way), a
row's finishing pass starts on the chunks read last. The kernel's ZIG template argument selects it.
Each variant goes through the public API with its plan forced, its output (poisoned first) is
checked against a float64 reference in the first round, then timed beside a device-to-device copy of
the same bytes (../meet-tree/probe.py's measure); the variants of a case alternate for two rounds.
"api" is the dispatch's own plan (in order, plans.relay_slack)."""
import dataclasses
import sys
from pathlib import Path

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "meet-tree"))
from probe import columns, measure  # noqa: E402

MiB = 1 << 20
CASES = [((64, 4194304), "float32", "fwd"), ((64, 4194304), "bfloat16", "fwd"),
         ((256, 1048576), "float32", "fwd"), ((64, 2097152), "float32", "bwd"),
         ((1024, 131072), "bfloat16", "bwd"), ((4096, 262144), "float32", "bwd"),
         ((1024, 131072), "float32", "fwd")]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
SLACKS = [0, 1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB]


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':18} {'dtype':9} {'op':4} {'kernel':34} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}", flush=True)
    for shape, d, op in CASES:
        N, L = shape
        x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
        g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d]) if op == "bwd" else None
        if op == "bwd":
            x = torch.softmax(x.float(), -1).to(DT[d])  # a gradient's y is a softmax
        p = plans.Problem(N, L, 1, d, "backward" if op == "bwd" else "forward", False)
        out = torch.empty_like(x)
        chosen = plans.choose(p).kernel
        if op == "bwd":
            def call():
                return bwlab.softmax_backward(x, g, dim=-1, out=out)
        else:
            def call():
                return bwlab.softmax(x, -1, out=out)
        moved = (3 if op == "bwd" else 2) * x.numel() * x.element_size()
        todo = [("api " + chosen, None)]
        for s in SLACKS:
            c = plans.row_relay(p, slack=s)
            zig = dataclasses.replace(c, expression=c.expression.replace(" >", ",true>"))
            todo.append((f"zig slack {s // MiB}M", zig))
        for rnd in (1, 2):
            for label, c in todo:
                calls._plans.clear()
                if c is not None:
                    calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, 1, 0))
                bad, ms, copy = measure(call, out, x, g, -1, op, moved, check=rnd == 1)
                assert list(calls._plans) == [(p, 0)], "the plan ran was not the one cached"
                print(f"{str(list(shape)):18} {d:9} {op:4} {label + f' #{rnd}':34} " + columns(bad, ms, copy, moved),
                      flush=True)
            calls._plans.clear()
        x = g = out = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
