"""Which kernel bwlab.permute() runs. Pure logic, no GPU.

A permutation is first reduced to its essentials: axes of extent 1 are dropped, and output
axes that are also adjacent, in the same order, in the input's memory are merged into one
(a permutation of rank 6 is often a transpose of rank 2 underneath). What is left decides:
  - one axis, contiguous in the input: a plain copy;
  - the output's fastest axis is also the input's (a run of contiguous input elements per
    output row): a gather of whole rows, in 16-byte vectors where alignment allows; a row of
    2 to 16 bytes is instead packed into one wider element and the rest planned again;
  - a batched swap of two merged axes of a dense-enough input: bwlab.transpose's own kernels
    (its tuned tiles, its short-side and misaligned-row paths);
  - any other pair of fastest axes: a tile transpose between them, with the remaining axes as
    a batch of arbitrary strides (16-byte vectors where alignment allows, else elements);
  - anything beyond (no unit-stride input axis, too many axes, over 2^31 vectors for the row
    gather): element by element.
"""
from __future__ import annotations

import math
import operator
import struct
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from ...core.launch import cdiv
from ..transpose import plans as tplans

KERNELS_DIR = Path(__file__).parent / "kernels"
GATHER, ROWS = KERNELS_DIR / "gather.cu", KERNELS_DIR / "rowgather.cu"
BATCHED = tplans.KERNELS_DIR / "batched.cu"

ITEMSIZES = tplans.ITEMSIZES
MAX_RANK = 8          # gatherElems's axes (after merging)
ROWS_MAX_OUTER = 7    # gatherRows's outer axes
BATCH_MAX = 6         # tileBatched's batch axes
ROWS_UNROLL = 4
THREADS = 256
INT31 = 2**31

# tileBatched configurations per element size (rows x cols of the tile, threads; legal for
# tile_vec), the large default first, then smaller tiles for short axes.
VEC_TILES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((128, 256, 512), (128, 128, 256)),
    2: ((64, 128, 256), (64, 64, 128)),
    4: ((64, 64, 256), (32, 64, 256), (32, 32, 128)),
    8: ((64, 32, 256), (32, 32, 256), (16, 16, 64)),
    16: ((32, 32, 256), (16, 32, 128), (16, 8, 64)),
}
# tileFolded's configurations: smaller tiles or fewer threads than tileBatched's, so more tiles
# are in flight per SM. The folded runs are short (two 128-byte rows, say, 4 MiB apart). On the
# H200, in a sweep forcing each tile, the first of each list took the reversals of
# 32x32x32x32x32 and 16x16x16x16x16x16 float32 from 86% and 85% of memcpy to 90% (64x64 tiles
# of 128 threads, not 256), 16^6 float64 from 87% to 93% (32x32 tiles, not 64x32) and 32^5
# uint8 from 86% to 93% (128x128, not 128x256); the bench that followed measured 89%, 91%,
# 91% and 87% (83-84% on the tiles before).
FOLDED_TILES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((128, 128, 256), (128, 256, 512)),
    2: VEC_TILES[2],
    4: ((64, 64, 128), (32, 64, 256), (32, 32, 128)),
    8: ((32, 32, 256), (16, 16, 64)),
    16: VEC_TILES[16],
}


def vec_tiles(e: int, folded: bool) -> tuple[tuple[int, int, int], ...]:
    return (FOLDED_TILES if folded else VEC_TILES)[e]


# tileRows (tiles of whole rows of W bytes): rows x cols of the tile, threads; runs of 1 KiB.
# Rows of 64 bytes only: on the H200 they lift such permutes from 81-84% to 94-98% of memcpy,
# while rows of 32 bytes in 32 x 32 tiles fell to 42% (16 x 16 x ... axes, tiles mostly empty).
ROW_TILES: dict[int, tuple[int, int, int]] = {64: (16, 16, 256)}
SCALAR_TILES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((64, 64, 256), (32, 32, 256)),
    2: ((64, 64, 256), (32, 32, 256)),
    4: ((64, 64, 256), (32, 32, 256)),
    8: ((64, 32, 256), (32, 32, 256)),
    16: ((32, 32, 256), (16, 16, 256)),
}


@dataclass(frozen=True)
class Axis:
    """One output axis after merging: extent, input stride and output stride (elements)."""
    n: int
    si: int
    so: int


def normalize_dims(dims, ndim: int) -> tuple[int, ...]:
    """The permutation as non-negative axes; ValueError unless it is one of range(ndim)."""
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"dims must be a tuple or list of axes, got {type(dims).__name__} {dims!r}")
    try:
        perm = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f"dims must be a sequence of integers, got {dims!r}") from None
    if len(perm) != ndim:
        raise ValueError(f"dims {perm} has {len(perm)} axes but x has {ndim}")
    if any(not -ndim <= d < ndim for d in perm):
        raise ValueError(f"dims {perm}: every axis must lie in [{-ndim}, {ndim - 1}] for {ndim}-D x")
    perm = tuple(d % ndim if ndim else d for d in perm)
    if len(set(perm)) != ndim:
        raise ValueError(f"dims {tuple(dims)} repeats an axis; it must name each of x's {ndim} axes once")
    return perm


