// Read bandwidth of each level of the memory hierarchy. Every thread reads 16-byte vectors of
// a buffer of mask + 1 vectors (a power of two), neighbouring threads on neighbouring vectors,
// moving `step` vectors on at each pass, and sums their words; the buffer's size decides which
// level serves the reads (a few KiB: L1, a few MiB: L2, far above the L2 size: DRAM). SHARED:
// each block first copies the buffer into shared memory (mask + 1 vectors of dynamic shared
// memory) and reads it from there, moving blockDim.x vectors on at each pass.
#include "common.cuh"

template <bool SHARED>
__global__ void readLevel(const uint4* __restrict__ in, unsigned* __restrict__ out, unsigned mask, int passes,
                          unsigned step) {
  extern __shared__ uint4 sh[];
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (SHARED) {
    for (unsigned i = threadIdx.x; i <= mask; i += blockDim.x) sh[i] = in[i];
    __syncthreads();
  }
  unsigned a = 0, b = 0, c = 0, d = 0;
#pragma unroll 4
  for (int p = 0; p < passes; ++p) {
    const unsigned i = (SHARED ? threadIdx.x + (unsigned)p * blockDim.x : t + (unsigned)p * step) & mask;
    const uint4 v = SHARED ? sh[i] : in[i];
    a += v.x;
    b += v.y;
    c += v.z;
    d += v.w;
  }
  out[t] = a + b + c + d;
}
