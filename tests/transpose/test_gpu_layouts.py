"""bwlab.transpose on the layouts users have: misaligned extents and pointers, slices,
transposed views, negative strides, batch dimensions that do not merge, zero sizes; each
bit-exact against NumPy's transpose of the same view, output poisoned first."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bwlab
from bwlab.core import verify
from bwlab.workloads.transpose.reference import host_transpose

pytestmark = pytest.mark.gpu
DTYPES = ("uint8", "float16", "float32", "float64", "complex128")


def check_view(view_of, base_shape, dtype, seed=None):
    """Transpose view_of(base) for a fresh random base, on the GPU and with NumPy."""
    import cupy

    host = verify.random_host(base_shape, dtype, seed)
    x = view_of(cupy.asarray(host))
    want = host_transpose(view_of(host))
    out = cupy.empty(want.shape, dtype)
    verify.poison(out)
    bwlab.transpose(x, out)
    check = verify.compare(out.get(), want)
    assert check.ok, f"{x.shape} strides {x.strides} {dtype} ({bwlab.explain_transpose(x)}): {check}"
    assert verify.compare(bwlab.transpose(x).get(), want).ok


VIEWS = {
    "row slice": ((40, 70), lambda a: a[3:37, 5:66]),
    "column slice": ((33, 129), lambda a: a[:, 1:]),
    "odd offset": ((257 * 131 + 3,), lambda a: a[3:].reshape(257, 131)),
    "reversed rows": ((70, 41), lambda a: a[::-1]),
    "reversed columns": ((70, 41), lambda a: a[:, ::-1]),
    "both reversed": ((70, 41), lambda a: a[::-1, ::-1]),
    "reversed columns, whole vectors": ((96, 160), lambda a: a[:, ::-1]),
    "both reversed, whole vectors": ((96, 160), lambda a: a[::-1, ::-1]),
    "reversed columns of a slice": ((96, 176), lambda a: a[:, 175:15:-1]),
    "reversed columns, misaligned start": ((96, 176), lambda a: a[:, 170:10:-1]),
    "reversed columns, pitched rows": ((96, 176), lambda a: a[5:, 159::-1]),
    "every other": ((70, 82), lambda a: a[::2, ::2]),
    "every other, tiled": ((150, 166), lambda a: a[::2, ::2]),
    "every third column": ((70, 200), lambda a: a[:, ::3]),
    "negative steps": ((200, 250), lambda a: a[::-2, ::-3]),
    "batch of column steps": ((3, 140, 150), lambda a: a[:, :, ::2]),
    "transposed with steps": ((90, 70), lambda a: a[::3, ::2].T),
    "reversed columns, short side": ((40, 300), lambda a: a[:, ::-1]),
    "transposed": ((70, 41), lambda a: a.T),
    "transposed slice": ((70, 41), lambda a: a[:, :30].T),
    "transposed batch": ((3, 50, 20), lambda a: a.swapaxes(1, 2)),
    "batch slice": ((5, 33, 34), lambda a: a[1:4, :, 2:]),
    "batch not merging": ((4, 6, 17, 19), lambda a: a[:, ::2]),
    "batch reversed": ((4, 17, 19), lambda a: a[::-1]),
    "empty rows": ((0, 7), lambda a: a),
    "empty batch": ((0, 5, 7), lambda a: a),
    "one row": ((1, 77), lambda a: a),
    "one column view": ((77, 5), lambda a: a[:, 2:3]),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", VIEWS)
def test_views(name, dtype):
    shape, view = VIEWS[name]
    check_view(view, shape, dtype)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(1, 200), cols=st.integers(1, 200), r0=st.integers(0, 5), c0=st.integers(0, 17),
       rstep=st.sampled_from([1, 1, 1, -1, 2]), cstep=st.sampled_from([1, 1, 1, -1, 3]),
       dtype=st.sampled_from(DTYPES + ("int16", "bool")), seed=st.integers(0, 2**31))
def test_hypothesis_views(rows, cols, r0, c0, rstep, cstep, dtype, seed):
    base = (r0 + rows * abs(rstep) + 1, c0 + cols * abs(cstep) + 1)

    def view(a):
        v = a[r0:r0 + rows * abs(rstep):abs(rstep), c0:c0 + cols * abs(cstep):abs(cstep)]
        return v[::-1 if rstep < 0 else 1, ::-1 if cstep < 0 else 1]
    check_view(view, base, dtype, seed)


@pytest.mark.parametrize("dtype, offset", [(d, o) for d in ("uint8", "int16", "float32", "float64")
                                           for o in range(np.dtype(d).itemsize, 16, np.dtype(d).itemsize)])
def test_misaligned_input_and_output_pointers(dtype, offset):
    """Every element offset of both pointers within a 16-byte vector."""
    import cupy

    k = offset // np.dtype(dtype).itemsize
    host = verify.random_host((k + 131 * 77,), dtype)
    x = cupy.asarray(host)[k:].reshape(131, 77)
    buf = cupy.empty(k + 77 * 131, dtype)
    verify.poison(buf)
    out = buf[k:].reshape(77, 131)
    bwlab.transpose(x, out)
    assert verify.compare(out.get(), host[k:].reshape(131, 77).T.copy()).ok
    assert bool((buf[:k].view(cupy.uint8) == verify.POISON_BYTE).all()), "wrote before out"


@pytest.mark.parametrize("shape", [(1, 7), (7, 1), (3, 1, 9), (2, 9, 1)])
def test_degenerate_views_of_strided_arrays(shape):
    import cupy

    host = verify.random_host(tuple(2 * n for n in shape), "float32")
    x = cupy.asarray(host)[tuple(slice(None, None, 2) for _ in shape)]
    want = host_transpose(host[tuple(slice(None, None, 2) for _ in shape)])
    assert verify.compare(bwlab.transpose(x).get(), want).ok


def test_out_overlapping_a_strided_x_is_refused():
    import cupy

    buf = cupy.zeros((128, 64), cupy.float32)
    x = buf[63::-1][:32]                             # rows 63..32, a negative stride
    out = buf.reshape(-1)[48 * 64: 48 * 64 + 64 * 32].reshape(64, 32)  # rows 48..79: overlaps 48..63
    verify.poison(out)
    with pytest.raises(ValueError, match="overlaps"):
        bwlab.transpose(x, out)
    assert bool((out.view(cupy.uint8) == verify.POISON_BYTE).all())


def test_odd_extents_over_2_31_elements():
    """The byte kernels for misaligned rows with 64-bit offsets: 3 x 27,001 x 26,999 uint8 (2.19e9
    elements, odd extents), through the API (the built-in choice, or this GPU's tuned plan) and
    with each byte kernel forced: tileWholeWords (every tile), tileSector, tileStage, tileAlign."""
    import cupy

    from bwlab.workloads.transpose import plans
    from bwlab.workloads.transpose.calls import device_plan, launch
    from bwlab.workloads.transpose.reference import compare_transposed

    x = cupy.empty((3, 27001, 26999), cupy.uint8)
    verify.fill_random_bits(x, seed=5)
    kind, _ = plans.misaligned_choice(1, device_plan(x.device.id), x.nbytes)
    assert bwlab.explain_transpose(x).startswith(plans.MISALIGNED_KERNELS[kind][0])
    out = cupy.empty((3, 26999, 27001), cupy.uint8)
    verify.poison(out)
    bwlab.transpose(x, out)
    assert compare_transposed(out, x).ok
    forced = [("words", cfg) for cfg in plans.WORDS_CANDIDATES[1]]  # 4- and 8-byte loads a lane
    for kind, cfg in forced + [("sector", plans.SECTOR_CANDIDATES[1][0]), ("stage", plans.STAGE_CANDIDATES[1][0]),
                               ("align", plans.ALIGN_CANDIDATES[1][0])]:
        kernel, source = plans.MISALIGNED_KERNELS[kind]
        c = plans.Choice(kind, 1, source, plans.tile_expression(1, cfg, kernel), cfg[2])
        verify.poison(out)
        launch(c, x.data.ptr, out.data.ptr, 3, 27001, 26999, x.nbytes, x.device.id,
               cupy.cuda.get_current_stream().ptr)
        assert compare_transposed(out, x).ok, (kind, cfg)


def test_reversed_columns_take_the_pitched_kernel_and_pass_2_31_elements():
    """x[:, ::-1] of 46,341 x 46,341 uint8 (2.15e9 elements): 16-byte vectors are not whole
    rows there, so the element-by-element pitched tile, with 64-bit offsets; and the vector one
    on whole vectors."""
    import cupy

    assert bwlab.explain_transpose(cupy.empty((128, 128), cupy.float32)[:, ::-1]).startswith("pitchedVec")
    assert bwlab.explain_transpose(cupy.empty((128, 127), cupy.float32)[:, ::-1]).startswith("pitchedScalar")
    assert bwlab.explain_transpose(cupy.empty((64, 128), cupy.float32)[:, ::-1]).startswith("strided<")
    base = cupy.empty((46341, 46341), cupy.uint8)
    verify.fill_random_bits(base, seed=9)
    x = base[:, ::-1]
    assert x.size > 2**31 and bwlab.explain_transpose(x).startswith("pitchedScalar")
    out = cupy.empty((46341, 46341), cupy.uint8)
    verify.poison(out)
    bwlab.transpose(x, out)
    for k in range(0, 46341, 8192):  # out[j] = base[:, n-1-j], every row checked
        assert bool((out[k:k + 8192] == base[:, ::-1][:, k:k + 8192].T).all()), k


def test_column_steps_take_the_strided_tile_and_pass_2_31_elements():
    """x[:, ::2] of 46,341 x 92,682 uint8 (2.15e9 elements): the element-by-element tile with the
    view's column stride, with 64-bit offsets."""
    import cupy

    assert bwlab.explain_transpose(cupy.empty((256, 256), cupy.float32)[::2, ::2]).startswith("stridedTile<4,")
    assert bwlab.explain_transpose(cupy.empty((64, 64), cupy.float32)[::2, ::2]).startswith("strided<4>")
    base = cupy.empty((46341, 2 * 46341), cupy.uint8)
    verify.fill_random_bits(base, seed=11)
    x = base[:, ::2]
    assert x.size > 2**31 and bwlab.explain_transpose(x).startswith("stridedTile<1,")
    out = cupy.empty((46341, 46341), cupy.uint8)
    verify.poison(out)
    bwlab.transpose(x, out)
    for k in range(0, 46341, 8192):  # out[j] = base[:, 2j], every row checked
        assert bool((out[k:k + 8192] == x[:, k:k + 8192].T).all()), k
