// A strided gather in a loop whose counter is a signed or an unsigned 32-bit integer (I). Signed
// overflow is undefined, so with `int` the compiler may widen base + i * stride to 64 bits once
// and step a pointer; with `unsigned` the index must wrap at 2^32, which can cost extra
// instructions per iteration. The table stays in L1, so the address arithmetic shows.
#include "common.cuh"

template <typename I>
__global__ void stridedSum(const unsigned* __restrict__ in, unsigned* __restrict__ out, I n, I stride) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const I base = (I)(t & 255u);
  unsigned acc = 0;
  for (I i = 0; i < n; ++i) acc += in[base + i * stride];
  out[t] = acc;
}
