"""The permutation's cases (ladder, bench) and the bench's goals, evaluated per case with the
reason for every miss."""
from __future__ import annotations

from ...core.workload import Case

LADDER_CASE = Case((64, 128, 128, 64), "float32", (("dims", (3, 2, 1, 0)),))
# (shape, permutation): the five shapes torch is known for, then common layouts of rank 2 to 6.
SHAPES: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((64, 128, 128, 64), (0, 2, 1, 3)),      # attention heads
    ((64, 128, 128, 64), (3, 2, 1, 0)),      # full reversal
    ((256, 256, 256, 16), (3, 0, 1, 2)),     # a short fastest axis moved outermost
    ((32, 32, 32, 32, 32), (4, 3, 2, 1, 0)),  # full reversal, rank 5
    ((1024, 1024, 64), (1, 0, 2)),            # swap of two outer axes
    ((8192, 8192), (1, 0)),                   # rank 2
    ((64, 256, 56, 56), (0, 2, 3, 1)),        # NCHW -> NHWC
    ((64, 56, 56, 256), (0, 3, 1, 2)),        # NHWC -> NCHW
    ((128, 64, 64, 64), (2, 0, 3, 1)),        # a general rank-4 shuffle
    ((16, 16, 16, 16, 16, 16), (5, 4, 3, 2, 1, 0)),  # full reversal, rank 6
    ((16, 16, 16, 16, 16, 16), (0, 2, 4, 1, 3, 5)),  # interleave, rank 6
)
DTYPES = ("uint8", "float16", "float32", "float64")  # 1, 2, 4 and 8 bytes
SUITES = ("main",)
GOAL_BYTES = 64 << 20
GOAL_PCT = 85.0
REVERSAL_X_TORCH = 10.0
GOAL_NOTE = ("goals, inputs of at least 64 MiB: at least 85% of cudaMemcpy, never slower than torch, "
             "at least 10x torch on full reversals")


def is_reversal(case: Case) -> bool:
    dims = case.param("dims")
    return len(dims) > 2 and tuple(dims) == tuple(range(len(dims) - 1, -1, -1))


def shape_class(case: Case) -> str:
    return f"rank {len(case.shape)}" + (", full reversal" if is_reversal(case) else "")


def bench_cases(suite: str = "main", all_dtypes: bool = False) -> list[Case]:
    if suite != "main":
        raise ValueError(f"suite must be one of {', '.join(SUITES)}, got {suite!r}")
    return [Case(s, d, (("dims", p),)) for s, p in SHAPES for d in DTYPES]


def goals(case: Case, records) -> list[str]:
    """One line per goal missed by the API in this case."""
    by = {r.name: r for r in records}
    bw = by.get("bwlab")
    if not bw:
        return []
    if not bw.gbs:
        return [f"bwlab not measured: {'; '.join(bw.notes) or bw.check}"]
    if bw.bytes // 2 < GOAL_BYTES:
        return []
    misses = []
    if bw.pct_memcpy is not None and bw.pct_memcpy < GOAL_PCT:
        misses.append(f"{bw.pct_memcpy:.1f}% of memcpy < {GOAL_PCT:.0f}%")
    t = by.get("torch")
    if t and t.gbs and t.moved:  # a view moved nothing: not compared
        if bw.gbs < t.gbs:
            misses.append(f"slower than torch ({bw.gbs:.0f} < {t.gbs:.0f} GB/s)")
        if is_reversal(case) and bw.gbs < REVERSAL_X_TORCH * t.gbs:
            misses.append(f"{bw.gbs / t.gbs:.1f}x torch on a full reversal < {REVERSAL_X_TORCH:.0f}x")
    return misses
