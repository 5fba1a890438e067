"""One call of the softmax (or its backward): checks, its plan, and its launch.

Every argument is checked before anything runs, so a refused call leaves `out` untouched.
A call's plan (kernel, grid, packed arguments) depends only on its signature (kind of array,
shape, dtype, dim, log, forward or backward, device, 16-byte alignment) and is cached, so a
repeated call costs a dictionary lookup, an allocation and a launch. Inputs that are not
C-contiguous are copied to a contiguous array first (the result is C-contiguous, as torch's).

Repeated calls on dense torch tensors or CuPy arrays take a fast path: what the checks decided
for a call's signature (kind, shape, strides, dtype, device and 16-byte alignment of x, grad and
out, with dim and log) is kept, so such a call reads the pointers, tests out for overlap, and
launches (on the H200 host the general path's checks took about 40 us of Python a call).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...core import launch as core_launch
from ...core.arrays import (Operand, as_operand, current_stream, is_dense, new_like, new_result, signature,
                               stream_ptr, torch_stream)
from . import plans
from .launch import clusters_fit, runner, team_blocks

for _source, _exprs in plans.expressions().items():
    core_launch.register(_source, _exprs)

_TORCH_DTYPES = {"torch.float32": "float32", "torch.float16": "float16", "torch.bfloat16": "bfloat16"}
_CUPY_DTYPES = {"float32": "float32", "float16": "float16"}


def dtype_name(x: Operand) -> str:
    name = _TORCH_DTYPES.get(str(x.dtype)) if x.kind == "torch" else _CUPY_DTYPES.get(str(x.dtype))
    if name is None:
        raise TypeError(f"{x.what} has dtype {x.dtype}; softmax takes float32, float16 or bfloat16")
    return name


def split(shape: tuple[int, ...], dim: int) -> tuple[int, int, int, int]:
    """(dim normalised, N, L, M) of a C-contiguous array reduced over dim."""
    nd = max(1, len(shape))
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    if not -nd <= dim < nd:
        raise ValueError(f"dim {dim} is out of range for a {len(shape)}-D array (use -{nd} to {nd - 1})")
    shape = tuple(shape) or (1,)
    d = dim % nd
    N = M = 1
    for n in shape[:d]:
        N *= n
    for n in shape[d + 1:]:
        M *= n
    return d, N, shape[d], M


def contiguous(x: Operand, stream: int) -> Operand:
    """x itself when C-contiguous, else a contiguous copy made on the call's stream."""
    if is_dense(x.shape, x.strides):
        return x
    if x.kind == "torch":
        import torch

        with torch.cuda.stream(torch_stream(stream, x.obj.device)):
            return as_operand(x.obj.contiguous(), x.what)
    import cupy

    with cupy.cuda.Device(x.device), core_launch.stream(stream):
        return as_operand(cupy.ascontiguousarray(x.obj), x.what)


@dataclass
class Plan:
    choice: plans.Choice
    run: Callable[[int, int, int, int, int], None]


_plans: dict[tuple, Plan] = {}


def plan_for(p: plans.Problem, device: int, teams: bool = True) -> Plan:
    key = (p, device) if teams else (p, device, "no teams")
    hit = _plans.get(key)
    if hit is None:
        held = team_blocks(p, device) if teams and plans.team_wanted(p) else 0
        choice = plans.choose(p, held=held, teams=teams)
        if choice.cluster > max(plans.CLUSTERS) and not clusters_fit(choice, device):
            choice = plans.choose(p, big_clusters=False, held=held, teams=teams)  # no GPC with 16 SMs free (MIG)
        hit = _plans[key] = Plan(choice, runner(choice, p.N, p.L, p.M, device))
    return hit


def _check_out(out: Operand, x: Operand, sources: list[Operand]) -> None:
    if out.kind != x.kind:
        raise TypeError(f"out is a {out.kind} array but x is {x.kind}; pass the same kind")
    if out.dtype != x.dtype:
        raise TypeError(f"out has dtype {out.dtype}, x has {x.dtype}")
    if tuple(out.shape) != tuple(x.shape):
        raise ValueError(f"out must have shape {tuple(x.shape)}, got {tuple(out.shape)}")
    if out.device != x.device:
        raise ValueError(f"out is on GPU {out.device}, x on GPU {x.device}")
    if not is_dense(out.shape, out.strides):
        raise ValueError("out must be C-contiguous")
    for s in sources:
        if out.overlaps(s):
            raise ValueError(f"out overlaps {s.what}; pass a separate output array")


def _workspace(kind: str, obj, device: int, nbytes: int, stream: int, current: bool):
    """Scratch for partial states, allocated on the call's stream (freed in stream order). current:
    `stream` is the current stream of the array's library (torch: of the array's device; CuPy: the
    current one, used here only when the array's device is current), so no stream context is
    entered (entering one cost 25-30 us of the host's time a call on the H200 host)."""
    if current:
        if kind == "torch":
            import torch

            return obj.new_empty(nbytes, dtype=torch.uint8)
        import cupy

        if cupy.cuda.runtime.getDevice() == device:
            return cupy.empty(nbytes, dtype=cupy.uint8)
    if kind == "torch":
        import torch

        with torch.cuda.stream(torch_stream(stream, obj.device)):
            return torch.empty(nbytes, dtype=torch.uint8, device=obj.device)
    import cupy

    with cupy.cuda.Device(device), core_launch.stream(stream):
        return cupy.empty(nbytes, dtype=cupy.uint8)


def _ptr(buf) -> int:
    return buf.data_ptr() if hasattr(buf, "data_ptr") else buf.data.ptr


@dataclass
class Seen:
    """What the checks decided for a call's signature (the fast path): x, grad and out dense."""
    problem: plans.Problem
    device: int
    shape: tuple[int, ...]  # of x, grad and out alike
    nbytes: int             # of each of them


