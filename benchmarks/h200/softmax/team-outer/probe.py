"""colsTeam with rows read twice (the kernel's HOLD): a block holds 64 KiB of its share of a strip on
chip, as the dispatch's teams do, and folds the rest of its share straight from global memory, reading
it again from the L2 at the write; so a team needs fewer blocks, more teams run at once, and a round of
meetings covers more strips. `python3 probe.py [ROUNDS]` from this folder with PYTHONPATH at the tree's
src: for each strided case, the dispatch ("base") and colsTeam with HOLD at team sizes T whose teams
take whole rounds of strips (about 0.3, 0.8, 1.1 and 1.7 times the held rows read twice), in turn,
ROUNDS rounds (3); round 1 compiles every kernel first (registers and spills printed) and checks each
output, poisoned, against float64 (bad = 0 wanted; -1: not checked). Each call timed beside a copy of
the same bytes (../meet-tree/probe.py's against_copy: events around batches of 8 calls, the median)."""
import sys

import torch

import bwlab
from bwlab.core import build
from bwlab.core import launch as core_launch
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import _function, runner

sys.path.insert(0, "../team-pipe")
sys.path.insert(0, "../meet-tree")
from cases import problem  # noqa: E402
from probe import DT, against_copy, bad_count, columns  # noqa: E402

CASES = [(s, dim, d, op) for s, dim in [((4, 32768, 1024), 1), ((8, 16384, 1024), 1), ((32768, 4096), 0),
                                        ((16, 8192, 1024), 1), ((8192, 8192), 0)]
         for d in ("bfloat16", "float32") for op in ("fwd", "log")]
FRACTIONS = (0.33, 0.8, 1.1, 1.7)  # rows read twice, per row held on chip (targets)


def held_rows(p):
    return plans.TEAM_FORWARD_STRIP // plans.team_width(p)


def variants(p, held):
    """[(label, Choice)]: the dispatch, then HOLD at the team sizes nearest each fraction whose teams
    take whole rounds of strips (within 4%; the nearest to the target within 25% of it)."""
    out = [("base", plans.choose(p, held=held))]
    W = plans.team_width(p)
    if W < 128:
        return out
    hold, cols = held_rows(p), W // plans.ITEMSIZE[p.dtype]
    strips = plans.strips(p, cols)
    seen = set()
    for f in FRACTIONS:
        want = p.L / (hold * (1 + f))
        best = None
        for T in range(max(1, int(want * 0.75)), int(want * 1.25) + 2):
            G = min(strips, held // T)
            if G < 1 or plans.cdiv(p.L, T) <= hold:
                continue
            waste = plans.cdiv(strips, G) * G / strips - 1
            key = (waste > 0.04, abs(T - want))  # whole rounds within 4%, then the nearest
            if best is None or key < best[0]:
                best = (key, T)
        if best is None or best[1] in seen:
            continue
        T = best[1]
        seen.add(T)
        c = plans.cols_team(p, held, T=T, outer=True)
        if c is not None:
            lc = plans.cdiv(p.L, T)
            out.append((f"T{T}f{(lc - hold) / hold:.2f}", c))
    return out


def resident(c):
    fn = _function(c.source, c.expression, c.smem, 0)
    return core_launch.resident_blocks(fn, c.block[0], c.smem, 0)


def main(rounds=3):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    base_held = {}
    plan_sets = []
    for s, dim, d, op in CASES:
        p = problem(s, dim, d, op)
        held = calls.team_blocks(p, 0) if plans.team_wanted(p) else 0
        held = held or calls.team_blocks(p, 0)
        base_held[(s, dim, d, op)] = held
        plan_sets.append(((s, dim, d, op), p, variants(p, held)))
    ex = {}
    for _, _, vs in plan_sets:
        for _, c in vs:
            ex.setdefault(c.source, set()).add(c.expression)
    for src, es in ex.items():
        b = build.compile_each(src, sorted(es), "sm_90", jobs=16)
        for e in sorted(es):
            print(f"# {b.resources[e].registers:4} regs {b.resources[e].spill_stores:3} spill {e}", flush=True)
    for (s, dim, d, op), p, vs in plan_sets:
        for label, c in vs:
            if c.cooperative and resident(c) < c.grid[0]:
                print(f"# {s} {d} {op} {label}: {c.grid[0]} blocks, the GPU holds {resident(c)}", flush=True)
    print(f"{'rnd':3} {'case':22} {'dtype':9} {'op':4} {'variant':12} {'kernel':11} {'T':>3} {'G':>3} "
          f"{'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}", flush=True)
    for rnd in range(1, rounds + 1):
        for (s, dim, d, op), p, vs in plan_sets:
            x = (torch.randn(*s, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            moved = 2 * x.numel() * x.element_size()
            for label, c in vs:
                calls._plans[(p, 0)] = calls.Plan(c, runner(c, p.N, p.L, p.M, 0))
                fn = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                out.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                bad = bad_count(out, x, None, dim, op) if rnd == 1 else -1
                ms, copy = against_copy(fn, moved)
                T = c.chunks if c.kernel == "colsTeam" else 0
                G = c.extra[0] if c.kernel == "colsTeam" else 0
                print(f"r{rnd:<2} {str(list(s)) + ' d' + str(dim):22} {d:9} {op:4} {label:12} {c.kernel:11} {T:3} {G:3} "
                      + columns(bad, ms, copy, moved), flush=True)
            calls._plans.pop((p, 0), None)
            x = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
