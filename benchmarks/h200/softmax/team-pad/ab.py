"""colsTeam's (or, with `cluster`, colsCluster's) dispatch cases through the public API, checked then
timed beside a copy of the same bytes (../meet-tree/probe.py's measure), for an A/B of two trees:
`PYTHONPATH=<tree>/src python3 ab.py LABEL [nocheck] [cluster]` (from this folder)."""
import sys

import torch

import bwlab

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

FWD = [((4, 32768, 1024), 1), ((32768, 4096), 0), ((8, 16384, 1024), 1)]
BWD = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((8, 16384, 1024), 1), ((4, 32768, 1024), 1)]
CASES = [(s, d, op) for s, d in FWD for op in ("fwd", "log")] + [(s, d, "bwd") for s, d in BWD]
# colsCluster: clusters of 16 (forward at [16, 8192, 1024] and [8192, 8192]), of 2 to 8 on shorter axes
CLUSTER = [(s, d, op) for s, d in [((16, 8192, 1024), 1), ((8192, 8192), 0), ((32, 2048, 1024), 1),
                                   ((64, 1024, 2048), 1)] for op in ("fwd", "log", "bwd")]


def main(label, check, kernel="colsTeam"):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim, op in CLUSTER if kernel == "colsCluster" else CASES:
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
                fn = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                src, kern = x, bwlab.explain_softmax(x, dim, log=op == "log")
                moved = 2 * x.numel() * x.element_size()
            name = kern.split(" ")[0]
            if name != kernel:  # only the kernel this A/B is about
                continue
            bad, ms, copy = measure(fn, out, src, g, dim, op, moved, check)
            print(f"{label:4} {str(list(shape)):18} {d:9} {op} {name:10} " + columns(bad, ms, copy, moved), flush=True)
            x = y = g = out = src = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "nocheck" not in sys.argv, "colsCluster" if "cluster" in sys.argv else "colsTeam")
