"""Is the public API slower than its own plan run directly? colsTeam's cases through the API, through
the API with its workspace kept from call to call (calls._workspace patched), and through the plan's
runner with one workspace (pipe.py's forced), in alternating order, every output checked in the first
round: `PYTHONPATH=../../../../src python3 order.py` (from this folder)."""
import sys

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans

from cases import problem
from pipe import DT, columns, forced, held_plan, measure

CASES = [((4, 32768, 1024), 1, "bfloat16", "fwd"), ((4, 32768, 1024), 1, "float32", "bwd"),
         ((8192, 8192), 0, "float32", "bwd"), ((8192, 8192), 0, "bfloat16", "bwd"),
         ((16, 8192, 1024), 1, "bfloat16", "bwd")]

_orig = calls._workspace
_kept = {}


def kept_workspace(kind, obj, device, nbytes, stream, current):
    if nbytes not in _kept:
        _kept[nbytes] = _orig(kind, obj, device, nbytes, stream, current)
    return _kept[nbytes]


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for rnd in (1, 2):
        for shape, dim, d, op in CASES:
            p = problem(shape, dim, d, op)
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            if op == "bwd":
                y = torch.softmax(x.float(), dim).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                api = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
            else:
                y, g = x, None
                api = lambda: bwlab.softmax(x, dim, out=out)  # noqa: E731
            moved = x.numel() * x.element_size() * (3 if op == "bwd" else 2)
            team = held_plan(lambda h: plans.cols_team(p, h))
            run = forced(team, p, y, g, out)

            def api_kept():
                calls._workspace = kept_workspace
                try:
                    api()
                finally:
                    calls._workspace = _orig
            forms = [("runner", run), ("api", api), ("api-kept", api_kept)]
            order = forms if rnd == 1 else forms[::-1]
            for label, fn in order + order:
                bad, ms, copy = measure(fn, out, y, g, dim, op, moved, rnd == 1)
                print(f"r{rnd} {str(list(shape)):18} {d:9} {op} {label:10} T{team.chunks} G{team.extra[0]} "
                      + columns(bad, ms, copy, moved), flush=True)
            x = y = g = out = None
            _kept.clear()
            torch.cuda.empty_cache()


if __name__ == "__main__":
    sys.exit(main())
