"""What users would call instead of bwlab.softmax, timed by the same harness in the same run.
Each peer's make(inputs, out, case) returns (run, result): run() computes, result() gives the
answer as a CuPy array of the case's bits. torch sees the same memory through DLPack
(bfloat16 arrives as uint16 bits and is viewed as bfloat16)."""
from __future__ import annotations

from ...core.arrays import as_cupy, keep_latest, torch_compiled
from ...core.workload import Case, Peer
from .catalog import OP


def torch_view(a, dtype: str):
    import torch

    t = torch.from_dlpack(a)
    return t.view(torch.bfloat16) if dtype == "bfloat16" else t


def _args(inputs):
    return inputs if isinstance(inputs, tuple) else (inputs, None)


def api_operand(a, dtype: str):
    """What a user would pass: the CuPy array, or for bfloat16 (which CuPy lacks) a torch view."""
    return torch_view(a, dtype) if a is not None and dtype == "bfloat16" else a


def _api(inputs, out, case: Case):
    from .api import softmax, softmax_backward

    a, g = (api_operand(t, case.dtype) for t in _args(inputs))
    out = api_operand(out, case.dtype)
    dim, log = case.param("dim", -1), bool(case.param("log", False))
    if g is None:
        return (lambda: softmax(a, dim, log=log, out=out)), (lambda: as_cupy(out))
    return (lambda: softmax_backward(a, g, dim, log=log, out=out)), (lambda: as_cupy(out))


def _torch_fn(case: Case):
    import torch

    dim, log = case.param("dim", -1), bool(case.param("log", False))
    if case.param("op", "forward") == "backward":
        dt = getattr(torch, case.dtype)
        if log:
            return lambda y, g: torch.ops.aten._log_softmax_backward_data(g, y, dim, dt)
        return lambda y, g: torch.ops.aten._softmax_backward_data(g, y, dim, dt)
    if log:
        return lambda x: torch.log_softmax(x, dim)
    return lambda x: torch.softmax(x, dim)


def _torch(inputs, out, case: Case, compiled: bool = False):
    import torch

    fn = _torch_fn(case)
    if compiled:
        fn = torch_compiled(fn)
    ts = [torch_view(a, case.dtype) for a in _args(inputs) if a is not None]
    with torch.no_grad():
        return keep_latest(lambda: fn(*ts))


def _compiled(inputs, out, case: Case):
    return _torch(inputs, out, case, compiled=True)


def _cupy(inputs, out, case: Case):
    import cupyx.scipy.special as sp

    if case.param("op", "forward") == "backward":
        raise NotImplementedError("CuPy has no softmax backward")
    dim = case.param("dim", -1)
    fn = sp.log_softmax if case.param("log", False) else sp.softmax
    return keep_latest(lambda: fn(inputs, axis=dim))


API = Peer("bwlab", OP, "bwlab.softmax(x, dim, out=out)", _api, ("cupy",))
PEERS: tuple[Peer, ...] = (
    API,
    Peer("torch", OP, "torch.softmax(x, dim) (eager)", _torch, ("torch",)),
    Peer("torch.compile", OP, "torch.compile(lambda x: torch.softmax(x, dim), dynamic=False)", _compiled,
         ("torch",)),
    Peer("cupy", OP, "cupyx.scipy.special.softmax(x, axis=dim)", _cupy, ("cupy",), ("float32", "float16")),
)
