"""What users would call instead of bwlab.permute, timed by the same harness in the same run.
Each peer's make(x, out, case) returns (run, result): run() permutes, result() gives the answer
as a CuPy array. torch sees the same memory through DLPack."""
from __future__ import annotations

from ...core.arrays import keep_latest, torch_compiled
from ...core.workload import Case, Peer
from ..transpose.peers import torch_view
from .catalog import OP


def _dims(case: Case) -> tuple[int, ...]:
    return tuple(case.param("dims"))


def _api(x, out, case: Case):
    from .api import permute

    dims = _dims(case)
    return (lambda: permute(x, dims, out=out)), (lambda: out)


def _cupy(x, out, case: Case):
    import cupy

    dims = _dims(case)
    return keep_latest(lambda: cupy.ascontiguousarray(cupy.transpose(x, dims)))


def _torch(x, out, case: Case):
    t, dims = torch_view(x, case.dtype), _dims(case)
    return keep_latest(lambda: t.permute(dims).contiguous())


def _compiled(x, out, case: Case):
    t, dims = torch_view(x, case.dtype), _dims(case)
    fn = torch_compiled(lambda a: a.permute(dims).contiguous())
    return keep_latest(lambda: fn(t))


API = Peer("bwlab", OP, "bwlab.permute(x, dims, out=out)", _api, ("cupy",))
PEERS: tuple[Peer, ...] = (
    API,
    Peer("torch", OP, "torch x.permute(dims).contiguous()", _torch, ("torch",)),
    Peer("torch.compile", OP, "torch.compile(lambda x: x.permute(dims).contiguous())", _compiled,
         ("torch", "triton")),
    Peer("cupy", OP, "cupy.ascontiguousarray(cupy.transpose(x, dims))", _cupy, ("cupy",)),
)
