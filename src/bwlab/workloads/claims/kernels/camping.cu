// Partition camping: do reads that land a power-of-two distance apart crowd onto a few DRAM
// channels? The buffer is n chunks of 256 bytes (n a power of two); a warp reads one chunk at a
// time, one 8-byte word per lane, and job j of the grid reads chunk
//     c(j) = ((j mod period) * m) mod n + j / period,   period = n / gcd(m, n),
// so the warps running at the same moment (consecutive jobs) read chunks m x 256 bytes apart,
// and over all n jobs every chunk is read exactly once, whatever m: the same bytes for every
// stride, none read twice (nothing served from L2). period is a power of two: the host passes
// log2(period). K jobs per warp are loaded before any is used, so that enough bytes are in
// flight for the contiguous read (m = 1) to reach the DRAM roof. Each thread sums its words;
// the sum over all threads is the sum of the whole buffer.
#include "common.cuh"

template <int K>
__global__ void readChunks(const uint2* __restrict__ in, unsigned* __restrict__ out, unsigned n, unsigned m,
                           unsigned period_log2) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warps = (gridDim.x * blockDim.x) >> 5;
  const unsigned mask = n - 1u, pmask = (1u << period_log2) - 1u;
  unsigned s = 0;
  unsigned j = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
#pragma unroll 1
  for (; j + (K - 1) * warps < n; j += K * warps) {
    uint2 v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const unsigned jk = j + k * warps;
      const unsigned c = (((jk & pmask) * m) & mask) + (jk >> period_log2);  // wraps mod 2^32: n divides it
      v[k] = in[(i64)c * 32 + lane];
    }
#pragma unroll
    for (int k = 0; k < K; ++k) s += v[k].x + v[k].y;
  }
#pragma unroll 1
  for (; j < n; j += warps) {
    const unsigned c = (((j & pmask) * m) & mask) + (j >> period_log2);
    const uint2 v = in[(i64)c * 32 + lane];
    s += v.x + v.y;
  }
  out[(i64)blockIdx.x * blockDim.x + threadIdx.x] = s;
}
