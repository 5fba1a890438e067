"""One call of the permutation: its plan and its launch.

Every argument is checked before anything runs, so a refused call leaves `out` untouched.
Kernels see raw pointers and byte sizes, so every dtype of 1, 2, 4, 8 or 16 bytes is moved bit
for bit. A call's plan depends only on its signature (kind, shape, strides, dtype, device, the
pointers' alignment, the permutation, and the same of `out`): it is made once and cached, so a
repeated call costs a dictionary lookup, an allocation, an overlap test and a launch.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Callable, Optional

from ...core import launch as core_launch
from ...core.arrays import (Operand, as_operand, check_out, current_stream, new_result, on_device,
                               signature)
from ..transpose import calls as tcalls
from ..transpose.plans import MAX_BLOCKS
from . import plans

for _source, _exprs in plans.expressions().items():
    core_launch.register(_source, _exprs)


@dataclass
class Plan:
    choice: plans.Choice
    shape: tuple[int, ...]    # of the result
    device: int
    x_lo: int                 # the bytes x's elements occupy, relative to its pointer: [lo, hi)
    x_hi: int
    out_bytes: int
    run: Callable[[int, int, int], None]  # run(x_ptr, out_ptr, stream)
    blocks: int = 0           # of the kernel this plan launches (0: a copy, or nothing)


def _sms(device: int) -> int:
    from ...core.device import query

    return query(device).sm_count


def _runner(choice: plans.Choice, x: Operand) -> tuple[Callable, int]:
    """(run(x_ptr, out_ptr, stream), blocks) for a choice, everything but the pointers packed once
    (blocks: of the kernel it launches; 0 for a copy or nothing)."""
    kind, e, axes = choice.kind, choice.itemsize, choice.axes
    if kind == "empty":
        return (lambda xp, op, stream: None), 0
    if kind == "copy":
        import cupy

        rt, nbytes = cupy.cuda.runtime, x.nbytes
        return (lambda xp, op, stream: rt.memcpyAsync(op, xp, nbytes, rt.memcpyDeviceToDevice, stream)), 0
    if kind == "transpose":
        lay = choice.layout
        view = Operand(None, x.kind, x.ptr, (lay.batch, lay.rows, lay.cols), (lay.bstride or 0, lay.rs, 1), e,
                       x.dtype, x.device, "x")
        return tcalls.kernel_runner(choice.inner, lay, view), 0
    fn = core_launch.function(choice.source, choice.expression, device=x.device)
    ptrs = [("ptr", 0), ("ptr", 0)]
    if kind == "tiles":
        t = choice.tiling
        tr, tc = plans.tile_of(choice)
        count = math.prod(a.n for a in t.batch)
        blocks = min(count * plans.cdiv(t.rows, tr) * plans.cdiv(t.cols, tc), MAX_BLOCKS)
        args = ptrs + [("i64", t.rows), ("i64", t.cols), ("bytes", plans.fold_struct(t.rf)),
                       ("bytes", plans.fold_struct(t.cf)), ("bytes", plans.batch_struct(t.batch)),
                       ("i32", len(t.batch)), ("i64", count)]
    elif kind in ("scalar", "rowtiles"):  # rowtiles: the same arguments, in units of whole rows
        *batch, c, r = axes
        tr, tc = plans.tile_of(choice)
        count = math.prod(a.n for a in batch)
        blocks = min(count * plans.cdiv(c.n, tr) * plans.cdiv(r.n, tc), MAX_BLOCKS)
        args = ptrs + [("i64", c.n), ("i64", r.n), ("i64", c.si), ("i64", r.so),
                       ("bytes", plans.batch_struct(batch)), ("i32", len(batch)), ("i64", count)]
    elif kind == "rows":
        *outer, last = axes
        v = choice.vector
        chunks = x.nbytes // v
        per_row = last.n * e // v
        blocks = max(1, min(plans.cdiv(chunks, choice.threads * plans.ROWS_UNROLL), 64 * _sms(x.device)))
        args = ptrs + [("bytes", plans.rows_struct(outer, e)), ("i32", len(outer)),
                       ("bytes", struct.pack("<3I", *plans.fast_div(per_row))), ("i32", chunks)]
    else:  # gather
        total = math.prod(a.n for a in axes)
        blocks = max(1, min(plans.cdiv(total, choice.threads), 65536 * 8))
        args = ptrs + [("bytes", plans.gather_struct(axes)), ("i32", len(axes)), ("i64", total)]
    packed = core_launch.PackedLaunch(fn, (blocks, 1, 1), (choice.threads, 1, 1), args)
    return (lambda xp, op, stream: packed(stream, xp, op)), blocks


def _make_plan(x: Operand, perm: tuple[int, ...], out: Optional[Operand], forced: Optional[str] = None) -> Plan:
    if x.itemsize not in plans.ITEMSIZES:
        raise TypeError(f"x has dtype {x.dtype} of {x.itemsize} bytes; supported element sizes are "
                        f"{', '.join(map(str, plans.ITEMSIZES))} bytes")
    if x.ptr % x.itemsize and x.size:
        raise ValueError(f"x's data pointer is not aligned to its {x.itemsize}-byte elements")
    want = tuple(x.shape[p] for p in perm)
    if out is not None:
        check_out(out, x, want)
    axes = plans.merged_axes(x.shape, x.strides, perm)
    if len(axes) > plans.MAX_RANK:
        raise ValueError(f"x has {len(axes)} axes that do not merge under dims {perm}; at most "
                         f"{plans.MAX_RANK} are supported")
    out_ptr = out.ptr if out is not None else 0  # new outputs are 256-byte aligned
    if forced:
        choice = ladder_choice(forced, x.itemsize, axes)
    else:
        tuned = tcalls.device_plan(x.device) if x.size else None
        choice = plans.choose(x.itemsize, axes, x.ptr, out_ptr, tuned)
    lo, hi = x.span()
    run, blocks = _runner(choice, x)
    return Plan(choice, want, x.device, lo - x.ptr, hi - x.ptr, x.nbytes, run, blocks)


def ladder_choice(kind: str, itemsize: int, axes) -> plans.Choice:
    """A kernel family forced on a permutation (the ladder's rungs), when it can take it."""
    if kind == "gather":
        return plans.gather_choice(itemsize, axes, "forced")
    units = [k for k, a in enumerate(axes) if a.si == 1]
    if not units or axes[-1].si == 1 or any(a.n == 0 for a in axes):
        raise ValueError(f"{kind}: needs a permutation that moves the input's unit-stride axis")
    if len(axes) - 2 > plans.BATCH_MAX:
        raise ValueError(f"{kind}: at most {plans.BATCH_MAX} batch axes")
    if kind == "scalar":
        return plans.scalar_choice(itemsize, axes, units[-1])
    t = plans.tiling(axes, units[-1], itemsize)
    if not t.vectors(itemsize, 0, 0):
        raise ValueError(f"{kind}: extents and strides must be whole 16-byte vectors ({16 // itemsize} elements)")
    return plans.vec_choice(itemsize, t)


_plans: dict[tuple, Plan] = {}


def run(x, dims, out=None, stream=None):
    """The permutation itself, without the torch operator around it (see api.permute)."""
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"dims must be a tuple or list of axes, got {type(dims).__name__} {dims!r}")
    sx = signature(x)
    so = signature(out) if out is not None else None
    if sx is not None and (out is None or so is not None) and sx[4] >= 0:
        key = (sx[:5], sx[5] % 16, tuple(dims), None if so is None else (so[:5], so[5] % 16))
        p = _plans.get(key)
        if p is None:
            p = _plans[key] = plan(x, dims, out)
        xp, kind = sx[5], sx[0]
    else:
        xo = as_operand(x, "x")
        p = plan(x, dims, out, xo)
        xp, kind = xo.ptr, xo.kind
    if out is not None:
        op = so[5] if so is not None else as_operand(out, "out").ptr
        if op < xp + p.x_hi and xp + p.x_lo < op + p.out_bytes and p.out_bytes and p.x_hi > p.x_lo:
            raise ValueError("out overlaps x; permuting in place is not supported")
        result = out
    else:
        result = new_result(kind, x, p.shape, p.device)
        op = result.data_ptr() if kind == "torch" else result.data.ptr
    if p.choice.kind != "empty":
        on_device(p.device, p.run, xp, op, current_stream(stream, kind, x, p.device))
    return result


def plan(x, dims, out=None, xo: Optional[Operand] = None, forced: Optional[str] = None) -> Plan:
    """A new plan from the full checks of x, dims and out."""
    xo = xo or as_operand(x, "x")
    perm = plans.normalize_dims(dims, len(xo.shape))
    oo = as_operand(out, "out") if out is not None else None
    return _make_plan(xo, perm, oo, forced)


def explain(x, dims) -> str:
    """Which kernel bwlab.permute(x, dims) would run, and why."""
    choice = plan(x, dims).choice
    return f"{choice.label}: {choice.reason}"
