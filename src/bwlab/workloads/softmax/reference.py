"""Inputs, right answers and checks for softmax: random inputs of the three float types, the
float64 reference on the host, and the tolerances every kernel is held to.

Tolerances against the float64 reference:
- float32 softmax: |y - ref| <= 1e-6 + 1e-5 |ref|; log-softmax: |y - ref| <= 1e-5 (1 + |ref|).
- float16 / bfloat16: at most one unit in the last place of the correctly rounded result.
- backward (float32): |dx - ref| <= 1e-5 (|ref| + max |g| of the row) (the subtraction
  g - sum(y g) cancels); 16-bit: two units in the last place plus that bound's rounding.
NaN must be NaN where the reference is NaN, and nowhere else.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...core.verify import Check

DTYPES = ("float32", "float16", "bfloat16")
ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2}
CTYPE = {"float32": "float", "float16": "half16", "bfloat16": "bf16"}
HOST_REFERENCE_BYTES = 96 << 20   # above this, the check samples rows instead of the whole array
SAMPLE_ROWS = 64
# Sampled rows longer than this in all (elements): each row's statistics are reduced in float64 chunk by
# chunk where the array lives, and the answer is checked at sampled positions of the row.
LONG_REFERENCE_ELEMENTS = 1 << 25
LONG_ROW_CHUNK = 1 << 24
SAMPLE_POSITIONS = 1 << 20
EDGE_POSITIONS = 4096  # always checked at both ends of a long row (the end of the array is past 2^31)


def check_dtype(dtype: str) -> str:
    if dtype not in CTYPE:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    return dtype


def storage_dtype(dtype: str) -> np.dtype:
    """The CuPy/NumPy dtype holding `dtype`'s bits (bfloat16 travels as uint16)."""
    return np.dtype("uint16") if check_dtype(dtype) == "bfloat16" else np.dtype(dtype)


def to_float64(a: np.ndarray, dtype: str) -> np.ndarray:
    """The values of an array of `dtype` bits (NumPy or CuPy), as float64."""
    if dtype == "bfloat16":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def from_float64(v: np.ndarray, dtype: str) -> np.ndarray:
    """Correctly rounded to `dtype` (bits for bfloat16: round to nearest even)."""
    if dtype != "bfloat16":
        return v.astype(dtype)
    f = v.astype(np.float32)  # float64 -> float32 -> bfloat16: the double rounding is harmless here
    u = f.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(0x7FC0), r)


def random_input(shape, dtype: str, seed: Optional[int] = None, scale: float = 3.0):
    """Normal values times `scale`, generated on the GPU, rounded to the dtype."""
    import cupy

    rng = cupy.random.default_rng(seed)
    v = rng.standard_normal(size=shape, dtype=np.float32) * np.float32(scale)
    if dtype == "float32":
        return v
    if dtype == "float16":
        return v.astype(cupy.float16)
    u = v.view(cupy.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(cupy.uint16)


def softmax64(x: np.ndarray, axis: int, log: bool) -> np.ndarray:
    """Float64 softmax with torch's special values: a NaN or +inf in a row, or a row of
    -inf only, makes the whole row NaN."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.max(x, axis=axis, keepdims=True)
        d = x - m
        t = _rest(m, np.sum(np.where(d < 0, np.exp(d), 0.0), axis=axis, keepdims=True),
                  np.sum(d == 0, axis=axis, keepdims=True))
    return softmax64_at(x, m, t, log)


def _rest(m, below, ones):
    """t, the sum of exp(x - m) less the max's own 1, from the terms below the max and the count of
    elements at it, so that a t below float64's epsilon survives: log-softmax at the max is -log(1 +
    t), about -t (a row of N(0, 1) values and one of 85: -2.6e-32, where log of the plain sum gives 0).
    NaN where the max is not finite (a NaN or +inf in the row, or -inf only)."""
    return np.where(np.isfinite(m), below + (ones - 1.0), np.nan)


def softmax64_at(x: np.ndarray, m, t, log: bool) -> np.ndarray:
    """Softmax of some of a row's elements, given the row's max m and t (the sum of exp(x - m),
    less 1: _rest)."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        d = x - m
        return d - np.log1p(t) if log else np.exp(d) / (1.0 + t)


def backward_sum64(y: np.ndarray, g: np.ndarray, axis: int, log: bool) -> np.ndarray:
    """The row sum the gradient subtracts: sum(g) for log-softmax, sum(y g) for softmax."""
    return np.sum(g if log else y * g, axis=axis, keepdims=True)


def backward64(y: np.ndarray, g: np.ndarray, axis: int, log: bool) -> np.ndarray:
    return backward64_at(y, g, backward_sum64(y, g, axis, log), log)


def backward_scale64(y: np.ndarray, g: np.ndarray, axis: int, log: bool) -> np.ndarray:
    """The backward's cancellation bound for a row: max |g|, times max |y| for softmax."""
    gmax = np.max(np.abs(g), axis=axis, keepdims=True)
    return gmax if log else gmax * np.max(np.abs(y), axis=axis, keepdims=True)


