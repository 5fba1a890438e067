"""rowRelay's dispatch cases through the public API, checked then timed beside a copy of the same
bytes (../meet-tree/probe.py's measure), for an A/B of two trees: `PYTHONPATH=<tree>/src python3
rows-ab.py LABEL [nocheck]`."""
import sys

import torch

import bwlab

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [((64, 4194304), "fwd"), ((64, 4194304), "log"), ((256, 1048576), "fwd"), ((64, 2097152), "bwd"),
         ((1024, 131072), "bwd"), ((4096, 262144), "bwd")]


def main(label, check):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, op in CASES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            if op == "bwd":
                y = torch.softmax(x.float(), -1).to(DT[d])
                g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                fn = lambda: bwlab.softmax_backward(y, g, -1, out=out)  # noqa: E731
                src, kern, moved = y, bwlab.explain_softmax(y, -1, backward=True), 3 * x.numel() * x.element_size()
            else:
                g = None
                fn = lambda: bwlab.softmax(x, -1, log=op == "log", out=out)  # noqa: E731
                src, kern, moved = x, bwlab.explain_softmax(x, -1, log=op == "log"), 2 * x.numel() * x.element_size()
            bad, ms, copy = measure(fn, out, src, g, -1, op, moved, check)
            name = kern.split(' ')[0]
            print(f"{label:4} {str(list(shape)):18} {d:9} {op} {name:10} " + columns(bad, ms, copy, moved), flush=True)
            x = y = g = out = src = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "nocheck" not in sys.argv)
