"""Operands of the public API: CuPy arrays, torch CUDA tensors, and anything exposing
__cuda_array_interface__ or DLPack, seen as a data pointer, a shape, strides in elements
(negative allowed), an element size and a device; plus the caller's stream."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from .device import INSTALL_GPU, cuda_available


@dataclass
class Operand:
    obj: Any                  # what the caller passed (results are returned as the same kind)
    kind: str                 # "torch" | "cupy"
    ptr: int                  # address of element [0, ..., 0]
    shape: tuple[int, ...]
    strides: tuple[int, ...]  # in elements
    itemsize: int
    dtype: Any
    device: int
    what: str                 # the argument's name, for messages

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    def span(self) -> tuple[int, int]:
        """[first, last) byte addresses the elements occupy (empty arrays: an empty range)."""
        if self.size == 0:
            return self.ptr, self.ptr
        lo = hi = 0
        for n, s in zip(self.shape, self.strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
        return self.ptr + lo * self.itemsize, self.ptr + (hi + 1) * self.itemsize

    def overlaps(self, other: "Operand") -> bool:
        a0, a1 = self.span()
        b0, b1 = other.span()
        return a0 < a1 and b0 < b1 and a0 < b1 and b0 < a1


def c_strides(shape) -> tuple[int, ...]:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


def is_dense(shape, strides) -> bool:
    """True when elements with these strides form a C-contiguous array of `shape`
    (axes of extent 1 may have any stride)."""
    if int(np.prod(shape, dtype=np.int64)) <= 1:
        return True
    return all(s == c for s, c, n in zip(strides, c_strides(shape), shape) if n != 1)


def _torch_operand(t, what: str) -> Operand:
    import torch

    if t.layout != torch.strided:
        raise TypeError(f"{what}: {t.layout} tensors are not supported; pass a dense (strided) tensor")
    if t.is_quantized:
        raise TypeError(f"{what}: quantized tensors are not supported")
    if t.device.type != "cuda":
        raise TypeError(f"{what} is a torch tensor on {t.device}; bwlab needs a CUDA tensor (x.cuda())")
    return Operand(t, "torch", t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.element_size(), t.dtype,
                   t.device.index if t.device.index is not None else 0, what)


def _cupy_operand(a, what: str) -> Operand:
    if a.dtype.kind not in "biufc":
        raise TypeError(f"{what}: dtype {a.dtype} is not a number or bool type")
    if any(s % a.itemsize for s in a.strides):
        raise ValueError(f"{what}: strides {a.strides} (bytes) are not multiples of its {a.itemsize}-byte elements")
    strides = tuple(s // a.itemsize for s in a.strides)
    return Operand(a, "cupy", a.data.ptr, tuple(a.shape), strides, a.itemsize, a.dtype, a.device.id, what)


def as_operand(x, what: str = "x") -> Operand:
    """Recognise the array type, or raise TypeError saying what was expected."""
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        return _torch_operand(x, what)
    if isinstance(x, np.ndarray) or mod == "numpy":
        raise TypeError(f"{what} is a NumPy array on the CPU; bwlab needs a GPU array "
                        "(cupy.asarray(x) or torch.from_numpy(x).cuda())")
    if mod == "cupy" or hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__"):
        try:
            import cupy
        except ImportError:
            raise TypeError(f"{what}: reading a {type(x).__name__} needs CuPy ({INSTALL_GPU})") from None
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


def stream_ptr(stream, x: Operand) -> int:
    """The cudaStream_t to launch on: the given stream, else the current stream of x's
    library (torch's for a tensor, CuPy's otherwise)."""
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


def torch_stream(handle: int, device):
    """torch's stream object for the raw cudaStream_t `handle` on `device`, to enter with
    `torch.cuda.stream(...)` so that torch's own work (a copy, an allocation) lands on the stream
    a kernel is launched on. Not `torch.cuda.ExternalStream(handle)` alone: given 0, the legacy
    default stream, it returns a fresh stream from torch's pool instead (pytorch/pytorch#182960),
    whose work is not ordered with the default stream's."""
    import torch

    wrap = getattr(torch.cuda, "get_stream_from_external", None)  # torch >= 2.7: faithful for 0 too
    if wrap is not None:
        return wrap(handle, device)
    if handle == 0:
        return torch.cuda.default_stream(device)
    return torch.cuda.ExternalStream(handle, device=device)


def new_like(x: Operand, shape: tuple[int, ...]):
    """An uninitialised C-contiguous array of x's kind, dtype and device."""
    if x.kind == "torch":
        import torch

        return torch.empty(shape, dtype=x.dtype, device=x.obj.device)
    import cupy

    with cupy.cuda.Device(x.device):
        return cupy.empty(shape, dtype=x.dtype)


