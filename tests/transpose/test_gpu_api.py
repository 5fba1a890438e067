"""bwlab.transpose on the GPU: every dtype, hypothesis shapes, batches, torch and CuPy,
streams, refusals, and real > 2^31-element cases; bit-exact against NumPy, output poisoned."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bwlab
from bwlab.core import verify
from bwlab.workloads.transpose import plans as dispatch
from bwlab.workloads.transpose.reference import compare_transposed

pytestmark = pytest.mark.gpu

NP_DTYPES = ("bool", "int8", "uint8", "float16", "int16", "float32", "int32", "float64", "int64",
             "complex64", "complex128")


def special(host):
    """Plant NaN payloads, -0.0 and infinities in float data: bits must survive."""
    if host.dtype.kind not in "fc" or host.size < 4:
        return host
    u = host.reshape(-1).view({2: "u2", 4: "u4", 8: "u8", 16: "u8"}[host.dtype.itemsize])
    if host.dtype.kind == "c":
        return host  # complex: random bits below
    sign = 1 << (8 * host.dtype.itemsize - 1)
    exp = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}[host.dtype.itemsize]
    u[0], u[1], u[2], u[3] = sign, exp | 1, exp | 0x5, sign | exp  # -0.0, sNaN payloads, -inf
    return host


def check_cupy(shape, dtype, seed=None):
    import cupy

    host = special(verify.random_host(shape, dtype, seed))
    x = cupy.asarray(host)
    out = cupy.empty(shape[:-2] + (shape[-1], shape[-2]), dtype=dtype)
    verify.poison(out)
    got = bwlab.transpose(x, out)
    assert got is out
    ref = np.ascontiguousarray(np.swapaxes(host, -1, -2))
    check = verify.compare(out.get(), ref)
    assert check.ok, f"{shape} {dtype} ({bwlab.transpose.__module__}): {check}"
    assert verify.compare(x.get(), host).ok, "input modified"
    fresh = bwlab.transpose(x)  # allocating form
    assert isinstance(fresh, cupy.ndarray) and verify.compare(fresh.get(), ref).ok


SHAPES = [(1, 1), (1, 7), (7, 1), (2, 2), (3, 5), (8, 8), (9, 9), (17, 13), (31, 33), (127, 129),
          (128, 128), (256, 512), (1025, 777), (251, 257), (10007, 3), (3, 10007), (100003, 7), (7, 100003),
          (64, 4096), (4096, 64), (5, 2, 3), (3, 129, 130), (2, 256, 256), (4, 1, 9), (2, 8, 1000)]


@pytest.mark.parametrize("dtype", NP_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_fixed_shapes(shape, dtype):
    check_cupy(shape, dtype)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.sampled_from([(), (1,), (3,), (2, 2)]), rows=st.integers(0, 300), cols=st.integers(0, 300),
       dtype=st.sampled_from(NP_DTYPES), seed=st.integers(0, 2**31))
def test_hypothesis_shapes(batch, rows, cols, dtype, seed):
    check_cupy(batch + (rows, cols), dtype, seed)


def test_empty_shapes_return_empty():
    import cupy

    for shape in ((0, 5), (5, 0), (0, 3, 4), (2, 0, 0)):
        x = cupy.empty(shape, cupy.float32)
        r = bwlab.transpose(x)
        assert r.shape == shape[:-2] + (shape[-1], shape[-2])


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "bool", "complex128", "int8", "float16"])
def test_torch_tensors(dtype):
    import torch

    if dtype == "complex128":
        t = torch.randn(3, 257, 130, dtype=torch.complex128, device="cuda")
    else:
        t = (torch.randn(3, 257, 130, device="cuda") * 50).to(getattr(torch, dtype))
    r = bwlab.transpose(t)
    assert isinstance(r, torch.Tensor) and r.device == t.device and r.dtype == t.dtype
    assert torch.equal(r, t.transpose(-1, -2).contiguous())
    out = torch.full((3, 130, 257), 7, device="cuda").to(t.dtype)
    one = out[1]
    assert bwlab.transpose(t[1], one) is one
    assert torch.equal(out[1], t[1].t().contiguous()) and torch.equal(out[0], torch.full_like(out[0], 7))


def test_fortran_and_transposed_views_are_copies():
    import cupy
    import torch

    a = cupy.asfortranarray(cupy.arange(12 * 7, dtype=cupy.int32).reshape(12, 7))
    assert bool((bwlab.transpose(a) == a.T).all())
    from bwlab import explain_transpose as explain

    assert explain(a).startswith("copy")
    t = torch.arange(2 * 5 * 6, device="cuda").reshape(2, 5, 6)
    v = t.transpose(-1, -2)  # (2, 6, 5) view of a C-contiguous tensor
    assert torch.equal(bwlab.transpose(v), t)
    g = cupy.arange(100, dtype=cupy.float32).reshape(10, 10)[:, ::2]  # any strides are taken
    assert bool((bwlab.transpose(g) == g.T).all())


def _sleep_kernel():
    import cupy

    return cupy.RawKernel(r'''
extern "C" __global__ void spin(long long ns) {
  long long t0 = clock64(); while (clock64() - t0 < ns) { }
}''', "spin")


def test_runs_on_the_given_cupy_stream():
    """Queue a long spin, then the transpose, on a non-blocking stream: right after the call
    the output is still poisoned (seen from the default stream), and correct after a sync."""
    import cupy

    host = verify.random_host((512, 384), "float32")
    x = cupy.asarray(host)
    out = cupy.empty((384, 512), cupy.float32)
    verify.poison(out)
    spin = _sleep_kernel()
    poisoned = lambda: bool((out.view(cupy.uint8) == verify.POISON_BYTE).all())  # noqa: E731
    # Load every kernel involved first: loading a module synchronizes the whole device.
    spin((1,), (1,), (np.int64(1),))
    bwlab.transpose(x, cupy.empty_like(out))
    assert poisoned()
    cupy.cuda.Device().synchronize()
    s = cupy.cuda.Stream(non_blocking=True)
    spin((1,), (1,), (np.int64(400_000_000),), stream=s)  # ~0.2 s at 2 GHz
    bwlab.transpose(x, out, stream=s)
    assert poisoned(), "ran before the stream's earlier work"
    s.synchronize()
    assert verify.compare(out.get(), host.T.copy()).ok


def test_runs_on_torchs_current_stream():
    import torch

    t = torch.randn(300, 200, device="cuda")
    out = torch.empty(200, 300, device="cuda")
    out.view(torch.uint8).fill_(verify.POISON_BYTE)
    bwlab.transpose(t, torch.empty_like(out))  # load the kernels first (loading synchronizes)
    assert bool((out.view(torch.uint8) == verify.POISON_BYTE).all().item())
    torch.cuda._sleep(1)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(400_000_000)
        bwlab.transpose(t, out)  # no stream given: torch's current stream, s
    assert bool((out.view(torch.uint8) == verify.POISON_BYTE).all().item()), "not on torch's current stream"
    s.synchronize()
    assert torch.equal(out, t.t())


def test_refusals_leave_out_untouched():
    import cupy
    import torch

    x = cupy.ones((64, 96), cupy.float32)

    def poisoned(shape, dtype=cupy.float32):
        o = cupy.empty(shape, dtype)
        verify.poison(o)
        return o

    buf = cupy.zeros(2 * 64 * 96, cupy.float32)
    cases = [
        (TypeError, "NumPy array", np.ones((64, 96), np.float32), poisoned((96, 64))),
        (TypeError, "on cpu", torch.ones(64, 96), None),
        (ValueError, "2-D", cupy.ones(5, cupy.float32), poisoned((5,))),
        (ValueError, "out must have shape", x, poisoned((64, 96))),
        (TypeError, "dtype", x, poisoned((96, 64), cupy.float64)),
        (ValueError, "C-contiguous", x, poisoned((192, 64))[::2]),
        (ValueError, "overlaps", buf[: 64 * 96].reshape(64, 96), buf[32 * 96: 96 * 96].reshape(96, 64)),
        (TypeError, "same kind", x, torch.empty(96, 64, device="cuda")),
        (TypeError, "GPU array", [[1, 2], [3, 4]], None),
    ]
    for exc, words, inp, out in cases:
        before = None if out is None or not isinstance(out, cupy.ndarray) else out.copy()
        with pytest.raises(exc, match=words):
            bwlab.transpose(inp, out)
        if before is not None:
            assert verify.compare(out, before).ok, words
    # results off their elements' alignment (CuPy's own kernels cannot read such arrays: the bytes
    # around them are checked instead)
    for dtype, by in ((cupy.float64, 4), (cupy.complex128, 8)):
        raw = cupy.empty(96 * 64 * 16 + 32, cupy.uint8)
        verify.poison(raw)
        out = cupy.ndarray((96, 64), dtype, memptr=raw.data + by)
        with pytest.raises(ValueError, match=f"not aligned to its {out.itemsize}-byte elements"):
            bwlab.transpose(cupy.ones((64, 96), dtype), out)
        assert bool((raw == verify.POISON_BYTE).all()), dtype


def test_dispatch_classes_on_the_gpu():
    """Every shape class the dispatcher knows, through the public function."""
    from bwlab import explain_transpose as explain
    import cupy

    assert explain(cupy.empty((4, 1))).startswith("copy")
    assert explain(cupy.empty((1000, 3), cupy.float32)).startswith("skinny<4,3,true,")
    assert explain(cupy.empty((3, 1000), cupy.float32)).startswith("widePerm<4,3,2,true>")
    assert explain(cupy.empty((1000, 26), cupy.uint8)).startswith("skinnyWords<1,true,2>")
    assert explain(cupy.empty((1000, 17), cupy.uint8)).startswith("tallWords<1,17,1024,32,false,0,false>")
    assert explain(cupy.empty((128, 128), cupy.uint8)).startswith("tileAny<1,")
    from bwlab.workloads.transpose.calls import device_plan

    def mis(e, nbytes):  # the built-in choice, or this GPU's tuned plan's, for a call of nbytes
        return dispatch.MISALIGNED_KERNELS[dispatch.misaligned_choice(e, device_plan(0), nbytes)[0]][0] + f"<{e},"

    assert explain(cupy.empty((100, 100), cupy.uint8)).startswith(mis(1, 100 * 100))
    assert explain(cupy.empty((100, 100), cupy.float32)[:, 1:]).startswith(mis(4, 100 * 99 * 4))
    assert explain(cupy.empty((100, 99), cupy.float32)[:, ::-1]).startswith("pitchedScalar<4,")  # 99: not whole
    assert explain(cupy.empty((100, 100), cupy.float32)[:, ::-1]).startswith("pitchedVec<4,")  # vectors
    assert explain(cupy.empty((200, 200), cupy.float32)[::2, ::2]).startswith("stridedTile<4,")
    assert explain(cupy.empty((4, 6, 10, 10), cupy.float32)[:, :2, :, ::2]).startswith("strided<4>")  # no merge
    assert explain(cupy.empty((100, 100), cupy.float32)[:, :50].T).startswith("copyRows")


def test_every_tile_candidate_and_skinny_width():
    """The tuner's candidates and all skinny widths, forced, against NumPy."""
    import cupy

    from bwlab.workloads.transpose.calls import launch

    stream = cupy.cuda.get_current_stream().ptr
    for e, cfgs in dispatch.TILE_CANDIDATES.items():
        dt = {1: "u1", 2: "u2", 4: "u4", 8: "u8", 16: "c16"}[e]
        kernels = [("tile", dispatch.ANY, dispatch.tile_expression(e, cfg), cfg) for cfg in cfgs]
        kernels += [("align", dispatch.ALIGN, dispatch.tile_expression(e, cfg, "tileAlign"), cfg)
                    for cfg in dispatch.ALIGN_CANDIDATES[e]]
        kernels += [("scalar", dispatch.SCALAR, dispatch.tile_expression(e, cfg, "tileScalar"), cfg)
                    for cfg in dispatch.SCALAR_CANDIDATES[e]]
        kernels += [("stage", dispatch.STAGE, dispatch.tile_expression(e, cfg, "tileStage"), cfg)
                    for cfg in dispatch.STAGE_CANDIDATES.get(e, ())]
        kernels += [("sector", dispatch.SECTOR, dispatch.tile_expression(e, cfg, "tileSector"), cfg)
                    for cfg in dispatch.SECTOR_CANDIDATES.get(e, ())]
        kernels += [("whole", dispatch.WHOLE, dispatch.tile_expression(e, cfg, "tileWhole"), cfg)
                    for cfg in dispatch.WHOLE_CANDIDATES.get(e, ())]
        kernels += [("words", dispatch.WHOLE, dispatch.tile_expression(e, cfg, "tileWholeWords"), cfg)
                    for cfg in dispatch.WORDS_CANDIDATES.get(e, ())]
        for kind, source, expr, cfg in kernels:
            c = dispatch.Choice(kind, e, source, expr, cfg[2])
            shapes = [(2, 320, 272), (1, 2 * cfg[0], 3 * cfg[1]), (3, 16, 32)]  # multiples of 16
            if kind in ("align", "scalar", "stage", "sector", "whole", "words"):
                shapes += [(2, 300, 260), (2, 257, 263), (1, 1, 1), (2, 1, 77), (1, cfg[0] + 1, cfg[1] - 1)]
            for shape in shapes:
                host = verify.random_host(shape, dt)
                x = cupy.asarray(host)
                out = cupy.empty((shape[0], shape[2], shape[1]), dt)
                verify.poison(out)
                launch(c, x.data.ptr, out.data.ptr, shape[0], shape[1], shape[2], x.nbytes, 0, stream)
                assert verify.compare(out.get(), np.ascontiguousarray(host.swapaxes(1, 2))).ok, (e, cfg, shape)


