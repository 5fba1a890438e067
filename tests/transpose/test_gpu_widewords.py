"""wideWords (kernels/widewords.cu) on the GPU, bit-exact against NumPy with the output poisoned
first: every registered instantiation forced at long sides around its tile of positions (every
row phase), nothing written past the output, the input left as it was; the dispatch; and arrays
of more than 2^31 elements through bwlab.transpose."""
import numpy as np
import pytest
from forced import check_forced

import bwlab
from bwlab.core import verify
from bwlab.workloads.transpose import plans as dispatch
from bwlab.workloads.transpose.reference import compare_transposed

pytestmark = pytest.mark.gpu

LONGS = (1, 2, 5, 15, 31, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1025, 4099, 65_537, 200_003)
DT = {1: "u1", 2: "u2"}


@pytest.mark.parametrize("e, short", sorted(dispatch.WIDE_WORDS))
def test_forced(e, short):
    import cupy

    from bwlab.workloads.transpose.calls import launch

    c = dispatch.Choice("wide-words", e, dispatch.WIDEWORDS, dispatch.widewords_expression(e, short),
                        dispatch.WW_THREADS)
    assert c.expression in dispatch.expressions()[dispatch.WIDEWORDS]
    for n in LONGS:
        check_forced(c, short, n, DT[e], seed=7919 * short + n)
    for n in (513, 4099):  # a canary past the output
        host = verify.random_host((short, n), DT[e], seed=n)
        x = cupy.asarray(host)
        buf = cupy.empty(n * short + 64 // e, DT[e])
        verify.poison(buf)
        launch(c, x.data.ptr, buf.data.ptr, 1, short, n, x.nbytes, x.device.id, cupy.cuda.get_current_stream().ptr)
        assert verify.compare(buf[:n * short].reshape(n, short).get(), np.ascontiguousarray(host.T)).ok
        assert bool((buf[n * short:].view(cupy.uint8) == verify.POISON_BYTE).all()), ("wrote past the output", n)


def _widest(e, whole):
    """The widest side of element size e whose output form is whole 16-byte chunks (whole) or runs
    at byte offsets (not whole), if the table has one."""
    sides = [s for f, s in dispatch.WIDE_WORDS if f == e and (s * e % 16 == 0) == whole]
    return [(e, max(sides))] if sides else []


# over 2^31 elements: each output form of each element size
OVER = [k for e in (1, 2) for whole in (True, False) for k in _widest(e, whole)]


@pytest.mark.parametrize("e, short", OVER)
def test_dispatch_and_over_2_31_elements(e, short):
    """short x n, n the least odd long side past 2^31 elements: rows at every phase, offsets past
    2^31 on both sides."""
    import cupy

    n = 2**31 // short + 1
    shape = (short, n + 1 - n % 2)
    x = cupy.empty(shape, DT[e])
    verify.fill_random_bits(x, seed=17)
    assert x.size > 2**31 and bwlab.explain_transpose(x).startswith(dispatch.widewords_expression(e, short))
    out = cupy.empty(shape[::-1], x.dtype)
    verify.poison(out)
    bwlab.transpose(x, out)
    check = compare_transposed(out, x)
    assert check.ok, check
    assert int(out[-1, -1]) == int(x[-1, -1]) and int(out[-1, 0]) == int(x[0, -1])
