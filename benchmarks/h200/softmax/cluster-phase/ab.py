"""colsCluster's clusters of 16 through the public API (softmax and log-softmax down [16, 8192, 1024]
dim 1 and [8192, 8192] dim 0), checked then timed beside a copy of the same bytes
(../meet-tree/probe.py's measure): `PYTHONPATH=<tree>/src python3 ab.py LABEL [nocheck]` (from this folder)."""
import sys

import torch

import bwlab

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [(s, d, op) for s, d in [((16, 8192, 1024), 1), ((8192, 8192), 0)] for op in ("fwd", "log")]


def main(label, check):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim, op in CASES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            name = bwlab.explain_softmax(x, dim, log=op == "log").split(" ")[0]
            fn = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
            moved = 2 * x.numel() * x.element_size()
            bad, ms, copy = measure(fn, out, x, None, dim, op, moved, check)
            print(f"{label:4} {str(list(shape)):18} {d:9} {op} {name:10} " + columns(bad, ms, copy, moved), flush=True)
            x = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "nocheck" not in sys.argv)