@pytest.mark.parametrize("waves", [None, 100_000])
def test_byte_kernels_on_views(waves, monkeypatch):
    """tileStage, tileSector, tileWhole and tileWholeWords forced on row slices at odd offsets, on
    reversed rows (negative row stride) and on batches of slices with a negative or odd batch
    stride, whose rows start at every byte offset: their covering loads, byte shifts and guarded
    ends; tileSector also with one step a chunk (waves past the work), so that every chunk reads
    the next one's rows."""
    import cupy

    from bwlab.core.arrays import as_operand
    from bwlab.workloads.transpose.calls import kernel_runner

    if waves:
        monkeypatch.setattr(dispatch, "SECTOR_WAVES", waves)
    stream = cupy.cuda.get_current_stream().ptr
    kernels = [dispatch.Choice("stage", e, dispatch.STAGE, dispatch.tile_expression(e, cfg, "tileStage"), cfg[2])
               for e, cfgs in dispatch.STAGE_CANDIDATES.items() for cfg in cfgs] if not waves else []
    kernels += [dispatch.Choice("sector", e, dispatch.SECTOR, dispatch.tile_expression(e, cfg, "tileSector"), cfg[2])
                for e, cfgs in dispatch.SECTOR_CANDIDATES.items() for cfg in cfgs]
    if not waves:  # the whole-sector tiles have no chunks
        kernels += [dispatch.Choice(kind, e, dispatch.WHOLE, dispatch.tile_expression(e, cfg, kernel), cfg[2])
                    for kind, kernel, table in (("whole", "tileWhole", dispatch.WHOLE_CANDIDATES),
                                                ("words", "tileWholeWords", dispatch.WORDS_CANDIDATES))
                    for e, cfgs in table.items() for cfg in cfgs]
    for c in kernels:
        dt = {1: "u1", 2: "u2", 4: "u4", 8: "u8", 16: "c16"}[c.itemsize]
        tr, tc = dispatch.tile_shape(c)
        for rows, cols in ((257, 263), (1, 77), (130, 1), (tr + 3, tc + 5), (3 * tr + 1, 2 * tc + 3)):
            host = verify.random_host((3, rows + 3, cols + 7), dt)
            big = cupy.asarray(host)
            for sl in (np.s_[1, 1:rows + 1, 3:3 + cols], np.s_[1, rows + 1:1:-1, 1:1 + cols],
                       np.s_[::-1, 2:rows + 2, 1:cols + 1], np.s_[::2, 1:rows + 1, 5:cols + 5]):
                x = big[sl]
                xo = as_operand(x, "x")
                out = cupy.empty(x.shape[:-2] + (cols, rows), dt)
                verify.poison(out)
                kernel_runner(c, dispatch.layout_of(xo.shape, xo.strides), xo)(xo.ptr, out.data.ptr, stream)
                want = np.ascontiguousarray(np.swapaxes(host[sl], -1, -2))
                assert verify.compare(out.get(), want).ok, (c.expression, rows, cols, sl)


