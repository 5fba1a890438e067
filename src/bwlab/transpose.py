"""bwlab.transpose(): the production transpose for CuPy arrays, torch tensors and anything
with __cuda_array_interface__ or DLPack.

Every argument is checked before anything runs, so a refused call leaves `out` untouched.
Kernels see raw pointers and byte sizes, so every dtype of 1, 2, 4, 8 or 16 bytes is moved
bit for bit. Launches go to the caller's current stream (torch's for a torch tensor).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from . import build, dispatch


@dataclass
class Operand:
    """A GPU array seen as a pointer, a shape and an element size."""
    obj: Any            # what the caller passed (returned as the same kind)
    kind: str           # "torch" | "cupy"
    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]  # in elements
    itemsize: int
    dtype: Any
    device: int
    what: str           # "x" or "out", for messages

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    def c_strides(self, shape=None) -> tuple[int, ...]:
        shape = self.shape if shape is None else shape
        out, acc = [], 1
        for n in reversed(shape):
            out.append(acc)
            acc *= max(n, 1)
        return tuple(reversed(out))

    def dense_as(self, shape) -> bool:
        """True when the elements are laid out as a C-contiguous array of `shape`."""
        if self.size <= 1:
            return True
        return all(s == c for s, c, n in zip(self.strides, self.c_strides(shape), shape) if n != 1)


def _torch_operand(t, what: str) -> Operand:
    import torch

    if t.layout != torch.strided:
        raise TypeError(f"{what}: {t.layout} tensors are not supported; pass a dense (strided) tensor")
    if t.is_quantized:
        raise TypeError(f"{what}: quantized tensors are not supported")
    if t.device.type != "cuda":
        raise TypeError(f"{what} is a torch tensor on {t.device}; bwlab.transpose needs a CUDA tensor (x.cuda())")
    return Operand(t, "torch", t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.element_size(), t.dtype,
                   t.device.index if t.device.index is not None else 0, what)


def _cupy_operand(a, what: str) -> Operand:
    if a.dtype.kind not in "biufc":
        raise TypeError(f"{what}: dtype {a.dtype} is not a number or bool type")
    strides = tuple(s // a.itemsize if s % a.itemsize == 0 else -1 for s in a.strides)
    if -1 in strides or any(s < 0 for s in strides):
        strides = tuple(-1 for _ in a.strides)  # neither C- nor transposed-contiguous: refused below
    return Operand(a, "cupy", a.data.ptr, tuple(a.shape), strides, a.itemsize, a.dtype, a.device.id, what)


def as_operand(x, what: str = "x") -> Operand:
    """Recognise the array type, or raise TypeError saying what was expected."""
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        return _torch_operand(x, what)
    if isinstance(x, np.ndarray) or mod == "numpy":
        raise TypeError(f"{what} is a NumPy array on the CPU; bwlab.transpose needs a GPU array "
                        "(cupy.asarray(x) or torch.from_numpy(x).cuda())")
    if mod == "cupy" or hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__"):
        try:
            import cupy
        except ImportError:
            raise TypeError(f"{what}: reading a {type(x).__name__} needs CuPy (pip install bwlab[gpu])") from None
        if isinstance(x, cupy.ndarray):
            return _cupy_operand(x, what)
        if hasattr(x, "__cuda_array_interface__"):
            return _cupy_operand(cupy.asarray(x), what)
        try:
            return _cupy_operand(cupy.from_dlpack(x), what)
        except Exception as exc:  # e.g. a CPU array offered through DLPack
            raise TypeError(f"{what}: cannot view it on the GPU through DLPack ({exc})") from None
    raise TypeError(f"{what} must be a GPU array (CuPy, torch, __cuda_array_interface__ or DLPack), "
                    f"got {type(x).__name__}")


def _stream_ptr(stream, x: Operand) -> int:
    if stream is None:
        if x.kind == "torch":
            import torch

            return torch.cuda.current_stream(x.device).cuda_stream
        import cupy

        return cupy.cuda.get_current_stream().ptr
    for attr in ("ptr", "cuda_stream"):  # CuPy streams, torch streams
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    if isinstance(stream, int):
        return stream
    raise TypeError(f"stream must be a CuPy or torch stream or a cudaStream_t int, got {type(stream).__name__}")


def _layout(x: Operand) -> tuple[str, int, int, int]:
    """('kernel' | 'copy', batch, rows, cols) for x's layout, or ValueError."""
    if len(x.shape) < 2:
        raise ValueError(f"x must be 2-D (M, N) or a batch (..., M, N), got {len(x.shape)}-D shape {x.shape}")
    rows, cols = x.shape[-2:]
    batch = int(np.prod(x.shape[:-2], dtype=np.int64)) if len(x.shape) > 2 else 1
    if x.dense_as(x.shape):
        return "kernel", batch, rows, cols
    swapped = x.shape[:-2] + (cols, rows)
    # The transpose of a C-contiguous array (a Fortran-ordered matrix, a .T / .mT view): its
    # bytes are already the answer's bytes in the answer's order.
    strides_swapped = x.strides[:-2] + (x.strides[-1], x.strides[-2])
    probe = Operand(None, x.kind, 0, swapped, strides_swapped, x.itemsize, x.dtype, x.device, x.what)
    if probe.dense_as(swapped):
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
    if not out.dense_as(out.shape):
        raise ValueError("out must be C-contiguous")
    if x.nbytes and out.ptr < x.ptr + x.nbytes and x.ptr < out.ptr + out.nbytes:
        raise ValueError("out overlaps x; transposing in place is not supported")


