"""Inputs, right answers and checks for the transpose: random bits of any dtype, the NumPy
transpose on the host for small cases, and a reference-free check on the GPU for big ones
(CuPy's strided copy, a few matrices at a time, compared bit for bit)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ...core import verify
from ...core.verify import Check

ALL_DTYPES = ("bool", "int8", "uint8", "float16", "bfloat16", "int16", "float32", "int32", "float64",
              "int64", "complex64", "complex128")
EXTRA_DTYPES = ("uint16", "uint32", "uint64")  # raw bits of 2, 4 and 8 bytes (tuning)
ITEMSIZE = {"bfloat16": 2, **{d: np.dtype(d).itemsize for d in ALL_DTYPES + EXTRA_DTYPES if d != "bfloat16"}}
# Masks that keep random float bits finite (exponent MSB cleared): cuBLAS computes 1 * x,
# which would quiet signalling NaNs; the bits are otherwise random.
_MASK = {"float16": 0xBFFFBFFF, "bfloat16": 0xBFFFBFFF, "float32": 0xBFFFFFFF, "complex64": 0xBFFFFFFF,
         "bool": 0x01010101}
_WIDE_FLOAT = ("float64", "complex128")  # high word of each 8-byte float masked separately
HOST_REFERENCE_BYTES = 64 << 20  # above this, the check runs on the GPU without a materialised answer
AWKWARD_SHAPES = ((1, 1), (1, 1000), (1000, 1), (33, 31), (1025, 777))


def storage_dtype(dtype: str) -> np.dtype:
    """The NumPy/CuPy dtype holding `dtype`'s bits (bfloat16 travels as uint16)."""
    if dtype not in ITEMSIZE:
        raise ValueError(f"dtype must be one of {', '.join(ALL_DTYPES)}, got {dtype!r}")
    return np.dtype("uint16") if dtype == "bfloat16" else np.dtype(dtype)


def output_shape(shape) -> tuple[int, ...]:
    return tuple(shape[:-2]) + (shape[-1], shape[-2])


def random_input(shape, dtype: str, seed: Optional[int] = None):
    """A CuPy array of random bits (finite floats), generated on the GPU at any size."""
    import cupy

    x = cupy.empty(shape, storage_dtype(dtype))
    flat = x.reshape(-1).view(cupy.uint8)
    if seed is None:  # fresh data on every call
        seed = int(np.random.default_rng().integers(1 << 62))
    verify.fill_random_bits(flat, seed, _MASK.get(dtype, 0xFFFFFFFF))
    if dtype in _WIDE_FLOAT:  # clear the exponent MSB in the high word of every float64
        words = flat[: flat.size // 8 * 8].view(cupy.uint32)
        words[1::2] &= np.uint32(0xBFFFFFFF)
    return x


def host_transpose(host: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.swapaxes(host, -1, -2))


@dataclass
class TransposeOf:
    """The expected answer, not materialised: x with its last two axes swapped."""
    x: object


def expected(x):
    """The answer for x: computed on the host when small, else a TransposeOf for compare()."""
    import cupy

    if x.nbytes <= HOST_REFERENCE_BYTES:
        return cupy.asarray(host_transpose(x.get()))
    return TransposeOf(x)


def compare(out, want) -> Check:
    """Bit-exact comparison of out with an array or a TransposeOf."""
    if isinstance(want, TransposeOf):
        return compare_transposed(out, want.x)
    return verify.compare(out, want)


def compare_transposed(out, x, max_chunk_bytes: int = 1 << 30) -> Check:
    """Bit-exact check on the GPU that out == x with its last two axes swapped, a few
    matrices at a time (the boolean temporaries stay small); CuPy's strided copy is the
    independent reference. For results too big for a host reference."""
    shape = tuple(out.shape)
    if tuple(x.shape) != output_shape(shape) or out.dtype != x.dtype:
        return Check(False, int(np.prod(shape)), None, shape)
    ob, xb = verify.uint_view(out.reshape(-1, *out.shape[-2:])), verify.uint_view(x.reshape(-1, *x.shape[-2:]))
    if ob.shape[0] == 0 or out.size == 0:
        return Check(True, 0, None, shape)
    per = max(1, max_chunk_bytes // max(1, ob[0].size))
    bad_total, first = 0, None
    for b0 in range(0, ob.shape[0], per):
        eq = ob[b0:b0 + per] == xb[b0:b0 + per].swapaxes(1, 2)
        if eq.ndim == 4:
            eq = eq.all(axis=3)
        n = int(eq.size - int(eq.sum()))
        if n and first is None:
            flat = int((~eq).ravel().argmax())
            idx = tuple(int(i) for i in np.unravel_index(flat, eq.shape))
            first = (b0 + idx[0],) + idx[1:]
        bad_total += n
    if len(shape) == 2 and first is not None:
        first = first[1:]
    return Check(bad_total == 0, bad_total, first, shape)
