"""bwlab.softmax() and bwlab.softmax_backward(): softmax and log-softmax over any axis, for
CuPy arrays, torch tensors and anything with __cuda_array_interface__ or DLPack. A torch
tensor that needs a gradient, and any call under torch.compile, goes through the registered
torch operators (torch_op.py); everything else runs its cached plan directly (calls.py)."""
from __future__ import annotations

from ...core.arrays import torch_op_needed
from . import calls


def softmax(x, dim: int = -1, *, log: bool = False, out=None, stream=None):
    """exp(x) / sum(exp(x)) along `dim` (log=True: log-softmax, x - log(sum(exp(x)))).

    x: a CuPy array, torch CUDA tensor, or anything exposing __cuda_array_interface__ or
    DLPack (returned as CuPy); float32, float16 or bfloat16 (torch only), any rank, any
    strides; computed in float32. out: optional C-contiguous result of the same kind, dtype
    and shape, not overlapping x. stream: CuPy or torch stream (default: the current stream
    of x's library; for a tensor that requires grad, use `with torch.cuda.stream(s):` instead).
    A torch tensor that requires grad gets a result with a gradient;
    torch.compile sees one operator. Raises TypeError/ValueError before anything runs when an
    argument is wrong. Rows of -inf only, or holding NaN or +inf, give NaN, as in torch.
    """
    if torch_op_needed(x, out, stream=stream):
        from . import torch_op

        return torch_op.call(x, dim, log, out)
    return calls.run(x, dim, log, out, stream)


def softmax_backward(y, grad, dim: int = -1, *, log: bool = False, out=None, stream=None):
    """The gradient of softmax (log=True: log-softmax) with respect to its input, from its
    output y and the incoming gradient grad: y * (grad - sum(y * grad)) along dim, or
    grad - exp(y) * sum(grad) for log-softmax. Same rules for arguments as softmax()."""
    if torch_op_needed(y, grad, out, stream=stream):
        from . import torch_op

        return torch_op.call_backward(y, grad, dim, log, out)
    return calls.run(y, dim, log, out, stream, grad=grad)


def explain(x, dim: int = -1, *, log: bool = False, backward: bool = False) -> str:
    """Which kernel softmax(x, dim) would run, and why."""
    return calls.explain(x, dim, log, backward)