def _new_like(x: Operand, shape: tuple[int, ...]):
    if x.kind == "torch":
        import torch

        return torch.empty(shape, dtype=x.dtype, device=x.obj.device)
    import cupy

    with cupy.cuda.Device(x.device):
        return cupy.empty(shape, dtype=x.dtype)


_plans: dict[int, Optional[dict]] = {}
_builds: dict[tuple[str, str], build.Build] = {}


def device_plan(device: int) -> Optional[dict]:
    """The stored plan for this GPU model (None: built-in defaults); read once per process."""
    if device not in _plans:
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(device)["name"]
        _plans[device] = dispatch.load_plan(name.decode() if isinstance(name, bytes) else name)
    return _plans[device]


def kernel_function(family: str, expression: str, device: int):
    import cupy

    cc = cupy.cuda.Device(device).compute_capability
    arch = f"sm_{cc}"
    key = (family, arch)
    if key not in _builds:
        _builds[key] = build.compile_family(family, dispatch.expressions()[family], arch)
    return build.function(_builds[key], expression)


_streams: dict[int, object] = {}


def _external(ptr: int):
    """A CuPy view of a raw stream handle (cached: the object only wraps the pointer)."""
    if ptr not in _streams:
        import warnings

        import cupy

        with warnings.catch_warnings():  # CuPy 14 prefers Stream.from_external(protocol object)
            warnings.simplefilter("ignore", DeprecationWarning)
            _streams[ptr] = cupy.cuda.ExternalStream(ptr)
    return _streams[ptr]


def launch(choice: dispatch.Choice, src_ptr: int, dst_ptr: int, batch: int, rows: int, cols: int,
           nbytes: int, device: int, stream_ptr: int) -> None:
    """Run one dispatch choice on raw device pointers (all checks done by the caller)."""
    import cupy

    with cupy.cuda.Device(device):
        stream = _external(stream_ptr)
        if choice.kind == "empty":
            return
        if choice.kind == "copy":
            rt = cupy.cuda.runtime
            rt.memcpyAsync(dst_ptr, src_ptr, nbytes, rt.memcpyDeviceToDevice, stream_ptr)
            return
        fn = kernel_function(choice.family, choice.expression, device)
        blocks, threads = dispatch.launch_geometry(choice, batch, rows, cols)
        p = (np.uint64(src_ptr), np.uint64(dst_ptr))
        if choice.kind in ("tile", "scalar"):
            args = (*p, np.int64(rows), np.int64(cols), np.int64(batch))
        else:
            args = (*p, np.int64(rows if choice.kind == "tall" else cols), np.int64(batch))
        fn((blocks, 1, 1), (threads, 1, 1), args, stream=stream)


def plan_call(x, out=None):
    """Check x and out and pick the kernel: (x, out or None, choice, batch, rows, cols)."""
    xo = as_operand(x, "x")
    mode, batch, rows, cols = _layout(xo)
    if xo.itemsize not in dispatch.ITEMSIZES:
        raise TypeError(f"x has dtype {xo.dtype} of {xo.itemsize} bytes; supported element sizes are "
                        f"{', '.join(map(str, dispatch.ITEMSIZES))} bytes")
    if xo.ptr % min(xo.itemsize, 16) and xo.size:
        raise ValueError(f"x's data pointer is not aligned to its {xo.itemsize}-byte elements")
    want = xo.shape[:-2] + (cols, rows)
    oo = None
    if out is not None:
        oo = as_operand(out, "out")
        _check_out(oo, xo, want)
    if mode == "copy":
        choice = dispatch.Choice("copy", xo.itemsize, reason="x is the transpose of a C-contiguous array")
    else:
        aligned = xo.ptr % 16 == 0 and (oo is None or oo.ptr % 16 == 0)  # new outputs are aligned
        choice = dispatch.choose(xo.itemsize, batch, rows, cols, device_plan(xo.device) if xo.size else None,
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
    stream_ptr = _stream_ptr(stream, xo)
    result = oo.obj if oo is not None else _new_like(xo, want)
    dst = oo.ptr if oo is not None else as_operand(result, "out").ptr
    launch(choice, xo.ptr, dst, batch, rows, cols, xo.nbytes, xo.device, stream_ptr)
    return result


def explain(x) -> str:
    """Which kernel bwlab.transpose(x) would run, and why (checks x like transpose does)."""
    choice = plan_call(x)[3]
    return f"{choice.label}: {choice.reason}"
