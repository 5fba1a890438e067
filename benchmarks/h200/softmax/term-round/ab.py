"""16-bit softmax on the kernels that store its terms (colsCluster, colsTeam, rowTeam, rowStream) and
log-softmax beside it (which stores none: a control), through the public API, checked then timed
beside a copy of the same bytes (../meet-tree/probe.py's measure), for an A/B of trees:
`PYTHONPATH=<tree>/src python3 ab.py LABEL [nocheck]` (from this folder)."""
import sys

import torch

import bwlab

sys.path.insert(0, "../meet-tree")
from probe import columns, measure  # noqa: E402

CASES = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((8, 16384, 1024), 1), ((4, 32768, 1024), 1),
         ((32768, 4096), 0), ((1024, 131072), -1), ((2048, 98304), -1), ((4096, 262144), -1),
         ((4096, 65536), -1)]
DT = {"bfloat16": torch.bfloat16, "float16": torch.float16}


def main(label, check):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim in CASES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            out = torch.empty_like(x)
            moved = 2 * x.numel() * x.element_size()
            for op in ("fwd", "log"):
                if d == "float16" and op == "log":
                    continue
                fn = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                name = bwlab.explain_softmax(x, dim, log=op == "log").split(" ")[0]
                bad, ms, copy = measure(fn, out, x, None, dim, op, moved, check)
                print(f"{label:4} {str(list(shape)) + ' d' + str(dim):22} {d:9} {op} {name:11} "
                      + columns(bad, ms, copy, moved), flush=True)
            x = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "nocheck" not in sys.argv)
