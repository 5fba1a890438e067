"""The matmul's default cases (ladder, bench, sweeps) and the bench's goals."""
from __future__ import annotations

from ...core.workload import Case
from .peers import CUBLAS

LADDER_CASE = Case((4096, 4096, 4096), "float32")
SQUARE = (1024, 2048, 4096, 8192)
NON_SQUARE = ((8192, 8192, 1024), (1024, 1024, 32768))
SUITES = ("main",)
GOALS = {2048: 80.0, 4096: 90.0, 8192: 90.0}  # square size -> % of cuBLAS SGEMM the best kernel must reach
GOAL_NOTE = ("goals: bwlab's best kernel at least 90% of cuBLAS SGEMM (TF32 off) at 4096 and 8192 square, "
             "at least 80% at 2048; the ratio is reported at the other shapes")


def bench_cases(suite: str = "main", all_dtypes: bool = False) -> list[Case]:
    if suite != "main":
        raise ValueError(f"suite must be one of {', '.join(SUITES)}, got {suite!r}")
    return [Case((n, n, n), "float32") for n in SQUARE] + [Case(s, "float32") for s in NON_SQUARE]


def cublas_gflops(records) -> tuple[str, float] | None:
    for name in CUBLAS:
        r = next((r for r in records if r.name == name and r.gflops and r.correct), None)
        if r is not None:
            return name, r.gflops
    return None


def ratio(records) -> float | None:
    """bwlab's GFLOP/s as % of cuBLAS SGEMM's, or None."""
    api = next((r for r in records if r.name == "bwlab" and r.gflops and r.correct), None)
    ref = cublas_gflops(records)
    return 100 * api.gflops / ref[1] if api and ref else None


def goals(case: Case, records) -> list[str]:
    m, n, k = case.shape
    want = GOALS.get(m) if m == n == k else None
    if want is None:
        return []
    api = next((r for r in records if r.name == "bwlab"), None)
    if api is None or not api.gflops or not api.correct:
        return ["bwlab's kernel was not timed (wrong or skipped)"]
    ref = cublas_gflops(records)
    if ref is None:
        return ["no cuBLAS SGEMM peer was timed: the goal cannot be evaluated"]
    pct = 100 * api.gflops / ref[1]
    return [f"{pct:.1f}% of cuBLAS SGEMM ({ref[0]}) < {want:g}%"] if pct < want else []
