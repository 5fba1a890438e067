"""colsTeam's cases on teams of 43 blocks or more (and two of 22 as a control) through the public API,
checked then timed beside a copy of the same bytes (../meet-tree/probe.py's measure), for an A/B of
trees: `PYTHONPATH=<tree>/src python3 ab.py LABEL [nocheck]` (from this folder)."""
import sys

import torch

import bwlab

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [(s, d, "bwd") for s, d in [((4, 32768, 1024), 1), ((32768, 4096), 0), ((6, 24576, 1024), 1),
                                     ((8, 16384, 1024), 1), ((8192, 8192), 0)]] \
    + [(s, d, "fwd") for s, d in [((4, 32768, 1024), 1), ((32768, 4096), 0)]]


def main(label, check):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim, op in CASES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            if op == "bwd":
                y = torch.softmax(x.float(), dim).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                fn = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
                src, kern, moved = y, bwlab.explain_softmax(y, dim, backward=True), 3 * x.numel() * x.element_size()
            else:
                g = None
                fn = lambda: bwlab.softmax(x, dim, out=out)  # noqa: E731
                src, kern, moved = x, bwlab.explain_softmax(x, dim), 2 * x.numel() * x.element_size()
            name = kern.split(" ")[0]
            bad, ms, copy = measure(fn, out, src, g, dim, op, moved, check)
            print(f"{label:4} {str(list(shape)):18} {d:9} {op} {name:10} " + columns(bad, ms, copy, moved), flush=True)
            x = y = g = out = src = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "nocheck" not in sys.argv)
