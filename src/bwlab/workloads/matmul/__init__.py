"""The matmul workload: C = A . B in float32, the ladder from the naive kernel through
thread coarsening and register blocking to a pipelined warp-tiled kernel, against cuBLAS."""
from .workload import MatmulWorkload

WORKLOAD = MatmulWorkload()
