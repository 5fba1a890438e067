"""bwlab.softmax as torch operators, so that torch sees one operation: autograd (the backward
is bwlab's own kernel), torch.compile (fake implementations give shapes without running
anything, so the graph has no break) and CUDA graph capture (torch's current stream).

torch.ops.bwlab.softmax(x, dim, log) and torch.ops.bwlab.softmax_backward(y, grad, dim, log)
are registered when this module is first imported: by `import bwlab` when torch is already
imported, else by the first bwlab.softmax call on a tensor that needs them.
"""
from __future__ import annotations

import torch

from . import calls


def _check(x: torch.Tensor, dim: int) -> None:
    calls.split(tuple(x.shape), dim)
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"x has dtype {x.dtype}; softmax takes float32, float16 or bfloat16")


@torch.library.custom_op("bwlab::softmax", mutates_args=(), device_types="cuda")
def softmax(x: torch.Tensor, dim: int, log: bool) -> torch.Tensor:
    return calls.run(x, dim, log)


@softmax.register_fake
def _softmax_fake(x: torch.Tensor, dim: int, log: bool) -> torch.Tensor:
    _check(x, dim)
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op("bwlab::softmax_backward", mutates_args=(), device_types="cuda")
def softmax_backward(y: torch.Tensor, grad: torch.Tensor, dim: int, log: bool) -> torch.Tensor:
    return calls.run(y, dim, log, grad=grad)


@softmax_backward.register_fake
def _backward_fake(y: torch.Tensor, grad: torch.Tensor, dim: int, log: bool) -> torch.Tensor:
    _check(y, dim)
    return torch.empty_like(y, memory_format=torch.contiguous_format)


def _setup(ctx, inputs, output):
    _, dim, log = inputs
    ctx.save_for_backward(output)
    ctx.dim, ctx.log = dim, log


def _backward(ctx, grad: torch.Tensor):
    (y,) = ctx.saved_tensors
    return softmax_backward(y, grad.contiguous(), ctx.dim, ctx.log), None, None


softmax.register_autograd(_backward, setup_context=_setup)


def _no_grad_out(out, *tensors) -> None:
    if torch.is_grad_enabled() and any(t.requires_grad for t in tensors + (out,)):
        raise ValueError("out= cannot carry a gradient: for a tensor that requires grad, call without out "
                         "(or run under torch.no_grad())")


def call(x: torch.Tensor, dim: int, log: bool, out=None):
    if out is None:
        return softmax(x, dim, log)
    _no_grad_out(out, x)
    out.copy_(softmax(x, dim, log))  # torch.compile: out= as a copy of the functional result
    return out


def call_backward(y: torch.Tensor, grad: torch.Tensor, dim: int, log: bool, out=None):
    if out is None:
        return softmax_backward(y, grad, dim, log)
    _no_grad_out(out, y, grad)
    out.copy_(softmax_backward(y, grad, dim, log))
    return out