def as_cupy(result):
    """A result (CuPy or torch) as a CuPy array of the same bits."""
    import cupy

    if isinstance(result, cupy.ndarray):
        return result
    import torch

    if result.dtype == torch.bool:  # DLPack carries no bool for CuPy: the bytes, seen as bool again
        return cupy.from_dlpack(result.view(torch.uint8)).view(cupy.bool_)
    if result.dtype == torch.bfloat16:  # bfloat16 bits travel as uint16
        return cupy.from_dlpack(result.view(torch.uint16))
    return cupy.from_dlpack(result)


def keep_latest(make):
    """(run, result) for a callable that allocates its output: run() keeps only the latest
    result alive, result() gives it as CuPy."""
    holder = {}

    def run():
        holder.pop("r", None)
        holder["r"] = make()

    return run, (lambda: as_cupy(holder["r"]))


def torch_compiled(fn, backend: str = "inductor"):
    """torch.compile(fn, dynamic=False) for one case alone. Dynamo's caches are cleared first:
    a benchmark compiles one lambda for many shapes, and past dynamo's recompile limit (8) it
    would run the function eagerly, so a 'torch.compile' figure would be torch eager's."""
    import torch

    torch._dynamo.reset()
    return torch.compile(fn, dynamic=False, backend=backend)


# --- the fast path of repeated calls ------------------------------------------------------

def torch_op_needed(*tensors, stream=None) -> bool:
    """True when a call on these torch tensors must go through its registered torch operator (a
    tensor needs a gradient, or torch.compile is tracing). The operator runs on torch's current
    stream, so an explicit stream= is refused then (ValueError) rather than losing the gradient."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(tensors[0], torch.Tensor):
        return False
    needed = (torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)) \
        or torch.compiler.is_compiling()
    if needed and stream is not None:
        raise ValueError("stream= cannot be combined with a tensor that requires grad or with torch.compile: "
                         "call inside `with torch.cuda.stream(s):` instead")
    return needed


def signature(a) -> Optional[tuple]:
    """(kind, shape, strides, dtype, device, pointer) read straight off a dense CUDA torch tensor
    or a CuPy array (None for anything else, which takes the general path and its checks: a CPU,
    sparse or other-accelerator tensor has no strides or no CUDA device to key on)."""
    torch = sys.modules.get("torch")
    if torch is not None and type(a) is torch.Tensor:
        if not a.is_cuda or a.layout is not torch.strided:
            return None
        return ("torch", a.shape, a.stride(), a.dtype, a.get_device(), a.data_ptr())
    cupy = sys.modules.get("cupy")
    if cupy is not None and type(a) is cupy.ndarray:
        mp = a.data  # its device_id, as a.device.id without making a Device object each call
        return ("cupy", a.shape, a.strides, a.dtype, mp.device_id, mp.ptr)
    return None


def current_stream(stream, kind: str, x, device: int) -> int:
    """The raw stream a call runs on: `stream` if given, else the current stream of x's library."""
    if stream is None and kind == "torch":
        torch = sys.modules["torch"]
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        return raw(device) if raw is not None else torch.cuda.current_stream(device).cuda_stream
    if stream is None:
        import cupy

        return cupy.cuda.get_current_stream().ptr
    return stream_ptr(stream, as_operand(x, "x"))


def on_device(device: int, runner, xp: int, op: int, stream: int) -> None:
    """runner(xp, op, stream) with `device` current (switching only when it is not)."""
    import cupy

    if cupy.cuda.runtime.getDevice() == device:
        runner(xp, op, stream)
    else:
        with cupy.cuda.Device(device):
            runner(xp, op, stream)


def check_out(out: Operand, x: Operand, want: tuple[int, ...]) -> None:
    """A result array given by the caller: same kind, dtype and device as x, shape want,
    C-contiguous; TypeError/ValueError naming what differs."""
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
    if out.ptr % out.itemsize and out.size:  # the kernels store whole elements (and vectors of them)
        raise ValueError(f"out's data pointer is not aligned to its {out.itemsize}-byte elements")


def new_result(kind: str, x, shape: tuple[int, ...], device: int):
    """A new C-contiguous result of x's kind and dtype on its device (the fast path's allocation)."""
    if kind == "torch":
        return x.new_empty(shape)
    import cupy

    if kind == "cupy" and type(x) is cupy.ndarray:
        if cupy.cuda.runtime.getDevice() == device:  # entering a Device context costs 2 us
            return cupy.empty(shape, dtype=x.dtype)
        with cupy.cuda.Device(device):
            return cupy.empty(shape, dtype=x.dtype)
    return new_like(as_operand(x, "x"), shape)


def release_cached_memory() -> None:
    """Hand the GPU memory that CuPy's pool and torch's caching allocator keep back to the driver
    (only for those already imported: one never imported holds none; CuPy only where it sees a GPU,
    as its pool asks the driver for the device first)."""
    import gc

    gc.collect()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        torch.cuda.empty_cache()
    cupy = sys.modules.get("cupy")
    if cupy is not None and cuda_available()[0]:
        cupy.get_default_memory_pool().free_all_blocks()
