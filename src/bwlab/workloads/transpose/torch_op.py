"""bwlab.transpose as torch operators, so that torch sees one operation: autograd (the
gradient of a transpose is the transpose of the gradient), torch.compile (fake
implementations give the result's shape without running anything, so the graph has no break)
and CUDA graph capture (the kernel is launched on torch's current stream).

torch.ops.bwlab.transpose(x) -> Tensor and torch.ops.bwlab.transpose_out(x, out) are
registered when this module is first imported: by `import bwlab` when torch is already
imported, else by the first bwlab.transpose call on a tensor.
"""
from __future__ import annotations

import torch

from . import calls


@torch.library.custom_op("bwlab::transpose", mutates_args=(), device_types="cuda")
def transpose(x: torch.Tensor) -> torch.Tensor:
    return calls.run(x)


@transpose.register_fake
def _transpose_fake(x: torch.Tensor) -> torch.Tensor:
    if x.dim() < 2:
        raise ValueError(f"x must be 2-D (M, N) or a batch (..., M, N), got {x.dim()}-D shape {tuple(x.shape)}")
    return x.new_empty(x.shape[:-2] + (x.shape[-1], x.shape[-2]))


def _backward(ctx, grad: torch.Tensor):
    return transpose(grad)


transpose.register_autograd(_backward, setup_context=lambda ctx, inputs, output: None)


@torch.library.custom_op("bwlab::transpose_out", mutates_args=("out",), device_types="cuda")
def transpose_out(x: torch.Tensor, out: torch.Tensor) -> None:
    calls.run(x, out)


@transpose_out.register_fake
def _transpose_out_fake(x: torch.Tensor, out: torch.Tensor) -> None:
    return None


def call(x: torch.Tensor, out=None):
    if out is None:
        return transpose(x)
    if torch.is_grad_enabled() and (x.requires_grad or out.requires_grad):
        raise ValueError("out= cannot carry a gradient: for a tensor that requires grad, call "
                         "bwlab.transpose(x) without out (or run under torch.no_grad())")
    transpose_out(x, out)
    return out
