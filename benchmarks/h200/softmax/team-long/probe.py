"""rowTeam on rows that take the whole GPU (run from this folder as `PYTHONPATH=../../../../src
python3 probe.py`). A team of T blocks holds a row in shared memory, one row read once from DRAM;
its blocks meet through global memory. Two changes are timed: a team of more than 32 blocks merges
its states with every thread loading one (all loads in flight), and P packs a thread of the team's
next row are loaded into registers before the meeting, so DRAM keeps reading while the team waits
on its slowest block. Each variant goes through the public API with its plan forced; its output
(poisoned first) is checked against a float64 reference in the first round, then timed beside a
device-to-device copy of the same bytes (../meet-tree/probe.py's measure); the variants of a case
alternate for two rounds. "api" is the dispatch's own plan. Labels: T threads a block, K packs a
thread (16 bytes each), P packs prefetched, then the team's blocks and the teams (G). Modes (the
argument): meet, the meeting with and without a count and fence; pair, rowPair; hold, rowHold; sleep,
the poll's sleep. Runs on the tree of probe-tree.patch (COMMAND)."""
import dataclasses
import sys
from pathlib import Path

import torch

import bwlab
from bwlab.core import launch as core_launch
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import _function, runner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "meet-tree"))
from probe import columns, measure  # noqa: E402

DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
F32 = [(512, 8, 0), (512, 16, 0), (512, 16, 8), (1024, 8, 0), (1024, 8, 4)]
BEST = [(512, 16, 8), (1024, 8, 4)]
CASES = [((64, 4194304), "float32", "fwd", F32), ((64, 4194304), "float32", "log", BEST),
         ((64, 4194304), "bfloat16", "fwd", [(512, 8, 0), (512, 16, 8), (1024, 8, 4), (512, 8, 4)]),
         ((128, 2097152), "float32", "fwd", BEST), ((256, 1048576), "float32", "fwd", BEST),
         ((4096, 262144), "float32", "fwd", [])]
# `probe.py meet`: the meeting as a count released by thread 0 (M0; with P > 0, warp 0 prefetches
# nothing, so its release waits on no loads) or as tagged states, one relaxed 64-bit store a block,
# polled by every thread with no count and no fence (M1); (T, K, P, M)
MEET = [((64, 4194304), "float32", "fwd", [(1024, 8, 0, 0), (1024, 8, 4, 0), (1024, 8, 0, 1), (1024, 8, 4, 1),
                                            (512, 16, 8, 1)]),
        ((64, 4194304), "bfloat16", "fwd", [(512, 8, 0, 0), (512, 8, 0, 1), (512, 8, 4, 1), (1024, 8, 4, 1)]),
        ((256, 1048576), "float32", "fwd", [(1024, 8, 4, 1), (512, 8, 0, 1)]),
        ((4096, 262144), "float32", "fwd", [(512, 8, 0, 1)]),
        ((1024, 131072), "float32", "fwd", [(512, 8, 0, 1)])]

# `probe.py pair`: rowPair (two rows a block on chip, the meeting deferred by a row); (T, K, S)
PAIR_GEOMS = [(512, 8, 4), (512, 4, 4), (1024, 4, 4), (256, 8, 2)]
PAIR = [((64, 4194304), "bfloat16", "fwd"), ((64, 4194304), "bfloat16", "log"), ((128, 2097152), "float32", "fwd"),
        ((256, 1048576), "float32", "fwd"), ((256, 1048576), "float32", "log"), ((4096, 262144), "float32", "fwd"),
        ((4096, 262144), "bfloat16", "fwd"), ((1024, 131072), "float32", "fwd"), ((1024, 131072), "bfloat16", "fwd"),
        ((64, 4194304), "float32", "fwd")]

# `probe.py hold`: rowHold (chunks held in shared memory until their row is known, tickets in order on
# a resident grid); (T, K, S)
HOLD_GEOMS = [(256, 8, 4), (512, 8, 4), (256, 4, 4), (128, 8, 4)]
HOLD = [((64, 4194304), "float32", "fwd"), ((64, 4194304), "float32", "log"), ((64, 4194304), "bfloat16", "fwd"),
        ((128, 2097152), "float32", "fwd"), ((256, 1048576), "float32", "fwd"), ((4096, 262144), "float32", "fwd"),
        ((4096, 262144), "bfloat16", "fwd"), ((1024, 131072), "bfloat16", "fwd"), ((64, 2097152), "float32", "bwd"),
        ((1024, 131072), "bfloat16", "bwd"), ((1024, 131072), "float32", "bwd")]

