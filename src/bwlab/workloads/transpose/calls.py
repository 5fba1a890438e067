"""One call of the transpose: its plan and its launch.

Every argument is checked before anything runs, so a refused call leaves `out` untouched.
Kernels see raw pointers and byte sizes, so every dtype of 1, 2, 4, 8 or 16 bytes is moved
bit for bit. Launches go to the caller's current stream (torch's for a torch tensor).

A call's plan (which kernel, its grid and packed arguments, and the checks of `out`) depends
only on the call's signature: the kind of array, shape, strides, dtype, device, whether the
pointers are 16-byte aligned (x's also whether 32-byte), and the same of `out`. It is made once and
cached, so a repeated call costs a dictionary lookup, an allocation, an overlap test and a launch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ...core import launch as core_launch
from ...core.arrays import (Operand, as_operand, check_out, current_stream, new_result, on_device,
                               signature)
from . import plans

for _source, _exprs in plans.expressions().items():
    core_launch.register(_source, _exprs)

_device_plans: dict[int, Optional[dict]] = {}


def device_plan(device: int) -> Optional[dict]:
    """The stored tile plan for this GPU model (None: built-in defaults); read once per process."""
    if device not in _device_plans:
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(device)["name"]
        _device_plans[device] = plans.load_plan(name.decode() if isinstance(name, bytes) else name)
    return _device_plans[device]


@dataclass
class Plan:
    """Everything about a call that its signature decides."""
    choice: plans.Choice
    shape: tuple[int, ...]        # of the result
    device: int
    x_lo: int                     # the bytes x's elements occupy, relative to its pointer: [lo, hi)
    x_hi: int
    out_bytes: int
    run: Callable[[int, int, int], None]  # run(x_ptr, out_ptr, stream)


def _layout(x: Operand) -> plans.Layout:
    if len(x.shape) < 2:
        raise ValueError(f"x must be 2-D (M, N) or a batch (..., M, N), got {len(x.shape)}-D shape {x.shape}")
    return plans.layout_of(x.shape, x.strides)


def _sm_count(device: int) -> int:
    from ...core.device import query

    return query(device).sm_count


def kernel_runner(choice: plans.Choice, lay: plans.Layout, x: Operand) -> Callable:
    """run(x_ptr, out_ptr, stream) for a kernel choice, everything but the pointers packed once."""
    fn = core_launch.function(choice.source, choice.expression, device=x.device)
    blocks, threads = plans.launch_geometry(choice, lay.batch, lay.rows, lay.cols, _sm_count(x.device))
    lo, hi = x.span()
    lo_off, hi_off = lo - x.ptr, hi - x.ptr  # the bytes x may read, relative to its pointer
    rows, cols, batch = ("i64", lay.rows), ("i64", lay.cols), ("i64", lay.batch)
    ptrs, bounds = [("ptr", 0), ("ptr", 0)], [("u64", 0), ("u64", 0)]  # rewritten by every call
    keep, shared = None, 0
    if choice.kind == "tile":
        args = ptrs + [rows, cols, batch]
    elif choice.kind in ("scalar", "whole"):
        args = ptrs + [rows, cols, batch, ("i64", lay.rs), ("i64", lay.bstride)]
    elif choice.kind in ("stage", "words"):
        args = ptrs + [rows, cols, batch, ("i64", lay.rs), ("i64", lay.bstride), *bounds]
        if choice.kind == "words":
            shared = plans.words_shared(choice.itemsize, (*plans.tile_shape(choice), choice.threads))
            core_launch.allow_shared(fn, shared)
    elif choice.kind == "sector":
        w, tc = plans.tile_shape(choice)
        chunk = plans.sector_chunk(lay.rows, lay.batch * plans.cdiv(lay.cols, tc), w, _sm_count(x.device))[0]
        args = ptrs + [rows, cols, batch, ("i64", lay.rs), ("i64", lay.bstride), *bounds, ("i64", chunk)]
    elif choice.kind == "align":
        run_len, blocks = plans.align_runs(blocks, _sm_count(x.device))
        args = ptrs + [rows, cols, batch, ("i64", lay.rs), ("i64", lay.bstride), *bounds, ("i32", run_len)]
    elif choice.kind in ("tall", "wide"):
        n = lay.rows if choice.kind == "tall" else lay.cols
        run_len, blocks = plans.skinny_runs(lay.batch * plans.cdiv(n, 16 // choice.itemsize), threads,
                                            _sm_count(x.device))
        args = ptrs + [("i64", n), batch, *bounds, ("i32", run_len)]
    elif choice.kind in ("tall-tile", "wide-tile"):
        tall = choice.kind == "tall-tile"
        short, n = (lay.cols, lay.rows) if tall else (lay.rows, lay.cols)
        rlog, gp, shared = plans.skinnytile_geometry(choice.itemsize, short, tall, plans.is_words(choice),
                                                     plans.words_aligned(choice))
        core_launch.allow_shared(fn, shared)
        args = ptrs + [("i64", n), ("i32", short), ("i32", rlog), ("i32", gp), *bounds]
    elif choice.kind in ("tall-perm", "wide-perm"):
        tall = choice.kind == "tall-perm"
        n = lay.rows if tall else lay.cols
        args = ptrs + [("i64", n), ("i64", plans.perm_full_steps(x.itemsize, n, tall))]
    elif choice.kind == "wide-elems":
        args = ptrs + [cols]
    elif choice.kind == "wide-words":
        shared = plans.widewords_shared(*plans.widewords_shape(choice))
        core_launch.allow_shared(fn, shared)
        args = ptrs + [cols]
    elif choice.kind == "tall-words":
        shared = plans.tallwords_shared(*plans.tallwords_shape(choice))
        core_launch.allow_shared(fn, shared)
        args = ptrs + [rows]
    elif choice.kind == "strided-tile":
        args = ptrs + [rows, cols, batch, ("i64", lay.rs), ("i64", lay.cs), ("i64", lay.bstride)]
    elif choice.kind == "flip":  # x's columns in memory order, into out's last row at pitch -rows
        args = ptrs + [rows, cols, ("i64", lay.rs), ("i64", -lay.rows)]
    elif choice.kind == "copy2d":  # rows of rows*E bytes, source pitch cs*E, destination packed
        width = lay.rows * x.itemsize
        args = ptrs + [("i64", width), ("i64", lay.batch * lay.cols), ("i64", lay.cs * x.itemsize)]
    else:  # strided: the batch dimensions' extents and strides in a small device table
        import cupy

        dims = lay.batch_dims or ((lay.batch, lay.bstride or 0),)
        with cupy.cuda.Device(x.device):
            keep = cupy.asarray([n for n, _ in dims] + [s for _, s in dims], dtype=cupy.int64)
            # the copy runs on CuPy's current stream, the kernels on the caller's (perhaps a
            # non-blocking one): wait for it here, once per plan
            cupy.cuda.get_current_stream().synchronize()
        args = ptrs + [rows, cols, ("i64", lay.rs), ("i64", lay.cs), ("ptr", keep.data.ptr),
                       ("i32", len(dims)), ("i64", lay.batch * lay.rows * lay.cols)]
    packed = core_launch.PackedLaunch(fn, (blocks, 1, 1), (threads, 1, 1), args, shared=shared)
    # where in_lo, in_hi go
    at = {"align": 7, "stage": 7, "sector": 7, "words": 7, "tall": 4, "wide": 4, "tall-tile": 6,
          "wide-tile": 6}.get(choice.kind)
    if choice.kind == "flip":
        x_shift, out_shift = flip_shifts(lay, x.itemsize)

        def run(xp: int, op: int, stream: int) -> None:
            packed(stream, xp + x_shift, op + out_shift)
    elif at is None:
        def run(xp: int, op: int, stream: int, _keep=keep) -> None:
            packed(stream, xp, op)
    else:
        def run(xp: int, op: int, stream: int) -> None:
            packed.call_at(stream, {0: xp, 1: op, at: xp + lo_off, at + 1: xp + hi_off})
    return run


def flip_shifts(lay: plans.Layout, itemsize: int) -> tuple[int, int]:
    """Bytes from x's pointer to its first column in memory order, and from out's to its last row
    (the "flip" kernel: columns of stride -1)."""
    return -(lay.cols - 1) * itemsize, (lay.cols - 1) * lay.rows * itemsize


def _copy_runner(choice: plans.Choice, lay: plans.Layout, itemsize: int, nbytes: int) -> Callable:
    import cupy

    rt = cupy.cuda.runtime
    return lambda xp, op, stream: rt.memcpyAsync(op, xp, nbytes, rt.memcpyDeviceToDevice, stream)


def _make_plan(x: Operand, out: Optional[Operand]) -> Plan:
    lay = _layout(x)
    if x.itemsize not in plans.ITEMSIZES:
        raise TypeError(f"x has dtype {x.dtype} of {x.itemsize} bytes; supported element sizes are "
                        f"{', '.join(map(str, plans.ITEMSIZES))} bytes")
    if x.ptr % x.itemsize and x.size:
        raise ValueError(f"x's data pointer is not aligned to its {x.itemsize}-byte elements")
    want = x.shape[:-2] + (lay.cols, lay.rows)
    if out is not None:
        check_out(out, x, want)
    tuned = device_plan(x.device) if x.size else None
    xs, os_ = flip_shifts(lay, x.itemsize) if lay.cs == -1 else (0, 0)  # where a flip reads and writes
    choice = plans.choose(x.itemsize, lay, tuned, (x.ptr + xs) % 16 == 0,
                          ((0 if out is None else out.ptr) + os_) % 16 == 0,  # new results: 256-aligned
                          x_sector=(x.ptr + xs) % 32 == 0)
    if choice.kind == "empty":
        runner = lambda xp, op, stream: None  # noqa: E731
    elif choice.kind == "copy":
        runner = _copy_runner(choice, lay, x.itemsize, x.nbytes)
    else:
        runner = kernel_runner(choice, lay, x)
    lo, hi = x.span()
    return Plan(choice, want, x.device, lo - x.ptr, hi - x.ptr, x.size * x.itemsize, runner)


_plans: dict[tuple, Plan] = {}


def run(x, out=None, stream=None):
    """The transpose itself, without the torch operator around it (see api.transpose)."""
    sx = signature(x)
    so = signature(out) if out is not None else None
    if sx is not None and (out is None or so is not None) and sx[4] >= 0:
        key = (sx[:5], sx[5] % 32, None if so is None else (so[:5], so[5] % 16))
        p = _plans.get(key)
        xp = sx[5]
        if p is None:
            p = _plans[key] = _plan(x, out)
        obj_kind = sx[0]
    else:
        xo = as_operand(x, "x")
        p = _plan(x, out, xo)
        xp, obj_kind = xo.ptr, xo.kind
    if out is not None:
        op = so[5] if so is not None else as_operand(out, "out").ptr
        if op < xp + p.x_hi and xp + p.x_lo < op + p.out_bytes and p.out_bytes and p.x_hi > p.x_lo:
            raise ValueError("out overlaps x; transposing in place is not supported")
        result = out
    else:
        result = new_result(obj_kind, x, p.shape, p.device)
        op = result.data_ptr() if obj_kind == "torch" else result.data.ptr
    if p.choice.kind != "empty":
        on_device(p.device, p.run, xp, op, current_stream(stream, obj_kind, x, p.device))
    return result


def _plan(x, out, xo: Optional[Operand] = None) -> Plan:
    """A new plan from the full checks of x and out."""
    xo = xo or as_operand(x, "x")
    oo = as_operand(out, "out") if out is not None else None
    return _make_plan(xo, oo)


def explain(x) -> str:
    """Which kernel bwlab.transpose(x) would run, and why (checks x like transpose does)."""
    choice = _plan(x, None).choice
    return f"{choice.label}: {choice.reason}"


def launch(choice: plans.Choice, src_ptr: int, dst_ptr: int, batch: int, rows: int, cols: int,
           nbytes: int, device: int, stream: int) -> None:
    """Run one choice on a dense (batch, rows, cols) input at raw pointers (checks done by the caller)."""
    lay = plans.Layout(batch, rows, cols, cols, 1, rows * cols)
    x = Operand(None, "cupy", src_ptr, (batch, rows, cols), (rows * cols, cols, 1), choice.itemsize, None, device, "x")
    if choice.kind == "empty":
        return
    runner = _copy_runner(choice, lay, x.itemsize, nbytes) if choice.kind == "copy" else \
        kernel_runner(choice, lay, x)
    on_device(device, runner, src_ptr, dst_ptr, stream)
