"""The public bwlab.transpose on one tall shape of a dtype, twice (checked against CuPy), for Nsight
Compute: `python3 one.py ROWS COLS DTYPE` (the second launch is the one to profile)."""
import sys

import cupy

import bwlab

n, s, dt = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
x = cupy.random.default_rng(n + s).integers(0, 2**16, size=(n, s)).astype(dt)
for _ in range(2):
    y = bwlab.transpose(x)
assert bool((y == x.T).all())
print(bwlab.explain_transpose(x))
