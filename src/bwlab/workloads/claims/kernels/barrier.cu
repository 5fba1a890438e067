// __syncthreads() where not every thread of the block arrives. barrierInBranch puts the barrier
// under a data-dependent branch: CUDA leaves the result undefined (a block may hang, or threads
// may read shared memory before it is written). bwlab only compiles it, to show the compiler
// accepts it without a word; it is never launched. barrierForAll is the safe form, the barrier
// where every thread reaches it: launched and checked.
#include "common.cuh"

extern "C" __global__ void barrierInBranch(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[1024];
  const i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  const float x = in[g];
  s[threadIdx.x] = x;
  if (x > 0.f) __syncthreads();
  out[g] = s[blockDim.x - 1 - threadIdx.x];
}

extern "C" __global__ void barrierForAll(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[1024];
  const i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[g];
  __syncthreads();
  out[g] = s[blockDim.x - 1 - threadIdx.x];
}
