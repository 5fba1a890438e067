"""The public bwlab.transpose on one tall uint8 shape, twice (checked), for Nsight Compute:
`python3 one.py ROWS COLS` (the second launch is the one to profile)."""
import sys

import cupy

import bwlab

n, s = int(sys.argv[1]), int(sys.argv[2])
x = cupy.random.default_rng(n + s).integers(0, 256, size=(n, s), dtype=cupy.uint8)
for _ in range(2):
    y = bwlab.transpose(x)
assert bool((y == x.T).all())
print(bwlab.explain_transpose(x) if hasattr(bwlab, "explain_transpose") else "")
