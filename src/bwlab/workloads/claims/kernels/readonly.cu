// One stencil loop, three load paths. PATH 0: ordinary loads through a plain pointer
// (ld.global, cached in L1); 1: the read-only data cache, the old texture path (__ldg,
// ld.global.nc); 2: L2 only, skipping L1 (__ldcg). RADIUS 0: every element read once
// (streaming); RADIUS 8: each thread sums its 17 neighbours, so every element is read 17 times
// by neighbouring threads (reuse a cache can catch). Indices wrap around the ends.
#include "common.cuh"

template <int PATH>
__device__ __forceinline__ unsigned ld(const unsigned* p) {
  return PATH == 1 ? __ldg(p) : PATH == 2 ? __ldcg(p) : *p;
}

template <int PATH, int RADIUS>
__global__ void stencil(const unsigned* in, unsigned* out, i64 n) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned s = 0;
  if (i >= RADIUS && i + RADIUS < n) {  // inside: the neighbours at fixed offsets from one pointer
    const unsigned* p = in + i;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k) s += ld<PATH>(p + k);
  } else {
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k) {
      i64 j = i + k;
      j = j < 0 ? j + n : (j >= n ? j - n : j);
      s += ld<PATH>(in + j);
    }
  }
  out[i] = s;
}
