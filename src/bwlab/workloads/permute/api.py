"""bwlab.permute(): any-axis permutation for CuPy arrays, torch tensors and anything with
__cuda_array_interface__ or DLPack. A torch tensor that needs a gradient, and any call under
torch.compile, goes through the registered torch operator (torch_op.py); everything else runs
its cached plan directly (calls.py)."""
from __future__ import annotations

from ...core.arrays import torch_op_needed
from . import calls


def permute(x, dims, *, out=None, stream=None):
    """Reorder the axes of x: the result's axis k is x's axis dims[k], C-contiguous, like
    numpy.transpose(x, dims) or torch's x.permute(dims).contiguous().

    x: a CuPy array, torch CUDA tensor, or anything exposing __cuda_array_interface__ or DLPack
    (returned as CuPy), any strides (negative included), any dtype of 1, 2, 4, 8 or 16 bytes,
    moved bit for bit; up to 8 axes that do not merge. dims: a permutation of x's axes
    (negative axes allowed). out: optional result of the same kind, shape, dtype and device,
    C-contiguous, aligned to its elements, not overlapping x. stream: CuPy or torch stream (default: the current stream
    of x's library; for a tensor that requires grad, use `with torch.cuda.stream(s):` instead). A
    torch tensor that requires grad gets a result with a gradient (the inverse permutation of
    the incoming one); torch.compile sees one operator. Raises
    TypeError/ValueError before anything runs when an argument is wrong.
    """
    if torch_op_needed(x, out, stream=stream):
        from . import torch_op

        return torch_op.call(x, dims, out)
    return calls.run(x, dims, out, stream)


def explain(x, dims) -> str:
    """Which kernel bwlab.permute(x, dims) would run, and why (checks x like permute does)."""
    return calls.explain(x, dims)
