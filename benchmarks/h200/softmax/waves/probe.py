"""Does colsCluster lose to a partial last wave of clusters? The public softmax (forward), float32
and bfloat16, down strided axes of 8192 rows (one 128-byte strip a cluster of 16) at strip counts
around multiples of the clusters the GPU holds at once; checked (output poisoned, float64
reference), then timed beside a copy of the same bytes (../meet-tree/probe.py's measure).
Run from this folder: PYTHONPATH=../../../../src python3 probe.py"""
from pathlib import Path
import sys

import torch

import bwlab
from bwlab.core import launch as core_launch
from bwlab.core.launch import cdiv
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import _function

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "meet-tree"))
from probe import measure  # noqa: E402

DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
SHAPES = [((n, 8192, 1024), 1) for n in (4, 6, 8, 10, 11, 12, 14, 16, 20, 21)] + \
         [((8192, m), 0) for m in (4096, 6144, 8064, 8192, 10240, 10752)]


def main():
    print("dtype    shape            dim kernel        strips held waves  bad  ms       GB/s   %copy")
    for dt in DT:
        for shape, dim in SHAPES:
            x = torch.randn(shape, device="cuda", dtype=DT[dt])
            out = torch.empty_like(x)
            n, l, m = (1, shape[0], shape[1]) if dim == 0 else shape
            p = plans.Problem(n, l, m, dt)
            c = calls.plan_for(p, 0).choice
            cols = int(c.expression.split(",")[2]) // 16 * p.vec if c.kernel == "colsCluster" else 0
            strips = n * cdiv(m, cols) if cols else 0
            held = 0
            if c.cluster > 1:
                fn = _function(c.source, c.expression, c.smem, 0, c.cluster)
                held = core_launch.max_active_clusters(fn, c.cluster, c.block, c.smem) or 0
            moved = 2 * x.numel() * x.element_size()
            bad, ms, cms = measure(lambda: bwlab.softmax(x, dim, out=out), out, x, None, dim, "fwd", moved)
            waves = strips / held if held else 0
            print(f"{dt:8s} {str(list(shape)):16s} {dim:3d} {c.kernel:13s} {strips:6d} {held:4d} {waves:5.2f} "
                  f"{bad:4d} {ms:8.4f} {moved / ms / 1e6:6.0f} {100 * cms / ms:6.1f}", flush=True)
            del x, out
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
