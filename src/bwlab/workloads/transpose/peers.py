"""What users would call instead of bwlab.transpose, timed by the same harness in the same
run: one registry for the ladder and the bench.

Each peer's make(x, out, case) takes the CuPy input and an output buffer of the answer's
shape and returns (run, result): run() transposes, result() gives the answer as a CuPy
array of raw bits. torch and Triton see the same memory through DLPack, with the case's
dtype (bfloat16 arrives as uint16 bits and is viewed as bfloat16). All run on the current
stream, where the timing events are.
"""
from __future__ import annotations

from ...core.arrays import keep_latest
from ...core.workload import Case, Peer
from .catalog import OP
from .reference import ALL_DTYPES, host_transpose


def torch_view(a, dtype: str):
    """A torch tensor over a CuPy array's memory, with the case's dtype."""
    import torch

    if any(st < 0 for st in a.strides):
        raise NotImplementedError("torch tensors have no negative strides (x.flip copies first)")
    t = torch.from_dlpack(a)
    return t.view(getattr(torch, dtype)) if dtype == "bfloat16" else t


def _api(x, out, case: Case):
    from .api import transpose

    return (lambda: transpose(x, out)), (lambda: out)


def _copyto(x, out, case: Case):
    import cupy

    dst = cupy.empty_like(x)
    return (lambda: cupy.copyto(dst, x)), (lambda: dst)


def _geam(x, out, case: Case):
    import cupy
    import cupy.cublas  # noqa: F401  (not imported by `import cupy`)

    if x.ndim != 2:
        raise NotImplementedError("geam transposes one matrix; no batched form")
    # C = B with transb = N is cuBLAS's in-place form; with beta = 0 the old contents of C do not matter.
    return (lambda: cupy.cublas.geam("T", "N", 1.0, x, 0.0, out, out=out)), (lambda: out)


def _cupy(x, out, case: Case):
    import cupy

    return keep_latest(lambda: cupy.ascontiguousarray(x.swapaxes(-1, -2)))


def _torch(x, out, case: Case):
    t = torch_view(x, case.dtype)
    return keep_latest(lambda: t.transpose(-1, -2).contiguous())


def _triton(x, out, case: Case):
    from . import triton_peer

    if not x.flags.c_contiguous:
        raise NotImplementedError("the Triton kernel here takes C-contiguous inputs")
    t, o = torch_view(x, case.dtype), torch_view(out, case.dtype)
    return (lambda: triton_peer.transpose(t, o)), (lambda: out)


def _numpy(host, out, case: Case):
    """On the host: x and out are NumPy arrays; the answer is computed (and timed) on the CPU."""
    holder = {}

    def run():
        holder["r"] = host_transpose(host)

    return run, (lambda: holder["r"])


API = Peer("bwlab", OP, "bwlab.transpose(x, out)", _api, ("cupy",))
CPU = Peer("numpy (CPU)", OP, "numpy.ascontiguousarray(x.swapaxes(-1, -2))", _numpy)
PEERS: tuple[Peer, ...] = (
    API,
    Peer("cupy.copyto", "copy", "cupy.copyto(out, x)", _copyto, ("cupy",)),
    Peer("cublas.geam", OP, "cupy.cublas.geam('T', 'N', 1, x, 0, out)", _geam, ("cupy",), ("float32", "float64")),
    Peer("cupy", OP, "cupy.ascontiguousarray(x.swapaxes(-1, -2))", _cupy, ("cupy",)),
    Peer("torch", OP, "torch x.transpose(-1, -2).contiguous()", _torch, ("torch",)),
    Peer("triton", OP, "Triton 64x64 tiled transpose, written here", _triton, ("torch", "triton"),
         tuple(d for d in ALL_DTYPES if not d.startswith("complex"))),  # Triton has no complex types
    CPU,
)
