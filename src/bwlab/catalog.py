"""The kernel catalog: every kernel bwlab can build, launch and explain.

A KernelSpec names its source family (kernels/<family>.cu), the C++ name expression it
instantiates, how its grid covers a matrix, which block shapes are legal, what it moves,
where it comes from (seed note / reference), the one-line lesson, and what was fixed.
Launch conventions: `in` is rows x cols, row-major; a transpose writes cols x rows, a
copy writes rows x cols.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

Block = tuple[int, int]

CTYPES = {"float32": "float", "float64": "double"}  # ladder element types


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class KernelSpec:
    name: str
    family: str                   # kernels/<family>.cu
    template: str                 # name expression; {T}, {BX}, {BY} are filled in
    role: str                     # "ceiling" | "bound" | "floor" | "transpose"
    cover: str                    # what the grid spans: "in" (x along input columns), "out" (x along
                                  # output columns), "bytes" (1-D over 16-byte vectors), "tiles" (1-D)
    step: Callable[[int, int], tuple[int, int]]  # (bx, by) -> what one block covers along x, y
    block: Block                  # default block
    blocks: Optional[tuple[Block, ...]]  # legal blocks (template parameters); None: any
    origin: str
    lesson: str
    fixed: str = ""
    args: str = "matrix"          # "matrix": (in, out, rows, cols, *extra); "bytes": (in, out, nbytes)
    dtypes: tuple[str, ...] = ("float32", "float64")
    extra: tuple[int, ...] = ()   # trailing int arguments (tiles per block, block-order group)

    @property
    def transposes(self) -> bool:
        return self.role == "transpose"

    def output_shape(self, rows: int, cols: int) -> tuple[int, int]:
        return (cols, rows) if self.transposes else (rows, cols)

    def grid(self, rows: int, cols: int, block: Block, itemsize: int) -> tuple[int, int]:
        sx, sy = self.step(*block)
        if self.cover == "in":
            return cdiv(cols, sx), cdiv(rows, sy)
        if self.cover == "out":
            return cdiv(rows, sx), cdiv(cols, sy)
        if self.cover == "bytes":
            return max(1, cdiv(rows * cols * itemsize // 16, sx)), 1
        if self.cover == "tiles":
            return max(1, cdiv(cdiv(rows, sx) * cdiv(cols, sx), self.extra[0])), 1
        raise ValueError(f"unknown cover {self.cover!r}")

    def legal_blocks(self) -> tuple[Block, ...]:
        return self.blocks if self.blocks is not None else (self.block,)

    def expression(self, dtype: str, block: Block) -> str:
        return self.template.format(T=CTYPES.get(dtype, "float"), BX=block[0], BY=block[1])

    def expressions(self) -> list[str]:
        """Every instantiation the build must produce for this kernel."""
        return [self.expression(d, b) for d in self.dtypes for b in self.legal_blocks()]


# Steps: elements (or, for "bytes", 16-byte vectors; for "tiles", the tile edge) per block.
_block = lambda bx, by: (bx, by)  # noqa: E731
_unroll4 = lambda bx, by: (4 * bx, by)  # noqa: E731
_tile = lambda tr, tc: (lambda bx, by: (tc, tr))  # noqa: E731
_THIN = (32, 16)  # seed 000's thin-block result for the naive kernels
_SMEM_BLOCKS = ((32, 16), (32, 8), (32, 32))
_TILE_BLOCKS = ((32, 8), (32, 16), (32, 32))
_S000, _S003, _S004 = "seed 000 (bandwidth ladder)", "seed 003 (shared-memory transpose)", "seed 004 (transpose v1-v5)"

# tileVec: the configuration chosen on the H200 by benchmarks/tilevec_variants.py (168 variants,
# benchmarks/h200/tilevec_variants.txt): 64x64 tile, 256 threads, plain loads with streaming
# (evict-first) stores (HINT 2), blocks walking whole tile columns first (GROUP 65535).
FAST_TR, FAST_TC, FAST_THREADS, FAST_HINT, FAST_GROUP = 64, 64, 256, 2, 65535

KERNELS: tuple[KernelSpec, ...] = (
    # --- ceilings and bounds -------------------------------------------------------------
    KernelSpec("copyVec", "copy", "copyVec<1>", "ceiling", "bytes", _block, (256, 1),
               ((256, 1), (512, 1), (1024, 1)), "DESIGN.md measured ceilings",
               "One 16-byte load and store per thread: the copy roof a transpose aims at.",
               args="bytes"),
    KernelSpec("copyVecUnroll4", "copy", "copyVec<4>", "ceiling", "bytes", _unroll4, (256, 1),
               ((256, 1), (512, 1), (1024, 1)), "DESIGN.md measured ceilings",
               "Four independent 16-byte loads in flight per thread before any store.",
               args="bytes"),
    KernelSpec("copyRow", "copy", "copyRow<{T}>", "bound", "in", _block, _THIN, None, _S000,
               "Row read, row write, one element per thread: the coalesced upper bound of the seed."),
    KernelSpec("copyCol", "copy", "copyCol<{T}>", "floor", "out", _block, _THIN, None,
               _S000, "Column read, column write: every lane its own sector; the lower bound."),
    # --- naive -----------------------------------------------------------------------------
    KernelSpec("naiveRow", "transpose_naive", "naive<{T},false,false,false>", "transpose", "in", _block, _THIN, None, _S000,
               "Coalesced read, strided write: each store of a warp touches 32 sectors."),
    KernelSpec("naiveCol", "transpose_naive", "naive<{T},true,false,false>", "transpose",
               "out", _block, _THIN, None, _S000,
               "Strided read, coalesced write: the strided side goes where caches can help (loads)."),
    KernelSpec("naiveColL2", "transpose_naive", "naive<{T},true,false,true>", "transpose",
               "out", _block, _THIN, None, _S000,
               "naiveCol with loads through L2 only (__ldcg, as -Xptxas -dlcm=cg): what L1 buys."),
    KernelSpec("naiveRowUnroll4", "transpose_naive", "naiveUnroll4<{T},false>", "transpose",
               "in", _unroll4, _THIN, None, _S000,
               "Four elements per thread: more loads in flight hide more latency.",
               fixed="every one of the 4 elements is bounds-checked (the seed checked only the first)"),
    KernelSpec("naiveColUnroll4", "transpose_naive", "naiveUnroll4<{T},true>", "transpose",
               "out", _unroll4, _THIN, None, _S000,
               "Strided reads unrolled by four.",
               fixed="every one of the 4 elements is bounds-checked (the seed checked only the first)"),
    KernelSpec("diagonalRow", "transpose_naive", "naive<{T},false,true,false>", "transpose", "in", _block, _THIN, None,
               _S000, "Diagonal block order spreads concurrent blocks over DRAM partitions.",
               fixed="block remap is a bijection on rectangular grids (the seed's needs a square grid)"),
    KernelSpec("diagonalCol", "transpose_naive", "naive<{T},true,true,false>", "transpose",
               "out", _block, _THIN, None, _S000,
               "Diagonal block order with strided reads.",
               fixed="block remap is a bijection on rectangular grids (the seed's needs a square grid)"),
    # --- shared memory -----------------------------------------------------------------------
    KernelSpec("smem", "transpose_smem", "smemTranspose<{T},{BX},{BY},0>", "transpose", "in", _block, (32, 16),
               _SMEM_BLOCKS, _S003,
               "Stage a tile in shared memory: both global sides coalesce; column reads conflict on banks."),
    KernelSpec("smemPad", "transpose_smem", "smemTranspose<{T},{BX},{BY},1>", "transpose", "in", _block,
               (32, 16), _SMEM_BLOCKS, _S003,
               "One padding column: tile rows shift by one bank (a 32x16 tile keeps a 2-way conflict)."),
    KernelSpec("smemPad2", "transpose_smem", "smemTranspose<{T},{BX},{BY},2>", "transpose", "in", _block,
               (32, 16), _SMEM_BLOCKS, _S003,
               "Two padding columns: conflict-free for the 32x16 tile, whose warp reads 16 rows x 2 columns."),
    KernelSpec("smemUnrollPad", "transpose_smem", "smemUnrollTranspose<{T},{BX},{BY},2>", "transpose",
               "in", lambda bx, by: (2 * bx, by), (32, 16), _SMEM_BLOCKS, _S003,
               "Two padded tiles per block: twice the bytes in flight per thread.",
               fixed="the transposed store index follows the re-split thread id (the seed's wrote "
                     "tile[irow][icol] to out[col][row], wrong and uncoalesced)"),
    # --- tiled -------------------------------------------------------------------------------
    KernelSpec("tile32", "transpose_tiled", "tileTranspose<{T},32,32,{BY},0,false>", "transpose",
               "in", _tile(32, 32), (32, 8), _TILE_BLOCKS, _S004 + " v2",
               "32x32 tile, block 32x8: 4 elements per thread; unpadded, so 32-way bank conflicts.",
               fixed="64-bit offsets (the seed's int products overflow past 2^31 elements)"),
    KernelSpec("tile32Pad", "transpose_tiled", "tileTranspose<{T},32,32,{BY},1,false>", "transpose",
               "in", _tile(32, 32), (32, 8), _TILE_BLOCKS, "NVIDIA 'An Efficient Matrix Transpose in CUDA C/C++'",
               "The same tile with one padding column: conflict-free."),
    KernelSpec("tile32Swizzle", "transpose_tiled", "tileTranspose<{T},32,32,{BY},0,true>", "transpose",
               "in", _tile(32, 32), (32, 8), _TILE_BLOCKS, _S004 + " v3",
               "Conflict-free without padding: column index rotated by the row, (x + y) % 32."),
    KernelSpec("tile32DoubleBuffer", "transpose_tiled", "tileDoubleBuffer<{T},32,{BY}>", "transpose",
               "tiles", lambda bx, by: (32, 32), (32, 8), _TILE_BLOCKS, _S004 + " v4",
               "Four tiles per block, two buffers: the next load is in flight during the store, one sync per tile.",
               fixed="tile walk in 64-bit, correct for any tile count", extra=(4,)),
    KernelSpec("tile64x32", "transpose_tiled", "tileTranspose<{T},32,64,{BY},0,true>", "transpose",
               "in", _tile(32, 64), (32, 8), _TILE_BLOCKS, _S004 + " v5",
               "A 32x64 swizzled tile: 8 elements per thread, half the barriers per byte."),
    KernelSpec("tile64Pad", "transpose_tiled", "tileTranspose<{T},64,64,{BY},1,false>", "transpose",
               "in", _tile(64, 64), (32, 8), _TILE_BLOCKS, "DESIGN.md anchor (64x64 padded tile)",
               "A 64x64 padded tile: 16 elements per thread in flight."),
    # --- bwlab's own --------------------------------------------------------------------------
    KernelSpec("tileVec", "transpose_fast",
               "tileVec<{T},%d,%d,{BX},%d>" % (FAST_TR, FAST_TC, FAST_HINT), "transpose",
               "in", _tile(FAST_TR, FAST_TC), (FAST_THREADS, 1), ((FAST_THREADS, 1),), "bwlab",
               "16-byte accesses on a conflict-free tile, evict-first stores, and blocks walking down tile "
               "columns so the resident blocks write long runs of each output row.",
               dtypes=("float32",), extra=(FAST_GROUP,)),
)

BY_NAME = {k.name: k for k in KERNELS}


def get(name: str) -> KernelSpec:
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown kernel {name!r}; known: {', '.join(BY_NAME)}") from None


def select(names: Optional[list[str]]) -> list[KernelSpec]:
    return list(KERNELS) if not names else [get(n) for n in names]


def family_expressions(specs=KERNELS) -> dict[str, list[str]]:
    """Name expressions per source family, for build.compile_family."""
    out: dict[str, list[str]] = {}
    for spec in specs:
        out.setdefault(spec.family, []).extend(spec.expressions())
    return out
