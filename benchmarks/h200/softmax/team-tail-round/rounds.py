"""Does rowTeam lose to its last, partly filled round? bfloat16 rows of 131072 (teams of 4 blocks, 99
teams on the H200) at row counts that fill whole rounds (990, 1089) and that do not (1024, 1000, 1056),
softmax and log-softmax through the public API, each output checked against float64 in the first
round, timed beside a copy of the same bytes (../meet-tree/probe.py's measure), two rounds:
`PYTHONPATH=../../../../src python3 rounds.py` (from this folder)."""
import sys

import torch

import bwlab

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [(n, 131072, "bfloat16") for n in (990, 1000, 1024, 1056, 1089)] + [(n, 65536, "float32") for n in (990, 1024)]


def main():
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for rnd in (1, 2):
        for n, L, d in CASES:
            for op in ("fwd", "log"):
                x = (torch.randn(n, L, device="cuda", generator=g0) * 3).to(DT[d])
                out = torch.empty_like(x)
                fn = lambda: bwlab.softmax(x, -1, log=op == "log", out=out)  # noqa: E731
                kern = bwlab.explain_softmax(x, -1, log=op == "log").split(" on ")[0]
                moved = 2 * x.numel() * x.element_size()
                bad, ms, copy = measure(fn, out, x, None, -1, op, moved, rnd == 1)
                print(f"r{rnd} {str([n, L]):15} {d:9} {op} " + columns(bad, ms, copy, moved) + f"  {kern}", flush=True)
                x = out = None
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
