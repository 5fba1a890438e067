"""rowTeam on as many teams as the GPU holds (the dispatch) against the fewest teams that take the
same number of rounds of rows (every team then takes about as many rows: balanced) and the fewest
that take one round more. Run from this folder as
`PYTHONPATH=../../../../src python3 probe.py [N,L ...]`. Each forced plan's output, poisoned first,
is checked against a float64 reference in round 1, then timed beside a device-to-device copy of
the same bytes (../meet-tree/probe.py's measure); two rounds, the forms alternating."""
import sys

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner, team_blocks

sys.path.insert(0, "../meet-tree")
from probe import columns, measure  # noqa: E402

DT = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
CASES = [(1024, 131072, "bfloat16"), (1024, 131072, "float16"), (2048, 98304, "bfloat16"),
         (2048, 49152, "float32"), (1024, 131072, "float32"), (4096, 262144, "bfloat16")]


def variants(p):
    h = team_blocks(p, 0)  # rowTeam blocks the GPU holds at once, as the dispatch counts them
    most = plans.row_team(p, h)
    G0 = most.extra[0]
    rounds = plans.cdiv(p.N, G0)
    Gs = [G0] + [plans.cdiv(p.N, r) for r in (rounds, rounds + 1)]
    out = []
    for G in dict.fromkeys(Gs):
        out.append((f"G{G} {plans.cdiv(p.N, G)}r", plans.row_team(p, h, G=G)))
    return out


def main(cases):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for N, L, d in cases:
        x = (torch.randn(N, L, device="cuda", generator=g0) * 3).to(DT[d])
        out = torch.empty_like(x)
        moved = 2 * x.numel() * x.element_size()
        for log in (False, True):
            p = plans.Problem(N, L, 1, d, "forward", log)
            op = "log" if log else "fwd"
            call = lambda: bwlab.softmax(x, -1, log=log, out=out)  # noqa: E731
            for rnd in (1, 2):
                for label, c in [("api", None)] + variants(p):
                    calls._plans.clear()
                    if c is not None:
                        calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, 1, 0))
                        label = f"rowTeam T{c.chunks} {label}"
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
    args = [tuple(a.split(",")) for a in sys.argv[1:]]
    main([(int(n), int(length), d) for n, length, d in args] or CASES)
