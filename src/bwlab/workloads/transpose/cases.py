"""The transpose's default cases (ladder, bench, sweeps) and the bench's goals, evaluated per
case with the reason for every miss."""
from __future__ import annotations

from ...core.workload import Case
from .reference import ALL_DTYPES, ITEMSIZE

LADDER_CASE = Case((16384, 16384), "float32")
BENCH_SHAPES: tuple[tuple[int, ...], ...] = (
    (16384, 16384), (16381, 16387), (8192, 32768), (32768, 8192), (10_000_000, 3), (3, 10_000_000),
    (64, 4_194_304), (256, 4096, 4096), (1024, 1024))
BENCH_DTYPES = ("uint8", "float16", "float32", "float64", "complex128")  # one per element size
GOAL_BYTES = 256 << 20  # goals apply from this input size up
GOAL_NOTE = ("goals, inputs of at least 256 MiB: 95% of cudaMemcpy for 4- to 16-byte elements, 90% for 1- and "
             "2-byte; 3x torch and CuPy; never slower than cuBLAS geam or Triton")


def goal_pct(itemsize: int) -> float:
    return 90.0 if itemsize <= 2 else 95.0


def bench_cases(all_dtypes: bool = False, shapes=BENCH_SHAPES) -> list[Case]:
    return [Case(tuple(s), d) for s in shapes for d in (ALL_DTYPES if all_dtypes else BENCH_DTYPES)]


def goals(case: Case, records) -> list[str]:
    """One line per goal missed by the API in this case (none below GOAL_BYTES)."""
    by = {r.name: r for r in records}
    bw = by.get("bwlab")
    if not bw or bw.bytes // 2 < GOAL_BYTES:
        return []
    if not bw.gbs:
        return [f"bwlab not measured: {'; '.join(bw.notes) or bw.check}"]
    misses = []
    want = goal_pct(ITEMSIZE[case.dtype])
    if bw.pct_memcpy is not None and bw.pct_memcpy < want:
        misses.append(f"{bw.pct_memcpy:.1f}% of memcpy < {want:.0f}%")
    memcpy = by["cudaMemcpy"].gbs if "cudaMemcpy" in by else None
    for name in ("torch", "cupy"):
        p = by.get(name)
        if p and p.gbs and bw.gbs < 3 * p.gbs:
            line = f"only {bw.gbs / p.gbs:.2f}x {name} (goal 3x)"
            if memcpy and 3 * p.gbs > memcpy:
                line += f"; unreachable: 3x {name} = {3 * p.gbs:.0f} GB/s is above cudaMemcpy ({memcpy:.0f})"
            misses.append(line)
    for name in ("cublas.geam", "triton"):
        p = by.get(name)
        if p and p.gbs and bw.gbs < p.gbs:
            misses.append(f"slower than {name} ({bw.gbs:.0f} < {p.gbs:.0f} GB/s)")
    return misses


def why_missed(case: Case, kernel: str) -> str:
    """What ran at this shape (kernel: explain()'s text), and the known cause of a miss."""
    rows, cols = case.shape[-2:]
    ve = 16 // ITEMSIZE[case.dtype]
    if kernel.startswith("tileScalar"):
        return (f"{rows}x{cols} is not a multiple of {ve} elements (16 bytes) on both sides: rows are "
                f"misaligned for 16-byte vectors, so the element-by-element tile runs ({kernel.split(':')[0]})")
    if kernel.startswith("tileAny"):
        tr = int(kernel.split(",")[1])
        if rows < tr:
            return f"{rows} rows fill {rows}/{tr} of each {tr}-row tile: the rest of the block idles ({kernel.split(':')[0]})"
    return kernel
