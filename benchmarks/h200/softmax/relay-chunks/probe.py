"""rowRelay's two schedules on long last-axis rows (run from this folder as
`PYTHONPATH=../../../../src python3 probe.py`): in steps of a row (a row's partial tasks, then
the finishing tasks of the row `lag` rows back, as built) and chunk by chunk (each chunk's partial
task, then the finishing task of the chunk a row and `slack` bytes back). In steps, the L2 must
keep the chunks of two rows (the one awaiting its finishing tasks and the one being read) plus the
dead ones just re-read; chunk by chunk, one row and the slack. Each variant goes through the
public API with its plan forced, its output (poisoned first) is checked against a float64
reference, then timed beside a device-to-device copy of the same bytes (../meet-tree/probe.py's
measure); the variants of a case alternate for two rounds. This is the probe as it ran, on a tree
whose kernel had both schedules (a negative lag meant chunk by chunk). The committed kernel has only
the chunk-by-chunk one: there, slack None is the dispatch's slack (plans.relay_slack), not steps."""
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
         ((64, 4194304), "float32", "log"), ((1024, 131072), "float32", "bwd"),
         ((1024, 131072), "bfloat16", "bwd"), ((4096, 262144), "float32", "bwd"),
         ((4096, 262144), "bfloat16", "bwd"), ((64, 2097152), "float32", "bwd")]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
SLACKS = [None, 0, 2 * MiB, 8 * MiB]
# `probe.py more`: more slacks on the longest rows, the dispatch ("api": rowSplit) on gradients of rows
# over the 8 MiB of inputs that rowRelay takes, and rows of 4 MiB
MORE = [(((64, 4194304), "float32", "fwd"), [None, 4 * MiB, 8 * MiB, 12 * MiB, 16 * MiB, 24 * MiB]),
        (((64, 4194304), "bfloat16", "fwd"), [None, 4 * MiB, 8 * MiB, 12 * MiB, 16 * MiB, 24 * MiB]),
        (((64, 2097152), "float32", "bwd"), ["api", None, 0, 1 * MiB, 4 * MiB, 8 * MiB]),
        (((32, 4194304), "bfloat16", "bwd"), ["api", None, 0, 4 * MiB, 8 * MiB]),
        (((256, 1048576), "float32", "fwd"), ["api", None, 0, 4 * MiB, 8 * MiB])]


def main(more=False):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':18} {'dtype':9} {'op':4} {'kernel':34} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}", flush=True)
    for (shape, d, op), slacks in (MORE if more else [(c, SLACKS) for c in CASES]):
        N, L = shape
        x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
        g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d]) if op == "bwd" else None
        if op == "bwd":
            x = torch.softmax(x.float(), -1).to(DT[d])  # a gradient's y is a softmax
        log = op == "log"
        p = plans.Problem(N, L, 1, d, "backward" if op == "bwd" else "forward", log)
        out = torch.empty_like(x)
        chosen = plans.choose(p).kernel
        if op == "bwd":
            def call():
                return bwlab.softmax_backward(x, g, dim=-1, out=out)
        else:
            def call():
                return bwlab.softmax(x, -1, log=log, out=out)
        moved = (3 if op == "bwd" else 2) * x.numel() * x.element_size()
        for rnd in (1, 2):
            for slack in slacks:
                calls._plans.clear()
                if slack == "api":
                    label = f"api {chosen}"
                else:
                    c = plans.row_relay(p, slack=slack)
                    calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, 1, 0))
                    label = (f"steps lag {c.extra[0]}" if slack is None
                             else f"chunks slack {slack // MiB}M lead {-c.extra[0]}")
                bad, ms, copy = measure(call, out, x, g, -1, op, moved, check=rnd == 1)
                assert list(calls._plans) == [(p, 0)], "the plan ran was not the one cached"
                print(f"{str(list(shape)):18} {d:9} {op:4} {label + f' #{rnd}':34} " + columns(bad, ms, copy, moved),
                      flush=True)
            calls._plans.clear()
        print(f"{'':18} (the dispatch: {chosen})", flush=True)
        x = g = out = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main("more" in sys.argv[1:])
