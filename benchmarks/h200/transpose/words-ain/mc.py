"""tileWholeWords' no-shift tiles (plans.WORDS_ALIGNED_IN, WORDS_ALIGNED_IN_32) forced on
aligned-input layouts (row slices at 16- or 32-byte offsets, reversed rows, a batch with a
negative batch stride, extents around the tile), each output poisoned and checked bit-exact, for
compute-sanitizer's memcheck. From the repository root with PYTHONPATH=src."""
import cupy
import numpy as np

from bwlab.core import verify
from bwlab.core.arrays import as_operand
from bwlab.workloads.transpose import plans
from bwlab.workloads.transpose.calls import kernel_runner

stream = cupy.cuda.get_current_stream().ptr
n = 0
for align, e, cfg in [(16, e, c) for e, c in plans.WORDS_ALIGNED_IN.items()] + \
        [(32, e, c) for e, c in plans.WORDS_ALIGNED_IN_32.items()]:
    dt, v = {1: "u1", 2: "u2"}[e], align // e
    c = plans.Choice("words", e, plans.WHOLE, plans.tile_expression(e, cfg, "tileWholeWords"), cfg[2])
    tr, tc = cfg[:2]
    for rows, cols in ((257, 2 * v), (1, 5 * v), (tr + 3, tc + v), (3 * tr + 1, 2 * tc - v)):
        host = verify.random_host((3, rows + 3, cols + 3 * v), dt)
        big = cupy.asarray(host)
        for sl in (np.s_[1, 1:rows + 1, v:v + cols], np.s_[1, rows + 1:1:-1, 2 * v:2 * v + cols],
                   np.s_[::-1, 2:rows + 2, :cols]):
            x = big[sl]
            xo = as_operand(x, "x")
            out = cupy.empty(x.shape[:-2] + (cols, rows), dt)
            verify.poison(out)
            kernel_runner(c, plans.layout_of(xo.shape, xo.strides), xo)(xo.ptr, out.data.ptr, stream)
            assert verify.compare(out.get(), np.ascontiguousarray(np.swapaxes(host[sl], -1, -2))).ok
            n += 1
print("memcheck script done:", n, "forced checks")
