"""rowRelay with L2 eviction hints (run from this folder as `PYTHONPATH=../../../../src python3
probe.py`). rowRelay reads each chunk twice, the second time meant to come from L2; its stores were
plain, so the output it writes competes with the chunks awaiting their second read for the L2. The
kernel's HINT template argument (bits): 1 evict-first (streaming) stores, 2 the second read
evict-first (.cs), 4 the first read under an evict_last L2 policy, 8 the second read under an
evict_first L2 policy. Each variant goes through the public API with its plan forced, its output
(poisoned first) is checked against a float64 reference in the first round, then timed beside a
device-to-device copy of the same bytes (../meet-tree/probe.py's measure); the variants of a case
alternate for two rounds. "api" is the dispatch's own plan. `probe.py slack`: hint 3 at several
slacks; `probe.py stream`: rowStream and rowTeam (the dispatch's plans) with evict-first stores,
three rounds; `probe.py sweep`: rowSweep against rowRelay with hint 3."""
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
         ((64, 4194304), "float32", "log"), ((256, 1048576), "float32", "fwd"),
         ((4096, 262144), "float32", "fwd"), ((4096, 262144), "float32", "bwd"),
         ((1024, 131072), "bfloat16", "bwd"), ((64, 2097152), "float32", "bwd")]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
HINTS = ["api", 0, 1, 3, 5, 7, 13]
# `probe.py slack`: hint 3 (streaming stores, evict-first second read) at several slacks
SLACK_CASES = [((64, 4194304), "float32", "fwd"), ((64, 4194304), "bfloat16", "fwd"),
               ((256, 1048576), "float32", "fwd"), ((64, 2097152), "float32", "bwd"),
               ((1024, 131072), "bfloat16", "bwd"), ((1024, 131072), "float32", "bwd")]
SLACKS = [0, 4 * MiB, 8 * MiB, 16 * MiB]
# `probe.py stream`: the rows that rowStream and rowTeam hold on chip, with evict-first stores (CS)
STREAM_CASES = [((4096, 262144), "float32", "fwd"), ((4096, 262144), "bfloat16", "fwd"),
                ((4096, 262144), "float32", "log"), ((1024, 131072), "float32", "fwd"),
                ((1024, 131072), "bfloat16", "fwd"), ((1024, 131072), "bfloat16", "log")]


# `probe.py sweep`: rowSweep (both reads on a resident grid, the second by the same block a row later)
SWEEP_CASES = [((64, 4194304), "float32", "fwd"), ((64, 4194304), "bfloat16", "fwd"),
               ((64, 4194304), "float32", "log"), ((256, 1048576), "float32", "fwd"),
               ((4096, 262144), "float32", "fwd"), ((64, 2097152), "float32", "bwd"),
               ((1024, 131072), "bfloat16", "bwd"), ((1024, 131072), "float32", "bwd")]


def sweep(p, K=8, hint=3, threads=256):
    from bwlab.core import launch as core_launch
    from bwlab.workloads.softmax.launch import _function
    c = plans.row_sweep(p, threads=threads, K=K, hint=hint)
    held = core_launch.resident_blocks(_function(c.source, c.expression, 0, 0), threads, 0, 0)
    return plans.row_sweep(p, held=held, threads=threads, K=K, hint=hint)


def forced(p, hint, slack=None):
    c = plans.row_relay(p, slack=slack)
    return dataclasses.replace(c, expression=c.expression.replace(" >", f",{hint}>"))


def variants(mode, p):
    """(label, choice or None for the dispatch's own plan) of one case."""
    if mode == "slack":
        return [("api", None)] + [(f"hint 3 slack {s // MiB}M", forced(p, 3, s)) for s in SLACKS]
    if mode == "sweep":
        out = [("api", None), ("rowRelay hint 3", forced(p, 3))]
        for K, hint in ((8, 3), (8, 0), (4, 3)):
            c = sweep(p, K, hint)
            out.append((f"sweep K{K} h{hint} T{c.chunks} G{c.extra[0]}", c))
        return out
    if mode == "stream":
        c = plans.choose(p)
        cs = dataclasses.replace(c, expression=c.expression.replace(" >", ",true>"))
        return [("api", None), (f"{c.kernel} CS", cs)]
    return [("api", None)] + [(f"rowRelay hint {h}", forced(p, h)) for h in HINTS[1:]]


def main(mode="hints"):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':18} {'dtype':9} {'op':4} {'kernel':34} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}", flush=True)
    for shape, d, op in {"slack": SLACK_CASES, "stream": STREAM_CASES, "sweep": SWEEP_CASES}.get(mode, CASES):
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
        todo = variants(mode, p)
        for rnd in (1, 2, 3) if mode == "stream" else (1, 2):
            for label, c in todo:
                calls._plans.clear()
                if c is None:
                    label = f"api {chosen}"
                else:
                    calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, 1, 0))
                bad, ms, copy = measure(call, out, x, g, -1, op, moved, check=rnd == 1)
                assert list(calls._plans) == [(p, 0)], "the plan ran was not the one cached"
                print(f"{str(list(shape)):18} {d:9} {op:4} {label + f' #{rnd}':34} " + columns(bad, ms, copy, moved),
                      flush=True)
            calls._plans.clear()
        x = g = out = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(*sys.argv[1:2])