_seen: dict[tuple, Seen] = {}


def _key(x, dim, log, out, grad):
    """(the fast path's key, the pointers of x, grad and out) of a call on torch tensors or CuPy
    arrays; (None, None) for anything else, which takes the general path."""
    sx = signature(x)
    if sx is None or type(dim) is not int or type(log) is not bool:
        return None, None
    sg = signature(grad) if grad is not None else None
    so = signature(out) if out is not None else None
    if (grad is not None and sg is None) or (out is not None and so is None):
        return None, None
    key = (sx[:5], sx[5] % 16, dim, log, sg and (sg[:5], sg[5] % 16), so and (so[:5], so[5] % 16))
    return key, (sx[5], sg[5] if sg else 0, so[5] if so else 0)


def run(x, dim: int = -1, log: bool = False, out=None, stream=None, grad=None):
    """Forward (grad None): softmax of x. Backward: x is the forward's output y, grad the
    incoming gradient. Returns out (a new array of x's kind when None)."""
    key, ptrs = _key(x, dim, log, out, grad)
    seen = _seen.get(key) if key is not None else None
    if seen is None:
        return _run_checked(x, dim, log, out, stream, grad, key)
    xp, gp, op = ptrs
    kind, nb = key[0][0], seen.nbytes
    if out is None:
        result = new_result(kind, x, seen.shape, seen.device)
        op = _ptr(result)
    elif nb and (op < xp + nb and xp < op + nb or grad is not None and op < gp + nb and gp < op + nb):
        return _run_checked(x, dim, log, out, stream, grad, None)  # raises, naming the overlap
    else:
        result = out
    s = current_stream(stream, kind, x, seen.device)  # checks stream= as the first call did
    if nb == 0:
        return result
    # the plan is looked up each call: tests force plans into _plans
    _launch(seen.problem, kind, x, seen.device, xp, gp, op, s, stream is None)
    return result


def _launch(p, kind: str, obj, device: int, xp: int, gp: int, op: int, s: int, current: bool) -> None:
    """p's plan run with its workspace (if any) allocated on stream s. A team's cooperative grid
    is not put in a graph being captured, and a GPU that refuses it (it holds fewer blocks than
    its occupancy said: an SM limit, other work) gets the kernel the row takes without teams."""
    def go(plan):
        ws = plan.choice.workspace_bytes
        wb = _workspace(kind, obj, device, ws, s, current) if ws else None
        plan.run(xp, gp, op, _ptr(wb) if wb is not None else 0, s)

    plan = plan_for(p, device)
    if not plan.choice.cooperative:
        return go(plan)
    if core_launch.capturing(s):
        return go(plan_for(p, device, teams=False))
    try:
        go(plan)
    except core_launch.LaunchTooLarge:
        _plans[(p, device)] = fallback = plan_for(p, device, teams=False)
        go(fallback)


def _run_checked(x, dim, log, out, stream, grad, key):
    """The general path: every check, then the launch; a call on dense arrays leaves its
    signature's decisions in _seen under `key`."""
    op = "forward" if grad is None else "backward"
    if not isinstance(log, bool):
        raise TypeError(f"log must be True or False, got {log!r}")
    xo = as_operand(x, "y" if grad is not None else "x")
    dtype = dtype_name(xo)
    d, N, L, M = split(xo.shape, dim)
    sources = [xo]
    go = None
    if grad is not None:
        go = as_operand(grad, "grad")
        if go.kind != xo.kind or go.dtype != xo.dtype or tuple(go.shape) != tuple(xo.shape) or go.device != xo.device:
            raise ValueError(f"grad must be the same kind, dtype, shape and device as y: got {go.kind} "
                             f"{go.dtype} {tuple(go.shape)} on GPU {go.device}, y is {xo.kind} {xo.dtype} "
                             f"{tuple(xo.shape)} on GPU {xo.device}")
        sources.append(go)
    oo = None
    if out is not None:
        oo = as_operand(out, "out")
        _check_out(oo, xo, sources)
    s = stream_ptr(stream, xo)
    result = out if out is not None else new_like(xo, tuple(xo.shape))
    a = contiguous(xo, s)
    b = contiguous(go, s) if go is not None else None
    yo = oo or as_operand(result, "out")
    aligned = all(o.ptr % 16 == 0 for o in (a, b, yo) if o is not None)
    p = plans.Problem(N, L, M, dtype, op, log, aligned)
    # a new result is aligned to 256 bytes by both allocators: its alignment is not in the key
    if key is not None and a is xo and b is go and (out is not None or yo.ptr % 16 == 0):
        _seen[key] = Seen(p, xo.device, tuple(xo.shape), xo.nbytes)
    if xo.size == 0:
        return result
    _launch(p, xo.kind, xo.obj, xo.device, a.ptr, b.ptr if b is not None else 0, yo.ptr, s,
            stream is None)
    return result


def explain(x, dim: int = -1, log: bool = False, backward: bool = False) -> str:
    """The kernel a call would run, and why."""
    xo = as_operand(x, "x")
    dtype = dtype_name(xo)
    _, N, L, M = split(xo.shape, dim)
    dense = is_dense(xo.shape, xo.strides)
    # a strided x runs on its contiguous copy, a new allocation (aligned, as a new result is)
    aligned = xo.ptr % 16 == 0 if dense else True
    p = plans.Problem(N, L, M, dtype, "backward" if backward else "forward", log, aligned)
    c = plan_for(p, xo.device).choice
    axis = "last axis" if M == 1 else f"strided axis (stride {M})"
    copy = "" if dense else "; x is copied to a contiguous array first"
    return f"{c.kernel} ({c.why}) on [{N}, {L}, {M}], {axis}{copy}"
