"""Timing: CUDA events around each repetition, warm-up first, robust statistics.

Effective bandwidth = (bytes read + bytes written) / time, in GB/s (10^9 bytes/s).
"""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Callable, Optional

CV_FLAG = 0.03  # a coefficient of variation above this is flagged in tables, not hidden
# Warm-up lasts at least this long on the GPU. Handing a large memory pool back to the driver and
# allocating again left copies on the H200 about 11% slower for the next 5-6 ms (after about 2.5 GiB
# freed); a few warm-up calls did not cover it, and the bench's cudaMemcpy ceiling then read low.
WARMUP_MS = 30.0
WARMUP_CAP = 1000  # calls at most, however short


@dataclass
class Timing:
    median_ms: float
    mean_ms: float
    std_ms: float
    min_ms: float
    reps: int

    @property
    def cv(self) -> float:
        return self.std_ms / self.mean_ms if self.mean_ms > 0 else 0.0

    @property
    def noisy(self) -> bool:
        return self.cv > CV_FLAG

    def to_dict(self) -> dict:
        return asdict(self)


def stats(samples_ms: list[float]) -> Timing:
    if not samples_ms:
        raise ValueError("no timing samples")
    std = statistics.stdev(samples_ms) if len(samples_ms) > 1 else 0.0
    return Timing(statistics.median(samples_ms), statistics.fmean(samples_ms), std,
                  min(samples_ms), len(samples_ms))


def gbs(nbytes: int, ms: float) -> float:
    """Effective bandwidth in GB/s for nbytes moved (read + written) in ms."""
    return nbytes / (ms * 1e-3) / 1e9 if ms > 0 else float("inf")


def needs_flush(working_set_bytes: int, l2_bytes: int) -> bool:
    """Below 4x L2, repetitions would partly run out of cache: flush between them."""
    return working_set_bytes < 4 * l2_bytes


class L2Flusher:
    """Reads and writes a buffer twice the L2 size, evicting whatever a kernel left there."""

    def __init__(self, l2_bytes: int):
        import cupy

        self.buf = cupy.zeros(max(1, 2 * l2_bytes // 4), dtype=cupy.int32)

    def __call__(self) -> None:
        self.buf += 1


def extra_warmup_calls(one_ms: float, warmup_ms: float = WARMUP_MS, cap: int = WARMUP_CAP) -> int:
    """Calls to add, after one call of one_ms, so that warm-up lasts warmup_ms (at most cap)."""
    if warmup_ms <= 0:
        return 0
    if one_ms <= 0:
        return cap
    return min(cap, max(0, math.ceil(warmup_ms / one_ms) - 1))


def time_gpu(fn: Callable[[], object], *, warmup: int = 3, reps: int = 100,
             flush: Optional[Callable[[], None]] = None) -> Timing:
    """Median-friendly timing of fn() on the current CuPy stream: one event pair per
    repetition, so a flush between repetitions stays outside the timed region. Warm-up is
    `warmup` calls, then as many more as make it last WARMUP_MS of GPU time (none when warmup is 0)."""
    import cupy

    if reps < 1:
        raise ValueError("reps must be at least 1")
    stream = cupy.cuda.get_current_stream()
    for _ in range(max(0, warmup)):
        fn()
    if warmup > 0:
        a, b = cupy.cuda.Event(), cupy.cuda.Event()
        a.record(stream)
        fn()
        b.record(stream)
        b.synchronize()
        for _ in range(extra_warmup_calls(cupy.cuda.get_elapsed_time(a, b))):
            fn()
    starts = [cupy.cuda.Event() for _ in range(reps)]
    stops = [cupy.cuda.Event() for _ in range(reps)]
    for a, b in zip(starts, stops):
        if flush is not None:
            flush()
        a.record(stream)
        fn()
        b.record(stream)
    stops[-1].synchronize()
    return stats([cupy.cuda.get_elapsed_time(a, b) for a, b in zip(starts, stops)])


def time_cpu(fn: Callable[[], object], *, warmup: int = 0, reps: int = 3) -> Timing:
    for _ in range(max(0, warmup)):
        fn()
    samples = []
    for _ in range(max(1, reps)):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e3)
    return stats(samples)


def time_wall(fn: Callable[[], object], *, calls: int = 1000, reps: int = 5, warmup: int = 50) -> Timing:
    """Wall-clock time per call of `calls` back-to-back calls, the GPU drained at the end: for
    calls so small that the host's work per call, not the kernel, sets their rate."""
    import cupy

    for _ in range(max(0, warmup)):
        fn()
    cupy.cuda.Device().synchronize()
    samples = []
    for _ in range(max(1, reps)):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        cupy.cuda.Device().synchronize()
        samples.append((time.perf_counter() - t0) * 1e3 / calls)
    return stats(samples)
