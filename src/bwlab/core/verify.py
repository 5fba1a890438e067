"""Checks: fresh random data, poisoned outputs, bit-exact comparison.

Data-movement kernels are compared as raw bits (NaN payloads and -0.0 included), never as
values with a tolerance. Outputs are filled with 0xFF bytes before a kernel runs: an element
the kernel forgot to write stays poisoned and fails the comparison.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

POISON_BYTE = 0xFF


@dataclass
class Check:
    ok: bool
    mismatches: int = 0
    first_bad: Optional[tuple[int, ...]] = None
    shape: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.ok:
            return f"bit-exact at {self.shape}"
        return f"{self.mismatches} wrong elements at {self.shape}, first at {self.first_bad}"


def _uint_view(a):
    return a.view({1: "u1", 2: "u2", 4: "u4", 8: "u8"}[a.dtype.itemsize])


def random_host(shape, dtype, seed=None) -> np.ndarray:
    """Fresh random data on the host; standard normal floats have no NaN, no -0.0 pattern
    collisions with the poison, and no zeros hiding unwritten elements."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind == "c":
        part = np.float32 if dt.itemsize == 8 else np.float64
        return (rng.standard_normal(shape, dtype=part) + 1j * rng.standard_normal(shape, dtype=part)).astype(dt)
    if dt.kind == "f":
        return rng.standard_normal(shape, dtype=dt if dt.itemsize >= 4 else np.float32).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=False)


_FILL = None


def fill_random_bits(a, seed: int = 0, mask: int = 0xFFFFFFFF) -> None:
    """Fill any contiguous CuPy array with hashed bits (bandwidth-fast at any size; each
    32-bit word is splitmix64 of its index, ANDed with mask to keep e.g. floats finite)."""
    import cupy

    global _FILL
    if _FILL is None:
        _FILL = cupy.ElementwiseKernel(
            "uint64 seed, uint32 mask", "uint32 y",
            "unsigned long long z = ((unsigned long long)i + seed) * 0x9E3779B97F4A7C15ull;"
            "z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;"
            "y = (unsigned int)((z ^ (z >> 31)) >> 16) & mask;", "bwlab_fill_bits")
    flat = a.reshape(-1).view(cupy.uint8)
    words = flat[: flat.size // 4 * 4].view(cupy.uint32)
    if words.size:
        _FILL(np.uint64(seed), np.uint32(mask), words)
    if flat.size % 4:  # the last bytes: a fixed pattern, masked like the rest (bool stays 0 or 1)
        flat[words.size * 4:] = 0x3C & mask & 0xFF


def uint_view(a):
    """Raw bits with the element size kept: 16-byte elements become two uint64 on a last axis."""
    if a.dtype.itemsize == 16:
        return a.view("u8").reshape(*a.shape, 2)
    return _uint_view(a)


def random_device(shape, dtype, seed=None):
    """Fresh random data generated on the GPU (fast at gigabyte sizes)."""
    import cupy

    rng = cupy.random.default_rng(seed)
    return rng.standard_normal(size=shape, dtype=np.dtype(dtype))


def poison(a) -> None:
    a.view("u1").fill(POISON_BYTE)


def compare(out, ref) -> Check:
    """Bit-exact comparison; works on NumPy or CuPy arrays (both of the same kind)."""
    shape = tuple(ref.shape)
    if tuple(out.shape) != shape or out.dtype != ref.dtype:
        return Check(False, int(np.prod(shape)), None, shape)
    bad = uint_view(out) != uint_view(ref)
    if bad.ndim > len(shape):  # 16-byte elements: two words each
        bad = bad.any(axis=-1)
    n = int(bad.sum())
    if n == 0:
        return Check(True, 0, None, shape)
    flat = int(bad.ravel().argmax())
    return Check(False, n, tuple(int(i) for i in np.unravel_index(flat, shape)), shape)
