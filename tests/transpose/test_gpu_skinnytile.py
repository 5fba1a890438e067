"""skinnyTile and skinnyWords (kernels/skinnytile.cu) on the GPU, bit-exact against NumPy with
the output poisoned first: every short side 1..64 of every instantiation the library may launch
(skinnyTile tall for every element size, wide for 4, 8 and 16 bytes; skinnyWords, tall only, for
every short side it takes), long sides with rows misaligned (n prime, n*E % 16 != 0), aligned,
tiny and spanning several tiles; the dispatcher's choices through bwlab.transpose; and arrays of
more than 2^31 elements."""
import numpy as np
import pytest
from forced import check_forced

import bwlab
from bwlab.core import verify
from bwlab.workloads.transpose import plans as dispatch
from bwlab.workloads.transpose.reference import compare_transposed

pytestmark = pytest.mark.gpu

DT = {1: "u1", 2: "u2", 4: "u4", 8: "u8", 16: "c16"}


def _longs(e: int, s: int, words: bool = False) -> tuple[int, ...]:
    rlog = dispatch.skinnytile_geometry(e, s, True, words)[0]
    w = dispatch.skinnytile_vectors(rlog, words) * (16 // e)  # positions per tile
    return (5, 1009, 1024, 3 * w + 7)  # tiny, prime, aligned rows, three tiles and a bit


# (element size, words, tall): what the library launches (wide 1-, 2- and 4-byte matrices take widePerm)
FORCED = ([(e, False, True) for e in dispatch.ITEMSIZES] + [(1, True, True), (2, True, True)]
          + [(e, False, False) for e in dispatch.ITEMSIZES if e >= 8])


@pytest.mark.parametrize("e, words, tall", FORCED,
                         ids=[f"{'tall' if t else 'wide'}-{e}{'-words' if w else ''}" for e, w, t in FORCED])
def test_every_short_side_forced(e, words, tall):
    """Every short side 1..64 of one registered instantiation, launched directly."""
    registered = dispatch.expressions()[dispatch.SKINNYTILE]
    for s in range(1, 65):
        if words and not dispatch.skinnytile_words(e, s, tall):
            continue
        expression = dispatch.skinnytile_expression(e, tall, words, s)
        assert expression in registered, expression
        choice = dispatch.Choice("tall-tile" if tall else "wide-tile", e, dispatch.SKINNYTILE, expression,
                                 dispatch.SKINNYTILE_THREADS)
        for n in _longs(e, s, words):
            check_forced(choice, *((n, s) if tall else (s, n)), DT[e], seed=s * 7919 + n)


def _largest_rlog(e: int, s: int) -> int:
    """The largest tile of 32R vectors a row whose shared memory fits skinnyWords' budget."""
    gp = dispatch.skinnytile_pitch(e, s)
    return max(r for r in range(8) if (32 * (1 << r) + 1) * gp <= dispatch.WORDS_SMEM)


@pytest.mark.parametrize("e", dispatch.ITEMSIZES)
def test_tall_tiles_of_several_load_rounds(e, monkeypatch):
    """skinnyTile's TALL tiles larger than one round of loads (9 vectors a thread), forced: the
    rounds, the last round of one vector a thread, and their inner and end tiles."""
    geometry = dispatch.skinnytile_geometry

    def large(itemsize, short, tall, words=False, aligned=False):
        if not tall or words:
            return geometry(itemsize, short, tall, words, aligned)
        r, gp = _largest_rlog(itemsize, short), dispatch.skinnytile_pitch(itemsize, short)
        return r, gp, (32 * (1 << r) + 1) * gp

    monkeypatch.setattr(dispatch, "skinnytile_geometry", large)
    choice = dispatch.Choice("tall-tile", e, dispatch.SKINNYTILE, dispatch.skinnytile_expression(e, True),
                             dispatch.SKINNYTILE_THREADS)
    for s in (5, 33, 64):
        r = _largest_rlog(e, s)
        assert (32 * (1 << r) + 1) * s > 9 * 256, (e, s, r)  # more than one round
        w = 32 * (1 << r) * (16 // e)  # positions per tile
        for n in (w - 3, 3 * w + 7, 3 * w):
            check_forced(choice, n, s, DT[e], seed=s * 31 + n)


@pytest.mark.parametrize("e", sorted(dispatch.TALL_HALO_TASKS))
def test_tall_tiles_on_256_byte_boundaries_at_every_output_offset(e):
    """skinnyTile's TALL tiles with each row's vectors counted from a 256-byte boundary of memory
    (H = 16): the output 16k bytes past such a boundary for every k (the rows' first vectors move
    to other places in their 256-byte spans, so the tiles' packed windows and clipped ends move with
    them), at the dispatch's tile for three short sides, tiny, prime and three-tiles-and-a-bit long
    sides; bit-exact, the rest of the output buffer untouched."""
    import cupy

    from bwlab.workloads.transpose.calls import launch

    sides = [s for s in range(2, 65) if dispatch.skinnytile_applies(e, s, 10**6 + 1, True, False)
             and dispatch.tall_halo(e, s, True) > 1]
    for s in (sides[0], sides[len(sides) // 2], sides[-1]):
        expression = dispatch.skinnytile_expression(e, True, False, s)
        assert expression == f"skinnyTile<{e},true,{dispatch.TALL_HALO}>", expression
        choice = dispatch.Choice("tall-tile", e, dispatch.SKINNYTILE, expression, dispatch.SKINNYTILE_THREADS)
        for n in _longs(e, s):
            host = verify.random_host((n, s), DT[e], seed=s * 997 + n + e)
            want = np.ascontiguousarray(host.T).view(np.uint8).reshape(-1)
            x = cupy.asarray(host)
            buf = cupy.empty(want.size + 512, cupy.uint8)
            base = (-buf.data.ptr) % 256  # buf[base:] starts on a 256-byte boundary
            for k in range(16):
                verify.poison(buf)
                poisoned = buf.get()
                lo = base + 16 * k
                launch(choice, x.data.ptr, buf.data.ptr + lo, 1, n, s, x.nbytes, x.device.id,
                       cupy.cuda.get_current_stream().ptr)
                got = buf.get()
                assert np.array_equal(got[lo:lo + want.size], want), (expression, n, s, k)
                assert np.array_equal(got[:lo], poisoned[:lo]) and np.array_equal(
                    got[lo + want.size:], poisoned[lo + want.size:]), (expression, n, s, k, "wrote outside")
            assert verify.compare(x.get(), host).ok


@pytest.mark.parametrize("e, asynchronous", [(1, False), (1, True), (2, False), (2, True)])
def test_words_both_copies_forced(e, asynchronous, monkeypatch):
    """skinnyWords with its tile copied through registers and by cp.async, each forced on every short
    side it takes (whichever the dispatch picks there), at the dispatch's tile and at the largest
    tile within 72 KiB (several rounds of loads through registers); inner and end tiles."""
    geometry = dispatch.skinnytile_geometry
    for s in range(4 // e, 65):
        if not dispatch.skinnytile_words(e, s, True) or s > dispatch.WORDS_TALL_MAX[e]:
            continue
        expression = dispatch.skinnytile_expression(e, True, True, s, asynchronous)
        assert expression in dispatch.expressions()[dispatch.SKINNYTILE], expression
        choice = dispatch.Choice("tall-tile", e, dispatch.SKINNYTILE, expression, dispatch.SKINNYTILE_THREADS)
        gp = dispatch.skinnytile_pitch(e, s)
        largest = max(r for r in range(8) if (31 * (1 << r) + 1) * gp <= dispatch.WORDS_SMEM)
        for r in (geometry(e, s, True, True)[0], largest):
            monkeypatch.setattr(dispatch, "skinnytile_geometry",
                                lambda itemsize, short, tall, words=False, aligned=False, r=r:
                                (r, gp, (31 * (1 << r) + 1) * gp))
            w = dispatch.skinnytile_vectors(r, True) * (16 // e)  # positions per tile
            for n in (1009, 3 * w + 7):
                check_forced(choice, n, s, DT[e], seed=s * 131 + n + asynchronous)
        monkeypatch.setattr(dispatch, "skinnytile_geometry", geometry)


@pytest.mark.parametrize("e, asynchronous", [(1, False), (1, True), (2, False)])  # uint16: registers only
def test_words_aligned_rows_forced(e, asynchronous, monkeypatch):
    """skinnyWords' form for long rows of whole 16-byte vectors (tiles of 32R, no group before them),
    both copies forced on every short side it takes, at the dispatch's tile and at the largest within
    72 KiB: one row vector, one tile exactly, and three tiles and a part tile (inner and end tiles)."""
    geometry = dispatch.skinnytile_geometry
    ve = 16 // e
    for s in range(4 // e, dispatch.WORDS_ALIGNED_TALL_MAX[e] + 1):
        if not dispatch.skinnytile_words(e, s, True) or (e == 2 and dispatch.words_async(e, s)):
            continue
        expression = dispatch.skinnytile_expression(e, True, True, s, asynchronous, aligned=True)
        assert expression in dispatch.expressions()[dispatch.SKINNYTILE], expression
        choice = dispatch.Choice("tall-tile", e, dispatch.SKINNYTILE, expression, dispatch.SKINNYTILE_THREADS)
        gp = dispatch.skinnytile_pitch(e, s)
        largest = max(r for r in range(8) if 32 * (1 << r) * gp <= dispatch.WORDS_SMEM)
        for r in (geometry(e, s, True, True, True)[0], largest):
            monkeypatch.setattr(dispatch, "skinnytile_geometry",
                                lambda itemsize, short, tall, words=False, aligned=False, r=r:
                                (r, gp, 32 * (1 << r) * gp))
            w = dispatch.skinnytile_vectors(r, True, True) * ve  # positions per tile
            for n in (ve, w, 3 * w + 5 * ve):
                check_forced(choice, n, s, DT[e], seed=s * 137 + n + asynchronous)
        monkeypatch.setattr(dispatch, "skinnytile_geometry", geometry)


NP_DTYPES = ("bool", "uint8", "float16", "float32", "int32", "float64", "complex64", "complex128")
SHORTS = (2, 3, 5, 7, 13, 16, 17, 24, 31, 32, 33, 48, 63, 64)


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_dispatch_through_the_public_function(dtype):
    """bwlab.transpose picks skinnyTile where plans says so, and every pick is exact."""
    import cupy

    from bwlab import explain_transpose as explain
    from bwlab.workloads.transpose.calls import device_plan

    for s in SHORTS:
        for n in (65, 4099, 100_003):
            for shape in ((n, s), (s, n)):
                host = verify.random_host(shape, dtype)
                x = cupy.asarray(host)
                e = x.dtype.itemsize
                want = dispatch.choose(e, dispatch.layout_of(x.shape, tuple(v // e for v in x.strides)),
                                       device_plan(x.device.id))
                assert explain(x).startswith(want.label), (shape, dtype, explain(x), want.label)
                out = cupy.empty(shape[::-1], dtype)
                verify.poison(out)
                bwlab.transpose(x, out)
                assert verify.compare(out.get(), np.ascontiguousarray(host.T)).ok, (shape, dtype, want.label)


def test_the_dispatcher_takes_it_for_short_sides_up_to_64():
    import cupy

    from bwlab import explain_transpose as explain

    assert explain(cupy.empty((24_403_225, 11), cupy.uint8)).startswith("skinnyWords<1,true,3,true>")  # cp.async
    assert explain(cupy.empty((15_790_321, 17), cupy.uint8)).startswith("tallWords<1,17,1024,32,false,0,false>")
    assert explain(cupy.empty((20_648_881, 13), cupy.uint8)).startswith("skinnyWords<1,true,1>")  # 3 bundles, 1 row
    assert explain(cupy.empty((17, 15_790_321), cupy.uint8)).startswith("widePerm<1,17,2,true>")
    assert explain(cupy.empty((1_000_003, 33), cupy.float32)).startswith("skinnyTile<4,true,16>")  # 66 tasks
    assert explain(cupy.empty((1_000_003, 36), cupy.float32)).startswith("skinnyTile<4,true,16>")  # R x 2
    assert explain(cupy.empty((1_000_003, 50), cupy.float32)).startswith("skinnyTile<4,true,16>")
    assert explain(cupy.empty((1_000_003, 3), cupy.float32)).startswith("skinnyTile<4,true,16>")  # misaligned rows
    assert explain(cupy.empty((1_000_004, 3), cupy.float32)).startswith("skinny<4,3,true,")  # aligned: registers
    assert explain(cupy.empty((3, 1_000_003), cupy.float32)).startswith("widePerm<4,3,2,true>")
    assert explain(cupy.empty((3, 1_000_003), cupy.float64)).startswith("skinnyTile<8,false>")
    assert explain(cupy.empty((16_777_217, 16), cupy.uint8)).startswith("skinnyWords<1,true>")
    assert explain(cupy.empty((16_777_216, 16), cupy.uint8)).startswith("skinnyWords<1,true,0,false,true>")  # rows 16k
    assert explain(cupy.empty((1_048_576, 17), cupy.uint8)).startswith("skinnyWords<1,true,1,true,true>")
    assert explain(cupy.empty((1_048_592, 17), cupy.uint8)).startswith("skinnyWords<1,true,1,true>")  # 16 past 256k
    assert explain(cupy.empty((33, 1_000_003), cupy.float16)).startswith("widePerm<2,33,2,true>")
    assert explain(cupy.empty((34, 1_000_003), cupy.float16)).startswith("widePerm<2,34,2,true>")
    assert explain(cupy.empty((4, 10_000_000), cupy.uint8)).startswith("widePerm<1,4,2,true>")
    assert explain(cupy.empty((1_000_003, 3), cupy.uint8)).startswith("tallPerm<1,3,2>")
    assert explain(cupy.empty((1_000_003, 32), cupy.float16)).startswith("skinnyTile<2,true,16>")  # as fast


@pytest.mark.parametrize("shape, kernel", [((195_225_787, 11), "skinnyWords<1,true,3,true>"),
                                          ((134_217_731, 16), "skinnyWords<1,true>"),
                                          ((134_217_984, 16), "skinnyWords<1,true,0,false,true>")],
                         ids=["tall-u8-11-words", "tall-u8-16-words", "tall-u8-16-words-aligned-rows"])
def test_over_2_31_elements(shape, kernel):
    import cupy

    from bwlab import explain_transpose as explain

    x = cupy.empty(shape, cupy.uint8)
    verify.fill_random_bits(x, seed=5)
    assert x.size > 2**31 and explain(x).startswith(kernel + ":"), explain(x)
    out = cupy.empty(shape[::-1], cupy.uint8)
    verify.poison(out)
    bwlab.transpose(x, out)
    check = compare_transposed(out, x)
    assert check.ok, check
    rows, cols = shape
    assert int(out[cols - 1, rows - 1]) == int(x[rows - 1, cols - 1])
    assert int(out[0, rows - 1]) == int(x[rows - 1, 0])
