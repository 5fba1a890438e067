// Coalescing, two ways to spoil it. stridedRead: thread i reads word i * stride and writes word
// i (the writes stay coalesced), so a warp's 32 reads spread over 32 * stride words: from stride
// 8 on (32 bytes, one sector) every read fetches a sector of its own. offsetRead: thread i reads
// word i + offset, so a warp's 128 bytes start `offset` words past a 128-byte boundary and
// straddle two lines (five sectors instead of four) unless offset is a multiple of 32.
#include "common.cuh"

__global__ void stridedRead(const unsigned* __restrict__ in, unsigned* __restrict__ out, i64 n, int stride) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * stride];
}

__global__ void offsetRead(const unsigned* __restrict__ in, unsigned* __restrict__ out, i64 n, int offset) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + offset];
}