def inverse(perm) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for k, p in enumerate(perm):
        inv[p] = k
    return tuple(inv)


def merged_axes(shape, strides, perm) -> list[Axis]:
    """The output's axes, outermost first, with extent-1 axes dropped and neighbours merged
    where the input holds them adjacent too."""
    out_shape = [shape[p] for p in perm]
    so, acc = [0] * len(perm), 1
    for k in range(len(perm) - 1, -1, -1):
        so[k], acc = acc, acc * out_shape[k]
    merged: list[Axis] = []
    for k, p in enumerate(perm):
        if shape[p] == 1:
            continue
        a = Axis(shape[p], strides[p], so[k])
        if merged and merged[-1].si == a.si * a.n:
            merged[-1] = Axis(merged[-1].n * a.n, a.si, a.so)
        else:
            merged.append(a)
    return merged


@dataclass(frozen=True)
class Choice:
    kind: str            # "empty" | "copy" | "transpose" | "tiles" | "scalar" | "rows" | "gather"
    itemsize: int        # the element size the kernel moves (packed rows: wider than x's)
    axes: tuple[Axis, ...] = ()  # in units of itemsize
    source: Optional[Path] = None
    expression: str = ""
    threads: int = THREADS
    reason: str = ""
    inner: Optional[tplans.Choice] = None  # kind "transpose": bwlab.transpose's choice
    layout: Optional[tplans.Layout] = None
    vector: int = 0      # kind "rows": bytes per access
    tiling: Optional["Tiling"] = None  # kind "tiles"

    @property
    def label(self) -> str:
        return self.expression or (self.inner.label if self.inner else self.kind)


def _pow2_dividing(*values: int, cap: int = 16) -> int:
    v = cap
    while v > 1 and any(x % v for x in values):
        v //= 2
    return v


def tile_waste(rows: int, cols: int, tr: int, tc: int) -> float:
    return cdiv(rows, tr) * tr * cdiv(cols, tc) * tc / (rows * cols)


def pick_tile(candidates, rows: int, cols: int) -> tuple[int, int, int]:
    """The candidate wasting the least of its tiles on these extents (the first on a tie)."""
    return min(candidates, key=lambda c: (round(tile_waste(rows, cols, c[0], c[1]), 2), candidates.index(c)))


def vec_expression(e: int, cfg, folded: bool = False) -> str:
    return "%s<%d,%d,%d,%d>" % ("tileFolded" if folded else "tileBatched", e, *cfg)


def scalar_expression(e: int, cfg) -> str:
    return "scalarBatched<%d,%d,%d,%d>" % (e, *cfg)


def row_tile_expression(w: int) -> str:
    return "tileRows<%d,%d,%d,%d>" % (w, *ROW_TILES[w])


def rows_expression(v: int) -> str:
    return f"gatherRows<{v},{ROWS_UNROLL}>"


def gather_expression(e: int) -> str:
    return f"gatherElems<{e}>"


def expressions() -> dict[Path, list[str]]:
    """Every instantiation bwlab.permute() may launch (bwlab.transpose's are registered by it)."""
    return {
        BATCHED: [vec_expression(e, c, f) for f in (False, True) for e in ITEMSIZES for c in vec_tiles(e, f)]
        + [scalar_expression(e, c) for e in ITEMSIZES for c in SCALAR_TILES[e]]
        + [row_tile_expression(w) for w in ROW_TILES],
        ROWS: [rows_expression(v) for v in ITEMSIZES],
        GATHER: [gather_expression(e) for e in ITEMSIZES],
    }


def gather_choice(e: int, axes, why: str) -> Choice:
    return Choice("gather", e, tuple(axes), GATHER, gather_expression(e), THREADS, f"{why}: element by element")


