"""One launch of a misaligned-row kernel on one bench shape (after one checked launch), for
Nsight Compute: `python3 one.py 'tileWhole<4,64,64,256>' 4 8193 8199` (element size,
then the shape); 'choose' as the expression runs the dispatch's choice."""
import sys

import cupy

import probe
from bwlab.core.arrays import as_operand
from bwlab.workloads.transpose import calls, plans

expr, e, shape = sys.argv[1], int(sys.argv[2]), tuple(int(v) for v in sys.argv[3:])
x = probe.rand(shape, probe.DT[e])
xo = as_operand(x, "x")
lay = plans.layout_of(xo.shape, xo.strides)
kind = next(k for k, (name, _) in plans.MISALIGNED_KERNELS.items() if expr.startswith(name + "<"))
c = plans.choose(e, lay) if expr == "choose" else plans.Choice(
    kind, e, plans.MISALIGNED_KERNELS[kind][1], expr, int(expr.split(",")[3].rstrip(">")), "probe")
plans.SECTOR_WAVES = 64
run = calls.kernel_runner(c, lay, xo)
out = cupy.empty(shape[:-2] + (shape[-1], shape[-2]), x.dtype)
run(x.data.ptr, out.data.ptr, cupy.cuda.get_current_stream().ptr)
assert bool((out == cupy.swapaxes(x, -1, -2)).all())
cupy.cuda.runtime.deviceSynchronize()
