"""bwlab.permute as torch operators, so that torch sees one operation: autograd (the gradient
of a permutation is the inverse permutation of the gradient), torch.compile (the fake
implementation gives the result's shape without running anything) and CUDA graph capture
(the kernel runs on torch's current stream).

torch.ops.bwlab.permute(x, dims) -> Tensor and torch.ops.bwlab.permute_out(x, dims, out) are
registered when this module is first imported (by the first bwlab.permute call that needs them).
"""
from __future__ import annotations

import torch

from . import calls, plans


@torch.library.custom_op("bwlab::permute", mutates_args=(), device_types="cuda")
def permute(x: torch.Tensor, dims: list[int]) -> torch.Tensor:
    return calls.run(x, dims)


@permute.register_fake
def _permute_fake(x: torch.Tensor, dims: list[int]) -> torch.Tensor:
    perm = plans.normalize_dims(dims, x.dim())
    return x.new_empty(tuple(x.shape[p] for p in perm))


def _setup(ctx, inputs, output):
    x, dims = inputs
    ctx.inverse = plans.inverse(plans.normalize_dims(dims, x.dim()))


def _backward(ctx, grad: torch.Tensor):
    return permute(grad, list(ctx.inverse)), None


permute.register_autograd(_backward, setup_context=_setup)


@torch.library.custom_op("bwlab::permute_out", mutates_args=("out",), device_types="cuda")
def permute_out(x: torch.Tensor, dims: list[int], out: torch.Tensor) -> None:
    calls.run(x, dims, out)


@permute_out.register_fake
def _permute_out_fake(x: torch.Tensor, dims: list[int], out: torch.Tensor) -> None:
    return None


def call(x: torch.Tensor, dims, out=None):
    dims = list(plans.normalize_dims(dims, x.dim()))
    if out is None:
        return permute(x, dims)
    if torch.is_grad_enabled() and (x.requires_grad or out.requires_grad):
        raise ValueError("out= cannot carry a gradient: for a tensor that requires grad, call "
                         "bwlab.permute(x, dims) without out (or run under torch.no_grad())")
    permute_out(x, dims, out)
    return out
