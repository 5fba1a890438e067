"""widePerm and tallPerm (kernels/skinnyperm.cu) on the GPU, bit-exact against NumPy with the
output poisoned first: every registered short side of 1- and 2-byte elements (and of 4-byte wide
ones), long sides below a warp's step, around it, prime, aligned and spanning several blocks (the
last block's element-by-element rest included); and arrays of more than 2^31 elements through
bwlab.transpose."""
import pytest
from forced import check_forced

import bwlab
from bwlab.core import verify
from bwlab.workloads.transpose import plans as dispatch
from bwlab.workloads.transpose.reference import compare_transposed

pytestmark = pytest.mark.gpu

DT = {1: "u1", 2: "u2", 4: "u4"}
FORMS = [(1, True), (1, False), (2, True), (2, False), (4, False)]  # (element size, tall): tallPerm is 1-2 bytes
LONGS = (2, 5, 31, 32, 33, 127, 129, 1009, 4096, 12_347, 200_003)


def _short_sides(tall):
    return range(2, (dispatch.PERM_TALL_MAX if tall else dispatch.SKINNYTILE_MAX) + 1)


@pytest.fixture(scope="module", autouse=True)
def built():
    """Every forced instantiation compiled once, in parallel (on a cold cache, one at a time as they
    were launched, [2-wide] alone took 375 s on the H200 host)."""
    from bwlab.core import build
    from bwlab.core import launch as core_launch

    exprs = [dispatch.perm_expression(e, s, tall) for e, tall in FORMS for s in _short_sides(tall)]
    build.compile_each(dispatch.SKINNYPERM, exprs, core_launch.arch_of(0))


@pytest.mark.parametrize("e, tall", FORMS, ids=[f"{'tall' if t else 'wide'}-{e}" for e, t in FORMS])
def test_every_short_side_forced(e, tall):
    for s in _short_sides(tall):
        choice = dispatch.Choice("tall-perm" if tall else "wide-perm", e, dispatch.SKINNYPERM,
                                 dispatch.perm_expression(e, s, tall), dispatch.PERM_THREADS)
        for n in LONGS:
            check_forced(choice, *((n, s) if tall else (s, n)), DT[e], seed=s * 7919 + n)


@pytest.mark.parametrize("shape, dtype, kernel", [
    ((33, 66_000_001), "uint8", "widePerm<1,33,2,true>"), ((2, 1_100_000_001), "uint8", "widePerm<1,2,2,true>"),
    ((1_100_000_001, 2), "uint8", "tallPerm<1,2,2>"), ((3, 716_000_001), "float16", "widePerm<2,3,2,true>"),
    ((62, 35_000_001), "uint8", "widePerm<1,62,2,false>"),  # plain word loads
    ((60, 36_000_001), "uint8", "widePerm<1,60,2,true,true>"),  # packed words in row order
    ((5, 430_000_001), "float32", "widePerm<4,5,2,true>")],
    ids=["wide-u8-33", "wide-u8-2", "tall-u8-2", "wide-f16-3", "wide-u8-62", "wide-u8-60", "wide-f32-5"])
def test_over_2_31_elements(shape, dtype, kernel):
    import cupy

    from bwlab import explain_transpose as explain

    x = cupy.empty(shape, dtype)
    verify.fill_random_bits(x, seed=11)
    assert x.size > 2**31 and explain(x).startswith(kernel)
    out = cupy.empty(shape[::-1], dtype)
    verify.poison(out)
    bwlab.transpose(x, out)
    check = compare_transposed(out, x)
    assert check.ok, check
    rows, cols = shape
    ob, xb = verify.uint_view(out), verify.uint_view(x)
    assert int(ob[cols - 1, rows - 1]) == int(xb[rows - 1, cols - 1])  # the last element, past 2^31