def _big(shape, dtype):
    import cupy

    x = cupy.empty(shape, dtype)
    verify.fill_random_bits(x, seed=11)
    return x


@pytest.mark.parametrize("align", [16, 32])
def test_words_tile_of_aligned_input_rows(align):
    """tileWholeWords' no-shift tiles (the dispatch's where the input's rows start on 16-byte
    boundaries and the output's do not; on 32-byte ones, bytes on 8-byte loads), forced on such
    layouts: row slices of a wider parent at aligned offsets, reversed rows, batches with a
    negative batch stride, extents around the tile and below it; then through the public API,
    which takes them."""
    import cupy

    from bwlab.core.arrays import as_operand
    from bwlab.workloads.transpose.calls import kernel_runner

    stream = cupy.cuda.get_current_stream().ptr
    tiles = dispatch.WORDS_ALIGNED_IN if align == 16 else dispatch.WORDS_ALIGNED_IN_32
    for e, cfg in tiles.items():
        dt, v = {1: "u1", 2: "u2"}[e], align // e  # v: elements in `align` bytes
        c = dispatch.Choice("words", e, dispatch.WHOLE, dispatch.tile_expression(e, cfg, "tileWholeWords"), cfg[2])
        tr, tc = cfg[:2]
        for rows, cols in ((257, 2 * v), (1, 5 * v), (131, v), (tr + 3, tc + v), (3 * tr + 1, 2 * tc - v),
                           (2 * tr - 1, 7 * v)):
            host = verify.random_host((3, rows + 3, cols + 3 * v), dt)
            big = cupy.asarray(host)
            for sl in (np.s_[1, 1:rows + 1, v:v + cols], np.s_[1, rows + 1:1:-1, 2 * v:2 * v + cols],
                       np.s_[::-1, 2:rows + 2, :cols], np.s_[::2, 1:rows + 1, v:v + cols]):
                x = big[sl]
                xo = as_operand(x, "x")
                lay = dispatch.layout_of(xo.shape, xo.strides)
                assert xo.ptr % align == 0 and lay.rs * e % align == 0
                out = cupy.empty(x.shape[:-2] + (cols, rows), dt)
                verify.poison(out)
                kernel_runner(c, lay, xo)(xo.ptr, out.data.ptr, stream)
                want = np.ascontiguousarray(np.swapaxes(host[sl], -1, -2))
                assert verify.compare(out.get(), want).ok, (c.expression, rows, cols, sl)
        for shape in ((2, 1001, 48 * v), (4099, 64 * v), (3 * tr + 5, 11 * v)):
            x = cupy.asarray(verify.random_host(shape, dt))  # fresh: 256-byte aligned
            sector = shape[-1] * e % 32 == 0 and e in dispatch.WORDS_ALIGNED_IN_32
            want = dispatch.tile_expression(e, (dispatch.WORDS_ALIGNED_IN_32 if sector else
                                                dispatch.WORDS_ALIGNED_IN)[e], "tileWholeWords")
            assert bwlab.explain_transpose(x).startswith(want), bwlab.explain_transpose(x)
            out = bwlab.transpose(x)
            assert verify.compare(out.get(), np.ascontiguousarray(np.swapaxes(x.get(), -1, -2))).ok, shape
    if align == 32:  # the same shape and strides, x's pointer 32- then 16-byte aligned: a plan for each
        from bwlab.workloads.transpose import calls

        parent = cupy.asarray(verify.random_host((1001, 1024 + 32), "u1"))
        seen = set()
        for x in (parent[:, :1024], parent[:, 16:1040]):
            out = bwlab.transpose(x)  # through the plan cache
            assert verify.compare(out.get(), np.ascontiguousarray(x.get().T)).ok
            seen |= {p.choice.expression for k, p in calls._plans.items() if k[0][1:3] == ((1001, 1024), (1056, 1))}
        assert seen == {dispatch.tile_expression(1, t[1], "tileWholeWords")
                        for t in (dispatch.WORDS_ALIGNED_IN, dispatch.WORDS_ALIGNED_IN_32)}, seen


