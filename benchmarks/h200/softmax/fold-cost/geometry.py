"""Long last-axis rows on the kernels of this tree, every geometry beside the dispatch's (run from
this folder as `PYTHONPATH=../../../../src python3 geometry.py`): rowStream's clusters at each
group count, on clusters of 8, and rowTeam's teams of the fewest blocks, 8 and 16. Each forced
plan's output, poisoned first, is checked against a float64 reference in round 1, then timed
beside a device-to-device copy of the same bytes (../meet-tree/probe.py's measure); two rounds."""
import sys

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner, team_blocks

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [(1024, 131072), (4096, 262144)]


def variants(p):
    out = [("dispatch", None)]
    for S in (2, 4, 8):
        out.append((f"rowStream S{S}", plans.row_stream(p, S=S)))
    out.append(("rowStream C8", plans.row_stream(p, C=8)))
    h = team_blocks(p, 0)  # rowTeam blocks the GPU holds at once, as the dispatch counts them
    for T in (0, 8, 16):
        out.append((f"rowTeam T{T or 'min'}", plans.row_team(p, h, T=T)))
    return [(label, c) for label, c in out if label == "dispatch" or c is not None]


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for N, L in CASES:
        for d in DT:
            x = (torch.randn(N, L, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            moved = 2 * x.numel() * x.element_size()
            for log in (False, True):
                p = plans.Problem(N, L, 1, d, "forward", log)
                op = "log" if log else "fwd"
                call = lambda: bwlab.softmax(x, -1, log=log, out=out)  # noqa: E731
                for rnd in (1, 2):
                    for label, c in variants(p):
                        calls._plans.clear()
                        if c is not None:
                            calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, 1, 0))
                            label += f" C{c.cluster} {c.grid[0]}b"
                        else:
                            label = "api " + bwlab.explain_softmax(x, -1, log=log).split(" ")[0]
                        bad, ms, copy = measure(call, out, x, None, -1, op, moved, check=rnd == 1)
                        assert list(calls._plans) == [(p, 0)], "the plan ran was not the one cached"
                        print(f"{str([N, L]):16} {d:9} {op:4} {label + f' #{rnd}':34} " + columns(bad, ms, copy, moved),
                              flush=True)
                    calls._plans.clear()
            x = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
