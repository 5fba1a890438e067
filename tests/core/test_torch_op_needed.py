"""When a public call goes through its torch operator, and stream= refused there (CPU tensors
suffice: the decision and the refusal come before anything runs)."""
import pytest

import bwlab
from bwlab.core.arrays import torch_op_needed

torch = pytest.importorskip("torch")


def test_decision():
    a, b = torch.zeros(2, 3), torch.zeros(2, 3, requires_grad=True)
    assert not torch_op_needed(a, None) and torch_op_needed(b, None) and torch_op_needed(a, b)
    with torch.no_grad():
        assert not torch_op_needed(b, None)
    assert not torch_op_needed([1, 2], None)  # not a tensor: the plain path


@pytest.mark.parametrize("call", [
    lambda x, s: bwlab.transpose(x, stream=s),
    lambda x, s: bwlab.permute(x, (1, 0), stream=s),
    lambda x, s: bwlab.softmax(x, 1, stream=s),
])
def test_stream_with_grad_is_refused_not_silently_gradient_free(call):
    x = torch.zeros(2, 3, requires_grad=True)
    with pytest.raises(ValueError, match="stream= cannot be combined"):
        call(x, object())


def test_fast_path_keys_only_dense_cuda_tensors():
    """A CPU or sparse tensor has no fast-path signature (the general path's checks refuse it);
    reading strides off a sparse tensor would raise RuntimeError instead of the API's TypeError."""
    from bwlab.core.arrays import signature

    dense = torch.zeros(4, 5)
    sparse = dense.to_sparse()
    assert signature(dense) is None and signature(sparse) is None
    for x in (dense, sparse):
        with pytest.raises(TypeError):
            bwlab.softmax(x, 1)
        with pytest.raises(TypeError):
            bwlab.transpose(x)
