// Bytes in flight against DRAM bandwidth (Little's law). A grid of exactly `blocks per SM x
// SMs` blocks stays resident; every thread walks a buffer far larger than L2 with a grid
// stride, K independent 16-byte loads issued before any is used, and sums their words. The
// loads in flight per SM are then (resident threads) x K x 16 bytes: occupancy and
// instruction-level parallelism, the two ways to supply them.
// The loops are not unrolled, so one iteration's K loads are exactly the loads in flight (an
// unrolled loop would hoist the next iteration's). Past K = 4 the compiler (ptxas of CUDA 13)
// interleaves the loads with their uses to save registers, so K stops at 4.
#include "common.cuh"

template <int K>
__global__ void readInFlight(const uint4* __restrict__ in, unsigned* __restrict__ out, i64 n) {
  const i64 stride = (i64)gridDim.x * blockDim.x, t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned s = 0;
  i64 i = t;
#pragma unroll 1
  for (; i + (K - 1) * stride < n; i += K * stride) {
    uint4 v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < K; ++k) s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
#pragma unroll 1
  for (; i < n; i += stride) {
    const uint4 v = in[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  out[t] = s;
}
