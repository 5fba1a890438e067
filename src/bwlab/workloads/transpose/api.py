"""bwlab.transpose(): the production transpose for CuPy arrays, torch tensors and anything
with __cuda_array_interface__ or DLPack.

Every argument is checked before anything runs, so a refused call leaves `out` untouched.
Kernels see raw pointers and byte sizes, so every dtype of 1, 2, 4, 8 or 16 bytes is moved
bit for bit. Launches go to the caller's current stream (torch's for a torch tensor).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...core import launch as core_launch
from ...core.arrays import Operand, as_operand, is_dense, new_like, stream_ptr
from . import plans

for _source, _exprs in plans.expressions().items():
    core_launch.register(_source, _exprs)


def _layout(x: Operand) -> tuple[str, int, int, int]:
    """('kernel' | 'copy', batch, rows, cols) for x's layout, or ValueError."""
    if len(x.shape) < 2:
        raise ValueError(f"x must be 2-D (M, N) or a batch (..., M, N), got {len(x.shape)}-D shape {x.shape}")
    rows, cols = x.shape[-2:]
    batch = int(np.prod(x.shape[:-2], dtype=np.int64)) if len(x.shape) > 2 else 1
    if is_dense(x.shape, x.strides):
        return "kernel", batch, rows, cols
    # The transpose of a C-contiguous array (a Fortran-ordered matrix, a .T / .mT view): its
    # bytes are already the answer's bytes in the answer's order.
    swapped = x.shape[:-2] + (cols, rows)
    if is_dense(swapped, x.strides[:-2] + (x.strides[-1], x.strides[-2])):
        return "copy", batch, rows, cols
    raise ValueError(f"x must be C-contiguous or the transpose of a C-contiguous array; got shape {x.shape} "
                     f"with strides {tuple(x.strides)} (in elements): make it contiguous first")


def _check_out(out: Operand, x: Operand, want: tuple[int, ...]) -> None:
    if out.kind != x.kind:
        raise TypeError(f"out is a {out.kind} array but x is {x.kind}; pass the same kind")
    if out.dtype != x.dtype:
        raise TypeError(f"out has dtype {out.dtype}, x has {x.dtype}")
    if out.shape != want:
        raise ValueError(f"out must have shape {want}, got {out.shape}")
    if out.device != x.device:
        raise ValueError(f"out is on GPU {out.device}, x on GPU {x.device}")
    if not is_dense(out.shape, out.strides):
        raise ValueError("out must be C-contiguous")
    if out.overlaps(x):
        raise ValueError("out overlaps x; transposing in place is not supported")


_plans: dict[int, Optional[dict]] = {}


def device_plan(device: int) -> Optional[dict]:
    """The stored plan for this GPU model (None: built-in defaults); read once per process."""
    if device not in _plans:
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(device)["name"]
        _plans[device] = plans.load_plan(name.decode() if isinstance(name, bytes) else name)
    return _plans[device]


def launch(choice: plans.Choice, src_ptr: int, dst_ptr: int, batch: int, rows: int, cols: int,
           nbytes: int, device: int, stream: int) -> None:
    """Run one dispatch choice on raw device pointers (all checks done by the caller)."""
    import cupy

    if choice.kind == "empty":
        return
    with cupy.cuda.Device(device):
        if choice.kind == "copy":
            rt = cupy.cuda.runtime
            rt.memcpyAsync(dst_ptr, src_ptr, nbytes, rt.memcpyDeviceToDevice, stream)
            return
        fn = core_launch.function(choice.source, choice.expression, device=device)
        blocks, threads = plans.launch_geometry(choice, batch, rows, cols)
        p = (np.uint64(src_ptr), np.uint64(dst_ptr))
        if choice.kind in ("tile", "scalar"):
            args = (*p, np.int64(rows), np.int64(cols), np.int64(batch))
        else:
            args = (*p, np.int64(rows if choice.kind == "tall" else cols), np.int64(batch))
        fn((blocks, 1, 1), (threads, 1, 1), args, stream=core_launch.stream(stream))


def plan_call(x, out=None):
    """Check x and out and pick the kernel: (x, out or None, want, choice, batch, rows, cols)."""
    xo = as_operand(x, "x")
    mode, batch, rows, cols = _layout(xo)
    if xo.itemsize not in plans.ITEMSIZES:
        raise TypeError(f"x has dtype {xo.dtype} of {xo.itemsize} bytes; supported element sizes are "
                        f"{', '.join(map(str, plans.ITEMSIZES))} bytes")
    if xo.ptr % min(xo.itemsize, 16) and xo.size:
        raise ValueError(f"x's data pointer is not aligned to its {xo.itemsize}-byte elements")
    want = xo.shape[:-2] + (cols, rows)
    oo = None
    if out is not None:
        oo = as_operand(out, "out")
        _check_out(oo, xo, want)
    if mode == "copy":
        choice = plans.Choice("copy", xo.itemsize, reason="x is the transpose of a C-contiguous array")
    else:
        aligned = xo.ptr % 16 == 0 and (oo is None or oo.ptr % 16 == 0)  # new outputs are aligned
        choice = plans.choose(xo.itemsize, batch, rows, cols, device_plan(xo.device) if xo.size else None,
                              aligned)
    return xo, oo, want, choice, batch, rows, cols


def transpose(x, out=None, *, stream=None):
    """Swap the last two axes: (M, N) -> (N, M), (..., M, N) -> (..., N, M), C-contiguous result.

    x: a CuPy array, torch CUDA tensor, or anything exposing __cuda_array_interface__ or
    DLPack (returned as CuPy), C-contiguous or the transpose of a C-contiguous array; any
    dtype of 1, 2, 4, 8 or 16 bytes, bit-exact. out: optional result array of the same kind,
    shape (..., N, M), dtype and device, C-contiguous, not overlapping x. stream: CuPy or
    torch stream (default: the current stream of x's library). Raises TypeError/ValueError
    before anything runs when an argument is wrong.
    """
    xo, oo, want, choice, batch, rows, cols = plan_call(x, out)
    sp = stream_ptr(stream, xo)
    result = oo.obj if oo is not None else new_like(xo, want)
    dst = oo.ptr if oo is not None else as_operand(result, "out").ptr
    launch(choice, xo.ptr, dst, batch, rows, cols, xo.nbytes, xo.device, sp)
    return result


def explain(x) -> str:
    """Which kernel bwlab.transpose(x) would run, and why (checks x like transpose does)."""
    choice = plan_call(x)[3]
    return f"{choice.label}: {choice.reason}"
