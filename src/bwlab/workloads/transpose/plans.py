"""Which kernel bwlab.transpose() runs: shape classes, tile configurations, plan files.

Pure logic, no GPU: `choose()` maps (element size, batch, rows, cols, plan) to a Choice;
`launch_geometry()` gives its grid. A plan file (written by `bwlab tune transpose`) names the
tile configuration per element size for one GPU model; without one, DEFAULT_PLAN applies.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ...core.launch import cdiv

KERNELS_DIR = Path(__file__).parent / "kernels"
ANY, ALIGN, ROWS = KERNELS_DIR / "any.cu", KERNELS_DIR / "align.cu", KERNELS_DIR / "rows.cu"
SCALAR, STAGE, SECTOR = KERNELS_DIR / "scalar.cu", KERNELS_DIR / "stage.cu", KERNELS_DIR / "sector.cu"
WHOLE = KERNELS_DIR / "whole.cu"
SKINNY, STRIDED = KERNELS_DIR / "skinny.cu", KERNELS_DIR / "strided.cu"
SKINNYTILE = KERNELS_DIR / "skinnytile.cu"
SKINNYPERM = KERNELS_DIR / "skinnyperm.cu"
ELEMS = KERNELS_DIR / "elems.cu"
WIDEWORDS = KERNELS_DIR / "widewords.cu"
TALLWORDS = KERNELS_DIR / "tallwords.cu"
PITCHED = KERNELS_DIR / "pitched.cu"

ITEMSIZES = (1, 2, 4, 8, 16)
SKINNY_MAX = 16         # a side this short takes the skinny kernels (a tile would idle its threads)
SKINNYTILE_MAX = 64     # ... or skinnyTile (skinnytile.cu), up to this short side
SKINNYTILE_THREADS = 256
SKINNYTILE_SMEM = 48 * 1024  # dynamic shared memory without the opt-in attribute
# Tall short sides that stay on the register kernel (skinny.cu) per element size, whatever the
# rows' alignment: 16-byte elements with 2-4 columns (rows always whole vectors; 95.9-98.1% of
# memcpy on the H200, skinnyTile 94.8-96.8%). 4- and 8-byte elements with misaligned rows take
# skinnyTile there (94-96%, against 85-94% for the register kernel at one block an SM; its
# three-block bound was not measured there; benchmarks/h200/transpose/tall-chunks). Wide ones all
# take skinnyTile: the register kernel's wide path reached 48-68% for 2-4 rows of 4 to 16 bytes
# (slower than torch), skinnyTile 91-94% from 5 rows.
SKINNY_KEEP_TALL: dict[int, tuple[int, ...]] = {1: (), 2: (), 4: (), 8: (), 16: (2, 3, 4)}
# skinnyWords (shared words of 4/E rows; tall only) where it may run, except float16-sized short
# sides over 16: on the H200 (256 MiB) it took uint8 from 79-82% of memcpy to 83-93% tall and from
# 59-62% to 84-93% wide, 2-byte wide from 72-88% to 87-91% (wide ones have since gone to
# skinnyperm.cu, below, and the wide form was removed); 2-byte tall gained up to 8 points
# at 2 to 16 columns (but lost 4 at 4 columns with misaligned rows) and measured 89/83% against
# skinnyTile's 89/89% at 32/64 columns. Tall uint8 short sides that do
# not fill words (5, 7, 9, ...): 71-81% -> 76-89% with aligned rows, 70-80% -> 70-81% with
# misaligned ones (2-byte odd ones measured -4 to +3 points: they stay on skinnyTile).
WORDS_TALL_MAX = {1: 64, 2: 16}
# skinnyWords' aligned form (tiles of 32R vectors, no group before them) where each long row is a
# multiple of 256 bytes, so every row starts where the one before did in its 256-byte span and each
# warp's 512-byte store lies on a 512-byte boundary of its row (a 256-byte boundary of memory, from a
# 256-byte aligned output). On the H200 (benchmarks/h200/transpose/words-aligned, 256 MiB, two rounds,
# % of a copy): rows of 256k bytes +0.0 to +5.1 points at every short side tried (uint8 64 columns
# 86.5 -> 91.6%, 31-33 columns 88.9-91.3 -> 91.7-94.5%, 4, 8 and 16 columns +0.5-0.8; uint16 2, 4, 8
# and 16 columns +0.0-0.5); rows of whole vectors but not 256k bytes -1.7 to +1.2 (uint16 4194312 x
# 16 95.7 -> 94.0%): those keep the 31R tiles. uint16 tiles copied in by cp.async keep them too (10
# columns, rows not 256k bytes: -1.2; past 16 columns see below); uint8 ones take the form (33
# columns +2.7; 5, 17 and 36 columns +0.4 to +1.2 on rows not 256k bytes). The form keeps the other
# form's R and way of copying (words_async), so a tile copied by cp.async may pass WORDS_ASYNC_SMEM by
# R - 1 groups (uint8 43 columns: 44288 bytes).
WORDS_ROWS_ALIGN = 256
# Past WORDS_TALL_MAX (uint16 from 17 columns, where the 31R tiles stayed behind skinnyTile), the
# aligned form takes the even sides up to 64 whose tile goes through registers (not words_async).
# On the H200 (words-aligned/probe16.txt, 256 MiB, rows of 256k bytes, two rounds, against skinnyTile):
# through registers 24, 28, 32, 44, 48, 52, 56, 60 and 64 columns -0.9 to +3.0 points of a copy,
# +1.3 on average (52 columns 89.4 -> 92.4%, 64 89.1 -> 90.4%); copied in by cp.async 18, 20, 22,
# 36 and 40 columns -2.5 to +0.2: those keep skinnyTile. The other register sides (26, 30, 46, 50,
# 54, 58, 62) were not measured.
WORDS_ALIGNED_TALL_MAX = {1: 64, 2: 64}


def words_form(itemsize: int, short: int, long: int, tall: bool) -> tuple[bool, bool]:
    """(skinnyWords, its aligned form) for a short side and long side that skinnyTile takes."""
    if not skinnytile_words(itemsize, short, tall):
        return False, False
    rows = tall and (long * itemsize) % WORDS_ROWS_ALIGN == 0
    registers = itemsize == 1 or not words_async(itemsize, short)  # uint16: through registers only
    if short <= WORDS_TALL_MAX[itemsize]:
        return True, rows and registers
    words = rows and short <= WORDS_ALIGNED_TALL_MAX[itemsize] and registers
    return words, words
# skinnyperm.cu (the short side a template argument, byte permutes in registers) for 1- and
# 2-byte elements: wide (S x n) every short side 2..64, where it measured 87-100% of memcpy on
# the H200 (256 MiB, misaligned rows) against 52-85% for skinnyTile/skinnyWords; tall only 2
# and 3 (uint8 94-100% since lane 0's word before each step comes in whole words, 89-92% before,
# against 78-88%; benchmarks/h200/transpose/tall-words): from 5 columns its one 4-byte store per
# row and lane ran at 66-88%, behind skinnyWords from 12 columns on (ahead at 5 and 9 in one
# probe run). 4-byte elements take widePerm too, wide only: a lane loads one element of each row
# (rows start on words, so nothing is realigned) and the packed side leaves through the warp's
# staging buffer as aligned 16-byte vectors, with every load in flight before the first. On the
# H200 (benchmarks/h200/transpose/wide-f32, 256 MiB, odd long sides, three rounds alternately, every
# output checked) it ran at 93.9-101.6% of a copy at every side measured from 2 to 64 rows, against
# 89.9-98.7% for skinnyTile's wide tile: 33 rows 89.9 -> 95.8%, 34 90.3 -> 95.8, 17 92.0 -> 97.5, 41
# 90.4 -> 93.9; level (within 0.2) at 8, 16 and 64 rows.
PERM_TALL_MAX = 3
PERM_THREADS = 128
PERM_WARPS = PERM_THREADS // 32
STRIDED_THREADS = 256
ROWS_THREADS = 256
MAX_BLOCKS = 2**31 - 1  # grid.x limit; the kernels stride over whatever is left
PLAN_SCHEMA = "bwlab.plan/2"
# Plans of the first schema were tuned before 8- and 16-byte elements had tileWhole among their
# candidates: their 16-byte entries (a tileAny tile, a tileScalar tile) and their misaligned 8-byte
# entry are dropped when read (unchecked), the rest kept.
PLAN_SCHEMA_V1 = "bwlab.plan/1"
V1_DROPPED = (("tiles", "16"), ("misaligned", "16"), ("misaligned", "8"))

# Tile configurations (rows x cols of the tile in elements, threads), legal for tileAny:
# a tile row is a multiple of 128 bytes, TR a multiple of 8 vectors, threads divide the patches.
TILE_CANDIDATES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((128, 256, 512), (128, 128, 256), (128, 128, 128), (256, 128, 512)),
    2: ((64, 128, 256), (64, 64, 128), (64, 128, 128), (128, 64, 256)),
    4: ((64, 64, 256), (64, 64, 128), (32, 64, 256)),
    8: ((64, 32, 256), (64, 64, 256), (32, 32, 256), (32, 32, 128), (32, 64, 128), (32, 64, 256)),
    16: ((64, 32, 128), (32, 32, 128), (16, 32, 128), (32, 32, 256)),
}
# Built-in choice per element size (used when no plan file exists for this GPU): the winners
# of `bwlab tune transpose` on the H200 (each candidate list starts with it). 16 bytes: 32x32
# won the later tunes by 0.2% on 8192x16384 and ran 3-4 points of memcpy faster than 16x32 on
# extents that are not multiples of the tile (benchmarks/h200/transpose/scalar-probe); 64x32
# (158 registers, three blocks an SM) then ran 0.4-1.0 points ahead of 32x32 where the extents
# are not powers of two (16383x16389 90.2-90.9% -> 91.1-91.8%, 8191x32771 90.5 -> 91.3%, 32771x8191
# 87.6 -> 88.6%, 4097x4103 92.6 -> 93.0%) and within 0.4 of it elsewhere (16384x16384, batches,
# 64x4194304; benchmarks/h200/transpose/tile-order, tiles16-extra.txt and tiles16-more.txt).
# The dispatch no longer runs tileAny on 16-byte elements (tileWhole, MISALIGNED_DEFAULT); its
# 16-byte tile still sets the skinny kernels' bounds (skinnytile_applies).
DEFAULT_PLAN: dict[int, tuple[int, int, int]] = {e: c[0] for e, c in TILE_CANDIDATES.items()}


@dataclass(frozen=True)
class Choice:
    kind: str            # "empty" | "copy" | "copy2d" | "tile" | "align" | "scalar" | "stage" | "sector"
    #                      | "whole" | "words" | "strided" | "tall"
    #                      | "wide"
    #                      | "tall-tile" | "wide-tile" (skinnyTile) | "flip" (pitched, columns reversed)
    #                      | "tall-perm" | "wide-perm" (skinnyperm.cu)
    #                      | "wide-elems" (elems.cu) | "wide-words" (widewords.cu) | "tall-words" (tallwords.cu)
    #                      | "strided-tile" (stridedTile)
    itemsize: int
    source: Optional[Path] = None  # the .cu file (None for empty/copy)
    expression: str = ""  # C++ name expression of the kernel ("" for empty/copy)
    threads: int = 0
    reason: str = ""

    @property
    def label(self) -> str:
        return self.expression or self.kind


@dataclass(frozen=True)
class Layout:
    """How x's elements lie: batch matrices of rows x cols; x[b, i, j] is element
    b * bstride + i * rs + j * cs (strides in elements, negative allowed). batch_dims holds the
    batch extents and strides when they do not merge into one (bstride is then None)."""
    batch: int
    rows: int
    cols: int
    rs: int
    cs: int
    bstride: Optional[int]
    batch_dims: tuple[tuple[int, int], ...] = ()

    @property
    def dense(self) -> bool:
        return self.cs == 1 and self.rs == self.cols and (self.batch <= 1 or self.bstride == self.rows * self.cols)

    @property
    def transposed(self) -> bool:
        """x is the transpose of a row-major array whose rows may be padded (pitch cs >= rows)."""
        return self.rs == 1 and self.cs >= self.rows and (self.batch <= 1 or self.bstride == self.cols * self.cs)


def merge_batch(shape, strides) -> tuple[int, Optional[int]]:
    """(count, stride) of batch dimensions that walk memory with one stride; stride None if they do not."""
    dims = [(n, s) for n, s in zip(shape, strides) if n != 1]
    count = 1
    for n, _ in dims:
        count *= n
    if not dims:
        return count, 0
    for (n0, s0), (n1, s1) in zip(dims, dims[1:]):
        if s0 != s1 * n1:
            return count, None
    return count, dims[-1][1]


def layout_of(shape, strides) -> Layout:
    batch, bstride = merge_batch(shape[:-2], strides[:-2])
    dims = tuple((n, s) for n, s in zip(shape[:-2], strides[:-2]) if n != 1)
    return Layout(batch, shape[-2], shape[-1], strides[-2], strides[-1], bstride, dims if bstride is None else ())


def tile_legal(itemsize: int, tr: int, tc: int, threads: int) -> bool:
    """The static_asserts of tileAny (any.cu), plus 48 KiB of static shared memory."""
    ve, g, warps = 16 // itemsize, max(1, 4 // itemsize), threads // 32
    if threads % 32 or threads > 1024 or (tc * itemsize) % 128 or tr % (8 * ve) or tc % (4 * g):
        return False
    load, store = (tr // 4) * (tc // (8 * ve)), (tc // (4 * g)) * (tr // (8 * ve))
    smem = tr * tc * itemsize + (tr // ve) * 16
    return load % warps == 0 and store % warps == 0 and smem <= 48 * 1024


def align_legal(itemsize: int, tr: int, tc: int, threads: int) -> bool:
    """tileAlign (align.cu) also needs each warp to move whole row segments."""
    if not tile_legal(itemsize, tr, tc, threads):
        return False
    g, warps = max(1, 4 // itemsize), threads // 32
    ppr, ppo = tc * itemsize // 128, tr * itemsize // 128
    nl, ns = (tr // 4) * ppr // warps, (tc // (4 * g)) * ppo // warps
    return nl % ppr == 0 and ns % ppo == 0


# tileAlign's configurations (each legal for it, and compiled without spills), best first.
ALIGN_CANDIDATES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((128, 256, 512), (128, 128, 256)),
    2: ((64, 128, 256), (64, 64, 128)),
    4: ((64, 64, 256), (32, 64, 256)),
    8: ((64, 32, 256), (32, 32, 256)),
    16: ((32, 32, 256), (32, 32, 128)),
}


# tileScalar's configurations (element by element through a padded tile, at most 32 per thread).
SCALAR_CANDIDATES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((64, 64, 256), (64, 128, 256), (128, 64, 256)),
    2: ((64, 64, 256), (64, 64, 128), (32, 64, 128)),
    4: ((64, 64, 256), (64, 64, 128), (32, 32, 128), (32, 64, 256)),
    8: ((64, 64, 256), (32, 32, 128), (64, 32, 256)),
    16: ((32, 32, 256), (32, 32, 128)),
}
# Rows that do not start on 16-byte boundaries: which kernel and tile, per element size (the
# built-in choice; a plan from `bwlab tune transpose` replaces it).
# The defaults are the H200's winners (`bwlab tune transpose`, 2026-11-24, with tileSector:
# benchmarks/h200/transpose/tune-sector), but for 1- to 4-byte elements tileWholeWords and
# tileWhole, which beat tileSector and tileScalar on every misaligned probe shape there but
# 4x4096x8199 float32 (0.3 points behind; benchmarks/h200/transpose/whole-probe), at the 1-byte
# tile of WORDS_BLOCKS (benchmarks/h200/transpose/words-occupancy) and the 2-byte tile of 8-byte
# loads (benchmarks/h200/transpose/words-wide); for 8-byte elements tileWhole's 64x64 tile, 0.6-4.0
# points of a copy ahead of tileScalar's 64x32 on each of nine misaligned float64 shapes of 256 MiB
# to 2 GiB (benchmarks/h200/transpose/whole-8). 16-byte rows never misalign, but every 16-byte
# matrix takes tileWhole's 64x32 tile too (where an output row has odd length, every other row
# starts mid-sector): 1.1-3.3 points of a copy ahead of tileAny's 64x32 tile on each of eight
# complex128 shapes of 268 MiB to 4 GiB, powers of two included (whole-8/probe16.txt).
MISALIGNED_DEFAULT: dict[int, tuple[str, tuple[int, int, int]]] = {
    1: ("words", (256, 124, 512)), 2: ("words", (128, 124, 256)), 4: ("whole", (64, 64, 256)),
    8: ("whole", (64, 64, 256)), 16: ("whole", (64, 32, 256)),
}
# Below this many bytes (elements x size), a misaligned call of this element size takes this tile,
# plan or not: `bwlab tune transpose` measures the misaligned tiles on one call of 256 MiB, so its
# plan decides from there on. On the H200 the taller byte tile, which makes half as many blocks a
# call, lost 0.9-4.9 points of a copy to the tile before at 32-192 MiB (11.7 at 16 MiB, in L2; at 4
# MiB it ran 7 points ahead, about 0.4 us a call, not worth a second bound), and at 256-512 MiB ran
# -1.0 to +1.6 (+0.2 on average), where one round of the tile before ran at 80.5-84.9% on four of
# six shapes (benchmarks/h200/transpose/words-occupancy: probe5.txt, probe6.txt, probe4-hint.txt).
MISALIGNED_SMALL: dict[int, tuple[int, tuple[str, tuple[int, int, int]]]] = {1: (256 << 20, ("words", (128, 124, 256)))}
# tileWholeWords' tile where only the output's rows are misaligned (the input's rows and pointer on
# 16-byte boundaries): 32 words' columns a warp, no shift (whole.cu). On the H200
# (benchmarks/h200/transpose/words-ain, 3 rounds, every output bit-exact first): uint8 89.8-93.7% of
# a copy on 8 shapes of 256-537 MiB where the dispatch's tile ran 85.6-88.4% (16389x16384 87.3 ->
# 92.6%, 65537x4096 85.6 -> 93.4%), and 91.0-94.2% against 84.7-89.3% at 64-96 MiB (70.0 against 64.6%
# at 16 MiB, in L2); the byte tile of 256 rows in 32 words' columns (3 blocks an SM) was behind it
# everywhere (84.4-91.5%, under the dispatch's tile at 3 shapes). uint16 93.8-94.3% against
# 85.3-92.0% on 4 shapes (50257x4096 85.3 -> 93.8%). A plan from `bwlab tune transpose` (measured on
# misaligned inputs) changes it only by naming another kernel than tileWholeWords. Where the input's
# rows and pointer lie on 32-byte boundaries, bytes take 8-byte loads a lane (64 words' columns a
# warp: 256 bytes of a row, 8 whole sectors): 93.3-93.9% of a copy on 5 such shapes against
# 90.2-93.5% (words-ain/probe3.txt; 33331x8192 90.2 -> 93.5%, 50257x8192 90.3 -> 93.4%), but 88.7%
# against 89.5% at a row pitch of 16400 bytes, half its rows mid-sector.
WORDS_ALIGNED_IN: dict[int, tuple[int, int, int]] = {1: (128, 128, 256), 2: (128, 128, 256)}
WORDS_ALIGNED_IN_32: dict[int, tuple[int, int, int]] = {1: (128, 256, 256)}
MISALIGNED_KERNELS = {"align": ("tileAlign", ALIGN), "scalar": ("tileScalar", SCALAR), "stage": ("tileStage", STAGE),
                      "sector": ("tileSector", SECTOR), "whole": ("tileWhole", WHOLE),
                      "words": ("tileWholeWords", WHOLE)}
# tileStage's configurations, for bytes only: with 2- and 4-byte elements it ran 6-16 points of
# memcpy behind tileScalar on the H200 (benchmarks/h200/transpose/scalar-probe/stage.txt);
# with bytes, 58% against tileAlign's 52% and tileScalar's 55%.
STAGE_CANDIDATES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((64, 128, 256), (128, 64, 256), (128, 128, 512), (64, 256, 512), (64, 64, 256)),
}


# tileSector's configurations (rows a step W, strip columns TC, threads), for bytes only: with
# 2- and 4-byte elements it ran 1-15 points of memcpy behind tileScalar on the H200. W is a
# multiple of a sector's 32 elements; a strip is 2^n 16-byte vectors.
SECTOR_CANDIDATES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((64, 128, 256), (32, 128, 256), (32, 256, 256)),
}
# tileWhole's configurations (tile rows TR, columns TC, threads) for 2- to 16-byte elements: a
# thread keeps (TR + 32/E - 1) / (threads / TC) loads in flight (rounded up; at most 40) and
# stores TR*TC*E/16/threads vectors. On the H200 (whole-probe/words.txt, whole-elements.txt):
# uint16 70-71% of memcpy with 20 loads a thread, 76-77% with 36, 74-75% with 40; bytes
# (40 loads) 40-43%. For 1 and 2 bytes tileWholeWords does better.
WHOLE_CANDIDATES: dict[int, tuple[tuple[int, int, int], ...]] = {
    2: ((128, 64, 256),),
    4: ((64, 64, 256), (128, 32, 256)),
    8: ((64, 32, 256), (128, 32, 256), (64, 64, 256)),
    16: ((32, 32, 256), (64, 32, 256), (32, 32, 128)),
}
# tileWholeWords' configurations for 1- and 2-byte elements: tiles of 31 words' columns (124
# bytes, 62 halves; 4-byte loads a lane) or 62 (248 bytes, 124 halves; 8-byte loads); a thread
# keeps (TR + 32/E - 1) / (4/E * threads/32) passes of 4/E loads in flight. On the H200
# (whole-probe/words.txt, an earlier form of the kernel): uint8 77-80% of memcpy at (128, 124,
# 256), 75-77% at (64, 124, 128), 56-72% otherwise; uint16 82-86% at (64, 62, 128), 79-81% at (48,
# 62, 128). Since the kernel stopped waiting on instruction issue, more blocks an SM (WORDS_BLOCKS)
# and taller tiles won: words-occupancy/probe*.txt below. The tiles before stay candidates, so
# plans that `bwlab tune transpose` stored with them still load.
# 8-byte loads (benchmarks/h200/transpose/words-wide: 2 probes of 3 rounds, 3 uint16 and 6 uint8
# shapes of 256-512 MiB, every output bit-exact): a warp's 256 bytes of a row span 9 sectors for 8,
# where its 128 bytes span 5 for 4. uint16 (128, 124, 256) at 4 blocks an SM (64 registers) ran 1.2
# to 2.0 points of a copy ahead of (128, 62, 256) in both probes, 91.3-92.5% (means of 3 rounds);
# (192, 124, 384) at 3 level with it; (256, 124, 512) 1.5-2.7 behind (128, 62, 256). For bytes they
# lost to the uint8 tile kept, (256, 124, 512): (256, 248, 512) read 11% fewer L2 read sectors
# (Nsight Compute) but at 2 blocks an SM (89 KiB of shared memory a block) ran 4.6-6.4 points
# behind, (128, 248, 256) at 3 blocks 1.1-2.2 behind, (160, 248, 384) at 3 blocks 15-18 behind; so
# bytes keep 4-byte loads. Registers: words-wide/registers.txt.
WORDS_CANDIDATES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((256, 124, 512), (128, 124, 256), (64, 124, 128)),
    2: ((128, 62, 256), (64, 62, 128), (48, 62, 128), (128, 124, 256), (192, 124, 384)),
}
# tileWholeWords' blocks an SM asked of the compiler (its launch bounds; so at most 65536 / (blocks
# * threads) registers a thread), where not the kernel's 1024 / threads. Its loads wait on memory
# latency (Nsight Compute on the tiles before, benchmarks/h200/transpose/whole-probe/ncu-store.txt:
# 4.6-4.9 of a warp's 12.2 cycles between instructions), so more warps an SM help (bytes: 1536
# threads an SM, from 1024); the taller uint16 tile also reads fewer rows past it again (16 a tile
# of 128 rows, where 16 of 64 before). On the H200 (benchmarks/h200/transpose/words-occupancy: 4
# probes of 3-4 rounds, 4-6 misaligned shapes of 256-512 MiB, every candidate checked bit-exact
# first), against the tiles before, mean of each probe's rounds: uint8 (256, 124, 512) at 3 blocks
# (40 registers, no spills) +0.0 to +3.6 points of a copy on every shape (0.85 on average),
# 83.6-87.0%; at 2 blocks, 2.7-5.8 behind. uint16 (128, 62, 256) at 5 (47 registers) -0.5 to +3.5
# (1.3 on average), 86.8-90.2%. Nothing tried reached 90% on every shape. (128, 124, 256) at 5
# blocks ran level with the uint8 tile on most shapes (-1.9 to +0.7) but 4.9-8.2 points behind it on
# 16383x16384, with single rounds at 59-63%; at 6 blocks, 0.6-2.1 behind the tile before. uint16
# tiles at 9-10 blocks of 128 threads ran -3.3 to +1.8 points from the one chosen, tiles of 160-192
# rows on 256-320 threads -2.1 to +2.2, on 384 threads 0.6-5.3 behind it. On an H100 the uint8 tile
# ran 0.2-0.4 points behind the one before, uint16 level. The blocks are the same for every GPU;
# `bwlab tune transpose` also measures the tiles before at their default bounds. Since the tiles
# stopped loading rows they do not need (the byte tile loaded 320 rows for 287; now 288, whole
# groups of a warp's 4), uint8 (256, 124, 512) runs 0.4-1.8 points ahead of itself before
# (words-wide, 2 probes of 3 rounds, 6 shapes; 7% fewer L2 read sectors at 16383x16389); (384, 124,
# 768) at 2 blocks (39 registers) ran 2.0-3.8 behind it. uint16 (192, 124, 384) at 3 blocks: 56 registers; (128, 124, 256) at 5 spilled.
WORDS_BLOCKS: dict[tuple[int, tuple[int, int, int]], int] = {(1, (256, 124, 512)): 3, (2, (128, 62, 256)): 5,
                                                            (2, (192, 124, 384)): 3}


def words_aligned_input(cfg: tuple[int, int, int]) -> bool:
    """Whether a tileWholeWords tile is the form for inputs whose rows start on 16-byte boundaries
    (32 words' columns a warp, where the other form's 31 leave room for each row's shift)."""
    return cfg[1] % 31 != 0


def words_shared(itemsize: int, cfg: tuple[int, int, int]) -> int:
    """Dynamic shared bytes a tileWholeWords tile launches with: its tile's (whole.cu's WordsTile)
    where they pass the static 48 KiB, else 0. Tiles of 62 words' columns (8-byte loads a lane)
    hold twice the columns; tiles of 32 words' columns (rows of an aligned input) no spare ones."""
    tr, tc, threads = cfg
    g, h = 4 // itemsize, 32 // itemsize
    ain = words_aligned_input(cfg)
    lw = tc // ((32 if ain else 31) * g)  # words a lane loads of each row
    rsp = g * threads // 32
    rows = min(cdiv(tr + h - 1, rsp) * rsp, tr + h)
    cp = (36 + (12 if lw == 1 else 4 * (2 * g - 1)) + rows * itemsize + 7) // 8 * 8 + 4
    nbytes = (tc + (0 if ain else lw * g)) * cp
    return nbytes if nbytes > 48 * 1024 else 0


SECTOR_WAVES = 16  # tileSector's chunks: about this many blocks per multiprocessor (H200: 16 beat 4 and 8)


def sector_chunk(rows: int, strips: int, w: int, sms: int) -> tuple[int, int]:
    """(rows a chunk, chunks) for tileSector: chunks as long as possible (each reads 32 bytes of
    rows past its end a second time) while leaving about SECTOR_WAVES blocks per multiprocessor
    over `strips` column strips; a chunk is a whole number of W-row steps."""
    chunks = max(1, min(cdiv(rows, w), cdiv(sms * SECTOR_WAVES, max(1, strips))))
    chunk = cdiv(cdiv(rows, chunks), w) * w
    return chunk, cdiv(rows, chunk)


def misaligned_candidates(itemsize: int) -> list[tuple[str, tuple[int, int, int]]]:
    return ([("align", c) for c in ALIGN_CANDIDATES[itemsize]] + [("scalar", c) for c in SCALAR_CANDIDATES[itemsize]]
            + [("stage", c) for c in STAGE_CANDIDATES.get(itemsize, ())]
            + [("sector", c) for c in SECTOR_CANDIDATES.get(itemsize, ())]
            + [("whole", c) for c in WHOLE_CANDIDATES.get(itemsize, ())]
            + [("words", c) for c in WORDS_CANDIDATES.get(itemsize, ())])


def misaligned_small(itemsize: int, nbytes: Optional[int]) -> bool:
    """Whether a misaligned call of nbytes (None: a large one) takes MISALIGNED_SMALL's tile."""
    return itemsize in MISALIGNED_SMALL and nbytes is not None and nbytes < MISALIGNED_SMALL[itemsize][0]


def misaligned_choice(itemsize: int, plan: Optional[dict] = None,
                      nbytes: Optional[int] = None) -> tuple[str, tuple[int, int, int]]:
    """(kernel kind, tile) for misaligned rows of a call of nbytes (None: a large one):
    MISALIGNED_SMALL's tile for the calls it covers, else the plan's when it names one, else the
    built-in."""
    if misaligned_small(itemsize, nbytes):
        return MISALIGNED_SMALL[itemsize][1]
    got = (plan or {}).get(("misaligned", itemsize))
    return (got[0], tuple(got[1])) if got else MISALIGNED_DEFAULT[itemsize]


def align_tile(itemsize: int, plan: Optional[dict] = None) -> tuple[int, int, int]:
    """tileAlign's first configuration (kept for the tests of its index maps)."""
    return ALIGN_CANDIDATES[itemsize][0]


def tile_expression(itemsize: int, cfg: tuple[int, int, int], kernel: str = "tileAny") -> str:
    blocks = WORDS_BLOCKS.get((itemsize, tuple(cfg))) if kernel == "tileWholeWords" else None
    return "%s<%d,%d,%d,%d%s>" % (kernel, itemsize, *cfg, f",{blocks}" if blocks else "")


def skinny_threads(short: int) -> int:
    return 256 if short <= 8 else 128  # the wide form stages 32 * (short | 1) vectors per warp


def skinny_expression(itemsize: int, short: int, tall: bool) -> str:
    return f"skinny<{itemsize},{short},{'true' if tall else 'false'},{skinny_threads(short)}>"


def skinnytile_words(itemsize: int, short: int, tall: bool) -> bool:
    """skinnyWords (1- and 2-byte elements, tall only: wide ones take widePerm): a shared word
    holds one position of 4/itemsize rows, moved with one access instead of one per element.
    Short sides that fill words (short * itemsize a multiple of 4), and uint8 of any short side
    from 4 (bundles of 4 rows, then the rest one by one). False for every wide matrix."""
    return tall and itemsize < 4 and ((short * itemsize) % 4 == 0 or (itemsize == 1 and short >= 4))


def skinnytile_expression(itemsize: int, tall: bool, words: bool = False, short: int = 0,
                          asynchronous: bool | None = None, aligned: bool = False) -> str:
    """skinnyWords takes short * itemsize % 4 as a third parameter where it is not 0, and true as a
    fourth where its tile is copied in by cp.async (`asynchronous`; None: as words_async says for
    `short`, a short side of 0 meaning through registers); `aligned` (long rows in whole 16-byte
    vectors) names all five, the fifth true (tiles of 32R vectors)."""
    if aligned and not words:
        raise ValueError("only skinnyWords has an aligned-rows form")
    m = (short * itemsize) % 4 if words else 0
    halo = tall_halo(itemsize, short, tall, words)
    if halo > 1:
        return f"skinnyTile<{itemsize},true,{halo}>"
    if asynchronous is None:
        asynchronous = words and short > 0 and words_async(itemsize, short)
    if aligned:
        return f"skinnyWords<{itemsize},true,{m},{'true' if asynchronous else 'false'},true>"
    if words and asynchronous:
        return f"skinnyWords<{itemsize},true,{m},true>"
    return f"skinny{'Words' if words else 'Tile'}<{itemsize},{'true' if tall else 'false'}{f',{m}' if m else ''}>"


# skinnyTile's TALL tiles count each long row's vectors from a 256-byte boundary of memory (H = 16
# vectors, the kernel's third parameter: no 256-byte span of the output is written by two blocks, at the
# cost of 16 more packed groups loaded a tile). Why: a copy kernel whose blocks each wrote 64 segments of
# 512 bytes ran at 92.3% of memcpy on the H200 with every segment on a 256-byte boundary, at 85-86.6%
# with them 16 bytes off (benchmarks/h200/transpose/skinny-whole/segments-pad*.txt).
#  - On the tile the rule above picks where it has at least TALL_HALO_TASKS warp tasks (short side x
#    R), or from TALL_HALO_FROM columns: against the dispatch before, on every tall short side skinnyTile
#    takes, 256 MiB, long side odd (tall-align/every.txt, mean of two rounds), +0.5 to +6.6 points of a
#    copy at every such side (2-byte 60 columns 86.6 -> 91.9%, 8-byte 62 87.1 -> 93.6%, 16-byte 50
#    87.8 -> 94.2%). With fewer tasks it ran up to 3.4 points slower (36 tasks), but for 8- and 16-byte
#    tiles of R = 1 (+1.0 to +3.2 at 35-40 columns).
#  - Elsewhere on a tile of twice the vectors a row (R x 2), where that tile's packed vectors take one
#    round of loads a thread and at most one vector more (TALL_GROW_VECTORS): +0.15 to +8.8 points at
#    every such side measured (tall-align/grow.txt: 2-byte 9 columns 87.2 -> 95.9%, 36 84.2 -> 92.8%;
#    4-byte 36 87.6 -> 94.4%). Past that (2-byte 45-48 columns, a second round of 13 loads) it lost up
#    to 1.9: those keep H = 1.
TALL_HALO = 16
TALL_HALO_TASKS = {2: 49, 4: 45, 8: 41, 16: 41}
TALL_HALO_FROM = {8: 35, 16: 35}
TALL_GROW_VECTORS = 14 * SKINNYTILE_THREADS  # skinnytile.cu's ST_LOADS_HALO a thread, then one


def _tall_tile(itemsize: int, short: int, tall: bool, words: bool, gp: int) -> tuple[int, int]:
    """(H, rlog) of a skinnyTile or skinnyWords tile (H = 1 but for skinnyTile's TALL tiles above)."""
    rlog = _skinnytile_rlog(itemsize, short, tall, words, gp)
    if not tall or words or itemsize not in TALL_HALO_TASKS:
        return 1, rlog
    if short << rlog >= TALL_HALO_TASKS[itemsize] or short >= TALL_HALO_FROM.get(itemsize, 1 << 30):
        return TALL_HALO, rlog
    if (skinnytile_vectors(rlog + 1) + TALL_HALO) * short <= TALL_GROW_VECTORS:
        return TALL_HALO, rlog + 1
    return 1, rlog


def tall_halo(itemsize: int, short: int, tall: bool, words: bool = False) -> int:
    """skinnyTile's H: the packed groups a TALL tile loads before its own (1, or TALL_HALO where its
    rows' vectors start on 256-byte boundaries of memory)."""
    if not 1 <= short <= SKINNYTILE_MAX:
        return 1
    return _tall_tile(itemsize, short, tall, words, skinnytile_pitch(itemsize, short))[0]


def is_words(choice: "Choice") -> bool:
    return choice.expression.startswith("skinnyWords")


def words_aligned(choice: "Choice") -> bool:
    """skinnyWords' aligned-rows form (its fifth parameter true)."""
    return is_words(choice) and choice.expression.count(",") == 4 and choice.expression.endswith(",true>")


def skinnytile_pitch(itemsize: int, short: int) -> int:
    """Bytes between consecutive groups (VE positions x short elements) in skinnyTile's shared
    tile: 16*short plus a pad that makes the pitch odd in shared access units (max(E, 4) bytes),
    so 32 lanes at consecutive groups hit 32 different banks."""
    unit = max(itemsize, 4)
    pad = unit if itemsize < 16 else (16 if short % 2 == 0 else 32)
    return 16 * short + pad


def skinnytile_geometry(itemsize: int, short: int, tall: bool, words: bool = False,
                        aligned: bool = False) -> tuple[int, int, int]:
    """(rlog, group pitch, dynamic shared bytes): a tile holds V = 32 * 2**rlog vectors of each
    long row (skinnyWords: 31 * 2**rlog, or 32 * 2**rlog with no group before them where `aligned`),
    R = 2**rlog the largest power of two with short * R <= 64 (tiles of 16 to 32 KiB per side) whose
    groups fit 48 KiB. skinnyWords' aligned form keeps the R of its other form."""
    if not 1 <= short <= SKINNYTILE_MAX:
        raise ValueError(f"skinnyTile takes short sides 1..{SKINNYTILE_MAX}, got {short}")
    if words and not tall:
        raise ValueError("skinnyWords is tall only: wide 1- and 2-byte matrices take widePerm")
    if words and not skinnytile_words(itemsize, short, tall):
        raise ValueError(f"skinnyWords does not take a short side of {short} {itemsize}-byte elements")
    if aligned and not words:
        raise ValueError("only skinnyWords has an aligned-rows form")
    gp = skinnytile_pitch(itemsize, short)
    halo, rlog = _tall_tile(itemsize, short, tall, words, gp)
    return rlog, gp, (skinnytile_vectors(rlog, words, aligned) + (halo if tall and not aligned else 0)) * gp


def _skinnytile_rlog(itemsize: int, short: int, tall: bool, words: bool, gp: int) -> int:
    rlog = _rule_rlog(short, gp, tall)
    if words:
        return async_rlog(gp) if words_async(itemsize, short) else words_rlog(itemsize, short, rlog, gp)
    if tall and itemsize in TILE_BALANCED:
        return tile_rlog(short, rlog, gp)
    return rlog


def _rule_rlog(short: int, gp: int, tall: bool) -> int:
    """The largest R = 2**rlog with R * short <= 64 whose tile fits 48 KiB."""
    rlog = 0
    while (1 << (rlog + 1)) * short <= 64 and (32 * (1 << (rlog + 1)) + tall) * gp <= SKINNYTILE_SMEM:
        rlog += 1
    return rlog


TILE_WARPS = 8         # skinnytile.cu's ST_THREADS / 32
TILE_LOADS = 9         # skinnytile.cu's ST_LOADS: packed vectors a thread loads in one round
TILE_BALANCED = (2, 4, 8)  # the element sizes tile_rlog was measured on (17 and 33 columns)


def warps_busy(tasks: int) -> float:
    """How busy a skinnyTile or skinnyWords block's warps are on average over its `tasks` (one warp
    each, taken in turn): the block lasts as long as its busiest warp."""
    return tasks / (TILE_WARPS * cdiv(tasks, TILE_WARPS))


def tile_rlog(short: int, rlog: int, gp: int) -> int:
    """skinnyTile's TALL tile: `rlog`, unless its tasks (short * R: a row's block of 32 vectors each)
    leave the block's warps under 90% busy on average (a block takes as long as its busiest warp);
    then, of the tiles that fit 48 KiB and one round of loads (9 vectors a thread), the one that
    spreads them most evenly (the smallest on a tie). On the H200 (benchmarks/h200/transpose/
    tile-rounds, 256 MiB, the dispatch before and after): 17 columns (34 tasks on R = 2 -> 68 on
    R = 4) went from 89.0-89.5% of a copy to 92.2-93.1% for 4 and 8 bytes; 33 columns (R = 1 -> 2)
    from 86.0-87.2% to 90.5-90.7% for 4 and 8 bytes and from 83.3% to 90.3% for 2 bytes. Where
    short * R already kept the warps busy (32, 48, 63 and 64 columns), a larger tile was level or up
    to 6 points slower, and tiles of 64-70 KiB lost 0.6-5.6 points in every case measured. 34 and 35
    columns (R = 1 -> 2) and 2-byte 17 columns were not measured."""
    def even(r: int) -> float:
        return warps_busy(short << r)

    def fits(r: int) -> bool:
        return (32 * (1 << r) + 1) * gp <= SKINNYTILE_SMEM and (32 * (1 << r) + 1) * short <= TILE_LOADS * 256
    if even(rlog) >= 0.9:
        return rlog
    best = rlog
    for r in range(rlog + 1, rlog + 4):
        if fits(r) and even(r) > even(best) + 1e-9:
            best = r
    return best


WORDS_SMEM = 72 * 1024  # skinnyWords' largest tile through registers (opted in above 48 KiB)


def words_tasks(itemsize: int, short: int, rlog: int) -> int:
    """skinnyWords' warp tasks a tile: a bundle of 4/itemsize rows, or one leftover row, times R blocks."""
    q = 4 // itemsize
    return (short // q + short % q) << rlog


def words_rlog(itemsize: int, short: int, rlog: int, gp: int) -> int:
    """skinnyWords' tile: `rlog` (skinnyTile's rule), unless its tasks leave the block's warps less
    than 70% busy on average (a block takes as long as its busiest warp); then, of the tiles that fit
    WORDS_SMEM, the smallest that spreads them most evenly. On the H200
    (benchmarks/h200/transpose/skinny-balance): 8134409 x 33 uint8 (9 tasks on 8 warps) 70% of a
    copy -> 73% on R = 4, 15790321 x 17 (10 tasks) 71% -> 75% on R = 8. Where the tasks kept the
    warps 75% busy or more, `rlog` ran best or within a point of best, but for 9 columns (73%
    against 75.6% on R = 16, 71 KiB), and the most even tile lost up to 4 points (12, 24 and 48
    columns: 85-87% against 87-90%)."""
    def even(r: int) -> float:
        return warps_busy(words_tasks(itemsize, short, r))
    if even(rlog) >= 0.7:
        return rlog
    best, r = rlog, rlog
    while (31 * (2 << r) + 1) * gp <= WORDS_SMEM:
        r += 1
        if even(r) > even(best) + 1e-9:
            best = r
    return best


WORDS_ROUND = 8         # skinnytile.cu's ST_LOADS - 1: vectors a thread in one round of skinnyWords' loads
WORDS_FEW_LOADS = 5.5   # vectors a thread below which a round of loads keeps too few in flight
WORDS_ASYNC_SMEM = 43 * 1024  # skinnyWords' tiles copied in by cp.async: the largest within this


def words_async(itemsize: int, short: int) -> bool:
    """Whether skinnyWords copies its tile into shared memory by cp.async (4 bytes a lane, no
    registers, all of the tile's copies in flight at once) instead of through registers in rounds
    of 8 vectors a thread: where its tile through registers (words_rlog) would hold fewer than 5.5
    vectors a thread, or take more than one round (more than two where the short side fills words).
    On the H200 (benchmarks/h200/transpose/async-tiles, 256 MiB, rows misaligned, alternately
    against the tree before, % of a copy):
    - fewer than 5.5 vectors a thread: uint8 5, 9, 10, 11, 18, 21 and 39 columns 85.2, 81.0, 83.9,
      85.1, 80.0, 84.0 and 79.4% -> 91.3, 90.9, 90.8, 90.0, 88.3, 87.9 and 86.8%, uint16 10 columns
      89.2 -> 91.3% (summary.txt);
    - several rounds: uint8 17, 33 and 41 columns 77.9, 76.2 and 77.7% -> 88.8, 87.2 and 84.3%;
      filling words, 36 columns (three rounds) 78.1 -> 85.8%, but 20 and 44 (two) 88.3 -> 82.5% and
      86.8 -> 86.4%;
    - one round of 5.9 to 8 vectors a thread (uint8 4, 7, 8, 12, 13, 16, 24, 31, 32, 48 and 63
      columns, uint16 12, on the same tiles): 0.2 to 3 points slower (uint8 64 columns 1.7 faster).
    skinnyTile's tall tiles copied the same way lost up to 15.6 points at 2 to 16 bytes (2033601 x 33
    uint32 91.4 -> 81.3%, 16-byte 5 columns 97.0 -> 81.3%) and gained at most 2.4: they keep the
    registers."""
    gp = skinnytile_pitch(itemsize, short)
    nc = (skinnytile_vectors(words_rlog(itemsize, short, _rule_rlog(short, gp, True), gp), True) + 1) * short
    rounds = 1 if (short * itemsize) % 4 else 2
    return not WORDS_FEW_LOADS * SKINNYTILE_THREADS <= nc <= rounds * WORDS_ROUND * SKINNYTILE_THREADS


def async_rlog(gp: int) -> int:
    """skinnyWords' tile copied in by cp.async: the largest R within WORDS_ASYNC_SMEM. Forced tiles
    on the H200 (async-tiles/sweep-all-async.txt): uint8 5 columns 91.2% of a copy on R = 8 (20 KiB), 91.7% on
    16 (41 KiB); 9 columns 90.5% on 4, 91.2% on 8 (35 KiB), 83.8% on 16 (71 KiB); 17 columns 87.4%
    on 2, 88.7% on 4 (33 KiB), 83.4% on 8 (67 KiB); 33 columns 85.0% on 1, 87.6% on 2 (32 KiB),
    81.8% on 4 (64 KiB). On every tall uint8 short side from 17 to 64 (skinny-every/summary.txt, mean
    of two rounds), the tiles of 40.6-42.6 KiB that a bound of 40 KiB left out ran ahead of the
    next smaller one: 21 columns 88.4% against 87.9, 41 85.7 against 84.1, 42 86.2 against 86.0,
    43 86.5 against 85.6. Past 43 KiB: 22 columns 87.4% on 43.5 KiB against 86.8 (within the
    runs' spread; not taken), and the tiles of 64-71 KiB (17, 18 and 33 to 36 columns) 4.8 to 7.1
    points behind the next smaller."""
    return max(r for r in range(8) if (skinnytile_vectors(r, True) + 1) * gp <= WORDS_ASYNC_SMEM)


def skinnytile_vectors(rlog: int, words: bool = False, aligned: bool = False) -> int:
    """Vectors of each long row per tile: skinnyWords' tasks of 32 lanes emit 31 (32 in its aligned form)."""
    return (31 if words and not aligned else 32) << rlog


def skinnytile_tiles(itemsize: int, short: int, n: int, tall: bool, words: bool = False,
                     aligned: bool = False) -> int:
    """Blocks of skinnyTile: TALL covers every long row's aligned vectors (at most
    ceil(n*E/16) + 1 per row, counted from up to H - 1 vectors before the row), WIDE the n packed
    positions."""
    rlog, gp, smem = skinnytile_geometry(itemsize, short, tall, words, aligned)
    v = skinnytile_vectors(rlog, words, aligned)
    if not tall:
        return cdiv(n, v * (16 // itemsize))
    return cdiv(cdiv(n * itemsize, 16) + smem // gp - v, v)  # smem // gp - v: the tile's H


def skinnytile_applies(itemsize: int, short: int, long: int, tall: bool, aligned_extents: bool) -> bool:
    """skinnyTile for short sides 2..64 with a long side over 64 (smaller matrices keep the
    tile kernels), except:
    - the tall short sides SKINNY_KEEP_TALL leaves on skinny;
    - aligned extents (long rows in whole 16-byte vectors) with 2 to 4 short elements, tall
      (below 16 bytes) or wide uint8, where the register kernel needs no realignment
      (10,000,000 x 3 tall: 97-102% of memcpy on the H200, against 82-90% on skinnyTile;
      3 x 10,000,000 uint8: 73% against 68%), unless a tall short side fills skinnyWords' 4-byte
      words (89-94% there: uint8 4, 2-byte 2 and 4); at 16 columns
      it fell to 72-80% where skinnyTile reached 80-96% (256^3 x 16, aligned);
    - aligned extents with 17 to 64 short elements where tileAny's default tile does as well: a
      short side that fills whole tiles (tall: of its columns, except 16-byte elements, where
      tileAny measured 75-77% against 85-88%; wide: of its rows, 89-91%, measured on 32-row tiles
      before 16-byte elements took 64-row ones), and uint8 wide matrices of at least half a tile's
      rows (72% at 64 rows).
    Wide 16-byte matrices of 2 to 4 rows take wideElems first (elems_applies).
    (Tall float32 from 50 columns with misaligned output rows took tileWhole's 64x64 tile for a while,
    0.5-3.4 points ahead of skinnyTile then; skinnyTile's 256-byte-aligned rows (TALL_HALO) ran 2.8-5.0
    ahead of tileWhole at every such side, benchmarks/h200/transpose/tall-align/every.txt.)"""
    if not 2 <= short <= SKINNYTILE_MAX < long or (tall and short in SKINNY_KEEP_TALL[itemsize]):
        return False
    if not aligned_extents:
        return True
    if short <= 4:  # the register kernel, except where skinnyWords measured 89-94% (aligned long rows)
        registers = itemsize < 16 if tall else itemsize == 1
        return not registers or skinnytile_words(itemsize, short, tall)
    if short <= SKINNY_MAX:
        return True
    tr, tc, _ = DEFAULT_PLAN[itemsize]
    if tall:
        return itemsize == 16 or short % tc != 0
    return short % tr != 0 and not (itemsize == 1 and 2 * short >= tr)


def perm_applies(itemsize: int, short: int, long: int, tall: bool, aligned_extents: bool) -> bool:
    """widePerm / tallPerm (skinnyperm.cu) for a dense matrix with 16-byte-aligned pointers of 1-
    and 2-byte elements, and widePerm for 4-byte ones (above PERM_TALL_MAX), except where the long rows are
    whole vectors and:
    - tall: the register kernel needs no realignment (97-101% of memcpy on the H200);
    - wide: the short side fills whole tiles of tileAny's default (float16, 64 rows: 97%
      against widePerm's 91%)."""
    sizes = (1, 2, 4) if not tall else (1, 2)
    if not (itemsize in sizes and 2 <= short <= (PERM_TALL_MAX if tall else SKINNYTILE_MAX) < long):
        return False
    return not aligned_extents or (not tall and short % DEFAULT_PLAN[itemsize][0] != 0)


def perm_steps(short: int) -> int:
    """Steps of 32 words a warp takes with all their loads in flight (K) for 1- and 2-byte elements:
    two, four for short sides 9 to 16 (the sweep in benchmarks/h200/transpose/perm-probe)."""
    return 4 if 9 <= short <= 16 else 2


def perm_steps_of(itemsize: int, short: int) -> int:
    """K for itemsize-byte elements: 4-byte ones take two steps at every short side (on the H200, at
    9 to 16 rows, 96.4-98.3% of a copy against 94.9-98.0% with four, which NVRTC 13.5 also spills at
    13 rows: benchmarks/h200/transpose/wide-f32/steps.py)."""
    return 2 if itemsize == 4 else perm_steps(short)


# widePerm's short sides whose word loads stay plain: at every other side the L2 fetches whole
# 128-byte lines (benchmarks/h200/transpose/wide-l2: two long sides each, 256 MiB and about 320
# MiB). These lost 0.9-10 points of a copy on the mean of the two (1-byte 64 rows 74-80% against
# 87-88%), except five that spill (8 bytes of stack) with the hint: 1-byte 26 rows and 2-byte 10
# under NVRTC 13.0 (spills.txt there), 1-byte 15 and 2-byte 22 and 26 under 13.5; they gained up
# to 2.1 points with it, and meet 90% without. Of the others, half gained 1-4.3 points (1-byte 37,
# 41 and 48 rows 89-90% -> 92%) and the rest moved by less than a point on the mean. 4-byte 6 rows
# spills 8 bytes with it under NVRTC 13.0 (held to 32 registers), none with plain loads (40 registers;
# 99% of memcpy, benchmarks/h200/transpose/skinny-every/float32-wideperm); the other 4-byte sides take
# it (benchmarks/h200/transpose/wide-f32: plain loads trailed it by up to 4.8 points).
PERM_PLAIN_LOADS = {1: frozenset({15, 24, 26, 29, 32, 49, 50, 51, 52, 53, 62, 64}),
                    2: frozenset({10, 22, 26, 29, 37, 48}), 4: frozenset({6})}


def perm_line_fetch(itemsize: int, short: int) -> bool:
    """widePerm's word loads ask the L2 for whole 128-byte lines (a template flag)."""
    return short not in PERM_PLAIN_LOADS[itemsize]


# widePerm's short sides that build each step's packed words in the order of the last row word they
# read (the kernel's ORDERED), so that a row's words die early. On the H200
# (benchmarks/h200/transpose/wide-units), alternately against the same kernels in place order, three
# rounds each, every output checked: 1-byte 60 rows 86.5-88.9% of a copy -> 90.6-91.8% in two runs
# (ordered, it fits three blocks an SM, 168 registers, where it took 194 and two), 41 rows 89.3-91.7%
# -> 91.7-94.0% (four blocks, as before). Ordered at every side (one run, two rounds), the others moved
# by -10.8 to +1.5 points, 103 of the 126 within a point, and 2-byte 41 rows' +1.4 there was -0.5 in the
# three rounds after: only these two take it.
PERM_ORDERED = {1: frozenset({41, 60}), 2: frozenset(), 4: frozenset()}

# widePerm's short sides whose warps hand each other the word after their run through shared memory
# (the kernel's SHARE), instead of each gathering it from its S rows (S sectors of the L2 for 4 bytes
# each). On the H200 (benchmarks/h200/transpose/wide-after), alternately against the gather, three
# rounds, every output checked, every round of each ahead of every round of the gather: 1-byte 40
# rows 89.8% of a copy -> 92.3%; 2-byte 41 rows 90.2 -> 92.5, 53 88.9 -> 90.6, 59 89.8 -> 91.1, 64
# 86.5 -> 89.3. Level or behind at the other sides measured (1-byte 41, 48, 49, 58, 59 and 61, 2-byte
# 40: -1.3 to +0.2; 1-byte 64, 200 registers instead of 196: -3.9; 1-byte 60, which then spills 36
# bytes: -2.5; 2-byte 60 spills too).
PERM_SHARED = {1: frozenset({40}), 2: frozenset({41, 53, 59, 64}), 4: frozenset()}


def perm_expression(itemsize: int, short: int, tall: bool) -> str:
    if tall:
        return f"tallPerm<{itemsize},{short},{perm_steps_of(itemsize, short)}>"
    ordered, shared = short in PERM_ORDERED[itemsize], short in PERM_SHARED[itemsize]
    flags = ("," + str(ordered).lower() if ordered or shared else "") + (",true" if shared else "")
    k = perm_steps_of(itemsize, short)
    return (f"widePerm<{itemsize},{short},{k},{str(perm_line_fetch(itemsize, short)).lower()}"
            f"{flags}>")


def perm_full_steps(itemsize: int, n: int, tall: bool) -> int:
    """Steps of 128 row bytes that skinnyperm.cu's main loop takes: every load and store inside
    the rows (wide: the word after the step read too); the last block takes the rest."""
    return (n * itemsize) // 128 if tall else max(0, (n * itemsize - 4) // 128)


def perm_blocks(itemsize: int, short: int, n: int, tall: bool) -> int:
    return cdiv(perm_full_steps(itemsize, n, tall), PERM_WARPS * perm_steps_of(itemsize, short)) + 1


# wideElems (elems.cu): wide matrices of 16-byte elements with 2 to ELEMS_MAX rows. On the H200
# (benchmarks/h200/transpose/wide-16, three rounds): 99.5-101.2% of a copy at 2 to 4 rows, level
# with CuPy's elementwise copy (99.4-101.3%), where skinnyTile's wide tile ran at 97.6-99.2%; from
# 5 rows skinnyTile is ahead again (98.9-99.2% against 97.4-97.8%). One element a thread (U = 1)
# with plain stores: two to eight a thread, or evict-first stores, were level or behind.
ELEMS_MAX = 4
ELEMS_THREADS = 256


def elems_applies(itemsize: int, short: int, long: int, tall: bool) -> bool:
    return itemsize == 16 and not tall and 2 <= short <= ELEMS_MAX and long > SKINNYTILE_MAX


def elems_expression(short: int) -> str:
    return f"wideElems<{short},1,false>"


# wideWords (widewords.cu): the wide sides (element size, short side) it takes from widePerm, with
# W positions a block (512 bytes of each row). On the H200 (benchmarks/h200/transpose/wide-words,
# three rounds each): uint8 64 rows 91.8% of a copy at 64x4194304 and 93.7-94.1% at 64x4194305,
# where widePerm (196 registers a thread, two blocks a multiprocessor) ran at 87.4-87.6%; uint16 64
# rows 93.4% at 64x2097153 against 89.7% (aligned rows keep tileAny's whole tiles: 95.5% against
# 92.4%). At uint8 16, 32 and 48 rows and uint16 32 and 48 widePerm was level or ahead. Tiles of
# 256 and 1024 bytes a row, and evict-first stores, trailed 512; uint16 on 1024 (one block a
# multiprocessor) ran at 76-77%. Sides whose output rows are not whole 16-byte runs (a plain output
# tile, each run stored at its byte offset), swept over every side from 17 to 63 rows, then the
# closest again (probe4.txt, probe5.txt, probe6.txt there): taken where wideWords ran ahead by 0.9
# points or more in both and was not behind elsewhere: uint8 58 and 59 rows 88.0-88.3% ->
# 91.5-91.7% and 86.9-87.3% -> 92.0-92.5%, 26, 34 and 63 rows 0.9 to 2.0 points, uint16 52, 58, 59
# and 63 rows 1.2 to 3.0 points; and uint8 61 rows, behind at one long side of six but its worst
# 91.2% against widePerm's 89.7%. widePerm stays at the others: up to 12 points ahead below 26
# rows, mixed at uint8 43 and 55 and at uint16 53 (2.4-3.4 points ahead at three long sides of
# five), and ahead or within 0.8 of wideWords in the sweep elsewhere.
WIDE_WORDS: dict[tuple[int, int], int] = {
    (1, 26): 512, (1, 34): 512, (1, 58): 512, (1, 59): 512, (1, 61): 512, (1, 63): 512, (1, 64): 512,
    (2, 52): 256, (2, 58): 256, (2, 59): 256, (2, 63): 256, (2, 64): 256,
}
WW_THREADS = 256


def widewords_applies(itemsize: int, short: int, long: int, tall: bool, aligned_extents: bool) -> bool:
    return not tall and (itemsize, short) in WIDE_WORDS and perm_applies(itemsize, short, long, tall, aligned_extents)


def widewords_expression(itemsize: int, short: int) -> str:
    return f"wideWords<{itemsize},{short},{WIDE_WORDS[(itemsize, short)]},false>"


def widewords_shape(choice: Choice) -> tuple[int, int, int]:
    """(element size, short side, positions a block) of a wideWords choice."""
    m = re.fullmatch(r"wideWords<(\d+),(\d+),(\d+),(?:true|false)>", choice.expression)
    if not m:
        raise ValueError(f"not a wideWords choice: {choice.label}")
    return int(m[1]), int(m[2]), int(m[3])


def widewords_shared(itemsize: int, short: int, positions: int) -> int:
    """Dynamic shared bytes of a wideWords tile (widewords.cu's WideWordsTile): the rows' chunks
    from their 16-byte boundaries (whole runs of 16/E rows), and the output tile."""
    runs = -(-short * itemsize // 16)
    return runs * (16 // itemsize) * (positions * itemsize // 16 + 1) * 16 + positions * short * itemsize


# tallWords (tallwords.cu): the tall uint8 and uint16 sides ((element size, columns) -> (W positions a
# block, P pad chunks a position group)) it takes from skinnyWords and skinnyTile where the long rows
# are not whole 16-byte vectors, every output sector written whole by one block (LINE = 32). P is the
# bank model's choice (test_plans) or
# none: pads spare step 2's reads bank conflicts, but break the copy-in's contiguous destinations,
# so that a warp's cp.async asks the L2 for a third more sectors (Nsight Compute at 41 columns), and
# on the H200 no pad ran ahead at most sides that have one (probe-pad0.txt). On the H200
# (benchmarks/h200/transpose/tall-staged: every tall uint8 side from 17 to 64 columns at odd long
# sides of 256 MiB, two rounds, every output checked), taken where it ran ahead of the dispatch:
# first in probe-every.txt (17-22, 30, 32, 34-40, 42-45, 47, 50-52, 56, 60, 62 and 64 columns: 86.9-
# 89.6% -> 90.1-93.8% of a copy at 22 of them), then, with the kernel's instructions cut by a third
# (probe-lean.txt, probe-pad0.txt), at 23, 25, 29, 31, 33, 41, 46, 48, 53-55, 58, 59, 61 and 63
# (skinnyWords' 86.0-91.7% -> 89.9-93.1%: 33 88.3 -> 91.4, 41 86.0 -> 90.4, 54 88.3 -> 91.4), with
# no pad at 20 (91.5-91.8 -> 94.2) and 39 (88.9 -> 93.0) too; then, with step 2's warps on 8 groups
# x 4 words where S + P is odd (no bank read twice, probe-steps.txt), at 49 and 57 columns (skinnyWords
# 88.7-89.1% -> 91.0-91.1%) and at uint16 45-47 columns on 256 positions (skinnyTile 89.4-89.9% ->
# 90.7-91.8%) and 44 and 48 (90.7-90.9% -> 91.8-92.6% there; skinnyTile at 48 columns ran 89.96% in a
# later run of every side), then uint16 49 (probe-u16-49.txt, 3 rounds: 90.0 -> 91.4%; 50 and 51
# level). Pads 0, 2, 4 and 6 on the sides the runs of every side had left within a point of 90%
# (benchmarks/h200/transpose/tall-pads/probe1.txt, 4 rounds, the variants in a rotated order):
# uint16 50 columns 85.9% on skinnyTile in that run (90.4-90.9% before) against 90.7-91.5% on
# tallWords' 256 positions, 91.5% with 4 pad chunks; 4 pads at uint16 46 (90.5 -> 91.0%), uint8 50
# (88.6 -> 90.6%, its rounds spread over 5 points) and 62 (88.9 -> 89.3%), none at uint8 45 (91.1 ->
# 91.6%); at uint8 59-61 and 63 no pad was ahead of the table's. Sector ownership matters: owning
# 16-byte vectors instead (every other tile boundary mid-sector), it ran 1-8 points slower at most
# sides (probe-sectors.txt).
TALL_WORDS: dict[tuple[int, int], tuple[int, int]] = {  # (element size, columns) -> (W, P)
    **{(1, s): (1024, 0) for s in (17, 18, 19, 21, 52)},
    **{(1, s): (512, 0) for s in (20, 22, 23, 25, *range(29, 32), 33, *range(34, 40), 41, 42, 43, 44, 45, 46,
                                   48, 49, 51, 53, 54, 55, 57, 58, 59, 60, 61, 63)},
    (1, 32): (512, 2), (1, 40): (512, 2), (1, 47): (512, 4), (1, 50): (512, 4), (1, 56): (512, 2), (1, 62): (512, 4),
    (1, 64): (512, 4),
    **{(2, s): (256, 0) for s in (44, 45, 47, 48, 49)}, (2, 46): (256, 4), (2, 50): (256, 4),
}
TW_LINE = 32
TW_THREADS = 256


def tallwords_applies(itemsize: int, short: int, long: int, tall: bool) -> bool:
    return tall and (itemsize, short) in TALL_WORDS and long > SKINNYTILE_MAX and long * itemsize % 16 != 0


def tallwords_expression(itemsize: int, short: int) -> str:
    w, p = TALL_WORDS[(itemsize, short)]
    return f"tallWords<{itemsize},{short},{w},{TW_LINE},false,{p},false>"


def tallwords_shape(choice: Choice) -> tuple[int, int, int, int, bool, int]:
    """(element size, short side, positions a block, line, whole lines, pad) of a tallWords choice."""
    m = re.fullmatch(r"tallWords<(\d+),(\d+),(\d+),(\d+),(true|false),(\d+),(?:true|false)>", choice.expression)
    if not m:
        raise ValueError(f"not a tallWords choice: {choice.label}")
    return int(m[1]), int(m[2]), int(m[3]), int(m[4]), m[5] == "true", int(m[6])


def tallwords_shared(itemsize: int, short: int, positions: int, line: int, whole: bool, pad: int) -> int:
    """Dynamic shared bytes of a tallWords tile (tallwords.cu's TallWordsTile): the position groups
    held (with the LINE/E positions before the tile unless whole), padded, and the staged rows."""
    groups = (positions + (0 if whole else line // itemsize)) * itemsize // 16
    return groups * 16 * (short + pad) + 16 + short * (groups + (0 if whole else 1)) * 16


def strided_expression(itemsize: int) -> str:
    return f"strided<{itemsize}>"


def expressions() -> dict[Path, list[str]]:
    """Every instantiation bwlab.transpose() may launch, per source file."""
    tiles = [tile_expression(e, c) for e in ITEMSIZES for c in TILE_CANDIDATES[e]]
    aligns = [tile_expression(e, c, "tileAlign") for e in ITEMSIZES for c in ALIGN_CANDIDATES[e]]
    skinny = [skinny_expression(e, c, t) for e in ITEMSIZES for c in range(1, SKINNY_MAX + 1) for t in (True, False)]
    scalars = [tile_expression(e, c, "tileScalar") for e in ITEMSIZES for c in SCALAR_CANDIDATES[e]]
    stages = [tile_expression(e, c, "tileStage") for e, cs in STAGE_CANDIDATES.items() for c in cs]
    sectors = [tile_expression(e, c, "tileSector") for e, cs in SECTOR_CANDIDATES.items() for c in cs]
    wholes = [tile_expression(e, c, "tileWhole") for e, cs in WHOLE_CANDIDATES.items() for c in cs]
    wholes += [tile_expression(e, c, "tileWholeWords") for e, cs in WORDS_CANDIDATES.items() for c in cs]
    wholes += [tile_expression(e, c, "tileWholeWords") for t in (WORDS_ALIGNED_IN, WORDS_ALIGNED_IN_32)
               for e, c in t.items()]
    return {ANY: tiles, ALIGN: aligns, SCALAR: scalars, STAGE: stages, SECTOR: sectors, WHOLE: wholes,
            SKINNY: skinny,
            # wide 1-, 2- and 4-byte matrices all take widePerm: no wide skinnyTile for them, and
            # skinnyWords is tall only (the forced GPU tests run exactly these instantiations)
            SKINNYTILE: [skinnytile_expression(e, t, w) for e in ITEMSIZES for t in (True, False)
                         for w in ((False, True) if e < 4 else (False,)) if t or e >= 8]
            + [f"skinnyTile<{e},true,{TALL_HALO}>" for e in TALL_HALO_TASKS]  # tall tiles on 256-byte boundaries
            + [skinnytile_expression(1, True, True, s, False) for s in (5, 6, 7)]  # short % 4 = 1, 2, 3
            + sorted({skinnytile_expression(e, True, True, s, True) for e in (1, 2)  # tiles copied by cp.async
                      for s in range(2, WORDS_TALL_MAX[e] + 1) if skinnytile_words(e, s, True) and words_async(e, s)})
            + sorted({skinnytile_expression(e, True, True, s, aligned=True) for e in (1, 2)  # rows of 256k bytes
                      for s in range(2, WORDS_ALIGNED_TALL_MAX[e] + 1) if words_form(e, s, 256, True)[1]}),
            SKINNYPERM: [perm_expression(e, s, False) for e in (1, 2, 4) for s in range(2, SKINNYTILE_MAX + 1)
                         if (e, s) not in WIDE_WORDS]
            + [perm_expression(e, s, True) for e in (1, 2) for s in range(2, PERM_TALL_MAX + 1)],
            ELEMS: [elems_expression(s) for s in range(2, ELEMS_MAX + 1)],
            WIDEWORDS: [widewords_expression(e, s) for e, s in WIDE_WORDS],
            TALLWORDS: [tallwords_expression(e, s) for e, s in TALL_WORDS],
            STRIDED: [strided_expression(e) for e in ITEMSIZES]
            + [tile_expression(e, SCALAR_CANDIDATES[e][0], "stridedTile") for e in ITEMSIZES], ROWS: ["copyRows"],
            PITCHED: [pitched_expression(e, v) for e in ITEMSIZES for v in (True, False)]}


def pitched_tile(itemsize: int, vec: bool) -> tuple[int, int, int]:
    """The pitched transpose's tile: tileAny's default, or tileScalar's element-by-element one."""
    return DEFAULT_PLAN[itemsize] if vec else SCALAR_CANDIDATES[itemsize][0]


def pitched_expression(itemsize: int, vec: bool) -> str:
    return tile_expression(itemsize, pitched_tile(itemsize, vec), "pitchedVec" if vec else "pitchedScalar")


def choose(itemsize: int, lay: Layout, plan: Optional[dict] = None, x_aligned: bool = True,
           out_aligned: bool = True, x_sector: bool = False) -> Choice:
    """The kernel for a transpose of itemsize-byte elements laid out as lay; x_aligned /
    out_aligned: the data pointers are 16-byte aligned; x_sector: x's is 32-byte aligned."""
    if itemsize not in ITEMSIZES:
        raise ValueError(f"element size {itemsize} bytes not supported (supported: {ITEMSIZES})")
    batch, rows, cols = lay.batch, lay.rows, lay.cols
    if batch * rows * cols == 0:
        return Choice("empty", itemsize, reason="nothing to move")
    if lay.dense and (rows == 1 or cols == 1):
        return Choice("copy", itemsize, reason="a 1 x n or n x 1 matrix has the same bytes as its transpose")
    if lay.transposed:
        if lay.cs == rows:
            return Choice("copy", itemsize, reason="x is the transpose of a C-contiguous array: one copy")
        return Choice("copy2d", itemsize, ROWS, "copyRows", ROWS_THREADS,
                      f"x is the transpose of a row-major array with row pitch {lay.cs}: one copy of its rows")
    tiled = min(rows, cols) > SKINNYTILE_MAX  # a shorter side would leave the tiles below mostly empty
    if lay.cs == -1 and batch == 1 and tiled:
        # x[i, j] = x'[i, cols-1-j] for x' = x's columns in memory order: out is x'^T with its rows
        # in reverse order, a pitched transpose into the last row of out at pitch -rows (the caller
        # passes the alignment of those two pointers)
        vec = x_aligned and out_aligned and all(n % (16 // itemsize) == 0 for n in (rows, cols, lay.rs))
        tr, tc, threads = pitched_tile(itemsize, vec)
        return Choice("flip", itemsize, PITCHED, pitched_expression(itemsize, vec), threads,
                      f"columns reversed (stride -1): the transpose of the columns in memory order, written "
                      f"last row first, {tr}x{tc} tile, {'16-byte vectors' if vec else 'element by element'}")
    if lay.cs != 1 and lay.bstride is not None and abs(lay.cs) < abs(lay.rs) and tiled:
        # the view's rows are the closer-packed side: a tile reads along them; where its columns
        # are (a[::-1].T, a[:, ::2].T), consecutive threads of `strided` already read neighbours
        cfg = SCALAR_CANDIDATES[itemsize][0]
        return Choice("strided-tile", itemsize, STRIDED, tile_expression(itemsize, cfg, "stridedTile"), cfg[2],
                      f"strides {lay.rs}, {lay.cs} (elements): {cfg[0]}x{cfg[1]} tile, element by element")
    if lay.cs != 1 or lay.bstride is None:
        return Choice("strided", itemsize, STRIDED, strided_expression(itemsize), STRIDED_THREADS,
                      f"strides {lay.rs}, {lay.cs} (elements) and batch strides {lay.batch_dims or lay.bstride}: "
                      "element by element")
    ve = 16 // itemsize
    aligned = x_aligned and out_aligned
    if lay.dense and aligned and batch == 1:
        for tall, short, long in ((True, cols, rows), (False, rows, cols)):
            # aligned extents: long rows (the long side) in whole 16-byte vectors, as the register
            # kernel's 2-4 short elements need (a short side below 16 bytes never is a multiple)
            even = long % ve == 0 and (short <= 4 or short % ve == 0)
            if elems_applies(itemsize, short, long, tall):
                return Choice("wide-elems", itemsize, ELEMS, elems_expression(short), ELEMS_THREADS,
                              f"{short} rows of 16-byte elements: one element a thread, as a copy moves vectors")
            if widewords_applies(itemsize, short, long, tall, even):
                return Choice("wide-words", itemsize, WIDEWORDS, widewords_expression(itemsize, short), WW_THREADS,
                              f"{short} rows: copied into shared memory by cp.async, 4-byte words of each row "
                              "interleaved by byte permutes, the output tile stored as 16-byte vectors")
            if perm_applies(itemsize, short, long, tall, even):
                side = "columns" if tall else "rows"
                how = ("one element of each long row a lane" if itemsize == 4 else
                       "4-byte words of each long row interleaved by byte permutes in registers")
                return Choice("tall-perm" if tall else "wide-perm", itemsize, SKINNYPERM,
                              perm_expression(itemsize, short, tall), PERM_THREADS,
                              f"{short} {side}: {how}, the packed side moved as 16-byte vectors")
            if tallwords_applies(itemsize, short, long, tall):
                return Choice("tall-words", itemsize, TALLWORDS, tallwords_expression(itemsize, short), TW_THREADS,
                              f"{short} columns: copied into shared memory by cp.async, 4-byte words interleaved "
                              "by byte permutes into staged output rows, every output sector written whole")
            if skinnytile_applies(itemsize, short, long, tall, even):
                words, rows16 = words_form(itemsize, short, long, tall)
                rlog, gp, smem = skinnytile_geometry(itemsize, short, tall, words, rows16)
                side = "columns" if tall else "rows"
                how = f", shared words of {4 // itemsize} {side}" if words else ""
                copy = ("input copied in by cp.async, 16-byte stores" if words and words_async(itemsize, short)
                        else "16-byte accesses on both sides")
                return Choice("tall-tile" if tall else "wide-tile", itemsize, SKINNYTILE,
                              skinnytile_expression(itemsize, tall, words, short, aligned=rows16), SKINNYTILE_THREADS,
                              f"{short} {side}: padded shared tile of {skinnytile_vectors(rlog, words, rows16)} "
                              f"vectors per long row ({smem} bytes{how}), {copy}")
    if lay.dense and aligned:
        if cols <= SKINNY_MAX and (batch == 1 or rows % ve == 0):
            return Choice("tall", itemsize, SKINNY, skinny_expression(itemsize, cols, True),
                          skinny_threads(cols), f"{cols} columns: one thread per 16-byte piece of each output row")
        if rows <= SKINNY_MAX and (batch == 1 or cols % ve == 0):
            return Choice("wide", itemsize, SKINNY, skinny_expression(itemsize, rows, False),
                          skinny_threads(rows), f"{rows} rows: one thread per 16-byte piece of each input row")
        if rows % ve == 0 and cols % ve == 0 and itemsize != 16:  # 16 bytes: tileWhole (below)
            cfg = tuple((plan or {}).get(itemsize) or DEFAULT_PLAN[itemsize])
            if cfg not in TILE_CANDIDATES[itemsize]:
                raise ValueError(f"plan names tile {cfg} for {itemsize}-byte elements, not one of "
                                 f"{TILE_CANDIDATES[itemsize]}")
            src = "plan" if plan and itemsize in plan else "built-in default"
            return Choice("tile", itemsize, ANY, tile_expression(itemsize, cfg), cfg[2],
                          f"{cfg[0]}x{cfg[1]} tile, {cfg[2]} threads ({src})")
    nbytes = batch * rows * cols * itemsize
    kind, cfg = misaligned_choice(itemsize, plan, nbytes)
    # the input's rows on 16-byte boundaries (only the output's off them): the no-shift word tile
    aligned_in = (kind == "words" and x_aligned and lay.rs * itemsize % 16 == 0
                  and (batch == 1 or lay.bstride * itemsize % 16 == 0))
    if aligned_in:
        cfg = WORDS_ALIGNED_IN[itemsize]
        if (itemsize in WORDS_ALIGNED_IN_32 and x_sector and lay.rs * itemsize % 32 == 0
                and (batch == 1 or lay.bstride * itemsize % 32 == 0)):
            cfg = WORDS_ALIGNED_IN_32[itemsize]
    kernel, source = MISALIGNED_KERNELS[kind]
    why = ("pointers not 16-byte aligned" if not aligned else f"row pitch {lay.rs} (a slice)" if lay.rs != cols
           else "16-byte elements, output sectors written whole" if itemsize == 16
           else f"rows or columns not a multiple of {ve}")
    how = {"align": "rows realigned to 16-byte vectors", "scalar": "element by element",
           "stage": "16-byte loads staged as read, element stores",
           "sector": "realigned 16-byte loads, whole 32-byte sectors stored",
           "whole": "element loads, whole 32-byte sectors stored",
           "words": "4-byte word loads, whole 32-byte sectors stored"}[kind]
    if aligned_in:
        how = "word loads of aligned input rows (no shift), whole 32-byte sectors stored"
    small = misaligned_small(itemsize, nbytes)
    src = ("built-in for aligned input rows" if aligned_in
           else f"built-in for calls under {MISALIGNED_SMALL[itemsize][0] >> 20} MiB" if small
           else "plan" if plan and ("misaligned", itemsize) in plan else "built-in default")
    return Choice(kind, itemsize, source, tile_expression(itemsize, cfg, kernel), cfg[2],
                  f"{why}: {how}, {cfg[0]}x{cfg[1]} tile ({src})")


def tile_shape(choice: Choice) -> tuple[int, int]:
    m = re.fullmatch(r"(?:tileAny|tileAlign|tileScalar|tileStage|tileSector|tileWhole|tileWholeWords|stridedTile)"
                     r"<\d+,(\d+),(\d+),\d+(?:,\d+)?>", choice.expression)
    if not m:
        raise ValueError(f"not a tile choice: {choice.label}")
    return int(m[1]), int(m[2])


ALIGN_RUN_MAX = 16  # consecutive tiles a tileAlign block walks (clipped stores only at run ends)


def align_runs(tiles: int, sms: int, waves: int = 4) -> tuple[int, int]:
    """(tiles per run, blocks) for tileAlign: runs as long as possible (up to ALIGN_RUN_MAX) while
    leaving about `waves` blocks per multiprocessor."""
    run = max(1, min(ALIGN_RUN_MAX, tiles // max(1, sms * waves)))
    return run, min(cdiv(tiles, run), MAX_BLOCKS)


def skinny_runs(chunks: int, threads: int, sms: int) -> tuple[int, int]:
    """(groups of 32 chunks per warp run, blocks) for the skinny kernels: one group per warp,
    as many warps as there are groups. Longer runs save clipped stores but starve the GPU of
    warps: measured on the H200, the parallelism is worth more."""
    groups, warps = cdiv(chunks, 32), threads // 32
    return 1, max(1, min(cdiv(groups, warps), MAX_BLOCKS))


def launch_geometry(choice: Choice, batch: int, rows: int, cols: int, sms: int = 132) -> tuple[int, int]:
    """(blocks, threads) for a kernel choice; the kernels stride over work past MAX_BLOCKS."""
    if choice.kind == "sector":
        w, tc = tile_shape(choice)
        strips = batch * cdiv(cols, tc)
        return min(strips * sector_chunk(rows, strips, w, sms)[1], MAX_BLOCKS), choice.threads
    if choice.kind in ("tile", "align", "scalar", "stage", "strided-tile", "whole", "words"):
        tr, tc = tile_shape(choice)
        work = batch * cdiv(rows, tr) * cdiv(cols, tc)
        return min(work, MAX_BLOCKS), choice.threads
    if choice.kind in ("tall", "wide"):
        n = rows if choice.kind == "tall" else cols
        return skinny_runs(batch * cdiv(n, 16 // choice.itemsize), choice.threads, sms)[1], choice.threads
    if choice.kind in ("tall-tile", "wide-tile"):
        tall = choice.kind == "tall-tile"
        short, n = (cols, rows) if tall else (rows, cols)
        # about n*E/512: below 2^31 for any array
        blocks = skinnytile_tiles(choice.itemsize, short, n, tall, is_words(choice), words_aligned(choice))
        if blocks > MAX_BLOCKS:
            raise ValueError(f"{short} x {n}: {blocks} tiles, over the grid limit")
        return blocks, choice.threads
    if choice.kind in ("tall-perm", "wide-perm"):  # the last block takes the rest: no striding
        tall = choice.kind == "tall-perm"
        short, n = (cols, rows) if tall else (rows, cols)
        blocks = perm_blocks(choice.itemsize, short, n, tall)  # about n*E/1024
        if blocks > MAX_BLOCKS:
            raise ValueError(f"{short} x {n}: {blocks} blocks, over the grid limit")
        return blocks, choice.threads
    if choice.kind == "wide-elems":  # one matrix, one element a thread (U = 1), no striding
        if batch != 1 or not choice.expression.endswith(",1,false>"):
            raise ValueError(f"{choice.expression}: one matrix, one element a thread")
        blocks = cdiv(rows * cols, choice.threads)
        if blocks > MAX_BLOCKS:
            raise ValueError(f"{rows} x {cols}: {blocks} blocks, over the grid limit")
        return blocks, choice.threads
    if choice.kind in ("tall-words", "wide-words"):  # one matrix, one tile of W positions a block, no striding
        tall = choice.kind == "tall-words"
        _, short, positions = (tallwords_shape(choice) if tall else widewords_shape(choice))[:3]
        if batch != 1 or (cols if tall else rows) != short:
            raise ValueError(f"{choice.expression}: one matrix of {short} {'columns' if tall else 'rows'}")
        blocks = cdiv(rows if tall else cols, positions)
        if blocks > MAX_BLOCKS:
            raise ValueError(f"{rows} x {cols}: {blocks} blocks, over the grid limit")
        return blocks, choice.threads
    if choice.kind == "flip":
        tr, tc, _ = pitched_tile(choice.itemsize, choice.expression.startswith("pitchedVec"))
        return min(cdiv(rows, tr) * cdiv(cols, tc), MAX_BLOCKS), choice.threads
    if choice.kind == "strided":
        return min(cdiv(batch * rows * cols, choice.threads), 65536 * 8), choice.threads
    if choice.kind == "copy2d":  # rows of the copy: x's columns (all batches); 4 vectors per thread
        return min(cdiv(batch * cols * cdiv(rows * choice.itemsize, 16), 4 * choice.threads), 65536 * 8), \
            choice.threads
    raise ValueError(f"{choice.kind} launches no kernel")


# --- plan files --------------------------------------------------------------------------

def plan_dir() -> Path:
    return Path(os.environ.get("BWLAB_PLANS", Path.home() / ".cache" / "bwlab" / "plans"))


def plan_path(gpu_name: str) -> Path:
    slug = re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-") or "gpu"
    return plan_dir() / f"{slug}.json"


def plan_document(gpu_name: str, plan: dict, measurements: list[dict]) -> dict:
    """plan: element size -> tile (tileAny); ("misaligned", element size) -> (kind, tile): the
    kernel and tile of rows not on 16-byte boundaries, and of every 16-byte matrix."""
    tiles = {str(k): list(v) for k, v in sorted((k, v) for k, v in plan.items() if isinstance(k, int))}
    mis = {str(k[1]): [v[0], *v[1]] for k, v in sorted((k, v) for k, v in plan.items() if isinstance(k, tuple))}
    return {"schema": PLAN_SCHEMA, "gpu": gpu_name, "tiles": tiles, "misaligned": mis, "measurements": measurements}


def parse_plan(doc: dict) -> dict:
    """The plan in a plan document; a clear error for anything else."""
    if doc.get("schema") not in (PLAN_SCHEMA, PLAN_SCHEMA_V1):
        raise ValueError(f"not a {PLAN_SCHEMA} document (schema {doc.get('schema')!r})")
    plan: dict = {}
    if doc["schema"] == PLAN_SCHEMA_V1:
        doc = {**doc, **{part: {k: v for k, v in doc.get(part, {}).items() if (part, k) not in V1_DROPPED}
                         for part in ("tiles", "misaligned")}}
    for key, cfg in doc.get("tiles", {}).items():
        e, cfg = int(key), tuple(int(v) for v in cfg)
        if e not in ITEMSIZES or cfg not in TILE_CANDIDATES[e]:
            raise ValueError(f"plan entry {key}: {cfg} is not a known tile for {key}-byte elements")
        plan[e] = cfg
    for key, entry in doc.get("misaligned", {}).items():
        e, kind, cfg = int(key), entry[0], tuple(int(v) for v in entry[1:])
        if e not in ITEMSIZES or (kind, cfg) not in misaligned_candidates(e):
            raise ValueError(f"plan entry misaligned {key}: {entry} is not a known kernel and tile")
        plan[("misaligned", e)] = (kind, cfg)
    return plan


def load_plan(gpu_name: str) -> Optional[dict]:
    """This GPU model's plan if `bwlab tune transpose` stored one (None otherwise)."""
    path = plan_path(gpu_name)
    if not path.is_file():
        return None
    try:
        return parse_plan(json.loads(path.read_text()))
    except (ValueError, json.JSONDecodeError, TypeError, IndexError) as exc:
        raise ValueError(f"plan file {path} is unreadable ({exc}); delete it or run `bwlab tune transpose` again") from None
