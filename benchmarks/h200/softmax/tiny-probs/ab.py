"""The public softmax (not log-softmax: its outputs take no exp) on one tree, for an A/B of two
trees run alternately: `PYTHONPATH=<tree>/src python3 ab.py LABEL [wide]`. Each case's output,
poisoned first, is checked against a float64 reference (wide: inputs of sigma 40, whose
probabilities reach 2^-133; else sigma 3), then timed beside a device-to-device copy of the same
bytes (../meet-tree/probe.py's measure and columns)."""
import sys

import torch

import bwlab

sys.path.insert(0, "../meet-tree")
from probe import DT, columns, measure  # noqa: E402

CASES = [((16, 8192, 1024), 1), ((8192, 8192), 0), ((4, 32768, 1024), 1), ((8192, 16, 1024), 1),
         ((32768, 4096), -1), ((4194304, 32), -1), ((1024, 131072), -1), ((4096, 262144), -1),
         ((128, 1024, 1024), 2)]


def main(label, sigma):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    for shape, dim in CASES:
        for d in DT:
            x = (torch.randn(*shape, device="cuda", generator=g0) * sigma).to(DT[d])
            out = torch.empty_like(x)
            moved = 2 * x.numel() * x.element_size()
            call = lambda: bwlab.softmax(x, dim, out=out)  # noqa: E731
            bad, ms, copy = measure(call, out, x, None, dim, "fwd", moved)
            kern = bwlab.explain_softmax(x, dim).split(" ")[0]
            print(f"{label:5} {str(list(shape)) + ' d' + str(dim):22} {d:9} {kern:12} " + columns(bad, ms, copy, moved),
                  flush=True)
            x = out = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], 40.0 if "wide" in sys.argv else 3.0)
