"""What users would use instead, timed by the same harness in the same run.

Each peer turns a CuPy input into a zero-argument callable that does the operation and
returns its result (checked bit-exact before timing). torch and Triton see the same
memory through DLPack; all run on the legacy default stream, where the events are.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional


@dataclass(frozen=True)
class Peer:
    name: str
    role: str  # "ceiling" (memcpy), "copy", "transpose"
    origin: str
    make: Callable  # x (CuPy) -> callable returning the result (CuPy or torch)
    needs: tuple[str, ...] = ()
    dtypes: Optional[tuple[str, ...]] = None  # None: any

    @property
    def transposes(self) -> bool:
        return self.role == "transpose"

    def unavailable(self, dtype: str) -> Optional[str]:
        """Why this peer cannot run here, or None."""
        for mod in self.needs:
            try:
                __import__(mod)
            except Exception as exc:
                return f"{mod} not importable ({exc.__class__.__name__})"
        if self.dtypes is not None and dtype not in self.dtypes:
            return f"no {dtype} version"
        return None


def _memcpy(x):
    import cupy

    out = cupy.empty_like(x)
    rt = cupy.cuda.runtime

    def run():
        rt.memcpyAsync(out.data.ptr, x.data.ptr, x.nbytes, rt.memcpyDeviceToDevice,
                       cupy.cuda.get_current_stream().ptr)
        return out
    return run


def _copyto(x):
    import cupy

    out = cupy.empty_like(x)

    def run():
        cupy.copyto(out, x)
        return out
    return run


def _geam(x):
    import cupy
    import cupy.cublas  # noqa: F401  (not imported by `import cupy`)

    out = cupy.empty((x.shape[1], x.shape[0]), dtype=x.dtype)
    # C = B with transb = N is cuBLAS's in-place form; with beta = 0 the old contents of C do not matter.
    return lambda: cupy.cublas.geam("T", "N", 1.0, x, 0.0, out, out=out)


def _cupy_contiguous(x):
    import cupy

    return lambda: cupy.ascontiguousarray(x.T)


def _torch(x):
    import torch

    t = torch.from_dlpack(x)
    return lambda: t.t().contiguous()


def _triton(x):
    import torch

    from . import triton_peer

    t = torch.from_dlpack(x)
    out = torch.empty((t.shape[1], t.shape[0]), dtype=t.dtype, device=t.device)
    return lambda: triton_peer.transpose(t, out)


PEERS: tuple[Peer, ...] = (
    Peer("cudaMemcpy", "ceiling", "cudaMemcpyAsync device to device", _memcpy, ("cupy",)),
    Peer("cupy.copyto", "copy", "cupy.copyto(out, x)", _copyto, ("cupy",)),
    Peer("cublas.geam", "transpose", "cupy.cublas.geam('T', 'N', 1, x, 0, out)", _geam, ("cupy",),
         ("float32", "float64")),
    Peer("cupy.ascontiguousarray", "transpose", "cupy.ascontiguousarray(x.T)", _cupy_contiguous, ("cupy",)),
    Peer("torch", "transpose", "torch x.t().contiguous()", _torch, ("torch",)),
    Peer("triton", "transpose", "Triton 64x64 tiled transpose (bwlab.triton_peer)", _triton,
         ("torch", "triton")),
)

CPU_PEER = "numpy (CPU)"


def as_cupy(result):
    """A peer's result as a CuPy array (torch tensors come through DLPack)."""
    import cupy

    return result if isinstance(result, cupy.ndarray) else cupy.from_dlpack(result)


def get(name: str) -> Peer:
    for p in PEERS:
        if p.name == name:
            return p
    raise ValueError(f"unknown peer {name!r}; known: {', '.join(p.name for p in PEERS)}")
