"""tallWords<1,S,W,32,false,P,false> launched twice on a fresh n x S uint8 matrix (the second launch is
the one to profile), its output checked against the transpose.
From the repository root: `PYTHONPATH=src python3 benchmarks/h200/transpose/tall-staged/one.py N S W P`"""
import sys
import cupy
import numpy as np
from bwlab.core import launch, verify
from bwlab.workloads.transpose import plans

n, s, w, p = map(int, sys.argv[1:5])
src = plans.KERNELS_DIR / "tallwords.cu"
expr = f"tallWords<1,{s},{w},32,false,{p},false>"
sh = plans.tallwords_shared(1, s, w, 32, False, p)
f = launch.function(src, expr)
launch.allow_shared(f, sh)
x = cupy.empty((n, s), cupy.uint8)
verify.fill_random_bits(x, seed=s)
out = cupy.empty((s, n), cupy.uint8)
verify.poison(out)
for _ in range(2):
    f((plans.cdiv(n, w),), (256,), (x, out, np.int64(n)), shared_mem=sh)
cupy.cuda.runtime.deviceSynchronize()
assert bool((out == x.T).all())
print(expr, sh, "bytes shared, ok")
