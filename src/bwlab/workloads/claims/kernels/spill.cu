// Registers against local memory when registers run out. Each thread keeps 48 values live
// across a loop of fused multiply-adds. __launch_bounds__(256, MIN_BLOCKS) caps the registers a
// thread may use at 65536 / (256 x MIN_BLOCKS): with MIN_BLOCKS = 8 that is 32, too few for 48
// values, so the compiler spills to local memory (the deliberate spill of bwlab's kernels);
// with MIN_BLOCKS = 1 nothing spills, and fewer threads fit on an SM.
#include "common.cuh"

template <int MIN_BLOCKS>
__global__ void __launch_bounds__(256, MIN_BLOCKS)
    liveValues(const float* __restrict__ in, float* __restrict__ out, int iters) {
  constexpr int N = 48;
  const i64 threads = (i64)gridDim.x * blockDim.x;
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  float v[N];
#pragma unroll
  for (int k = 0; k < N; ++k) v[k] = in[k * threads + t];
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = fmaf(v[k], v[(k + 1) % N], -0.25f);
  }
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < N; ++k) s += v[k];
  out[t] = s;
}
