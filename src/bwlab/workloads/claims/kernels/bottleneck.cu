// Three kernels built to sit in the three cases of the bottleneck diagnosis, each computing
// y = f(x) on float32 and each moving its bytes with the same kind of instruction:
//   scaleVec:   y = a * x + b on 16-byte vectors, one FMA per 8 bytes moved: nothing but
//               bandwidth can limit it (case 1).
//   fmaChains:  8 independent chains of `iters` FMAs from each element, summed: thousands of
//               FLOPs per 8 bytes moved, so the FP32 units limit it (case 2).
//   strideRead: y[i] = a * x[i * stride] + b: one FMA per element as in scaleVec, but a warp's
//               32 reads fall in 32 different 32-byte sectors, so most of every sector fetched
//               is wasted (case 3: poor access, neither unit near its peak).
#include "common.cuh"

__global__ void scaleVec(const float4* __restrict__ in, float4* __restrict__ out, i64 n4, float a, float b) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  const float4 v = in[i];
  out[i] = make_float4(fmaf(a, v.x, b), fmaf(a, v.y, b), fmaf(a, v.z, b), fmaf(a, v.w, b));
}

// The chains are c_k <- c_k * b + c with c_k starting at x + k; b and c come from the caller, so
// the compiler can neither fold a chain nor reorder its rounding.
__global__ void fmaChains(const float* __restrict__ in, float* __restrict__ out, i64 n, int iters, float b, float c) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = in[i];
  float acc[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) acc[k] = x + (float)k;
#pragma unroll 4
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < 8; ++k) acc[k] = fmaf(acc[k], b, c);
  }
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += acc[k];
  out[i] = s;
}

__global__ void strideRead(const float* __restrict__ in, float* __restrict__ out, i64 n, int stride, float a,
                           float b) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaf(a, in[i * stride], b);
}