def choose(itemsize: int, axes: list[Axis], x_ptr: int, out_ptr: int, tuned: Optional[dict] = None) -> Choice:
    """The kernel for a permutation whose merged output axes are `axes` (strides in elements of
    itemsize bytes); x_ptr, out_ptr: the data pointers (their alignment matters)."""
    e = itemsize
    if any(a.n == 0 for a in axes):
        return Choice("empty", e, reason="nothing to move")
    if not axes or (len(axes) == 1 and axes[0].si == 1):
        return Choice("copy", e, tuple(axes), reason="the permutation keeps the memory order: one copy")
    last = axes[-1]
    if last.si == 1:  # the fastest axes agree
        w = last.n * e
        outer = axes[:-1]
        if w in (2, 4, 8, 16) and w > e and all(a.si % last.n == 0 for a in outer) \
                and x_ptr % w == 0 and out_ptr % w == 0:
            packed = [Axis(a.n, a.si // last.n, a.so // last.n) for a in outer]
            inner = choose(w, packed, x_ptr, out_ptr, tuned)
            return replace(inner, reason=f"rows of {w} bytes moved as one element; {inner.reason}")
        tiles = row_tile_choice(w, outer, last.n, x_ptr, out_ptr)
        if tiles is not None:
            return tiles
        v = _pow2_dividing(w, x_ptr, out_ptr, *(a.si * e for a in outer))
        if len(outer) <= ROWS_MAX_OUTER and last.n * e * math.prod(a.n for a in outer) // v < INT31:
            return Choice("rows", e, tuple(axes), ROWS, rows_expression(v), THREADS,
                          f"the input and output share their fastest axis: rows of {w} bytes gathered in "
                          f"{v}-byte pieces", vector=v)
        return gather_choice(e, axes, "over 2^31 row pieces" if len(outer) <= ROWS_MAX_OUTER else "too many axes")
    units = [k for k, a in enumerate(axes) if a.si == 1]
    if not units:
        return gather_choice(e, axes, "no input axis has unit stride")
    r, c = axes[units[-1]], last
    batch = [a for k, a in enumerate(axes) if k != units[-1] and k != len(axes) - 1]
    if units[-1] == len(axes) - 2 and len(batch) <= 1:  # a batched swap of two axes: bwlab.transpose
        b = batch[0] if batch else Axis(1, 0, 0)
        lay = tplans.Layout(b.n, c.n, r.n, c.si, 1, b.si)
        inner = tplans.choose(e, lay, tuned, x_ptr % 16 == 0, out_ptr % 16 == 0)
        if inner.kind != "strided":
            return Choice("transpose", e, tuple(axes), inner.source, inner.expression, inner.threads,
                          f"a batched swap of two axes: {inner.reason}", inner, lay)
    if len(batch) > BATCH_MAX:
        return gather_choice(e, axes, f"{len(batch)} batch axes (the tile kernels take {BATCH_MAX})")
    t = tiling(axes, units[-1], e)
    if t.vectors(e, x_ptr, out_ptr):
        return vec_choice(e, t)
    return scalar_choice(e, axes, units[-1])


def row_tile_choice(w: int, outer, n: int, x_ptr: int, out_ptr: int) -> Optional[Choice]:
    """Tiles of whole rows (w bytes, n elements each) between the input's and the output's
    fastest outer axes, when rows are short enough that gathering them one by one scatters
    the reads, and every row starts on a 16-byte boundary; None where that does not apply."""
    if w not in ROW_TILES or x_ptr % 16 or out_ptr % 16 or any(a.si % n for a in outer):
        return None
    rows = [Axis(a.n, a.si // n, a.so // n) for a in outer]  # strides in rows
    units = [k for k, a in enumerate(rows) if a.si == 1]
    if not units or units[-1] == len(rows) - 1 or len(rows) - 2 > BATCH_MAX:
        return None
    r, c = rows[units[-1]], rows[-1]
    tr, tc, threads = ROW_TILES[w]
    if r.n < tr or c.n < tc:  # a tile wider than the axes it spans would idle most of its threads
        return None
    batch = [a for k, a in enumerate(rows) if k not in (units[-1], len(rows) - 1)]
    return Choice("rowtiles", w, (*batch, c, r), BATCHED, row_tile_expression(w), threads,
                  f"the input and output share their fastest axis, rows of {w} bytes: {tr}x{tc} tiles of whole "
                  f"rows, {len(batch)} batch axes")


def vec_choice(e: int, t: "Tiling") -> Choice:
    cfg = pick_tile(vec_tiles(e, t.folded), t.rows, t.cols)
    folded = " (short axes folded with their neighbours)" if t.folded else ""
    return Choice("tiles", e, (), BATCHED, vec_expression(e, cfg, t.folded), cfg[2],
                  f"fastest axes differ: {cfg[0]}x{cfg[1]} tiles of 16-byte vectors{folded}, "
                  f"{len(t.batch)} batch axes", tiling=t)


def scalar_choice(e: int, axes, unit: int) -> Choice:
    r, c = axes[unit], axes[-1]
    batch = [a for k, a in enumerate(axes) if k not in (unit, len(axes) - 1)]
    cfg = pick_tile(SCALAR_TILES[e], c.n, r.n)
    return Choice("scalar", e, (*batch, c, r), BATCHED, scalar_expression(e, cfg), cfg[2],
                  f"fastest axes differ, not whole 16-byte vectors: {cfg[0]}x{cfg[1]} tiles element by element, "
                  f"{len(batch)} batch axes")


NO_FOLD = 62  # a shift beyond any index: the side is one axis
FOLD_BELOW = 256  # bytes: a fastest axis shorter than this folds in its neighbour (when it can)


@dataclass(frozen=True)
class Tiling:
    """tileBatched's view of a permutation: input rows run along the output's fastest axis (B,
    with the output's next axis folded in when B is short), input columns along the input's
    unit-stride axis (A, with the input's axis of stride A.n folded in when A is short). Row g
    starts at input offset rf(g), column g at output offset cf(g); rf, cf = (s1, s2, shift)."""
    rows: int
    cols: int
    rf: tuple[int, int, int]
    cf: tuple[int, int, int]
    batch: tuple[Axis, ...]

    @property
    def folded(self) -> bool:
        return self.rf[2] != NO_FOLD or self.cf[2] != NO_FOLD

    def vectors(self, e: int, x_ptr: int, out_ptr: int) -> bool:
        """Every access a whole, aligned 16-byte vector."""
        ve = 16 // e
        vals = (self.rows, self.cols, self.rf[0], self.rf[1], self.cf[0], self.cf[1],
                *(a.si for a in self.batch), *(a.so for a in self.batch))
        return x_ptr % 16 == 0 and out_ptr % 16 == 0 and all(v % ve == 0 for v in vals)


def _short_pow2(n: int, e: int) -> bool:
    return n * e < FOLD_BELOW and n & (n - 1) == 0


def tiling(axes, unit: int, e: int) -> Tiling:
    """The tiles between the input's unit-stride axis (axes[unit]) and the output's fastest."""
    last = len(axes) - 1
    a, b = axes[unit], axes[last]
    a2 = next((k for k, x in enumerate(axes) if x.si == a.n and k not in (unit, last)), None)
    if a2 is not None and not _short_pow2(a.n, e):
        a2 = None
    b2 = last - 1 if last - 1 not in (unit, a2) and _short_pow2(b.n, e) else None
    used = {unit, last, a2, b2}
    batch = tuple(x for k, x in enumerate(axes) if k not in used)
    rows = b.n * (axes[b2].n if b2 is not None else 1)
    cols = a.n * (axes[a2].n if a2 is not None else 1)
    rf = (b.si, axes[b2].si, b.n.bit_length() - 1) if b2 is not None else (b.si, 0, NO_FOLD)
    cf = (a.so, axes[a2].so, a.n.bit_length() - 1) if a2 is not None else (a.so, 0, NO_FOLD)
    return Tiling(rows, cols, rf, cf, batch)


def tile_of(choice: Choice) -> tuple[int, int]:
    tr, tc = choice.expression[choice.expression.index("<") + 1:-1].split(",")[1:3]
    return int(tr), int(tc)


# --- kernel arguments (packed structs passed by value) -------------------------------------

def fast_div(d: int) -> tuple[int, int, int]:
    """(d, m, s) with n // d == (n * m) >> (32 + s) for 0 <= n < 2^31 (d == 1: the kernel skips it)."""
    if not 1 <= d < INT31:
        raise ValueError(f"divisor {d} out of range")
    if d == 1:
        return 1, 0, 0
    p = 31 + (d - 1).bit_length()
    return d, ((1 << p) + d - 1) // d, p - 32


def fold_struct(f: tuple[int, int, int]) -> bytes:
    """tileBatched's Fold: i64 s1, s2; int shift (padded to 24 bytes)."""
    return struct.pack("<qqi4x", *f)


def batch_struct(batch, dims: int = BATCH_MAX) -> bytes:
    """tileBatched's BatchDims: extents, input strides, output strides (i64[dims] each)."""
    pad = [Axis(1, 0, 0)] * (dims - len(batch))
    full = list(batch) + pad
    return struct.pack(f"<{3 * dims}q", *[a.n for a in full], *[a.si for a in full], *[a.so for a in full])


def gather_struct(axes, dims: int = MAX_RANK) -> bytes:
    full = list(axes) + [Axis(1, 0, 0)] * (dims - len(axes))
    return struct.pack(f"<{2 * dims}q", *[a.n for a in full], *[a.si for a in full])


def rows_struct(outer, itemsize: int, dims: int = ROWS_MAX_OUTER) -> bytes:
    """gatherRows's RowDims: FastDiv n[dims] (12 bytes each, padded to 8), then i64 byte strides."""
    full = list(outer) + [Axis(1, 0, 0)] * (dims - len(outer))
    divs = b"".join(struct.pack("<3I", *fast_div(a.n)) for a in full)
    divs += b"\0" * (-len(divs) % 8)
    return divs + struct.pack(f"<{dims}q", *[a.si * itemsize for a in full])
