"""bwlab.transpose on one tall uint8 shape, twice (checked), for Nsight Compute, as the dispatch runs
it or with skinnyWords' LEAN row side: `python3 one.py ROWS COLS [lean]` (profile the second launch)."""
import sys

import cupy

import bwlab
from bwlab.workloads.transpose import plans
from lean import lean

n, s = int(sys.argv[1]), int(sys.argv[2])
if sys.argv[3:] == ["lean"]:
    plans.skinnytile_expression = lean
x = cupy.random.default_rng(n + s).integers(0, 256, size=(n, s), dtype=cupy.uint8)
for _ in range(2):
    y = bwlab.transpose(x)
assert bool((y == x.T).all())
print(bwlab.explain_transpose(x))
