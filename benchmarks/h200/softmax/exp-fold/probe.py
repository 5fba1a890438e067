"""The public softmax (and log-softmax, which the change leaves alone: the control) on one case of
each kernel family, checked then timed beside a device-to-device copy of the same bytes, for an
A/B of two trees in one run: `PYTHONPATH=<tree>/src python3 probe.py LABEL [nocheck]`.
Timing and check as in ../meet-tree/probe.py (whose helpers it uses): events around batches of
8 calls, 9 batches, the median; call and copy alternate for 3 rounds, the medians printed."""
import sys
from pathlib import Path

import torch

import bwlab

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "meet-tree"))
from probe import DT, columns, measure  # noqa: E402

CASES = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((4, 32768, 1024), 1), ((8192, 16, 1024), 1),
         ((1024, 131072), -1), ((4096, 262144), -1), ((64, 4194304), -1), ((32768, 4096), -1)]


def main(label, check):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'tree':6} {'case':22} {'dtype':9} {'op':4} {'kernel':12} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}")
    for shape, dim in CASES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
            for op in ("fwd", "log"):
                fn = lambda: bwlab.softmax(x, dim, log=op == "log", out=out)  # noqa: E731
                kern = bwlab.explain_softmax(x, dim, log=op == "log")
                out = torch.empty_like(x)
                moved = x.numel() * x.element_size() * 2
                bad, ms, copy = measure(fn, out, x, None, dim, op, moved, check)
                print(f"{label:6} {str(list(shape)) + ' d' + str(dim):22} {d:9} {op:4} {kern.split(' ')[0]:12} "
                      + columns(bad, ms, copy, moved), flush=True)
                out = None
            x = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "nocheck" not in sys.argv)
