"""Bad input to a ladder kernel gets a clear exception and nothing is written."""
import numpy as np
import pytest

from bwlab.core import verify
from bwlab.workloads import get
from bwlab.workloads.transpose.launch import prepare

pytestmark = pytest.mark.gpu
W = get("transpose")


def launcher(spec, x, out):
    prepare(spec, x, out).launch()


def poisoned(shape, dtype="float32"):
    import cupy

    out = cupy.empty(shape, dtype=dtype)
    verify.poison(out)
    return out


def still_poisoned(out):
    return bool((out.view("u1") == verify.POISON_BYTE).all())


def test_refusals():
    import cupy

    spec = W.kernel("tileVec")
    x = cupy.ones((64, 96), dtype=cupy.float32)
    cases = [
        (TypeError, "CuPy array", np.ones((64, 96), np.float32), poisoned((96, 64))),
        (TypeError, "dtype int32", x.astype(cupy.int32), poisoned((96, 64), "int32")),
        (TypeError, "dtype float64 not supported", x.astype(cupy.float64), poisoned((96, 64), "float64")),
        (ValueError, "output shape must be", x, poisoned((64, 96))),
        (ValueError, "C-contiguous", cupy.ones((96, 64), cupy.float32).T, poisoned((96, 64))),
        (ValueError, "2-D", cupy.ones((2, 64, 96), cupy.float32), poisoned((96, 64))),
        (TypeError, "output dtype", x, poisoned((96, 64), "float64")),
    ]
    for exc, words, inp, out in cases:
        with pytest.raises(exc, match=words):
            launcher(spec, inp, out)
        assert still_poisoned(out), words


def test_overlap_and_grid_limits():
    import cupy

    buf = cupy.zeros(2 * 64 * 64, dtype=cupy.float32)
    with pytest.raises(ValueError, match="overlaps"):
        launcher(W.kernel("tile32"), buf[: 64 * 64].reshape(64, 64), buf[32 * 64: 96 * 64].reshape(64, 64))
    tall = cupy.zeros((65535 * 16 + 1, 1), dtype=cupy.float32)
    out = poisoned((1, tall.shape[0]))
    with pytest.raises(ValueError, match="over the CUDA limit"):
        launcher(W.kernel("naiveRow"), tall, out)
    assert still_poisoned(out)


def test_empty_matrices_are_a_no_op():
    import cupy

    for shape in ((0, 5), (5, 0)):
        x = cupy.zeros(shape, cupy.float32)
        launcher(W.kernel("tileVec"), x, cupy.zeros(shape[::-1], cupy.float32))
