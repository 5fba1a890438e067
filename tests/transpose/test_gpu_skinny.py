"""The register kernel `skinny` (kernels/skinny.cu) on the GPU, bit-exact against NumPy with the
output poisoned first: every short side 1..16 of every element size, tall and wide, forced; long
sides that end inside a warp's first chunk, at a group of 32 chunks and just past it, prime, and
spanning many warps, with long rows that start at every 16-byte phase (n*E % 16 != 0) and aligned
ones; batches (the kernel takes them where n*E is a multiple of 16); and more than 2^31 elements."""
import numpy as np
import pytest
from forced import check_forced

from bwlab.core import build, verify
from bwlab.core import launch as core_launch
from bwlab.workloads.transpose import plans as dispatch
from bwlab.workloads.transpose.reference import compare_transposed

pytestmark = pytest.mark.gpu

DT = {1: "u1", 2: "u2", 4: "u4", 8: "u8", 16: "c16"}


def _choice(e: int, s: int, tall: bool) -> dispatch.Choice:
    return dispatch.Choice("tall" if tall else "wide", e, dispatch.SKINNY, dispatch.skinny_expression(e, s, tall),
                           dispatch.skinny_threads(s))


def _longs(e: int) -> tuple[int, ...]:
    ve = 16 // e
    group = 32 * ve  # positions a warp's 32 lanes cover
    return (1, ve - 1 or 1, ve + 1, group - 1, group, group + 1, 1009, 1024, 9 * group + 5)


@pytest.mark.parametrize("e", dispatch.ITEMSIZES)
@pytest.mark.parametrize("tall", [True, False], ids=["tall", "wide"])
def test_every_short_side_forced(e, tall):
    exprs = [dispatch.skinny_expression(e, s, tall) for s in range(1, dispatch.SKINNY_MAX + 1)]
    registered = dispatch.expressions()[dispatch.SKINNY]
    assert set(exprs) <= set(registered)
    build.compile_each(dispatch.SKINNY, exprs, core_launch.arch_of(0))
    for s in range(1, dispatch.SKINNY_MAX + 1):
        for n in sorted(set(_longs(e))):
            check_forced(_choice(e, s, tall), *((n, s) if tall else (s, n)), DT[e], seed=s * 7919 + n)


@pytest.mark.parametrize("e", dispatch.ITEMSIZES)
def test_batches_forced(e):
    """Batches of matrices whose long rows are whole vectors, so chunks never cross matrices."""
    import cupy

    from bwlab.workloads.transpose.calls import launch

    ve = 16 // e
    for s in (1, 2, 3, 5, 16):
        for tall in (True, False):
            for n in (ve, 32 * ve, 33 * ve, 7 * ve * 11):
                rows, cols = (n, s) if tall else (s, n)
                host = verify.random_host((3, rows, cols), DT[e], seed=n + s)
                x = cupy.asarray(host)
                out = cupy.empty((3, cols, rows), DT[e])
                verify.poison(out)
                launch(_choice(e, s, tall), x.data.ptr, out.data.ptr, 3, rows, cols, x.nbytes, x.device.id,
                       cupy.cuda.get_current_stream().ptr)
                assert verify.compare(out.get(), np.ascontiguousarray(host.swapaxes(1, 2))).ok, (e, s, tall, n)


def test_tall_over_2_31_elements():
    """715,827,883 x 3 float32 (2^31 + 1 elements), forced: long rows at three 16-byte phases, offsets
    past 2^31 elements."""
    import cupy

    from bwlab.workloads.transpose.calls import launch

    n = 715_827_883
    x = cupy.empty((n, 3), cupy.float32)
    verify.fill_random_bits(x, seed=5)
    assert x.size > 2**31
    out = cupy.empty((3, n), cupy.float32)
    verify.poison(out)
    launch(_choice(4, 3, True), x.data.ptr, out.data.ptr, 1, n, 3, x.nbytes, x.device.id,
           cupy.cuda.get_current_stream().ptr)
    check = compare_transposed(out, x)
    assert check.ok, check
    xb, ob = x.view(cupy.uint32), out.view(cupy.uint32)
    assert int(ob[2, -1]) == int(xb[-1, 2]) and int(ob[1, 0]) == int(xb[0, 1])  # past 2^31; a row's start
