// Integer arithmetic on 8-, 16- and 32-bit values (T: signed char, short, int and their unsigned
// forms) in otherwise identical kernels. C promotes a char or short operand to int, and every
// assignment back to T truncates; the question is what that costs in instructions. Each thread
// runs one chain of `iters` dependent steps, its operands drawn from its input word (so nothing
// is known at compile time) and its result stored. OP 0: x = x * y + z, whose low bits depend
// only on the operands' low bits (the compiler may keep x in a 32-bit register and truncate once
// at the end); OP 1: the same, then x = x ^ (x >> 3), where the shift needs x's exact narrow
// value (truncated, or sign-extended for signed T) at every step. The loop is unrolled 4 times
// for every T (left alone, the compiler unrolls the int chains further), so that only the
// conversions differ.
// The multiply-add is written on unsigned int, so that a signed int chain wraps instead of
// overflowing (undefined); for narrow T it gives the very bits that T's promoted arithmetic does.
#include "common.cuh"

template <typename T, int OP>
__global__ void narrowChain(const unsigned* __restrict__ in, unsigned* __restrict__ out, int iters) {
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned w = in[t];
  T x = (T)w;
  const T y = (T)((w * 0x9E3779B9u) | 1u), z = (T)(w ^ (w >> 13));
#pragma unroll 4
  for (int i = 0; i < iters; ++i) {
    x = (T)((unsigned)x * (unsigned)y + (unsigned)z);
    if (OP == 1) x = (T)(x ^ (x >> 3));
  }
  out[t] = (unsigned)x;
}
