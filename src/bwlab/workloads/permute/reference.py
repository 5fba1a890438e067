"""Inputs, right answers and checks for the permutation: random bits of any dtype (the
transpose's generator), numpy.transpose on the host for small cases, CuPy's strided copy on the
GPU for big ones, compared bit for bit."""
from __future__ import annotations

import numpy as np

from ...core import verify
from ...core.verify import Check
from ..transpose.reference import ALL_DTYPES, ITEMSIZE, random_input, storage_dtype  # noqa: F401

HOST_REFERENCE_BYTES = 64 << 20


def output_shape(shape, perm) -> tuple[int, ...]:
    return tuple(shape[p] for p in perm)


def expected(x, perm):
    """The answer: numpy.transpose on the host when small, else CuPy's own strided copy."""
    import cupy

    if x.nbytes <= HOST_REFERENCE_BYTES:
        return cupy.asarray(np.ascontiguousarray(np.transpose(x.get(), perm)))
    return cupy.ascontiguousarray(cupy.transpose(x, perm))


def compare(out, want) -> Check:
    return verify.compare(out, want)
