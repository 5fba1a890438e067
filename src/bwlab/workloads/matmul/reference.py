"""Inputs, right answers and checks for C = A . B in float32.

Inputs: A (M x K) and B (K x N) live in one flat float32 CuPy buffer, A first, B from the
next multiple of 64 elements (256-byte aligned, so 16-byte loads of B are possible), both
row-major. One buffer lets the ladder's copy ceilings copy "the input" like any workload's.

The answer: the product in float64 and the bound |A| . |B|, both on the host (NumPy) for
small cases and with cuBLAS DGEMM on the GPU (CuPy float64) above HOST_FLOPS.

The check: every element within TOL * sqrt(K) * u * (|A| . |B|)_ij of the float64 product,
u = 2^-24 for float32 (for K <= 16 this covers the worst-case bound gamma_K = K u / (1 - K u)
of a float32 dot product summed in any order; above, rounding errors of random signs grow
like sqrt(K), so the margin stays wide while a lost or doubled term, about (|A||B|)_ij / K,
still fails for K up to about 10^4). A NaN (such as the 0xFF poison of an unwritten element)
always fails. A peer of another precision (TF32) is checked with its own unit roundoff.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...core import verify
from ...core.verify import Check

ALIGN = 64          # B starts at a multiple of this many elements in the packed buffer
TOL = 4.0           # the tolerance's constant
UNIT = {"float32": 2.0 ** -24, "tf32": 2.0 ** -10}  # tf32: inputs rounded (or truncated) to 10 bits
HOST_FLOPS = 1 << 31  # 2 M N K up to this: the reference is computed on the host
# Small awkward cases (M, N, K): 1s, primes, no multiple of any tile, non-square, K = 0.
AWKWARD = ((1, 1, 1), (1, 1, 300), (1, 257, 3), (257, 1, 5), (3, 5, 1), (7, 0, 3), (5, 7, 0),
           (31, 33, 17), (67, 131, 29), (129, 127, 131), (130, 258, 37), (128, 128, 128), (256, 132, 9),
           (97, 1021, 253))


def b_offset(m: int, k: int) -> int:
    return -(-(m * k) // ALIGN) * ALIGN


def packed_size(m: int, n: int, k: int) -> int:
    return b_offset(m, k) + k * n


def split(x, m: int, n: int, k: int):
    """A (m x k) and B (k x n) as views of the packed buffer x."""
    off = b_offset(m, k)
    return x[: m * k].reshape(m, k), x[off: off + k * n].reshape(k, n)


def random_input(m: int, n: int, k: int, seed: Optional[int] = None):
    """The packed buffer, uniform in [-1, 1), generated on the GPU."""
    import cupy

    if seed is None:
        seed = int(np.random.default_rng().integers(1 << 62))
    rng = cupy.random.default_rng(seed)
    x = rng.random(packed_size(m, n, k), dtype=cupy.float32)
    x *= 2
    x -= 1
    return x


@dataclass
class Product:
    """The expected answer: float64 product, |A| . |B| and K (for the tolerance)."""
    c: object         # CuPy float64 (M, N)
    bound: object     # CuPy float64 (M, N)
    k: int


@dataclass
class Precision:
    """A result computed in another precision, checked with that precision's unit roundoff."""
    out: object
    precision: str


def product(a, b) -> Product:
    """The float64 product of CuPy float32 matrices a and b, on the host when small."""
    import cupy

    m, k = a.shape
    n = b.shape[1]
    if 2 * m * n * k <= HOST_FLOPS:
        a64, b64 = a.get().astype(np.float64), b.get().astype(np.float64)
        c, bound = a64 @ b64, np.abs(a64) @ np.abs(b64)
        return Product(cupy.asarray(c), cupy.asarray(bound), k)
    a64, b64 = a.astype(cupy.float64), b.astype(cupy.float64)
    c = a64 @ b64
    cupy.abs(a64, out=a64)
    cupy.abs(b64, out=b64)
    bound = a64 @ b64
    return Product(c, bound, k)


class ToleranceCheck(Check):
    def __init__(self, ok, mismatches, first_bad, shape, k, unit, worst):
        super().__init__(ok, mismatches, first_bad, shape)
        self.k, self.unit, self.worst = k, unit, worst

    def __str__(self) -> str:
        rule = f"|err| <= {TOL:g} sqrt(K) u (|A||B|)_ij, K = {self.k}, u = 2^{int(np.log2(self.unit))}"
        if self.ok:
            return f"within {rule} at {self.shape} (worst {self.worst:.2g} of the bound)"
        return f"{self.mismatches} wrong elements at {self.shape}, first at {self.first_bad} ({rule})"


def compare(out, want) -> Check:
    """out (float32, or a Precision) against a Product with the tolerance above; against a
    plain array (a copy of the input), bit for bit."""
    import cupy

    if not isinstance(want, Product):
        return verify.compare(out, want)
    unit = UNIT["float32"]
    if isinstance(out, Precision):
        unit = UNIT[out.precision]
        out = out.out
    out = cupy.asarray(out)
    shape = tuple(want.c.shape)
    if tuple(out.shape) != shape or out.dtype != cupy.float32:
        return ToleranceCheck(False, int(np.prod(shape)), None, shape, want.k, unit, float("inf"))
    if out.size == 0:
        return ToleranceCheck(True, 0, None, shape, want.k, unit, 0.0)
    tol = TOL * np.sqrt(max(want.k, 1)) * unit
    err = cupy.abs(out.astype(cupy.float64) - want.c)
    limit = tol * want.bound + 1e-300  # K = 0: C must be exactly 0
    bad = ~(err <= limit)              # NaN fails
    n = int(bad.sum())
    worst = float(cupy.max(err / limit)) if n == 0 else float("inf")
    if n == 0:
        return ToleranceCheck(True, 0, None, shape, want.k, unit, worst)
    first = tuple(int(i) for i in np.unravel_index(int(bad.ravel().argmax()), shape))
    return ToleranceCheck(False, n, first, shape, want.k, unit, worst)
