"""References and checks: fresh random data, poisoned outputs, bit-exact comparison.

A transpose moves bits, so the check compares raw bits (NaN payloads and -0.0 included),
never values with a tolerance. Outputs are filled with 0xFF bytes before a kernel runs:
an element the kernel forgot to write stays poisoned and fails the comparison.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

POISON_BYTE = 0xFF
AWKWARD_SHAPES = ((1, 1), (1, 1000), (1000, 1), (33, 31), (1025, 777))


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
    if dt.kind == "f":
        return rng.standard_normal(shape, dtype=dt if dt.itemsize >= 4 else np.float32).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=False)


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
    bad = _uint_view(out) != _uint_view(ref)
    n = int(bad.sum())
    if n == 0:
        return Check(True, 0, None, shape)
    flat = int(bad.ravel().argmax())
    return Check(False, n, tuple(int(i) for i in np.unravel_index(flat, shape)), shape)


def reference(host: np.ndarray, transposes: bool) -> np.ndarray:
    return np.ascontiguousarray(host.T) if transposes else host.copy()
