"""Softmax and log-softmax down long last axes (rowTeam, and rowStream on rows of 2 blocks) through
the public API, checked then timed beside a copy of the same bytes (../meet-tree/probe.py's
measure), for an A/B of trees:
`PYTHONPATH=<tree>/src python3 ab.py LABEL [nocheck]` (from this folder)."""
import sys

import torch

import bwlab

sys.path.insert(0, "../meet-tree")
from probe import columns, measure  # noqa: E402

# (shape, dtypes): rowTeam on rows of 4, 3, 8 and 16 blocks, rowStream on rows of 2
CASES = [((1024, 131072), ("float32", "bfloat16", "float16")), ((2048, 98304), ("bfloat16",)),
         ((2048, 49152), ("float32",)), ((4096, 262144), ("float32", "bfloat16")),
         ((4096, 65536), ("bfloat16", "float16")), ((4096, 32768), ("float32",))]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def main(label, check):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    dim = -1
    for shape, dtypes in CASES:
        for d in dtypes:
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
