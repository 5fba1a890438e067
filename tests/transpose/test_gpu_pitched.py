"""The pitched transpose (kernels/pitched.cu, the local step of bwlab.distributed.transpose) on the
GPU, bit-exact against NumPy: every element size, both kernels (16-byte vectors where alignment
allows, else element by element), extents of 1, primes, not a multiple of the tile, pitches
wider than the rows, offset pointers, capped grids; and nothing written between the rows of the
output (its pitch padding keeps the poison)."""
import numpy as np
import pytest

from bwlab.core import verify
from bwlab.workloads.transpose.pitched import transpose_pitched, vectorized

pytestmark = pytest.mark.gpu

DT = {1: "u1", 2: "u2", 4: "u4", 8: "u8", 16: "c16"}
# (rows, cols, extra columns of the input pitch, extra of the output pitch, element offset)
SHAPES = [(1, 1, 0, 0, 0), (7, 5, 3, 2, 1), (64, 64, 0, 0, 0), (64, 64, 16, 48, 0), (257, 131, 5, 9, 3),
          (1000, 48, 0, 16, 0), (48, 1000, 16, 0, 0), (4099, 1031, 1, 7, 1), (512, 2048, 64, 64, 0)]


@pytest.mark.parametrize("e", sorted(DT))
@pytest.mark.parametrize("blocks", (None, 3), ids=("grid", "3-blocks"))
def test_pitched_against_numpy(e, blocks):
    import cupy

    stream = cupy.cuda.get_current_stream().ptr
    kinds = set()
    for rows, cols, pi, po, off in SHAPES:
        ldi, ldo = cols + pi + off, rows + po + off   # pitches, in elements
        host = verify.random_host(((rows + 1) * ldi,), DT[e], seed=rows * 7919 + cols + e)
        x = cupy.asarray(host)
        out = cupy.empty(((cols + 1) * ldo,), DT[e])
        verify.poison(out)
        want = cupy.asnumpy(out)
        src, dst = x.data.ptr + off * e, out.data.ptr + off * e
        kinds.add(vectorized(e, rows, cols, ldi, ldo, src, dst))
        transpose_pitched(src, ldi, dst, ldo, rows, cols, e, x.device.id, stream, blocks)
        i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
        want[off + j * ldo + i] = host[off + i * ldi + j]
        assert np.array_equal(cupy.asnumpy(out).view(np.uint8), want.view(np.uint8)), (e, rows, cols, pi, po, off)
    assert kinds == ({True} if e == 16 else {True, False})   # both kernels ran (16-byte elements: always vectors)
