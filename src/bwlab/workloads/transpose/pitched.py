"""The transpose between pitched matrices at raw device pointers (kernels/pitched.cu), on a grid
the caller may cap: the local step of bwlab.distributed.transpose. The caller owns the memory
it names; nothing here checks more than which kernel the alignment allows."""
from __future__ import annotations

from typing import Optional

from ...core import launch as core_launch
from ...core.arrays import on_device
from . import plans

core_launch.register(plans.PITCHED, plans.expressions()[plans.PITCHED])

_launches: dict[tuple, core_launch.PackedLaunch] = {}
_KEEP = 512   # launches kept packed (one per shape, pitch and grid met)


def vectorized(itemsize: int, rows: int, cols: int, ldi: int, ldo: int, src: int, dst: int) -> bool:
    """Whether pitchedVec applies: 16-byte aligned pointers, and extents and pitches in whole vectors."""
    ve = 16 // itemsize
    return src % 16 == 0 and dst % 16 == 0 and all(n % ve == 0 for n in (rows, cols, ldi, ldo))


def transpose_pitched(src: int, ldi: int, dst: int, ldo: int, rows: int, cols: int, itemsize: int,
                      device: int, stream: int, blocks: Optional[int] = None) -> None:
    """dst[j * ldo + i] = src[i * ldi + j] for i < rows, j < cols (elements of itemsize bytes,
    pitches in elements), on `stream`; at most `blocks` blocks (default: one per tile)."""
    if rows <= 0 or cols <= 0:
        return
    vec = vectorized(itemsize, rows, cols, ldi, ldo, src, dst)
    tr, tc, threads = plans.pitched_tile(itemsize, vec)
    grid = min(plans.cdiv(rows, tr) * plans.cdiv(cols, tc), blocks or plans.MAX_BLOCKS, plans.MAX_BLOCKS)
    key = (itemsize, vec, rows, cols, ldi, ldo, grid, device)
    packed = _launches.get(key)
    if packed is None:
        if len(_launches) >= _KEEP:
            _launches.clear()
        fn = core_launch.function(plans.PITCHED, plans.pitched_expression(itemsize, vec), device=device)
        packed = _launches[key] = core_launch.PackedLaunch(
            fn, (grid, 1, 1), (threads, 1, 1),
            [("ptr", 0), ("ptr", 0), ("i64", rows), ("i64", cols), ("i64", ldi), ("i64", ldo)])
    on_device(device, lambda s, d, st: packed(st, s, d), src, dst, stream)