# `probe.py sleep`: how long a waiting block sleeps between polls of its row's count (ns): rowHold
# (T, K, S, sleep) and rowTeam (T, K, P, M0, sleep)
SLEEP = [((64, 4194304), "float32", "fwd"), ((64, 4194304), "bfloat16", "fwd"), ((256, 1048576), "float32", "fwd")]
SLEEP_GEOMS = [("hold", 512, 8, 4, 256), ("hold", 512, 8, 4, 1024), ("hold", 512, 8, 4, 4096),
               ("hold", 256, 8, 4, 1024), ("team", 1024, 8, 4, 0, 64), ("team", 1024, 8, 4, 0, 1024)]


def slept(c, sleep):
    """c with its poll's sleep as the kernel's last template argument."""
    e = c.expression.rstrip()[:-1].rstrip()  # the closing ">" alone
    return dataclasses.replace(c, expression=f"{e},{sleep}>")


def hold(p, T, K, S):
    """rowHold on as many blocks as the GPU holds at once (None where that is less than a row's chunks)."""
    c = plans.row_hold(p, threads=T, K=K, S=S)
    if c is None:
        return None
    held = core_launch.resident_blocks(_function(c.source, c.expression, c.smem, 0), T, c.smem, 0)
    return plans.row_hold(p, held, threads=T, K=K, S=S)


def pair(p, T, K, S):
    """rowPair with as many teams as the GPU holds at once (None where it holds less than one)."""
    c = plans.row_pair(p, threads=T, K=K, S=S)
    if c is None:
        return None
    held = core_launch.resident_blocks(_function(c.source, c.expression, c.smem, 0), T, c.smem, 0)
    return plans.row_pair(p, held, threads=T, K=K, S=S)


def team(p, T, K, P, M=None):
    """rowTeam with as many teams as the GPU holds at once (None where it holds less than one)."""
    def made(held):
        c = plans.row_team(p, held, threads=T, K=K, P=P)
        if c is None or M is None:
            return c
        # M1's states are polled until written: the whole workspace is zeroed before the launch
        return dataclasses.replace(c, expression=c.expression[:-1] + f",{M}>", zeroed=c.workspace_bytes)
    c = made(0)
    if c is None:
        return None
    held = core_launch.resident_blocks(_function(c.source, c.expression, c.smem, 0), T, c.smem, 0)
    return made(held)


def main(mode=None):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':18} {'dtype':9} {'op':4} {'kernel':34} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}", flush=True)
    cases = {"meet": MEET, "pair": [c + (PAIR_GEOMS,) for c in PAIR],
             "hold": [c + (HOLD_GEOMS,) for c in HOLD], "sleep": [c + (SLEEP_GEOMS,) for c in SLEEP]}.get(mode, CASES)
    for shape, d, op, geoms in cases:
        N, L = shape
        x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
        g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d]) if op == "bwd" else None
        if op == "bwd":
            x = torch.softmax(x.float(), -1).to(DT[d])  # a gradient's y is a softmax
        log = op == "log"
        p = plans.Problem(N, L, 1, d, "backward" if op == "bwd" else "forward", log)
        out = torch.empty_like(x)
        chosen = plans.choose(p).kernel

        def call():
            if op == "bwd":
                return bwlab.softmax_backward(x, g, dim=-1, out=out)
            return bwlab.softmax(x, -1, log=log, out=out)
        moved = (3 if op == "bwd" else 2) * x.numel() * x.element_size()
        todo = [("api", None)]
        for geom in geoms:
            if mode == "pair":
                c = pair(p, *geom)
                if c is not None:
                    todo.append((f"rowPair T{geom[0]} K{geom[1]} S{geom[2]} {c.chunks}x{c.extra[0]}", c))
                continue
            if mode == "sleep":
                kind, *geom = geom
                if kind == "hold":
                    c = hold(p, *geom[:3])
                    label = f"rowHold T{geom[0]} K{geom[1]} S{geom[2]} sleep {geom[3]}"
                else:
                    c = team(p, *geom[:4])
                    label = f"rowTeam T{geom[0]} K{geom[1]} P{geom[2]} M0 sleep {geom[4]}"
                if c is not None:
                    todo.append((label, slept(c, geom[-1])))
                continue
            if mode == "hold":
                c = hold(p, *geom)
                if c is not None:
                    todo.append((f"rowHold T{geom[0]} K{geom[1]} S{geom[2]} {c.chunks}c {c.grid[0]}b", c))
                continue
            c = team(p, *geom)
            if c is not None:
                todo.append((f"T{geom[0]} K{geom[1]} P{geom[2]}" + (f" M{geom[3]}" if len(geom) > 3 else "")
                             + f" {c.chunks}x{c.extra[0]}", c))
        for rnd in (1, 2):
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
