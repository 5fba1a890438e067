"""The public softmax, log-softmax and softmax gradient on the cases the change touches (colsCluster's
copies and outputs, colsTeam's gradients, colsChunks', rowStream's, rowTeam's and rowRelay's outputs),
checked then timed beside a device-to-device copy of the same bytes, for an A/B of trees in one run:
`PYTHONPATH=<tree>/src python3 probe.py LABEL [nocheck] [strided]` (strided: the first two cases).
Timing and check as ../meet-tree/probe.py (whose helpers it uses): events around batches of 8 calls,
9 batches, the median; call and copy alternate for 3 rounds, the medians printed; 16-bit within one
unit in the last place."""
import sys
from pathlib import Path

import torch

import bwlab

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "meet-tree"))
from probe import DT, columns, measure  # noqa: E402

CASES = [((16, 8192, 1024), 1, ("fwd", "log", "bwd")), ((8192, 8192), 0, ("fwd", "log", "bwd")),
         ((4, 32768, 1024), 1, ("fwd", "log")), ((1024, 131072), -1, ("fwd", "log")),
         ((4096, 262144), -1, ("fwd",)), ((64, 4194304), -1, ("fwd",))]


def main(label, check, strided):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'tree':6} {'case':22} {'dtype':9} {'op':4} {'kernel':12} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}")
    for shape, dim, ops in CASES[:2] if strided else CASES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            for op in ops:
                if op == "bwd":
                    y = torch.softmax(x.float(), dim).to(DT[d])
                    g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d])
                    fn = lambda: bwlab.softmax_backward(y, g, dim, out=out)  # noqa: E731
                    kern = bwlab.explain_softmax(y, dim, backward=True)
                else:
                    y, g = x, None
                    fn = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                    kern = bwlab.explain_softmax(x, dim, log=op == "log")
                out = torch.empty_like(x)
                moved = x.numel() * x.element_size() * (3 if op == "bwd" else 2)
                bad, ms, copy = measure(fn, out, y, g, dim, op, moved, check)
                print(f"{label:6} {str(list(shape)) + ' d' + str(dim):22} {d:9} {op:4} {kern.split(' ')[0]:12} "
                      + columns(bad, ms, copy, moved), flush=True)
                out = y = g = None
            x = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "nocheck" not in sys.argv, "strided" in sys.argv)
