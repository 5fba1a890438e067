"""rowTeam's teams a call: as many as the GPU holds (the dispatch) against fewer, whose rows divide
more evenly (1024 rows on 99 teams: 34 teams take an 11th row while the rest wait). The public API with
each geometry forced into its plan cache, every output checked first (probe.py's bad_count: within one
unit in the last place of the float64 reference), then timed alternately, ROUNDS rounds, beside
a copy of the same bytes. From this folder: PYTHONPATH=../../../../src python3 teams.py"""
import statistics

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner, team_blocks
from probe import DT, bad_count
from sweep import timed  # noqa: F401  (probe.py put sweeps/ on the path)

CASES = [("bfloat16", 1024, 131072, False, (0, 94, 86, 79, 64)), ("bfloat16", 1024, 131072, True, (0, 86, 79)),
         ("float16", 1024, 131072, False, (0, 86, 79)), ("bfloat16", 1500, 131072, False, (0, 94, 84, 75))]
ROUNDS = 3


def main():
    print(f"{'dtype':8s} {'rows x length':16s} {'log':5s} {'teams':>5s} {'rows a team':>11s} {'bad':>4s} "
          f"{'%copy':>6s}  rounds")
    for dt, n, length, log, teams in CASES:
        p = plans.Problem(n, length, 1, dt, "forward", log)
        held = team_blocks(p, 0)
        x = torch.randn(n, length, device="cuda").to(DT[dt])
        out = torch.empty_like(x)
        forms = {}
        for g in teams:
            c = plans.row_team(p, held, G=g)
            forms[c.extra[0]] = calls.Plan(c, runner(c, n, length, 1, 0))
        bad = {}
        for g, plan in forms.items():
            calls._plans[(p, 0)] = plan
            out.fill_(float("nan"))
            bwlab.softmax(x, -1, log=log, out=out)
            torch.cuda.synchronize()
            bad[g] = bad_count(out, x, -1, log)
        moved = 2 * x.numel() * x.element_size()
        src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        ms = {g: [] for g in forms}
        cms = []
        for _ in range(ROUNDS):
            for g, plan in forms.items():
                calls._plans[(p, 0)] = plan
                ms[g].append(timed(lambda: bwlab.softmax(x, -1, log=log, out=out), reps=9, batch=8))
            cms.append(timed(lambda: dst.copy_(src), reps=9, batch=8))
        c = statistics.median(cms)
        for g in forms:
            pct = [100 * c / v for v in ms[g]]
            print(f"{dt:8s} {f'{n} x {length}':16s} {str(log):5s} {g:5d} {n / g:11.2f} {bad[g]:4d} "
                  f"{statistics.mean(pct):6.1f}  " + " ".join(f"{v:.1f}" for v in pct), flush=True)
        calls._plans.clear()
        del x, out, src, dst
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
