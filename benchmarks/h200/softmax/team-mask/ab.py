"""colsTeam's gradients on teams of 86 blocks (32768 rows) through the public API, checked then timed
beside a copy of the same bytes (../meet-tree/probe.py's measure), for an A/B of trees:
`PYTHONPATH=<tree>/src python3 ab.py LABEL [nocheck]` (from this folder)."""
import sys

import torch

import bwlab

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

SHAPES = [((4, 32768, 1024), 1), ((32768, 4096), 0)]


def main(label, check):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim in SHAPES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            y = torch.softmax(x.float(), dim).to(DT[d])
            g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
            out = torch.empty_like(x)
            fn = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
            kern = bwlab.explain_softmax(y, dim, backward=True).split(" ")[0]
            bad, ms, copy = measure(fn, out, y, g, dim, "bwd", 3 * x.numel() * x.element_size(), check)
            print(f"{label:4} {str(list(shape)):18} {d:9} bwd {kern:10} " + columns(bad, ms, copy, 3 * x.numel()
                                                                                     * x.element_size()), flush=True)
            x = y = g = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "nocheck" not in sys.argv)
