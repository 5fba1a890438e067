// Unsigned division and modulo by a power of two, n = 2^s, in a loop. MODE 0: '/' and '%' by
// an n known only at run time (the compiler cannot see it is a power of two, so it emits its
// general division sequence); 1: '>> s' and '& (n - 1)', the rewrite the advice asks for;
// 2: '/' and '%' by the constant 64, which the compiler rewrites into a shift and a mask itself.
#include "common.cuh"

template <int MODE>
__global__ void divmodPow2(const unsigned* __restrict__ in, unsigned* __restrict__ out, unsigned n, unsigned s,
                           int iters) {
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[t], acc = 0;
  for (int i = 0; i < iters; ++i) {
    unsigned q, r;
    if (MODE == 0) {
      q = v / n;
      r = v % n;
    } else if (MODE == 1) {
      q = v >> s;
      r = v & (n - 1u);
    } else {
      q = v / 64u;
      r = v % 64u;
    }
    acc += q ^ r;
    v += 0x9E3779B9u;
  }
  out[t] = acc;
}
