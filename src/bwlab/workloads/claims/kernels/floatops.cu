// Single-precision functions, each in two forms: the accurate library call against its
// hardware intrinsic, 1/sqrtf against rsqrtf, and arithmetic with double literals (1.1, no f
// suffix: the compiler converts to double, computes in double and converts back) against float
// literals. applyOp evaluates one function on an array (its error is measured against a float64
// reference); loopOp evaluates it `iters` times per thread over a range (its throughput).
#include "common.cuh"

// OP: 0 1/sqrtf, 1 rsqrtf, 2 expf, 3 __expf, 4 sinf, 5 __sinf, 6 logf, 7 __logf,
//     8 1.5f / v, 9 __fdividef(1.5f, v), 10 v * 1.1 + 0.5 (double literals), 11 v * 1.1f + 0.5f.
template <int OP>
__device__ __forceinline__ float op(float v) {
  if (OP == 0) return 1.0f / sqrtf(v);
  if (OP == 1) return rsqrtf(v);
  if (OP == 2) return expf(v);
  if (OP == 3) return __expf(v);
  if (OP == 4) return sinf(v);
  if (OP == 5) return __sinf(v);
  if (OP == 6) return logf(v);
  if (OP == 7) return __logf(v);
  if (OP == 8) return 1.5f / v;
  if (OP == 9) return __fdividef(1.5f, v);
  if (OP == 10) return v * 1.1 + 0.5;
  return v * 1.1f + 0.5f;
}

template <int OP>
__global__ void applyOp(const float* __restrict__ in, float* __restrict__ out, i64 n) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op<OP>(in[i]);
}

// Thread t starts at lo + (t % 1024) * step / 1024 and walks `iters` steps of `step`.
template <int OP>
__global__ void loopOp(float* __restrict__ out, float lo, float step, int iters) {
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  float v = lo + (float)(t & 1023) * (step * (1.0f / 1024.0f));
  float acc = 0.f;
  for (int i = 0; i < iters; ++i) {
    acc += op<OP>(v);
    v += step;
  }
  out[t] = acc;
}
