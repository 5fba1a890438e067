"""Launch a ladder kernel on CuPy matrices, after checking every argument (nothing is
launched or written when a check fails)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...core import launch as core_launch
from ...core.workload import Prepared
from .catalog import TransposeKernel

INT_MAX = 2**31 - 1
GRID_Y_MAX = 65535


def check_arrays(spec: TransposeKernel, x, out) -> None:
    """Raise TypeError/ValueError naming the problem."""
    import cupy

    for what, a in (("input", x), ("output", out)):
        if not isinstance(a, cupy.ndarray):
            raise TypeError(f"{spec.name}: {what} must be a CuPy array on the GPU, got {type(a).__name__}")
        if a.ndim != 2:
            raise ValueError(f"{spec.name}: {what} must be 2-D, got {a.ndim}-D")
        if not a.flags.c_contiguous:
            raise ValueError(f"{spec.name}: {what} must be C-contiguous (row-major); pass cupy.ascontiguousarray(...)")
    if x.dtype.name not in spec.dtypes:
        raise TypeError(f"{spec.name}: dtype {x.dtype.name} not supported (supports {', '.join(spec.dtypes)})")
    if out.dtype != x.dtype:
        raise TypeError(f"{spec.name}: output dtype {out.dtype.name} differs from input {x.dtype.name}")
    rows, cols = x.shape
    if rows > INT_MAX or cols > INT_MAX:
        raise ValueError(f"{spec.name}: each extent must be below 2^31, got {rows}x{cols}")
    want = spec.output_shape(rows, cols)
    if tuple(out.shape) != want:
        raise ValueError(f"{spec.name}: output shape must be {want}, got {tuple(out.shape)}")
    if x.device.id != out.device.id:
        raise ValueError(f"{spec.name}: input on GPU {x.device.id}, output on GPU {out.device.id}")
    a0, b0 = x.data.ptr, out.data.ptr
    if x.size and a0 < b0 + out.nbytes and b0 < a0 + x.nbytes:
        raise ValueError(f"{spec.name}: output overlaps the input")


def grid_for(spec: TransposeKernel, rows: int, cols: int, block) -> tuple[int, int]:
    gx, gy = spec.grid(rows, cols, block)
    if gx > INT_MAX or gy > GRID_Y_MAX:
        raise ValueError(f"{spec.name}: a {rows}x{cols} matrix needs grid {gx}x{gy} with block "
                         f"{block[0]}x{block[1]}, over the CUDA limit ({INT_MAX}x{GRID_Y_MAX}); "
                         "use a wider block or another kernel")
    return gx, gy


def prepare(spec: TransposeKernel, x, out, block: Optional[tuple[int, int]] = None) -> Prepared:
    """Check everything once; Prepared.launch() runs the kernel on CuPy's current stream."""
    block = tuple(block or spec.block)
    spec.check_block(block)
    check_arrays(spec, x, out)
    rows, cols = x.shape
    grid = grid_for(spec, rows, cols, block)
    if x.size == 0:
        return Prepared(lambda: None, out, grid, block)
    fn = core_launch.function(spec.source, spec.expression(x.dtype.name, block), device=x.device.id)
    args = (x, out, np.int32(rows), np.int32(cols), *(np.int32(v) for v in spec.extra))
    g, b = (grid[0], grid[1], 1), (block[0], block[1], 1)

    def run():
        fn(g, b, args)

    return Prepared(run, out, grid, block)
