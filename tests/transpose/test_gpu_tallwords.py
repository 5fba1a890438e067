"""tallWords (kernels/tallwords.cu) on the GPU, bit-exact against NumPy with the output poisoned
first: every registered instantiation forced at long sides around its tile of positions (every
row phase, rows of whole 16-byte vectors and sectors too), nothing written past the output, the
input left as it was; the dispatch; and arrays of more than 2^31 elements through bwlab.transpose."""
import numpy as np
import pytest
from forced import check_forced

import bwlab
from bwlab.core import verify
from bwlab.workloads.transpose import plans as dispatch
from bwlab.workloads.transpose.reference import compare_transposed

pytestmark = pytest.mark.gpu

LONGS = (1, 2, 5, 15, 16, 17, 31, 32, 33, 127, 255, 256, 257, 511, 512, 513, 1023, 1025, 1056, 2049, 4099,
         65_537, 200_003)


DT = {1: "u1", 2: "u2"}


def _choice(e, short):
    return dispatch.Choice("tall-words", e, dispatch.TALLWORDS, dispatch.tallwords_expression(e, short),
                           dispatch.TW_THREADS)


@pytest.mark.parametrize("e, short", sorted(dispatch.TALL_WORDS))
def test_forced(e, short):
    import cupy

    from bwlab.workloads.transpose.calls import launch

    c = _choice(e, short)
    assert c.expression in dispatch.expressions()[dispatch.TALLWORDS]
    for n in LONGS:
        check_forced(c, n, short, DT[e], seed=7919 * short + n)
    for n in (513, 4099):  # a canary past the output
        host = verify.random_host((n, short), DT[e], seed=n)
        x = cupy.asarray(host)
        buf = cupy.empty(n * short + 64, DT[e])
        verify.poison(buf)
        launch(c, x.data.ptr, buf.data.ptr, 1, n, short, x.nbytes, x.device.id, cupy.cuda.get_current_stream().ptr)
        assert verify.compare(buf[:n * short].reshape(short, n).get(), np.ascontiguousarray(host.T)).ok
        assert bool((buf[n * short:].view("u1") == verify.POISON_BYTE).all()), ("wrote past the output", n)


# over 2^31 elements: uint8's narrowest and widest side (1024 and 512 positions a block), an odd side
# with no pad chunks, and a uint16 side (256 positions)
OVER = [(1, 17), (1, 41), (1, 64), (2, 47)]


@pytest.mark.parametrize("e, short", OVER)
def test_dispatch_and_over_2_31_elements(e, short):
    """n x short, n the least odd long side past 2^31 elements: rows at every phase, offsets past
    2^31 on both sides."""
    import cupy

    n = 2**31 // short + 1
    shape = (n + 1 - n % 2, short)
    x = cupy.empty(shape, DT[e])
    verify.fill_random_bits(x, seed=17)
    assert x.size > 2**31 and bwlab.explain_transpose(x).startswith(dispatch.tallwords_expression(e, short))
    out = cupy.empty(shape[::-1], x.dtype)
    verify.poison(out)
    bwlab.transpose(x, out)
    check = compare_transposed(out, x)
    assert check.ok, check
    assert int(out[-1, -1]) == int(x[-1, -1]) and int(out[0, -1]) == int(x[-1, 0])
