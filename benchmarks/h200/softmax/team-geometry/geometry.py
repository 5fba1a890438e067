"""16-bit rows on rowTeam: its block geometry: 512 threads of 8 packs (64 KiB a block, 3 blocks an
SM: the dispatch) against 384 threads of 9 packs (54 KiB, 4 blocks an SM; float32 spills 8 bytes
there, so is left out), whose teams are smaller pieces of the GPU, so that rows divide over them
more evenly (bfloat16 [1024, 131072]: 99 teams of 4 blocks take 10.34 rows each, so 11 rounds; 105
teams of 5 take 9.75, so 10). The public API with each geometry forced into its
plan cache, every output checked first (../stored-terms/probe.py's bad_count on its three inputs), then
timed alternately, ROUNDS rounds, beside a copy of the same bytes. From this folder:
PYTHONPATH=../../../../src python3 geometry.py"""
import math
import statistics
import sys
from pathlib import Path

import torch

import bwlab
from bwlab.core import launch as core_launch
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import _function, runner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "stored-terms"))
from probe import DT, bad_count, inputs, timed  # noqa: E402

# (dtype, rows, length, log); geometries (threads, packs a thread, groups)
CASES = [("bfloat16", 1024, 131072, False), ("bfloat16", 1024, 131072, True), ("float16", 1024, 131072, False),
         ("bfloat16", 1500, 131072, False), ("bfloat16", 4096, 262144, False), ("bfloat16", 4096, 262144, True)]
GEOMETRIES = [(512, 8, 4), (384, 9, 3)]
ROUNDS = 3


def held(c):
    fn = _function(c.source, c.expression, c.smem, 0)
    return core_launch.resident_blocks(fn, c.block[0], c.smem, 0)


def main():
    print(f"{'dtype':8s} {'rows x length':16s} {'log':5s} {'geometry':10s} {'team':>4s} {'teams':>5s} "
          f"{'rows a team':>11s} {'rounds x teams':>14s} {'bad':>9s} {'%copy':>6s}  rounds")
    for dt, n, length, log in CASES:
        p = plans.Problem(n, length, 1, dt, "forward", log)
        forms = {}
        for t, k, s in GEOMETRIES:
            probe = plans.row_team(p, 0, threads=t, K=k, S=s)
            c = plans.row_team(p, held(probe), threads=t, K=k, S=s)
            forms[(t, k, s)] = (c, calls.Plan(c, runner(c, n, length, 1, 0)))
        bad = {}
        for g, (c, plan) in forms.items():
            calls._plans[(p, 0)] = plan
            b = []
            for x in inputs((n, length), -1, DT[dt]):
                out = torch.full_like(x, float("nan"))
                bwlab.softmax(x, -1, log=log, out=out)
                torch.cuda.synchronize()
                b.append(bad_count(out, x, -1, log))
            bad[g] = b
        x = torch.randn(n, length, device="cuda").to(DT[dt])
        out = torch.empty_like(x)
        moved = 2 * x.numel() * x.element_size()
        src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        ms = {g: [] for g in forms}
        cms = []
        for _ in range(ROUNDS):
            for g, (c, plan) in forms.items():
                calls._plans[(p, 0)] = plan
                ms[g].append(timed(lambda: bwlab.softmax(x, -1, log=log, out=out), reps=9, batch=8))
            cms.append(timed(lambda: dst.copy_(src), reps=9, batch=8))
        cm = statistics.median(cms)
        for g, (c, _) in forms.items():
            G, T = c.extra[0], c.chunks
            pct = [100 * cm / v for v in ms[g]]
            print(f"{dt:8s} {f'{n} x {length}':16s} {str(log):5s} {str(g):10s} {T:4d} {G:5d} {n / G:11.2f} "
                  f"{math.ceil(n / G) * G:14d} {str(bad[g]):>9s} {statistics.mean(pct):6.1f}  "
                  + " ".join(f"{v:.1f}" for v in pct), flush=True)
        calls._plans.clear()
        del x, out, src, dst
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