@pytest.mark.parametrize("shape, dtype", [
    ((3, 32768, 32768), "uint8"),          # 3.2e9 elements, tile vector path, batched
    ((46341, 46341), "uint16"),            # 2.1e9 elements, misaligned rows (odd extents)
    ((46341, 46343), "uint32"),            # ... of 4 bytes
    ((46341, 46343), "uint64"),            # ... of 8 bytes (tileWhole)
    ((46341, 46343), "complex128"),        # 16-byte elements (tileWhole), 34 GB each way
    ((46341, 46352), "uint8"),             # input rows aligned, output rows not (tileWholeWords, no shift)
    ((46341, 46368), "uint8"),             # ... on 32-byte boundaries (8-byte loads)
    ((46341, 46344), "uint16"),            # ... of 2 bytes
    ((1_000_000_000, 3), "uint8"),         # 3e9 elements, tall skinny
    ((3, 1_000_000_000), "uint8"),         # wide skinny
], ids=["batch-u8", "odd-u16", "odd-u32", "odd-u64", "odd-c16", "ain-u8", "ain32-u8", "ain-u16", "tall-u8",
                                     "wide-u8"])
def test_over_2_31_elements(shape, dtype):
    import cupy

    need = 2 * int(np.prod(shape)) * np.dtype(dtype).itemsize + (8 << 30)  # x, out and the check's temporaries
    if cupy.cuda.Device().mem_info[0] < need:
        pytest.skip(f"needs {need / 2**30:.0f} GiB of free GPU memory")
    x = _big(shape, dtype)
    assert x.size > 2**31
    kernel = {"uint64": "tileWhole<8,", "complex128": "tileWhole<16,"}.get(dtype)
    if shape in ((46341, 46352), (46341, 46344)):  # only the output's rows misaligned
        kernel = "tileWholeWords<%d,128,128," % np.dtype(dtype).itemsize
    if shape == (46341, 46368):  # ... and the input's on 32-byte boundaries
        kernel = "tileWholeWords<1,128,256,"
    assert kernel is None or bwlab.explain_transpose(x).startswith(kernel), bwlab.explain_transpose(x)
    out = cupy.empty(shape[:-2] + (shape[-1], shape[-2]), dtype)
    verify.poison(out)
    bwlab.transpose(x, out)
    check = compare_transposed(out, x)
    assert check.ok, check
    # Independent spot checks at the far end, past 2^31 elements (as unsigned words: no NaN).
    rows, cols = shape[-2:]
    last = verify.uint_view(out.reshape(-1, cols, rows)[-1])
    xl = verify.uint_view(x.reshape(-1, rows, cols)[-1])
    assert bool((last[cols - 1, rows - 1] == xl[rows - 1, cols - 1]).all())
    assert bool((last[0, rows - 1] == xl[rows - 1, 0]).all())


def test_compare_transposed_catches_a_wrong_element():
    import cupy

    x = _big((3, 40, 50), "float32")
    out = cupy.ascontiguousarray(x.swapaxes(1, 2))
    assert compare_transposed(out, x).ok
    out.view(cupy.uint32)[2, 7, 9] ^= 1
    bad = compare_transposed(out, x)
    assert not bad.ok and bad.mismatches == 1 and bad.first_bad == (2, 7, 9)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_offset_views_take_the_misaligned_kernels(dtype):
    """A view starting mid-allocation is not 16-byte aligned: a misaligned kernel, exactly."""
    import cupy

    from bwlab import explain_transpose as explain

    host = verify.random_host((1 + 256 * 128,), dtype)
    x = cupy.asarray(host)[1:].reshape(256, 128)
    assert explain(x).startswith(("tileAlign", "tileScalar", "tileStage", "tileSector", "tileWhole"))
    out = cupy.empty((128, 256), dtype)
    verify.poison(out)
    bwlab.transpose(x, out)
    assert verify.compare(out.get(), host[1:].reshape(256, 128).T.copy()).ok
