// Shared-memory bank conflicts in isolation. One warp per block stores a 32x32 tile of 4-byte
// words, then reads it column by column, as a tiled transpose's store phase does: in round k
// lane r reads element (r, k % 32). The loop touches no global memory, so its time is the
// shared-memory reads. LAYOUT 0: rows of 32 words, so a column is 32 words 128 bytes apart, all
// in one bank (a 32-way conflict); 1: rows padded to 33 words (a column spans the 32 banks);
// 2: rows of 32 words with the column index rotated by the row, (c + r) % 32 (a swizzle: every
// bank once, no extra memory).
#include "common.cuh"

template <int LAYOUT>
__global__ void columnReads(const unsigned* __restrict__ in, unsigned* __restrict__ out, int rounds) {
  constexpr int W = LAYOUT == 1 ? 33 : 32;
  __shared__ unsigned tile[32 * W];
  const int lane = threadIdx.x;  // blockDim.x == 32
  const unsigned* src = in + (i64)blockIdx.x * 1024;
#pragma unroll 4
  for (int r = 0; r < 32; ++r) {  // row r, coalesced: lane holds column `lane`
    const int col = LAYOUT == 2 ? (lane + r) & 31 : lane;
    tile[r * W + col] = src[r * 32 + lane];
  }
  __syncwarp();
  unsigned acc = 0;
  for (int k = 0; k < rounds; ++k) {
    const int c = k & 31;
    const int col = LAYOUT == 2 ? (c + lane) & 31 : c;
    acc += tile[lane * W + col];
  }
  out[(i64)blockIdx.x * 32 + lane] = acc;
}