def backward64_at(y: np.ndarray, g: np.ndarray, total, log: bool) -> np.ndarray:
    """The gradient at some of a row's elements, given the row's backward_sum64."""
    return g - np.exp(y) * total if log else y * (g - total)


def row_stats64(chunks, backward: bool, log: bool) -> tuple[float, float]:
    """One row's two float64 statistics, reduced chunk by chunk (NumPy or CuPy chunks).
    chunks() yields the row's chunks afresh as tuples of float64 arrays: (x,) forward, (y, g)
    backward. Forward: (max, t), reading the row twice (softmax64_at's m and t).
    Backward: (backward_sum64, backward_scale64)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if not backward:
            m = float(np.max([float(np.max(x)) for x, in chunks()]))  # NaN wins, as in np.max
            below = ones = 0.0
            for x, in chunks():
                d = x - m
                below += float(np.sum(np.where(d < 0, np.exp(d), 0.0)))
                ones += float(np.count_nonzero(d == 0))
            return m, float(_rest(m, below, ones))
        parts = np.array([(float(np.sum(g if log else y * g)), float(np.max(np.abs(g))),
                           0.0 if log else float(np.max(np.abs(y)))) for y, g in chunks()])
        total, gmax, ymax = parts[:, 0].sum(), parts[:, 1].max(), parts[:, 2].max()
        return float(total), float(gmax if log else gmax * ymax)


def position_sample(length: int, k: Optional[int] = None, edge: Optional[int] = None) -> np.ndarray:
    """Positions checked along a long row: both ends (EDGE_POSITIONS each by default), k random
    ones between (SAMPLE_POSITIONS), and both sides of every multiple of a power of two of at least
    4096, the smallest that makes at most k/2 of them (where a kernel's blocks or chunks of a row
    are likeliest to meet)."""
    k = SAMPLE_POSITIONS if k is None else k
    edge = EDGE_POSITIONS if edge is None else edge
    if length <= k + 2 * edge:
        return np.arange(length)
    step = 4096
    while length // step > k // 2:
        step *= 2
    seams = np.arange(step, length, step)
    pick = np.random.default_rng(length).integers(edge, length - edge, size=k)
    return np.unique(np.concatenate([np.arange(edge), pick, seams - 1, seams, np.arange(length - edge, length)]))


def _ulps(out: np.ndarray, ref: np.ndarray, dtype: str) -> np.ndarray:
    """Units in the last place between two arrays of 16-bit floats (as their bits)."""
    def ordered(a):
        u = a.view(np.uint16).astype(np.int32)
        return np.where(u & 0x8000, 0x8000 - u, u)  # -0.0 and +0.0 both 0, -x at -(x's bits)
    return np.abs(ordered(out) - ordered(ref))


class ToleranceCheck(Check):
    def __str__(self) -> str:
        if self.ok:
            return f"within tolerance of float64 at {self.shape}"
        return f"{self.mismatches} elements outside tolerance at {self.shape}, first at {self.first_bad}"


def compare(out_bits: np.ndarray, ref64: np.ndarray, dtype: str, kind: str = "softmax",
            scale: Optional[np.ndarray] = None) -> Check:
    """out (host array of dtype bits) against the float64 reference. kind: softmax | log |
    backward; scale: the backward's per-element cancellation bound (max |g| of the row)."""
    shape = tuple(ref64.shape)
    if tuple(out_bits.shape) != shape:
        return ToleranceCheck(False, int(np.prod(shape)), None, shape)
    got = to_float64(out_bits, dtype)
    nan_ref, nan_got = np.isnan(ref64), np.isnan(got)
    with np.errstate(invalid="ignore"):
        if dtype == "float32":
            err = np.abs(got - ref64)
            if kind == "softmax":
                ok = err <= 1e-6 + 1e-5 * np.abs(ref64)
            elif kind == "log":
                ok = err <= 1e-5 * (1 + np.abs(ref64))
            else:
                ok = err <= 1e-5 * (np.abs(ref64) + (scale if scale is not None else 0))
            ok |= got == ref64  # equal infinities
        else:
            want = from_float64(ref64, dtype)
            ulps = _ulps(np.ascontiguousarray(out_bits), np.ascontiguousarray(want), dtype)
            limit = 1 if kind != "backward" else 2
            ok = ulps <= limit
            if kind == "backward" and scale is not None:  # cancellation: one rounding of the row's scale
                eps = 2.0 ** (-8 if dtype == "bfloat16" else -11)
                ok |= np.abs(got - ref64) <= eps * (np.abs(ref64) + scale)
    ok = np.where(nan_ref | nan_got, nan_ref & nan_got, ok)
    bad = ~ok
    n = int(bad.sum())
    if n == 0:
        return ToleranceCheck(True, 0, None, shape)
    first = tuple(int(i) for i in np.unravel_index(int(bad.ravel().argmax()), shape))
    return ToleranceCheck(False, n, first, shape)


def row_sample(n_rows: int, k: int = SAMPLE_ROWS) -> np.ndarray:
    """Row indices checked on a large case: the first, the last, and random ones."""
    rng = np.random.default_rng(n_rows)
    pick = rng.choice(n_rows, size=min(k, n_rows), replace=False)
    return np.unique(np.concatenate([[0, n_rows - 1], pick]))
