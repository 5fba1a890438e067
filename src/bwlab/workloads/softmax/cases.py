"""The softmax's cases: the two ladder cases (a strided axis and the last axis), the bench
suites, and the bench's goals, evaluated per case with the reason for every miss."""
from __future__ import annotations

import math

from ...core.workload import Case

STRIDED = Case((16, 8192, 1024), "float32", (("dim", 1),))
LAST = Case((32768, 4096), "float32", (("dim", -1),))
# (shape, dim): the shapes torch is known to be slow or fast on, a short reduced axis, very
# many short rows, very long rows, and a strided axis too long for a cluster to hold.
SHAPES = (((16, 8192, 1024), 1), ((8192, 8192), 0), ((128, 1024, 1024), 2), ((32768, 4096), -1),
          ((1024, 131072), -1), ((8192, 16, 1024), 1), ((4194304, 32), -1), ((4096, 262144), -1),
          ((64, 4194304), -1), ((4, 32768, 1024), 1))
BACKWARD_SHAPES = (((16, 8192, 1024), 1), ((8192, 8192), 0), ((32768, 4096), -1), ((1024, 131072), -1),
                   ((4194304, 32), -1), ((4096, 262144), -1), ((4, 32768, 1024), 1))
SMALL_SHAPES = (((1024, 1024), -1), ((256, 64, 64), 1), ((4096, 128), -1))  # cache-resident (<= 4 MiB)
DTYPES = ("float32", "bfloat16")
SUITES = ("main", "log", "backward", "log-backward", "small")
GOAL_BYTES = 256 << 20
GOAL_NOTE = ("goals, inputs of at least 256 MiB: forward and log-softmax at least 90% of cudaMemcpy on the last "
             "axis and 85% on a strided axis, backward 80%; never slower than torch eager or torch.compile")


def is_last(case: Case) -> bool:
    dim = case.param("dim", -1)
    return dim == -1 or dim == len(case.shape) - 1 or all(n == 1 for n in case.shape[dim + 1:])


def shape_class(case: Case) -> str:
    if case.param("class"):
        return case.param("class")
    op = "log-softmax" if case.param("log") else "softmax"
    if case.param("op") == "backward":
        op = "log-softmax backward" if case.param("log") else "backward"
    return f"{op}, {'last axis' if is_last(case) else 'strided axis'}"


def bench_cases(suite: str = "main", all_dtypes: bool = False) -> list[Case]:
    dtypes = ("float32", "float16", "bfloat16") if all_dtypes else DTYPES
    if suite == "main":
        return [Case(s, d, (("dim", dim),)) for s, dim in SHAPES for d in dtypes]
    if suite == "log":
        return [Case(s, d, (("dim", dim), ("log", True))) for s, dim in SHAPES for d in dtypes]
    if suite == "backward":
        return [Case(s, d, (("dim", dim), ("op", "backward"))) for s, dim in BACKWARD_SHAPES for d in dtypes]
    if suite == "log-backward":  # the gradient of log-softmax (cross-entropy's), on the same shapes
        return [Case(s, d, (("dim", dim), ("log", True), ("op", "backward"))) for s, dim in BACKWARD_SHAPES
                for d in dtypes]
    if suite == "small":
        return [Case(s, d, (("dim", dim), ("class", "cache-resident (<= 4 MiB, not a DRAM figure)")))
                for s, dim in SMALL_SHAPES for d in dtypes]
    if suite == "all":
        return [c for s in SUITES for c in bench_cases(s, all_dtypes)]
    raise ValueError(f"unknown suite {suite!r}; known: {', '.join(SUITES + ('all',))}")


def pct_below(pct: float, want: float) -> str:
    """A percentage under `want`, never printed as `want` itself (84.96 is "84.9", not "85")."""
    if round(pct) < want:
        return f"{pct:.0f}"
    return f"{math.floor(pct * 10) / 10:.1f}"


def goals(case: Case, records, nbytes: int) -> list[str]:
    """One line per goal this case misses."""
    if nbytes // 2 < GOAL_BYTES or case.param("class"):
        return []
    by = {r.name: r for r in records}
    api = by.get("bwlab")
    if api is None or not api.gbs:
        return ["bwlab: no result"]
    misses = []
    backward = case.param("op") == "backward"
    want = 80.0 if backward else 90.0 if is_last(case) else 85.0
    if api.pct_memcpy is not None and api.pct_memcpy < want:
        misses.append(f"{pct_below(api.pct_memcpy, want)}% of cudaMemcpy, below {want:.0f}%")
    for peer in ("torch", "torch.compile"):
        r = by.get(peer)
        if r is not None and r.gbs and r.gbs > api.gbs:
            misses.append(f"slower than {peer} ({api.gbs:.0f} vs {r.gbs:.0f} GB/s)")
    return misses
