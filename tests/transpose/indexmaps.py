"""The index maps the kernels use, written once in Python as their specification.

The CUDA sources implement the same formulas; CPU tests check the maps are bijections
and that tiles cover a matrix exactly once, GPU tests check the kernels against NumPy.
"""
from __future__ import annotations


def diagonal_block(bx: int, by: int, gx: int, gy: int) -> tuple[int, int]:
    """Launch block (bx, by) of a gx x gy grid -> the tile it works on (block_xy in naive.cu)."""
    bid = bx + gx * by
    ty = bid % gy
    tx = (bid // gy + ty) % gx
    return tx, ty


def original_diagonal_block(bx: int, by: int, gx: int, gy: int) -> tuple[int, int]:
    """The original remap, kept to show why it was replaced: not a bijection unless gx == gy."""
    return (bx + by) % gx, bx


def swizzle(row: int, col: int, width: int) -> int:
    """Shared-memory column of element (row, col) in a swizzled tile (tiled.cu)."""
    return (col + row) % width


def smem_bank(row: int, col: int, pitch: int, banks: int = 32) -> int:
    """Bank of a 4-byte element at (row, col) of a shared tile with the given row pitch."""
    return (row * pitch + col) % banks


def tile_origins(rows: int, cols: int, tile_r: int, tile_c: int):
    """Top-left corner of every tile a tiled grid launches, in launch order."""
    for ty in range(-(-rows // tile_r)):
        for tx in range(-(-cols // tile_c)):
            yield ty * tile_r, tx * tile_c


def double_buffer_tiles(block: int, grid: int, per_block: int, ntiles: int) -> list[int]:
    """Tiles visited by one block of tileDoubleBuffer: block, block + grid, ... (at most per_block)."""
    return [t for t in range(block, ntiles, grid)][:per_block]


def grouped_tile(bx: int, by: int, tiles_c: int, tiles_r: int, group: int) -> tuple[int, int]:
    """Launch block (bx, by) -> (tile row, tile col) in tileVec's grouped order (fast.cu)."""
    bid = bx + tiles_c * by
    per_group = group * tiles_c
    first = (bid // per_group) * group
    height = min(group, tiles_r - first)
    in_group = bid % per_group
    return first + in_group % height, in_group // height
