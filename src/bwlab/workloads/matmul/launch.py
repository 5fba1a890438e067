"""Launch a matmul kernel on CuPy operands after checking every argument (nothing is
launched or written when a check fails)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...core import launch as core_launch
from ...core.workload import Prepared
from .catalog import MatmulKernel
from .reference import packed_size, split

EXTENT_MAX = 2**31 - 1024  # kernels compute k0 + BK and similar in int
GRID_X_MAX, GRID_Y_MAX = 2**31 - 1, 65535


def check_operands(spec: MatmulKernel, a, b, c) -> tuple[int, int, int]:
    """(M, N, K) of C = A . B, or TypeError/ValueError naming the problem."""
    import cupy

    for what, x in (("A", a), ("B", b), ("C", c)):
        if not isinstance(x, cupy.ndarray):
            raise TypeError(f"{spec.name}: {what} must be a CuPy array on the GPU, got {type(x).__name__}")
        if x.ndim != 2:
            raise ValueError(f"{spec.name}: {what} must be 2-D, got {x.ndim}-D")
        if x.dtype.name not in spec.dtypes:
            raise TypeError(f"{spec.name}: {what} has dtype {x.dtype.name}; supports {', '.join(spec.dtypes)}")
        if not x.flags.c_contiguous:
            raise ValueError(f"{spec.name}: {what} must be C-contiguous (row-major); pass cupy.ascontiguousarray(...)")
    (m, k), (k2, n) = a.shape, b.shape
    if k2 != k:
        raise ValueError(f"{spec.name}: A is {m}x{k} but B is {k2}x{n}: inner extents differ")
    if tuple(c.shape) != (m, n):
        raise ValueError(f"{spec.name}: C must be {m}x{n}, got {c.shape[0]}x{c.shape[1]}")
    if max(m, n, k) > EXTENT_MAX:
        raise ValueError(f"{spec.name}: each of M, N, K must be at most {EXTENT_MAX}, got {m}, {n}, {k}")
    if len({a.device.id, b.device.id, c.device.id}) != 1:
        raise ValueError(f"{spec.name}: A, B and C must be on one GPU")
    for what, x in (("A", a), ("B", b)):
        if c.size and x.size and x.data.ptr < c.data.ptr + c.nbytes and c.data.ptr < x.data.ptr + x.nbytes:
            raise ValueError(f"{spec.name}: C overlaps {what}")
    return m, n, k


def grid_for(spec: MatmulKernel, m: int, n: int, block) -> tuple[int, int]:
    gx, gy = spec.grid(m, n, block)
    if gx > GRID_X_MAX or gy > GRID_Y_MAX:
        raise ValueError(f"{spec.name}: a {m}x{n} C needs grid {gx}x{gy} with block {block[0]}x{block[1]}, over "
                         f"the CUDA limit ({GRID_X_MAX}x{GRID_Y_MAX}); use a kernel with taller tiles")
    return gx, gy


def prepare_operands(spec: MatmulKernel, a, b, c, block: Optional[tuple[int, int]] = None) -> Prepared:
    """C = A . B with one ladder kernel; Prepared.launch() runs on CuPy's current stream.
    K = 0 makes C zero (no kernel runs); M = 0 or N = 0 does nothing."""
    block = tuple(block or spec.block)
    spec.check_block(block)
    m, n, k = check_operands(spec, a, b, c)
    grid = grid_for(spec, m, n, block)
    if c.size == 0:
        return Prepared(lambda: None, c, grid, block)
    if k == 0:
        return Prepared(lambda: c.fill(0), c, grid, block)
    fn = core_launch.function(spec.source, spec.expression("float32", block), device=a.device.id)
    shared = spec.shared
    core_launch.allow_shared(fn, shared)
    args = (a, b, c, np.int32(m), np.int32(n), np.int32(k))
    g, bl = (grid[0], grid[1], 1), (block[0], block[1], 1)

    def run():
        fn(g, bl, args, shared_mem=shared)

    return Prepared(run, c, grid, block)


def prepare(spec: MatmulKernel, x, out, shape: tuple[int, int, int], block=None) -> Prepared:
    """The workload's form: x is the packed input buffer of a case of shape (M, N, K)."""
    import cupy

    m, n, k = shape
    if not isinstance(x, cupy.ndarray) or x.ndim != 1 or x.dtype != cupy.float32 or not x.flags.c_contiguous:
        raise ValueError(f"{spec.name}: the input must be the packed 1-D float32 buffer of A and B "
                         "(MatmulWorkload.make_input)")
    if x.size != packed_size(m, n, k):
        raise ValueError(f"{spec.name}: the input holds {x.size} elements; a {m}x{n}x{k} case packs "
                         f"{packed_size(m, n, k)}")
    a, b = split(x, m, n, k)
    return prepare_operands(spec, a, b, out, block)
