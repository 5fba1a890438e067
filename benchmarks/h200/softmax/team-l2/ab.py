"""The team kernels' dispatch cases through the public API, checked then timed beside a copy of the
same bytes (../meet-tree/probe.py's measure), for an A/B of trees: `PYTHONPATH=<tree>/src python3
ab.py LABEL [nocheck] [rows]` (from this folder): colsTeam's cases (../team-pad/ab.py's), or with
`rows` rowTeam's (softmax and log-softmax down long last axes)."""
import sys

import torch

import bwlab

sys.path.insert(0, "../meet-tree")
sys.path.insert(0, "../team-pad")
from ab import CASES  # noqa: E402
from probe import DT, columns, measure  # noqa: E402

ROWS = [(s, -1, op) for s in [(1024, 131072), (4096, 262144), (2048, 98304), (2048, 49152)] for op in ("fwd", "log")]


def main(label, check, kernel):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim, op in ROWS if kernel == "rowTeam" else CASES:
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
            if name == kernel:
                bad, ms, copy = measure(fn, out, src, g, dim, op, moved, check)
                print(f"{label:4} {str(list(shape)):18} {d:9} {op} {name:10} " + columns(bad, ms, copy, moved),
                      flush=True)
            x = y = g = out = src = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "nocheck" not in sys.argv, "rowTeam" if "rows" in sys.argv else "colsTeam")
