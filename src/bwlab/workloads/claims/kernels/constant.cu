// Constant memory read by a whole warp at once. MODE 0: all 32 lanes read the same word in each
// round (a broadcast, one request per warp); MODE 1: each lane reads its own word (32 different
// addresses, which the constant cache serves one after another). The same loop over an
// identical table in global memory is the comparison. The table (256 words) stays in cache.
#include "common.cuh"

__constant__ unsigned constTable[256];

__device__ __forceinline__ unsigned tableIndex(int mode, int i, unsigned lane) {
  return mode == 0 ? (unsigned)i & 255u : ((unsigned)i + lane * 8u) & 255u;
}

template <int MODE>
__global__ void constantReads(unsigned* __restrict__ out, int iters) {
  const unsigned lane = threadIdx.x & 31u;
  unsigned acc = 0;
  for (int i = 0; i < iters; ++i) acc += constTable[tableIndex(MODE, i, lane)];
  out[(i64)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <int MODE>
__global__ void globalReads(const unsigned* __restrict__ table, unsigned* __restrict__ out, int iters) {
  const unsigned lane = threadIdx.x & 31u;
  unsigned acc = 0;
  for (int i = 0; i < iters; ++i) acc += table[tableIndex(MODE, i, lane)];
  out[(i64)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
