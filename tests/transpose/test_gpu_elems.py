"""wideElems (kernels/elems.cu) on the GPU, bit-exact with the output poisoned first: wide matrices of
16-byte elements with 2 to 4 rows, forced at long sides that end inside a warp, at a block's end and
just past it, prime and long; through the dispatch; and more than 2^31 elements."""
import numpy as np
import pytest
from forced import check_forced

import bwlab
from bwlab.core import verify
from bwlab.workloads.transpose import plans as dispatch
from bwlab.workloads.transpose.reference import compare_transposed

pytestmark = pytest.mark.gpu

LONGS = (1, 2, 31, 32, 33, 255, 256, 257, 1009, 100_003)


def _choice(s: int) -> dispatch.Choice:
    return dispatch.Choice("wide-elems", 16, dispatch.ELEMS, dispatch.elems_expression(s), dispatch.ELEMS_THREADS)


@pytest.mark.parametrize("s", range(2, dispatch.ELEMS_MAX + 1))
def test_every_short_side_forced(s):
    assert dispatch.elems_expression(s) in dispatch.expressions()[dispatch.ELEMS]
    for n in LONGS:
        check_forced(_choice(s), s, n, "c16", seed=s * 7919 + n)


@pytest.mark.parametrize("s", range(2, dispatch.ELEMS_MAX + 1))
def test_writes_nothing_past_the_output(s):
    """The output inside a larger poisoned buffer: every byte after it, and the input, untouched."""
    import cupy

    from bwlab.workloads.transpose.calls import launch

    for n in (65, 257, 1009):
        host = verify.random_host((s, n), "c16", seed=s + n)
        x = cupy.asarray(host)
        buf = cupy.empty(s * n + 64, cupy.complex128)
        verify.poison(buf)
        canary = buf[s * n:].copy()
        launch(_choice(s), x.data.ptr, buf.data.ptr, 1, s, n, x.nbytes, x.device.id,
               cupy.cuda.get_current_stream().ptr)
        assert verify.compare(buf[:s * n].reshape(n, s).get(), np.ascontiguousarray(host.T)).ok, (s, n)
        assert bool((buf[s * n:].view(cupy.uint64) == canary.view(cupy.uint64)).all()), (s, n)
        assert verify.compare(x.get(), host).ok


@pytest.mark.parametrize("shape", [(2, 65), (3, 100_003), (4, 1 << 20)])
def test_dispatch(shape):
    import cupy

    host = verify.random_host(shape, "c16", seed=sum(shape))
    x = cupy.asarray(host)
    assert bwlab.explain_transpose(x).startswith(dispatch.elems_expression(shape[0]))
    out = cupy.empty(shape[::-1], x.dtype)
    verify.poison(out)
    bwlab.transpose(x, out)
    assert verify.compare(out.get(), np.ascontiguousarray(host.T)).ok
    assert verify.compare(x.get(), host).ok


def test_over_2_31_elements():
    """3 x 715,827,883 complex128 (2^31 + 1 elements, 32 GiB each way): offsets past 2^31 elements on
    both sides."""
    import cupy

    shape = (3, 715_827_883)
    need = 2 * 16 * shape[0] * shape[1] + (8 << 30)  # x, out and the check's temporaries
    if cupy.cuda.Device().mem_info[0] < need:
        pytest.skip(f"needs {need / 2**30:.0f} GiB of free GPU memory")
    x = cupy.empty(shape, cupy.complex128)
    verify.fill_random_bits(x.view(cupy.uint64), seed=13)
    assert x.size > 2**31 and bwlab.explain_transpose(x).startswith("wideElems<3,1,false>")
    out = cupy.empty(shape[::-1], x.dtype)
    verify.poison(out)
    bwlab.transpose(x, out)
    check = compare_transposed(out, x)
    assert check.ok, check
    ob, xb = out.view(cupy.uint64), x.view(cupy.uint64)
    assert int(ob[-1, -1]) == int(xb[-1, -1]) and int(ob[-1, -2]) == int(xb[-1, -2])  # the last element
