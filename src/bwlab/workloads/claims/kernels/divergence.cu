// Warp divergence. Paths A and B are chains of fused multiply-adds of the same length on
// different operands (x * 0.999 + 0.01 against x * x - 0.5), so both cost the same. MODE 0: every
// thread takes A; 1: every thread takes B; 2: even warps take A and odd warps B (threads of a
// warp agree: no divergence); 3: even lanes take A and odd lanes B (every warp runs both paths,
// one after the other, each with half its lanes idle).
#include "common.cuh"

__device__ __forceinline__ float pathA(float x, int iters) {
  for (int i = 0; i < iters; ++i) x = fmaf(x, 0.999f, 0.01f);
  return x;
}

__device__ __forceinline__ float pathB(float x, int iters) {
  for (int i = 0; i < iters; ++i) x = fmaf(x, x, -0.5f);
  return x;
}

template <int MODE>
__global__ void branches(const float* __restrict__ in, float* __restrict__ out, int iters) {
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const bool b = MODE == 1 || (MODE == 2 && (warp & 1u)) || (MODE == 3 && (lane & 1u));
  float x = in[t];
  if (b) {
    x = pathB(x, iters);
  } else {
    x = pathA(x, iters);
  }
  out[t] = x;
}
