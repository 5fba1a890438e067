"""bwlab.transpose(): the production transpose for CuPy arrays, torch tensors and anything
with __cuda_array_interface__ or DLPack. A torch tensor that needs a gradient, and any call
under torch.compile, goes through the registered torch operator (torch_op.py); everything
else runs its cached plan directly (calls.py)."""
from __future__ import annotations

from ...core.arrays import torch_op_needed
from . import calls


def transpose(x, out=None, *, stream=None):
    """Swap the last two axes: (M, N) -> (N, M), (..., M, N) -> (..., N, M), C-contiguous result.

    x: a CuPy array, torch CUDA tensor, or anything exposing __cuda_array_interface__ or
    DLPack (returned as CuPy), with any strides (negative included); any dtype of 1, 2, 4, 8
    or 16 bytes, bit-exact. out: optional result array of the same kind, shape (..., N, M),
    dtype and device, C-contiguous, aligned to its elements, not overlapping x. stream: CuPy or torch stream
    (default: the current stream of x's library; for a tensor that requires grad, use `with
    torch.cuda.stream(s):` instead). A torch tensor that requires grad gets a result with a
    gradient (the transpose of the incoming one); torch.compile and CUDA graph
    capture see one operator. Raises TypeError/ValueError before anything runs when an
    argument is wrong.
    """
    if torch_op_needed(x, out, stream=stream):
        from . import torch_op

        return torch_op.call(x, out)
    return calls.run(x, out, stream)


def explain(x) -> str:
    """Which kernel bwlab.transpose(x) would run, and why (checks x like transpose does)."""
    return calls.explain(x)
