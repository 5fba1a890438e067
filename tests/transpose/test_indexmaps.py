"""The kernels' index maps (written once in Python in indexmaps.py) are bijections, and the
grids cover every matrix exactly once."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

import indexmaps
from bwlab.workloads.transpose import catalog
from indexmaps import smem_bank

dims = st.integers(1, 40)


@given(dims, dims)
def test_diagonal_remap_is_a_bijection_on_any_grid(gx, gy):
    seen = {indexmaps.diagonal_block(bx, by, gx, gy) for by in range(gy) for bx in range(gx)}
    assert seen == {(x, y) for y in range(gy) for x in range(gx)}


def test_the_original_remap_loses_tiles_on_rectangular_grids():
    gx, gy = 4, 2
    seen = {indexmaps.original_diagonal_block(bx, by, gx, gy) for by in range(gy) for bx in range(gx)}
    tiles = {(x, y) for y in range(gy) for x in range(gx)}
    assert seen != tiles  # blocks land outside the grid, tiles are missed: why diagonalRow/Col re-split


@given(st.sampled_from([32, 64]), st.integers(0, 63))
def test_swizzle_is_a_rotation_of_each_row(width, row):
    assert sorted(indexmaps.swizzle(row, c, width) for c in range(width)) == list(range(width))


def test_swizzled_32x32_tile_reads_a_column_without_bank_conflicts():
    for col in range(32):  # warp reads tile column `col`: lane i -> row i
        banks = {smem_bank(i, indexmaps.swizzle(i, col, 32), 32) for i in range(32)}
        assert len(banks) == 32
    assert len({smem_bank(i, 0, 32) for i in range(32)}) == 1  # unpadded: 32-way conflict


def _smem_read_banks(pitch, bx=32, by=16):
    """Banks a warp hits when smemTranspose reads tile[ocol][orow] (lane t -> t % by, t // by)."""
    return [smem_bank(t % by, t // by, pitch) for t in range(32)]


def test_smem_padding_lessons():
    assert max(_smem_read_banks(32).count(b) for b in range(32)) == 16  # no padding: 16-way
    assert max(_smem_read_banks(33).count(b) for b in range(32)) == 2   # pad 1: 2-way (32x16 tile)
    assert len(set(_smem_read_banks(34))) == 32                         # pad 2: conflict-free


def test_tilevec_patches_are_conflict_free():
    # fast.cu: lane -> (row lane/8, word 4*(lane%8) + k), pitch TC + 1 = 65
    for k in range(4):
        writes = {smem_bank(lane // 8, 4 * (lane % 8) + k, 65) for lane in range(32)}
        reads = {smem_bank(4 * (lane % 8) + k, lane // 8, 65) for lane in range(32)}
        assert len(writes) == 32 and len(reads) == 32


shapes = st.tuples(st.integers(1, 300), st.integers(1, 300))


@pytest.mark.parametrize("spec", [k for k in catalog.KERNELS if k.cover in ("in", "out")], ids=lambda s: s.name)
@given(shape=shapes)
def test_grid_covers_the_matrix_once(spec, shape):
    rows, cols = shape
    for block in spec.legal_blocks():
        gx, gy = spec.grid(rows, cols, block)
        sx, sy = spec.step(*block)
        ex, ey = (cols, rows) if spec.cover == "in" else (rows, cols)
        assert gx * sx >= ex and (gx - 1) * sx < ex  # covered, and no block wholly outside
        assert gy * sy >= ey and (gy - 1) * sy < ey


@given(shape=shapes)
def test_tiles_cover_exactly_once(shape):
    rows, cols = shape
    origins = list(indexmaps.tile_origins(rows, cols, 32, 64))
    cells = [(r, c) for r0, c0 in origins for r in range(r0, min(r0 + 32, rows)) for c in range(c0, min(c0 + 64, cols))]
    assert len(cells) == len(set(cells)) == rows * cols


@given(shape=shapes)
def test_double_buffer_walk_visits_every_tile_once(shape):
    spec = next(k for k in catalog.KERNELS if k.name == "tile32DoubleBuffer")
    rows, cols = shape
    grid, _ = spec.grid(rows, cols, spec.block)
    ntiles = -(-rows // 32) * -(-cols // 32)
    visited = [t for b in range(grid) for t in indexmaps.double_buffer_tiles(b, grid, spec.extra[0], ntiles)]
    assert sorted(visited) == list(range(ntiles))


@given(st.integers(1, 30), st.integers(1, 30), st.sampled_from([1, 2, 3, 8, 65535]))
def test_grouped_block_order_is_a_bijection(tiles_c, tiles_r, group):
    seen = {indexmaps.grouped_tile(bx, by, tiles_c, tiles_r, group) for by in range(tiles_r) for bx in range(tiles_c)}
    assert seen == {(r, c) for r in range(tiles_r) for c in range(tiles_c)}
