"""The transpose ladder: every kernel bwlab can build, launch and explain for this workload.

Launch conventions: `in` is rows x cols, row-major; a transpose writes cols x rows, a copy
writes rows x cols. A TransposeKernel adds how its grid covers the matrix to the KernelSpec.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ...core.launch import cdiv
from ...core.workload import KernelSpec

KERNELS_DIR = Path(__file__).parent / "kernels"
NAIVE, SMEM, TILED, FAST, BOUNDS = (KERNELS_DIR / f"{n}.cu" for n in ("naive", "smem", "tiled", "fast", "bounds"))
OP = "transpose"


@dataclass(frozen=True)
class TransposeKernel(KernelSpec):
    # What the grid spans: "in" (x along input columns), "out" (x along output columns),
    # "tiles" (1-D over tiles, extra[0] tiles per block).
    cover: str = "in"
    step: Callable[[int, int], tuple[int, int]] = lambda bx, by: (bx, by)  # elements one block covers
    extra: tuple[int, ...] = ()   # trailing int arguments (tiles per block, block-order group)

    @property
    def transposes(self) -> bool:
        return self.role == OP

    def output_shape(self, rows: int, cols: int) -> tuple[int, int]:
        return (cols, rows) if self.transposes else (rows, cols)

    def grid(self, rows: int, cols: int, block) -> tuple[int, int]:
        sx, sy = self.step(*block)
        if self.cover == "in":
            return cdiv(cols, sx), cdiv(rows, sy)
        if self.cover == "out":
            return cdiv(rows, sx), cdiv(cols, sy)
        if self.cover == "tiles":
            return max(1, cdiv(cdiv(rows, sx) * cdiv(cols, sx), self.extra[0])), 1
        raise ValueError(f"unknown cover {self.cover!r}")


_block = lambda bx, by: (bx, by)  # noqa: E731
_unroll4 = lambda bx, by: (4 * bx, by)  # noqa: E731
_tile = lambda tr, tc: (lambda bx, by: (tc, tr))  # noqa: E731
_THIN = (32, 16)  # the naive kernels' classic block
_SMEM_BLOCKS = ((32, 16), (32, 8), (32, 32))
_TILE_BLOCKS = ((32, 8), (32, 16), (32, 32))
_NAIVE = "classic naive transpose (teaching ladder)"
_SMEM_ORIGIN = "classic shared-memory transpose (teaching ladder)"
_TILED = "tiled transpose, step {} of the teaching ladder"
_FIX64 = "64-bit offsets (int products overflow past 2^31 elements)"
_FIX_UNROLL = "every one of the 4 elements is bounds-checked (the original checked only the first)"
_FIX_DIAG = "block remap is a bijection on rectangular grids (the original needs a square grid)"

# tileVec: the configuration chosen on the H200 by the variants sweep (168 variants, see
# `bwlab sweep transpose --variants`): 64x64 tile, 256 threads, plain loads with streaming
# (evict-first) stores (HINT 2), blocks walking whole tile columns first (GROUP 65535).
FAST_TR, FAST_TC, FAST_THREADS, FAST_HINT, FAST_GROUP = 64, 64, 256, 2, 65535


def K(name, source, template, role, cover, step, block, blocks, origin, lesson, **kw) -> TransposeKernel:
    return TransposeKernel(name, source, template, role, block, blocks, origin, lesson, cover=cover, step=step, **kw)


KERNELS: tuple[TransposeKernel, ...] = (
    # --- bounds ------------------------------------------------------------------------------
    K("copyRow", BOUNDS, "copyRow<{T}>", "bound", "in", _block, _THIN, None, _NAIVE,
      "Row read, row write, one element per thread: the naive ladder's coalesced upper bound."),
    K("copyCol", BOUNDS, "copyCol<{T}>", "floor", "out", _block, _THIN, None, _NAIVE,
      "Column read, column write: every lane its own sector; the lower bound."),
    # --- naive -----------------------------------------------------------------------------
    K("naiveRow", NAIVE, "naive<{T},false,false,false>", OP, "in", _block, _THIN, None, _NAIVE,
      "Coalesced read, strided write: each store of a warp touches 32 sectors."),
    K("naiveCol", NAIVE, "naive<{T},true,false,false>", OP, "out", _block, _THIN, None, _NAIVE,
      "Strided read, coalesced write: the strided side goes where caches can help (loads)."),
    K("naiveColL2", NAIVE, "naive<{T},true,false,true>", OP, "out", _block, _THIN, None, _NAIVE,
      "naiveCol with loads through L2 only (__ldcg, as -Xptxas -dlcm=cg): what L1 buys."),
    K("naiveRowUnroll4", NAIVE, "naiveUnroll4<{T},false>", OP, "in", _unroll4, _THIN, None, _NAIVE,
      "Four elements per thread: more loads in flight hide more latency.", fixed=_FIX_UNROLL),
    K("naiveColUnroll4", NAIVE, "naiveUnroll4<{T},true>", OP, "out", _unroll4, _THIN, None, _NAIVE,
      "Strided reads unrolled by four.", fixed=_FIX_UNROLL),
    K("diagonalRow", NAIVE, "naive<{T},false,true,false>", OP, "in", _block, _THIN, None, _NAIVE,
      "Diagonal block order spreads concurrent blocks over DRAM partitions.", fixed=_FIX_DIAG),
    K("diagonalCol", NAIVE, "naive<{T},true,true,false>", OP, "out", _block, _THIN, None, _NAIVE,
      "Diagonal block order with strided reads.", fixed=_FIX_DIAG),
    # --- shared memory -----------------------------------------------------------------------
    K("smem", SMEM, "smemTranspose<{T},{BX},{BY},0>", OP, "in", _block, (32, 16), _SMEM_BLOCKS, _SMEM_ORIGIN,
      "Stage a tile in shared memory: both global sides coalesce; column reads conflict on banks."),
    K("smemPad", SMEM, "smemTranspose<{T},{BX},{BY},1>", OP, "in", _block, (32, 16), _SMEM_BLOCKS, _SMEM_ORIGIN,
      "One padding column: tile rows shift by one bank (a 32x16 tile keeps a 2-way conflict)."),
    K("smemPad2", SMEM, "smemTranspose<{T},{BX},{BY},2>", OP, "in", _block, (32, 16), _SMEM_BLOCKS, _SMEM_ORIGIN,
      "Two padding columns: conflict-free for the 32x16 tile, whose warp reads 16 rows x 2 columns."),
    K("smemUnrollPad", SMEM, "smemUnrollTranspose<{T},{BX},{BY},2>", OP, "in", lambda bx, by: (2 * bx, by),
      (32, 16), _SMEM_BLOCKS, _SMEM_ORIGIN, "Two padded tiles per block: twice the bytes in flight per thread.",
      fixed="the transposed store index follows the re-split thread id (the original wrote "
            "tile[irow][icol] to out[col][row], wrong and uncoalesced)"),
    # --- tiled -------------------------------------------------------------------------------
    K("tile32", TILED, "tileTranspose<{T},32,32,{BY},0,false>", OP, "in", _tile(32, 32), (32, 8), _TILE_BLOCKS,
      _TILED.format(2), "32x32 tile, block 32x8: 4 elements per thread; unpadded, so 32-way bank conflicts.",
      fixed=_FIX64),
    K("tile32Pad", TILED, "tileTranspose<{T},32,32,{BY},1,false>", OP, "in", _tile(32, 32), (32, 8), _TILE_BLOCKS,
      "NVIDIA 'An Efficient Matrix Transpose in CUDA C/C++'", "The same tile with one padding column: conflict-free."),
    K("tile32Swizzle", TILED, "tileTranspose<{T},32,32,{BY},0,true>", OP, "in", _tile(32, 32), (32, 8), _TILE_BLOCKS,
      _TILED.format(3), "Conflict-free without padding: column index rotated by the row, (x + y) % 32."),
    K("tile32DoubleBuffer", TILED, "tileDoubleBuffer<{T},32,{BY}>", OP, "tiles", lambda bx, by: (32, 32), (32, 8),
      _TILE_BLOCKS, _TILED.format(4),
      "Four tiles per block, two buffers: the next load is in flight during the store, one sync per tile.",
      fixed="tile walk in 64-bit, correct for any tile count", extra=(4,)),
    K("tile64x32", TILED, "tileTranspose<{T},32,64,{BY},0,true>", OP, "in", _tile(32, 64), (32, 8), _TILE_BLOCKS,
      _TILED.format(5), "A 32x64 swizzled tile: 8 elements per thread, half the barriers per byte."),
    K("tile64Pad", TILED, "tileTranspose<{T},64,64,{BY},1,false>", OP, "in", _tile(64, 64), (32, 8), _TILE_BLOCKS,
      "bwlab (the 64x64 step between the classic tiles and tileVec)",
      "A 64x64 padded tile: 16 elements per thread in flight."),
    # --- bwlab's own --------------------------------------------------------------------------
    K("tileVec", FAST, "tileVec<{T},%d,%d,{BX},%d>" % (FAST_TR, FAST_TC, FAST_HINT), OP, "in",
      _tile(FAST_TR, FAST_TC), (FAST_THREADS, 1), ((FAST_THREADS, 1),), "bwlab",
      "16-byte accesses on a conflict-free tile, evict-first stores, and blocks walking down tile "
      "columns so the resident blocks write long runs of each output row.",
      dtypes=("float32",), extra=(FAST_GROUP,)),
)

# The variants sweep: tileVec's template parameters (tile, threads, cache hint) x block order.
VARIANT_TILES = ((64, 64, 256), (64, 64, 128), (32, 32, 128), (64, 32, 128), (32, 64, 128), (128, 32, 256))
VARIANT_HINTS = (0, 1, 2, 3, 4, 6, 7)
VARIANT_GROUPS = (1, 8, 32, 65535)  # tile-rows walked before moving right; 65535: whole columns first
HINT_WORDS = {0: "ldg/st", 1: "cs/cs", 2: "ld/cs", 3: "cs/st", 4: "ld/st", 6: "nc-noL1/cs", 7: "cg/cs"}


def variants() -> tuple[TransposeKernel, ...]:
    out = []
    for tr, tc, th in VARIANT_TILES:
        for h in VARIANT_HINTS:
            for g in VARIANT_GROUPS:
                out.append(K(f"tileVec-{tr}x{tc}-t{th}-{HINT_WORDS[h]}-g{g}", FAST,
                             "tileVec<{T},%d,%d,{BX},%d>" % (tr, tc, h), OP, "in", _tile(tr, tc), (th, 1),
                             ((th, 1),), "bwlab", f"tileVec, {tr}x{tc} tile, {th} threads, loads/stores "
                             f"{HINT_WORDS[h]}, {g} tile rows per group", dtypes=("float32",), extra=(g,)))
    return tuple(out)
