"""The permutation planner without a GPU: axis merging, the kernel chosen per layout, the
packed kernel arguments, and argument errors."""
import itertools
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bwlab.workloads.permute import plans
from bwlab.workloads.permute.plans import Axis


def c_strides(shape):
    return [s // 1 for s in np.zeros(shape, np.int8).strides]


def choice(shape, perm, e=4, xp=0, op=0, strides=None):
    axes = plans.merged_axes(shape, strides or c_strides(shape), perm)
    return plans.choose(e, axes, xp, op)


def test_merge_drops_ones_and_joins_neighbours():
    assert plans.merged_axes((2, 3, 4), c_strides((2, 3, 4)), (0, 1, 2)) == [Axis(24, 1, 1)]
    assert plans.merged_axes((2, 1, 4), c_strides((2, 1, 4)), (2, 1, 0)) == [Axis(4, 1, 2), Axis(2, 4, 1)]
    # (256,256,256,16) with (3,0,1,2): a 2-D transpose underneath
    assert plans.merged_axes((256, 256, 256, 16), c_strides((256, 256, 256, 16)), (3, 0, 1, 2)) == \
        [Axis(16, 1, 256 ** 3), Axis(256 ** 3, 16, 1)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=6), st.randoms())
def test_merged_axes_describe_the_same_permutation(shape, rnd):
    """Walking the merged axes visits input offsets in output order, as numpy.transpose does."""
    shape = tuple(shape)
    perm = list(range(len(shape)))
    rnd.shuffle(perm)
    axes = plans.merged_axes(shape, c_strides(shape), tuple(perm))
    want = np.transpose(np.arange(int(np.prod(shape))).reshape(shape), perm).ravel()
    got = np.zeros(1, np.int64)
    for a in axes:
        got = (got[:, None] + np.arange(a.n)[None, :] * a.si).ravel()
    assert np.array_equal(got, want)
    assert all(a.n > 1 for a in axes)
    assert all(p.si != q.si * q.n for p, q in zip(axes, axes[1:])), "neighbours left unmerged"


@pytest.mark.parametrize("shape, perm, kind", [
    ((64, 128, 128, 64), (0, 2, 1, 3), "rows"),
    ((64, 128, 128, 64), (3, 2, 1, 0), "tiles"),
    ((256, 256, 256, 16), (3, 0, 1, 2), "transpose"),
    ((1024, 1024, 64), (1, 0, 2), "rows"),
    ((8192, 8192), (1, 0), "transpose"),
    ((64, 256, 56, 56), (0, 2, 3, 1), "transpose"),
    ((7, 9, 11), (2, 0, 1), "transpose"),
    ((7, 9, 11, 13), (3, 1, 2, 0), "scalar"),
    ((3, 4, 5), (0, 1, 2), "copy"),
    ((), (), "copy"),
    ((4, 0, 3), (2, 1, 0), "empty"),
])
def test_kind_per_layout(shape, perm, kind):
    assert choice(shape, perm).kind == kind


def test_short_rows_are_packed_into_wider_elements():
    c = choice((1024, 1024, 2), (1, 0, 2))  # rows of two floats: an 8-byte transpose
    assert c.kind == "transpose" and c.itemsize == 8 and "moved as one element" in c.reason
    assert choice((1024, 1024, 2), (1, 0, 2), xp=4).itemsize == 4  # pointer not 8-byte aligned: no packing
    assert choice((1024, 1024, 3), (1, 0, 2)).kind == "rows"  # 12 bytes: not a power of two


def test_row_vector_is_the_largest_common_power_of_two():
    assert choice((64, 128, 128, 64), (0, 2, 1, 3)).vector == 16
    assert choice((64, 128, 128, 6), (0, 2, 1, 3)).vector == 8   # 24-byte rows
    assert choice((64, 128, 128, 64), (0, 2, 1, 3), xp=4).vector == 4  # a pointer 4 bytes off 16


def test_unaligned_tiles_fall_back_to_elements():
    assert choice((64, 128, 128, 64), (3, 2, 1, 0), xp=8).kind == "scalar"
    assert choice((64, 128, 128, 63), (3, 2, 1, 0)).kind == "scalar"


def test_no_unit_stride_gathers():
    shape = (8, 9, 10)
    strided = [2 * s for s in c_strides(shape)]  # every other element
    assert choice(shape, (2, 1, 0), strides=strided).kind == "gather"
    shape8 = (2, 3, 2, 3, 2, 3, 2, 3)
    assert choice(shape8, (7, 6, 5, 4, 3, 2, 1, 0)).kind == "scalar"  # 8 axes: a tile and 6 batch axes


def test_tile_pick_avoids_waste():
    assert plans.pick_tile(plans.VEC_TILES[4], 4096, 4096)[:2] == (64, 64)
    assert plans.pick_tile(plans.VEC_TILES[4], 32, 32)[:2] == (32, 32)


@pytest.mark.parametrize("dims, ndim, err", [
    ((0, 1), 3, "has 2 axes"), ((0, 0, 1), 3, "repeats"), ((0, 1, 3), 3, "must lie"), (("a", 1), 2, "integers")])
def test_dims_errors(dims, ndim, err):
    with pytest.raises((ValueError, TypeError), match=err):
        plans.normalize_dims(dims, ndim)


def test_dims_negative_and_inverse():
    assert plans.normalize_dims((-1, 0, 1), 3) == (2, 0, 1)
    for p in itertools.permutations(range(4)):
        inv = plans.inverse(p)
        assert tuple(p[i] for i in inv) == (0, 1, 2, 3)


@pytest.mark.parametrize("d", [1, 2, 3, 7, 64, 1000, 12345, 2**20 + 1, 2**31 - 1])
def test_fast_division(d):
    dd, m, s = plans.fast_div(d)
    for n in (0, 1, d - 1, d, d + 1, 2**31 - 1, 123456789 % 2**31):
        q = n if d == 1 else (n * m >> 32) >> s
        assert q == n // d


def test_packed_structs_match_the_kernels_layout():
    b = plans.batch_struct([Axis(3, 5, 7)])
    assert len(b) == 3 * 6 * 8 and struct.unpack("<18q", b)[0::6] == (3, 5, 7)
    r = plans.rows_struct([Axis(3, 5, 7)], 4)
    assert len(r) == 88 + 7 * 8  # FastDiv[7] padded to 8 bytes, then i64[7]
    assert struct.unpack("<3I", r[:12]) == plans.fast_div(3) and struct.unpack("<q", r[88:96])[0] == 20
    assert len(plans.gather_struct([Axis(2, 1, 1)])) == 2 * 8 * 8


def test_every_expression_is_registered():
    ex = plans.expressions()
    assert plans.vec_expression(4, (64, 64, 256)) in ex[plans.BATCHED]
    assert all(plans.rows_expression(v) in ex[plans.ROWS] for v in plans.ITEMSIZES)
