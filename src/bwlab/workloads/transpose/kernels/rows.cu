// A copy of `height` rows of `width` bytes from rows `pitch` bytes apart into packed rows:
// the transpose of a view that already holds the transposed layout with padded rows (say
// x[:, :k].T) is exactly this copy. 16-byte vectors where the rows allow them (width, pitch
// and both pointers multiples of 16), four per thread in flight; bytes otherwise.
#include "common.cuh"

typedef unsigned char byte;

extern "C" __global__ void __launch_bounds__(256)
copyRows(const byte* __restrict__ in, byte* __restrict__ out, i64 width, i64 height, i64 pitch) {
  const i64 stride = (i64)gridDim.x * blockDim.x;
  const i64 first = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  const bool vec = ((width | pitch | reinterpret_cast<i64>(in) | reinterpret_cast<i64>(out)) & 15) == 0;
  if (vec) {
    const i64 per_row = width / 16, total = per_row * height;
    for (i64 v0 = first; v0 < total; v0 += 4 * stride) {
      uint4 buf[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {  // four loads in flight before the first store
        const i64 v = v0 + k * stride;
        i64 r = 0, c = 0;
        if (v < total) {
          divmod(v, per_row, r, c);
          buf[k] = reinterpret_cast<const uint4*>(in + r * pitch)[c];
        }
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const i64 v = v0 + k * stride;
        if (v < total) __stcs(reinterpret_cast<uint4*>(out) + v, buf[k]);
      }
    }
  } else {
    const i64 total = width * height;
    for (i64 b = first; b < total; b += stride) {
      i64 r, c;
      divmod(b, width, r, c);
      out[b] = in[r * pitch + c];
    }
  }
}
