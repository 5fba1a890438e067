"""Long last-axis rows whose count is not a multiple of the rows the GPU holds at once: the
dispatch's kernel beside rowTeam on teams of T blocks a row (T from the fewest that hold a row
up; `least`: the fewest only), as many teams as the GPU holds. Run from this folder as
`PYTHONPATH=../../../../src python3 probe.py [least] [N,L ...]`. Each forced plan's output, poisoned first,
is checked against a float64 reference in round 1, then timed beside a device-to-device copy of
the same bytes (../meet-tree/probe.py's measure); two rounds."""
import sys

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner, team_blocks

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [(1024, 131072), (1024, 262144), (4096, 262144)]


def variants(p, more):
    h = team_blocks(p, 0)  # rowTeam blocks the GPU holds at once, as the dispatch counts them
    least = plans.row_team(p, h).chunks
    out = [("dispatch", None)] + [(f"rowTeam T{T}", plans.row_team(p, h, T=T)) for T in range(least, least + more)]
    return [(label, c) for label, c in out if label == "dispatch" or c is not None]


def main(cases, more=4):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for N, L in cases:
        for d in DT:
            x = (torch.randn(N, L, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            moved = 2 * x.numel() * x.element_size()
            for log in (False, True):
                p = plans.Problem(N, L, 1, d, "forward", log)
                op = "log" if log else "fwd"
                call = lambda: bwlab.softmax(x, -1, log=log, out=out)  # noqa: E731
                for rnd in (1, 2):
                    for label, c in variants(p, more):
                        calls._plans.clear()
                        if c is not None:
                            calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, 1, 0))
                            label += f" {c.grid[0]}b"
                        else:
                            label = "api " + bwlab.explain_softmax(x, -1, log=log).split(" ")[0]
                        bad, ms, copy = measure(call, out, x, None, -1, op, moved, check=rnd == 1)
                        assert list(calls._plans) == [(p, 0)], "the plan ran was not the one cached"
                        print(f"{str([N, L]):16} {d:9} {op:4} {label + f' #{rnd}':30} " + columns(bad, ms, copy, moved),
                              flush=True)
                    calls._plans.clear()
            x = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "least"]
    main([tuple(int(v) for v in a.split(",")) for a in args] or CASES, 1 if "least" in sys.argv else 4)
