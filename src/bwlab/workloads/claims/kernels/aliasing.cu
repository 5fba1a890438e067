// Pointer aliasing and __restrict__: the same kernel with its pointer parameters plain
// (RESTRICT false) or marked __restrict__ (true). Each thread evaluates a polynomial in place
// in out by Horner's rule: out[i] = a[i] * s + b[i], then STEPS - 1 times out[i] = out[i] *
// a[i] + b[i]. With plain pointers, out may point into a or b, so after every store through
// out the compiler must load a[i] and b[i] again and keep every store; with __restrict__ it
// may load them once, keep the running value in a register and store once. STEPS = 1 has no
// load after a store: there aliasing cannot matter, only the load path restrict allows.
#include "common.cuh"

template <bool RESTRICT> struct Pointers {
  typedef const float* In;
  typedef float* Out;
};
template <> struct Pointers<true> {
  typedef const float* __restrict__ In;
  typedef float* __restrict__ Out;
};

template <bool RESTRICT, int STEPS>
__global__ void hornerInPlace(typename Pointers<RESTRICT>::In a, typename Pointers<RESTRICT>::In b,
                              typename Pointers<RESTRICT>::Out out, i64 n, float s) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = a[i] * s + b[i];
#pragma unroll
  for (int k = 1; k < STEPS; ++k) out[i] = out[i] * a[i] + b[i];
}
