"""Launch a catalog kernel on CuPy arrays, after checking every argument."""
from __future__ import annotations

from typing import Optional

import numpy as np

from . import build, catalog
from .catalog import KernelSpec

INT_MAX = 2**31 - 1
GRID_Y_MAX = 65535


def _ptr_range(a) -> tuple[int, int]:
    return a.data.ptr, a.data.ptr + a.nbytes


def check_arrays(spec: KernelSpec, x, out) -> None:
    """Raise TypeError/ValueError naming the problem; nothing is launched or written."""
    import cupy

    for what, a in (("input", x), ("output", out)):
        if not isinstance(a, cupy.ndarray):
            raise TypeError(f"{spec.name}: {what} must be a CuPy array on the GPU, got {type(a).__name__}")
        if a.ndim != 2:
            raise ValueError(f"{spec.name}: {what} must be 2-D, got {a.ndim}-D")
        if not a.flags.c_contiguous:
            raise ValueError(f"{spec.name}: {what} must be C-contiguous (row-major); pass cupy.ascontiguousarray(...)")
    if spec.args != "bytes" and x.dtype.name not in spec.dtypes:
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
    (a0, a1), (b0, b1) = _ptr_range(x), _ptr_range(out)
    if x.size and a0 < b1 and b0 < a1:
        raise ValueError(f"{spec.name}: output overlaps the input")


def check_block(spec: KernelSpec, block: tuple[int, int]) -> None:
    bx, by = block
    if spec.blocks is not None:
        if (bx, by) not in spec.blocks:
            legal = ", ".join(f"{a}x{b}" for a, b in spec.blocks)
            raise ValueError(f"{spec.name}: block {bx}x{by} not available (compiled for {legal})")
    elif bx < 1 or by < 1 or bx * by > 1024:
        raise ValueError(f"{spec.name}: block {bx}x{by} must have 1..1024 threads")


def grid_for(spec: KernelSpec, rows: int, cols: int, block: tuple[int, int], itemsize: int) -> tuple[int, int]:
    gx, gy = spec.grid(rows, cols, block, itemsize)
    if gx > INT_MAX or gy > GRID_Y_MAX:
        raise ValueError(f"{spec.name}: a {rows}x{cols} matrix needs grid {gx}x{gy} with block "
                         f"{block[0]}x{block[1]}, over the CUDA limit ({INT_MAX}x{GRID_Y_MAX}); "
                         "use a wider block or another kernel")
    return gx, gy


class Launcher:
    """Builds the catalog's families for one arch and launches kernels through CuPy."""

    def __init__(self, arch: Optional[str] = None):
        if arch is None:
            from .device import query

            arch = query().arch
        self.arch = arch
        self._builds: dict[str, build.Build] = {}
        self._expressions = catalog.family_expressions()

    def build(self, family: str) -> build.Build:
        if family not in self._builds:
            self._builds[family] = build.compile_family(family, self._expressions.get(family, []), self.arch)
        return self._builds[family]

    def build_all(self) -> dict[str, build.Build]:
        for family in self._expressions:
            self.build(family)
        return dict(self._builds)

    def resources(self, spec: KernelSpec, dtype: str, block: tuple[int, int]) -> build.Resources:
        return self.build(spec.family).resources.get(spec.expression(dtype, block), build.Resources())

    def prepare(self, spec: KernelSpec, x, out, block: Optional[tuple[int, int]] = None, stream=None):
        """Check everything once, return (launch, grid, block): launch() runs the kernel."""
        block = tuple(block or spec.block)
        check_block(spec, block)
        check_arrays(spec, x, out)
        rows, cols = x.shape
        grid = grid_for(spec, rows, cols, block, x.dtype.itemsize)
        if x.size == 0:
            return (lambda: None), grid, block
        fn = build.function(self.build(spec.family), spec.expression(x.dtype.name, block))
        if spec.args == "bytes":
            args = (x, out, np.int64(x.nbytes))
        else:
            args = (x, out, np.int32(rows), np.int32(cols), *(np.int32(v) for v in spec.extra))
        g, b = (grid[0], grid[1], 1), (block[0], block[1], 1)

        def launch():
            fn(g, b, args, stream=stream)

        return launch, grid, block

    def __call__(self, spec: KernelSpec, x, out, block=None, stream=None) -> None:
        self.prepare(spec, x, out, block, stream)[0]()
